"""Local suppression when missing is a category: blank masks applied to groups of records.

Under ``missing="category"`` a released record is safe when at least k released
records carry exactly its QI tuple (blanks included). Blanking one record alone
rarely helps (a partly blank tuple matches nobody), so records at risk are
blanked together: for every blank mask (a set of columns), in order of cost,
the records still at risk are grouped by their tuple with those columns blank;
a group is released with that tuple when it has, together with the released
records already carrying it, at least k members. A group short of k by fewer
records than it has is completed with surplus members of released classes
whose original values project to the same tuple, when they cost less than the
group saves. The masks of one cost are
tried in order of the number of records they settle, and the search is
repeated while it settles records (records released late can complete groups
of cheaper masks). The entirely blank mask comes last; if fewer than k records
are left for it, they join an existing released class that generalises them
(cheapest first), or, when there is none, records of the largest classes are
blanked entirely until the blank class has k members.

Every record at risk is blanked at most entirely and a completion costs less
than its group saves, so the result is never worse than blanking every record
at risk entirely, except for the last step, which adds at most k entirely
blank records (surplus members of classes that keep k members, or one whole
class).

The search's result is then improved by moves that only lower its cost and keep
every class at 0 or at least k records (:mod:`microsdc.suppression._category_improve`):
on Adult and testdata they save 1-11 % of the cells, and the result is within 1.12
times the lower bound of :mod:`microsdc.suppression._category_bound`
(``benchmarks/bench_category.py``).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from microsdc.exceptions import SDCError
from microsdc.suppression._category_improve import improve_category

__all__ = ["MAX_MASKS", "category_fits", "category_radix", "category_suppress"]


def category_radix(n_categories: np.ndarray) -> np.ndarray:
    """Place value of each column in a tuple's key ``sum_j (code_j + 1) * radix[j]``."""
    base = np.asarray(n_categories, dtype=np.int64) + 1
    radix = np.ones(len(base), dtype=np.int64)
    for j in range(1, len(base)):
        radix[j] = radix[j - 1] * base[j - 1]
    return radix


def _keys(codes: np.ndarray, radix: np.ndarray) -> np.ndarray:
    return (codes + 1) @ radix if codes.shape[1] else np.zeros(len(codes), dtype=np.int64)


#: Largest number of blank masks tried (as many as the candidate subsets of the wildcard greedy).
MAX_MASKS = 4096


def category_fits(n_categories: np.ndarray) -> bool:
    """True when one int64 key holds every tuple (the product of categories + 1 < 2**62)."""
    return float(np.sum(np.log2(np.asarray(n_categories, dtype=np.float64) + 1.0))) < 62.0


def _masks_by_cost(weight: np.ndarray, by_cells: bool = False) -> list[list[int]]:
    """Non-empty column masks in levels of equal cost (ascending); the full mask last.

    With more than 12 columns only masks of up to L columns are listed, L the
    largest size keeping them within ``MAX_MASKS``. With ``by_cells`` a level
    holds the masks of one number of cells (in order of cost), which the search
    then tries by the number of records they settle.
    """
    m = len(weight)
    full = (1 << m) - 1
    masks: list[int] = []
    for size in range(1, m):
        group = [sum(1 << j for j in cols) for cols in combinations(range(m), size)]
        if masks and len(masks) + len(group) > MAX_MASKS:
            break
        masks.extend(group)
    by_level: dict[float, list[tuple[float, int]]] = {}
    for b in masks:
        cost = round(float(sum(weight[j] for j in range(m) if (b >> j) & 1)), 9)
        by_level.setdefault(float(bin(b).count("1")) if by_cells else cost, []).append((cost, b))
    levels = [[b for _, b in sorted(by_level[c])] for c in sorted(by_level)]
    levels.append([full])
    return levels


class _Released:
    """Counts of released tuples (sorted keys with counts), rebuilt lazily."""

    def __init__(self, keys: np.ndarray) -> None:
        self._parts = [keys]
        self._signs = [np.ones(len(keys), dtype=np.int64)]
        self._dirty = True
        self.uniq = np.zeros(0, dtype=np.int64)
        self.count = np.zeros(0, dtype=np.int64)

    def add(self, keys: np.ndarray, sign: int = 1) -> None:
        self._parts.append(np.asarray(keys, dtype=np.int64))
        self._signs.append(np.full(len(keys), sign, dtype=np.int64))
        self._dirty = True

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        if self._dirty:
            allk = np.concatenate(self._parts)
            signs = np.concatenate(self._signs)
            uniq, inv = np.unique(allk, return_inverse=True)
            count = np.bincount(inv.reshape(-1), weights=signs, minlength=len(uniq))
            keep = count > 0
            self.uniq = uniq[keep]
            self.count = np.rint(count[keep]).astype(np.int64)
            self._parts = [np.repeat(self.uniq, self.count)]
            self._signs = [np.ones(len(self._parts[0]), dtype=np.int64)]
            self._dirty = False
        if len(self.uniq) == 0:
            return np.zeros(len(keys), dtype=np.int64)
        pos = np.searchsorted(self.uniq, keys)
        pos = np.minimum(pos, len(self.uniq) - 1)
        return np.where(self.uniq[pos] == keys, self.count[pos], 0)


def _settle(
    codes: np.ndarray, waiting: np.ndarray, b: int, k: int, radix: np.ndarray, rel: _Released
) -> tuple[np.ndarray, np.ndarray]:
    """Records of ``waiting`` settled by mask ``b`` and their new keys."""
    m = codes.shape[1]
    cols = [j for j in range(m) if (b >> j) & 1]
    proj = codes[waiting].copy()
    proj[:, cols] = -1
    keys = _keys(proj, radix)
    uniq, inv, cnt = np.unique(keys, return_inverse=True, return_counts=True)
    total = cnt + rel.lookup(uniq)
    ok = (total >= k)[inv.reshape(-1)]
    return waiting[ok], keys[ok]


def _recruit(
    codes: np.ndarray,
    orig: np.ndarray,
    waiting: np.ndarray,
    b: int,
    k: int,
    radix: np.ndarray,
    rel: _Released,
    weight: np.ndarray,
) -> np.ndarray:
    """Settle groups of ``waiting`` under mask ``b`` with donors; returns the settled rows.

    A group of g records whose projection P has e released records is short of
    r = k - g - e. Released records whose original tuple projects to P under
    ``b`` and whose class keeps k members without them can be released as P
    instead; each costs the cells of ``b`` it has observed minus the cells it has
    blanked now (a record settled by another mask of the same cost moves for
    free). The cheapest r are taken when they cost less than g cells of the
    cheapest column and less than the group saves against being blanked
    entirely.
    """
    n, m = codes.shape
    cols = [j for j in range(m) if (b >> j) & 1]
    proj = codes[waiting].copy()
    proj[:, cols] = -1
    keys = _keys(proj, radix)
    uniq, inv, cnt = np.unique(keys, return_inverse=True, return_counts=True)
    inv = inv.reshape(-1)
    need = k - cnt - rel.lookup(uniq)
    cand = np.flatnonzero((need > 0) & (need < cnt))
    if len(cand) == 0:
        return np.zeros(0, dtype=np.int64)
    is_waiting = np.zeros(n, dtype=bool)
    is_waiting[waiting] = True
    released = np.flatnonzero(~is_waiting)
    rp = orig[released].copy()
    rp[:, cols] = -1
    rkeys = _keys(rp, radix)
    useful = np.isin(rkeys, uniq[cand])
    released, rp, rkeys = released[useful], rp[useful], rkeys[useful]
    cur = _keys(codes[released], radix)
    moved = rkeys != cur
    released, rkeys, cur, rp = released[moved], rkeys[moved], cur[moved], rp[moved]
    if len(released) == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(rkeys, kind="stable")
    released, rkeys, cur, rp = released[order], rkeys[order], cur[order], rp[order]
    o = orig[released]
    cost = ((o >= 0) & (rp < 0)) @ weight - ((o >= 0) & (codes[released] < 0)) @ weight
    # what the members would save against being blanked entirely
    obs_w = (codes[waiting] >= 0) @ weight
    saving = obs_w - (codes[waiting][:, cols] >= 0) @ weight[cols]
    saved = np.bincount(inv, weights=saving, minlength=len(uniq))
    cheapest = float(np.min(weight))
    left = dict(
        zip(np.unique(cur).tolist(), (rel.lookup(np.unique(cur)) - k).tolist(), strict=True)
    )
    settled: list[np.ndarray] = []
    for g in cand[np.lexsort((-cnt[cand], need[cand]))]:
        lo, hi = np.searchsorted(rkeys, [uniq[g], uniq[g] + 1])
        if hi - lo < need[g]:
            continue
        donors = [i for i in (lo + np.argsort(cost[lo:hi], kind="stable")).tolist()]
        chosen: list[int] = []
        for i in donors:
            c = int(cur[i])
            if left.get(c, 0) > 0:
                chosen.append(i)
                left[c] -= 1
                if len(chosen) == need[g]:
                    break
        budget = min(cnt[g] * cheapest, saved[g])
        if len(chosen) < need[g] or cost[chosen].sum() >= budget - 1e-9:
            for i in chosen:
                left[int(cur[i])] += 1
            continue
        members = waiting[inv == g]
        sub = codes[members]
        sub[:, cols] = -1
        codes[members] = sub
        codes[released[chosen]] = rp[chosen]
        rel.add(cur[chosen], -1)
        rel.add(np.full(len(members) + len(chosen), uniq[g], dtype=np.int64))
        settled.append(members)
        # a donor taken here cannot serve again in this call
        cur[chosen] = -1
    if not settled:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(settled)


#: Largest (records x masks) for which a second mask order is tried.
SECOND_RUN_LIMIT = 2_500_000


def category_suppress(
    codes: np.ndarray, n_categories: np.ndarray, k: int, weight: np.ndarray
) -> None:
    """Blank cells of ``codes`` (in place) until every tuple occurs at least k times.

    The masks are tried level by level, a level being one cost. When the
    instance is small (records x masks up to ``SECOND_RUN_LIMIT``) a second
    search groups the masks by number of cells instead, trying those that
    settle most records first. Each search's result is improved by
    :func:`~microsdc.suppression._category_improve.improve_category` and the
    cheaper one is kept.

    Parameters
    ----------
    codes : ndarray of shape (n, m), int64, -1 = missing; modified in place
    n_categories : ndarray of shape (m,)
    k : int, 1 <= k <= n
    weight : ndarray of shape (m,), float64 > 0, cost of a cell of each column

    Raises
    ------
    SDCError
        If the result fails the final check (never expected).
    """
    n = codes.shape[0]
    if n == 0 or k <= 1:
        return
    radix = category_radix(n_categories)
    w = np.asarray(weight, dtype=np.float64)
    levels = _masks_by_cost(w)
    orig = codes.copy()
    if not _search(codes, k, radix, w, levels):
        return
    improve_category(orig, codes, radix, k, w)
    if n * sum(len(level) for level in levels) <= SECOND_RUN_LIMIT:
        other = orig.copy()
        _search(other, k, radix, w, _masks_by_cost(w, by_cells=True))
        improve_category(orig, other, radix, k, w)
        observed = orig >= 0
        if (
            float(((observed & (other < 0)) @ w).sum())
            < float(((observed & (codes < 0)) @ w).sum()) - 1e-9
        ):
            codes[:] = other
    final = _keys(codes, radix)
    cnt2 = np.unique(final, return_counts=True)[1]
    if (cnt2 < k).any():
        raise SDCError(
            "Local suppression with missing='category' left a class below k; please report "
            "this with the data shape and parameters.",
            param="missing",
        )


def _search(
    codes: np.ndarray, k: int, radix: np.ndarray, w: np.ndarray, levels: list[list[int]]
) -> bool:
    """One search over ``levels`` on ``codes`` (in place); False when nothing is at risk."""
    m = codes.shape[1]
    key = _keys(codes, radix)
    _, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
    risky = (cnt < k)[inv.reshape(-1)]
    waiting = np.flatnonzero(risky)
    if len(waiting) == 0:
        return False
    rel = _Released(key[~risky])
    orig = codes.copy()
    changed = True
    while changed and len(waiting):
        changed = False
        for level in levels[:-1]:
            # masks of one level: those that settle most records first, repeated while useful
            while len(waiting):
                gains = [len(_settle(codes, waiting, b, k, radix, rel)[0]) for b in level]
                order = [
                    level[i] for i in np.argsort(-np.asarray(gains), kind="stable") if gains[i]
                ]
                if not order:
                    break
                for b in order:
                    rows, new_keys = _settle(codes, waiting, b, k, radix, rel)
                    if len(rows) == 0:
                        continue
                    cols = [j for j in range(m) if (b >> j) & 1]
                    sub = codes[rows]
                    sub[:, cols] = -1
                    codes[rows] = sub
                    rel.add(new_keys)
                    waiting = np.setdiff1d(waiting, rows, assume_unique=True)
                    changed = True
                if not len(waiting):
                    break
            # groups short of k by fewer records than they have: complete them with
            # surplus members of released classes that have the same projection
            recruited = False
            for b in level:
                if not len(waiting):
                    break
                rows = _recruit(codes, orig, waiting, b, k, radix, rel, w)
                if len(rows):
                    waiting = np.setdiff1d(waiting, rows, assume_unique=True)
                    recruited = changed = True
            if recruited:
                changed = True
    if len(waiting):
        _finish(codes, waiting, k, radix, rel, w)
    return True


def _finish(
    codes: np.ndarray,
    waiting: np.ndarray,
    k: int,
    radix: np.ndarray,
    rel: _Released,
    weight: np.ndarray,
) -> None:
    """The records left: blank entirely if they make k together, else join a class."""
    n = codes.shape[0]
    blank_key = 0
    have = int(rel.lookup(np.array([blank_key], dtype=np.int64))[0])
    if len(waiting) + have >= k:
        codes[waiting] = -1
        return
    # join the cheapest released class whose tuple generalises the record
    released = np.ones(n, dtype=bool)
    released[waiting] = False
    keys = _keys(codes, radix)
    uniq, first = np.unique(keys[released], return_index=True)
    pats = codes[np.flatnonzero(released)[first]]
    cnt = rel.lookup(uniq)
    pats = pats[cnt >= k]
    left: list[int] = []
    for r in waiting.tolist():
        row = codes[r]
        fits = np.all((pats == row) | (pats < 0), axis=1)
        if not fits.any():
            left.append(r)
            continue
        cost = ((pats[fits] < 0) & (row >= 0)) @ weight
        best = pats[fits][int(np.argmin(cost))]
        codes[r] = best
    if not left:
        return
    # no class to join: blank whole records of the largest classes until k are blank
    codes[left] = -1
    need = k - len(left)
    keys = _keys(codes, radix)
    taken: list[int] = []
    uniq, inv, cnt = np.unique(keys, return_inverse=True, return_counts=True)
    inv = inv.reshape(-1)
    order = [g for g in np.argsort(-cnt, kind="stable") if uniq[g] != 0]
    spare = np.maximum(cnt[order] - k, 0)
    if spare.sum() >= need:
        for g, extra in zip(order, spare.tolist(), strict=True):
            # surplus members: their class keeps k members
            take = min(extra, need)
            if take > 0:
                taken.extend(np.flatnonzero(inv == g)[:take].tolist())
                need -= take
    elif order:
        # one whole class (it has at least k >= need members), the smallest
        g = min(order, key=lambda g: (int(cnt[g]), int(g)))
        taken.extend(np.flatnonzero(inv == g).tolist())
        need -= int(cnt[g])
    if need > 0:
        raise SDCError(
            "Local suppression with missing='category' could not reach k.", param="missing"
        )
    codes[taken] = -1
