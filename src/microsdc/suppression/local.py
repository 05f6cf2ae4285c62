"""Local suppression: blank as few quasi-identifier cells as possible to reach k-anonymity."""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from microsdc._random import SeedLike
from microsdc._validation import (
    check_columns,
    check_frame,
    check_int,
    check_one_of,
    param_error,
)
from microsdc.backends.eager import call_in_memory
from microsdc.encode import MissingValues, encode_qis
from microsdc.exceptions import (
    DataValidationError,
    InvalidParameterError,
)
from microsdc.risk._policy import MissingPolicy, Policy, parse_policy

__all__ = ["SuppressionResult", "local_suppression"]

_FUNC = "local_suppression"
METHODS = ("greedy", "exact", "random")


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
        whose every non-missing QI value equals the record's original value:
        the frequency an intruder who knows the true values sees. It can be
        below k although ``fk_after`` is not.
    n_at_risk_before, n_at_risk_after : int
        Records at risk before and after under the requested guarantee (every
        QI subset of ``combs`` with its k, when given).
    combs : list of int or None
    seconds : float
        Wall-clock time of the computation.
    details : dict
        With ``method="exact"``: ``solution``, which solution was released
        (``"solver"``; ``"greedy"`` or ``"blank_records"`` when the solver
        found nothing cheaper within the time limit; ``"mixed"`` over strata),
        ``optimal`` (proved by the solver) and ``strata`` (per stratum:
        ``cells``, ``greedy_cells``, ``solver_cells``, ``objective``, ``status``).
        With alpha < 1 and records at risk: ``solution``, ``"greedy"`` or
        ``"category"`` (the ``missing="category"`` solution, released when it
        passes the alpha check and costs less; ``"mixed"`` over strata).
        Further figures: ``linked_cells`` ({linked column: cells blanked with
        its key variable}, when ``linked`` is given) and ``recoverable`` (the
        (key variable, column) pairs through which blanked values can still be
        read back, see :func:`microsdc.risk.linked.recoverable_cells`; empty
        when none); per-subject figures with ``subject_id``.
    prosecutor_before, prosecutor_after : pandas.Series of float in [0, 1] or None
        Per record, the probability that an intruder who knows the record's true
        QI values picks its released record, before and after suppression
        (see :func:`microsdc.risk.prosecutor_risk`; within the stratum when
        ``strata`` is used). Blank cells of other records count only with the
        share of the person's value, so blank records cannot lower it much.
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
    prosecutor_before: pd.Series | None = None
    prosecutor_after: pd.Series | None = None

    def __repr__(self) -> str:
        return (
            f"SuppressionResult(method={self.method!r}, k={self.k!r}, missing={self.missing!r}, "
            f"n_rows={self.n_rows:,}, qi={[str(q) for q in self.qi]!r}, "
            f"n_cells={self.n_cells:,}, n_rows_suppressed={self.n_rows_suppressed:,}, "
            f"at_risk={self.n_at_risk_before:,} -> {self.n_at_risk_after:,})"
        )

    def __str__(self) -> str:
        return self.summary()

    @property
    def n_cells(self) -> int:
        """Total number of cells blanked."""
        return int(self.cells_per_qi.sum())

    @property
    def n_rows(self) -> int:
        """Number of records of the input."""
        return len(self.data)

    def n_true_fk_below(self, k: int) -> int:
        """Suppressed records whose true values match fewer than ``k`` released records."""
        return int((self.true_fk < k).sum())

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
        for name, count in self.details.get("linked_cells", {}).items():
            lines.append(f"  linked column {name}: {int(count):,} cells blanked with its key")
        for r in self.details.get("recoverable", []):
            lines.append(
                f"  warning: {r['n_recoverable']:,} blanked {r['key_variable']} cells can be "
                f"read back from {r['column']}"
            )
        if len(self.true_fk):
            below = self.n_true_fk_below(_min_k(self.k))
            lines.append(
                f"  suppressed records whose true values match fewer than k released "
                f"records: {below:,}"
            )
        if self.prosecutor_before is not None and self.prosecutor_after is not None:
            b, a = (
                _prosecutor_figures(self.prosecutor_before),
                _prosecutor_figures(self.prosecutor_after),
            )
            lines.append(
                f"  prosecutor risk (intruder knows the true QIs): max {b['max']:.2f} -> "
                f"{a['max']:.2f}, mean {b['mean']:.3f} -> {a['mean']:.3f}"
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
            "n_rows": self.n_rows,
            "n_cells": self.n_cells,
            "n_rows_suppressed": self.n_rows_suppressed,
            "cells_per_qi": {str(k): int(v) for k, v in self.cells_per_qi.items()},
            "n_at_risk_before": self.n_at_risk_before,
            "n_at_risk_after": self.n_at_risk_after,
            "true_fk_below_k": self.n_true_fk_below(_min_k(self.k)),
            "linked_cells": dict(self.details.get("linked_cells", {})),
            "recoverable": [
                {k: (v if isinstance(v, int) else str(v)) for k, v in r.items()}
                for r in self.details.get("recoverable", [])
            ],
            "prosecutor_risk": None
            if self.prosecutor_before is None or self.prosecutor_after is None
            else {
                "before": _prosecutor_figures(self.prosecutor_before, _min_k(self.k)),
                "after": _prosecutor_figures(self.prosecutor_after, _min_k(self.k)),
            },
            "seconds": round(self.seconds, 4),
        }


def _prosecutor_figures(risk: pd.Series, k: int = 1) -> dict[str, Any]:
    """Maximum, mean and records above 1/k of a prosecutor risk."""
    v = risk.to_numpy(dtype=np.float64)
    return {
        "max": float(v.max()) if len(v) else 0.0,
        "mean": float(v.mean()) if len(v) else 0.0,
        "n_above_1_over_k": int((v > 1.0 / k + 1e-12).sum()),
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
    seed: SeedLike = None,
    progress: Callable[[int, int], None] | None = None,
    linked: Mapping[Hashable, Sequence[Hashable]] | None = None,
) -> SuppressionResult:
    """Blank as few quasi-identifier cells as possible so that no record has fk < k.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        The microdata. Never modified. A polars ``DataFrame`` or pyarrow
        ``Table`` goes through pandas and ``data`` comes back as its kind. A
        polars ``LazyFrame`` or DuckDB relation stays in its engine: the greedy
        runs on its distinct patterns, with the same cells as pandas on the
        same rows in the engine's order, and the result is a
        :class:`~microsdc.backends.suppression.LazySuppressionResult` (see
        :func:`~microsdc.backends.suppression.local_suppression_lazy` for the
        options it refuses).
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
    missing : {"wildcard", "probabilistic", "category"} or float in [0, 1], default "wildcard"
        The guarantee: how missing values count (see
        :func:`microsdc.sample_frequencies` and the table in the Notes). The
        result reaches k under this policy. ``"conservative"`` is refused: k - 1
        entirely blank records satisfy it for every record.
    method : {"greedy", "exact", "random"}, default "greedy"
        ``"exact"`` solves an integer program (small instances, wildcard policy,
        no ``combs``) to measure the greedy's distance to the optimum.
        ``"random"`` is the kanonymity baseline
        (:func:`microsdc.suppression.min_missingness_max_deid` with its
        defaults): the same share of random blanks in every QI, many more
        cells; it takes no ``importance``, ``combs``, ``strata`` or
        ``subject_id``, and uses ``seed``.
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
        Wall-clock seconds for ``method="exact"`` (per stratum, model building
        and solving). The solver runs in its own process, killed 1 s + 10 %
        after the limit if it has not answered (HiGHS can overrun its own).
        Without a proof of optimality the result is the cheapest of the
        solver's best solution, the greedy's, and the k - 1 cheapest records
        blanked entirely (``details["solution"]`` says which, with a
        ``PerformanceWarning``): it never costs more than the greedy, nor than
        (k - 1) entirely blanked records.
    seed : int, numpy.random.Generator or None, default None
        Randomness of ``method="random"`` (unused by the other methods).
    progress : callable, optional
        ``progress(processed, total)`` is called while the greedy runs
        (about five times a second, from a helper thread, and once at the end
        of each pass): ``processed`` of the ``total`` records at risk at the
        start of the pass (of the stratum) have been handled, so at most
        ``total - processed`` are still at risk. Not called by the exact and
        random methods or with ``subject_id``.
    linked : dict, optional
        Linked ("ghost") variables: ``{key variable: [columns]}``. Each listed
        column (not a QI) is blanked in every record where its key variable
        was blanked, so that it cannot give the value back (``education-num``
        for ``education``, ``relationship`` for ``sex``). These cells are
        counted in ``details["linked_cells"]``, not in ``cells_per_qi``.

    Returns
    -------
    SuppressionResult
        (a ``LazySuppressionResult`` for a lazy frame)

    Raises
    ------
    InvalidParameterError
        For a bad ``k``, ``combs``, ``method``, ``missing`` (``"conservative"``
        included), ``importance`` (unknown columns, not covering the QIs,
        non-positive weights), ``linked`` (keys that are not QIs, columns that
        are QIs), or k larger than the number of records.
    ColumnNotFoundError
        For unknown QI, strata, subject or linked columns.
    DataValidationError
        For duplicate column names, or missing values in a strata or subject
        column.

    Warns
    -----
    DisclosureRiskWarning
        When another column of ``df`` gives back blanked values (see
        :func:`microsdc.risk.linked.recoverable_cells`: 99 % of the released
        records that share the record's value of that column show the blanked
        value, and at least 10 would not if the two were unrelated), naming
        each (key variable, column) pair. Pass the column in ``linked``,
        recode it, or leave it out of the release.

    Notes
    -----
    Three guarantees, by what they protect against (spec section 2):

    +-------------------+--------------------------------+--------------------------------+
    | ``missing``       | a released record is safe when | protects against / not against |
    +===================+================================+================================+
    | ``wildcard``      | >= k records are compatible    | an intruder matching on the    |
    |                   | with it, a blank matching any  | values shown; k - 1 blank      |
    |                   | value (sdcMicro, kanonymity)   | records "protect" everyone     |
    +-------------------+--------------------------------+--------------------------------+
    | ``probabilistic`` | as wildcard, but another       | the same, without the blank-   |
    |                   | record's blank matches value v | record loophole; someone who   |
    |                   | only with weight p(v), its     | knows every QI may still find  |
    |                   | share in the released data     | fewer than k exact matches     |
    +-------------------+--------------------------------+--------------------------------+
    | ``category``      | >= k released records carry    | an intruder who knows every QI |
    |                   | exactly its QI tuple, blanks   | of the person; costs the most  |
    |                   | included (ARX)                 | cells                          |
    +-------------------+--------------------------------+--------------------------------+

    Whatever the guarantee, the result reports the prosecutor risk before and
    after (:func:`microsdc.risk.prosecutor_risk`): the chance that someone who
    knows a person's true QIs picks the person's released record.

    Under ``"category"`` (a single k on all QIs) records at risk are blanked in
    groups: for every set of columns, cheapest first, the records at risk that
    agree once those columns are blank are released together when they make,
    with the released records already carrying that tuple, a class of k;
    groups short of k by fewer records than they have are completed with
    surplus members of released classes (:mod:`microsdc.suppression._category`).
    Under ``"probabilistic"`` each pass counts exactly with the current shares,
    then takes the distinct patterns at risk in ascending fk with counts
    updated after every blank: a pattern that has reached k meanwhile is
    skipped, the others get the cheapest set of their cells that brings them
    to k; passes repeat until a full count finds none at risk
    (:mod:`microsdc.suppression._probabilistic`).

    For the wildcard and alpha policies: minimum-suppression k-anonymity is
    NP-hard (Meyerson & Williams 2004). The greedy works on the distinct QI
    patterns, each standing for its records: identical records get the same
    blanks, and the cost follows the number of patterns, not of records. It
    processes the patterns at risk in ascending fk (among equal fk, those with
    fewer observed cells first), skips those that became safe meanwhile, and
    blanks for each the cheapest set of its cells (by ``importance``) that
    brings it to k; among the sets with as few cells, it prefers the one whose
    new pattern matches the most records still waiting (each weighted by its
    deficit k - fk). With wildcards the records compatible with a pattern are an
    intersection of bit sets, one per (column, value), so every candidate is
    counted exactly; otherwise counts are kept per (missingness mask, column
    set) in hash tables. Both are updated incrementally when a pattern changes.
    With wildcards a final pass gives back every blanked cell whose value can be
    restored without any record falling below k, then replaces a pattern's
    blanked cells by a cheaper set where that keeps every record at k. A full
    recount is done once at the end, and the loop resumes for any record still
    at risk (under ``"category"``, alpha < 1 and ``"conservative"`` blanking one
    record can lower another's count). A record for which no subset reaches k
    has all its QI cells blanked; under ``"category"``/``"conservative"`` more
    records are then blanked entirely until the entirely-missing records number
    k. With wildcards (the default) blanking never lowers any count, so records
    already safe stay safe.

    Under alpha < 1 a blank does lower counts: the blanked record now counts
    only alpha for the complete records it matched, so blanks can cascade (with
    alpha = 0 on skewed data, far beyond what is needed). A class of k identical
    released tuples counts 1 per member under every alpha, so the
    ``"category"`` solution satisfies the alpha guarantee too: it is computed
    as well, re-checked with the alpha count, and released instead of the
    greedy's when it costs less (``details["solution"]``). The result thus
    never blanks more cells than ``missing="category"`` on the same data (with
    a dict ``importance``: never costs more). With alpha = 0 (and no ``combs``)
    both solutions first give back blanked cells, the most important column
    first: the records of one pattern that would take back the same value
    move together when their new pattern and the one they leave keep fk >= k
    (at alpha = 0 nothing else changes; a full count checks the result). A
    lazy frame runs the greedy only.

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
    sdcMicro ``createSdcObj(ghostVars=)`` for linked variables.
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
    if not isinstance(df, pd.DataFrame):
        args = dict(locals())
        from microsdc.backends import detect_backend

        if detect_backend(df, _FUNC).lazy:  # the engine groups and joins, the greedy on patterns
            from microsdc.backends.suppression import local_suppression_lazy

            return local_suppression_lazy(**args)
        return call_in_memory(local_suppression, args)  # polars or pyarrow, in memory
    t0 = time.perf_counter()
    check_frame(df, "df", _FUNC)
    checked = check_call(
        df, qi, k, importance, combs, strata, missing, method, time_limit, linked, subject_id
    )
    policy, method, cols, jobs_spec, k_report, imp, strata_cols, ghosts = checked
    if method == "random":
        res = _random_baseline(
            df, cols, k, importance, combs, strata, subject_id, missing, missing_values, seed, t0
        )
        return _finish(df, res, ghosts, missing_values)
    if method == "exact" and (policy.kind != "wildcard" or combs is not None):
        raise InvalidParameterError(
            f"method='exact' of {_FUNC} supports missing='wildcard' without 'combs' only."
        )

    if subject_id is not None:
        from microsdc.longitudinal import suppress_subjects

        res = suppress_subjects(
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
        return _finish(df, res, ghosts, missing_values)

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

    from microsdc.suppression._engine import (
        category_if_cheaper,
        category_reach_k,
        fk_of,
        reach_k,
        risk_mask,
    )

    fk_before = np.zeros(n)
    fk_after = np.zeros(n)
    risk_before = np.zeros(n, dtype=bool)
    risk_after = np.zeros(n, dtype=bool)
    single = len(jobs) == 1 and len(jobs[0][0]) == m
    exact_info: list[dict[str, Any]] = []
    alpha_sources: set[str] = set()
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

                greedy = sub.copy()
                reach_k(greedy, ncat, jobs, costs, policy, fk_start=fkb)
                info = exact_suppress_codes(
                    sub, ncat, jobs_spec[0][1], costs.weight, time_limit, greedy=greedy
                )
                exact_info.append(info)
                fka = fk_of(sub, ncat, policy)
            elif policy.kind == "probabilistic":
                from microsdc.suppression._probabilistic import probabilistic_reach_k

                probabilistic_reach_k(sub, ncat, jobs, costs, progress=progress)
                fka = fk_of(sub, ncat, policy)
            elif policy.kind == "category":
                done = category_reach_k(
                    sub, ncat, jobs, costs, fk_start=fkb if single else None, progress=progress
                )
                fka = done if done is not None else fk_of(sub, ncat, policy)
            else:
                done = reach_k(
                    sub,
                    ncat,
                    jobs,
                    costs,
                    policy,
                    fk_start=fkb if single else None,
                    progress=progress,
                )
                fka = done if done is not None else fk_of(sub, ncat, policy)
                if policy.kind == "alpha":
                    improve = _alpha0_improver(policy, single, ncat, jobs[0][1], costs)
                    if improve is not None and improve(codes0[rows], sub):
                        fka = fk_of(sub, ncat, policy)
                    took = category_if_cheaper(
                        codes0[rows], sub, ncat, jobs, costs, policy, improve
                    )
                    alpha_sources.add("category" if took else "greedy")
                    if took:
                        fka = fk_of(sub, ncat, policy)
            codes[rows] = sub
        fk_after[rows] = fka
        risk_after[rows] = fka < jobs[0][1] if single else risk_mask(sub, ncat, policy, jobs)
    blank = (codes < 0) & (codes0 >= 0)
    data = _blank_frame(df, cols, blank)
    true_fk = _true_fk(codes0, codes, blank, groups, ncat, df.index)
    pros = _prosecutor(codes0, codes, groups, ncat, bool(risk_before.any()))
    res = _result(
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
        _exact_details(exact_info) if method == "exact" else _alpha_details(alpha_sources),
        (
            pd.Series(pros[0], index=df.index, name="prosecutor_risk"),
            pd.Series(pros[1], index=df.index, name="prosecutor_risk"),
        ),
    )
    return _finish(df, res, ghosts, missing_values)


def _check_linked(
    linked: Any, cols: list[Hashable], df: pd.DataFrame, reserved: list[Any], func: str
) -> dict[Hashable, list[Hashable]]:
    """``linked`` as ``{linked column: [key variables]}`` after checking it."""
    if linked is None:
        return {}
    if not isinstance(linked, Mapping):
        raise param_error(
            "linked", func, "a dict {key variable: [linked columns]}", type(linked).__name__
        )
    out: dict[Hashable, list[Hashable]] = {}
    for key, columns in linked.items():
        if key not in set(cols):
            raise InvalidParameterError(
                f"The 'linked' parameter of {func} names {key!r}, which is not a "
                "quasi-identifier; its keys are the key variables whose blanks are copied."
            )
        names = check_columns(df, columns, "linked", func, allow_empty=True)
        for name in names:
            if name in set(cols) or name in set(reserved):
                what = "a quasi-identifier" if name in set(cols) else "a strata or subject column"
                raise InvalidParameterError(
                    f"The 'linked' parameter of {func} links {name!r} to {key!r}, but "
                    f"{name!r} is {what}."
                )
            out.setdefault(name, []).append(key)
    return out


def _finish(
    df: pd.DataFrame,
    res: SuppressionResult,
    ghosts: dict[Hashable, list[Hashable]],
    missing_values: MissingValues,
) -> SuppressionResult:
    """Blank the linked columns where their key variable was blanked; warn about read-backs."""
    from dataclasses import replace

    from microsdc.encode import _missing_values_for, missing_mask
    from microsdc.risk.linked import warn_recoverable
    from microsdc.suppression._frame import blank_cells

    data = res.data
    details = dict(res.details)
    if ghosts:
        blanked: dict[Hashable, np.ndarray] = {}
        for key in {k for keys in ghosts.values() for k in keys}:
            mv = _missing_values_for(missing_values, key)
            blanked[key] = missing_mask(data[key], mv) & ~missing_mask(df[key], mv)
        names = list(ghosts)
        blank = np.zeros((len(df), len(names)), dtype=bool)
        for j, name in enumerate(names):
            for key in ghosts[name]:
                blank[:, j] |= blanked[key]
            blank[:, j] &= ~missing_mask(data[name], _missing_values_for(missing_values, name))
        data = blank_cells(data, names, blank)
        details["linked_cells"] = {str(n): int(blank[:, j].sum()) for j, n in enumerate(names)}
    found = warn_recoverable(df, data, res.qi, missing_values=missing_values, stacklevel=3)
    details["recoverable"] = found.to_dict("records")
    return replace(res, data=data, details=details)


def _random_baseline(
    df: pd.DataFrame,
    cols: list[Hashable],
    k: Any,
    importance: Any,
    combs: Any,
    strata: Any,
    subject_id: Any,
    missing: MissingPolicy,
    missing_values: MissingValues,
    seed: SeedLike,
    t0: float,
) -> SuppressionResult:
    """``method="random"``: the kanonymity baseline wrapped as a :class:`SuppressionResult`."""
    from microsdc.suppression._engine import fk_of
    from microsdc.suppression.random_missingness import random_missingness_codes

    given = [
        name
        for name, value in (
            ("importance", importance),
            ("combs", combs),
            ("strata", strata),
            ("subject_id", subject_id),
        )
        if value is not None
    ]
    if given:
        raise InvalidParameterError(
            f"method='random' of {_FUNC} takes no {', '.join(repr(g) for g in given)} "
            "(it blanks the same share of every quasi-identifier at random)."
        )
    kk = check_int(k, "k", _FUNC, min_value=1)
    search = random_missingness_codes(
        df, cols, kk, seed=seed, missing=missing, missing_values=missing_values
    )
    codes0, codes, ncat, policy = (
        search.codes_before,
        search.codes,
        search.n_categories,
        search.policy,
    )
    blank = search.blank
    data = _blank_frame(df, cols, blank)
    fk_before = fk_of(codes0, ncat, policy)
    fk_after = fk_of(codes, ncat, policy)
    groups = [np.arange(len(df))]
    result = _result(
        df,
        data,
        cols,
        kk,
        policy,
        "random",
        blank,
        fk_before,
        fk_after,
        _true_fk(codes0, codes, blank, groups, ncat, df.index),
        int(np.count_nonzero(fk_before < kk)),
        int(np.count_nonzero(fk_after < kk)),
        None,
        time.perf_counter() - t0,
    )
    result.details["percent_per_qi"] = search.percent
    return result


def _exact_details(infos: list[dict[str, Any]]) -> dict[str, Any]:
    """What the exact method used, over the strata: ``solution`` and per-stratum figures."""
    sources = {i["source"] for i in infos}
    return {
        "solution": sources.pop() if len(sources) == 1 else ("mixed" if sources else "solver"),
        "optimal": all(i["optimal"] for i in infos),
        "strata": infos,
    }


def _alpha0_improver(
    policy: Policy, single: bool, ncat: np.ndarray, k: int, costs: Any
) -> Callable[[np.ndarray, np.ndarray], object] | None:
    """Under alpha = 0 on all QIs at once: the pass that gives back unneeded blanks."""
    from microsdc.suppression._category import category_fits

    if policy.alpha != 0.0 or not single or not category_fits(ncat):
        return None
    from microsdc.suppression._alpha0 import restore_alpha0_checked

    def improve(original: np.ndarray, codes: np.ndarray) -> int:
        return restore_alpha0_checked(original, codes, ncat, k, costs.weight, policy)

    return improve


def _alpha_details(sources: set[str]) -> dict[str, Any]:
    """Which solution the alpha greedy released: ``greedy``, ``category`` or ``mixed``."""
    if not sources:
        return {}
    return {"solution": sources.pop() if len(sources) == 1 else "mixed"}


def _prosecutor(
    codes0: np.ndarray,
    codes: np.ndarray,
    groups: list[np.ndarray],
    ncat: np.ndarray,
    changed: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Prosecutor risk before and after, per stratum."""
    from microsdc.risk.prosecutor import prosecutor_from_codes

    n = len(codes0)
    if len(groups) == 1 and np.array_equal(groups[0], np.arange(n)):  # no copies of the codes
        before = prosecutor_from_codes(codes0, codes0, ncat)
        return before, (prosecutor_from_codes(codes0, codes, ncat) if changed else before)
    before = np.zeros(n)
    after = np.zeros(n)
    for rows in groups:
        if len(rows) == 0:
            continue
        before[rows] = prosecutor_from_codes(codes0[rows], codes0[rows], ncat)
        after[rows] = (
            prosecutor_from_codes(codes0[rows], codes[rows], ncat) if changed else before[rows]
        )
    return before, after


def check_call(
    df: pd.DataFrame,
    qi: Any,
    k: Any,
    importance: Any,
    combs: Any,
    strata: Any,
    missing: Any,
    method: Any,
    time_limit: Any,
    linked: Any,
    subject_id: Any,
    *,
    values: bool = True,
) -> tuple[Policy, str, list[Hashable], Any, Any, Any, list[Hashable], Any]:
    """The parameter checks of :func:`local_suppression`, in their order: policy,
    method, key variables, k and combs, importance, strata, time limit, linked
    columns. With ``values=False`` (an empty frame standing for a lazy frame's
    schema) the strata are not checked for missing values.

    Returns the policy, method, key variables, k per subset size, k as reported,
    the importance, the strata columns and the linked columns.
    """
    policy = parse_policy(missing, _FUNC, suppression=True)
    check_guarantee(policy, _FUNC)
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
        if values:
            _no_missing(df, c, "stratum", _FUNC)
    if isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real) or time_limit <= 0:
        raise param_error("time_limit", _FUNC, "a real number > 0", time_limit)
    ghosts = _check_linked(linked, cols, df, [*strata_cols, subject_id], _FUNC)
    return policy, method, cols, jobs_spec, k_report, imp, strata_cols, ghosts


def check_guarantee(policy: Policy, func: str) -> None:
    """Refuse a policy that blank records can satisfy as the target of suppression."""
    if policy.kind == "conservative":
        raise InvalidParameterError(
            f"The 'missing' parameter of {func} cannot be 'conservative': k - 1 entirely "
            "blank records satisfy it for every record, so it guarantees nothing. It remains "
            "a measure in sample_frequencies. Use 'category' (every released record in a "
            "class of >= k identical QI tuples) or 'probabilistic' (other records' blanks "
            "count with the share of the value)."
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


def _true_fk(
    codes0: np.ndarray,
    codes: np.ndarray,
    blank: np.ndarray,
    groups: list[np.ndarray],
    ncat: np.ndarray,
    index: pd.Index,
) -> pd.Series:
    from microsdc.suppression._engine import wildcard_support_of

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
    details: dict[str, Any] | None = None,
    prosecutor: tuple[pd.Series, pd.Series] | None = None,
) -> SuppressionResult:
    per_qi = pd.Series(blank.sum(axis=0).astype(np.int64), index=pd.Index(cols, dtype=object))
    per_qi.name = "cells"
    per_row = pd.Series(blank.sum(axis=1).astype(np.int64), index=df.index, name="cells")
    dtype: Any = "float64" if policy.fractional else "int64"
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
        details=details or {},
        prosecutor_before=None if prosecutor is None else prosecutor[0],
        prosecutor_after=None if prosecutor is None else prosecutor[1],
    )
