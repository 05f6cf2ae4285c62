"""Stata's extended missing values (.a to .z) and their labels survive reading and
writing, through the library and the command line; counts treat them as missing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import microsdc
from cli_runner import run_cli
from microsdc.exceptions import DataValidationError

pyreadstat = pytest.importorskip("pyreadstat")

LABELS = {1: "yes", 2: "no", "a": "refused", "b": "don't know"}


@pytest.fixture
def dta(tmp_path: Path) -> Path:
    """sex and age are key variables; q (not a key) holds .a and .b; k (a key) holds .c."""
    df = pd.DataFrame(
        {
            "sex": [1, 1, 2, 2, 1, 2, 1, 2],
            "age": [1, 1, 1, 1, 2, 2, 2, 3],
            "q": pd.array([1, 2, "a", "b", 1, "a", 2, "b"], dtype=object),
            "k": pd.array([1, 1, "c", 1, 1, 1, 1, 1], dtype=object),
        }
    )
    path = tmp_path / "in.dta"
    pyreadstat.write_dta(
        df,
        path,
        missing_user_values={"q": ["a", "b"], "k": ["c"]},
        variable_value_labels={"q": LABELS, "sex": {1: "m", 2: "f"}},
        column_labels={"q": "Question"},
    )
    return path


def _back(path: Path) -> tuple[pd.DataFrame, object]:
    return pyreadstat.read_dta(str(path), user_missing=True)


def _q(df: pd.DataFrame) -> list[object]:
    return [v if isinstance(v, str) else int(v) for v in df["q"]]


def test_read_write_keeps_letters_and_labels(dta: Path, tmp_path: Path) -> None:
    df = microsdc.read_table(dta)
    assert df["q"].isna().tolist() == [False, False, True, True, False, True, False, True]
    out = tmp_path / "out.dta"
    microsdc.write_table(df, out)
    back, meta = _back(out)
    assert _q(back) == [1, 2, "a", "b", 1, "a", 2, "b"]
    assert meta.variable_value_labels["q"] == LABELS
    assert meta.variable_value_labels["sex"] == {1: "m", 2: "f"}
    assert meta.missing_user_values == {"q": ["a", "b"], "k": ["c"]}
    assert meta.column_names_to_labels["q"] == "Question"


def test_extended_missing_values_count_as_missing(dta: Path) -> None:
    df = microsdc.read_table(dta)
    fk = microsdc.sample_frequencies(df, ["sex", "k"], k=2)["fk"].tolist()
    assert fk == [4, 4, 4, 4, 4, 4, 4, 4]  # the .c of k is a wildcard


def test_user_missing_read_writes_back(dta: Path, tmp_path: Path) -> None:
    df = microsdc.read_table(dta, user_missing=True)
    assert df["q"].tolist()[2:4] == ["a", "b"]
    out = tmp_path / "out.dta"
    microsdc.write_table(df, out)  # was pandas' raw ValueError
    back, meta = _back(out)
    assert _q(back) == [1, 2, "a", "b", 1, "a", 2, "b"]
    assert meta.variable_value_labels["q"] == LABELS


def test_letters_follow_their_records(dta: Path, tmp_path: Path) -> None:
    df = microsdc.read_table(dta).iloc[::-1].iloc[:6]  # reordered and filtered
    out = tmp_path / "out.dta"
    microsdc.write_table(df, out)
    assert _q(_back(out)[0]) == ["b", 2, "a", 1, "b", "a"]


def test_labels_of_codes_kept_without_letters(dta: Path, tmp_path: Path) -> None:
    df = microsdc.read_table(dta)
    df = df[df["q"].notna()]  # no extended missing value left: written by pandas
    out = tmp_path / "out.dta"
    microsdc.write_table(df, out)
    _, meta = _back(out)
    assert meta.variable_value_labels["q"] == {1: "yes", 2: "no"}


def test_suppression_blanks_are_plain_missing(dta: Path, tmp_path: Path) -> None:
    df = microsdc.read_table(dta)
    res = microsdc.local_suppression(df, ["sex", "age", "k"], 2)
    out = tmp_path / "out.dta"
    microsdc.write_table(res.data, out)
    back, _ = _back(out)
    assert back["k"].tolist()[2] == "c"  # still .c
    blanked = res.data["age"].isna() & df["age"].notna()
    assert blanked.sum() >= 1
    assert all(pd.isna(v) and not isinstance(v, str) for v in back["age"][blanked.to_numpy()])
    assert _q(back) == [1, 2, "a", "b", 1, "a", 2, "b"]


def test_cli_suppress_keeps_them(
    dta: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.dta"
    code, _, err = run_cli(
        ["suppress", str(dta), "--qi", "sex,age,k", "-k", "2", "--out", str(out)], capsys
    )
    assert code == 0, err
    back, meta = _back(out)
    assert _q(back) == [1, 2, "a", "b", 1, "a", 2, "b"]
    assert back["k"].tolist()[2] == "c"
    assert meta.variable_value_labels["q"] == LABELS


def test_repeated_row_labels_are_refused(dta: Path, tmp_path: Path) -> None:
    df = microsdc.read_table(dta)
    df.index = [0] * len(df)
    with pytest.raises(DataValidationError, match=r"extended missing values .* column 'q'"):
        microsdc.write_table(df, tmp_path / "out.dta")
    assert not (tmp_path / "out.dta").exists()
    assert np.isnan(df["q"].iloc[2])  # the frame is not changed


@pytest.mark.parametrize("name", ["out.csv", "out.parquet", "out.sav"])
def test_other_formats_say_the_letters_become_plain_missing(
    dta: Path, tmp_path: Path, name: str
) -> None:
    df = microsdc.read_table(dta)
    with pytest.warns(microsdc.exceptions.SDCWarning, match=r"'q': a, b; 'k': c"):
        microsdc.write_table(df, tmp_path / name)
