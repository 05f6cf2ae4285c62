"""Kernels of noise addition: the check for a column left unchanged (it compares values
only, and stops at the first row where every column has changed)."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["unchanged_columns"]


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
