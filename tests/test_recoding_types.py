"""A recoding gives a column of one type, and a writer names the column it cannot store."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import microsdc
from microsdc import merge_rare_categories
from microsdc.exceptions import DataValidationError, OutputError

CODES = pd.Series([1, 1, 1, 2, 3, 5, 5], name="region")


def test_numeric_codes_get_the_next_code_by_default() -> None:
    out = merge_rare_categories(CODES, min_count=2)
    assert out.tolist() == [1, 1, 1, 6, 6, 5, 5]
    assert out.dtype == np.dtype("int64")
    floats = merge_rare_categories(pd.Series([1.0, 1.0, 2.0, np.nan, 7.5]), min_count=2)
    assert floats.tolist()[:3] == [1.0, 1.0, 8.0] and np.isnan(floats.iloc[3])
    nullable = merge_rare_categories(
        pd.Series(pd.array([4, 4, 2, 3, None], dtype="Int64")), min_count=2
    )
    assert nullable.dtype == pd.Int64Dtype()
    assert nullable.tolist()[:4] == [4, 4, 5, 5] and pd.isna(nullable.iloc[4])


def test_a_text_label_makes_numeric_codes_text() -> None:
    out = merge_rare_categories(CODES, min_count=2, other_label="other")
    assert out.tolist() == ["1", "1", "1", "other", "other", "5", "5"]
    with_missing = pd.Series([1.0, 1.0, 2.0, 3.0, np.nan])  # codes read as floats
    text = merge_rare_categories(with_missing, min_count=2, other_label="other")
    assert text.tolist()[:4] == ["1", "1", "other", "other"] and pd.isna(text.iloc[4])
    assert {type(v) for v in text.dropna()} == {str}


def test_a_numeric_label_on_text_is_text() -> None:
    out = merge_rare_categories(
        pd.Series(["a", "a", "b", "b", "c", "d"]), min_count=2, other_label=9
    )
    assert out.tolist() == ["a", "a", "b", "b", "9", "9"]


def test_categorical_codes() -> None:
    cat = pd.Series(pd.Categorical([1, 1, 2, 2, 3, 4]))
    default = merge_rare_categories(cat, min_count=2)
    assert default.tolist() == [1, 1, 2, 2, 5, 5]
    assert list(default.cat.categories) == [1, 2, 5]
    text = merge_rare_categories(cat, min_count=2, other_label="other")
    assert list(text.cat.categories) == ["1", "2", "other"]
    assert text.astype(object).tolist() == ["1", "1", "2", "2", "other", "other"]


@pytest.mark.parametrize("label", [None, "other"])
@pytest.mark.parametrize("ext", ["parquet", "dta", "sav", "csv"])
def test_merged_codes_write_and_read_back(tmp_path: Path, label: object, ext: str) -> None:
    df = pd.DataFrame({"region": CODES, "age": range(7)})
    out = merge_rare_categories(df, "region", min_count=2, other_label=label)
    path = tmp_path / f"x.{ext}"
    microsdc.write_table(out, path)
    back = microsdc.read_table(path)
    want = ["1", "1", "1", "other", "other", "5", "5"] if label else [1, 1, 1, 6, 6, 5, 5]
    assert [str(v) if label else int(v) for v in back["region"]] == want


@pytest.mark.parametrize(("ext", "name"), [("parquet", "Parquet"), ("dta", "Stata")])
def test_writer_names_a_mixed_column(tmp_path: Path, ext: str, name: str) -> None:
    df = pd.DataFrame({"x": pd.array([1, 1, "other"], dtype=object), "y": [1, 2, 3]})
    with pytest.raises(
        DataValidationError, match=rf"as {name}: column 'x' mixes int 1, str"
    ) as info:
        microsdc.write_table(df, tmp_path / f"x.{ext}")
    assert info.value.failure_cases == ["x"]
    assert list(tmp_path.iterdir()) == []  # nothing left behind


def test_other_writer_failures_are_output_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pa = pytest.importorskip("pyarrow")

    def refuse(self: pd.DataFrame, *args: object, **kwargs: object) -> None:
        raise pa.ArrowNotImplementedError("unsupported type")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", refuse)
    with pytest.raises(OutputError, match=r"Cannot write x\.parquet as Parquet: unsupported type"):
        microsdc.write_table(pd.DataFrame({"a": [1]}), tmp_path / "x.parquet")
