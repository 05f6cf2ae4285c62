"""Joining results back onto a lazy frame's records by key tuple and by rank.

:func:`~microsdc.backends.frequencies.join_back` gives every record of a key tuple
the same outputs. When records of one tuple must get different outputs (local
suppression under ``missing="category"`` blanking some records of a key combination
and not others), the engine numbers the records within each key tuple, in row order,
and a second table is joined on the key tuple and that number (:data:`RANK`):

- polars: ``with_row_index`` then the ordinal rank of the row index ``over`` the keys
  (``over`` groups missing values together, and NaN with NaN);
- DuckDB: ``row_number() OVER (PARTITION BY keys ORDER BY position)`` over the rows
  numbered as scanned (``PARTITION BY`` groups NULLs together), the result put back
  in scan order;
- Spark: ``row_number()`` over ``Window.partitionBy(keys)`` ordered by
  ``monotonically_increasing_id()`` (:func:`microsdc.backends.spark.join_back_ranked`).

The records of one key tuple are interchangeable to the caller: the rank only
decides which of them get which outputs, and every record gets exactly one rank
from 0 to (records of its tuple) - 1, whatever order the engine numbers them in.
Rows never leave the engine and the result stays lazy.
"""

from __future__ import annotations

from typing import Any

from microsdc.backends import Backend
from microsdc.backends.frequencies import DUCKDB_VIEW, duckdb_key, sql_name
from microsdc.exceptions import InvalidParameterError

__all__ = ["RANK", "join_back_ranked"]

#: The rank of a record among the records of its key tuple (0 first, in row order).
RANK = "__microsdc_rank"
_POS = "__microsdc_rank_position"


def join_back_ranked(
    df: Any, backend: Backend, keys: list[str], by_pattern: Any | None, by_record: Any
) -> Any:
    """Left-join ``by_pattern`` (pyarrow: ``keys`` then output columns; or None) on the
    keys and ``by_record`` (pyarrow: ``keys``, :data:`RANK`, then output columns) on
    the keys and each record's rank among the records with its key tuple, missing ==
    missing; ``df``'s columns first, then the outputs of both (whose names differ).

    A record that neither table matches gets missing outputs.
    """
    if backend.name == "polars":
        return _polars(df, keys, by_pattern, by_record)
    if backend.name == "DuckDB":
        return _duckdb(df, keys, by_pattern, by_record)
    if backend.name == "PySpark":
        from microsdc.backends.spark import join_back_ranked as spark_ranked

        return spark_ranked(df, keys, by_pattern, by_record, RANK)
    raise InvalidParameterError(  # pragma: no cover - detect_backend filters these out
        f"{backend.name} frames are not supported yet; convert with .to_pandas()."
    )


def _polars(df: Any, keys: list[str], by_pattern: Any | None, by_record: Any) -> Any:
    import polars as pl

    rank = (pl.col(_POS).rank("ordinal").over(keys).cast(pl.Int64) - 1).alias(RANK)
    out = df.with_row_index(_POS).with_columns(rank)
    for right, on in ((by_pattern, keys), (by_record, [*keys, RANK])):
        if right is None:
            continue
        table = pl.from_arrow(right)
        assert isinstance(table, pl.DataFrame)
        if RANK in table.columns:
            table = table.with_columns(pl.col(RANK).cast(pl.Int64))
        out = out.join(table.lazy(), on=on, how="left", nulls_equal=True, maintain_order="left")
    return out.drop(_POS, RANK)


def _duckdb(rel: Any, keys: list[str], by_pattern: Any | None, by_record: Any) -> Any:
    q = sql_name
    # DuckDB resolves names case-insensitively: the outputs travel under positional
    # names and get theirs back in SELECT. The tables are read by DuckDB's replacement
    # scan under these reserved names (double underscore, microsdc's prefix).
    __microsdc_patterns = None
    extra: list[str] = []
    joins = ""
    if by_pattern is not None:
        outs = [c for c in by_pattern.column_names if c not in keys]
        __microsdc_patterns = by_pattern.select([*keys, *outs]).rename_columns(
            keys + [f"__microsdc_out{i}" for i in range(len(outs))]
        )
        on = " AND ".join(f"{duckdb_key(rel, c, 't.')} IS NOT DISTINCT FROM p.{q(c)}" for c in keys)
        joins += f" LEFT JOIN __microsdc_patterns AS p ON {on}"
        extra += [f"p.__microsdc_out{i} AS {q(c)}" for i, c in enumerate(outs)]
    outs = [c for c in by_record.column_names if c not in keys and c != RANK]
    __microsdc_records = by_record.select([*keys, RANK, *outs]).rename_columns(
        [*keys, RANK, *(f"__microsdc_rout{i}" for i in range(len(outs)))]
    )
    on = " AND ".join(f"{duckdb_key(rel, c, 't.')} IS NOT DISTINCT FROM r.{q(c)}" for c in keys)
    joins += f" LEFT JOIN __microsdc_records AS r ON {on} AND t.{RANK} = r.{RANK}"
    extra += [f"r.__microsdc_rout{i} AS {q(c)}" for i, c in enumerate(outs)]
    part = ", ".join(duckdb_key(rel, c) for c in keys)
    # the rows numbered as scanned, then within each key tuple in that order; a join may
    # emit its rows in another order: they are put back in scan order
    numbered = f"SELECT *, row_number() OVER () AS {_POS} FROM {DUCKDB_VIEW}"
    ranked = (
        f"SELECT *, row_number() OVER (PARTITION BY {part} ORDER BY {_POS}) - 1 AS {RANK} "
        f"FROM ({numbered})"
    )
    return rel.query(
        DUCKDB_VIEW,
        f"SELECT t.* EXCLUDE ({_POS}, {RANK}), {', '.join(extra)} FROM ({ranked}) AS t"
        f"{joins} ORDER BY t.{_POS}",
    )
