"""The engine side of sample frequencies on polars, pyarrow, DuckDB and Spark frames.

Eager frames (polars ``DataFrame``, pyarrow ``Table``): :func:`eager_input` gives
the QI (and weight) columns as pandas for the pandas route, and :func:`eager_output`
turns its result back into a frame of the same kind, row-aligned with the input.

Lazy frames (polars ``LazyFrame``, DuckDB relations, Spark DataFrames): the engine
groups the rows by the QIs, missing values kept as a group, and counts them (and
sums the weights) (:func:`aggregate`); :func:`join_back` joins the figures computed
on those patterns (:mod:`microsdc.risk.counting`) back with a null-safe join on the QIs.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import pandas as pd

from microsdc._validation import check_columns, check_weight_apart, param_error
from microsdc.backends import Backend, refuse_unreadable_integers
from microsdc.exceptions import DataValidationError, InvalidParameterError

__all__ = [
    "N_RECORDS",
    "SQL_FK_NAME",
    "WEIGHT_SUM",
    "aggregate",
    "check_inputs",
    "check_output_names",
    "check_weights",
    "columns",
    "eager_input",
    "eager_output",
    "join_back",
    "nullable_integers",
    "to_pandas",
]

#: The columns of the engine's group-by: records, and the weight sum, of each pattern.
N_RECORDS = "__microsdc_records"
WEIGHT_SUM = "__microsdc_weight"
_N = N_RECORDS
_W = WEIGHT_SUM
_OUT = ("fk", "Fk", "at_risk")
#: SQL engines (DuckDB, Spark) resolve names case-insensitively, so ``Fk`` would collide
#: with ``fk`` there.
SQL_FK_NAME = "Fk_pop"


def columns(nwf: Any) -> list[str]:
    """The column names of a narwhals frame (a lazy one's from its schema: no row is read)."""
    import narwhals as nw

    if isinstance(nwf, nw.LazyFrame):
        return list(nwf.collect_schema().names())
    return list(nwf.columns)


def column_frame(native: Any) -> pd.DataFrame:
    """An empty pandas frame with the column names of the engine frame ``native`` (from
    its schema: no row is read), to check the columns a call names as on pandas."""
    import narwhals as nw

    names = [str(c) for c in columns(nw.from_native(native))]
    return pd.DataFrame(columns=pd.Index(names, dtype=object))


def check_inputs(
    nwf: Any, qi: Any, weights: Any, backend: Backend, func: str
) -> tuple[list[Hashable], str | None]:
    """Same column checks as on pandas, against the frame's schema (no rows read)."""
    names = columns(nwf)
    stand_in = pd.DataFrame(columns=pd.Index(names, dtype=object))
    cols = check_columns(stand_in, qi, "quasi_identifiers", func)
    refuse_unreadable_integers(nwf, [*cols, *([weights] if isinstance(weights, str) else [])], func)
    if weights is None:
        return cols, None
    if not isinstance(weights, str):
        raise param_error(
            "weights",
            func,
            f"a column name for a {backend.name} frame (an array cannot be lined up with its rows)",
            type(weights).__name__,
        )
    check_columns(stand_in, [weights], "weights", func)
    check_weight_apart(weights, cols, func)
    _refuse_text_weights(nwf, weights, func)
    return cols, weights


def _is_spark(nwf: Any) -> bool:
    impl = nwf.implementation
    return bool(impl.is_pyspark() or impl.is_pyspark_connect())


def _is_duckdb(nwf: Any) -> bool:
    return bool(nwf.implementation.is_duckdb())


def sql_name(name: str) -> str:
    """A column name quoted for SQL (dots, spaces and quotes kept as they are)."""
    return '"' + name.replace('"', '""') + '"'


#: The view name of the caller's relation in microsdc's queries (no table of the
#: user's connection shadows it; DuckDB resolves the view before the catalog).
DUCKDB_VIEW = "__microsdc_input"


def duckdb_arrow(rel: Any) -> Any:
    """A DuckDB relation's rows as a pyarrow table (DuckDB 1.x and 2.x)."""
    fetch = getattr(rel, "to_arrow_table", None) or rel.fetch_arrow_table
    return fetch()


#: DuckDB types whose values do not come back from pyarrow as values DuckDB matches
#: with the column: integers wider than 64 bits (HUGEINT leaves as a 38-digit decimal
#: that its largest values overflow, UHUGEINT wraps around to negative numbers), and
#: TIME WITH TIME ZONE and BIT, which the join back matched with no record. Such key
#: variables are grouped and joined by their text, which tells every value apart.
_DUCKDB_AS_TEXT = frozenset(
    {"HUGEINT", "UHUGEINT", "VARINT", "BIGNUM", "TIME WITH TIME ZONE", "BIT"}
)


def duckdb_key(rel: Any, name: str, table: str = "") -> str:
    """The SQL of key variable ``name`` of ``rel`` as grouped and joined (``table`` is an
    optional alias, such as ``"t."``): the column itself, or its text for a type that
    pyarrow does not carry back (:data:`_DUCKDB_AS_TEXT`)."""
    types = dict(zip(rel.columns, (str(t) for t in rel.types), strict=True))
    ref = f"{table}{sql_name(name)}"
    return f"CAST({ref} AS VARCHAR)" if types.get(name) in _DUCKDB_AS_TEXT else ref


def duckdb_group(rel: Any, keys: Sequence[str], aggregates: str, inner: str | None = None) -> Any:
    """DuckDB's ``GROUP BY`` of ``keys`` (NULL is a group) with the SQL ``aggregates``, as
    pyarrow; ``inner`` is an optional subquery over the view (with the same columns
    ``keys``) to group instead of it. Keys of a type pyarrow does not carry back
    (integers wider than 64 bits, say) are grouped by their text (:func:`duckdb_key`).

    Written in SQL rather than through narwhals, which reads a dot in a column name
    as a struct field.
    """
    exprs = [duckdb_key(rel, c) for c in keys]
    cols = ", ".join(f"{e} AS {sql_name(c)}" for e, c in zip(exprs, keys, strict=True))
    source = f"({inner})" if inner is not None else DUCKDB_VIEW
    return duckdb_arrow(
        rel.query(
            DUCKDB_VIEW,
            f"SELECT {cols}, {aggregates} FROM {source} GROUP BY {', '.join(exprs)}",
        )
    )


def sample_texts(nwf: Any, column: str, text: Any, where: Any, n: int = 5) -> list[str]:
    """Up to ``n`` distinct texts ``text`` (an expression over ``column``) of the records
    where ``where`` holds, sorted, asked from the engine (a lazy frame stops early)."""
    import narwhals as nw

    found = nwf.select(text.alias(column)).filter(where).unique()
    if isinstance(found, nw.LazyFrame):
        found = found.head(n).collect()
    return sorted(str(v) for v in found[column].to_list()[:n] if v is not None)


def _refuse_text_weights(nwf: Any, w: str, func: str) -> None:
    """Raise for a weight column that is not numeric (a CSV column with a word or a
    decimal comma in it), with a few of its texts, asked from the engine."""
    import narwhals as nw

    from microsdc.data.quality import text_weights_error

    schema = nwf.collect_schema() if isinstance(nwf, nw.LazyFrame) else nwf.schema
    if schema[w].is_numeric():
        return
    text = nw.col(w).cast(nw.String)
    found = sample_texts(nwf, w, text, ~text.str.contains(r"^\s*[-+]?[0-9.eE]+\s*$"))
    fix = (
        "Cast it to numbers first (polars: df.with_columns(pl.col("
        f"{w!r}).cast(pl.Float64)); SQL: CAST({sql_name(w)} AS DOUBLE))."
    )
    raise text_weights_error(repr(w), func, str(schema[w]), found, fix)


def check_weights(nwf: Any, w: str, func: str) -> None:
    """Missing, NaN or negative weights: the pandas route's errors, from one pass."""
    import narwhals as nw

    _refuse_text_weights(nwf, w, func)
    if _is_spark(nwf):
        from microsdc.backends.spark import weight_stats

        bad, neg, nonzero, n = weight_stats(nwf.to_native(), w)
    elif _is_duckdb(nwf):
        x = f"CAST({sql_name(w)} AS DOUBLE)"
        row = (
            nwf.to_native()
            .query(
                DUCKDB_VIEW,
                f"SELECT count(*) FILTER (WHERE {x} IS NULL OR isnan({x}) OR isinf({x})), "
                f"count(*) FILTER (WHERE {x} < 0), count(*) FILTER (WHERE {x} <> 0), count(*) "
                f"FROM {DUCKDB_VIEW}",
            )
            .fetchall()[0]
        )
        bad, neg, nonzero, n = (int(v or 0) for v in row)
    else:
        col = nw.col(w).cast(nw.Float64)
        stats = nwf.select(
            (col.is_null() | col.is_nan() | col.abs().is_in([float("inf")])).sum().alias("bad"),
            (col < 0).sum().alias("neg"),
            (col != 0).sum().alias("nonzero"),
            nw.len().alias("n"),
        )
        if isinstance(stats, nw.LazyFrame):
            stats = stats.collect()
        bad, neg, nonzero, n = (int(stats[c][0] or 0) for c in ("bad", "neg", "nonzero", "n"))
    if bad:
        raise DataValidationError(
            f"The weight column {w!r} of {func} has {bad} missing or infinite value(s). "
            "Weights must be known for every record.",
            func=func,
        )
    if neg:
        raise DataValidationError(
            f"The weight column {w!r} of {func} has {neg} negative value(s). "
            "Sampling weights must be >= 0.",
            func=func,
        )
    if n and not nonzero:
        raise DataValidationError(
            f"The weight column {w!r} of {func} is 0 for every record: Fk would be 0 for every "
            "key. Sampling weights say how many people a record stands for (usually >= 1).",
            func=func,
        )


def aggregate(nwf: Any, qi: list[Hashable], w: str | None) -> Any:
    """The engine's group-by: one row per distinct QI tuple, missing kept, as pyarrow."""
    import narwhals as nw

    if _is_spark(nwf):
        from microsdc.backends.spark import aggregate

        return aggregate(nwf.to_native(), [str(c) for c in qi], w, _N, _W)
    if _is_duckdb(nwf):
        sums = "" if w is None else f", sum(CAST({sql_name(w)} AS DOUBLE)) AS {sql_name(_W)}"
        return duckdb_group(nwf.to_native(), [str(c) for c in qi], f"count(*) AS {_N}{sums}")

    aggs = [nw.len().alias(_N)]
    if w is not None:
        aggs.append(nw.col(w).cast(nw.Float64).sum().alias(_W))
    grouped = nwf.group_by(*[str(c) for c in qi], drop_null_keys=False).agg(*aggs)
    if isinstance(grouped, nw.LazyFrame):
        grouped = grouped.collect(backend="pyarrow")
    return grouped.to_arrow()


def to_pandas(table: Any) -> pd.DataFrame:
    """A pyarrow table, or any eager frame, to pandas; integers with missing values stay
    integers (nullable dtypes)."""
    import pyarrow as pa

    if not isinstance(table, pa.Table):
        import narwhals as nw

        table = nw.from_native(table, eager_only=True).to_arrow()
    nullable = {
        pa.int8(): pd.Int8Dtype(),
        pa.int16(): pd.Int16Dtype(),
        pa.int32(): pd.Int32Dtype(),
        pa.int64(): pd.Int64Dtype(),
        pa.uint8(): pd.UInt8Dtype(),
        pa.uint16(): pd.UInt16Dtype(),
        pa.uint32(): pd.UInt32Dtype(),
        pa.uint64(): pd.UInt64Dtype(),
    }
    return table.to_pandas(types_mapper=nullable.get)


def nullable_integers(frame: pd.DataFrame, native: Any) -> pd.DataFrame:
    """``frame``, the pandas form of the polars ``DataFrame`` or pyarrow ``Table``
    ``native``, with its integer columns that hold missing values as pandas' nullable
    integers (``Int64``, ``Int32``, ...), as microsdc reads them and DuckDB's ``.df()``
    gives them; polars' and pyarrow's ``to_pandas()`` make them floats. ``frame`` itself
    is not changed."""
    import narwhals as nw

    nwf = nw.from_native(native, eager_only=True)
    ints = [c for c, t in nwf.schema.items() if t.is_integer() and frame[c].dtype.kind == "f"]
    if not ints:
        return frame
    nullable = to_pandas(nwf.select(ints).to_arrow())
    out = frame.copy(deep=False)
    for c in ints:
        out[c] = nullable[c].array
    return out


#: The row number that keeps a DuckDB join in the input's order (microsdc's prefix).
_ROW_ORDER = "__microsdc_row_order"


def join_back(df: Any, backend: Backend, qi: list[Hashable], result: Any) -> Any:
    """Left-join ``result`` (pyarrow: QIs + output columns) onto ``df``, missing == missing."""
    cols = [str(c) for c in qi]
    if backend.name == "polars":
        import polars as pl

        right = pl.from_arrow(result)
        assert isinstance(right, pl.DataFrame)
        return df.join(right.lazy(), on=cols, how="left", nulls_equal=True, maintain_order="left")
    if backend.name == "DuckDB":
        q = sql_name
        on = " AND ".join(f"{duckdb_key(df, c, 't.')} IS NOT DISTINCT FROM p.{q(c)}" for c in cols)
        # DuckDB resolves names case-insensitively ("fk" and "Fk" would clash): the
        # output columns travel under positional names and get theirs back in SELECT
        outputs = [c for c in result.column_names if c not in cols]
        __microsdc_patterns = result.rename_columns(  # read by DuckDB's replacement scan
            cols + [f"__microsdc_out{i}" for i in range(len(outputs))]
        )
        extra = ", ".join(f"p.__microsdc_out{i} AS {q(c)}" for i, c in enumerate(outputs))
        # a table of the user's connection named like the replacement scan would shadow
        # it: the name is reserved (double underscore, microsdc's prefix). A hash join
        # may build on the input's side and emit its rows in another order: the rows are
        # numbered as scanned and put back in that order.
        numbered = f"SELECT *, row_number() OVER () AS {_ROW_ORDER} FROM {DUCKDB_VIEW}"
        return df.query(
            DUCKDB_VIEW,
            f"SELECT t.* EXCLUDE ({_ROW_ORDER}), {extra} FROM ({numbered}) AS t "
            f"LEFT JOIN __microsdc_patterns AS p ON {on} ORDER BY t.{_ROW_ORDER}",
        )
    if backend.name == "PySpark":
        from microsdc.backends.spark import join_back

        return join_back(df, cols, result)
    raise InvalidParameterError(  # pragma: no cover - detect_backend filters these out
        f"{backend.name} frames are not supported yet; convert with .to_pandas()."
    )


def eager_input(
    df: Any, backend: Backend, quasi_identifiers: Any, weights: Any, func: str
) -> tuple[pd.DataFrame, list[Hashable], str | None]:
    """The QI (and weight) columns of an eager polars or pyarrow frame as pandas, with
    the QI list and the weight column, after the same column checks as on pandas."""
    import narwhals as nw

    nwf = nw.from_native(df)
    cols, w = check_inputs(nwf, quasi_identifiers, weights, backend, func)
    wanted = cols + ([w] if w else [])
    return nwf.select(*[str(c) for c in wanted]).to_pandas(), cols, w


def eager_output(out: pd.DataFrame, df: Any) -> Any:
    """A pandas result as a frame of the kind of ``df`` (polars or pyarrow)."""
    import narwhals as nw

    out = out.reset_index(drop=True)
    out.columns = pd.Index([str(c) for c in out.columns], dtype=object)
    if nw.from_native(df).implementation is nw.Implementation.POLARS:
        import polars as pl

        return pl.from_pandas(out)
    import pyarrow as pa

    return pa.Table.from_pandas(out, preserve_index=False)


def check_output_names(names: list[str], func: str, backend: str | None = None) -> None:
    """Refuse a lazy frame that already has a column its result appends: fk, Fk and
    at_risk, or on DuckDB and Spark (``backend`` "DuckDB", "PySpark"), whose names are
    case-insensitive, fk, Fk_pop and at_risk in any case; all engines when None."""
    if backend is None:
        ours = {c.lower() for c in (*_OUT, SQL_FK_NAME)}
        appended = _OUT
        clash = [n for n in names if n.lower() in ours]
    elif backend in ("DuckDB", "PySpark"):
        appended = ("fk", SQL_FK_NAME, "at_risk")
        clash = [n for n in names if n.lower() in {c.lower() for c in appended}]
    else:
        appended = _OUT
        clash = [n for n in names if n in appended]
    if clash:
        raise InvalidParameterError(
            f"{func} appends the columns {', '.join(appended)} to a lazy frame, but it already "
            f"has {', '.join(repr(c) for c in clash)}. Rename or drop them first.",
            func=func,
        )
