"""An open-addressing hash table of integer keys with two counts per key.

The table is a 2-D int64 array ``ht`` of shape (capacity, W + 2), the
capacity a power of two: a slot holds a key of ``W`` words (the first word
>= 0; -1 marks an empty slot) followed by two counts. ``meta[0]`` is the
number of keys stored. Lookups probe linearly from the key's hash. The table
never shrinks and keys are never removed (a count may fall to zero).
:func:`reserve` returns a larger copy when the next keys would pass a load of
1/2; the caller keeps the returned table.

This module imports numba; import it only inside the functions that need it.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["add", "find_slot", "grow_rows", "key_hash", "lookup", "lookup2", "reserve"]

_H0 = np.uint64(0x9E3779B97F4A7C15)
_H1 = np.uint64(0xBF58476D1CE4E5B9)
_S31 = np.uint64(31)


@numba.njit(cache=True, nogil=True)
def key_hash(key):  # pragma: no cover - numba
    """64-bit hash of the words of ``key``."""
    h = _H0
    for i in range(key.shape[0]):
        h ^= np.uint64(key[i])
        h *= _H1
        h ^= h >> _S31
    return h


@numba.njit(cache=True, nogil=True)
def find_slot(ht, key):  # pragma: no cover - numba
    """Slot of ``key``, or -(empty slot + 1) where it would be inserted."""
    cap = ht.shape[0]
    w1 = key.shape[0]
    i = np.int64(key_hash(key) & np.uint64(cap - 1))
    while ht[i, 0] >= 0:
        same = True
        for t in range(w1):
            if ht[i, t] != key[t]:
                same = False
                break
        if same:
            return i
        i = (i + 1) & (cap - 1)
    return -(i + 1)


@numba.njit(cache=True, nogil=True)
def lookup(ht, key):  # pragma: no cover - numba
    """First count stored under ``key``, -1 if absent."""
    s = find_slot(ht, key)
    return ht[s, key.shape[0]] if s >= 0 else -1


@numba.njit(cache=True, nogil=True)
def lookup2(ht, key, out):  # pragma: no cover - numba
    """out = the two counts stored under ``key``, (0, 0) if absent."""
    s = find_slot(ht, key)
    w1 = key.shape[0]
    if s >= 0:
        out[0] = ht[s, w1]
        out[1] = ht[s, w1 + 1]
    else:
        out[0] = 0
        out[1] = 0


@numba.njit(cache=True, nogil=True)
def add(ht, meta, key, d0, d1):  # pragma: no cover - numba
    """Add (d0, d1) under ``key``, inserting it first if needed; capacity assumed.

    Returns the first count after the addition."""
    s = find_slot(ht, key)
    w1 = key.shape[0]
    if s < 0:
        s = -s - 1
        for t in range(w1):
            ht[s, t] = key[t]
        ht[s, w1] = 0
        ht[s, w1 + 1] = 0
        meta[0] += 1
    ht[s, w1] += d0
    ht[s, w1 + 1] += d1
    return ht[s, w1]


@numba.njit(cache=True, nogil=True)
def reserve(ht, meta, extra):  # pragma: no cover - numba
    """Return a table large enough for ``extra`` more keys at load <= 1/2."""
    cap = ht.shape[0]
    need = 2 * (meta[0] + extra) + 2
    if need <= cap:
        return ht
    new_cap = cap
    while new_cap < need:
        new_cap *= 2
    width = ht.shape[1]
    w1 = width - 2
    nt = np.full((new_cap, width), -1, dtype=np.int64)
    for i in range(cap):
        if ht[i, 0] >= 0:
            s = -find_slot(nt, ht[i, :w1]) - 1
            for t in range(width):
                nt[s, t] = ht[i, t]
    return nt


@numba.njit(cache=True, nogil=True)
def grow_rows(a, rows):  # pragma: no cover - numba
    """``a`` with at least ``rows`` rows (new rows filled with -1), doubling its capacity."""
    if rows <= a.shape[0]:
        return a
    cap = max(a.shape[0], 1)
    while cap < rows:
        cap *= 2
    b = np.full((cap, a.shape[1]), -1, dtype=np.int64)
    b[: a.shape[0]] = a
    return b
