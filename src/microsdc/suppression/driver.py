"""The one driver of :func:`~microsdc.suppression.local.local_suppression`, for a pandas
frame and for a lazy frame (polars ``LazyFrame``, DuckDB relation, Spark ``DataFrame``).

:func:`checked_call` runs the checks of the parameters and columns in one order for
every frame (a lazy frame's columns come from its schema, before a row is read), then
refuses what a lazy engine cannot run, through the capability table
(:func:`microsdc.backends.capabilities.first_refusal`). :func:`suppress_frame` is
then the one path: the rows to work on (pandas: one per record, in row order,
:class:`Records`; a lazy frame: the engine's distinct patterns with their records and
the position of their first row, :func:`microsdc.suppression.lazy.engine_patterns`),
the search (:func:`~microsdc.suppression.core.suppress_codes`), the blanks and the
prosecutor figures, the write-back (:func:`~microsdc.data.blank.blank_cells`, or the
engine's join back) and the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping
from typing import Any, Protocol

import numpy as np
import pandas as pd

from microsdc._validation import check_bool, check_frame, lazy_refusal
from microsdc.backends.adapters import adapt
from microsdc.backends.capabilities import first_refusal
from microsdc.backends.frequencies import column_frame
from microsdc.encode import MissingValues, encode_qis
from microsdc.suppression.core import Solved, suppress_codes
from microsdc.suppression.params import (
    Call,
    check_call,
    check_declared_codes,
    check_dis_suda,
    check_exact,
    check_passed_on,
    counted_missing_values,
    strata_groups,
    time_limit_of,
    warn_declared_all_missing,
)
from microsdc.suppression.released import prosecutor_released, true_fk_series
from microsdc.suppression.result import LazySuppressionResult, SuppressionResult, record_result

__all__ = ["Call", "Records", "checked_call", "piece_groups", "suppress_frame", "suppress_rows"]

_FUNC = "local_suppression"

#: How each engine collects a lazy frame into memory, as a refusal says it.
_COLLECT = (
    "polars: .collect(); DuckDB: .pl() or .df(); Spark: .toPandas(), or .toArrow() for a "
    "pyarrow table"
)


def checked_call(
    df: Any,
    qi: Any,
    k: Any,
    *,
    importance: Any,
    combs: Any,
    strata: Any,
    missing: Any,
    method: Any,
    subject_id: Any,
    subject_rule: Any,
    missing_values: Any,
    time_limit: Any,
    seed: Any,
    progress: Any,
    linked: Any,
    accept_rare_values: Any,
    dis_suda_threshold: Any,
    dis_fraction: Any,
    t0: float,
) -> Call:
    """Every check of :func:`~microsdc.suppression.local.local_suppression`'s parameters
    and columns, in one order for every frame, then the refusal of what a lazy engine
    cannot run (every argument by name, as the function got it; ``t0``: its start).

    The checks that read values (missing strata, a key variable of declared codes
    only) run here on a pandas frame; on a lazy frame they run on the engine's
    patterns (:func:`microsdc.suppression.lazy.engine_patterns`).
    """
    frame = adapt(df, _FUNC)
    schema = column_frame(df) if frame.lazy else check_frame(df, "df", _FUNC)
    checked = check_call(
        schema, qi, k, importance, combs, strata, missing, method, time_limit, linked,
        subject_id, values=not frame.lazy,
    )  # fmt: skip
    policy, method, cols = checked[:3]
    limit = time_limit_of(time_limit, method)
    rule = check_passed_on(subject_rule, seed, progress, method, subject_id)
    check_bool(accept_rare_values, "accept_rare_values", _FUNC)
    threshold = check_dis_suda(dis_suda_threshold, dis_fraction, method, subject_id)
    check_declared_codes(schema, missing_values, _FUNC)
    if frame.lazy:
        check_exact(method, policy, missing, combs)  # pandas' first error for this pair
        refused = first_refusal(
            {
                "method": method,
                "missing": policy.label,
                "subject_id": subject_id,
                "linked": linked,
                "dis_suda_threshold": dis_suda_threshold,
            }
        )
        if refused is not None:
            entry, value = refused
            raise lazy_refusal(entry.param, _FUNC, entry.reason(value), value, _COLLECT)
    else:
        warn_declared_all_missing(df, cols, missing_values, policy)
    counted = counted_missing_values(policy, missing_values)
    return Call(frame, schema, checked, limit, rule, threshold, missing_values, counted, t0)


class Rows(Protocol):
    """The rows the one path works on, and how its release goes back to the frame."""

    rows: pd.DataFrame  # the records, or an engine's distinct patterns
    records: np.ndarray | None  # records behind each row (None: one each)
    first: np.ndarray | None  # position of each row's first record (None: its own)

    def write_back(
        self, cols: list[Hashable], blank: np.ndarray, source: np.ndarray | None, records: Any
    ) -> Any: ...

    def result(self, solved: Solved) -> SuppressionResult: ...


class Records:
    """A pandas frame's rows: one per record, in row order, blanked with
    :func:`~microsdc.data.blank.blank_cells`."""

    records: np.ndarray | None = None
    first: np.ndarray | None = None

    def __init__(self, df: pd.DataFrame) -> None:
        self.rows = df

    def write_back(
        self, cols: list[Hashable], blank: np.ndarray, source: np.ndarray | None, records: Any
    ) -> pd.DataFrame:
        from microsdc.data.blank import blank_cells

        return blank_cells(self.rows, cols, blank)

    def result(self, solved: Solved) -> SuppressionResult:
        out, rows, blank = solved.out, solved.rows, solved.blank
        policy, method, cols, _, k_report = solved.checked[:5]
        exact = method == "exact"
        details = exact_details(out.exact) if exact else alpha_details(out.alpha_sources)
        return record_result(
            rows, solved.data, cols, k_report, policy, method, blank, out.fk_before,
            out.fk_after, true_fk_series(out.true_fk, blank, rows.index),
            int(out.risk_before.sum()), int(out.risk_after.sum()), solved.combs,
            solved.seconds, details, solved.prosecutor,
        )  # fmt: skip


def suppress_frame(
    df: Any,
    call: Call,
    combs: Any,
    progress: Callable[[int, int], None] | None,
    accept_rare_values: bool,
) -> SuppressionResult:
    """The greedy or the exact method on ``df``: on its records (pandas) or on the
    engine's distinct patterns (a lazy frame, whose DuckDB combined-key route may
    suppress on its own, :func:`microsdc.suppression.lazy.engine_patterns`)."""
    from microsdc.suppression.lazy import engine_patterns

    rows: Rows = Records(df)
    if call.frame.lazy:
        patterns = engine_patterns(df, call, combs, progress)
        if isinstance(patterns, LazySuppressionResult):  # DuckDB's combined-key route
            return patterns
        rows = patterns
    return suppress_rows(rows, call, combs, progress, accept_rare_values)


def suppress_rows(
    source: Rows,
    call: Call,
    combs: Any,
    progress: Callable[[int, int], None] | None,
    accept_rare_values: bool = False,
) -> SuppressionResult:
    """The one path, on ``source``'s rows (records, or patterns with their records):
    :func:`~microsdc.suppression.core.suppress_codes`, the blanks, the write-back, the
    prosecutor figures on the values as released, and the result."""
    checked, counted, t0 = call.checked, call.counted, call.t0
    policy, method, cols, jobs_spec, _, imp, strata_cols, _ = checked
    rows, records, first = source.rows, source.records, source.first
    enc = encode_qis(rows, cols, missing_values=_of_columns(counted, cols), func=_FUNC)
    ncat = enc.n_categories
    codes0 = np.ascontiguousarray(enc.codes, dtype=np.int64)
    groups = strata_groups(rows, strata_cols)
    if first is not None:  # the strata in the order of their first records, as pandas has them
        groups.sort(key=lambda g: int(first[g].min()) if len(g) else 0)
    out = suppress_codes(
        codes0, ncat, groups, jobs_spec, imp, cols, policy, stratified=bool(strata_cols),
        method=method, records=records, first=first, time_limit=call.limit, progress=progress,
        accept_rare_values=accept_rare_values,
    )  # fmt: skip
    if out.source is not None:  # pieces: the records of a pattern released in several ways
        rows = rows.iloc[out.source].reset_index(drop=True)
        groups = piece_groups(groups, out.source, len(codes0))
        codes0, records = codes0[out.source], out.records
    blank = (out.codes < 0) & (codes0 >= 0)
    data = source.write_back(cols, blank, out.source, records)
    changed = bool(out.risk_before.any())
    pros = prosecutor_released(
        rows, cols, codes0, out.codes, ncat, groups, counted, changed, records
    )
    listed = None if combs is None else [s for s, _ in jobs_spec]
    seconds = time.perf_counter() - t0
    return source.result(Solved(data, rows, blank, out, records, checked, listed, seconds, pros))


def _of_columns(missing_values: MissingValues, cols: list[Hashable]) -> MissingValues:
    """``missing_values`` for the key variables ``cols`` (a dict keeps their entries:
    an engine's patterns hold no other column)."""
    if isinstance(missing_values, Mapping):
        return {c: v for c, v in missing_values.items() if c in set(cols)}
    return missing_values


def piece_groups(groups: list[np.ndarray], source: np.ndarray, n_patterns: int) -> list[np.ndarray]:
    """The strata as pieces: the pieces of the patterns of each stratum, in order."""
    stratum = np.zeros(n_patterns, dtype=np.int64)
    for g, rows in enumerate(groups):
        stratum[rows] = g
    of_piece = stratum[source]
    order = np.argsort(of_piece, kind="stable")
    bounds = np.searchsorted(of_piece[order], np.arange(1, len(groups)))
    return list(np.split(order, bounds))


def exact_details(infos: list[dict[str, Any]]) -> dict[str, Any]:
    """What the exact method used, over the strata: ``solution`` and per-stratum figures."""
    sources = {i["source"] for i in infos}
    return {
        "solution": sources.pop() if len(sources) == 1 else ("mixed" if sources else "solver"),
        "optimal": all(i["optimal"] for i in infos),
        "strata": infos,
    }


def alpha_details(sources: set[str]) -> dict[str, Any]:
    """Which solution the alpha greedy released: ``greedy``, ``category`` or ``mixed``."""
    if not sources:
        return {}
    return {"solution": sources.pop() if len(sources) == 1 else "mixed"}
