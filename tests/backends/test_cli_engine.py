"""``microsdc risk --engine duckdb|polars`` on Parquet folders, globs and DuckDB tables."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from cli_runner import run_cli

duckdb = pytest.importorskip("duckdb")
pytest.importorskip("polars")
pytest.importorskip("narwhals")

FRAME = pd.DataFrame(
    {
        "A": pd.array([0, 0, 1, 1, None, 0, None], dtype="Int64"),
        "B": pd.array([1, 1, 2, 1, 2, None, None], dtype="Int64"),
        "rid": range(7),
    }
)
FK = [4, 4, 3, 2, 4, 5, 7]  # the spec's worked example


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run_cli(["risk", *args], capsys)


@pytest.fixture
def parts(tmp_path: Path) -> Path:
    folder = tmp_path / "parts"
    folder.mkdir()
    FRAME.iloc[:4].to_parquet(folder / "a.parquet")
    FRAME.iloc[4:].to_parquet(folder / "b.parquet")
    return folder


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("source", ["folder", "glob"])
def test_folder_and_glob(
    parts: Path, tmp_path: Path, engine: str, source: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(parts) if source == "folder" else str(parts / "*.parquet")
    out = tmp_path / "fk.parquet"
    code, stdout, err = run(
        [path, "--qi", "A,B", "-k", "3", "--engine", engine, "--out", str(out)], capsys
    )
    assert code == 0, err
    assert "7 records" in stdout
    got = pd.read_parquet(out).sort_values("rid")
    assert got["fk"].tolist() == FK
    assert got["at_risk"].tolist() == [f < 3 for f in FK]
    assert list(got.columns[:3]) == ["A", "B", "rid"]


def test_duckdb_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "survey.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE persons AS SELECT * FROM FRAME")
    con.close()
    code, stdout, _ = run(
        [str(db), "--table", "persons", "--qi", "A,B", "-k", "3", "--engine", "duckdb"], capsys
    )
    assert code == 0
    # one record (1, 1) has fk = 2 < 3
    assert "│ 3 │               1 │ 14.29% │" in stdout.replace("┃", "│")
    code, _, err = run([str(db), "--qi", "A,B", "--engine", "duckdb"], capsys)
    assert code == 2 and "--table (its tables: 'persons')" in " ".join(err.split())
    code, _, err = run([str(db), "--table", "nope", "--qi", "A", "--engine", "duckdb"], capsys)
    assert code == 2 and "no table 'nope'" in err and "its tables: 'persons'" in err


def test_bad_engine_inputs(parts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([str(parts), "--qi", "A,B"], capsys)
    assert code == 2 and "--engine duckdb" in err
    code, _, err = run(
        [str(tmp_path / "none" / "*.parquet"), "--qi", "A", "--engine", "duckdb"], capsys
    )
    assert code == 2 and "no file matches" in err
    code, _, err = run(
        [str(parts), "--qi", "A", "--engine", "polars", "--out", str(tmp_path / "o.csv")], capsys
    )
    assert code == 2 and ".parquet" in err
    code, _, err = run([str(parts), "--qi", "A,Z", "--engine", "duckdb"], capsys)
    assert code == 2 and "'Z'" in err


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_output_never_over_or_into_the_input(
    parts: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {p.name: p.read_bytes() for p in parts.iterdir()}
    for source, out in (
        (str(parts / "*.parquet"), parts / "a.parquet"),  # one of the files a glob reads
        (str(parts), parts / "a.parquet"),  # one of the files of the folder
        (str(parts), parts / "new.parquet"),  # a new file inside the input folder
    ):
        code, _, err = run([source, "--qi", "A,B", "--engine", engine, "--out", str(out)], capsys)
        assert code == 2, err
        assert "input" in err and "Traceback" not in err
    assert {p.name: p.read_bytes() for p in parts.iterdir()} == before


def test_output_columns_checked_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "withfk"
    folder.mkdir()
    FRAME.assign(fk=1).to_parquet(folder / "a.parquet")
    code, out, err = run(
        [str(folder), "--qi", "A,B", "--engine", "duckdb", "--out", str(tmp_path / "o.parquet")],
        capsys,
    )
    assert code == 2 and "'fk'" in err
    assert "records at risk" not in out.lower()  # nothing computed or printed first


def test_duckdb_tables_of_every_schema_are_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "survey.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE SCHEMA s")
    con.execute("CREATE TABLE s.t AS SELECT 1 AS A")
    con.execute("CREATE VIEW v AS SELECT 1 AS A")
    con.close()
    code, _, err = run([str(db), "--qi", "A", "--engine", "duckdb"], capsys)
    assert code == 2 and "(its tables: 's.t', 'v')" in " ".join(err.split())
    empty = tmp_path / "e.duckdb"
    duckdb.connect(str(empty)).close()
    code, _, err = run([str(empty), "--qi", "A", "--engine", "duckdb"], capsys)
    assert code == 2 and "(it holds no table)" in " ".join(err.split())
