"""Sample frequencies of patterns when a missing value matches any value (wildcard).

For a target pattern ``r`` and the patterns ``s`` of the data, ``s`` supports
``r`` when they agree on every column observed in both. Patterns are grouped by
their missingness mask; for a pair of masks (a, b) the patterns of b are summed
into a table keyed by the columns observed in both, and the patterns of a read
that table. The cost is O(n_masks x n_patterns) key computations, the number of
distinct masks being small in practice (spec section 3).

When the product of (categories + 1) over the columns is small enough, a
faster exact route is taken: the pattern counts are laid out in a dense array
with one extra slot per column for "missing", and each axis is transformed in
place, ``T'[v] = T[v] + T[missing]`` for every category v and
``T'[missing] = sum over the axis``. After all axes, ``T'[x]`` is the number of
records compatible with x, for every x with or without missing values (a
zeta transform over the lattice "missing below every value").
"""

from __future__ import annotations

import numba
import numpy as np

from microsdc._kernels.patterns import Patterns

__all__ = ["wildcard_support"]

#: Largest table (entries) used for one pair of masks; larger pairs are sorted instead.
TABLE_LIMIT = 1 << 23
from microsdc._kernels.dense import DENSE_LIMIT  # noqa: E402


@numba.njit(cache=True, nogil=True)
def _pair_support(
    codes, order, mask_vals, mask_start, card, cnt, wsum, table_size, weighted, probs, prob
):  # pragma: no cover - numba
    p_total, m = codes.shape
    n_masks = mask_vals.shape[0]
    full = (1 << m) - 1
    # [count from complete sources, count from incomplete, weight from complete, from incomplete]
    out = np.zeros((p_total, 4), dtype=np.float64)
    buf_c = np.zeros(table_size, dtype=np.float64)
    buf_w = np.zeros(table_size if weighted else 1, dtype=np.float64)
    mult = np.zeros(m, dtype=np.int64)
    big_a = np.empty(n_masks * n_masks, dtype=np.int64)
    big_b = np.empty(n_masks * n_masks, dtype=np.int64)
    n_big = 0
    for ia in range(n_masks):
        a = mask_vals[ia]
        for ib in range(n_masks):
            b = mask_vals[ib]
            both = a & b
            size = 1
            fits = True
            for j in range(m):
                if (both >> j) & 1:
                    mult[j] = size
                    if size > table_size // max(card[j], 1):
                        fits = False
                    size *= card[j]
                else:
                    mult[j] = 0
            if not fits or size > table_size:
                big_a[n_big] = ia
                big_b[n_big] = ib
                n_big += 1
                continue
            col = 0 if b == full else 1
            for t in range(mask_start[ib], mask_start[ib + 1]):
                p = order[t]
                key = 0
                for j in range(m):
                    if (both >> j) & 1:
                        key += codes[p, j] * mult[j]
                buf_c[key] += cnt[p]
                if weighted:
                    buf_w[key] += wsum[p]
            only_a = a & ~b
            for t in range(mask_start[ia], mask_start[ia + 1]):
                p = order[t]
                key = 0
                for j in range(m):
                    if (both >> j) & 1:
                        key += codes[p, j] * mult[j]
                factor = 1.0
                if prob and only_a:
                    # the source's blanks match the target's values with their shares
                    for j in range(m):
                        if (only_a >> j) & 1:
                            factor *= probs[j, codes[p, j] + 1]
                out[p, col] += factor * buf_c[key]
                if weighted:
                    out[p, col + 2] += factor * buf_w[key]
            for t in range(mask_start[ib], mask_start[ib + 1]):
                p = order[t]
                key = 0
                for j in range(m):
                    if (both >> j) & 1:
                        key += codes[p, j] * mult[j]
                buf_c[key] = 0.0
                if weighted:
                    buf_w[key] = 0.0
    return out, big_a[:n_big].copy(), big_b[:n_big].copy()


def wildcard_support(
    pat: Patterns,
    n_categories: np.ndarray,
    weighted: bool,
    probs: np.ndarray | None = None,
) -> np.ndarray:
    """Per-pattern support split by source type.

    With ``probs`` (shape (n_qis, max categories + 1), see
    :func:`microsdc._kernels.dense.value_shares`), a source pattern s adds to a
    target r its count times the product, over the columns missing in s and
    observed in r, of ``probs[j, r_j + 1]`` (the ``"probabilistic"`` policy).

    Returns
    -------
    ndarray of shape (n_patterns, 4), float64
        Columns: rows from complete patterns, rows from patterns with a missing
        value, then the same two as weight sums (zeros when not weighted).
    """
    from microsdc.encode import combine_codes

    p_total, m = pat.codes.shape
    if p_total == 0:
        return np.zeros((0, 4))
    full = (1 << m) - 1
    if np.all(pat.mask == full):  # no missing value anywhere: exact counts
        out = np.zeros((p_total, 4))
        out[:, 0] = pat.count
        if weighted:
            out[:, 2] = pat.weight
        return out
    base = np.asarray(n_categories, dtype=np.int64) + 1
    dense_size = float(np.prod(base.astype(np.float64)))
    n_masks = len(np.unique(pat.mask))
    if dense_size <= DENSE_LIMIT and dense_size <= 16.0 * n_masks * p_total:
        return _dense_support(pat, base, weighted, probs)
    order = np.argsort(pat.mask, kind="stable")
    sorted_masks = pat.mask[order]
    mask_vals, mask_start = np.unique(sorted_masks, return_index=True)
    mask_start = np.append(mask_start, p_total).astype(np.int64)
    card = np.asarray(n_categories, dtype=np.int64)
    full_size = float(np.prod(card.astype(np.float64))) if m else 1.0
    table_size = int(min(TABLE_LIMIT, max(full_size, 1.0)))
    cnt = pat.count.astype(np.float64)
    prob = probs is not None
    probs_arr = np.ascontiguousarray(probs if prob else np.ones((m, 1)), dtype=np.float64)
    out, big_a, big_b = _pair_support(
        pat.codes,
        order,
        mask_vals,
        mask_start,
        card,
        cnt,
        pat.weight,
        table_size,
        weighted,
        probs_arr,
        prob,
    )
    for ia, ib in zip(big_a.tolist(), big_b.tolist(), strict=True):
        both = int(mask_vals[ia]) & int(mask_vals[ib])
        cols = [j for j in range(m) if (both >> j) & 1]
        src = order[mask_start[ib] : mask_start[ib + 1]]
        tgt = order[mask_start[ia] : mask_start[ia + 1]]
        keys = combine_codes(
            np.concatenate([pat.codes[src][:, cols], pat.codes[tgt][:, cols]]), card[cols]
        )
        uniq, inv = np.unique(keys, return_inverse=True)
        inv = inv.reshape(-1)
        sc = np.bincount(inv[: len(src)], weights=cnt[src], minlength=len(uniq))
        col = 0 if int(mask_vals[ib]) == full else 1
        factor = np.ones(len(tgt))
        if prob:
            only_a = int(mask_vals[ia]) & ~int(mask_vals[ib])
            for j in range(m):
                if (only_a >> j) & 1:
                    factor *= probs_arr[j, pat.codes[tgt, j] + 1]
        out[tgt, col] += factor * sc[inv[len(src) :]]
        if weighted:
            sw = np.bincount(inv[: len(src)], weights=pat.weight[src], minlength=len(uniq))
            out[tgt, col + 2] += factor * sw[inv[len(src) :]]
    return out


def _dense_support(
    pat: Patterns, base: np.ndarray, weighted: bool, probs: np.ndarray | None = None
) -> np.ndarray:
    from microsdc._kernels.dense import dense_keys, probabilistic_sums, wildcard_sums

    m = pat.codes.shape[1]
    key = dense_keys(pat.codes, base)
    complete = pat.mask == (1 << m) - 1
    out = np.zeros((len(key), 4))
    cnt = pat.count.astype(np.float64)
    if probs is not None:
        out[:, 0] = probabilistic_sums(cnt, key, base, probs)[key]
        if weighted:
            out[:, 2] = probabilistic_sums(pat.weight, key, base, probs)[key]
        return out
    total = wildcard_sums(cnt, key, base)[key]
    from_complete = wildcard_sums(np.where(complete, cnt, 0.0), key, base)[key]
    out[:, 0] = from_complete
    out[:, 1] = total - from_complete
    if weighted:
        w_total = wildcard_sums(pat.weight, key, base)[key]
        w_complete = wildcard_sums(np.where(complete, pat.weight, 0.0), key, base)[key]
        out[:, 2] = w_complete
        out[:, 3] = w_total - w_complete
    return out
