"""``microsdc swap`` refuses column options that name no column, saying what to give."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from microsdc.cli import cli as main


@pytest.fixture()
def csv(tmp_path: Path) -> Path:
    rows = [
        {"hid": h, "area": h % 3, "age": h % 4, "size": 1 + h % 2}
        for h in range(30)
        for _ in range(1 + h % 2)
    ]
    path = tmp_path / "in.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _run(csv: Path, *extra: str) -> tuple[int, str, Path]:
    out = csv.parent / "out.csv"
    args = ["swap", str(csv), "--hid", "hid", "--hierarchy", "area", "--out", str(out)]
    res = CliRunner().invoke(main, [*args, *extra])
    return res.exit_code, " ".join(res.output.split()), out


def test_risk_variables_left_out_says_what_to_give(csv: Path) -> None:
    code, text, out = _run(csv, "-k", "0")
    assert code == 2 and not out.exists()
    assert "--risk-variables is required: give the person variables an intruder may know" in text
    assert "--risk-variables ageGroup,gender" in text and "with -k 0 too" in text
    assert "It was not given" not in text and "unless a risk is given" not in text


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--similar", "", "--similar '' names no column"),
        ("--similar", ";", "--similar ';' names no column"),
        ("--similar", " , ", "--similar ' , ' names no column"),
        ("--similar", "size;", "--similar 'size;' has a profile with no column"),
        ("--similar", ";size", "--similar ';size' has a profile with no column"),
        ("--risk-variables", "", "--risk-variables '' names no column"),
        ("--carry-along", "", "--carry-along '' names no column"),
        ("--checked", ",", "--checked ',' names no column"),
        ("--hierarchy", "", "--hierarchy '' names no column"),
    ],
)
def test_option_naming_no_column_is_refused(csv: Path, option: str, value: str, said) -> None:
    base = ["--risk-variables", "age", "-k", "0"]
    code, text, out = _run(csv, *base, option, value)
    assert code == 2, text
    assert said in text
    assert not out.exists()


def test_similar_empty_tells_how_to_ask_for_no_constraint(csv: Path) -> None:
    code, text, _ = _run(csv, "--risk-variables", "age", "--similar", "")
    assert code == 2
    assert "for example --similar 'hsize,htype;hsize'" in text
    assert "leave out --similar for no similarity constraint" in text


def test_profiles_are_taken(csv: Path) -> None:
    code, text, out = _run(
        csv,
        "--risk-variables",
        "age",
        "-k",
        "0",
        "--swaprate",
        "0.4",
        "--similar",
        'size;"size"',
        "--seed",
        "1",
    )
    assert code == 0, text
    assert out.exists()


def test_missing_values_without_bin_is_refused(csv: Path) -> None:
    # the codes only keep their cells out of --bin's bands: alone they used to be taken
    # and change nothing
    args = ["--risk-variables", "age", "--seed", "1", "--missing-values", "-9"]
    code, text, out = _run(csv, *args)
    assert code == 2 and not out.exists()
    assert "--missing-values applies only with --bin (" in text
    assert "add --bin or leave --missing-values out." in text
    code, text, out = _run(csv, *args, "--bin", "age=2")
    assert code == 0, text
    assert out.exists()
