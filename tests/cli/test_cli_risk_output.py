"""``microsdc risk``: tables that fit 80 columns; global risk and expected re-identifications."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

from microsdc.cli import main
from microsdc.cli.risk import riskiest_table

LONG = {
    "age": ["13", "46"],
    "workclass": ["Self-emp-not-inc", "Local-gov"],
    "education": ["Assoc-acdm", "Prof-school"],
    "marital-status": ["Married-civ-spouse", "Never-married"],
    "occupation": ["Machine-op-inspct", "Prof-specialty"],
    "race": ["Asian-Pac-Islander", "White"],
    "sex": ["Female", "Male"],
    "native-country": ["United-States", None],
}


def _summary() -> pd.DataFrame:
    df = pd.DataFrame(LONG)
    return df.assign(records=[1, 2], fk=[1, 2], Fk=[14878.25, 19302.0])


def _text(table: object, width: int) -> str:
    con = Console(width=width, record=True, highlight=False)
    con.print(table)
    return con.export_text()


def test_riskiest_table_fits_80_columns_without_cutting_values() -> None:
    text = _text(riskiest_table(_summary(), list(LONG), True, 80), 80)
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 80
    joined = "".join(text.replace("│", " ").split())
    for name, values in LONG.items():
        for v in values:
            assert f"{name}={'(missing)' if v is None else v}" in joined
    assert "14,878.2" in text and "19,302.0" in text


def test_riskiest_table_keeps_one_column_per_variable_when_it_fits() -> None:
    summary = _summary()[["age", "sex", "records", "fk", "Fk"]]
    text = _text(riskiest_table(summary, ["age", "sex"], True, 80), 80)
    header = next(line for line in text.splitlines() if "┃ age" in line)
    assert "sex" in header and "key combination " not in header
    assert "Female" in text and "…" not in text


def test_risk_prints_global_risk_and_expected_reidentifications(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "d.csv"
    pd.DataFrame({"age": [30, 30, 40], "sex": ["m", "m", "f"]}).to_csv(path, index=False)
    main(["risk", str(path), "--qi", "age,sex"])  # returns normally on success
    out = " ".join(capsys.readouterr().out.split())
    # fk = 2, 2, 1: risks 1/2 + 1/2 + 1 = 2 expected re-identifications, 2/3 of the records
    assert "Expected re-identifications: 2.0" in out
    assert "global risk 66.67 % of records" in out
    assert "highest individual risk 1" in out


def _riskiest_header(output: str) -> list[str]:
    lines = output.splitlines()
    at = next(i for i, line in enumerate(lines) if "riskiest key combinations" in line)
    return [cell.strip() for cell in lines[at + 2].strip("┃").split("┃")]


@pytest.mark.parametrize(
    ("weight", "own"),
    [
        ([], ["records (count)", "fk (sample)"]),
        (["--weight", "w"], ["records (count)", "fk (sample)", "Fk (population)"]),
    ],
)
def test_key_variables_named_like_the_riskiest_tables_own_columns_keep_apart(
    tmp_path: Path, weight: list[str], own: list[str]
) -> None:
    from click.testing import CliRunner

    from microsdc.cli import cli

    path = tmp_path / "d.csv"
    pd.DataFrame(
        {"fk": [1, 1, 2, 3], "records": ["a", "a", "b", "c"], "w": [10.0, 10.0, 20.0, 30.0]}
    ).to_csv(path, index=False)
    args = ["risk", str(path), "--qi", "fk,records", *weight]
    result = CliRunner().invoke(cli, args, catch_exceptions=False, terminal_width=120)
    assert result.exit_code == 0, result.output
    header = _riskiest_header(result.output)
    assert header == ["fk", "records", *own]
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if "riskiest key combinations" in line)
    first = [c.strip() for c in lines[at + 4].strip("│").split("│")]
    # the key values (fk 2, records "b"), then the combination's 1 record and its fk 1
    assert first[:4] == ["2", "b", "1", "1"]
    assert first[4:] == (["20.0"] if weight else [])


def test_the_riskiest_table_keeps_its_own_names_when_no_key_variable_takes_them() -> None:
    summary = _summary()[["age", "sex", "records", "fk", "Fk"]]
    text = _text(riskiest_table(summary, ["age", "sex"], True, 80), 80)
    header = next(line for line in text.splitlines() if "┃ age" in line)
    assert [c.strip() for c in header.strip("┃").split("┃")] == [
        "age",
        "sex",
        "records",
        "fk",
        "Fk",
    ]
    summary = summary[["age", "sex", "records", "fk"]].rename(columns={"sex": "FK"})
    text = _text(riskiest_table(summary, ["age", "FK"], False, 80), 80)
    header = next(line for line in text.splitlines() if "┃ age" in line)
    assert [c.strip() for c in header.strip("┃").split("┃")] == [
        "age",
        "FK",
        "records (count)",
        "fk (sample)",
    ]
