"""A lazy frame's rows put in the order of a hash of their values (polars, DuckDB,
Spark): the engine's ``random_order``.

The order is a function of the released values only (a hash of every column, then
the columns themselves to break ties), so it says nothing about the order in which
the rows were read: a file sorted or grouped by a key variable does not give a
blanked cell back through its neighbours. The same rows in any input order are
written in the same order.
"""

from __future__ import annotations

from typing import Any

__all__ = ["in_hash_order"]


def in_hash_order(frame: Any) -> Any:
    """``frame`` (polars LazyFrame, DuckDB relation or Spark DataFrame) with its rows
    sorted by a hash of all their values, lazily; rows with equal hashes by their values.

    polars: ``pl.struct(pl.all()).hash(seed=0)``; DuckDB: ``hash(col1, col2, ...)``;
    Spark: ``xxhash64(col1, col2, ...)``.
    """
    if hasattr(frame, "sink_parquet"):  # polars
        import polars as pl

        cols = frame.collect_schema().names()
        key = pl.struct(pl.all()).hash(seed=0).alias("__microsdc_order")
        return frame.sort([key, *cols], nulls_last=True)
    if hasattr(frame, "write_parquet"):  # DuckDB
        from microsdc.backends.frequencies import sql_name

        names = ", ".join(sql_name(c) for c in frame.columns)
        return frame.order(f"hash({names}), {names}")
    from pyspark.sql import functions as F

    cols = [F.col("`" + c.replace("`", "``") + "`") for c in frame.columns]
    return frame.orderBy(F.xxhash64(*cols), *cols)
