"""Float key variables holding both -0.0 and 0.0 on a lazy engine are refused.

polars, DuckDB and Spark group -0.0 with 0.0 (they are equal), but a file written
from the frame keeps them apart (``-0.0`` and ``0.0`` in a CSV file, two bit
patterns in Parquet), so a count on the engine's groups would make a record
unique in the file look like one of many. On pandas, polars ``DataFrame`` and
pyarrow ``Table`` such values are counted apart (:mod:`microsdc.data.written`);
the engines' group-by cannot, so a key variable with both is refused, naming it,
before any count. Only float key variables are looked at, in one pass.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from microsdc.backends import Backend
from microsdc.exceptions import DataValidationError

__all__ = ["refuse_signed_zeros"]


def _float_columns(native: Any, backend: Backend, cols: Sequence[str]) -> list[str]:
    if backend.name == "PySpark":
        from pyspark.sql.types import DoubleType, FloatType

        types = {f.name: f.dataType for f in native.schema.fields}
        return [c for c in cols if isinstance(types.get(c), DoubleType | FloatType)]
    if backend.name == "DuckDB":
        types = dict(zip(native.columns, (str(t) for t in native.types), strict=True))
        return [c for c in cols if types.get(c) in ("FLOAT", "DOUBLE", "REAL")]
    import narwhals as nw

    schema = nw.from_native(native).collect_schema()
    return [c for c in cols if schema[c].is_float()]


def _zero_counts(native: Any, backend: Backend, cols: list[str]) -> list[tuple[int, int]]:
    """(records with -0.0, records with 0.0) of each column, in one pass."""
    if backend.name == "PySpark":
        from pyspark.sql import functions as F

        from microsdc.backends.spark import _quote

        aggs = []
        for c in cols:
            x = F.col(_quote(c))
            neg = x.cast("string").startswith("-")
            aggs += [F.count_if((x == 0) & neg), F.count_if((x == 0) & ~neg)]
        row = native.select(*aggs).first()
        values = [int(v or 0) for v in row]
    elif backend.name == "DuckDB":
        from microsdc.backends.frequencies import DUCKDB_VIEW, sql_name

        terms = []
        for c in cols:
            ref = sql_name(c)
            terms += [
                f"count(*) FILTER (WHERE {ref} = 0 AND signbit({ref}))",
                f"count(*) FILTER (WHERE {ref} = 0 AND NOT signbit({ref}))",
            ]
        query = f"SELECT {', '.join(terms)} FROM {DUCKDB_VIEW}"
        values = [int(v or 0) for v in native.query(DUCKDB_VIEW, query).fetchall()[0]]
    else:
        import narwhals as nw

        exprs = []
        for i, c in enumerate(cols):
            is_zero = nw.col(c) == 0
            signed = nw.col(c).cast(nw.String).str.starts_with("-")
            exprs += [
                (is_zero & signed).sum().alias(f"n{i}"),
                (is_zero & ~signed).sum().alias(f"p{i}"),
            ]
        stats = nw.from_native(native).select(*exprs)
        if isinstance(stats, nw.LazyFrame):
            stats = stats.collect()
        values = [int(v or 0) for v in stats.row(0)]
    return [(values[2 * i], values[2 * i + 1]) for i in range(len(cols))]


def refuse_signed_zeros(native: Any, backend: Backend, cols: Sequence[Hashable], func: str) -> None:
    """Raise when a float key variable of the lazy frame holds both -0.0 and 0.0.

    Raises
    ------
    DataValidationError
        Naming the column and how many records hold each zero.
    """
    floats = _float_columns(native, backend, [str(c) for c in cols])
    if not floats:
        return
    for c, (neg, pos) in zip(floats, _zero_counts(native, backend, floats), strict=True):
        if neg and pos:
            raise DataValidationError(
                f"The key variable {c!r} of {func} holds -0.0 in {neg:,} record(s) and 0.0 "
                f"in {pos:,}: a written file keeps them apart ('-0.0' and '0.0'), but "
                f"{backend.name} groups them as one value, so the count would not follow the "
                f"release. Make them one value first (adding 0.0 turns -0.0 into 0.0: "
                f"{c} + 0.0), or collect the frame, where they are counted apart.",
                func=func,
            )
