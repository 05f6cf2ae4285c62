"""Frequencies through one dense array indexed by the combined key of all columns.

Used when the product of (categories + 1) over the quasi-identifiers is small:
then counting is one ``bincount`` and the wildcard sums are a transform along
each axis of the array (see :func:`wildcard_sums`), with no pattern reduction
and no pairwise work.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["DENSE_LIMIT", "dense_keys", "dense_size", "row_frequencies", "wildcard_sums"]

#: Largest dense array (entries) this route allocates (128 MiB of float64).
DENSE_LIMIT = 1 << 24


def dense_size(n_categories: np.ndarray) -> float:
    """Number of cells of the dense array: product of (categories + 1)."""
    return float(np.prod(np.asarray(n_categories, dtype=np.float64) + 1.0))


@numba.njit(cache=True, nogil=True)
def _keys(codes: np.ndarray, radix: np.ndarray) -> np.ndarray:  # pragma: no cover - numba
    n, m = codes.shape
    key = np.zeros(n, dtype=np.int64)
    for j in range(m):
        r = radix[j]
        for i in range(n):
            key[i] += (codes[i, j] + 1) * r
    return key


def dense_keys(codes: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Key of each row: sum of (code_j + 1) * prod(base[:j]); 0 in a column means missing."""
    m = codes.shape[1]
    radix = np.ones(m, dtype=np.int64)
    for j in range(1, m):
        radix[j] = radix[j - 1] * base[j - 1]
    return _keys(np.asarray(codes), radix)


def wildcard_sums(values: np.ndarray, key: np.ndarray, base: np.ndarray) -> np.ndarray:
    """For every cell x of the dense array, the sum of ``values`` over keys compatible with x.

    Each axis is transformed in place: ``T'[v] = T[v] + T[missing]`` for every
    category v and ``T'[missing] = sum over the axis``. After all axes a cell
    holds the sum over every key that agrees with it wherever both are observed
    (a zeta transform on the product of the lattices "missing below every
    category").

    Returns
    -------
    ndarray of shape (prod(base),), float64, indexed by key
    """
    size = int(np.prod(base))
    table = np.bincount(key, weights=values, minlength=size).astype(np.float64, copy=False)
    _zeta_inplace(table, np.asarray(base, dtype=np.int64))
    return table


@numba.njit(cache=True, nogil=True)
def _zeta_inplace(table: np.ndarray, base: np.ndarray) -> None:  # pragma: no cover - numba
    size = table.shape[0]
    stride = 1
    for j in range(base.shape[0]):
        b = base[j]
        block = stride * b
        total = np.empty(stride, dtype=np.float64)
        for start in range(0, size, block):
            for lo in range(stride):
                total[lo] = table[start + lo]
            for v in range(1, b):
                off = start + v * stride
                for lo in range(stride):
                    total[lo] += table[off + lo]
                    table[off + lo] += table[start + lo]
            for lo in range(stride):
                table[start + lo] = total[lo]
        stride = block


def row_frequencies(
    codes: np.ndarray,
    n_categories: np.ndarray,
    kind: str,
    alpha: float,
    weights: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-row (fk, Fk) for the "wildcard", "alpha" and "category" policies.

    The caller checks that ``dense_size(n_categories) <= DENSE_LIMIT``.
    """
    base = np.asarray(n_categories, dtype=np.int64) + 1
    key = dense_keys(codes, base)
    size = int(np.prod(base))
    if kind == "category":
        fk = np.bincount(key, minlength=size)[key]
        big = None if weights is None else np.bincount(key, weights=weights, minlength=size)[key]
        return fk.astype(np.int64), big
    ones = np.ones(len(key))
    if kind == "wildcard" and not (codes < 0).any():  # nothing missing: exact counts
        fk = np.bincount(key, minlength=size)[key].astype(np.int64)
        big = None if weights is None else np.bincount(key, weights=weights, minlength=size)[key]
        return fk, big
    if kind == "wildcard":
        fk = np.rint(wildcard_sums(ones, key, base)[key]).astype(np.int64)
        big = None if weights is None else wildcard_sums(weights, key, base)[key]
        return fk, big
    complete = np.all(codes >= 0, axis=1)
    total = wildcard_sums(ones, key, base)[key]
    from_complete = wildcard_sums(complete.astype(np.float64), key, base)[key]
    fk_a = np.where(complete, from_complete + alpha * (total - from_complete), alpha * total)
    if weights is None:
        return fk_a, None
    w_total = wildcard_sums(weights, key, base)[key]
    w_complete = wildcard_sums(np.where(complete, weights, 0.0), key, base)[key]
    big_a = np.where(complete, w_complete + alpha * (w_total - w_complete), alpha * w_total)
    return fk_a, big_a
