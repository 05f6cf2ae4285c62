"""Local suppression on integer codes: costs, candidate subsets, the loop that always reaches k.

Everything here works on an ``(n, m)`` int64 code matrix (-1 = missing) and
modifies it in place; :mod:`microsdc.suppression.local` wraps it for frames.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np

from microsdc._core.policy import Policy
from microsdc.exceptions import SDCError

__all__ = [
    "Costs",
    "ProgressCallback",
    "candidate_subsets",
    "category_if_cheaper",
    "category_reach_k",
    "distinct_patterns",
    "processing_order",
    "reach_k",
    "risk_mask",
    "wildcard_support_of",
]

#: ``progress(processed, total)``: ``processed`` of the ``total`` records at risk at the start
#: of the current greedy pass have been handled (records at risk left <= total - processed).
#: Called from a helper thread about five times a second while a pass runs, and once with
#: ``processed == total`` at its end.
ProgressCallback = Callable[[int, int], None]

#: Seconds between two progress reports.
PROGRESS_INTERVAL = 0.2

#: Largest number of candidate column subsets tried per record.
MAX_CANDIDATES = 4096
#: Largest bit-set matrix (bytes) of the wildcard greedy; above it the hash-table kernel is used.
BITSET_MAX_BYTES = 1 << 30
#: Passes of :func:`microsdc._kernels.greedy_bitset.improve_cells` after the greedy.
MAX_IMPROVE_PASSES = 4


@dataclass(frozen=True)
class Costs:
    """Cost of blanking a cell of each column.

    Attributes
    ----------
    weight : ndarray of shape (m,), float64, > 0
    ranked : bool
        True when the costs come from a ranking: the number of cells decides
        first and the ranking only breaks ties (``weight = 1 + eps_j``).
    """

    weight: np.ndarray
    ranked: bool

    def subset(self, cols: Sequence[int]) -> Costs:
        return Costs(self.weight[list(cols)], self.ranked)

    def of_release(
        self, blank: np.ndarray, records: np.ndarray | None = None
    ) -> tuple[float, float]:
        """What a release with the blanks ``blank`` (n x m, bool; ``records``: the
        records each row stands for) costs, as the greedy counts it: with ranked costs
        the cells, then the weighted total; with weights the weighted total. Summed per
        variable first, so that two releases with as many blanks in every variable cost
        exactly the same."""
        counted = blank if records is None else blank * np.asarray(records)[:, None]
        per_var = np.asarray(counted.sum(axis=0), dtype=np.float64)
        total = float(per_var @ np.asarray(self.weight, dtype=np.float64))
        return (float(per_var.sum()), total) if self.ranked else (total, 0.0)


def ranked_costs(rank: np.ndarray) -> Costs:
    """Costs from ranks, 0 = least important (blanked first).

    ``weight_j = 1 + (rank_j + 1) / (m (m + 1) / 2 + 1)``: the extra terms of
    any subset sum to less than 1, so fewer cells always cost less and, among
    subsets with as many cells, the less important columns are blanked.
    """
    m = len(rank)
    eps = (np.asarray(rank, dtype=np.float64) + 1.0) / (m * (m + 1) / 2 + 1)
    return Costs(1.0 + eps, True)


def candidate_subsets(costs: Costs) -> tuple[np.ndarray, np.ndarray]:
    """Non-empty column subsets (bit masks) by increasing cost, and their selection class.

    With more than 12 columns only the subsets with up to L cells are listed,
    L the largest size keeping the list within ``MAX_CANDIDATES``; the kernel
    blanks the whole row when none of them reaches k.

    Returns
    -------
    subsets : ndarray of shape (c,), int64
    klass : ndarray of shape (c,), int64
        Subsets of one class are interchangeable for the tie-break of the
        greedy: the same number of cells (ranked costs) or exactly the same
        cost (weights).
    """
    w = costs.weight
    m = len(w)
    max_size, total = 0, 0
    for size in range(1, m + 1):
        total += comb(m, size)
        if total > MAX_CANDIDATES and size > 1:
            break
        max_size = size
    subs: list[int] = []
    cost: list[float] = []
    sizes: list[int] = []
    for size in range(1, max_size + 1):
        for cols in combinations(range(m), size):
            subs.append(sum(1 << j for j in cols))
            cost.append(float(sum(w[j] for j in cols)))
            sizes.append(size)
    sub_arr = np.array(subs, dtype=np.int64)
    cost_arr = np.array(cost)
    size_arr = np.array(sizes, dtype=np.int64)
    order = np.lexsort((sub_arr, size_arr, cost_arr))
    sub_arr, cost_arr, size_arr = sub_arr[order], cost_arr[order], size_arr[order]
    if costs.ranked:
        klass = size_arr
    else:
        _, klass = np.unique(np.round(cost_arr, 12), return_inverse=True)
        klass = klass.astype(np.int64)
    return sub_arr, klass


def fk_of(
    codes: np.ndarray,
    n_categories: np.ndarray,
    policy: Policy,
    records: np.ndarray | None = None,
) -> np.ndarray:
    """Per-row fk under ``policy`` (a full count); with ``records``, each row stands
    for that many records (the distinct patterns an engine reports)."""
    from microsdc.risk.kanonymity import row_frequencies

    if codes.shape[0] == 0:
        return np.zeros(0)
    if records is None:
        return row_frequencies(codes, n_categories, policy=policy)[0]
    units, inverse, counts, _ = weighted_patterns(codes, n_categories, records)
    return fk_of_units(units, n_categories, policy, counts)[inverse]


def weighted_patterns(
    codes: np.ndarray,
    n_categories: np.ndarray,
    records: np.ndarray | None,
    first: np.ndarray | None = None,
    cost: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`distinct_patterns` of rows that each stand for ``records`` records
    (one each when None), their first positions ``first`` (the row's own by default).

    Returns the units, the inverse, the records per unit and the first position of
    each unit, as :func:`distinct_patterns` does.
    """
    units, inverse, counts, ufirst = distinct_patterns(codes, n_categories, cost)
    if records is None:
        return units, inverse, counts, ufirst
    counts = np.rint(np.bincount(inverse, weights=records, minlength=len(units))).astype(np.int64)
    if first is not None:
        ufirst = np.full(len(units), np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(ufirst, inverse, first)
    return units, inverse, counts, ufirst


def distinct_patterns(
    codes: np.ndarray, n_categories: np.ndarray, cost: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of a code matrix, with their multiplicities.

    The patterns are sorted by missingness mask, then by the column most
    costly to blank (the last one the greedy blanks), then the next, and so
    on: the records sharing values of the columns kept, and those missing on
    a column, are then contiguous, so the bit sets of the greedy have few
    non-zero words where it intersects them.

    Parameters
    ----------
    codes : ndarray of shape (n, m), integer, -1 = missing
    n_categories : ndarray of shape (m,)
    cost : ndarray of shape (m,), optional
        Cost of blanking a cell of each column; by default columns with fewer
        categories count as more costly (the default importance).

    Returns
    -------
    units : ndarray of shape (u, m), int64, C-ordered, the distinct rows
    inverse : ndarray of shape (n,), int64, ``units[inverse]`` equals ``codes``
    counts : ndarray of shape (u,), int64, rows per unit
    first : ndarray of shape (u,), int64, first row of each unit
    """
    import pandas as pd

    n, m = codes.shape
    if n == 0:
        z = np.zeros(0, dtype=np.int64)
        return np.zeros((0, m), dtype=np.int64), z, z, z
    radix = np.asarray(n_categories, dtype=np.int64) + 1
    if cost is None:
        order = np.lexsort((np.arange(m), radix))  # fewest categories first
    else:
        order = np.lexsort((np.arange(m), -np.asarray(cost, dtype=np.float64)))
    volume = float(2**m)
    for j in order:
        volume *= float(radix[j])
    if volume < 2.0**62:
        # the missingness mask first: the records missing on a column are then a few blocks
        key = np.zeros(n, dtype=np.int64)
        for j in range(m):
            key |= (codes[:, j] < 0).astype(np.int64) << j
        for j in order:
            key *= radix[j]
            key += codes[:, j] + 1
        inverse, uniq = pd.factorize(key, sort=True)
        inverse = np.asarray(inverse, dtype=np.int64)
        uniq = np.asarray(uniq, dtype=np.int64)
        units = np.empty((len(uniq), m), dtype=np.int64)
        for j in order[::-1]:
            units[:, j] = uniq % radix[j] - 1
            uniq = uniq // radix[j]
    else:
        mask = np.zeros(n, dtype=np.int64)
        for j in range(m):
            mask |= (codes[:, j] < 0).astype(np.int64) << j
        srt = np.column_stack([mask, np.asarray(codes, dtype=np.int64)[:, order]])
        uniq_s, inverse = np.unique(srt, axis=0, return_inverse=True)
        inverse = np.asarray(inverse, dtype=np.int64).reshape(-1)
        units = np.empty((len(uniq_s), m), dtype=np.int64)
        units[:, order] = uniq_s[:, 1:]
    counts = np.bincount(inverse, minlength=len(units)).astype(np.int64)
    first = np.empty(len(units), dtype=np.int64)
    first[inverse[::-1]] = np.arange(n - 1, -1, -1, dtype=np.int64)
    return np.ascontiguousarray(units), inverse, counts, first


def fk_of_units(
    units: np.ndarray, n_categories: np.ndarray, policy: Policy, counts: np.ndarray
) -> np.ndarray:
    """fk of each distinct pattern, counting each as ``counts`` records (see :func:`fk_of`)."""
    from microsdc.risk.kanonymity import frequencies_from_codes

    if units.shape[0] == 0:
        return np.zeros(0)
    if not (counts > 1).any():
        return fk_of(units, n_categories, policy)
    # each pattern stands for its records: fk counts records (the conservative minimum
    # too: over the completions, the least number of records)
    res = frequencies_from_codes(units, n_categories, policy=policy, counts=counts)
    if policy.kind == "alpha" and policy.alpha < 1:
        return np.asarray(res.row_fk, dtype=np.float64)
    return np.rint(res.row_fk).astype(np.int64)


def risk_mask(
    codes: np.ndarray,
    n_categories: np.ndarray,
    policy: Policy,
    jobs: Sequence[tuple[tuple[int, ...], int]],
    records: np.ndarray | None = None,
) -> np.ndarray:
    """Rows at risk in at least one job (column subset, k); ``records`` as in :func:`fk_of`."""
    risk = np.zeros(codes.shape[0], dtype=bool)
    for cols, k in jobs:
        sub = np.ascontiguousarray(codes[:, list(cols)])
        risk |= fk_of(sub, n_categories[list(cols)], policy, records) < k
    return risk


def reach_k(
    codes: np.ndarray,
    n_categories: np.ndarray,
    jobs: Sequence[tuple[tuple[int, ...], int]],
    costs: Costs,
    policy: Policy,
    *,
    select: int = 1,
    fk_start: np.ndarray | None = None,
    progress: ProgressCallback | None = None,
    records: np.ndarray | None = None,
    first: np.ndarray | None = None,
) -> np.ndarray | None:
    """Blank cells of ``codes`` (in place) until every job (column subset, k) holds.

    Each job works on the distinct patterns of its columns, each standing for
    its records (one unit of the greedy: identical records get the same
    blanks, and the cost follows the number of patterns, not of records). It
    runs the greedy and re-counts once at the end; the jobs are repeated until
    all of them hold together (blanking for one subset can, under some
    policies, lower counts for another). Records the greedy cannot fix because
    they are already entirely missing (``"category"``, ``"conservative"``) are
    handled by :func:`_grow_missing_group`.

    The units waiting to be processed weigh their deficit ``k - fk`` times
    their number of records in the greedy's tie-break (see ``greedy_suppress``).

    Parameters
    ----------
    fk_start : ndarray of shape (n,), optional
        fk of the single job on ``codes`` as given, when the caller has it.
    progress : callable, optional
        ``progress(processed, total)``, see :data:`ProgressCallback`.
    records : ndarray of shape (n,), optional
        Records each row stands for (an engine's distinct patterns); one each by
        default.
    first : ndarray of shape (n,), int, optional
        Position of each row's first record in the data (the greedy's order among
        ties); the row's own position by default.

    Returns
    -------
    ndarray of shape (n,) or None
        With a single job, fk after suppression (from the final check);
        otherwise None.

    Raises
    ------
    SDCError
        If no progress can be made (never expected: every round blanks at least
        one cell, and blanking every cell of every record reaches any k <= n).
    """
    n = codes.shape[0]
    if n == 0:
        return None
    max_rounds = (n if records is None else int(records.sum())) * codes.shape[1] + 2
    single = len(jobs) == 1
    known = fk_start if single else None
    for _ in range(max_rounds):
        all_ok = True
        for cols, k in jobs:
            cl = list(cols)
            sub = np.ascontiguousarray(codes[:, cl])
            nc = np.asarray(n_categories[cl], dtype=np.int64)
            sub_costs = costs.subset(cl)
            units, inverse, counts, ufirst = weighted_patterns(
                sub, nc, records, first, sub_costs.weight
            )
            known_units = None
            if known is not None:
                known_units = np.zeros(len(units), dtype=known.dtype)
                known_units[inverse] = known  # one fk per pattern
            known = None
            changed, fk_units = _reach_k_units(
                units,
                counts,
                ufirst,
                nc,
                k,
                sub_costs,
                policy,
                select,
                known_units,
                single,
                progress,
            )
            if changed:
                all_ok = False
                codes[:, cl] = units[inverse]
            if single:
                return fk_units[inverse]
        if all_ok:
            return None
    raise SDCError("Local suppression did not converge; please report this.")


def _with_progress(
    kernel: Callable[..., object],
    args: tuple[object, ...],
    total: int,
    progress: ProgressCallback | None,
) -> None:
    """Run a greedy kernel; with ``progress``, report the rows it has handled meanwhile.

    The kernels run without the GIL and write the index of the row they are at
    into a one-element array, which a helper thread reads and reports.
    """
    if progress is None:
        kernel(*args)
        return
    counter = np.zeros(1, dtype=np.int64)
    done = threading.Event()

    def report() -> None:
        while not done.wait(PROGRESS_INTERVAL):
            progress(int(counter[0]), total)

    progress(0, total)
    watcher = threading.Thread(target=report, name="microsdc-progress", daemon=True)
    watcher.start()
    try:
        kernel(*args, counter)
    finally:
        done.set()
        watcher.join()
    progress(total, total)


def _reach_k_units(
    units: np.ndarray,
    counts: np.ndarray,
    first: np.ndarray,
    nc: np.ndarray,
    k: int,
    costs: Costs,
    policy: Policy,
    select: int,
    fk_start: np.ndarray | None,
    restore: bool,
    progress: ProgressCallback | None = None,
    background: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[bool, np.ndarray]:
    """One job on distinct patterns: blank cells of ``units`` (in place) until every unit,
    counted ``counts`` times, reaches k; with ``restore`` (wildcard only), give back the
    cells not needed. Returns (anything blanked, fk of each unit).

    ``background`` (wildcard only): (wildcard sums over a combined key, radix of
    each column) of the records that are not among ``units`` and never change;
    they count in every fk (see ``greedy_suppress``). The hash-table kernel is
    used then, and nothing is given back."""
    u, m = units.shape
    cand, klass = candidate_subsets(costs)
    use_bitset, kernel, middle, tail = _greedy_kernel(nc, policy, select, u, background)
    changed = False
    original = units.copy()
    first_order: np.ndarray | None = None
    fk = fk_start
    for _ in range(int(counts.sum()) * m + 2):
        if fk is None:
            fk = _fk_with_background(units, nc, policy, counts, background)
        at_risk = fk < k
        if not at_risk.any():
            break
        changed = True
        order = processing_order(units, fk, at_risk, first)
        if first_order is None:
            first_order = order
        deficit = np.maximum(np.ceil(k - fk[order]), 1).astype(np.int64) * counts[order]
        before = int(np.count_nonzero(units < 0))
        report = _units_progress(progress, counts, order)
        args = (units, nc, order, cand, klass, float(k), *middle, deficit, counts, *tail)
        _with_progress(kernel, args, len(order), report)
        _blank_missing_or_fail(units, before, fk, k, policy, counts)
        fk = None
    else:
        raise SDCError("Local suppression did not converge; please report this.")
    if changed and restore and use_bitset:
        assert first_order is not None
        fk = _give_back(units, original, nc, k, fk, first_order, counts, cand, costs.weight)
    return changed, fk


def _greedy_kernel(
    nc: np.ndarray,
    policy: Policy,
    select: int,
    n_units: int,
    background: tuple[np.ndarray, np.ndarray] | None,
) -> tuple[bool, Callable[..., object], tuple[object, ...], tuple[object, ...]]:
    """The greedy kernel of a job: (bit sets?, kernel, its arguments after k, after the counts)."""
    from microsdc._kernels.greedy_bitset import greedy_bitset
    from microsdc._kernels.greedy_wildcard import KIND, NO_BACKGROUND, greedy_suppress
    from microsdc._kernels.masktables import key_layout

    kind = KIND[policy.kind]
    word_of, mult, n_words = key_layout(nc)
    if background is not None and kind != 0:
        raise ValueError("a background of fixed records needs the wildcard policy")
    bg, bg_radix = NO_BACKGROUND if background is None else background
    if kind == 0 and background is None and bitset_fits(n_units, nc):
        return True, greedy_bitset, (select,), ()
    middle = (kind, policy.alpha, word_of, mult, n_words, select)
    return False, greedy_suppress, middle, (bg, bg_radix)


def _fk_with_background(
    units: np.ndarray,
    nc: np.ndarray,
    policy: Policy,
    counts: np.ndarray,
    background: tuple[np.ndarray, np.ndarray] | None,
) -> np.ndarray:
    """fk of each unit, the fixed records of ``background`` included."""
    fk = fk_of_units(units, nc, policy, counts)
    if background is not None:
        fk = fk + background_fk(units, *background)
    return fk


def _units_progress(
    progress: ProgressCallback | None, counts: np.ndarray, order: np.ndarray
) -> ProgressCallback | None:
    """``progress`` for a pass over the units of ``order``, reported in records."""
    if progress is None:
        return None
    done = np.concatenate([[0], np.cumsum(counts[order])])
    return _records_progress(progress, done)


def _blank_missing_or_fail(
    units: np.ndarray, before: int, fk: np.ndarray, k: int, policy: Policy, counts: np.ndarray
) -> None:
    """After a pass that blanked nothing, grow the missing group; fail if that blanks nothing."""
    if int(np.count_nonzero(units < 0)) == before:
        _grow_missing_group(units, fk, k, policy, counts)
        if int(np.count_nonzero(units < 0)) == before:
            raise SDCError(
                "Local suppression made no progress; please report this with "
                "the data shape and parameters."
            )


def _give_back(
    units: np.ndarray,
    original: np.ndarray,
    nc: np.ndarray,
    k: int,
    fk: np.ndarray,
    first_order: np.ndarray,
    counts: np.ndarray,
    cand: np.ndarray,
    weight: np.ndarray,
) -> np.ndarray:
    """Give back the blanked cells not needed, then trade cells for cheaper sets; fk after."""
    from microsdc._kernels.greedy_bitset import improve_cells, restore_cells

    fk_f = np.asarray(fk, dtype=np.float64).copy()
    restore_cells(units, original, nc, float(k), fk_f, first_order, counts)
    # then trade blanked cells for cheaper sets while that helps
    for _ in range(MAX_IMPROVE_PASSES):
        if not improve_cells(
            units, original, nc, float(k), fk_f, first_order, counts, cand, weight
        ):
            break
    return np.rint(fk_f).astype(np.int64)


def category_reach_k(
    codes: np.ndarray,
    n_categories: np.ndarray,
    jobs: Sequence[tuple[tuple[int, ...], int]],
    costs: Costs,
    *,
    fk_start: np.ndarray | None = None,
    progress: ProgressCallback | None = None,
) -> np.ndarray | None:
    """Blank cells of ``codes`` (in place) until every job holds under ``"category"``:
    the group-and-mask algorithm of :mod:`microsdc.suppression._category` for one job
    on every column when it fits, else :func:`reach_k`, whose result it returns
    (None from the former: count fk again)."""
    from microsdc._core.policy import Policy
    from microsdc.suppression._category import category_fits, category_suppress

    if len(jobs) == 1 and len(jobs[0][0]) == codes.shape[1] and category_fits(n_categories):
        category_suppress(codes, n_categories, jobs[0][1], costs.weight)
        return None
    return reach_k(
        codes, n_categories, jobs, costs, Policy("category"), fk_start=fk_start, progress=progress
    )


def category_if_cheaper(
    original: np.ndarray,
    codes: np.ndarray,
    n_categories: np.ndarray,
    jobs: Sequence[tuple[tuple[int, ...], int]],
    costs: Costs,
    policy: Policy,
    improve: Callable[[np.ndarray, np.ndarray], object] | None = None,
) -> bool:
    """Replace the alpha greedy's ``codes`` by the ``"category"`` solution when cheaper.

    Every record of a class of >= k identical released tuples has fk >= k under
    every alpha (its class counts 1 each: complete records, or its own exact
    pattern), so the category solution of ``original`` satisfies the alpha
    guarantee too. Under alpha < 1 a blank lowers other records' counts and the
    greedy, which blanks one pattern at a time, can cascade far beyond it
    (alpha = 0 on skewed data). The category solution is computed as
    :func:`microsdc.local_suppression` computes it for ``missing="category"``,
    re-checked under ``policy`` with the full fk count, and taken when it costs
    less: fewer cells (then the cheaper ranking) with ranked costs, a smaller
    total weight with weights.

    Parameters
    ----------
    original : ndarray of shape (n, m), int64, the codes before suppression
    codes : ndarray of shape (n, m), int64, the greedy's result; replaced in place
    n_categories : ndarray of shape (m,)
    jobs : list of (column subset, k)
    costs : Costs
    policy : Policy, alpha < 1
    improve : callable, optional
        ``improve(original, alt)`` gives back cells of the category solution
        ``alt`` (in place) before the check, as was done to ``codes``.

    Returns
    -------
    bool
        True when ``codes`` now holds the category solution.
    """
    alt = original.copy()
    category_reach_k(alt, n_categories, jobs, costs)
    if improve is not None:
        improve(original, alt)
    if risk_mask(alt, n_categories, policy, jobs).any():
        return False

    known = original >= 0
    if costs.of_release((alt < 0) & known) < costs.of_release((codes < 0) & known):
        codes[...] = alt
        return True
    return False


def background_fk(units: np.ndarray, bg: np.ndarray, radix: np.ndarray) -> np.ndarray:
    """Each unit's entry of the wildcard sums ``bg`` over the combined key (blank = slot 0).

    >>> background_fk(np.array([[0, -1], [1, 2]]), np.arange(12), np.array([1, 3])).tolist()
    [1, 11]
    """
    if not len(units):
        return np.zeros(0, dtype=np.int64)
    cells = ((np.asarray(units, dtype=np.int64) + 1) * np.asarray(radix, dtype=np.int64)).sum(
        axis=1
    )
    return np.asarray(bg[cells], dtype=np.int64)


def _records_progress(progress: ProgressCallback, done: np.ndarray) -> ProgressCallback:
    """``progress`` in records, for a kernel that reports the units of ``order`` handled."""
    last = len(done) - 1

    def report(units: int, _total: int) -> None:
        progress(int(done[min(units, last)]), int(done[last]))

    return report


def bitset_fits(n_units: int, nc: np.ndarray) -> bool:
    """The bit sets (one per column and category, one bit per unit) fit ``BITSET_MAX_BYTES``."""
    from microsdc._kernels import greedy_bitset

    if n_units > greedy_bitset.BITSET_MAX_ROWS:
        return False
    return (int(nc.sum()) + 1) * ((n_units + 63) // 64) * 8 <= BITSET_MAX_BYTES


def processing_order(
    codes: np.ndarray, fk: np.ndarray, at_risk: np.ndarray, first: np.ndarray | None = None
) -> np.ndarray:
    """Records at risk in ascending fk; among equal fk, those with fewer observed cells first.

    A record with missing values already matches many others; finishing it
    first lets the records processed after it use the support it gives (on the
    Adult data with 8 QIs and k = 3, 9 % fewer cells than breaking ties by row
    number). Remaining ties go by ``first`` (the first row of each pattern)
    when given, else by row number. A fractional fk is compared to 9 decimals.
    """
    rows = np.flatnonzero(at_risk)
    observed = np.count_nonzero(codes[rows] >= 0, axis=1)
    # a fractional fk (alpha, probabilistic) to 9 decimals: the counting routes add the
    # weights in different orders, and the last bits must not decide which of two equal
    # patterns goes first
    by_fk = np.round(fk[rows], 9) if np.asarray(fk).dtype.kind == "f" else fk[rows]
    if first is None:
        return rows[np.lexsort((observed, by_fk))].astype(np.int64)
    return rows[np.lexsort((first[rows], observed, by_fk))].astype(np.int64)


def _grow_missing_group(
    sub: np.ndarray, fk: np.ndarray, k: int, policy: Policy, counts: np.ndarray | None = None
) -> None:
    """Blank more records entirely so that the entirely-missing records reach k.

    Under ``"category"`` the entirely-missing records form one class; under
    ``"conservative"`` their count is at least the number of such records.
    Records are taken first from classes (exact patterns) with more than k
    members, fewest observed cells first; if that is not enough, whole classes
    are taken, smallest first. Classes keep at least k members or vanish, so no
    other record becomes at risk under ``"category"``; under ``"conservative"``
    blanking never lowers another record's count. Row i of ``sub`` stands for
    ``counts[i]`` identical records (default 1), blanked together.
    """
    w = np.ones(len(sub), dtype=np.int64) if counts is None else np.asarray(counts, np.int64)
    all_missing = (sub < 0).all(axis=1)
    need = k - int(w[all_missing].sum())
    if need <= 0 or not (all_missing & (fk < k)).any():
        return
    rest = np.flatnonzero(~all_missing)
    _, inv = np.unique(sub[rest], axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    size = np.bincount(inv, weights=w[rest]).astype(np.int64)
    observed = (sub[rest] >= 0).sum(axis=1)
    chosen: list[int] = []
    got = 0
    # surplus members of large classes
    rank = np.lexsort((rest, observed))
    taken = np.zeros(len(size), dtype=np.int64)
    for i in rank:
        if got >= need:
            break
        g = inv[i]
        c = int(w[rest[i]])
        if size[g] - taken[g] - c >= k:
            taken[g] += c
            chosen.append(int(rest[i]))
            got += c
    if got < need:
        picked = set(chosen)
        for g in np.argsort(size - taken, kind="stable"):
            if got >= need:
                break
            for r in rest[inv == g]:
                if int(r) not in picked:
                    chosen.append(int(r))
                    got += int(w[r])
    sub[np.array(chosen, dtype=np.int64)] = -1


def wildcard_support_of(
    codes: np.ndarray,
    targets: np.ndarray,
    n_categories: np.ndarray,
    records: np.ndarray | None = None,
) -> np.ndarray:
    """Number of records of ``codes`` compatible with each row of ``targets`` (a blank on
    either side matches any value).

    Both are reduced to their distinct patterns first, so the cost follows the
    number of patterns, not of rows.

    Parameters
    ----------
    codes : ndarray of shape (n, m), integer, -1 = missing
    targets : ndarray of shape (t, m), integer, -1 = missing
    n_categories : ndarray of shape (m,)
    records : ndarray of shape (n,), optional
        Records each row of ``codes`` stands for (an engine's distinct patterns); one
        each by default.

    Returns
    -------
    ndarray of shape (t,), int64
    """
    from microsdc._kernels.greedy_bitset import support_bitset
    from microsdc._kernels.greedy_wildcard import support_many
    from microsdc._kernels.masktables import key_layout

    nc = np.asarray(n_categories, dtype=np.int64)
    units, _, wt, _ = weighted_patterns(np.asarray(codes, dtype=np.int64), nc, records)
    t_units, t_inv, _, _ = distinct_patterns(np.asarray(targets, dtype=np.int64), nc)
    if bitset_fits(len(units), nc):
        res = support_bitset(units, nc, wt, t_units)
    else:
        word_of, mult, n_words = key_layout(nc)
        res = support_many(units, t_units, word_of, mult, n_words, wt)
    return np.asarray(res, dtype=np.int64)[t_inv]
