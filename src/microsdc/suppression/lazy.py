"""Local suppression of polars ``LazyFrame``, DuckDB relations and Spark DataFrames, on
distinct patterns.

The engine groups the rows by the strata and quasi-identifiers (missing values
kept as a group), counts them and notes the position of each pattern's first
row. microsdc runs the same greedy as on pandas on those patterns, each
standing for its records, and the engine blanks the cells with a null-safe
join on the patterns that changed: every record of a pattern gets the
pattern's released values. Under ``missing="category"`` the solution for the
records may blank the records of one pattern differently; those records are then
numbered within their pattern in row order and blanked by a join on the pattern
and that number. Rows never enter Python and the result stays lazy.

The greedy is deterministic given the patterns, their numbers of records and,
to break ties between patterns at risk with the same fk and as many observed
cells, the position of their first row. polars, DuckDB and Spark number the
rows in the order they yield them (a ``LazyFrame``'s order; a DuckDB scan's
insertion order; Spark's partitions in order, ``monotonically_increasing_id``),
so the decisions are those pandas takes on the same rows in that order. An
engine without a row order breaks those ties by the patterns' values instead:
the result still reaches k, with possibly other cells.
"""

from __future__ import annotations

import functools
import operator
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import Policy
from microsdc._validation import check_bool, check_missing_values_columns, lazy_refusal
from microsdc.backends import Backend
from microsdc.backends.capabilities import first_refusal
from microsdc.backends.frequencies import sql_name
from microsdc.encode import MissingValues, encode_qis
from microsdc.exceptions import DataValidationError, InvalidParameterError
from microsdc.suppression.core import suppress_codes
from microsdc.suppression.params import (
    DIS_SUDA_THRESHOLD,
    check_passed_on,
    counted_missing_values,
    dis_fraction_of,
    strata_groups,
    warn_declared_all_missing,
    warn_measure_policy,
)
from microsdc.suppression.result import LazySuppressionResult, lazy_result

__all__ = ["LazySuppressionResult", "local_suppression_lazy"]

_FUNC = "local_suppression"
_N = "__microsdc_records"
_ROW = "__microsdc_row"
_FIRST = "__microsdc_first"
_BLANK = "__microsdc_blank"
_RBLANK = "__microsdc_rblank"


def _schema(nwf: Any) -> Any:
    import narwhals as nw

    return nwf.collect_schema() if isinstance(nwf, nw.LazyFrame) else nwf.schema


#: How each engine collects a lazy frame into memory, as a refusal says it.
_COLLECT = (
    "polars: .collect(); DuckDB: .pl() or .df(); Spark: .toPandas(), or .toArrow() for a "
    "pyarrow table"
)


def _refuse(option: str, why: str, value: Any) -> InvalidParameterError:
    return lazy_refusal(option, _FUNC, why, value, _COLLECT)


def _check(
    names: list[str], missing_values: Any, **options: Any
) -> tuple[Policy, list[Hashable], list[tuple[int, int]], Any, Any, list[Hashable]]:
    """The checks of the pandas route (:func:`~microsdc.suppression.params.check_call`, given
    its parameters by name) against the schema, in the same order, then the options that
    need the records. No row is read."""
    from microsdc.suppression.params import check_call

    stand_in = pd.DataFrame(columns=pd.Index(names, dtype=object))
    checked = check_call(stand_in, **options, values=False)
    policy, method, cols, jobs_spec, k_report, imp, strata_cols, _ = checked
    check_missing_values_columns(missing_values, names, _FUNC)
    refused = first_refusal(
        {
            "method": method,
            "missing": policy.label,
            "subject_id": options["subject_id"],
            "linked": options["linked"],
        }
    )
    if refused is not None:
        entry, value = refused
        raise _refuse(entry.param, entry.reason(value), value)
    return policy, cols, jobs_spec, k_report, imp, strata_cols


# --------------------------------------------------------------------------- engine side


def _aggregate_first(df: Any, backend: Backend, keys: list[str]) -> tuple[Any, bool]:
    """One row per distinct key tuple (missing kept): its records and first row position.

    Returns the pyarrow table and whether the engine gave row positions.
    """
    import narwhals as nw

    if backend.name == "polars":
        numbered: Any = df.select(keys).with_row_index(_ROW)
    elif backend.name == "DuckDB":
        from microsdc.backends.frequencies import DUCKDB_VIEW, duckdb_group

        # a scan yields its rows in insertion order; row_number() OVER () follows it
        cols = ", ".join(sql_name(c) for c in keys)
        inner = f"SELECT {cols}, row_number() OVER () - 1 AS {_ROW} FROM {DUCKDB_VIEW}"
        table = duckdb_group(df, keys, f"count(*) AS {_N}, min({_ROW}) AS {_FIRST}", inner)
        return table, True
    elif backend.name == "PySpark":
        from microsdc.backends.spark import aggregate_first

        return aggregate_first(df, keys, _N, _FIRST), True
    else:
        from microsdc.backends.frequencies import aggregate

        return aggregate(nw.from_native(df), list(keys), None), False
    grouped = (
        nw.from_native(numbered)
        .group_by(*keys, drop_null_keys=False)
        .agg(nw.len().alias(_N), nw.col(_ROW).min().alias(_FIRST))
    )
    if isinstance(grouped, nw.LazyFrame):
        grouped = grouped.collect(backend="pyarrow")
    return grouped.to_arrow(), True


def _blank_back(
    df: Any,
    backend: Backend,
    keys: list[str],
    names: list[str],
    table: Any,
    blank: pd.DataFrame,
    released: _Released,
) -> Any:
    """``df`` with the cells of ``blank`` (pieces x QIs) set to null, lazily.

    Only the pieces with a blanked cell travel to the engine. A pattern released as
    one piece goes by a left join on the keys (missing == missing), as every record
    of it is blanked alike. The records of a pattern split into pieces go by a
    second table, one row per record to blank (keys, its rank among the records of
    the pattern in row order, flags), joined on the keys and the rank the engine
    gives each record (:func:`~microsdc.backends.ranked.join_back_ranked`); without
    such records no rank is computed. Each QI becomes ``CASE WHEN flagged THEN NULL
    ELSE value END``, which keeps its type.
    """
    import narwhals as nw

    from microsdc.backends.frequencies import join_back

    qi_names: list[str] = list(blank.columns)
    b = blank.to_numpy(dtype=bool)
    hit = b.any(axis=1)
    if not hit.any():
        return df
    used = [j for j in range(b.shape[1]) if b[hit, j].any()]
    split = released.split_rows()
    whole = np.flatnonzero(hit & ~split)
    by_pattern = (
        _flagged(table.select(keys).take(released.source[whole]), b[whole], used, _BLANK)
        if len(whole)
        else None
    )
    parts = np.flatnonzero(hit & split)
    flags: dict[str, list[str]] = {qi_names[j]: [] for j in used}  # per QI, its flags
    if by_pattern is not None:
        for i, j in enumerate(used):
            flags[qi_names[j]].append(f"{_BLANK}{i}")
    if not len(parts):
        assert by_pattern is not None
        joined = join_back(df, backend, list[Hashable](keys), by_pattern)
    else:
        from microsdc.backends.ranked import join_back_ranked

        by_record = released.per_record(table.select(keys), parts, b, used, _RBLANK)
        joined = join_back_ranked(df, backend, keys, by_pattern, by_record)
        for i, j in enumerate(used):
            flags[qi_names[j]].append(f"{_RBLANK}{i}")

    def kept(c: str) -> Any:  # no flag of the cell's record set
        return functools.reduce(operator.and_, [nw.col(f).is_null() for f in flags[c]])

    exprs = [nw.when(kept(c)).then(nw.col(c)).alias(c) if c in flags else nw.col(c) for c in names]
    return nw.from_native(joined).select(*exprs).to_native()


def _flagged(right: Any, b: np.ndarray, used: list[int], prefix: str) -> Any:
    """``right`` (pyarrow) with a flag column per used QI: True where blanked, null
    elsewhere, so that unmatched records and kept cells read alike."""
    import pyarrow as pa

    for i, j in enumerate(used):
        flagged = b[:, j]
        right = right.append_column(
            f"{prefix}{i}", pa.array(flagged, mask=~flagged, type=pa.bool_())
        )
    return right


class _Released:
    """The pieces the core released: ``source[i]``, the pattern (row of the engine's
    table) of piece ``i``, and ``records[i]``, its records; one piece per pattern when
    no pattern was split. The pieces of a pattern follow each other; the records of
    each take the next ranks of the pattern in row order."""

    def __init__(self, source: np.ndarray, records: np.ndarray) -> None:
        self.source = np.asarray(source, dtype=np.int64)
        self.records = np.asarray(records, dtype=np.float64)

    def split_rows(self) -> np.ndarray:
        """Whether each piece's pattern is split into more than one piece."""
        if not len(self.source):
            return np.zeros(0, dtype=bool)
        return np.bincount(self.source)[self.source] > 1

    def first_rank(self) -> np.ndarray:
        """The rank (0 first) of each piece's first record within its pattern."""
        n = self.records.astype(np.int64)
        before = np.cumsum(n) - n  # records of the earlier pieces
        starts = np.r_[True, self.source[1:] != self.source[:-1]]
        head = np.maximum.accumulate(np.where(starts, np.arange(len(n)), 0))
        return before - before[head]

    def per_record(
        self, keys: Any, parts: np.ndarray, b: np.ndarray, used: list[int], prefix: str
    ) -> Any:
        """One row per record of the pieces ``parts``: the pattern's keys (``keys``, a
        pyarrow table per pattern), its rank and the flags of its piece."""
        import pyarrow as pa

        from microsdc.backends.ranked import RANK

        n = self.records[parts].astype(np.int64)
        piece = np.repeat(np.arange(len(parts)), n)
        offset = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
        rank = np.repeat(self.first_rank()[parts], n) + offset
        right = keys.take(pa.array(self.source[parts][piece]))
        right = right.append_column(RANK, pa.array(rank, type=pa.int64()))
        return _flagged(right, b[parts][piece], used, prefix)


def _check_arrived(
    data: Any,
    backend: Backend,
    table: Any,
    cols: list[Hashable],
    blank: np.ndarray,
    released: _Released,
) -> None:
    """Raise unless each key variable of the release has the missing values of the
    patterns plus the cells blanked in it, piece by piece (:func:`check_blanks_arrived`)."""
    from microsdc.backends.complete import check_blanks_arrived

    expected = {}
    records = released.records
    for j, c in enumerate(cols):
        was = table.column(str(c)).is_null().to_numpy(zero_copy_only=False)[released.source]
        expected[str(c)] = int(records[was | blank[:, j]].sum())
    check_blanks_arrived(data, backend, expected, int(records.sum()), _FUNC)


# --------------------------------------------------------------------------- microsdc side


def _strata_known(table: Any, strata_cols: list[Hashable]) -> pd.DataFrame:
    """The engine's patterns as a pandas frame, refused when a stratum is missing."""
    from microsdc.backends.frequencies import sql_name, to_pandas

    patterns = to_pandas(table)
    for c in strata_cols:
        bad = patterns[str(c)].isna().to_numpy()
        if bad.any():
            raise DataValidationError(
                f"The stratum column {c!r} of {_FUNC} has "
                f"{int(patterns[_N].to_numpy()[bad].sum())} missing value(s). "
                "Every record needs a known stratum: recode the missing values to a "
                f"stratum of their own first (polars: pl.col({str(c)!r}).fill_null('unknown'); "
                f"SQL: coalesce({sql_name(str(c))}, 'unknown')).",
                func=_FUNC,
            )
    return patterns


def _pattern_codes(
    patterns: pd.DataFrame, cols: list[Hashable], missing_values: MissingValues, ordered: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The patterns' codes, categories per key variable, records per pattern and the
    position of each pattern's first record (0 when the engine gives no order)."""
    mv = (
        {c: v for c, v in missing_values.items() if c in set(cols)}
        if isinstance(missing_values, Mapping)
        else missing_values
    )
    enc = encode_qis(patterns, cols, missing_values=mv, func=_FUNC)
    codes0 = np.ascontiguousarray(enc.codes, dtype=np.int64)
    first = (
        patterns[_FIRST].to_numpy(dtype=np.int64)
        if ordered
        else np.zeros(len(codes0), dtype=np.int64)
    )
    records = patterns[_N].to_numpy(dtype=np.float64)
    return codes0, np.asarray(enc.n_categories, dtype=np.int64), records, first


def local_suppression_lazy(
    df: Any,
    qi: Sequence[Hashable],
    k: int | Sequence[int],
    *,
    importance: Any,
    combs: Any,
    strata: Any,
    missing: Any,
    method: str,
    subject_id: Hashable | None,
    subject_rule: str | None,
    missing_values: MissingValues,
    time_limit: float,
    seed: Any,
    progress: Callable[[int, int], None] | None,
    linked: Any,
    accept_rare_values: bool,
    dis_suda_threshold: float | None,
    dis_fraction: float | None,
) -> LazySuppressionResult:
    """:func:`microsdc.local_suppression` on a lazy frame (polars ``LazyFrame``, DuckDB
    relation): the engine groups and joins, microsdc decides on the patterns.

    Parameters and errors are those of :func:`microsdc.local_suppression` (every
    argument comes from it, whose signature holds the defaults); the
    options that need the records are refused with an
    :class:`~microsdc.exceptions.InvalidParameterError` naming them:
    ``method`` other than ``"greedy"``, ``missing="probabilistic"``,
    ``subject_id`` and ``linked``.

    Under the default ``"category"`` a blank is one more value, so the classes
    counted on the distinct patterns are those of the records, and every record ends
    in a class of at least k identical released tuples (within its stratum). The
    group-and-mask algorithm pandas runs on the records runs on the patterns
    expanded to their records, and its solution is released: when it blanks the
    records of one key combination differently, the engine numbers the records of
    that combination in row order and blanks each by its number, so the release has
    exactly the cells of that solution. Its cells are those pandas blanks on the
    same records in most cases, but not always: pandas runs on the records in row
    order and the expansion on the patterns, and the algorithm may break ties
    otherwise (in either direction); which records of a combination get which
    blanks may also differ, as the records of a combination are interchangeable to
    it. Where the solution splits a combination the greedy on patterns runs too,
    and its release (every record of a combination blanked alike) is taken instead
    when it costs less: fewer cells, or, under a ranking (the default), as many
    cells in less important key variables. The solution for the records is not
    available when a stratum has more records than
    :data:`~microsdc.suppression.core.MAX_EXPANDED_RECORDS` or the key variables
    have too many categories together for one 62-bit key
    (:func:`~microsdc.suppression._category.category_fits`): the hash-table greedy
    then runs on the patterns, blanking every record of a pattern alike, which
    reaches k as well but may cost more cells.

    Every check on the parameters and columns comes before the engine reads a row;
    missing values in a strata column and k above the records of a stratum are
    found from the patterns. The check that other columns give blanked values back
    (``DisclosureRiskWarning`` on pandas) needs the records and is not run.

    Returns
    -------
    LazySuppressionResult
        ``patterns`` has one row per pattern as released: a key combination whose
        records were blanked differently has a row per way they were blanked.
    """
    import narwhals as nw

    from microsdc.backends import detect_backend

    t0 = time.perf_counter()
    backend = detect_backend(df, _FUNC)
    nwf = nw.from_native(df)
    names = [str(c) for c in _schema(nwf).names()]
    policy, cols, jobs_spec, k_report, imp, strata_cols = _check(
        names, missing_values, qi=qi, k=k, importance=importance, combs=combs, strata=strata,
        missing=missing, method=method, time_limit=time_limit, linked=linked,
        subject_id=subject_id,
    )  # fmt: skip
    check_bool(accept_rare_values, "accept_rare_values", _FUNC)
    check_passed_on(subject_rule, seed, progress, method, subject_id)
    dis_fraction_of(dis_suda_threshold, dis_fraction)
    if dis_suda_threshold is not None:
        DIS_SUDA_THRESHOLD.check(dis_suda_threshold, _FUNC)
        entry, value = first_refusal({"dis_suda_threshold": dis_suda_threshold}) or (None, None)
        assert entry is not None
        raise _refuse(entry.param, entry.reason(value), value)
    result = _on_patterns(
        df, backend, names, cols, jobs_spec, k_report, imp, strata_cols, policy, combs,
        missing_values, progress, accept_rare_values, t0,
    )  # fmt: skip
    warn_measure_policy(result, policy)
    return result


def _on_patterns(
    df: Any,
    backend: Backend,
    names: list[str],
    cols: list[Hashable],
    jobs_spec: list[tuple[int, int]],
    k_report: Any,
    imp: Any,
    strata_cols: list[Hashable],
    policy: Policy,
    combs: Any,
    missing_values: MissingValues,
    progress: Callable[[int, int], None] | None,
    accept_rare_values: bool,
    t0: float,
) -> LazySuppressionResult:
    """The suppression of the engine's distinct patterns, blanked back lazily
    (``declared``: the missing values the user gave)."""
    declared, missing_values = missing_values, counted_missing_values(policy, missing_values)
    if backend.name == "DuckDB" and not strata_cols and combs is None:
        keyed = _keyed(df, names, cols, missing_values, policy, k_report, imp, progress, t0)
        if keyed is not None:
            return keyed
    keys = [str(c) for c in [*strata_cols, *cols]]
    import narwhals as nw

    from microsdc.backends import refuse_unreadable_integers
    from microsdc.backends.zeros import refuse_signed_zeros

    refuse_unreadable_integers(nw.from_native(df), keys, _FUNC)
    refuse_signed_zeros(df, backend, cols, _FUNC)
    table, ordered = _aggregate_first(df, backend, keys)
    patterns = _strata_known(table, strata_cols)
    warn_declared_all_missing(patterns, cols, declared, policy)
    codes0, ncat, records, first = _pattern_codes(patterns, cols, missing_values, ordered)
    groups = strata_groups(patterns, strata_cols)
    groups.sort(key=lambda rows: int(first[rows].min()) if len(rows) else 0)  # pandas' order
    out = suppress_codes(
        codes0, ncat, groups, jobs_spec, imp, cols, policy, stratified=bool(strata_cols),
        records=records, first=first, progress=progress, accept_rare_values=accept_rare_values,
    )  # fmt: skip
    if out.source is None:
        released = _Released(np.arange(len(codes0)), records)
    else:  # one row per piece: records of a pattern released alike
        assert out.records is not None
        released = _Released(out.source, out.records)
        patterns = patterns.iloc[out.source].reset_index(drop=True)
        groups = _piece_groups(groups, out.source, len(codes0))
        codes0 = codes0[out.source]
    blank = (out.codes < 0) & (codes0 >= 0)
    blank_frame = pd.DataFrame(blank, columns=pd.Index([str(c) for c in cols], dtype=object))
    data = _blank_back(df, backend, keys, names, table, blank_frame, released)
    if blank.any():
        _check_arrived(data, backend, table, cols, blank, released)
    return lazy_result(
        data,
        patterns,
        keys,
        cols,
        k_report,
        policy,
        blank,
        released.records,
        out.fk_before,
        out.fk_after,
        out.true_fk,
        out.risk_before,
        out.risk_after,
        None if combs is None else [s for s, _ in jobs_spec],
        time.perf_counter() - t0,
        n_patterns_total=None if out.source is None else len(records),
        prosecutor=_pattern_prosecutor(
            patterns, cols, codes0, out.codes, groups, released.records, missing_values
        ),
    )


def _piece_groups(
    groups: list[np.ndarray], source: np.ndarray, n_patterns: int
) -> list[np.ndarray]:
    """The strata as pieces: the pieces of the patterns of each stratum, in order."""
    stratum = np.zeros(n_patterns, dtype=np.int64)
    for g, rows in enumerate(groups):
        stratum[rows] = g
    of_piece = stratum[source]
    order = np.argsort(of_piece, kind="stable")
    bounds = np.searchsorted(of_piece[order], np.arange(1, len(groups)))
    return list(np.split(order, bounds))


def _pattern_prosecutor(
    patterns: pd.DataFrame,
    cols: list[Hashable],
    codes0: np.ndarray,
    codes: np.ndarray,
    groups: list[np.ndarray],
    records: np.ndarray,
    missing_values: MissingValues,
) -> tuple[np.ndarray, np.ndarray]:
    """Prosecutor risk of each pattern's records, before and after, per stratum, on the
    values as released (a declared missing code stays a value)."""
    from microsdc.suppression.released import prosecutor_per_stratum

    blank = (codes < 0) & (codes0 >= 0)
    if missing_values is not None:
        lit = encode_qis(patterns, cols, func=_FUNC, warn_cardinality=False)
        codes0 = np.ascontiguousarray(lit.codes, dtype=np.int64)
    codes = np.where(blank, -1, codes0)
    ncat = np.asarray(codes0.max(axis=0, initial=-1) + 1, dtype=np.int64)
    return prosecutor_per_stratum(codes0, codes, groups, ncat, True, records)


def _keyed(
    rel: Any,
    names: list[str],
    cols: list[Hashable],
    missing_values: MissingValues,
    policy: Policy,
    k: int,
    imp: Any,
    progress: Callable[[int, int], None] | None,
    t0: float,
) -> LazySuppressionResult | None:
    """The combined-key route (:mod:`microsdc.suppression.keyed`) when it
    applies: wildcard policy, integer QIs of small range, no strata or combs."""
    if policy.kind != "wildcard":
        return None
    from microsdc.backends.keyed import plan_keys
    from microsdc.suppression._engine import bitset_fits
    from microsdc.suppression.keyed import keyed_suppression

    plan = plan_keys(rel, cols, missing_values, policy, False)
    if plan is None or bitset_fits(plan.n_rows, plan.base - 1):
        return None  # no key route, or few enough patterns for the bit-set greedy
    if plan.n_rows < k:
        raise InvalidParameterError(
            f"The 'k' parameter of {_FUNC} must be at most the number of records: "
            f"the data have {plan.n_rows} record(s) and k={k}; no suppression can reach it.",
            func=_FUNC,
            param="k",
        )
    from microsdc.backends.keyed import warn_unobserved

    warn_unobserved(plan, cols)
    result = keyed_suppression(rel, plan, names, cols, k, imp, policy, progress, t0)
    assert result is None or isinstance(result, LazySuppressionResult)
    return result
