"""Keys of code matrices: one int64 per row, two rows alike exactly when their codes are."""

from __future__ import annotations

import numpy as np

__all__ = ["combine_codes"]


def combine_codes(codes: np.ndarray, n_categories: np.ndarray | None = None) -> np.ndarray:
    """Combine the columns of a code matrix into one int64 key per row.

    Missing (-1) is kept as its own value, so two rows get the same key exactly
    when they agree on every column, missing included. Keys are dense
    (0 .. n_keys-1) only when the radix product is small; use ``np.unique`` on
    them for a dense numbering.

    Parameters
    ----------
    codes : numpy.ndarray of shape (n_rows, n_cols), integer, -1 = missing
    n_categories : numpy.ndarray of shape (n_cols,), optional
        Number of categories of each column; computed from ``codes`` if omitted.

    Returns
    -------
    numpy.ndarray of shape (n_rows,), dtype int64
    """
    n, m = codes.shape
    if n_categories is None:
        n_categories = codes.max(axis=0, initial=-1).astype(np.int64) + 1 if n else np.zeros(m)
    key = np.zeros(n, dtype=np.int64)
    radix = 1
    for j in range(m):
        base = int(n_categories[j]) + 1
        if radix * base >= 2**62:
            # densify what we have so far, then continue
            _, key = np.unique(key, return_inverse=True)
            key = key.astype(np.int64)
            radix = int(key.max(initial=0)) + 1
        key += (codes[:, j].astype(np.int64) + 1) * radix
        radix *= base
    return key
