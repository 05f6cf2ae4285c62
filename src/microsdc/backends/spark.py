"""PySpark DataFrames: results of the distinct QI patterns joined back onto the rows.

Spark groups the rows by the quasi-identifiers (through narwhals, nulls kept as
a group) and the patterns come to Python as a pyarrow table. What microsdc
computed on them goes back to Spark as a small DataFrame and is joined onto
the rows with a null-safe equality (``<=>``, :meth:`pyspark.sql.Column.eqNullSafe`)
on every QI, so the result stays a lazy Spark DataFrame. Spark compares names
without regard to case (``spark.sql.caseSensitive`` is off by default), so the
output columns travel under positional names and get theirs back at the end.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from typing import Any

__all__ = ["aggregate", "join_back", "join_back_ranked", "null_counts", "weight_stats"]


def _quote(name: str) -> str:
    """A column reference Spark reads literally (dots and spaces included)."""
    return "`" + name.replace("`", "``") + "`"


def weight_stats(df: Any, w: str) -> tuple[int, int, int, int]:
    """Missing or infinite, negative and nonzero weights, and rows, in one Spark job."""
    from pyspark.sql import functions as F

    col = F.col(_quote(w)).cast("double")
    bad = col.isNull() | F.isnan(col) | (F.abs(col) == float("inf"))
    row = df.select(
        F.count_if(bad).alias("bad"),
        F.count_if(col < 0).alias("neg"),
        F.count_if(col != 0).alias("nonzero"),
        F.count(F.lit(1)).alias("n"),
    ).first()
    return int(row["bad"] or 0), int(row["neg"] or 0), int(row["nonzero"] or 0), int(row["n"])


def aggregate(df: Any, cols: Sequence[str], w: str | None, n_name: str, w_name: str) -> Any:
    """Spark's group-by on the QIs ``cols``, nulls (and NaN) kept as groups: one row per
    distinct tuple with its number of records ``n_name`` (and weight sum ``w_name``),
    as a pyarrow table."""
    from pyspark.sql import functions as F

    aggs = [F.count(F.lit(1)).alias(n_name)]
    if w is not None:
        aggs.append(F.sum(F.col(_quote(w)).cast("double")).alias(w_name))
    return df.groupBy(*[F.col(_quote(c)) for c in cols]).agg(*aggs).toArrow()


def aggregate_first(df: Any, cols: Sequence[str], n_name: str, first_name: str) -> Any:
    """Spark's group-by on ``cols`` (nulls and NaN kept as groups) with each tuple's number
    of records ``n_name`` and the position of its first record ``first_name``, as a
    pyarrow table.

    Positions come from ``monotonically_increasing_id()``: increasing in the order of
    the partitions and of the rows within each, the order ``toPandas()`` and
    ``toArrow()`` collect them in (for a frame read from files, the files' order). They
    are not consecutive; only their order is used.
    """
    from pyspark.sql import functions as F

    keys = [F.col(_quote(c)) for c in cols]
    row = "__microsdc_row"
    numbered = df.select(*keys, F.monotonically_increasing_id().alias(row))
    return (
        numbered.groupBy(*[F.col(_quote(c)) for c in cols])
        .agg(F.count(F.lit(1)).alias(n_name), F.min(F.col(row)).alias(first_name))
        .toArrow()
    )


def _null_safe_equal(left: Any, right: Any, data_type: Any) -> Any:
    """``left <=> right``; for a ``void`` column (only nulls, the type Spark gives a
    column of ``None``) both sides as text, since Spark's hash join reads a ``void``
    key as never equal to itself and would match no record."""
    from pyspark.sql.types import NullType

    if isinstance(data_type, NullType):
        return left.cast("string").eqNullSafe(right.cast("string"))
    return left.eqNullSafe(right)


def null_counts(df: Any, cols: Sequence[str]) -> tuple[int, list[int]]:
    """Records and the nulls (NaN is a value) of each column ``cols``, in one Spark job."""
    from pyspark.sql import functions as F

    row = df.select(
        F.count(F.lit(1)).alias("n"),
        *[F.count_if(F.col(_quote(c)).isNull()).alias(f"c{i}") for i, c in enumerate(cols)],
    ).first()
    return int(row["n"]), [int(row[f"c{i}"] or 0) for i in range(len(cols))]


def join_back(df: Any, cols: Sequence[str], result: Any) -> Any:
    """Left-join ``result`` (pyarrow: the QIs ``cols`` then output columns) onto the
    Spark DataFrame ``df``, missing == missing; ``df``'s columns first, then the outputs."""
    from pyspark.sql import functions as F

    outputs = [c for c in result.column_names if c not in cols]
    keys = [f"__microsdc_key{i}" for i in range(len(cols))]
    outs = [f"__microsdc_out{i}" for i in range(len(outputs))]
    right = df.sparkSession.createDataFrame(
        result.select([*cols, *outputs]).rename_columns(keys + outs)
    )
    # the patterns made the round trip Spark -> arrow -> Spark: give the keys the
    # types of the columns they are compared with (timestamps, decimals, small ints)
    types = {f.name: f.dataType for f in df.schema.fields}
    got = {f.name: f.dataType for f in right.schema.fields}
    if any(got[key] != types[c] for key, c in zip(keys, cols, strict=True)):
        right = right.select(
            *[F.col(key).cast(types[c]).alias(key) for key, c in zip(keys, cols, strict=True)],
            *outs,
        )
    on = functools.reduce(
        operator.and_,
        [
            _null_safe_equal(F.col(_quote(c)), F.col(key), types[c])
            for c, key in zip(cols, keys, strict=True)
        ],
    )
    joined = df.join(right, on=on, how="left")
    return joined.select(
        *[F.col(_quote(c)) for c in df.columns],
        *[F.col(o).alias(name) for o, name in zip(outs, outputs, strict=True)],
    )


def join_back_ranked(
    df: Any, cols: Sequence[str], by_pattern: Any | None, by_record: Any, rank: str
) -> Any:
    """:func:`join_back` of ``by_pattern`` (or None) on the QIs ``cols``, then of
    ``by_record`` (pyarrow: ``cols``, ``rank``, then outputs) on the QIs and each
    record's rank among the records of its tuple (0 first): ``row_number()`` over
    ``Window.partitionBy(cols)`` ordered by ``monotonically_increasing_id()`` (the
    order :func:`aggregate_first` numbers the rows in; the window groups nulls
    together). ``df``'s columns first, then the outputs of both."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    pos = "__microsdc_rank_position"
    window = Window.partitionBy(*[F.col(_quote(c)) for c in cols]).orderBy(F.col(pos))
    numbered = df.withColumn(pos, F.monotonically_increasing_id()).withColumn(
        rank, F.row_number().over(window) - F.lit(1)
    )
    outputs: list[str] = []
    if by_pattern is not None:
        numbered = join_back(numbered, cols, by_pattern)
        outputs += [c for c in by_pattern.column_names if c not in cols]
    joined = join_back(numbered, [*cols, rank], by_record)
    outputs += [c for c in by_record.column_names if c not in cols and c != rank]
    return joined.select(*[F.col(_quote(c)) for c in [*df.columns, *outputs]])
