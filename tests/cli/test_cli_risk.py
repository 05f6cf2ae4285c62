"""The ``microsdc risk`` command and the command-line entry point."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_runner import run_cli

FRAME = pd.DataFrame(
    {
        "A": [0, 0, 1, 1, None, 0, None],
        "B": [1, 1, 2, 1, 2, None, None],
        "w": [1.0, 2, 3, 4, 5, 6, 7],
        "note": ["x", "y", "z", None, "é", "", "q"],
    }
)


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``microsdc risk ARGS`` (or ``microsdc ARGS`` when ARGS starts with an option)."""
    if not args[0].startswith("-"):
        args = ["risk", *args]
    return run_cli(args, capsys)


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".sav", ".dta"])
def test_risk_reads_every_format(
    tmp_path: Path, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from microsdc.io import read_table, write_table

    path = tmp_path / f"data{suffix}"
    write_table(FRAME, path)
    back = read_table(path)
    assert back["A"].isna().sum() == 2 and len(back) == 7
    code, out, err = run([str(path), "--qi", "A,B", "-k", "4"], capsys)
    assert code == 0, err
    # fk = 4 4 3 2 4 5 7 -> k=2: 0, k=3: 1, k=4: 2, k=5: 5
    lines = {ln.split()[1]: ln for ln in out.splitlines() if ln.startswith("│ ")}
    assert "│ 2 │               0 │" in out
    assert "│ 3 │               1 │" in out
    assert "│ 4 │               2 │" in out
    assert "│ 5 │               5 │" in out
    assert lines  # the table was printed


def test_risk_weights_and_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.csv"
    FRAME.to_csv(src, index=False)
    dest = tmp_path / "out.parquet"
    code, _, err = run(
        [str(src), "--qi", "A,B", "--weight", "w", "-k", "3", "--out", str(dest)], capsys
    )
    assert code == 0, err
    got = pd.read_parquet(dest)
    assert list(got.columns) == [*FRAME.columns, "fk", "Fk", "at_risk"]
    assert got["fk"].tolist() == [4, 4, 3, 2, 4, 5, 7]
    # (1,1) is compatible with itself (w=4) and (NA,NA) (w=7)
    assert got["Fk"].tolist()[3] == 11.0
    assert got["at_risk"].tolist() == [False, False, False, True, False, False, False]


def test_risk_missing_policy_and_declared_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.csv"
    FRAME[["A", "B"]].fillna(-999).to_csv(src, index=False)
    dest = tmp_path / "out.csv"
    code, _, err = run(
        [str(src), "--qi", "A,B", "--missing-values", "-999", "--out", str(dest)], capsys
    )
    assert code == 0, err
    assert pd.read_csv(dest)["fk"].tolist() == [4, 4, 3, 2, 4, 5, 7]
    code, _, err = run(
        [
            str(src),
            "--qi",
            "A,B",
            "--missing-values",
            "-999",
            "--missing",
            "category",
            "--out",
            str(dest),
        ],
        capsys,
    )
    assert code == 0, err
    assert pd.read_csv(dest)["fk"].tolist() == [2, 2, 1, 1, 1, 1, 1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.csv", "--qi", "A"], "No such file: missing.csv"),
        (["{csv}", "--qi", "A,zz,yy"], "2 column(s) not in in.csv: 'zz', 'yy'"),
        (["{csv}", "--qi", "A", "-k", "0"], "Invalid value for '-k'"),
        (["{csv}", "--qi", "A", "-k", "2.5"], "Invalid value for '-k'"),
        (["{csv}"], "Missing option '--qi'"),
        (["{csv}", "--qi", "A", "--missing", "drop"], "Option --missing must be"),
        (["{csv}", "--qi", "A", "--weight", "bad"], "1 negative value(s) (first rows: 3: -1)"),
        (["{csv}", "--qi", "A", "--weight", "note"], "must be numeric"),
        (
            ["{csv}", "--qi", "A", "--out", "{csv}.xlsx"],
            "an Excel workbook, which microsdc does not write",
        ),
        (["{dir}/data.json", "--qi", "A"], "a JSON file, which microsdc does not read"),
        (["{dir}/data.foo", "--qi", "A"], "Cannot tell the format"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    csv = tmp_path / "in.csv"
    FRAME.assign(bad=[1, -1, 1, 1, 1, 1, 1]).to_csv(csv, index=False)
    args = [a.format(csv=csv, dir=tmp_path) for a in args]
    code, _, err = run(args, capsys)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "in.csv.xlsx").exists()


def test_out_refuses_to_overwrite_existing_fk_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "in.csv"
    FRAME.assign(fk=1).to_csv(csv, index=False)
    code, _, err = run([str(csv), "--qi", "A", "--out", str(tmp_path / "o.csv")], capsys)
    assert code == 2 and "already has column(s) fk" in err
    assert not (tmp_path / "o.csv").exists()


def test_help_does_not_import_numpy_or_pandas() -> None:
    code = (
        "import sys\n"
        "from microsdc.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "assert 'numpy' not in sys.modules and 'pandas' not in sys.modules, 'heavy import'\n"
        "print('light')\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
    assert "risk" in res.stdout and "light" in res.stdout


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and "microsdc, version 0.1.0" in out


def test_large_cardinality_warning_is_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "in.csv"
    pd.DataFrame({"income": np.arange(3000) + 0.5, "s": ["a", "b"] * 1500}).to_csv(csv, index=False)
    code, _, err = run([str(csv), "--qi", "income,s"], capsys)
    assert code == 0
    assert "Warning: Quasi-identifier 'income' has 3,000 distinct values" in err


@pytest.mark.parametrize("name", ["count", "fk", "Fk", "at_risk"])
def test_risk_table_with_qi_named_like_a_count(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "d.csv"
    pd.DataFrame({name: ["a", "a", "b"], "w": [1.0, 2.0, 3.0]}).to_csv(path, index=False)
    code, out, err = run([str(path), "--qi", name, "-k", "2", "--weight", "w"], capsys)
    assert code == 0, err
    rows = [line.split() for line in out.splitlines() if line.strip().startswith(("│ a", "│ b"))]
    # value, records, fk, Fk: the values a and b are shown, not counts
    assert [r[1] for r in rows] == ["b", "a"]
    assert [r[3] for r in rows] == ["1", "2"]


def test_bad_encoding_empty_qi_and_early_output_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.csv"
    FRAME.to_csv(src, index=False)
    code, _, err = run([str(src), "--qi", "A", "--encoding", "latin-9x"], capsys)
    assert code == 2 and "latin-9x" in err and "Traceback" not in err
    code, _, err = run([str(src), "--qi", ""], capsys)
    assert code == 2 and "--qi names no column" in err
    withfk = tmp_path / "withfk.csv"
    FRAME.assign(fk=1).to_csv(withfk, index=False)
    code, out, err = run([str(withfk), "--qi", "A", "--out", str(tmp_path / "o.csv")], capsys)
    assert code == 2 and "fk" in err
    assert "Records at risk" not in out  # refused before any result is printed
    db = tmp_path / "x.duckdb"
    db.write_bytes(b"")
    code, _, err = run([str(db), "--qi", "A"], capsys)
    assert code == 2 and "--engine duckdb --table" in err


def test_all_zero_weights_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.csv"
    FRAME.assign(w=0.0).to_csv(src, index=False)
    code, _, err = run([str(src), "--qi", "A,B", "--weight", "w"], capsys)
    assert code == 2 and "0 for every record" in err


def test_risk_probabilistic_prints_expected_reidentifications(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # fractional fk: the individual risk takes the whole matches it holds
    path = tmp_path / "p.csv"
    path.write_text("a,b\n1,x\n1,x\n2,\n2,y\n3,y\n1,\n")
    code, out, err = run_cli(
        ["risk", str(path), "--qi", "a,b", "-k", "2", "--missing", "probabilistic"], capsys
    )
    assert code == 0, err
    assert "expected" in out.lower()
