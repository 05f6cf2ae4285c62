"""``microsdc risk --engine duckdb|polars`` prints the lines pandas prints: the
missing-value policy in the header and the intruder's headline, computed from the
engine's distinct key combinations."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from cli_runner import run_cli

pytest.importorskip("narwhals")

INTRUDER = "records an intruder who knows their key values picks with probability above 1/3"


def _lines(
    args: list[str], engine: str, capsys: pytest.CaptureFixture[str]
) -> tuple[str, list[str]]:
    if engine != "pandas":
        pytest.importorskip(engine)
    code, out, err = run_cli([*args, "--top", "0", "--engine", engine], capsys)
    assert code == 0, err
    text = " ".join(out.split())  # rich wraps the header at the console's width
    return text, [line for line in out.splitlines() if line.startswith(INTRUDER)]


@pytest.mark.parametrize("engine", ["pandas", "duckdb", "polars"])
def test_hand_computed_intruder_line_and_policy_on_every_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: str
) -> None:
    # classes by hand, a declared code being a value as written: x (2 records),
    # -9 (3), z (1): the prosecutor risks 1/2, 1/3, 1; above 1/3: the x's and z = 3
    src = tmp_path / "in.parquet"
    pd.DataFrame({"a": ["x", "x", "-9", "-9", "-9", "z"], "b": [1] * 6}).to_parquet(src)
    args = ["risk", str(src), "--qi", "a,b", "-k", "3", "--missing-values", "-9"]
    args += ["--missing", "category"]
    text, intruder = _lines(args, engine, capsys)
    assert intruder == [f"{INTRUDER}: 3; highest probability 1.00"]
    assert "2 quasi-identifiers (a, b), missing values as category" in text


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize(
    "options",
    [
        ["--qi", "age,sex,race,workclass,occupation", "--bin", "age=10"],
        ["--qi", "sex,race,workclass", "--missing-values", "?", "--missing", "category"],
    ],
    ids=["bin", "codes"],
)
def test_the_engine_prints_the_pandas_lines_on_adult(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: str, options: list[str]
) -> None:
    from real_data import real_data_file

    data = pd.read_csv(real_data_file("adult_missing.csv")).head(3000)
    src = tmp_path / "adult.parquet"
    data.to_parquet(src)
    args = ["risk", str(src), *options]
    pandas_text, pandas_intruder = _lines(args, "pandas", capsys)
    text, intruder = _lines(args, engine, capsys)
    assert len(pandas_intruder) == 1 and intruder == pandas_intruder
    policy = pandas_text[pandas_text.index("missing values as") :].split()[3]
    assert f"missing values as {policy}" in text


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_engine_prints_the_figures_of_risk_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: str, weighted: bool
) -> None:
    """The expected re-identifications, global and highest risk of ``--engine`` are the
    figures risk_summary gives for the lazy frame. By hand: sex x age with (m, 1) twice,
    (f, 2), (f, missing), (m, 3): fk = 2, 2, 2, 2, 1, so 4 x 1/2 + 1 = 3.0 expected
    re-identifications without weights, 60 % of the 5 records, highest risk 1."""
    from microsdc.risk import risk_summary

    src = tmp_path / "in.parquet"
    df = pd.DataFrame(
        {"sex": ["m", "m", "f", "f", "m"], "age": [1, 1, 2, None, 3], "w": [3.0, 5, 2, 8, 4]}
    )
    df.to_parquet(src)
    args = ["risk", str(src), "--qi", "sex,age", "-k", "2"]
    args += ["--weight", "w"] if weighted else []
    text, _ = _lines(args, engine, capsys)
    if engine == "polars":
        import polars as pl

        lazy = pl.scan_parquet(src)
    else:
        import duckdb

        lazy = duckdb.connect().read_parquet(str(src))
    fig = risk_summary(lazy, ["sex", "age"], 2, weights="w" if weighted else None)
    from microsdc.report import format_percent

    er, share = fig["expected_reidentifications"], format_percent(fig["global_risk"], 2)
    assert f"Expected re-identifications: {er:,.1f}; global risk {share} of records; " in text
    assert f"highest individual risk {fig['max_risk']:.2g};" in text
    if not weighted:
        assert (er, fig["global_risk"], fig["max_risk"]) == (3.0, 0.6, 1.0)
