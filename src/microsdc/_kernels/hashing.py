"""Group ids of integer keys and of code rows by open-addressing hash tables.

Used where a sort (``np.unique``) would cost O(n log n) and a dense table
would be as large as the key space: the cost is O(n) expected, whatever the
span of the keys.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["group_count", "hash_groups", "log2_span", "row_keys"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True, nogil=True)
def _capacity_bits(n: int) -> int:  # pragma: no cover - numba
    bits = 4
    while (1 << bits) < 2 * n:
        bits += 1
    return bits


@numba.njit(cache=True, nogil=True)
def hash_groups(key: np.ndarray):  # pragma: no cover - numba
    """Group id of each key, in order of first appearance.

    Returns
    -------
    inverse : ndarray of shape (n,), int64
    first : ndarray of shape (n_groups,), int64, first position of each group
    """
    n = key.shape[0]
    bits = _capacity_bits(n)
    cap = 1 << bits
    mask = cap - 1
    shift = np.uint64(64 - bits)
    slot_key = np.empty(cap, dtype=np.int64)
    slot_id = np.full(cap, -1, dtype=np.int64)
    inverse = np.empty(n, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    n_groups = 0
    for i in range(n):
        k = key[i]
        h = np.int64((np.uint64(k) * _GOLDEN) >> shift)
        while True:
            g = slot_id[h]
            if g < 0:
                slot_id[h] = n_groups
                slot_key[h] = k
                first[n_groups] = i
                inverse[i] = n_groups
                n_groups += 1
                break
            if slot_key[h] == k:
                inverse[i] = g
                break
            h = (h + 1) & mask
    return inverse, first[:n_groups].copy()


@numba.njit(cache=True, nogil=True)
def _keys_radix(codes: np.ndarray, radix: np.ndarray) -> np.ndarray:  # pragma: no cover - numba
    n, m = codes.shape
    key = np.zeros(n, dtype=np.int64)
    for j in range(m):
        r = radix[j]
        for i in range(n):
            key[i] += (np.int64(codes[i, j]) + 1) * r
    return key


def log2_span(n_categories: np.ndarray) -> float:
    """log2 of the number of distinct keys (missing counted as one more value)."""
    base = np.asarray(n_categories, dtype=np.float64) + 1.0
    return float(np.sum(np.log2(base))) if len(base) else 0.0


def row_keys(codes: np.ndarray, n_categories: np.ndarray) -> tuple[np.ndarray, int | None]:
    """One int64 key per row, equal exactly when the rows are equal (missing included).

    Returns the keys and their span (``None`` when the radix product would not fit
    in 62 bits; the keys are then re-numbered column by column, see
    :func:`microsdc._kernels.keys.combine_codes`).
    """
    m = codes.shape[1]
    base = np.asarray(n_categories, dtype=np.int64) + 1
    if log2_span(n_categories) < 62:
        radix = np.ones(m, dtype=np.int64)
        for j in range(1, m):
            radix[j] = radix[j - 1] * base[j - 1]
        return _keys_radix(codes, radix), int(np.prod(base)) if m else 1
    from microsdc._kernels.keys import combine_codes

    return combine_codes(np.asarray(codes), base - 1), None


def group_count(
    codes: np.ndarray, n_categories: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """Rows of ``codes`` that are identical to each row, and their weight sum.

    A group-by count on the combined key: ``bincount`` of the key when its span is
    at most a few times the number of rows, else of group ids from a hash table.

    Returns
    -------
    fk : ndarray of shape (n_rows,), int64
    Fk : ndarray of shape (n_rows,), float64, or None without weights
    """
    n = codes.shape[0]
    key, span = row_keys(codes, n_categories)
    if span is not None and span <= max(4 * n, 1 << 16):
        n_groups = span
    else:
        key, first = hash_groups(key)
        n_groups = len(first)
    fk = np.bincount(key, minlength=n_groups)[key].astype(np.int64, copy=False)
    if weights is None:
        return fk, None
    w = np.asarray(weights, dtype=np.float64)
    return fk, np.bincount(key, weights=w, minlength=n_groups)[key]
