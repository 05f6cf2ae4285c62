"""``microsdc risk --suda``: special uniques on the command line."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from cli_runner import run_cli

# the hand-worked table of tests/risk/test_suda.py: r4 has six MSUs of size 2 (score 12)
HAND = pd.DataFrame(
    {
        "A": [1, 1, 1, 2, 2, 1],
        "B": [1, 1, 1, 1, 2, 2],
        "C": [1, 1, 2, 2, 1, 2],
        "D": [1, 1, 2, 1, 2, 1],
    }
)


def test_suda_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hand.csv"
    HAND.to_csv(path, index=False)
    code, out, err = run_cli(["risk", str(path), "--qi", "A,B,C,D", "--suda", "--top", "2"], capsys)
    assert code == 0, err
    flat = " ".join(out.split())  # sentences may wrap
    assert "4 records with a minimal sample unique" in flat
    assert "(4 sample uniques, 2 records in pairs)" in flat
    # the riskiest record first (r4, line 6 of the file), with its six MSUs
    riskiest = next(ln for ln in out.splitlines() if ln.startswith("│   6 │"))
    assert "│   12 │" in riskiest and riskiest.count("{") == 6
    assert "{A=2, B=2}" in riskiest and "{C=1, D=2}" in riskiest
    assert "The 2 riskiest records" in out
    # contribution of C: 7 of the total score 33
    row_c = next(ln for ln in out.splitlines() if ln.startswith("│ C "))
    assert row_c.split("│")[2].strip() == "21.2 %"


def test_suda_out_columns_and_max_msu(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hand.csv"
    HAND.to_csv(path, index=False)
    target = tmp_path / "scored.csv"
    args = ["risk", str(path), "--qi", "A,B,C,D", "--suda", "--max-msu", "2", "--out", str(target)]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    back = pd.read_csv(target)
    assert back["suda"].tolist() == [0, 0, 3, 3, 6, 3]  # M = 2: a size-2 MSU weighs 1
    assert "MSUs of up to 2 values" in " ".join(out.split())


def test_suda_missing_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.csv"
    pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["p", None, "p", "q"]}).to_csv(path, index=False)
    base = ["risk", str(path), "--qi", "a,b", "--suda"]
    code, out, _ = run_cli([*base, "--out", str(tmp_path / "w.csv")], capsys)
    assert code == 0
    code, out, _ = run_cli(
        [*base, "--suda-missing", "sdcmicro", "--out", str(tmp_path / "s.csv")], capsys
    )
    assert code == 0 and "missing values sdcmicro" in " ".join(out.split())
    # record 0 (x, p) is unique only when record 1's blank matches nothing
    assert pd.read_csv(tmp_path / "w.csv")["suda"].tolist()[0] == 0
    assert pd.read_csv(tmp_path / "s.csv")["suda"].tolist()[0] == 1
    code, out, err = run_cli([*base, "--missing", "conservative"], capsys)
    assert code != 0 and "--suda-missing" in out + err


def test_suda_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hand.csv"
    HAND.assign(suda=1).to_csv(path, index=False)
    base = ["risk", str(path), "--qi", "A,B,C,D", "--suda"]
    code, out, err = run_cli([*base, "--engine", "duckdb"], capsys)
    assert code != 0 and "--suda needs the records in memory" in out + err
    code, out, err = run_cli([*base, "--out", str(tmp_path / "o.csv")], capsys)
    assert code != 0 and "already has column(s) suda" in out + err
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["--max-msu", "2"], "--max-msu applies"),
        (["--dis-fraction", "0.1"], "--dis-fraction applies"),
        (["--suda-missing", "sdcmicro", "--max-msu", "2"], "--max-msu and --suda-missing apply"),
    ],
)
def test_suda_options_without_suda_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], named: str
) -> None:
    path = tmp_path / "hand.csv"
    HAND.to_csv(path, index=False)
    code, _, err = run_cli(["risk", str(path), "--qi", "A,B,C,D", *options], capsys)
    assert code == 2 and named in err and "add --suda" in err
    code, _, err = run_cli(["risk", str(path), "--qi", "A,B,C,D", "--suda", *options], capsys)
    assert code == 0, err
