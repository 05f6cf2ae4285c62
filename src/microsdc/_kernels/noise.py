"""Kernels of noise addition: the values in the records' key order (the order their moments
are summed in, so that no rounding depends on the order of the rows), and the check for a
column left unchanged. They move and compare values only: no arithmetic."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["complete_in_order", "observed_in_order", "unchanged_columns"]


@numba.njit(cache=True, nogil=True)
def observed_in_order(x, w, order):  # pragma: no cover - numba
    """Per column ``j``: ``x[order, j]`` and ``w[order]`` with the rows where that column is
    missing left out, in ``vals[j, :counts[j]]`` and ``weights[j, :counts[j]]``.

    The same numbers as ``x[order][:, j][ok]`` and ``w[order][ok]`` with ``ok`` the column's
    observed rows, in one pass over ``order`` instead of a copy of every row.
    """
    n, m = x.shape
    vals = np.empty((m, n))
    weights = np.empty((m, n))
    counts = np.zeros(m, dtype=np.int64)
    for i in range(n):
        r = order[i]
        wr = w[r]
        for j in range(m):
            v = x[r, j]
            if not np.isnan(v):
                c = counts[j]
                vals[j, c] = v
                weights[j, c] = wr
                counts[j] = c + 1
    return vals, weights, counts


@numba.njit(cache=True, nogil=True)
def complete_in_order(x, w, order):  # pragma: no cover - numba
    """``x[order][ok]`` (C order) and ``w[order][ok]``, ``ok`` the rows with no value
    missing."""
    n, m = x.shape
    rows = np.empty((n, m))
    weights = np.empty(n)
    c = 0
    for i in range(n):
        r = order[i]
        complete = True
        for j in range(m):
            if np.isnan(x[r, j]):
                complete = False
                break
        if complete:
            for j in range(m):
                rows[c, j] = x[r, j]
            weights[c] = w[r]
            c += 1
    return rows[:c], weights[:c]


@numba.njit(cache=True, nogil=True)
def unchanged_columns(x, noisy):  # pragma: no cover - numba
    """Per column, whether every observed value of ``x`` equals its ``noisy`` value (also
    when none is observed, then False: there is nothing released unchanged)."""
    n, m = x.shape
    seen = np.zeros(m, dtype=np.bool_)
    changed = np.zeros(m, dtype=np.bool_)
    left = m
    for i in range(n):
        for j in range(m):
            v = x[i, j]
            if np.isnan(v):
                continue
            seen[j] = True
            if not changed[j] and noisy[i, j] != v:
                changed[j] = True
                left -= 1
        if left == 0:
            break
    return seen & ~changed
