"""Integer key variables wider than int64 (UBIGINT, HUGEINT, UHUGEINT on DuckDB; uint64
on pandas, polars and pyarrow) count and suppress as any other integer column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import microsdc
from microsdc._core.policy import Policy
from microsdc.backends import keyed

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")

BIG = [2**64 - 1, 2**63, 1, 1, 2**63 + 1, None]
# wildcard: the missing record matches every record
FK = [2, 2, 3, 3, 2, 6]


def _duckdb(sql_type: str, values: list[int | None]) -> object:
    rows = ", ".join(
        f"(({'NULL' if v is None else v})::{sql_type}, {i})" for i, v in enumerate(values)
    )
    return duckdb.sql(f"SELECT * FROM (VALUES {rows}) AS t(u, rid)")


@pytest.mark.parametrize(
    ("sql_type", "values"),
    [
        ("UBIGINT", BIG),
        ("HUGEINT", [2**127 - 1, -(2**127) + 1, 1, 1, 2**100, None]),
        ("UHUGEINT", [2**128 - 1, 2**127, 1, 1, 2**64, None]),
        ("BIGINT", [2**63 - 1, -(2**63), 1, 1, 2**62, None]),
    ],
)
def test_duckdb_wide_integer_keys_count_and_suppress(sql_type: str, values: list) -> None:
    rel = _duckdb(sql_type, values)
    out = microsdc.sample_frequencies(rel, ["u"], k=3).order("rid").fetchall()
    assert [r[0] for r in out] == values  # the values come back as they were
    assert [r[2] for r in out] == FK
    assert [r[3] for r in out] == [f < 3 for f in FK]
    # without the missing record: the three unique values are at risk for k = 2
    rel = _duckdb(sql_type, values[:5])
    res = microsdc.local_suppression(rel, ["u"], 2)
    got = [r[0] for r in res.data.order("rid").fetchall()]
    assert got[2:4] == [1, 1]
    assert any(got[i] is None for i in (0, 1, 4))
    kept = [v for v in got if v is not None]
    assert all(kept.count(v) + got.count(None) >= 2 for v in kept)


def test_ubigint_plan_has_no_int64_overflow() -> None:
    rel = _duckdb("UBIGINT", [2**64 - 1, 0, 0])
    assert keyed.plan_keys(rel, ["u"], None, Policy("wildcard"), False) is None


def _uint64_frames() -> dict[str, object]:
    values = [2**64 - 1, 2**63, 1, 1, 2**63 + 1]
    table = pa.table({"u": pa.array(values, type=pa.uint64()), "rid": list(range(5))})
    return {
        "pandas": pd.DataFrame({"u": np.array(values, dtype=np.uint64), "rid": range(5)}),
        "pandas nullable": table.to_pandas(types_mapper={pa.uint64(): pd.UInt64Dtype()}.get),
        "pyarrow": table,
        "polars": pl.from_arrow(table),
        "polars lazy": pl.from_arrow(table).lazy(),
        "duckdb": duckdb.from_arrow(table),
    }


@pytest.mark.parametrize("kind", sorted(_uint64_frames()))
def test_uint64_keys_on_every_engine(kind: str) -> None:
    df = _uint64_frames()[kind]
    out = microsdc.sample_frequencies(df, ["u"], k=2)
    if hasattr(out, "collect"):
        out = out.collect()
    if hasattr(out, "order"):
        out = out.order("rid").pl()
    frame = (
        out
        if isinstance(out, pd.DataFrame)
        else pl.from_arrow(out)
        if isinstance(out, pa.Table)
        else out
    )
    fk = list(frame["fk"])
    assert fk == [1, 1, 2, 2, 1]


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("func", ["sample_frequencies", "local_suppression"])
def test_polars_int128_is_named_with_the_cast(lazy: bool, func: str) -> None:
    from microsdc.exceptions import DataValidationError

    df = pl.DataFrame({"u": pl.Series([2**100, 1, 1], dtype=pl.Int128), "s": ["a", "a", "b"]})
    frame = df.lazy() if lazy else df
    call = getattr(microsdc, func)
    with pytest.raises(DataValidationError, match=r"'u' .* polars Int128 .*cast\(pl\.String\)"):
        call(frame, ["u"], k=2) if func == "sample_frequencies" else call(frame, ["u"], 2)
    as_text = frame.with_columns(pl.col("u").cast(pl.String))
    out = call(as_text, ["u"], k=2) if func == "sample_frequencies" else call(as_text, ["u"], 2)
    assert out is not None
    if lazy:  # a wide integer column that is not a key variable stays in polars, untouched
        res = microsdc.local_suppression(frame, ["s"], 2).data.collect()
        assert res["u"].dtype == pl.Int128 and res["u"].to_list() == [2**100, 1, 1]
