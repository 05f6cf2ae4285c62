"""Frequencies through one dense array indexed by the combined key of all columns.

Used when the product of (categories + 1) over the quasi-identifiers is small:
then counting is one ``bincount`` and the wildcard sums are a transform along
each axis of the array (see :func:`wildcard_sums`), with no pattern reduction
and no pairwise work.
"""

from __future__ import annotations

import numba
import numpy as np

from microsdc._kernels.hashing import radix_keys
from microsdc._kernels.keyspace import axis_sums_inplace

__all__ = [
    "DENSE_LIMIT",
    "dense_keys",
    "dense_size",
    "frequencies",
    "probabilistic_sums",
    "value_shares",
    "wildcard_sums",
]

#: Largest dense array (entries) this route allocates (128 MiB of float64).
DENSE_LIMIT = 1 << 24


def dense_size(n_categories: np.ndarray) -> float:
    """Number of cells of the dense array: product of (categories + 1)."""
    return float(np.prod(np.asarray(n_categories, dtype=np.float64) + 1.0))


def dense_keys(codes: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Key of each row: sum of (code_j + 1) * prod(base[:j]); 0 in a column means missing."""
    return radix_keys(codes, base)


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
    base = np.asarray(base, dtype=np.int64)
    ones = np.ones((len(base), int(base.max()) if len(base) else 1), dtype=np.float64)
    return probabilistic_sums(values, key, base, ones)  # every share 1: a blank matches all


@numba.njit(cache=True, nogil=True)
def _min_pair_over_completions_inplace(
    table: np.ndarray, carried: np.ndarray, base: np.ndarray, observed: np.ndarray
) -> None:  # pragma: no cover - numba
    """Along each axis, the missing slot becomes the least observed category in the order
    of (``table``, ``carried``); ``carried`` follows the choice (Fk of fk's completion;
    pass ``table`` itself for none)."""
    size = table.shape[0]
    stride = 1
    for j in range(base.shape[0]):
        b = base[j]
        block = stride * b
        low = np.empty(stride, dtype=np.float64)
        low_c = np.empty(stride, dtype=np.float64)
        any_observed = False
        for v in range(1, b):
            if observed[j, v - 1]:
                any_observed = True
        if any_observed:
            for start in range(0, size, block):
                for lo in range(stride):
                    low[lo] = np.inf
                    low_c[lo] = np.inf
                for v in range(1, b):
                    if observed[j, v - 1]:
                        off = start + v * stride
                        for lo in range(stride):
                            x = table[off + lo]
                            if x < low[lo] or (x == low[lo] and carried[off + lo] < low_c[lo]):
                                low[lo] = x
                                low_c[lo] = carried[off + lo]
                for lo in range(stride):
                    table[start + lo] = low[lo]
                    carried[start + lo] = low_c[lo]
        stride = block


def frequencies(
    codes: np.ndarray,
    n_categories: np.ndarray,
    kind: str,
    alpha: float,
    count: np.ndarray | None = None,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """(fk, Fk) of each row of ``codes`` under a policy, through the dense array.

    Parameters
    ----------
    codes : ndarray of shape (n, n_qis), -1 = missing
        Records, or distinct patterns when ``count`` is given.
    n_categories : ndarray of shape (n_qis,)
    kind : {"wildcard", "alpha", "category", "conservative", "probabilistic"}
    alpha : float
        Weight of a record with a missing value that is not of the target's
        exact pattern ("alpha" only; sdcMicro ``freqCalc(alpha=)``).
    count : ndarray of shape (n,), optional
        Records behind each row of ``codes`` (1 each by default).
    weights : ndarray of shape (n,), optional
        Sum of sampling weights behind each row of ``codes``.

    Returns
    -------
    fk : ndarray of shape (n,), int64 (float64 for "alpha" and "probabilistic")
    Fk : ndarray of shape (n,), float64, or None without weights

    Notes
    -----
    The caller checks that ``dense_size(n_categories) <= DENSE_LIMIT``. For
    "conservative", the wildcard sums of complete keys are minimised over the
    completions of each missing cell, one axis at a time, over the categories
    observed in the data. For "probabilistic", the shares of the categories
    are those of ``codes`` (weighted by ``count``), see :func:`value_shares`.
    """
    base = np.asarray(n_categories, dtype=np.int64) + 1
    key = dense_keys(codes, base)
    size = int(np.prod(base))
    mult = np.ones(len(key)) if count is None else np.asarray(count, dtype=np.float64)
    missing_any = bool((codes < 0).any())
    if kind == "category" or (kind in ("wildcard", "conservative") and not missing_any):
        fk = np.rint(np.bincount(key, weights=mult, minlength=size)[key]).astype(np.int64)
        big = None if weights is None else np.bincount(key, weights=weights, minlength=size)[key]
        return fk, big
    if kind in ("wildcard", "conservative"):
        tables = [wildcard_sums(mult, key, base)]
        if weights is not None:
            tables.append(wildcard_sums(weights, key, base))
        if kind == "conservative":
            observed = np.zeros(
                (len(base), int(base.max()) - 1 if len(base) else 0), dtype=np.bool_
            )
            for j in range(len(base)):
                col = codes[:, j]
                observed[j, np.unique(col[col >= 0])] = True
            # the weights (Fk) of the completion that gives fk
            carried = tables[1] if weights is not None else tables[0]
            _min_pair_over_completions_inplace(tables[0], carried, base, observed)
        fk = np.rint(tables[0][key]).astype(np.int64)
        return fk, (tables[1][key] if weights is not None else None)
    if kind == "probabilistic":
        probs = value_shares(codes, base, mult)
        # rounded so that a count of exactly k is not taken for k - 1e-16
        fk_p = np.round(probabilistic_sums(mult, key, base, probs)[key], 9)
        big_p = None if weights is None else probabilistic_sums(weights, key, base, probs)[key]
        return fk_p, big_p
    # alpha (sdcMicro freqCalc): a record s adds alpha when it has a missing value and is
    # not of r's exact pattern; complete records and r's own pattern add 1
    complete = np.all(codes >= 0, axis=1)
    own = np.where(complete, 0.0, np.bincount(key, weights=mult, minlength=size)[key])
    total = wildcard_sums(mult, key, base)[key]
    from_complete = wildcard_sums(np.where(complete, mult, 0.0), key, base)[key]
    fk_a = from_complete + own + alpha * (total - from_complete - own)
    if weights is None:
        return fk_a, None
    w_own = np.where(complete, 0.0, np.bincount(key, weights=weights, minlength=size)[key])
    w_total = wildcard_sums(weights, key, base)[key]
    w_complete = wildcard_sums(np.where(complete, weights, 0.0), key, base)[key]
    big_a = w_complete + w_own + alpha * (w_total - w_complete - w_own)
    return fk_a, big_a


def value_shares(
    codes: np.ndarray, base: np.ndarray, count: np.ndarray | None = None
) -> np.ndarray:
    """Share p_j(v) of each category among the observed values of each column.

    Parameters
    ----------
    codes : ndarray of shape (n, m), -1 = missing
    base : ndarray of shape (m,), categories + 1 per column
    count : ndarray of shape (n,), optional
        Records behind each row of ``codes`` (1 each by default).

    Returns
    -------
    ndarray of shape (m, max(base)), float64
        ``out[j, v + 1]`` is the share of category v in column j; ``out[j, 0]``
        (the missing slot) is 1. A column with no observed value has shares 0.
    """
    m = codes.shape[1]
    width = int(np.max(base)) if m else 1
    out = np.zeros((m, width))
    out[:, 0] = 1.0
    mult = np.ones(codes.shape[0]) if count is None else np.asarray(count, dtype=np.float64)
    for j in range(m):
        col = codes[:, j]
        seen = col >= 0
        tally = np.bincount(col[seen], weights=mult[seen], minlength=int(base[j]) - 1)
        total = tally.sum()
        if total > 0:
            out[j, 1 : int(base[j])] = tally / total
    return out


def probabilistic_sums(
    values: np.ndarray, key: np.ndarray, base: np.ndarray, probs: np.ndarray
) -> np.ndarray:
    """For every cell x of the dense array, the probabilistic sum of ``values``.

    Each axis is transformed in place: ``T'[v] = T[v] + p(v) T[missing]`` for
    every category v and ``T'[missing] = sum over the axis``. A key s then adds
    ``values[s]`` times the product, over the columns where s is missing and x
    is observed, of the share of x's value there.

    Returns
    -------
    ndarray of shape (prod(base),), float64, indexed by key
    """
    size = int(np.prod(base))
    table = np.bincount(key, weights=values, minlength=size).astype(np.float64, copy=False)
    base = np.asarray(base, dtype=np.int64)
    axis_sums_inplace(table, base, np.ascontiguousarray(probs, dtype=np.float64))
    return table
