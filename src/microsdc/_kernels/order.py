"""A stable sort of small non-negative integer keys (bit masks) inside kernels."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["stable_order"]


@numba.njit(cache=True, nogil=True)
def stable_order(keys, n_bits):  # pragma: no cover - numba
    """``np.argsort(keys, kind="stable")`` for int64 keys in ``[0, 2**n_bits)``.

    A least-significant-digit radix sort on 8-bit digits: ``ceil(n_bits / 8)``
    counting passes, each stable, so ties keep their input order and the
    permutation is the one of any stable sort. (numba's merge sort would be
    compiled for this alone; this loop compiles in a fraction of the time.)
    """
    n = keys.shape[0]
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        order[i] = i
    tmp = np.empty(n, dtype=np.int64)
    count = np.empty(257, dtype=np.int64)
    shift = 0
    while shift < n_bits:
        for d in range(257):
            count[d] = 0
        for i in range(n):
            count[((keys[order[i]] >> shift) & 255) + 1] += 1
        for d in range(256):
            count[d + 1] += count[d]
        for i in range(n):
            d = (keys[order[i]] >> shift) & 255
            tmp[count[d]] = order[i]
            count[d] += 1
        order, tmp = tmp, order
        shift += 8
    return order
