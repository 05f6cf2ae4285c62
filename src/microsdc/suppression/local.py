"""Local suppression: blank as few quasi-identifier cells as possible to reach k-anonymity."""

from __future__ import annotations

import numbers
import time
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from microsdc._validation import (
    check_columns,
    check_frame,
    check_int,
    check_one_of,
    param_error,
)
from microsdc.encode import MissingValues, encode_qis
from microsdc.exceptions import DataValidationError, InvalidParameterError
from microsdc.risk._policy import MissingPolicy, Policy, parse_policy

__all__ = ["SuppressionResult", "local_suppression"]

_FUNC = "local_suppression"
METHODS = ("greedy", "exact")


@dataclass(frozen=True)
class SuppressionResult:
    """What local suppression did.

    Attributes
    ----------
    data : pandas.DataFrame
        The released frame: same index, columns and row order as the input;
        suppressed cells are missing, every other cell is unchanged. A column
        that received a missing value and could not hold one changes to the
        matching nullable dtype (``int64`` -> ``Int64``, ``bool`` -> ``boolean``).
    qi : list
        The quasi-identifiers.
    k : int or list of int
        The requested k (one per entry of ``combs`` when given so).
    missing : str
        The missing-value policy, e.g. ``"wildcard"`` or ``"alpha=0.5"``.
    method : str
        ``"greedy"``, ``"exact"`` (or ``"random"`` for the baseline).
    cells_per_qi : pandas.Series of int, indexed by QI name
        Cells blanked in each quasi-identifier.
    cells_per_row : pandas.Series of int, indexed like the input
        Cells blanked in each record.
    fk_before, fk_after : pandas.Series, indexed like the input
        Sample frequency on all the QIs under ``missing``, before and after
        (within the stratum when ``strata`` is used; per subject when
        ``subject_id`` is used, repeated on every row of the subject).
    true_fk : pandas.Series of int, indexed by the suppressed records
        For each record with a blanked cell, the number of released records
        whose every non-missing QI value equals the record's original value
        (spec section 2): the frequency an intruder who knows the true values
        sees. It can be below k although ``fk_after`` is not.
    n_at_risk_before, n_at_risk_after : int
        Records at risk before and after under the requested guarantee (every
        QI subset of ``combs`` with its k, when given).
    combs : list of int or None
    seconds : float
        Wall-clock time of the computation.
    """

    data: pd.DataFrame
    qi: list[Hashable]
    k: int | list[int]
    missing: str
    method: str
    cells_per_qi: pd.Series
    cells_per_row: pd.Series
    fk_before: pd.Series
    fk_after: pd.Series
    true_fk: pd.Series
    n_at_risk_before: int
    n_at_risk_after: int
    combs: list[int] | None = None
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def n_cells(self) -> int:
        """Total number of cells blanked."""
        return int(self.cells_per_qi.sum())

    @property
    def n_rows_suppressed(self) -> int:
        """Number of records with at least one blanked cell."""
        return int((self.cells_per_row > 0).sum())

    def summary(self) -> str:
        """A short plain-text report."""
        lines = [
            f"Local suppression ({self.method}, k={self.k}, missing={self.missing}"
            + (f", combs={self.combs}" if self.combs else "")
            + ")",
            f"  records at risk: {self.n_at_risk_before:,} before, {self.n_at_risk_after:,} after",
            f"  cells blanked:   {self.n_cells:,} in {self.n_rows_suppressed:,} records",
        ]
        width = max((len(str(c)) for c in self.cells_per_qi.index), default=0)
        for name, count in self.cells_per_qi.items():
            lines.append(f"    {name!s:<{width}}  {int(count):,}")
        if len(self.true_fk):
            below = int((self.true_fk < _min_k(self.k)).sum())
            lines.append(
                f"  suppressed records whose true values match fewer than k released "
                f"records: {below:,}"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable figures (no data values)."""
        return {
            "method": self.method,
            "k": self.k,
            "missing": self.missing,
            "combs": self.combs,
            "quasi_identifiers": [str(q) for q in self.qi],
            "n_rows": len(self.data),
            "n_cells": self.n_cells,
            "n_rows_suppressed": self.n_rows_suppressed,
            "cells_per_qi": {str(k): int(v) for k, v in self.cells_per_qi.items()},
            "n_at_risk_before": self.n_at_risk_before,
            "n_at_risk_after": self.n_at_risk_after,
            "true_fk_below_k": int((self.true_fk < _min_k(self.k)).sum()),
            "seconds": round(self.seconds, 4),
        }


def _min_k(k: int | list[int]) -> int:
    return int(min(k)) if isinstance(k, list) else int(k)


# --------------------------------------------------------------------------- validation


def _check_importance(importance: Any, qi: list[Hashable], df: pd.DataFrame, func: str) -> Any:
    """Normalise ``importance`` to ("rank", list) or ("weight", dict), or None."""
    if importance is None:
        return None
    if isinstance(importance, Mapping):
        names = list(importance)
        check_columns(df, names, "importance", func)
        _cover(names, qi, func)
        weights = {}
        for name in qi:
            w = importance[name]
            ok = isinstance(w, numbers.Real) and not isinstance(w, bool)
            if not ok or not np.isfinite(w) or w <= 0:
                raise param_error(
                    "importance", func, "a dict of positive finite weights", importance
                )
            weights[name] = float(w)
        return ("weight", weights)
    names = check_columns(df, importance, "importance", func, allow_single=False)
    _cover(names, qi, func)
    return ("rank", names)


def _cover(names: list[Hashable], qi: list[Hashable], func: str) -> None:
    extra = [c for c in names if c not in set(qi)]
    lacking = [c for c in qi if c not in set(names)]
    if extra or lacking:
        parts = []
        if extra:
            parts.append(f"names columns that are not quasi-identifiers: {extra!r}")
        if lacking:
            parts.append(f"does not cover the quasi-identifiers {lacking!r}")
        raise InvalidParameterError(
            f"The 'importance' parameter of {func} "
            + " and ".join(parts)
            + ". Give every quasi-identifier exactly once."
        )


def _costs(importance: Any, qi: list[Hashable], n_categories: np.ndarray) -> Any:
    from microsdc.suppression._engine import Costs, ranked_costs

    m = len(qi)
    if importance is None:
        # sdcMicro's default: variables with more categories are blanked first
        order = np.lexsort((-np.arange(m), -np.asarray(n_categories)))
        rank = np.empty(m, dtype=np.int64)
        rank[order] = np.arange(m)
        return ranked_costs(rank)
    kind, value = importance
    if kind == "rank":
        position = {name: i for i, name in enumerate(value)}  # 0 = most important
        rank = np.array([m - 1 - position[name] for name in qi], dtype=np.int64)
        return ranked_costs(rank)
    return Costs(np.array([value[name] for name in qi], dtype=np.float64), False)


def _check_k_combs(k: Any, combs: Any, m: int, func: str) -> tuple[list[tuple[int, int]], Any]:
    """(size, k) pairs to enforce, and the k to report."""
    if combs is None:
        return [(m, check_int(k, "k", func, min_value=1))], check_int(k, "k", func, min_value=1)
    given: list[Any] = [combs] if isinstance(combs, numbers.Integral) else list(combs)
    if not given:
        raise param_error("combs", func, "an int or a non-empty list of ints", combs)
    sizes = [check_int(s, "combs", func, min_value=1, max_value=m) for s in given]
    if isinstance(k, Sequence) and not isinstance(k, str):
        ks = [check_int(x, "k", func, min_value=1) for x in k]
        if len(ks) != len(sizes):
            raise InvalidParameterError(
                f"The 'k' parameter of {func} must be an int or a list with one k per entry "
                f"of 'combs' ({len(sizes)}). Got {len(ks)} values instead."
            )
        return list(zip(sizes, ks, strict=True)), ks
    kk = check_int(k, "k", func, min_value=1)
    return [(s, kk) for s in sizes], kk


def _no_missing(df: pd.DataFrame, col: Hashable, what: str, func: str) -> None:
    bad = df[col].isna().to_numpy()
    if bad.any():
        raise DataValidationError(
            f"The {what} column {col!r} of {func} has {int(bad.sum())} missing value(s) "
            f"(first rows: {list(df.index[bad][:5])}). Every record needs a known {what}.",
            failure_cases=list(df.index[bad]),
        )


# --------------------------------------------------------------------------- main


def local_suppression(
    df: pd.DataFrame,
    qi: Sequence[Hashable],
    k: int | Sequence[int],
    *,
    importance: Sequence[Hashable] | Mapping[Hashable, float] | None = None,
    combs: int | Sequence[int] | None = None,
    strata: Hashable | Sequence[Hashable] | None = None,
    missing: MissingPolicy = "wildcard",
    method: str = "greedy",
    subject_id: Hashable | None = None,
    subject_rule: str = "mode",
    missing_values: MissingValues = None,
    time_limit: float = 60.0,
) -> SuppressionResult:
    """Blank as few quasi-identifier cells as possible so that no record has fk < k.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        The microdata. Never modified.
    qi : list of column names
        The quasi-identifiers (categorical; bin numeric ones first, see
        :func:`microsdc.recoding.bin_numeric`).
    k : int >= 1, or list of int
        Minimum frequency. With ``combs``, one k for all sizes or one per size.
        k larger than the number of records (of a stratum) is an error: no
        amount of suppression can reach it.
    importance : list of column names or dict, optional
        Which cells to keep. A list ranks every QI, **most important first**
        (blanked last); fewer cells always win and the ranking breaks ties.
        A dict ``{column: weight > 0}`` gives the cost of blanking a cell of
        each QI; the total cost is minimised (a weight-3 cell costs as much as
        three weight-1 cells). Default: QIs with more categories are blanked
        first (sdcMicro's default).
    combs : int or list of int, optional
        Sizes of QI subsets: every subset of each size must become k-anonymous
        (each size with its own k when ``k`` is a list), not only the full set.
        Repeated until all subsets hold together.
    strata : column name or list of column names, optional
        Anonymise each stratum (combination of these columns) on its own. The
        strata columns must have no missing values.
    missing : {"wildcard", "category", "conservative"} or float in [0, 1], default "wildcard"
        How missing values count (see :func:`microsdc.sample_frequencies`). The
        result reaches k under this policy.
    method : {"greedy", "exact"}, default "greedy"
        ``"exact"`` solves an integer program (small instances, wildcard policy,
        no ``combs``) to measure the greedy's distance to the optimum.
    subject_id : column name, optional
        Longitudinal data: several records per subject. The records are
        collapsed to one per subject (``subject_rule``), anonymised, and every
        suppression is carried back to all records of the subject (see
        :mod:`microsdc.longitudinal`).
    subject_rule : {"mode", "missing_if_differs"}, default "mode"
        How a subject's records are collapsed; see
        :func:`microsdc.longitudinal.collapse_subjects`.
    missing_values : sequence or dict, optional
        Values meaning "missing" besides NaN/None/pd.NA/NaT. Such cells are left
        as they are; blanked cells become true missing values.
    time_limit : float > 0, default 60
        Seconds allowed to the solver for ``method="exact"``.

    Returns
    -------
    SuppressionResult

    Raises
    ------
    InvalidParameterError
        For a bad ``k``, ``combs``, ``method``, ``missing``, ``importance``
        (unknown columns, not covering the QIs, non-positive weights), k larger
        than the number of records, or a policy under which k cannot be reached
        (alpha * n_rows < k with missing values present).
    ColumnNotFoundError
        For unknown QI, strata or subject columns.
    DataValidationError
        For duplicate column names, or missing values in a strata or subject
        column.

    Notes
    -----
    Minimum-suppression k-anonymity is NP-hard (Meyerson & Williams 2004). The
    greedy works on the distinct QI patterns, each standing for its records:
    identical records get the same blanks, and the cost follows the number of
    patterns, not of records. It processes the patterns at risk in ascending
    fk (among equal fk, those with fewer observed cells first), skips those
    that became safe meanwhile, and blanks for each the cheapest set of its
    cells (by ``importance``) that brings it to k; among the sets with as few
    cells, it prefers the one whose new pattern matches the most records still
    waiting (each weighted by its deficit k - fk). With wildcards the records
    compatible with a pattern are an intersection of bit sets, one per
    (column, value), so every candidate is counted exactly; otherwise counts
    are kept per (missingness mask, column set) in hash tables. Both are
    updated incrementally when a pattern changes. With wildcards a final pass
    gives back every blanked cell whose value can be restored without any
    record falling below k, then replaces a pattern's blanked cells by a
    cheaper set where that keeps every record at k. A full recount is done
    once at the end, and the loop resumes for any record still at risk (under
    ``"category"``, alpha < 1 and ``"conservative"`` blanking one record can
    lower another's count). A record for which no subset reaches k has all its
    QI cells blanked; under ``"category"``/``"conservative"`` more records are
    then blanked entirely until the entirely-missing records number k.
    With wildcards (the default) blanking never lowers any count, so records
    already safe stay safe.

    sdcMicro's ``localSuppression`` instead blanks one cell per record at risk
    per pass and recounts after each pass; it needs up to twice as many cells.

    Under the wildcard policy a record with every QI missing is compatible
    with every record, so k - 1 entirely blanked records make any data set
    k-anonymous with at most (k - 1) x n_qis cells. That minimum protects
    little (the other records keep their unique values; the count only says
    the blanked records cannot be ruled out), and the greedy does not look
    for it; the exact method finds it. Look at the number of entirely missing
    records, and at ``true_fk``, before release.

    References
    ----------
    sdcMicro ``localSuppression`` (Templ, Kowarik & Meindl 2015).
    Meyerson, A. & Williams, R. (2004). On the complexity of optimal
    k-anonymity. PODS 2004.
    kanonymity 0.1.0 (``min_missingness_max_deid``, the random baseline:
    :func:`microsdc.suppression.min_missingness_max_deid`).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["m", "m", "m", "f", "f", "f", "f"],
    ...                    "age": [30, 30, 40, 30, 30, 30, 50]})
    >>> res = local_suppression(df, ["sex", "age"], k=2)
    >>> res.data["age"].tolist()
    [30, 30, <NA>, 30, 30, 30, <NA>]
    >>> res.cells_per_qi.to_dict(), res.n_at_risk_after
    ({'sex': 0, 'age': 2}, 0)
    """
    t0 = time.perf_counter()
    check_frame(df, "df", _FUNC)
    policy = parse_policy(missing, _FUNC)
    method = check_one_of(method, "method", _FUNC, METHODS)
    cols = check_columns(df, qi, "quasi_identifiers", _FUNC)
    if len(cols) > 62:
        raise param_error("qi", _FUNC, "a list of at most 62 columns", f"{len(cols)} columns")
    jobs_spec, k_report = _check_k_combs(k, combs, len(cols), _FUNC)
    imp = _check_importance(importance, cols, df, _FUNC)
    strata_cols = check_columns(df, strata, "strata", _FUNC, allow_empty=True)
    for c in strata_cols:
        if c in set(cols):
            raise InvalidParameterError(
                f"The 'strata' parameter of {_FUNC} names a quasi-identifier: {c!r}."
            )
        _no_missing(df, c, "strata", _FUNC)
    if isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real) or time_limit <= 0:
        raise param_error("time_limit", _FUNC, "a real number > 0", time_limit)
    if method == "exact" and (policy.kind != "wildcard" or combs is not None):
        raise InvalidParameterError(
            f"method='exact' of {_FUNC} supports missing='wildcard' without 'combs' only."
        )

    if subject_id is not None:
        from microsdc.longitudinal import suppress_subjects

        return suppress_subjects(
            df,
            cols,
            k,
            subject_id=subject_id,
            rule=subject_rule,
            importance=importance,
            combs=combs,
            strata=strata_cols or None,
            missing=missing,
            method=method,
            missing_values=missing_values,
            time_limit=time_limit,
        )

    enc = encode_qis(df, cols, missing_values=missing_values, func=_FUNC)
    n, m = enc.codes.shape
    ncat = enc.n_categories
    codes0 = np.ascontiguousarray(enc.codes, dtype=np.int64)
    codes = codes0.copy()
    costs = _costs(imp, cols, ncat)
    jobs = [(sub, kk) for size, kk in jobs_spec for sub in combinations(range(m), size)]
    groups = _strata_groups(df, strata_cols)
    max_k = max(kk for _, kk in jobs_spec)
    for rows in groups:
        if 0 < len(rows) < max_k:
            where = "the data have" if not strata_cols else "a stratum has"
            raise InvalidParameterError(
                f"The 'k' parameter of {_FUNC} must be at most the number of records: "
                f"{where} {len(rows)} record(s) and k={max_k}; no suppression can reach it."
            )
    if method == "exact":
        from microsdc.suppression.exact import MAX_EXACT_ROWS

        biggest = max((len(g) for g in groups), default=0)
        if biggest > MAX_EXACT_ROWS:
            raise InvalidParameterError(
                f"method='exact' of {_FUNC} accepts at most {MAX_EXACT_ROWS} records per "
                f"stratum; got {biggest}. Use method='greedy'."
            )
    _check_reachable(codes0, groups, policy, jobs_spec, ncat, jobs)

    from microsdc.suppression._engine import fk_of, reach_k, risk_mask

    fk_before = np.zeros(n)
    fk_after = np.zeros(n)
    risk_before = np.zeros(n, dtype=bool)
    risk_after = np.zeros(n, dtype=bool)
    single = len(jobs) == 1 and len(jobs[0][0]) == m
    for rows in groups:
        sub = np.ascontiguousarray(codes[rows])
        fkb = fk_of(sub, ncat, policy)
        fk_before[rows] = fkb
        rb = fkb < jobs[0][1] if single else risk_mask(sub, ncat, policy, jobs)
        risk_before[rows] = rb
        fka = fkb
        if rb.any():
            if method == "exact":
                from microsdc.suppression.exact import exact_suppress_codes

                exact_suppress_codes(sub, ncat, jobs_spec[0][1], costs.weight, time_limit)
                fka = fk_of(sub, ncat, policy)
            else:
                done = reach_k(sub, ncat, jobs, costs, policy, fk_start=fkb if single else None)
                fka = done if done is not None else fk_of(sub, ncat, policy)
            codes[rows] = sub
        fk_after[rows] = fka
        risk_after[rows] = fka < jobs[0][1] if single else risk_mask(sub, ncat, policy, jobs)
    blank = (codes < 0) & (codes0 >= 0)
    data = _blank_frame(df, cols, blank)
    true_fk = _true_fk(codes0, codes, blank, groups, ncat, df.index)
    return _result(
        df,
        data,
        cols,
        k_report,
        policy,
        method,
        blank,
        fk_before,
        fk_after,
        true_fk,
        int(risk_before.sum()),
        int(risk_after.sum()),
        None if combs is None else [s for s, _ in jobs_spec],
        time.perf_counter() - t0,
    )


def _blank_frame(df: pd.DataFrame, cols: list[Hashable], blank: np.ndarray) -> pd.DataFrame:
    from microsdc.suppression._frame import blank_cells

    return blank_cells(df, cols, blank)


def _strata_groups(df: pd.DataFrame, strata_cols: list[Hashable]) -> list[np.ndarray]:
    n = len(df)
    if not strata_cols:
        return [np.arange(n)]
    keys = df[strata_cols].astype(object)
    codes = (
        pd.MultiIndex.from_frame(keys).factorize()[0]
        if len(strata_cols) > 1
        else (pd.factorize(keys.iloc[:, 0])[0])
    )
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    return [np.sort(g) for g in np.split(order, bounds)] if n else [np.arange(0)]


def _check_reachable(
    codes: np.ndarray,
    groups: list[np.ndarray],
    policy: Policy,
    jobs_spec: list[tuple[int, int]],
    ncat: np.ndarray,
    jobs: list[tuple[tuple[int, ...], int]],
) -> None:
    """With alpha < 1 a record with a missing value has fk <= alpha * n."""
    if policy.kind != "alpha":
        return
    from microsdc.suppression._engine import risk_mask

    max_k = max(kk for _, kk in jobs_spec)
    for rows in groups:
        if len(rows) == 0 or policy.alpha * len(rows) >= max_k:
            continue
        sub = np.ascontiguousarray(codes[rows])
        if risk_mask(sub, ncat, policy, jobs).any():
            raise InvalidParameterError(
                f"k={max_k} cannot be reached with missing={policy.label}: a record with any "
                f"missing value has fk <= alpha * n = {policy.alpha * len(rows):g}, so blanking "
                "cannot make a record safe. Use a larger alpha or the wildcard policy."
            )


def _true_fk(
    codes0: np.ndarray,
    codes: np.ndarray,
    blank: np.ndarray,
    groups: list[np.ndarray],
    ncat: np.ndarray,
    index: pd.Index,
) -> pd.Series:
    from microsdc.suppression._greedy import wildcard_support_of

    suppressed = np.any(blank, axis=1)
    out = np.zeros(len(codes0), dtype=np.int64)
    for rows in groups:
        hit = rows[suppressed[rows]]
        if len(hit):
            out[hit] = wildcard_support_of(codes[rows], codes0[hit], ncat)
    sel = np.flatnonzero(suppressed)
    return pd.Series(out[sel], index=index[sel], name="true_fk", dtype="int64")


def _result(
    df: pd.DataFrame,
    data: pd.DataFrame,
    cols: list[Hashable],
    k: Any,
    policy: Policy,
    method: str,
    blank: np.ndarray,
    fk_before: np.ndarray,
    fk_after: np.ndarray,
    true_fk: pd.Series,
    n_before: int,
    n_after: int,
    combs: list[int] | None,
    seconds: float,
) -> SuppressionResult:
    per_qi = pd.Series(blank.sum(axis=0).astype(np.int64), index=pd.Index(cols, dtype=object))
    per_qi.name = "cells"
    per_row = pd.Series(blank.sum(axis=1).astype(np.int64), index=df.index, name="cells")
    dtype: Any = "float64" if policy.kind == "alpha" else "int64"
    return SuppressionResult(
        data=data,
        qi=list(cols),
        k=k,
        missing=policy.label,
        method=method,
        cells_per_qi=per_qi,
        cells_per_row=per_row,
        fk_before=pd.Series(fk_before, index=df.index, name="fk").astype(dtype),
        fk_after=pd.Series(fk_after, index=df.index, name="fk").astype(dtype),
        true_fk=true_fk,
        n_at_risk_before=n_before,
        n_at_risk_after=n_after,
        combs=combs,
        seconds=seconds,
    )
