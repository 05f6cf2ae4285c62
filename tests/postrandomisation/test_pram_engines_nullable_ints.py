"""pram of data with integer columns that hold missing values: polars (lazy and in
memory), pyarrow, DuckDB and Spark release what pandas releases for the same seed, with
the integers held as pandas holds them when microsdc reads a file (nullable ``Int64``,
``Int32``, ...). polars and pyarrow convert such a column to floats, which pandas hashes
otherwise; the records' keys, and so the draws, used to follow that conversion."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")

from microsdc import pram  # noqa: E402
from microsdc.backends.frequencies import nullable_integers  # noqa: E402


def survey(n: int = 600, seed: int = 0) -> pd.DataFrame:
    """An integer key variable with blanked cells and the declared missing code -9, an
    integer stratum and an integer column with missing values, both narrower than 64
    bits, and texts."""
    rng = np.random.default_rng(seed)
    age = rng.choice([18, 25, 35, 45, 60, -9], n)
    size = rng.integers(1, 8, n)
    return pd.DataFrame(
        {
            "age": pd.array([None if i % 7 == 0 else int(v) for i, v in enumerate(age)], "Int64"),
            "band": pd.array([None if i % 9 == 0 else int(i % 3) for i in range(n)], "Int16"),
            "size": pd.array([None if i % 5 == 0 else int(v) for i, v in enumerate(size)], "Int32"),
            "region": rng.choice(["north", "south", "east"], n),
            "roof": pd.array(rng.choice(["tin", "tile", "straw", None], n), "str"),
        }
    )


def _values(frame: Any) -> dict[str, list[Any]]:
    """Each column's values: integers as ``int`` whatever the column's type (a float
    from polars' conversion, a nullable integer), missing values as None."""
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if isinstance(frame, duckdb.DuckDBPyRelation):
        frame = pl.from_arrow(frame.to_arrow_table())
    if not isinstance(frame, pd.DataFrame):
        frame = pl.from_arrow(frame) if not isinstance(frame, pl.DataFrame) else frame
        frame = frame.to_pandas()

    def plain(v: Any) -> Any:
        if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)):
            return None
        return int(v) if isinstance(v, float | np.integer) else v

    return {str(c): [plain(v) for v in frame[c].astype(object)] for c in frame.columns}


def _differences(got: dict[str, list[Any]], want: dict[str, list[Any]]) -> dict[str, int]:
    """Per column, the records whose values differ (a short failure message)."""
    assert list(got) == list(want)
    return {c: n for c in want if (n := sum(a != b for a, b in zip(got[c], want[c], strict=True)))}


CASES = [
    {"columns": ["age", "roof"]},
    {"columns": ["age", "roof"], "strata": "region"},
    {"columns": ["age"], "strata": "band"},
    {"columns": ["age", "size"], "strata": ["region", "band"], "missing": "state"},
    {"columns": ["age", "roof"], "together": [["age", "roof"]], "pd": 0.6},
]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("kw", CASES)
def test_every_engine_releases_what_pandas_releases(kw: dict[str, Any], seed: int) -> None:
    data = survey()
    table = pl.from_pandas(data).to_arrow()
    assert pl.from_arrow(table).null_count().row(0)[:3] == (86, 67, 120)  # type: ignore[union-attr]
    want = pram(data, seed=seed, **kw)
    expected = _values(want.data)
    assert _differences(expected, _values(data))  # PRAM changed something
    frames = {
        "polars LazyFrame": pl.from_arrow(table).lazy(),  # type: ignore[union-attr]
        "polars DataFrame": pl.from_arrow(table),
        "pyarrow Table": table,
        "DuckDB": duckdb.from_arrow(table),
    }
    for name, frame in frames.items():
        got = pram(frame, seed=seed, **kw)
        assert _differences(_values(got.data), expected) == {}, name
        assert [m.n_changed for m in got.matrices] == [m.n_changed for m in want.matrices], name


def test_spark_releases_what_pandas_releases(spark: Any) -> None:
    data = survey(300).assign(id=np.arange(300))
    sdf = spark.createDataFrame(pl.from_pandas(data).to_arrow())
    kw: dict[str, Any] = {"strata": "band", "missing": "state"}
    want = pram(data, ["age", "size"], seed=4, **kw)
    got = pram(sdf, ["age", "size"], seed=4, **kw)
    out = pl.from_arrow(got.data.toArrow()).sort("id")  # Spark's joins move the rows
    assert _differences(_values(out), _values(want.data)) == {}
    assert _differences(_values(want.data), _values(data))  # PRAM changed something


def test_the_conversion_keeps_integers_and_leaves_the_frame() -> None:
    data = survey(40)
    native = pl.from_pandas(data)
    converted = native.to_pandas()
    assert converted["age"].dtype == np.float64
    out = nullable_integers(converted, native)
    assert [str(out[c].dtype) for c in ("age", "band", "size")] == ["Int64", "Int16", "Int32"]
    pd.testing.assert_series_equal(out["age"], data["age"])
    assert converted["age"].dtype == np.float64  # the given frame unchanged
    pd.testing.assert_series_equal(out["region"], converted["region"])
