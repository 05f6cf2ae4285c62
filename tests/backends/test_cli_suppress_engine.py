"""``microsdc suppress --engine duckdb|polars``: Parquet in, Parquet out, the pandas cells."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_runner import run_cli

duckdb = pytest.importorskip("duckdb")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("polars")
pytest.importorskip("narwhals")

QI = ["age", "sex", "region"]


def _frame(n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    age = pd.array(rng.integers(0, 12, n), dtype="Int64")
    age[rng.random(n) < 0.05] = pd.NA
    return pd.DataFrame(
        {
            "age": age,
            "sex": rng.choice(["f", "m"], n),
            "region": rng.integers(0, 15, n).astype("int32"),
            "code": rng.integers(0, 99, n),
            "rid": np.arange(n),
        }
    )


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run_cli(["suppress", *args], capsys)


@pytest.fixture
def parts(tmp_path: Path) -> Path:
    folder = tmp_path / "parts"
    folder.mkdir()
    df = _frame()
    df.iloc[:250].to_parquet(folder / "a.parquet", index=False)
    df.iloc[250:].to_parquet(folder / "b.parquet", index=False)
    return folder


def _blanks(path: Path) -> np.ndarray:
    got = pd.read_parquet(path).sort_values("rid")
    return got[QI].isna().to_numpy()


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_folder_same_cells_as_pandas(
    parts: Path, tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "whole.parquet"
    # the folder's rows in the order the engines read them: a.parquet, then b.parquet
    _frame().to_parquet(whole, index=False)
    want = tmp_path / "want.parquet"
    wc = ["--missing", "wildcard"]  # the greedy pandas and the engines share
    code, _, err = run(
        [str(whole), "--qi", ",".join(QI), "-k", "3", *wc, "--out", str(want)], capsys
    )
    assert code == 0, err
    out = tmp_path / "safe.parquet"
    args = [str(parts), "--qi", ",".join(QI), "-k", "3", *wc, "--engine", engine]
    args += ["--out", str(out)]
    code, stdout, err = run([*args, "--drop", "code"], capsys)
    assert code == 0, err
    assert "400 records" in stdout and "written" in stdout
    np.testing.assert_array_equal(_blanks(out), _blanks(want))
    assert _blanks(out).sum() > _frame()[QI].isna().to_numpy().sum()  # cells were blanked
    schema = pq.read_schema(out)
    assert schema.names == ["age", "sex", "region", "rid"]
    assert str(schema.field("region").type) == "int32"  # integers stay integers
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "parts",
        "safe.parquet",
        "want.parquet",
        "whole.parquet",
    ]  # no temporary file or folder is left


def test_duckdb_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "survey.duckdb"
    frame = _frame()  # noqa: F841 - read by DuckDB's replacement scan
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE persons AS SELECT * FROM frame")
    con.close()
    out = tmp_path / "safe.parquet"
    args = [str(db), "--table", "persons", "--qi", ",".join(QI), "-k", "3"]
    code, _, err = run([*args, "--engine", "duckdb", "--out", str(out)], capsys)
    assert code == 0, err
    assert len(pd.read_parquet(out)) == 400


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--method", "exact"], "--method exact"),
        (["--subject-id", "rid"], "--subject-id"),
        (["--linked", "age=code"], "--linked"),
        (["--missing", "probabilistic"], "--missing probabilistic"),
        (["--drop", "age"], "--drop names key variable"),
        (["--drop", "nope"], "nope"),
    ],
)
def test_options_that_need_the_records_are_refused(
    parts: Path, tmp_path: Path, extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "safe.parquet"
    args = [str(parts), "--qi", ",".join(QI), "--engine", "polars", "--out", str(out)]
    code, _, err = run([*args, *extra], capsys)
    assert code == 2 and message in err
    assert not out.exists()


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_bin_on_an_engine_gives_the_pandas_cells(
    parts: Path, tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "whole.parquet"
    frame = _frame()
    frame.loc[frame.index[:20], "age"] = -9  # a declared missing code, kept as written
    frame.to_parquet(whole, index=False)
    folder = tmp_path / "pq"
    folder.mkdir()
    frame.iloc[:150].to_parquet(folder / "a.parquet", index=False)
    frame.iloc[150:].to_parquet(folder / "b.parquet", index=False)
    flags = ["--qi", ",".join(QI), "-k", "3", "--bin", "age=4", "--missing-values", "-9"]
    flags += ["--missing", "wildcard"]  # the greedy pandas and the engines share
    want, out = tmp_path / "want.parquet", tmp_path / "safe.parquet"
    code, _, err = run([str(whole), *flags, "--out", str(want)], capsys)
    assert code == 0, err
    code, _, err = run([str(folder), *flags, "--engine", engine, "--out", str(out)], capsys)
    assert code == 0, err
    got = pd.read_parquet(out).sort_values("rid")
    expected = pd.read_parquet(want).sort_values("rid")
    assert got["age"].astype(object).tolist() == expected["age"].astype(object).tolist()
    assert set(got["age"].dropna()) <= {"0-3", "4-7", "8-11", "-9"}
    assert (got["age"] == "-9").sum() >= 1
    np.testing.assert_array_equal(_blanks(out), _blanks(want))


def test_output_checked_before_any_work(
    parts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = [str(parts), "--qi", ",".join(QI), "--engine", "duckdb", "--out"]
    code, _, err = run([*base, str(parts / "c.parquet")], capsys)
    assert code == 2 and "inside the input folder" in err
    code, _, err = run([*base, str(tmp_path / "safe.csv")], capsys)
    assert code == 2 and ".parquet" in err
    code, _, err = run([str(parts), "--qi", "age", "--out", str(tmp_path / "x.parquet")], capsys)
    assert code == 2 and "--engine duckdb" in err
