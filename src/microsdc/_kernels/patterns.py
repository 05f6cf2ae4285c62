"""Reduce a code matrix to its distinct rows (patterns), with counts and weight sums."""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from microsdc._kernels.hashing import dense_groups, hash_groups, radix_keys
from microsdc._kernels.keys import combine_codes

__all__ = ["Patterns", "distinct_patterns"]

#: Largest radix product for which a dense lookup table is used instead of sorting.
DENSE_LIMIT = 1 << 25


@dataclass(frozen=True)
class Patterns:
    """Distinct rows of a code matrix.

    Attributes
    ----------
    codes : ndarray of shape (n_patterns, n_cols), int32, C-ordered; -1 = missing
    count : ndarray of shape (n_patterns,), int64, rows per pattern
    weight : ndarray of shape (n_patterns,), float64, sum of row weights (== count without weights)
    inverse : ndarray of shape (n_rows,), int64, pattern of each row
    mask : ndarray of shape (n_patterns,), int64, bit j set when column j is observed
    """

    codes: np.ndarray
    count: np.ndarray
    weight: np.ndarray
    inverse: np.ndarray
    mask: np.ndarray


@numba.njit(cache=True, nogil=True)
def _masks(codes: np.ndarray) -> np.ndarray:  # pragma: no cover - numba
    p, m = codes.shape
    out = np.zeros(p, dtype=np.int64)
    for i in range(p):
        b = 0
        for j in range(m):
            if codes[i, j] >= 0:
                b |= 1 << j
        out[i] = b
    return out


def distinct_patterns(
    codes: np.ndarray,
    n_categories: np.ndarray,
    weights: np.ndarray | None = None,
    *,
    dense_limit: int = DENSE_LIMIT,
) -> Patterns:
    """Distinct rows of ``codes`` (missing, -1, is a value of its own) with multiplicities.

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_cols), integer, -1 = missing
    n_categories : ndarray of shape (n_cols,), number of categories per column
    weights : ndarray of shape (n_rows,), float, optional
    dense_limit : int, default DENSE_LIMIT
        Largest number of key combinations for which a lookup table over all of them
        is used (8 bytes each) when it exceeds twice the rows; a hash table otherwise.

    Returns
    -------
    Patterns
    """
    n, m = codes.shape
    if m > 62:
        raise ValueError("At most 62 quasi-identifiers are supported.")
    codes_c = np.ascontiguousarray(codes, dtype=np.int32)
    base = np.asarray(n_categories, dtype=np.int64) + 1
    log_product = float(np.sum(np.log2(base))) if m else 0.0
    weighted = weights is not None
    # writable and contiguous: a read-only array (a pandas column) would compile a second variant
    w = np.require(weights, np.float64, ["C", "W"]) if weighted else np.zeros(0)
    if n == 0:
        return Patterns(
            codes=np.zeros((0, m), dtype=np.int32),
            count=np.zeros(0, dtype=np.int64),
            weight=np.zeros(0),
            inverse=np.zeros(0, dtype=np.int64),
            mask=np.zeros(0, dtype=np.int64),
        )
    if log_product < 62:
        key = radix_keys(codes_c, base)
        n_keys = int(np.prod(base)) if m else 1
        if n_keys <= max(dense_limit, 2 * n):
            inverse, first = dense_groups(key, n_keys)
        else:
            inverse, first = hash_groups(key)
    else:  # too many categories for one int64 key: re-number column by column
        inverse, first = hash_groups(combine_codes(codes_c, base - 1))
    inverse = np.asarray(inverse, dtype=np.int64).reshape(-1)
    first = np.asarray(first, dtype=np.int64)
    pat_codes = np.ascontiguousarray(codes_c[first])
    # rows and weight sums per pattern by bincount (the weights added in row order)
    count = np.bincount(inverse, minlength=len(first)).astype(np.int64, copy=False)
    wsum = (
        np.bincount(inverse, weights=w, minlength=len(first))
        if weighted
        else count.astype(np.float64)
    )
    return Patterns(
        codes=pat_codes, count=count, weight=wsum, inverse=inverse, mask=_masks(pat_codes)
    )
