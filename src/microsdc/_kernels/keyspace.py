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

__all__ = ["add_keys", "wildcard_sums_inplace", "zeros"]


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
def _transform(table: np.ndarray, base: np.ndarray) -> None:  # pragma: no cover - numba
    size = table.shape[0]
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
                for lo in range(stride):
                    x = table[off + lo]
                    table[start + lo] += x
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
    _transform(table, base)
