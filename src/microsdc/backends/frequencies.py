"""Sample frequencies on polars, pyarrow and DuckDB frames.

Eager frames (polars ``DataFrame``, pyarrow ``Table``): the QI (and weight)
columns go through the pandas route and the result comes back as a frame of
the same kind, row-aligned with the input.

Lazy frames (polars ``LazyFrame``, DuckDB relations): the engine groups the
rows by the QIs, missing values kept as a group, and counts them (and sums the
weights). microsdc computes fk on those distinct patterns, each weighing its
number of records, and the engine joins fk back with a null-safe join on the
QIs. Rows never enter Python, and the result stays lazy.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from microsdc._validation import check_columns, check_int, param_error
from microsdc.backends import Backend
from microsdc.encode import MissingValues, encode_qis
from microsdc.exceptions import DataValidationError, InvalidParameterError
from microsdc.risk._policy import Policy, parse_policy

__all__ = [
    "check_k_anonymity_frame",
    "lazy_patterns",
    "record_patterns",
    "risk_frame",
    "sample_frequencies_frame",
    "to_pandas",
]

_N = "__microsdc_records"
_W = "__microsdc_weight"
_OUT = ("fk", "Fk", "at_risk")
#: SQL engines (DuckDB, Spark) resolve names case-insensitively, so ``Fk`` would collide
#: with ``fk`` there.
SQL_FK_NAME = "Fk_pop"


def _columns(nwf: Any) -> list[str]:
    import narwhals as nw

    if isinstance(nwf, nw.LazyFrame):
        return list(nwf.collect_schema().names())
    return list(nwf.columns)


def _check_inputs(
    nwf: Any, qi: Any, weights: Any, backend: Backend, func: str
) -> tuple[list[Hashable], str | None]:
    """Same column checks as on pandas, against the frame's schema (no rows read)."""
    names = _columns(nwf)
    stand_in = pd.DataFrame(columns=pd.Index(names, dtype=object))
    cols = check_columns(stand_in, qi, "quasi_identifiers", func)
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


def duckdb_group(rel: Any, keys: Sequence[str], aggregates: str, inner: str | None = None) -> Any:
    """DuckDB's ``GROUP BY`` of ``keys`` (NULL is a group) with the SQL ``aggregates``, as
    pyarrow; ``inner`` is an optional subquery over the view to group instead of it.

    Written in SQL rather than through narwhals, which reads a dot in a column name
    as a struct field.
    """
    cols = ", ".join(sql_name(c) for c in keys)
    source = f"({inner})" if inner is not None else DUCKDB_VIEW
    return duckdb_arrow(
        rel.query(DUCKDB_VIEW, f"SELECT {cols}, {aggregates} FROM {source} GROUP BY {cols}")
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

    from microsdc.data.quality import decimal_comma_hint

    schema = nwf.collect_schema() if isinstance(nwf, nw.LazyFrame) else nwf.schema
    if schema[w].is_numeric():
        return
    text = nw.col(w).cast(nw.String)
    found = sample_texts(nwf, w, text, ~text.str.contains(r"^\s*[-+]?[0-9.eE]+\s*$"))
    shown = ", ".join(repr(v) for v in found)
    raise DataValidationError(
        f"The weight column {w!r} of {func} must be numeric: it is {schema[w]}"
        + (f", with values such as {shown}." if shown else ".")
        + decimal_comma_hint(found),
        func=func,
    )


def _check_weights(nwf: Any, w: str, func: str) -> None:
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


def _pattern_frequencies(
    patterns: pd.DataFrame,
    qi: list[Hashable],
    policy: Policy,
    weighted: bool,
    missing_values: MissingValues,
    func: str,
) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """fk (and Fk) of distinct patterns, each weighing its number of records.

    Returns the encoding, the distinct-pattern counts, fk, Fk and the map from
    the rows of ``patterns`` to distinct patterns (rows can repeat a pattern
    once missing codes are normalised).
    """
    from microsdc.risk.kanonymity import frequencies_from_codes

    enc = encode_qis(patterns, qi, missing_values=missing_values, func=func)
    n = patterns[_N].to_numpy(dtype=np.float64)
    w = patterns[_W].to_numpy(dtype=np.float64) if weighted else None
    # each row is a pattern standing for n records: fk counts records (and the
    # probabilistic shares are shares of records), Fk sums their weights
    res = frequencies_from_codes(enc.codes, enc.n_categories, policy=policy, weights=w, counts=n)
    return enc, res.count, res.fk, res.Fk, res.inverse


def _aggregate(nwf: Any, qi: list[Hashable], w: str | None) -> Any:
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


#: The row number that keeps a DuckDB join in the input's order (microsdc's prefix).
_ROW_ORDER = "__microsdc_row_order"


def _join_back(df: Any, backend: Backend, qi: list[Hashable], result: Any) -> Any:
    """Left-join ``result`` (pyarrow: QIs + output columns) onto ``df``, missing == missing."""
    cols = [str(c) for c in qi]
    if backend.name == "polars":
        import polars as pl

        right = pl.from_arrow(result)
        assert isinstance(right, pl.DataFrame)
        return df.join(right.lazy(), on=cols, how="left", nulls_equal=True, maintain_order="left")
    if backend.name == "DuckDB":
        q = sql_name
        on = " AND ".join(f"t.{q(c)} IS NOT DISTINCT FROM p.{q(c)}" for c in cols)
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


def _eager_to_pandas(nwf: Any, cols: list[Any]) -> pd.DataFrame:
    return nwf.select(*[str(c) for c in cols]).to_pandas()


def _eager_from_pandas(out: pd.DataFrame, nwf: Any) -> Any:
    import narwhals as nw

    out = out.reset_index(drop=True)
    out.columns = pd.Index([str(c) for c in out.columns], dtype=object)
    if nwf.implementation is nw.Implementation.POLARS:
        import polars as pl

        return pl.from_pandas(out)
    import pyarrow as pa

    return pa.Table.from_pandas(out, preserve_index=False)


def _check_output_names(names: list[str], func: str) -> None:
    ours = {c.lower() for c in (*_OUT, SQL_FK_NAME)}
    clash = [n for n in names if n.lower() in ours]
    if clash:
        raise InvalidParameterError(
            f"{func} appends the columns {', '.join(_OUT)} to a lazy frame, but it already "
            f"has {', '.join(repr(c) for c in clash)}. Rename or drop them first.",
            func=func,
        )


def lazy_patterns(
    nwf: Any,
    cols: list[Hashable],
    w: str | None,
    policy: Policy,
    missing_values: MissingValues,
    func: str,
) -> tuple[Any, tuple[Any, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]]:
    """The engine's patterns of a lazy frame (pyarrow) and their frequencies
    (see :func:`_pattern_frequencies`), after the weights are checked.

    Returns ``(table, (encoded, count, fk, Fk, inverse))``: the engine's table of
    distinct patterns (the key variables, their records and weight sums) and, per
    distinct pattern with the missing codes merged, the records, fk and Fk (None
    without weights); ``inverse`` maps each row of the table to its pattern.
    """
    if w is not None:
        _check_weights(nwf, w, func)
    table = _aggregate(nwf, cols, w)
    freqs = _pattern_frequencies(
        to_pandas(table), cols, policy, w is not None, missing_values, func
    )
    return table, freqs


def sample_frequencies_frame(
    df: Any,
    backend: Backend,
    quasi_identifiers: Sequence[Hashable],
    *,
    k: int | None,
    missing: Any,
    weights: Any,
    missing_values: MissingValues,
) -> Any:
    """:func:`microsdc.sample_frequencies` on a polars, pyarrow or DuckDB frame.

    Eager frames get a frame of the output columns, row-aligned with the input.
    Lazy frames get the input with the output columns appended; on DuckDB, whose
    names are case-insensitive, ``Fk`` is called ``Fk_pop``.
    """
    import narwhals as nw

    from microsdc.risk.kanonymity import sample_frequencies

    func = "sample_frequencies"
    if k is not None:
        k = check_int(k, "k", func, min_value=1)
    policy = parse_policy(missing, func)
    nwf = nw.from_native(df)
    cols, w = _check_inputs(nwf, quasi_identifiers, weights, backend, func)
    if not backend.lazy:
        pdf = _eager_to_pandas(nwf, cols + ([w] if w else []))
        out = sample_frequencies(
            pdf, cols, k=k, missing=missing, weights=w, missing_values=missing_values
        )
        return _eager_from_pandas(out, nwf)
    _check_output_names(_columns(nwf), func)
    if backend.name == "DuckDB":
        from microsdc.backends.keyed import keyed_fk, plan_keys, warn_unobserved

        plan = plan_keys(df, cols, missing_values, policy, w is not None)
        if plan is not None:
            warn_unobserved(plan, cols, stacklevel=4)
            return keyed_fk(df, plan, policy, k)
    table, freqs = lazy_patterns(nwf, cols, w, policy, missing_values, func)
    return _with_fk(df, backend, cols, table, freqs, k)


def _with_fk(
    df: Any, backend: Backend, cols: list[Hashable], table: Any, freqs: Any, k: int | None
) -> Any:
    """``df`` with fk (Fk, at_risk) of its patterns joined back, lazily."""
    import pyarrow as pa

    _enc, _count, fk, big, inverse = freqs
    result = table.select([str(c) for c in cols])
    result = result.append_column("fk", pa.array(fk[inverse]))
    if big is not None:
        name = SQL_FK_NAME if backend.name in ("DuckDB", "PySpark") else "Fk"
        result = result.append_column(name, pa.array(big[inverse]))
    if k is not None:
        result = result.append_column("at_risk", pa.array(fk[inverse] < k))
    return _join_back(df, backend, cols, result)


def check_k_anonymity_frame(
    df: Any,
    backend: Backend,
    quasi_identifier_cols: Sequence[Hashable],
    k: int,
    *,
    missing: Any,
    weights: Any,
    missing_values: MissingValues,
) -> tuple[int, Any]:
    """:func:`microsdc.check_k_anonymity` on a polars, pyarrow or DuckDB frame.

    The summary comes back as an eager frame of the same engine (a polars
    ``DataFrame`` for a ``LazyFrame``, a pyarrow ``Table`` for a DuckDB relation):
    it has one row per distinct key combination, so it is small.
    """
    import narwhals as nw

    from microsdc.risk.kanonymity import check_k_anonymity

    func = "check_k_anonymity"
    k = check_int(k, "k", func, min_value=1)
    policy = parse_policy(missing, func)
    nwf = nw.from_native(df)
    cols, w = _check_inputs(nwf, quasi_identifier_cols, weights, backend, func)
    if not backend.lazy:
        pdf = _eager_to_pandas(nwf, cols + ([w] if w else []))
        n_at_risk, summary = check_k_anonymity(
            pdf, cols, k, missing=missing, weights=w, missing_values=missing_values
        )
        return n_at_risk, _eager_from_pandas(summary, nwf)
    _table, freqs = lazy_patterns(nwf, cols, w, policy, missing_values, func)
    return _lazy_summary(freqs, k, backend)


def _lazy_summary(freqs: Any, k: int, backend: Backend) -> tuple[int, Any]:
    """Records at risk and the summary of the distinct patterns, as an eager frame."""
    from microsdc.risk.kanonymity import PatternFrequencies, _summary

    enc, count, fk, big, inverse = freqs
    n_at_risk = int(count[fk < k].sum())
    first = np.zeros(len(count), dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(inverse))[::-1]
    distinct = PatternFrequencies(enc.codes[first], count, fk, big, np.arange(len(count)))
    summary = _summary(enc, distinct, k)
    if backend.name == "polars":
        import polars as pl

        return n_at_risk, pl.from_pandas(summary)
    import pyarrow as pa

    return n_at_risk, pa.Table.from_pandas(summary, preserve_index=False)


def risk_frame(
    df: Any,
    backend: Backend,
    quasi_identifiers: Sequence[Hashable],
    k: int,
    *,
    missing: Any,
    weights: Any,
    missing_values: MissingValues,
    func: str,
    join: bool,
) -> tuple[int, Any, Any]:
    """Records at risk, the summary and (with ``join``) ``df`` with fk appended, from one
    group-by of a lazy frame: the command line prints the counts and writes the rows
    without grouping twice. Errors come before any work."""
    import narwhals as nw

    k = check_int(k, "k", func, min_value=1)
    policy = parse_policy(missing, func)
    nwf = nw.from_native(df)
    cols, w = _check_inputs(nwf, quasi_identifiers, weights, backend, func)
    if join:
        _check_output_names(_columns(nwf), func)
    table, freqs = lazy_patterns(nwf, cols, w, policy, missing_values, func)
    n_at_risk, summary = _lazy_summary(freqs, k, backend)
    return n_at_risk, summary, _with_fk(df, backend, cols, table, freqs, k) if join else None


def record_patterns(
    df: Any,
    backend: Backend,
    quasi_identifiers: Sequence[Hashable],
    *,
    missing: Any,
    missing_values: MissingValues,
    func: str,
) -> tuple[Any, Policy, np.ndarray]:
    """Distinct QI patterns of a frame, encoded, with their numbers of records.

    The engine does the group-by; for callers that compute on patterns with
    multiplicities (such as :func:`microsdc.safe_combinations`).

    Returns
    -------
    enc : EncodedQIs
        One row per distinct pattern the engine reported.
    policy : Policy
    counts : ndarray of shape (n_patterns,), float64, records of each pattern
    """
    import narwhals as nw

    policy = parse_policy(missing, func)
    nwf = nw.from_native(df)
    cols, _ = _check_inputs(nwf, quasi_identifiers, None, backend, func)
    patterns = to_pandas(_aggregate(nwf, cols, None))
    enc = encode_qis(patterns, cols, missing_values=missing_values, func=func)
    return enc, policy, patterns[_N].to_numpy(dtype=np.float64)
