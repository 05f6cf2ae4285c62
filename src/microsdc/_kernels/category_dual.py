"""The dual function of the linear relaxation of suppression under ``missing="category"``.

See :mod:`microsdc.suppression._category_bound` for the model. This module imports
numba; import it only inside the functions that need it.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["dual_penalties"]


@numba.njit(cache=True, nogil=True)
def _keep_smallest(buf, need, r, copies):  # pragma: no cover - numba
    """Insert up to ``copies`` copies of ``r`` into the ascending ``buf[:need]``, dropping the
    largest; stop at the first copy not below ``buf[need - 1]``. Returns the copies inserted."""
    for done in range(copies):
        if r >= buf[need - 1]:
            return done
        j = need - 1
        while j > 0 and buf[j - 1] > r:
            buf[j] = buf[j - 1]
            j -= 1
        buf[j] = r
    return copies


@numba.njit(cache=True, nogil=True)
def dual_penalties(pi, c, r_ptr, r_u, r_a, s_ptr, s_a, s_c, k, x):  # pragma: no cover - numba
    """Sum over the targets of ``P_t(pi)``; ``x[u]`` gets the units of tuple u used.

    For target t the contributors are the at-risk tuples ``r_u[r_ptr[t]:r_ptr[t+1]]``
    (cost ``r_a``, reduced cost ``r_a - pi[u]``, ``c[u]`` units each) and the safe
    tuples ``s_*[s_ptr[t]:s_ptr[t+1]]`` sorted by cost (reduced cost = cost, ``s_c``
    units each). ``P_t = max(0, -min sum r x)`` over ``0 <= x <= units`` with
    ``sum x >= k``: every negative reduced cost in full, then the smallest others
    until k units.
    """
    n_t = r_ptr.shape[0] - 1
    buf = np.empty(k + 1, dtype=np.float64)
    for u in range(x.shape[0]):
        x[u] = 0.0
    total = 0.0
    for t in range(n_t):
        neg = 0.0
        cnt = 0
        for p in range(r_ptr[t], r_ptr[t + 1]):
            r = r_a[p] - pi[r_u[p]]
            if r < 0.0:
                neg += r * c[r_u[p]]
                cnt += c[r_u[p]]
        if cnt >= k:
            inner = neg
            need = 0
        else:
            need = k - cnt
            for i in range(need):
                buf[i] = np.inf
            for p in range(r_ptr[t], r_ptr[t + 1]):
                r = r_a[p] - pi[r_u[p]]
                if r >= 0.0:
                    _keep_smallest(buf, need, r, c[r_u[p]])
            units = 0
            for p in range(s_ptr[t], s_ptr[t + 1]):
                r = s_a[p]
                if r >= buf[need - 1] or units >= need:
                    break
                units += _keep_smallest(buf, need, r, min(s_c[p], need))
            fill = 0.0
            for i in range(need):
                fill += buf[i]
            inner = neg + fill
        if inner >= 0.0:
            continue
        total -= inner
        # the units this target takes: the subgradient of -P_t is -x
        left = need
        theta = buf[need - 1] if need > 0 else -np.inf
        for p in range(r_ptr[t], r_ptr[t + 1]):
            u = r_u[p]
            r = r_a[p] - pi[u]
            if r < 0.0:
                x[u] += c[u]
            elif need > 0 and r <= theta and left > 0:
                take = min(c[u], left)
                x[u] += take
                left -= take
    return total
