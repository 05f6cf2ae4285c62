"""Warnings of ``microsdc risk`` are reported once, as the command's own lines."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

from cli_runner import run_cli


@pytest.mark.parametrize("declared", [[], ["--missing-values", "-999"]])
def test_all_missing_key_variable_is_warned_once_and_nothing_escapes(
    tmp_path: Path, declared: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # 'e' is empty in every record; 'm' is -999 everywhere (missing only when declared)
    src = tmp_path / "in.csv"
    pd.DataFrame({"a": [1, 1, 2, 2, 3], "e": [None] * 5, "m": [-999] * 5}).to_csv(src, index=False)
    with warnings.catch_warnings(record=True) as escaped:
        warnings.simplefilter("always")
        code, out, err = run_cli(["risk", str(src), "--qi", "a,e,m", *declared], capsys)
    assert code == 0, err
    # every warning went through the command's report, none past it
    assert [str(w.message) for w in escaped] == []
    assert err.count("key variable 'e' is missing in every record") == 1
    assert err.count("key variable 'm' is missing in every record") == (1 if declared else 0)
    # the intruder line counts the values as written: -999 is a value there, and
    # a=3 is a unique (probability 1), a=1 and a=2 pairs (1/2, above 1/3)
    assert "probability above 1/3: 5; highest probability 1.00" in out


@pytest.mark.parametrize("engine", ["pandas", "duckdb", "polars"])
def test_key_variables_named_like_the_counts_on_every_engine(
    tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # key variables called "count" and "at_risk": the riskiest table keeps values and
    # counts apart on every engine. By hand: (1,x) 2 records, (2,y) 1, (3,x) 1
    pytest.importorskip(engine)
    src = tmp_path / "in.parquet"
    frame = pd.DataFrame({"count": [1, 1, 2, 3], "at_risk": ["x", "x", "y", "x"]})
    frame.to_parquet(src)
    args = ["risk", str(src), "--qi", "count,at_risk", "--engine", engine]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    rows = [line.split("│")[1:-1] for line in out.splitlines() if line.startswith("│ ")]
    riskiest = [[c.strip() for c in r] for r in rows if len(r) == 4]
    # by ascending fk, then the key values; records and fk after the key variables
    assert riskiest == [["2", "y", "1", "1"], ["3", "x", "1", "1"], ["1", "x", "2", "2"]]
    assert "│ 2 │               2 │  50.00% │" in out  # fk < 2: the two uniques
