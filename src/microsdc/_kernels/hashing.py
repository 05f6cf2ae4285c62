"""Group ids of integer keys and of code rows by open-addressing hash tables.

Used where a sort (``np.unique``) would cost O(n log n) and a dense table
would be as large as the key space: the cost is O(n) expected, whatever the
span of the keys.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = [
    "capacity_bits",
    "dense_groups",
    "first_groups",
    "group_count",
    "hash_groups",
    "key_slot",
    "log2_span",
    "radix_keys",
    "row_keys",
]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True, nogil=True)
def capacity_bits(n: int) -> int:  # pragma: no cover - numba
    """log2 of the capacity of a hash table for ``n`` keys (at least 16 slots, load <= 1/2)."""
    bits = 4
    while (1 << bits) < 2 * n:
        bits += 1
    return bits


@numba.njit(cache=True, nogil=True, inline="always")
def key_slot(slot_id, slot_key, k, shift, mask):  # pragma: no cover - numba
    """Slot of the int64 key ``k`` in an open-addressing table (``slot_id`` -1 = empty):
    the slot holding it, or the empty slot where it would go. ``shift`` is 64 minus
    the log2 of the capacity, ``mask`` the capacity minus one."""
    h = np.int64((np.uint64(k) * _GOLDEN) >> shift)
    while slot_id[h] >= 0 and slot_key[h] != k:
        h = (h + 1) & mask
    return h


@numba.njit(cache=True, nogil=True)
def first_groups(key, table, slot_key, shift, mask, hashed):  # pragma: no cover - numba
    """Group id of each key in order of first appearance, through ``table`` (-1 = free).

    ``hashed``: ``table`` is an open-addressing table of slot ids beside ``slot_key``
    (see :func:`key_slot`); else it is indexed by the key itself (``slot_key``,
    ``shift`` and ``mask`` unused). ``table`` keeps the groups. Returns the group id
    of each key, the first position of each group (the first ``n_groups`` entries)
    and ``n_groups``.
    """
    n = key.shape[0]
    inverse = np.empty(n, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    n_groups = 0
    for i in range(n):
        k = key[i]
        h = key_slot(table, slot_key, k, shift, mask) if hashed else k
        g = table[h]
        if g < 0:
            g = n_groups
            table[h] = g
            if hashed:
                slot_key[h] = k
            first[g] = i
            n_groups += 1
        inverse[i] = g
    return inverse, first, n_groups


@numba.njit(cache=True, nogil=True)
def hash_groups(key: np.ndarray):  # pragma: no cover - numba
    """Group id of each key, in order of first appearance.

    Returns
    -------
    inverse : ndarray of shape (n,), int64
    first : ndarray of shape (n_groups,), int64, first position of each group
    """
    bits = capacity_bits(key.shape[0])
    cap = 1 << bits
    table = np.full(cap, -1, dtype=np.int64)
    slot_key = np.empty(cap, dtype=np.int64)
    inverse, first, n_groups = first_groups(
        key, table, slot_key, np.uint64(64 - bits), cap - 1, True
    )
    return inverse, first[:n_groups].copy()


@numba.njit(cache=True, nogil=True)
def dense_groups(key: np.ndarray, n_keys: int):  # pragma: no cover - numba
    """:func:`hash_groups` for keys in 0..n_keys-1, through a table of all of them."""
    table = np.full(n_keys, -1, dtype=np.int64)
    inverse, first, n_groups = first_groups(
        key, table, np.empty(0, dtype=np.int64), np.uint64(0), 0, False
    )
    return inverse, first[:n_groups].copy()


@numba.njit(cache=True, nogil=True)
def _keys_radix(codes: np.ndarray, radix: np.ndarray) -> np.ndarray:  # pragma: no cover - numba
    n, m = codes.shape
    key = np.zeros(n, dtype=np.int64)
    for i in range(n):
        k = np.int64(0)
        for j in range(m):
            k += (np.int64(codes[i, j]) + 1) * radix[j]
        key[i] = k
    return key


def radix_keys(codes: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Key of each row: sum of (code_j + 1) * prod(base[:j]); 0 in a column means missing.

    ``base[j]`` is the number of categories of column j plus one; the product of
    ``base`` must stay below 2**62 (see :func:`row_keys` for wider spans).
    """
    m = codes.shape[1]
    radix = np.ones(m, dtype=np.int64)
    for j in range(1, m):
        radix[j] = radix[j - 1] * base[j - 1]
    return _keys_radix(np.asarray(codes), radix)


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
        return radix_keys(codes, base), int(np.prod(base)) if m else 1
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
