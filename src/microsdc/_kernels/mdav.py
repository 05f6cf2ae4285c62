"""MDAV microaggregation and the exact univariate optimum (numba).

The records are held compacted in the rows ``[0, m)`` of a (p, n) array, one variable per
row, so that the distance loops run over contiguous memory; a group leaves by swapping
its records with the last ones, in O(k p).
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["mdav_groups", "optimal_univariate_groups"]


@numba.njit(cache=True, nogil=True)
def _distances(x: np.ndarray, m: int, point: np.ndarray, out: np.ndarray, nan: bool) -> None:
    """Squared distances of the first ``m`` records to ``point``; with ``nan``, over the
    variables both observe, scaled up to all ``p`` variables (0 when none is shared)."""
    p = x.shape[0]
    if not nan:
        for i in range(m):
            out[i] = 0.0
        for j in range(p):
            c = point[j]
            row = x[j]
            for i in range(m):
                d = row[i] - c
                out[i] += d * d
        return
    for i in range(m):
        total = 0.0
        seen = 0
        for j in range(p):
            d = x[j, i] - point[j]
            if d == d:  # not NaN
                total += d * d
                seen += 1
        out[i] = total * p / seen if seen else 0.0


@numba.njit(cache=True, nogil=True)
def _sums(x: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Per variable: the sum and the number of the observed values of the first m records."""
    p = x.shape[0]
    total = np.zeros(p)
    seen = np.zeros(p)
    for j in range(p):
        for i in range(m):
            v = x[j, i]
            if v == v:
                total[j] += v
                seen[j] += 1.0
    return total, seen


@numba.njit(cache=True, nogil=True)
def _centroid(total: np.ndarray, seen: np.ndarray) -> np.ndarray:
    p = total.shape[0]
    c = np.zeros(p)
    for j in range(p):
        c[j] = total[j] / seen[j] if seen[j] > 0 else 0.0
    return c


@numba.njit(cache=True, nogil=True)
def _farthest(dist: np.ndarray, m: int, ids: np.ndarray) -> int:
    """Position of the largest distance; ties to the smaller record id."""
    best = 0
    for i in range(1, m):
        if dist[i] > dist[best] or (dist[i] == dist[best] and ids[i] < ids[best]):
            best = i
    return best


@numba.njit(cache=True, nogil=True)
def _nearest(dist: np.ndarray, m: int, ids: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` smallest distances (ties to the smaller record id)."""
    pos = np.empty(k, dtype=np.int64)
    n_in = 0
    for i in range(m):
        d = dist[i]
        if n_in == k:
            w = pos[k - 1]
            if d > dist[w] or (d == dist[w] and ids[i] > ids[w]):
                continue
            n_in -= 1
        j = n_in
        while j > 0:
            q = pos[j - 1]
            if dist[q] < d or (dist[q] == d and ids[q] < ids[i]):
                break
            pos[j] = q
            j -= 1
        pos[j] = i
        n_in += 1
    return pos


@numba.njit(cache=True, nogil=True)
def _group_around(
    x: np.ndarray,
    ids: np.ndarray,
    dist: np.ndarray,
    m: int,
    r: int,
    point: np.ndarray,
    nan: bool,
    k: int,
    groups: np.ndarray,
    g: int,
    total: np.ndarray,
    seen: np.ndarray,
) -> int:
    """Group ``g``: the record at position ``r`` and its k - 1 nearest. They leave
    ``[0, m)`` by swapping with the last records (their distances with them) and their
    values leave ``total`` and ``seen``; ``dist`` is left holding the others' distances
    to that record. Returns the new ``m``."""
    p = x.shape[0]
    for j in range(p):
        point[j] = x[j, r]
    _distances(x, m, point, dist, nan)
    # highest position first, so that swaps do not move a pending one
    order = np.sort(_nearest(dist, m, ids, k))[::-1]
    for t in range(order.shape[0]):
        i = order[t]
        groups[ids[i]] = g
        m -= 1
        for j in range(p):
            v = x[j, i]
            if v == v:
                total[j] -= v
                seen[j] -= 1.0
            x[j, i] = x[j, m]
        ids[i] = ids[m]
        dist[i] = dist[m]
    return m


@numba.njit(cache=True, nogil=True)
def mdav_groups(values: np.ndarray, k: int) -> np.ndarray:  # pragma: no cover - compiled
    """MDAV groups (Domingo-Ferrer & Torra 2005) of the records of ``values``.

    Parameters
    ----------
    values : numpy.ndarray of shape (p, n), float64
        Standardised variables, NaN for missing (ignored in distances).
    k : int
        Minimum group size; ``n >= k`` is assumed.

    Returns
    -------
    numpy.ndarray of shape (n,), int64
        Group id of each record (0, 1, ...); every group has k records but the last,
        which has k to 2k - 1.

    Notes
    -----
    While 3k or more records remain: r is the record farthest from their centroid; r and
    its k - 1 nearest form a group; then s, the remaining record farthest from r, and its
    k - 1 nearest form another. With 2k to 3k - 1 left, the record farthest from the
    centroid and its k - 1 nearest form a group and the rest another; with fewer, the rest
    form one group.
    """
    p, n = values.shape
    x = values.copy()
    ids = np.arange(n)
    groups = np.full(n, -1, dtype=np.int64)
    nan = np.isnan(values).any()
    dist = np.empty(n)
    m = n
    g = 0
    point = np.empty(p)
    total, seen = _sums(x, m)
    while m >= 3 * k:
        _distances(x, m, _centroid(total, seen), dist, nan)
        r = _farthest(dist, m, ids)
        m = _group_around(x, ids, dist, m, r, point, nan, k, groups, g, total, seen)
        s = _farthest(dist, m, ids)  # the remaining record farthest from r
        m = _group_around(x, ids, dist, m, s, point, nan, k, groups, g + 1, total, seen)
        g += 2
    if m >= 2 * k:
        _distances(x, m, _centroid(total, seen), dist, nan)
        r = _farthest(dist, m, ids)
        m = _group_around(x, ids, dist, m, r, point, nan, k, groups, g, total, seen)
        g += 1
    for i in range(m):
        groups[ids[i]] = g
    return groups


@numba.njit(cache=True, nogil=True)
def optimal_univariate_groups(
    sorted_values: np.ndarray, weights: np.ndarray, k: int
) -> np.ndarray:  # pragma: no cover - compiled
    """Groups of sorted values that minimise the within-group (weighted) sum of squares.

    An optimal partition into groups of at least k values consists of runs of
    consecutive sorted values of k to 2k - 1 each (Hansen & Mukherjee 2003, *IEEE TKDE*
    15(4)); a dynamic programme over the end of the last run finds it in O(n k).

    Returns
    -------
    numpy.ndarray of shape (n,), int64
        Group id (0, 1, ... in increasing order of values) of each sorted value.
    """
    n = sorted_values.shape[0]
    sw = np.zeros(n + 1)
    swx = np.zeros(n + 1)
    swxx = np.zeros(n + 1)
    for i in range(n):
        w = weights[i]
        v = sorted_values[i]
        sw[i + 1] = sw[i] + w
        swx[i + 1] = swx[i] + w * v
        swxx[i + 1] = swxx[i] + w * v * v
    best = np.full(n + 1, np.inf)
    start = np.zeros(n + 1, dtype=np.int64)
    best[0] = 0.0
    for i in range(k, n + 1):
        for size in range(k, min(2 * k - 1, i) + 1):
            j = i - size
            if best[j] == np.inf:
                continue
            w = sw[i] - sw[j]
            sx = swx[i] - swx[j]
            sse = swxx[i] - swxx[j] - (sx * sx / w if w > 0 else 0.0)
            if sse < 0.0:
                sse = 0.0
            cost = best[j] + sse
            if cost < best[i]:
                best[i] = cost
                start[i] = j
    groups = np.empty(n, dtype=np.int64)
    end = n
    g = 0
    while end > 0:
        first = start[end]
        for t in range(first, end):
            groups[t] = g
        g += 1
        end = first
    return (g - 1) - groups
