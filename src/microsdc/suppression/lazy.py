"""The engine's side of local suppression for polars ``LazyFrame``, DuckDB relations
and Spark DataFrames: their distinct patterns, and the release joined back.

:func:`microsdc.local_suppression` runs one driver for every frame
(:mod:`microsdc.suppression.driver`); this module is the lazy frame's part of it. The
engine groups the rows by the strata and quasi-identifiers (missing values kept as a
group), counts them and notes the position of each pattern's first row
(:func:`engine_patterns`). The driver runs the same search as on pandas on those
patterns, each standing for its records, and the engine blanks the cells with a
null-safe join on the patterns that changed (:meth:`PatternRows.write_back`): every
record of a pattern gets the pattern's released values. Rows never enter Python and
the result stays lazy. On DuckDB, without strata or ``combs``, the wildcard policy
may run on combined integer keys instead (:mod:`microsdc.suppression.keyed`).

The settings that need the records are refused before a row is read, through
:func:`microsdc.backends.capabilities.first_refusal`: ``method`` other than
``"greedy"``, ``missing="probabilistic"``, ``subject_id``, ``linked`` and
``dis_suda_threshold``. Missing values in a strata column and k above the records of
a stratum are found from the patterns. The check that other columns give blanked
values back (``DisclosureRiskWarning``) runs in the engine on counts
(:mod:`microsdc.risk.engine_readback`), with the result of the pandas route.

Under the default ``"category"`` a blank is one more value, so the classes counted
on the distinct patterns are those of the records, and every record ends in a class
of at least k identical released tuples (within its stratum). The group-and-mask
algorithm pandas runs on the records runs on the patterns expanded to their records,
and its solution is released: when it blanks the records of one key combination
differently, the engine numbers the records of that combination in row order and
blanks each by its number, so the release has exactly the cells of that solution.
Its cells are those pandas blanks on the same records in most cases, but not always:
pandas runs on the records in row order and the expansion on the patterns, and the
algorithm may break ties otherwise (in either direction); which records of a
combination get which blanks may also differ, as the records of a combination are
interchangeable to it. Where the solution splits a combination the greedy on
patterns runs too, and its release (every record of a combination blanked alike) is
taken instead when it costs less: fewer cells, or, under a ranking (the default), as
many cells in less important key variables. The solution for the records is not
available when a stratum has more records than
:data:`~microsdc.suppression.core.MAX_EXPANDED_RECORDS` or the key variables have too
many categories together for one 62-bit key
(:func:`~microsdc.suppression._category.category_fits`): the hash-table greedy then
runs on the patterns, blanking every record of a pattern alike, which reaches k as
well but may cost more cells. The result's ``patterns`` has one row per pattern as
released: a key combination whose records were blanked differently has a row per way
they were blanked.

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
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import Policy
from microsdc.backends import Backend
from microsdc.backends.frequencies import sql_name
from microsdc.encode import MissingValues
from microsdc.exceptions import DataValidationError
from microsdc.suppression.core import Solved, check_reachable
from microsdc.suppression.params import Call, warn_declared_all_missing
from microsdc.suppression.result import LazySuppressionResult, lazy_result

__all__ = ["PatternRows", "engine_patterns"]

_FUNC = "local_suppression"
_N = "__microsdc_records"
_ROW = "__microsdc_row"
_FIRST = "__microsdc_first"
_BLANK = "__microsdc_blank"
_RBLANK = "__microsdc_rblank"


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


def engine_patterns(
    df: Any, call: Call, combs: Any, progress: Callable[[int, int], None] | None
) -> PatternRows | LazySuppressionResult:
    """The distinct patterns of the lazy frame ``df`` for the driver (``call``: the
    checked call), or, where DuckDB's combined-key route applies, its whole suppression."""
    import narwhals as nw

    from microsdc.backends import refuse_unreadable_integers
    from microsdc.backends.zeros import refuse_signed_zeros

    names = list(call.schema.columns)
    checked, missing_values, counted, t0 = call.checked, call.missing_values, call.counted, call.t0
    policy, _, cols, _, k_report, imp, strata_cols, _ = checked
    backend = call.frame.backend
    if backend.name == "DuckDB" and not strata_cols and combs is None:
        keyed = _keyed(df, names, cols, counted, policy, k_report, imp, progress, t0)
        if keyed is not None:
            return keyed
    keys = [str(c) for c in [*strata_cols, *cols]]
    refuse_unreadable_integers(nw.from_native(df), keys, _FUNC)
    refuse_signed_zeros(df, backend, cols, _FUNC)
    table, ordered = _aggregate_first(df, backend, keys)
    patterns = _strata_known(table, strata_cols)
    warn_declared_all_missing(patterns, cols, missing_values, policy)
    return PatternRows(df, backend, names, keys, table, patterns, ordered)


class PatternRows:
    """A lazy frame's distinct patterns as the driver's rows: ``rows`` (the patterns, a
    pandas frame of the strata and key variables), ``records`` behind each and the
    position of its ``first`` record (0 each when the engine gives no order); the
    release goes back by a join in the engine."""

    def __init__(
        self,
        df: Any,
        backend: Backend,
        names: list[str],
        keys: list[str],
        table: Any,
        patterns: pd.DataFrame,
        ordered: bool,
    ) -> None:
        self.df, self.backend, self.names, self.keys, self.table = df, backend, names, keys, table
        self.rows = patterns
        self.records: np.ndarray | None = patterns[_N].to_numpy(dtype=np.float64)
        n = len(patterns)
        first = patterns[_FIRST].to_numpy(dtype=np.int64) if ordered else np.zeros(n, np.int64)
        self.first: np.ndarray | None = first

    def write_back(
        self, cols: list[Hashable], blank: np.ndarray, source: np.ndarray | None, records: Any
    ) -> Any:
        """The frame with the cells of ``blank`` (one row per pattern, or per piece of
        the patterns ``source``, with ``records`` each) set to null, checked to arrive."""
        source = np.arange(len(self.rows)) if source is None else source
        released = _Released(source, records)
        frame = pd.DataFrame(blank, columns=pd.Index([str(c) for c in cols], dtype=object))
        data = _blank_back(
            self.df, self.backend, self.keys, self.names, self.table, frame, released
        )
        if blank.any():
            _check_arrived(data, self.backend, self.table, cols, blank, released)
        return data

    def result(self, solved: Solved) -> LazySuppressionResult:
        """The result, one row per pattern as released (``solved.rows``, with their
        ``records``)."""
        policy, _, cols, _, k_report = solved.checked[:5]
        out, records = solved.out, solved.records
        assert records is not None
        return lazy_result(
            solved.data, solved.rows, self.keys, cols, k_report, policy, solved.blank, records,
            out.fk_before, out.fk_after, out.true_fk, out.risk_before, out.risk_after,
            solved.combs, solved.seconds,
            n_patterns_total=None if out.source is None else len(self.rows),
            prosecutor=(solved.prosecutor[0].to_numpy(), solved.prosecutor[1].to_numpy()),
        )  # fmt: skip


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
    check_reachable([np.zeros(1, dtype=np.int64)], np.array([plan.n_rows]), k, False)
    from microsdc.backends.keyed import warn_unobserved

    warn_unobserved(plan, cols)
    result = keyed_suppression(rel, plan, names, cols, k, imp, policy, progress, t0)
    assert result is None or isinstance(result, LazySuppressionResult)
    return result
