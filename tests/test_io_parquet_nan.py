"""A Parquet float column's NaN and null stay apart through read_table, write_table and
`microsdc suppress` on the pandas route, as through the engines."""

from __future__ import annotations

from pathlib import Path

import pytest

import microsdc
from cli_runner import run_cli

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

NAN = float("nan")


def _marks(values: list[object]) -> list[str]:
    return ["nan" if v != v else "null" if v is None else "v" for v in values]


@pytest.fixture
def parquet(tmp_path: Path) -> Path:
    table = pa.table(
        {
            "a": [1, 1, 2, 2, 3],
            "b": ["x", "x", "y", "y", "z"],
            "f": pa.array([NAN, 1.0, None, 2.0, NAN], from_pandas=False),
            "l": pa.array([[1], [2], [3], [4], [5]]),
        }
    )
    path = tmp_path / "in.parquet"
    pq.write_table(table, path)
    return path


def test_library_round_trip(parquet: Path, tmp_path: Path) -> None:
    df = microsdc.read_table(parquet)
    out = tmp_path / "out.parquet"
    microsdc.write_table(df.iloc[::-1], out)  # reordered: the NaN follow their records
    back = pq.read_table(out)
    assert _marks(back["f"].to_pylist()) == ["nan", "v", "null", "v", "nan"]


@pytest.mark.parametrize("engine", [[], ["--engine", "polars"], ["--engine", "duckdb"]])
def test_cli_suppress_keeps_untouched_columns(
    parquet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: list[str]
) -> None:
    out = tmp_path / "out.parquet"
    args = ["suppress", str(parquet), "--qi", "a,b", "-k", "2", "--missing", "wildcard"]
    args += ["--out", str(out), *engine]
    code, _, err = run_cli(args, capsys)
    assert code == 0, err
    back = pq.read_table(out)
    assert _marks(back["f"].to_pylist()) == ["nan", "v", "null", "v", "nan"]
    assert back["l"].to_pylist() == [[1], [2], [3], [4], [5]]
    assert back["a"].to_pylist()[:4] == [1, 1, 2, 2]
