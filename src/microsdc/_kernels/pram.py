"""Drawing released categories of PRAM from cumulative transition rows."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["draw_categories"]


@numba.njit(cache=True, nogil=True)
def draw_categories(
    codes: np.ndarray,
    strata: np.ndarray,
    selected: np.ndarray,
    uniform: np.ndarray,
    cum: np.ndarray,
) -> np.ndarray:  # pragma: no cover - compiled
    """Released code of each record.

    ``cum[s, c]`` is the cumulative row of category ``c`` in stratum ``s``, ending at
    exactly 1; a selected record takes the first category ``j`` with
    ``cum[s, c, j] > uniform[i]`` (so a transition of probability 0 is never taken);
    the others keep ``codes[i]``.
    """
    n = codes.shape[0]
    n_cat = cum.shape[2]
    out = np.empty(n, dtype=codes.dtype)
    for i in range(n):
        c = codes[i]
        if not selected[i]:
            out[i] = c
            continue
        s = strata[i]
        u = uniform[i]
        j = 0
        while j < n_cat - 1 and cum[s, c, j] <= u:
            j += 1
        out[i] = j
    return out
