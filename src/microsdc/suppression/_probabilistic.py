"""Local suppression under missing="probabilistic".

Under this policy another record's blank matches a value only with the
value's share p_c(v) among the observed values of the released data, so the
shares change as cells are blanked, and blanking a record can lower the count
of records that matched it. The loop therefore works in passes: each pass
counts fk exactly on the current data (shares recomputed), then a greedy over
the distinct patterns at risk, in ascending fk, updates the counts after
every blank (with the shares of the pass's start), skips the patterns that
have reached k meanwhile and gives each remaining one the cheapest set of its
cells (by importance) that brings it to k. A pattern for which no set does is
blanked entirely (it then matches every record with weight 1).
Passes repeat until a full count finds no record at risk; cells are only
ever added, so the loop ends.

A candidate that keeps a column, or a pair of columns, whose count alone is
already below k is skipped without being counted (a pattern counts no more
than any part of it): on data with many categories almost every record at
risk needs most of its cells blanked, and these bounds rule out the many
cheaper candidates at a few look-ups each instead of a walk over the data
(see :mod:`microsdc._kernels.greedy_prob`); when a row has failed a few
counts, the next ones are first made on the records compatible with it on
two columns or more. The cells blanked are the same. ``progress`` is
reported as for the other policies, in records at risk at the start of each
pass.
"""

from __future__ import annotations

import numpy as np

from microsdc._core.policy import Policy
from microsdc.exceptions import SDCError
from microsdc.suppression._engine import Costs, ProgressCallback

__all__ = ["probabilistic_reach_k", "probabilistic_suppress"]

_POLICY = Policy("probabilistic")

#: The greedy weighs the candidates of this many classes (fewest cells first) against each
#: other by the support they give to the patterns still waiting; beyond them it takes the
#: first candidate that reaches k. Weighing the first class saved 0.6 % of the cells over
#: S1, S2, T1, T2 (k = 3, 5) for about 40 % more time on S2: off by default.
_TIE_CLASSES = 0
#: Skip the candidates that a column or a pair of columns they keep rules out (the counts of
#: single columns and pairs bound the count of any pattern keeping them): same cells, and on
#: wide data with many categories (10 QIs of 500 to 5,000 values, 5,000 records, k = 3)
#: 0.8 s instead of 104 s. Off only to check that the cells do not change.
_BOUNDS = True
#: The pairs are tallied when they can have at most this many distinct values, summed over
#: the pairs of columns, each at most the number of records (a hash table of 16 bytes a slot
#: at load <= 1/2, up to twice as many keys once rows have moved: 512 MB at most); above it
#: only the single columns bound the counts.
_PAIR_MAX_ENTRIES = 1 << 23


def probabilistic_reach_k(
    codes: np.ndarray,
    n_categories: np.ndarray,
    jobs: list[tuple[tuple[int, ...], int]],
    costs: Costs,
    progress: ProgressCallback | None = None,
) -> None:
    """Run :func:`probabilistic_suppress` on every job (column subset, k) until all hold.

    ``progress(processed, total)`` is called as by the other policies while each
    greedy pass runs (see :data:`microsdc.suppression._engine.ProgressCallback`).
    """
    from microsdc.suppression._engine import candidate_subsets, fk_of

    n, m = codes.shape
    for _ in range(n * m + 2):
        all_ok = True
        for cols, k in jobs:
            cl = list(cols)
            sub = np.ascontiguousarray(codes[:, cl])
            nc = np.asarray(n_categories[cl], dtype=np.int64)
            if (np.asarray(fk_of(sub, nc, _POLICY)) < k - 1e-9).any():
                all_ok = False
                probabilistic_suppress(
                    sub, nc, k, *candidate_subsets(costs.subset(cl)), progress=progress
                )
                codes[:, cl] = sub
        if all_ok:
            return
    raise SDCError("Local suppression under 'probabilistic' did not converge; please report this.")


def _unit_fk(
    units: np.ndarray, n_categories: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Probabilistic fk of each distinct pattern, each standing for ``counts`` records, and
    the shares of the records (shape (m, max categories), the missing slot dropped)."""
    from microsdc._kernels import dense
    from microsdc.risk.kanonymity import share_weighted_support

    base = np.asarray(n_categories, dtype=np.int64) + 1
    shares = dense.value_shares(units, base, counts)
    fk = share_weighted_support(units, counts.astype(np.float64), n_categories, shares)
    return fk, np.ascontiguousarray(shares[:, 1:])


def _pair_entries(n: int, n_categories: np.ndarray) -> int:
    """Most distinct keys of the pair tally: over the pairs of columns, each at most n
    and the product of the numbers of categories (blank included).

    >>> _pair_entries(1000, np.array([1, 2, 100]))  # 2 x 3 + 2 x 101 + 3 x 101
    511
    """
    size = [int(c) + 1 for c in n_categories]
    return sum(min(n, a * b) for i, a in enumerate(size) for b in size[i + 1 :])


def probabilistic_suppress(
    codes: np.ndarray,
    n_categories: np.ndarray,
    k: int,
    candidates: np.ndarray,
    klass: np.ndarray | None = None,
    progress: ProgressCallback | None = None,
) -> np.ndarray:
    """Blank cells of ``codes`` (in place) until no record has probabilistic fk < k.

    Works on the distinct patterns (identical records get the same blanks).
    Each pass counts fk exactly on the current data, then runs the greedy
    kernel (:func:`microsdc._kernels.greedy_prob.greedy_probabilistic`)
    over the patterns at risk, in ascending fk: counts are updated after every
    blank with the shares of the pass's start, a pattern that has reached k
    meanwhile is skipped, and the others get the first of the cheapest
    candidate subsets that brings them to k (with ``_TIE_CLASSES`` > 0, among
    those of a class, the one giving the most support to the patterns still
    waiting, weighted by their deficit). Passes repeat until a full
    count finds no record at risk (blanks shift the shares a little, and
    blanking a record lowers the count of records of its former pattern);
    cells are only ever added, so the loop ends.

    Parameters
    ----------
    codes : ndarray of shape (n, m), int64, -1 = missing; modified in place
    n_categories : ndarray of shape (m,)
    k : int, 1 <= k <= n
    candidates : ndarray of shape (c,), int64
        Column subsets (bit masks) by increasing cost, as from
        :func:`microsdc.suppression._engine.candidate_subsets`.
    klass : ndarray of shape (c,), int64, optional
        Interchangeable candidates share a class (the second result of
        ``candidate_subsets``); by default the number of cells.
    progress : callable, optional
        ``progress(processed, total)`` in records at risk at the start of each
        pass (see :data:`microsdc.suppression._engine.ProgressCallback`).

    Returns
    -------
    ndarray of shape (n,), float64
        fk after suppression (from the final count).

    Raises
    ------
    SDCError
        If the loop does not end (never expected).
    """
    from microsdc._kernels.greedy_prob import greedy_probabilistic
    from microsdc._kernels.masktables import key_layout
    from microsdc.suppression._engine import (
        _records_progress,
        _with_progress,
        distinct_patterns,
        processing_order,
    )

    n, m = codes.shape
    nc = np.asarray(n_categories, dtype=np.int64)
    cand = np.ascontiguousarray(candidates, dtype=np.int64)
    if klass is None:
        klass = np.array([bin(int(b)).count("1") for b in cand], dtype=np.int64)
    klass = np.ascontiguousarray(klass, dtype=np.int64)
    word_of, mult, n_words = key_layout(nc)
    bounds = 0  # bit set, see greedy_probabilistic
    if _BOUNDS:
        bounds = 7 if _pair_entries(n, nc) <= _PAIR_MAX_ENTRIES else 5
    for _ in range(n * m + 2):
        units, inverse, counts, first = distinct_patterns(codes, nc)
        fk, shares = _unit_fk(units, nc, counts)
        at_risk = fk < k - 1e-9
        if not at_risk.any():
            return fk[inverse]
        order = processing_order(units, fk, at_risk, first)
        wait = (k - fk[order]) * counts[order]
        before = int(np.count_nonzero(units < 0))
        report = None
        if progress is not None:  # patterns handled -> records handled
            report = _records_progress(progress, np.concatenate([[0], np.cumsum(counts[order])]))
        args = (
            units,
            order,
            cand,
            klass,
            float(k),
            shares,
            word_of,
            mult,
            n_words,
            wait,
            counts,
            int(klass[0]) + _TIE_CLASSES - 1,
            bounds,
        )
        _with_progress(greedy_probabilistic, args, len(order), report)
        if int(np.count_nonzero(units < 0)) == before:  # pragma: no cover - never expected
            # the first pattern in order is at risk with the exact count the kernel starts from
            break
        codes[:] = units[inverse]
    raise SDCError("Local suppression under 'probabilistic' did not converge; please report this.")
