"""Counts over the whole key space in an integer array, and their wildcard sums in place.

For data whose patterns are nearly as many as its rows (100M records over a
key space of a few hundred million cells), one integer array indexed by the
combined key is the smallest structure that gives fk: 4 bytes per cell, no
pattern table, no hash table. The records are counted into it batch by batch
and the wildcard sums are a transform along each axis, in place.
"""

from __future__ import annotations

import mmap

import numba
import numpy as np

__all__ = [
    "add_keys",
    "add_keys_noting_first",
    "decode_keys",
    "keys_below",
    "occupied",
    "wildcard_sums_inplace",
    "zeros",
]


def zeros(n: int, dtype: type) -> np.ndarray:
    """A zeroed array of ``n`` entries in an anonymous memory map.

    numpy asks the kernel for huge pages on large arrays; on a machine whose
    free memory is fragmented (a large page cache) the kernel then compacts
    memory on every fault, which made zeroing 1.5 GB take 8 s instead of 1.5 s.
    A plain mapping takes ordinary pages, and is returned to the system when the
    array goes.

    >>> zeros(3, np.int32).tolist()
    [0, 0, 0]
    """
    size = n * np.dtype(dtype).itemsize
    if size == 0:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(mmap.mmap(-1, size), dtype=dtype)


@numba.njit(cache=True, nogil=True)
def _add(table: np.ndarray, keys: np.ndarray) -> None:  # pragma: no cover - numba
    for i in range(keys.shape[0]):
        table[keys[i]] += 1


def add_keys(table: np.ndarray, keys: np.ndarray) -> None:
    """Add 1 to ``table[k]`` for every ``k`` in ``keys`` (repeated keys add up).

    Parameters
    ----------
    table : ndarray of shape (n_cells,), int32 or int64, modified in place
    keys : ndarray of shape (n,), int64, each in [0, n_cells); not re-checked

    >>> t = np.zeros(4, dtype=np.int32)
    >>> add_keys(t, np.array([1, 3, 1], dtype=np.int64))
    >>> t.tolist()
    [0, 2, 0, 1]
    """
    _add(table, np.require(keys, np.int64, ["C", "W"]))


@numba.njit(cache=True, nogil=True)
def axis_sums_inplace(table, base, probs):  # pragma: no cover - numba
    """The zeta transform along each axis of the key array ``table``, in place:
    ``T'[v] = T[v] + p(v) T[missing]`` for every category v and ``T'[missing] = sum
    over the axis``, with ``p(v) = probs[j, v]``; an empty ``probs`` stands for every
    share 1 (the wildcard sums, exact on integers). The largest extra buffer is one
    slice of the last axis."""
    size = table.shape[0]
    shares = probs.shape[0] > 0
    stride = 1
    buf = np.empty(1, dtype=table.dtype)
    for j in range(base.shape[0]):
        b = base[j]
        block = stride * b
        if buf.shape[0] < stride:
            buf = np.empty(stride, dtype=table.dtype)
        for start in range(0, size, block):
            for lo in range(stride):
                buf[lo] = table[start + lo]
            for v in range(1, b):
                off = start + v * stride
                pv = probs[j, v] if shares else 1.0
                for lo in range(stride):
                    x = table[off + lo]
                    table[start + lo] += x
                    if shares:
                        table[off + lo] = x + pv * buf[lo]
                    else:
                        table[off + lo] = x + buf[lo]
        stride = block


def wildcard_sums_inplace(table: np.ndarray, base: np.ndarray) -> None:
    """Turn counts by key into wildcard sums, in place.

    ``table`` is indexed by the key ``sum_j slot_j * prod(base[:j])`` where
    slot 0 of column j means missing and slot v >= 1 its category v - 1. Each
    axis is transformed as ``T'[v] = T[v] + T[missing]`` and ``T'[missing] =
    sum over the axis``, so that afterwards every cell holds the number of
    records that agree with it wherever both are observed: the fk of the
    wildcard policy. The same transform as
    :func:`microsdc._kernels.dense.wildcard_sums`, on integers and without a
    second array (the largest extra buffer is one slice of the last axis).

    Parameters
    ----------
    table : ndarray of shape (prod(base),), int32 or int64, modified in place
        The caller picks a dtype wide enough for the number of records.
    base : ndarray of shape (n_qis,), int64, categories + 1 per column

    >>> t = np.array([1, 2, 0, 3], dtype=np.int32)  # one column: missing, a, b, c
    >>> wildcard_sums_inplace(t, np.array([4]))
    >>> t.tolist()
    [6, 3, 1, 4]
    """
    base = np.asarray(base, dtype=np.int64)
    if int(np.prod(base)) != table.shape[0]:
        raise ValueError("table size must be the product of base")
    axis_sums_inplace(table, base, np.ones((0, 0)))


@numba.njit(cache=True, nogil=True)
def _scan(
    table: np.ndarray, base: np.ndarray, bits: np.ndarray, marg: np.ndarray
) -> None:  # pragma: no cover - numba
    m = base.shape[0]
    slots = np.zeros(m, dtype=np.int64)
    for idx in range(table.shape[0]):
        v = table[idx]
        if v != 0:
            bits[idx >> 6] |= np.int64(1) << (idx & 63)
            for j in range(m):
                marg[j, slots[j]] += v
        j = 0
        while j < m:  # the slots of the next cell
            slots[j] += 1
            if slots[j] < base[j]:
                break
            slots[j] = 0
            j += 1


def occupied(table: np.ndarray, base: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The keys that occur (a bit set) and the records per slot of each column.

    Parameters
    ----------
    table : ndarray of shape (prod(base),), records per key
    base : ndarray of shape (n_qis,), int64, slots per column (slot 0 = missing)

    Returns
    -------
    bits : ndarray of shape (ceil(prod(base) / 64),), int64
        Bit ``key % 64`` of word ``key // 64`` is set when ``table[key] > 0``.
    margins : ndarray of shape (n_qis, max(base)), int64
        ``margins[j, s]`` records whose column j is in slot s.

    >>> bits, margins = occupied(np.array([0, 2, 1, 0], dtype=np.int32), np.array([2, 2]))
    >>> int(bits[0]), margins.tolist()
    (6, [[1, 2], [2, 1]])
    """
    base = np.asarray(base, dtype=np.int64)
    bits = np.zeros((table.shape[0] + 63) // 64, dtype=np.int64)
    margins = np.zeros((base.shape[0], int(base.max(initial=1))), dtype=np.int64)
    _scan(table, base, bits, margins)
    return bits, margins


@numba.njit(cache=True, nogil=True)
def _below(table: np.ndarray, bits: np.ndarray, k: int) -> np.ndarray:  # pragma: no cover - numba
    n = 0
    for idx in range(table.shape[0]):
        if table[idx] < k and (bits[idx >> 6] >> (idx & 63)) & 1:
            n += 1
    out = np.empty(n, dtype=np.int64)
    n = 0
    for idx in range(table.shape[0]):
        if table[idx] < k and (bits[idx >> 6] >> (idx & 63)) & 1:
            out[n] = idx
            n += 1
    return out


def keys_below(table: np.ndarray, bits: np.ndarray, k: int) -> np.ndarray:
    """Keys set in ``bits`` whose entry of ``table`` is below ``k``, ascending.

    >>> keys_below(np.array([5, 1, 0, 2]), np.array([0b1011]), 3).tolist()
    [1, 3]
    """
    return _below(table, bits, int(k))


@numba.njit(cache=True, nogil=True)
def _add_first(table, keys, offset, bits, sorted_keys, first):  # pragma: no cover - numba
    for i in range(keys.shape[0]):
        key = keys[i]
        table[key] += 1
        if (bits[key >> 6] >> (key & 63)) & 1:
            at = np.searchsorted(sorted_keys, key)
            if first[at] < 0:
                first[at] = offset + i


def add_keys_noting_first(
    table: np.ndarray,
    keys: np.ndarray,
    offset: int,
    bits: np.ndarray,
    sorted_keys: np.ndarray,
    first: np.ndarray,
) -> None:
    """:func:`add_keys`, and note the position of the first record of each key of
    ``sorted_keys`` (those set in ``bits``).

    Parameters
    ----------
    table : ndarray of shape (n_cells,), modified in place
    keys : ndarray of shape (n,), int64, the keys of records ``offset`` to ``offset + n - 1``
    offset : int, position of the first of ``keys`` among all records
    bits : ndarray of int64, bit set of ``sorted_keys`` (see :func:`occupied`)
    sorted_keys : ndarray of shape (r,), int64, ascending
    first : ndarray of shape (r,), int64, -1 until a record is seen; modified in place

    >>> t = np.zeros(4, dtype=np.int32)
    >>> first = np.full(1, -1, dtype=np.int64)
    >>> add_keys_noting_first(t, np.array([1, 3, 3]), 10, np.array([0b1000]), np.array([3]), first)
    >>> t.tolist(), first.tolist()
    ([0, 1, 0, 2], [11])
    """
    _add_first(table, np.require(keys, np.int64, ["C", "W"]), int(offset), bits, sorted_keys, first)


def decode_keys(keys: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Codes (slot - 1, so -1 = missing) of each key, one column per QI.

    >>> decode_keys(np.array([0, 5]), np.array([2, 3])).tolist()
    [[-1, -1], [0, 1]]
    """
    base = np.asarray(base, dtype=np.int64)
    out = np.empty((len(keys), len(base)), dtype=np.int64)
    rest = np.asarray(keys, dtype=np.int64).copy()
    for j, b in enumerate(base):
        out[:, j] = rest % b - 1
        rest //= b
    return out
