"""Kernels of the record keys (:mod:`microsdc.data.rowkeys`): folding a column's hashes into
the keys, a stable order of 64-bit keys, and uniform numbers drawn from keys.

Every kernel repeats exactly the integer and floating-point operations of the numpy code
it stands for (no fast-math, no reassociation), so its output is bit for bit that code's;
only the passes over memory are fewer.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["fold_hashes", "key_order", "key_uniform_pair"]

_DIGIT_BITS = 11
_N_DIGITS = 6  # 6 x 11 bits >= 64


@numba.njit(cache=True, nogil=True, inline="always")
def _mix64(z):  # pragma: no cover - numba
    """The SplitMix64 finaliser of one uint64 word (``rowkeys.mix64`` on an array)."""
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True, nogil=True)
def fold_hashes(h, hc):  # pragma: no cover - numba
    """``h = mix64((h * 1_000_003) ^ hc)`` in place, in one pass (uint64, wrapping)."""
    mult = np.uint64(1_000_003)
    for i in range(h.shape[0]):
        h[i] = _mix64((h[i] * mult) ^ hc[i])


@numba.njit(cache=True, nogil=True)
def key_order(keys):  # pragma: no cover - numba
    """``(np.argsort(keys, kind="stable"), all keys distinct)`` for uint64 keys.

    A least-significant-digit radix sort on 11-bit digits: every pass is stable, so ties
    keep their input order and the permutation is the one of any stable sort. The
    digits' counts are taken in one pass; a digit that is the same in every key is
    skipped. Linear in the number of keys whatever their values.
    """
    n = keys.shape[0]
    size = 1 << _DIGIT_BITS
    mask = np.uint64(size - 1)
    count = np.zeros((_N_DIGITS, size), dtype=np.int64)
    for i in range(n):
        k = keys[i]
        for d in range(_N_DIGITS):
            count[d, np.int64((k >> np.uint64(d * _DIGIT_BITS)) & mask)] += 1
    order = np.arange(n)
    cur = keys.copy()
    tmp_order = np.empty(n, dtype=np.int64)
    tmp_keys = np.empty(n, dtype=np.uint64)
    start = np.empty(size, dtype=np.int64)
    for d in range(_N_DIGITS):
        shift = np.uint64(d * _DIGIT_BITS)
        if n == 0 or count[d, np.int64((cur[0] >> shift) & mask)] == n:
            continue  # one value of this digit: the pass would move nothing
        total = 0
        for b in range(size):
            start[b] = total
            total += count[d, b]
        for i in range(n):
            k = cur[i]
            b = np.int64((k >> shift) & mask)
            p = start[b]
            start[b] = p + 1
            tmp_keys[p] = k
            tmp_order[p] = order[i]
        cur, tmp_keys = tmp_keys, cur
        order, tmp_order = tmp_order, order
    distinct = True
    for i in range(1, n):
        if cur[i] == cur[i - 1]:
            distinct = False
            break
    return order, distinct


@numba.njit(cache=True, nogil=True)
def key_uniform_pair(keys, salt1, salt2, u1, u2):  # pragma: no cover - numba
    """``u1 = 1 - U(salt1)`` in (0, 1] and ``u2 = U(salt2)`` in [0, 1), where ``U(s)`` is
    ``rowkeys.key_uniforms`` with the salt ``s``: ``mix64(key ^ (2 s + 1)) >> 11``
    times 2**-53."""
    scale = 2.0**-53
    odd1 = salt1 * np.uint64(2) + np.uint64(1)
    odd2 = salt2 * np.uint64(2) + np.uint64(1)
    eleven = np.uint64(11)
    for i in range(keys.shape[0]):
        k = keys[i]
        u1[i] = 1.0 - np.float64(_mix64(k ^ odd1) >> eleven) * scale
        u2[i] = np.float64(_mix64(k ^ odd2) >> eleven) * scale
