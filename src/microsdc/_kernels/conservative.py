"""The conservative missing-value policy: a record with missing values gets the
smallest wildcard count over the completions of its missing cells.

For a record r with observed columns O and missing columns M, a completion x
assigns a category to each column of M; its count is the sum over the
candidates (records compatible with r on O) that agree with x wherever they
are observed on M. The minimum is found column by column: if some category of
a column is used by none of the candidates still in play, choosing it removes
every candidate observed on that column, and that choice is optimal; otherwise
the search branches over the categories present, on the column with the
fewest. The cartesian product of categories is never enumerated.

The candidates come from the route that counts: mask pairs
(:func:`microsdc._kernels.maskpairs.pair_conservative`) or bit sets
(:mod:`microsdc._kernels.bitcount`).
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["min_completion", "observed_categories"]


@numba.njit(cache=True, nogil=True)
def min_completion(
    codes, cand, cols, observed_card, card, values, carried
):  # pragma: no cover - numba
    """min over completions x of the columns ``cols`` of sum(values[s]) over the
    candidates s (rows of ``codes``) with codes[s, j] in (-1, x_j) for all j in cols,
    and the sum of ``carried`` (>= 0) over the same candidates: the completion is
    the least in the order of (sum of ``values``, sum of ``carried``), so that with
    the weights as ``carried`` Fk sums the weights of the records counted in fk, and
    every route picks the same completion.

    ``observed_card[j]`` is the number of categories of column j observed in the
    data (the possible completions); 0 means the column is entirely missing.
    ``card[j]`` bounds the codes of column j.

    Returns
    -------
    (float, float)
    """
    return _search(codes, cand, cols, observed_card, card, values, carried, np.inf, np.nan)


@numba.njit(cache=True, nogil=True)
def _search(
    codes, cand, cols, observed_card, card, values, carried, best, best_c
):  # pragma: no cover - numba
    """(best, best_c), or the minimum over the completions of ``cols`` and its
    ``carried`` sum when it is smaller: depth first, children in
    ascending order of their candidates' sum, pruned by a lower bound: the candidates
    blank on every remaining column (kept by any completion), plus, for each remaining
    column, the lightest category among the candidates observed on that column alone
    (one of its categories is chosen, and those candidates survive it whatever else)."""
    n = cand.shape[0]
    q = cols.shape[0]
    total = 0.0
    total_c = 0.0
    always = 0.0
    always_c = 0.0
    width = 1
    for t in range(q):
        width = max(width, card[cols[t]])
    single = np.zeros((max(q, 1), width))
    single_c = np.zeros((max(q, 1), width))
    for i in range(n):
        v = values[cand[i]]
        total += v
        total_c += carried[cand[i]]
        n_obs = 0
        only = -1
        for t in range(q):
            if codes[cand[i], cols[t]] >= 0:
                n_obs += 1
                only = t
                if n_obs > 1:
                    break
        if n_obs == 0:
            always += v
            always_c += carried[cand[i]]
        elif n_obs == 1:
            single[only, codes[cand[i], cols[only]]] += v
            single_c[only, codes[cand[i], cols[only]]] += carried[cand[i]]
    if q == 0 or n == 0 or always >= total:  # every completion keeps every candidate
        if total < best or (total == best and total_c < best_c):
            return total, total_c
        return best, best_c
    bound = always
    bound_c = always_c
    for t in range(q):
        j = cols[t]
        if observed_card[j] == 0:
            continue
        low = np.inf
        low_c = np.inf
        n_seen = 0
        for c in range(card[j]):
            if single[t, c] > 0 or single_c[t, c] > 0:
                n_seen += 1
                low = min(low, single[t, c])
                low_c = min(low_c, single_c[t, c])
        # a category with no such candidate (observed somewhere, or unused here) costs 0
        if n_seen < observed_card[j]:
            low = 0.0
            low_c = 0.0
        bound += low
        bound_c += low_c
    # no completion here is less than the best in the order of (sum, carried sum)
    if bound > best or (bound == best and bound_c >= best_c):
        return best, best_c
    best_t = np.int64(-1)  # not a literal: one compiled _without
    best_present = np.zeros(0, dtype=np.int64)
    for t in range(q):
        j = cols[t]
        seen = np.zeros(max(card[j], 1), dtype=np.bool_)
        present = np.empty(min(n, max(card[j], 1)), dtype=np.int64)
        n_present = 0
        for i in range(n):
            v = codes[cand[i], j]
            if v >= 0 and not seen[v]:
                seen[v] = True
                present[n_present] = v
                n_present += 1
        if observed_card[j] == 0 or n_present < observed_card[j]:
            # a category nobody here uses: keep only the candidates blank on j
            keep = np.empty(n, dtype=np.int64)
            nk = 0
            for i in range(n):
                if codes[cand[i], j] < 0:
                    keep[nk] = cand[i]
                    nk += 1
            return _search(
                codes,
                keep[:nk].copy(),
                _without(cols, t),
                observed_card,
                card,
                values,
                carried,
                best,
                best_c,
            )
        if best_t < 0 or n_present < best_present.shape[0]:
            best_t = t
            best_present = present[:n_present].copy()
    j = cols[best_t]
    rest = _without(cols, best_t)
    n_child = best_present.shape[0]
    weight = np.zeros(n_child)
    blank_weight = 0.0
    slot = np.full(max(card[j], 1), -1, dtype=np.int64)
    for u in range(n_child):
        slot[best_present[u]] = u
    for i in range(n):
        c = codes[cand[i], j]
        if c < 0:
            blank_weight += values[cand[i]]
        else:
            weight[slot[c]] += values[cand[i]]
    for u in np.argsort(weight):
        v = best_present[u]
        keep = np.empty(n, dtype=np.int64)
        nk = 0
        for i in range(n):
            c = codes[cand[i], j]
            if c < 0 or c == v:
                keep[nk] = cand[i]
                nk += 1
        best, best_c = _search(
            codes, keep[:nk].copy(), rest, observed_card, card, values, carried, best, best_c
        )
    return best, best_c


@numba.njit(cache=True, nogil=True)
def _without(cols, t):  # pragma: no cover - numba
    rest = np.empty(cols.shape[0] - 1, dtype=np.int64)
    u = 0
    for s in range(cols.shape[0]):
        if s != t:
            rest[u] = cols[s]
            u += 1
    return rest


def observed_categories(codes: np.ndarray) -> np.ndarray:
    """Number of distinct categories observed in each column (missing excluded), int64."""
    m = codes.shape[1]
    out = np.zeros(m, dtype=np.int64)
    for j in range(m):
        col = codes[:, j]
        out[j] = np.unique(col[col >= 0]).size
    return out
