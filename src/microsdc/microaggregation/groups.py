"""Groups of at least k records, by method, on standardised values in a canonical order."""

from __future__ import annotations

import numpy as np

__all__ = ["METHODS", "multivariate_groups", "univariate_groups"]

#: ``method=`` options: multivariate MDAV; per variable: individual ranking, the exact
#: optimum, and a fixed number of equal groups ("decile means" with 10)
METHODS = ("mdav", "individual", "optimal", "quantile")


def _partition(x: np.ndarray, ids: np.ndarray, block: int, out: list[np.ndarray]) -> None:
    """Split records (columns of ``x``) at the median of their most spread variable until
    each part has at most ``block`` records; the parts are appended to ``out``."""
    stack = [ids]
    while stack:
        part = stack.pop()
        if len(part) <= block:
            out.append(part)
            continue
        sub = x[:, part]
        spread = np.nanvar(sub, axis=1)
        j = int(np.argmax(np.nan_to_num(spread, nan=-1.0)))
        col = np.nan_to_num(sub[j], nan=np.inf)
        order = np.lexsort((part, col))  # stable in record order for ties
        half = len(part) // 2
        stack.append(part[order[half:]])
        stack.append(part[order[:half]])


def multivariate_groups(x: np.ndarray, k: int, block: int) -> np.ndarray:
    """MDAV groups of the records (columns) of ``x``, shape (p, n), standardised, NaN
    missing; above ``block`` records, MDAV runs in parts split at medians (each part has
    far more than k records, so every group still has k or more).

    Returns
    -------
    numpy.ndarray of shape (n,), int64, group ids from 0.
    """
    from microsdc._kernels.mdav import mdav_groups

    n = x.shape[1]
    parts: list[np.ndarray] = []
    _partition(x, np.arange(n), max(block, 2 * k), parts)
    groups = np.empty(n, dtype=np.int64)
    offset = 0
    for part in parts:
        g = mdav_groups(np.ascontiguousarray(x[:, part]), k)
        groups[part] = g + offset
        offset += int(g.max()) + 1
    return groups


def univariate_groups(
    values: np.ndarray, weights: np.ndarray, k: int, method: str, n_groups: int
) -> np.ndarray:
    """Groups of one variable's observed values (no NaN), each of at least k records.

    ``"individual"``: consecutive runs of k in sorted order, the last run taking the
    remaining k to 2k - 1; ``"optimal"``: the partition with the least within-group
    sum of squares (:func:`~microsdc._kernels.mdav.optimal_univariate_groups`);
    ``"quantile"``: ``n_groups`` runs as equal as possible. Ties of values keep the
    records' order (the caller's order is canonical).
    """
    from microsdc._kernels.mdav import optimal_univariate_groups

    n = len(values)
    order = np.argsort(values, kind="stable")
    ranks = np.arange(n)
    if method == "individual":
        sorted_groups = np.minimum(ranks // k, max(n // k - 1, 0))
    elif method == "quantile":
        sorted_groups = (ranks * n_groups) // n
    else:
        sorted_groups = optimal_univariate_groups(values[order], weights[order], k)
    groups = np.empty(n, dtype=np.int64)
    groups[order] = sorted_groups
    return groups
