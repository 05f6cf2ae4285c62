"""The one core of local suppression, on code matrices: the same for a pandas frame
(one row per record) and an engine's distinct patterns (one row per pattern, each
standing for its records).

:func:`microsdc.local_suppression`'s one driver (:mod:`microsdc.suppression.driver`)
encodes the records of a pandas frame, or the patterns a lazy frame's engine grouped
(:mod:`microsdc.suppression.lazy`), and hands the codes to :func:`suppress_codes`,
which runs the strata, counts fk and the records at risk before and after, blanks
cells, and counts ``true_fk``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from microsdc._core.policy import Policy
from microsdc.exceptions import InvalidParameterError
from microsdc.suppression._engine import (
    Costs,
    category_if_cheaper,
    category_reach_k,
    fk_of,
    reach_k,
    risk_mask,
    wildcard_support_of,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "MAX_EXPANDED_RECORDS",
    "Outcome",
    "Pieces",
    "Solved",
    "category_on_patterns",
    "check_reachable",
    "suppress_codes",
    "true_fk_of",
]

_FUNC = "local_suppression"


@dataclass
class Outcome:
    """What the core did, one entry per row of the codes it was given.

    Attributes
    ----------
    codes : ndarray of shape (n, m), int64
        The codes after suppression (-1 = missing).
    fk_before, fk_after : ndarray of shape (n,)
        fk of each row, before and after.
    risk_before, risk_after : ndarray of shape (n,), bool
        Rows at risk (in at least one column subset), before and after.
    true_fk : ndarray of shape (n,), int64
        For rows with a blanked cell: the released records compatible (wildcard) with
        the row's original values; 0 elsewhere.
    exact : list of dict
        What the exact method used, per stratum (``method="exact"``).
    alpha_sources : set of str
        Which solution the alpha policy released per stratum ("greedy", "category").
    source : ndarray of shape (n,), int64, or None
        None when each row is the row of the codes given at its position. Under
        ``"category"`` on an engine's patterns (``records=``), when the solution for the
        records blanked the records of one pattern differently, the rows are *pieces*
        instead: the records of one pattern released alike, ``source[i]`` the row of the
        codes given that piece ``i`` comes from (ascending; the pieces of one pattern
        follow each other, fewest blanks first). Every figure above is then that of the
        piece's records.
    records : ndarray of shape (n,), float64, or None
        With ``source``: the records of each piece.
    """

    codes: np.ndarray
    fk_before: np.ndarray
    fk_after: np.ndarray
    risk_before: np.ndarray
    risk_after: np.ndarray
    true_fk: np.ndarray
    exact: list[dict[str, Any]] = field(default_factory=list)
    alpha_sources: set[str] = field(default_factory=set)
    source: np.ndarray | None = None
    records: np.ndarray | None = None


@dataclass(frozen=True)
class Solved:
    """What the one path solved, for a :class:`~microsdc.suppression.driver.Rows` to
    build its result from: the released ``data``, the ``rows`` as released (pieces
    when a pattern was split) with their ``records`` (None: one record each), the
    ``blank`` cells (rows x key variables), the core's ``out``, the checked parameters
    (``checked``), the ``combs`` listed, the ``seconds`` taken and the ``prosecutor``
    risk before and after."""

    data: Any
    rows: pd.DataFrame
    blank: np.ndarray
    out: Outcome
    records: np.ndarray | None
    checked: tuple[Any, ...]
    combs: list[int] | None
    seconds: float
    prosecutor: tuple[pd.Series, pd.Series]


@dataclass
class Pieces:
    """An engine's patterns as released: each piece is ``records`` records of pattern
    ``source`` (a row of the codes given), all released as ``codes``.

    Attributes
    ----------
    source : ndarray of shape (p,), int64
        The pattern of each piece, ascending; the pieces of one pattern are contiguous.
    records : ndarray of shape (p,), float64
        Records of each piece (together, those of its pattern).
    codes : ndarray of shape (p, m), int64
        The codes released for the piece's records (-1 = missing).
    """

    source: np.ndarray
    records: np.ndarray
    codes: np.ndarray

    @property
    def split(self) -> bool:
        """Whether some pattern's records are released in more than one way."""
        return len(self.source) > 0 and bool((np.diff(self.source) == 0).any())


def check_reachable(
    groups: Sequence[np.ndarray],
    records: np.ndarray | None,
    max_k: int,
    stratified: bool,
) -> None:
    """Refuse a k above the records of the data (or of a stratum): nothing reaches it.

    Raises
    ------
    InvalidParameterError
        Naming the records and k.
    """
    for rows in groups:
        n_rows = len(rows) if records is None else int(records[rows].sum())
        if 0 < n_rows < max_k:
            where = "the data have" if not stratified else "a stratum has"
            raise InvalidParameterError(
                f"The 'k' parameter of {_FUNC} must be at most the number of records: "
                f"{where} {n_rows} record(s) and k={max_k}; no suppression can reach it.",
                func=_FUNC,
                param="k",
            )


def _check_exact_size(groups: Sequence[np.ndarray]) -> None:
    """Refuse the exact method on a stratum larger than the solver takes."""
    from microsdc.suppression.exact import MAX_EXACT_ROWS

    biggest = max((len(g) for g in groups), default=0)
    if biggest > MAX_EXACT_ROWS:
        raise InvalidParameterError(
            f"method='exact' of {_FUNC} accepts at most {MAX_EXACT_ROWS} records per "
            f"stratum; got {biggest}. Use method='greedy'.",
            func=_FUNC,
            param="method",
        )


def suppress_codes(
    codes0: np.ndarray,
    ncat: np.ndarray,
    groups: Sequence[np.ndarray],
    jobs_spec: Sequence[tuple[int, int]],
    importance: Any,
    cols: list[Hashable],
    policy: Policy,
    *,
    stratified: bool,
    method: str = "greedy",
    records: np.ndarray | None = None,
    first: np.ndarray | None = None,
    time_limit: float = 60.0,
    progress: Callable[[int, int], None] | None = None,
    accept_rare_values: bool = False,
) -> Outcome:
    """Blank cells until every row of every stratum is safe, after the checks every
    route of :func:`local_suppression` makes on the codes (of the records, or of an
    engine's patterns with ``records``): k within the records of each stratum, no
    value too rare to protect, a stratum the exact solver takes.

    Parameters
    ----------
    codes0 : ndarray of shape (n, m), int64
        The key variables' codes, -1 = missing; not changed.
    ncat : ndarray of shape (m,)
        Categories per column.
    groups : sequence of ndarray
        The rows of each stratum.
    jobs_spec : sequence of (int, int)
        (subset size, k) pairs: every subset of that many columns must reach k.
    importance : as checked by :func:`~microsdc.suppression.params.check_call`
        The cost of blanking a cell of each column
        (:func:`~microsdc.suppression.params.costs_of`).
    cols : list
        The key variables' names, for the messages.
    policy : Policy
        How a missing value matches.
    stratified : bool
        Whether ``groups`` are strata (for the message of a k out of reach).
    method : {"greedy", "exact"}
        ``"exact"`` solves each stratum with HiGHS (one row per record).
    records : ndarray of shape (n,), optional
        Records each row stands for: an engine's distinct patterns. Record-level
        work (the exact method, ``"category"``, ``"probabilistic"``, the alpha
        improvements) needs one row per record and is skipped or refused upstream.
    first : ndarray of shape (n,), optional
        With ``records``: each pattern's first record, the greedy's order among ties.
    time_limit : float
        Seconds per stratum for the exact method.
    progress : callable, optional
        ``progress(processed, total)``.
    accept_rare_values : bool
        Blank the values fewer than k records hold instead of refusing them.

    Returns
    -------
    Outcome
        One row per row of ``codes0``; with ``records`` under ``"category"``, one row
        per piece when the solution for the records blanked the records of one pattern
        differently (``Outcome.source`` names each piece's pattern,
        :func:`category_on_patterns`).

    Raises
    ------
    InvalidParameterError
        For a k above the records of a stratum, or a stratum too large for
        ``method="exact"``.
    DataValidationError
        For a value fewer than k records hold (unless ``accept_rare_values``).
    """
    from microsdc.suppression.params import check_rare_values, costs_of

    check_reachable(groups, records, max(kk for _, kk in jobs_spec), stratified)
    min_k = min(kk for _, kk in jobs_spec)
    check_rare_values(codes0, cols, min_k, records, accept=accept_rare_values, func=_FUNC)
    if method == "exact":
        _check_exact_size(groups)
    costs = costs_of(importance, cols, ncat)
    per_record = records is None
    m = codes0.shape[1]
    jobs = [(sub, kk) for size, kk in jobs_spec for sub in combinations(range(m), size)]
    single = len(jobs) == 1 and len(jobs[0][0]) == m
    n = len(codes0)
    out = Outcome(
        codes=codes0.copy(),
        fk_before=np.zeros(n),
        fk_after=np.zeros(n),
        risk_before=np.zeros(n, dtype=bool),
        risk_after=np.zeros(n, dtype=bool),
        true_fk=np.zeros(n, dtype=np.int64),
    )
    split: dict[int, Pieces] = {}  # strata whose records' solution split patterns
    for g, rows in enumerate(groups):
        w = None if records is None else records[rows]
        sub = np.ascontiguousarray(out.codes[rows])
        fkb = fk_of(sub, ncat, policy, w)
        out.fk_before[rows] = fkb
        rb = fkb < jobs[0][1] if single else risk_mask(sub, ncat, policy, jobs, w)
        out.risk_before[rows] = rb
        fka = fkb
        if rb.any():
            if policy.kind == "category" and single and w is not None:
                pieces = _category_on_patterns(
                    sub, ncat, jobs, costs, policy, fkb, w,
                    None if first is None else first[rows], progress,
                )  # fmt: skip
                if pieces is not None:
                    split[g] = pieces  # counted on its pieces below
                    continue
                fka = fk_of(sub, ncat, policy, w)
            elif per_record:
                fka = _per_record(
                    codes0[rows],
                    sub,
                    ncat,
                    jobs,
                    jobs_spec,
                    costs,
                    policy,
                    method,
                    fkb if single else None,
                    time_limit,
                    progress,
                    out,
                )
            else:
                done = reach_k(
                    sub,
                    ncat,
                    jobs,
                    costs,
                    policy,
                    fk_start=fkb if single else None,
                    progress=progress,
                    records=w,
                    first=None if first is None else first[rows],
                )
                fka = done if done is not None else fk_of(sub, ncat, policy, w)
            out.codes[rows] = sub
            out.true_fk[rows] = true_fk_of(codes0[rows], sub, ncat, w)
        out.fk_after[rows] = fka
        out.risk_after[rows] = fka < jobs[0][1] if single else risk_mask(sub, ncat, policy, jobs, w)
    if split:
        assert records is not None
        return _over_pieces(out, codes0, ncat, groups, records, split, policy, jobs[0][1])
    return out


def _category_on_patterns(
    sub: np.ndarray,
    ncat: np.ndarray,
    jobs: list[tuple[tuple[int, ...], int]],
    costs: Costs,
    policy: Policy,
    fk_start: np.ndarray,
    records: np.ndarray,
    first: np.ndarray | None,
    progress: Callable[[int, int], None] | None,
) -> Pieces | None:
    """One stratum of an engine's patterns under ``"category"`` (one job on every key
    variable): the solution for the records (:func:`category_on_patterns`), in place on
    ``sub`` when every pattern's records come out alike. When it splits a pattern, the
    greedy on patterns runs too and the cheaper is released (the solution for the
    records on a tie): its pieces are returned, or the greedy's codes are put in
    ``sub`` and None returned. Without the solution for the records, the greedy."""
    pieces = category_on_patterns(sub, ncat, jobs[0][1], costs, records, first)
    if pieces is not None and not pieces.split:
        sub[:] = pieces.codes
        return None
    greedy = sub.copy()
    reach_k(
        greedy, ncat, jobs, costs, policy, fk_start=fk_start, progress=progress,
        records=records, first=first,
    )  # fmt: skip
    if pieces is not None and costs.of_release(
        (pieces.codes < 0) & (sub[pieces.source] >= 0), pieces.records
    ) <= costs.of_release((greedy < 0) & (sub >= 0), records):
        return pieces
    sub[:] = greedy
    return None


def _over_pieces(
    out: Outcome,
    codes0: np.ndarray,
    ncat: np.ndarray,
    groups: Sequence[np.ndarray],
    records: np.ndarray,
    split: dict[int, Pieces],
    policy: Policy,
    k: int,
) -> Outcome:
    """``out`` over pieces: the strata of ``split`` as their pieces, with fk after,
    risk after and ``true_fk`` counted on them (each piece standing for its records),
    every other pattern one piece; fk and risk before are those of the piece's pattern."""
    parts: list[tuple[np.ndarray, ...]] = []
    for g, rows in enumerate(groups):
        p = split.get(g)
        if p is None:
            parts.append(
                (rows, records[rows], out.codes[rows], out.fk_after[rows],
                 out.risk_after[rows], out.true_fk[rows])
            )  # fmt: skip
            continue
        src = np.asarray(rows)[p.source]
        fka = fk_of(p.codes, ncat, policy, p.records)
        true_fk = true_fk_of(codes0[src], p.codes, ncat, p.records)
        parts.append((src, p.records, p.codes, fka, fka < k, true_fk))
    source, n, codes, fka, risk, true_fk = (np.concatenate(c) for c in zip(*parts, strict=True))
    order = np.argsort(source, kind="stable")  # pattern order; a pattern's pieces in turn
    source = source[order].astype(np.int64)
    return Outcome(
        codes=np.ascontiguousarray(codes[order], dtype=np.int64),
        fk_before=out.fk_before[source],
        fk_after=fka[order].astype(out.fk_after.dtype),
        risk_before=out.risk_before[source],
        risk_after=risk[order],
        true_fk=true_fk[order].astype(np.int64),
        exact=out.exact,
        alpha_sources=out.alpha_sources,
        source=source,
        records=n[order].astype(np.float64),
    )


def _per_record(
    original: np.ndarray,
    sub: np.ndarray,
    ncat: np.ndarray,
    jobs: list[tuple[tuple[int, ...], int]],
    jobs_spec: Sequence[tuple[int, int]],
    costs: Costs,
    policy: Policy,
    method: str,
    fk_start: np.ndarray | None,
    time_limit: float,
    progress: Callable[[int, int], None] | None,
    out: Outcome,
) -> np.ndarray:
    """One stratum of one row per record (in place on ``sub``); fk after."""
    if method == "exact":
        from microsdc.suppression.exact import exact_suppress_codes

        greedy = sub.copy()
        reach_k(greedy, ncat, jobs, costs, policy, fk_start=fk_start)
        info = exact_suppress_codes(
            sub, ncat, jobs_spec[0][1], costs.weight, time_limit, greedy=greedy
        )
        out.exact.append(info)
        return fk_of(sub, ncat, policy)
    if policy.kind == "probabilistic":
        from microsdc.suppression._probabilistic import probabilistic_reach_k

        probabilistic_reach_k(sub, ncat, jobs, costs, progress=progress)
        return fk_of(sub, ncat, policy)
    if policy.kind == "category":
        total = int((fk_start < jobs[0][1]).sum()) if fk_start is not None else 0
        if progress is not None and total:  # the group-and-mask search reports no steps
            progress(0, total)
        done = category_reach_k(sub, ncat, jobs, costs, fk_start=fk_start, progress=progress)
        if progress is not None and total:
            progress(total, total)
        return done if done is not None else fk_of(sub, ncat, policy)
    done = reach_k(sub, ncat, jobs, costs, policy, fk_start=fk_start, progress=progress)
    fka = done if done is not None else fk_of(sub, ncat, policy)
    if policy.kind == "alpha":
        single = len(jobs) == 1 and len(jobs[0][0]) == sub.shape[1]
        improve = _alpha0_improver(policy, single, ncat, jobs[0][1], costs)
        if improve is not None and improve(original, sub):
            fka = fk_of(sub, ncat, policy)
        took = category_if_cheaper(original, sub, ncat, jobs, costs, policy, improve)
        out.alpha_sources.add("category" if took else "greedy")
        if took:
            fka = fk_of(sub, ncat, policy)
    return fka


#: Most records :func:`category_on_patterns` expands (about 48 bytes per record and column).
MAX_EXPANDED_RECORDS = 5_000_000


def category_on_patterns(
    codes: np.ndarray,
    ncat: np.ndarray,
    k: int,
    costs: Costs,
    records: np.ndarray,
    first: np.ndarray | None = None,
) -> Pieces | None:
    """Under ``"category"``: the group-and-mask algorithm the records get
    (:mod:`microsdc.suppression._category`), run on the patterns expanded to their
    records (``codes`` is not changed).

    The patterns are expanded in the order of their first record (``first``, then
    their codes; the codes alone without ``first``), so that the solution depends on
    the records and their order only, not on the order an engine lists the patterns
    in. The records of one pattern are interchangeable to the algorithm (same codes,
    same stratum), so its solution is given back as pieces: per pattern, its records
    grouped by the codes released for them, fewest blanked cells first (then by the
    released codes). When every pattern's records come out alike there is one piece
    per pattern, in order (``Pieces.split`` is False).

    Returns
    -------
    Pieces or None
        None when the solution for the records is not available: more records than
        :data:`MAX_EXPANDED_RECORDS`, no pattern, or tuples that do not fit one key
        (:func:`~microsdc.suppression._category.category_fits`); the greedy on
        patterns then runs instead.
    """
    from microsdc.suppression._category import category_fits, category_radix, category_suppress

    count = np.asarray(records, dtype=np.int64)
    total = int(count.sum())
    n = len(codes)
    if total > MAX_EXPANDED_RECORDS or not n or not category_fits(ncat):
        return None
    by = [codes[:, j] for j in range(codes.shape[1] - 1, -1, -1)]
    order = np.lexsort(by if first is None else [*by, np.asarray(first)])
    expanded = np.ascontiguousarray(np.repeat(codes[order], count[order], axis=0), dtype=np.int64)
    category_suppress(expanded, ncat, k, costs.weight)
    starts = np.r_[0, np.cumsum(count[order])[:-1]]
    low = np.minimum.reduceat(expanded, starts, axis=0)
    if np.array_equal(low, np.maximum.reduceat(expanded, starts, axis=0)):
        after = np.empty_like(low)
        after[order] = low
        return Pieces(np.arange(n, dtype=np.int64), count.astype(np.float64), after)
    pattern = np.repeat(order.astype(np.int64), count[order])  # of each expanded record
    key = (expanded + 1) @ category_radix(ncat)  # one int64 per released tuple
    by_piece = np.lexsort((key, (expanded < 0).sum(axis=1), pattern))
    pattern, key = pattern[by_piece], key[by_piece]
    head = np.flatnonzero(np.r_[True, (pattern[1:] != pattern[:-1]) | (key[1:] != key[:-1])])
    pieces = np.diff(np.r_[head, total]).astype(np.float64)
    return Pieces(pattern[head], pieces, np.ascontiguousarray(expanded[by_piece[head]]))


def _alpha0_improver(
    policy: Policy, single: bool, ncat: np.ndarray, k: int, costs: Costs
) -> Callable[[np.ndarray, np.ndarray], object] | None:
    """Under alpha = 0 on all QIs at once: the pass that gives back unneeded blanks."""
    from microsdc.suppression._category import category_fits

    if policy.alpha != 0.0 or not single or not category_fits(ncat):
        return None
    from microsdc.suppression._alpha0 import restore_alpha0_checked

    def improve(original: np.ndarray, codes: np.ndarray) -> int:
        return restore_alpha0_checked(original, codes, ncat, k, costs.weight, policy)

    return improve


def true_fk_of(
    original: np.ndarray, after: np.ndarray, ncat: np.ndarray, records: np.ndarray | None
) -> np.ndarray:
    """For the rows with a blanked cell: the released records compatible (wildcard)
    with their original values; 0 for the others."""
    out = np.zeros(len(original), dtype=np.int64)
    hit = np.flatnonzero(((after < 0) & (original >= 0)).any(axis=1))
    if len(hit):
        out[hit] = wildcard_support_of(after, original[hit], ncat, records)
    return out
