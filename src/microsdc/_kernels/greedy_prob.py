"""Numba kernel of the greedy local suppression under missing="probabilistic".

The state is that of :mod:`microsdc._kernels.masktables`: per pair (source
mask ``b``, column set ``C``) a count table ``T[b, C][v]`` of the records whose
observed columns are exactly ``b`` and whose values on ``C`` are ``v``. The
probabilistic count of a target with observed columns ``A`` and values ``v``
is

    fk(A, v) = sum over masks b of T[b, A & b][v on A & b] * prod over c in A - b of p_c(v_c),

a source's blank matching the target's value with that value's share. The
shares are those at the start of the call (the caller recounts exactly
afterwards and calls again for the records still at risk).

Each table slot also carries the weight of the records still waiting, each
multiplied by the product of its shares over ``b - C``: the support that a
pattern observed on ``C`` would give them. That is what a candidate's new
pattern adds to the records still at risk, the greedy's tie-break. Weights
are stored in fixed point (:data:`~microsdc._kernels.masktables.SCALE`).

Before a candidate is counted, cheaper counts may rule it out. The
count of a pattern can only fall when a column is added to it (each factor
of a source is 1, a share or 0), so it is at most the count of any single
column or pair of columns it keeps, and these are read from tallies kept up
to date as rows move: per column, the records with each value and the blanks;
per pair of columns, the records with each pair of values, blanks included
(a hash table; the caller says whether it fits). A candidate keeping a
column or a pair whose count is below k cannot reach k and is skipped
without a walk over the masks. Once the failed counts of a row have read a
good part of the data (``_LIST_AFTER``), the records compatible with it on
at least two of its columns are listed once (grouped by their compatible
and blank columns), and each next candidate is first counted on that list,
a sum over a few groups instead of a walk. These counts only skip
candidates (with a margin for rounding); the walks of the candidates left
give the same answers as before, so the cells blanked do not change.

This module imports numba; import it only inside the functions that need it.
"""

from __future__ import annotations

import numba
import numpy as np

from microsdc._kernels.hashtable import grow_rows, reserve
from microsdc._kernels.masktables import (
    MROWS,
    MVAL,
    begin_row,
    candidate_blanks,
    init_state,
    move_counted,
    share_product,
    support_from,
    waiting_rows,
)

__all__ = ["greedy_probabilistic"]

#: The records of a mask are scanned the first this many times a (mask, columns) pair is
#: asked for (dense registry), then the pair is tabulated: many are never asked again.
_BUILD_AFTER = 2
#: Up to this many columns, the values present in each mask are tallied (a filter and a
#: bound on each mask's share of a count) ...
_PRESENT_BITS = 10
#: ... and when the tally has at most this many entries.
_PRESENT_MAX = 1 << 22
#: Rounding allowed for a bounded count: the walk stops once it cannot reach k - this.
_MARGIN = 1e-9
#: A candidate is skipped when the count of one column or pair it keeps is below k by more
#: than this (sums in another order than the walk's must not decide).
_PRUNE_MARGIN = 1e-7
#: A row's compatible records are listed once the walks of its failed candidates have read
#: this many rows and masks per row of the data (listing reads each row once). Measured
#: on adult_missing (8 QIs, k = 3, 5) and on 10 QIs of 2 to 50 values: 1/4 beats 1/16, 1
#: and the number of columns; listing after two failed counts made adult_missing 5 times
#: slower (its failed walks are short, the listing reads every record).
_LIST_AFTER = 0.25
#: Multiplier of the pair tally's hash (Fibonacci hashing).
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True, nogil=True)
def _pair_slot(keys, shift, key):  # pragma: no cover - numba
    """Slot of ``key`` in the open-addressing table ``keys`` (-1 = empty)."""
    mask = keys.shape[0] - 1
    i = np.int64((np.uint64(key) * _GOLDEN) >> np.uint64(shift))
    while keys[i] >= 0 and keys[i] != key:
        i = (i + 1) & mask
    return i


@numba.njit(cache=True, nogil=True)
def _pair_add(tally, key, d):  # pragma: no cover - numba
    """Add ``d`` under ``key`` in the pair tally (keys, counts, shift, used); returns it,
    grown when the load would pass 1/2."""
    keys, counts, shift, used = tally
    s = _pair_slot(keys, shift, key)
    if keys[s] < 0:
        if 2 * (used + 1) > keys.shape[0]:
            cap = keys.shape[0] * 2
            nk = np.full(cap, -1, dtype=np.int64)
            nc = np.zeros(cap, dtype=np.int64)
            shift -= 1
            for i in range(keys.shape[0]):
                if keys[i] >= 0:
                    t = _pair_slot(nk, shift, keys[i])
                    nk[t] = keys[i]
                    nc[t] = counts[i]
            keys, counts = nk, nc
            s = _pair_slot(keys, shift, key)
        keys[s] = key
        used += 1
    counts[s] += d
    return keys, counts, shift, used


@numba.njit(cache=True, nogil=True)
def _pair_get(tally, key):  # pragma: no cover - numba
    keys, counts, shift, _ = tally
    s = _pair_slot(keys, shift, key)
    return counts[s] if keys[s] >= 0 else 0


@numba.njit(cache=True, nogil=True)
def _pair_key(pair, u, w, base):  # pragma: no cover - numba
    """Key of values u, w (-1 = blank) of the pair of columns number ``pair``."""
    return (pair * base + u + 1) * base + w + 1


@numba.njit(cache=True, nogil=True)
def _tally_row(cnt1, tally, pidx, vals, d, base, pairs):  # pragma: no cover - numba
    """Add ``d`` records with values ``vals`` to the single-column (and pair) tallies."""
    m = vals.shape[0]
    for j in range(m):
        cnt1[j, vals[j] + 1] += d
    if pairs:
        for a in range(m):
            for b in range(a + 1, m):
                tally = _pair_add(tally, _pair_key(pidx[a, b], vals[a], vals[b], base), d)
    return tally


@numba.njit(cache=True, nogil=True)
def _weak_columns(cnt1, tally, pidx, vals, obs, shares, base, pairs, thr, bad):  # pragma: no cover
    """Columns of ``obs`` whose count alone is below ``thr`` (a bit set), and in ``bad[j]``
    the columns that count below ``thr`` together with column j."""
    m = vals.shape[0]
    weak = 0
    for j in range(m):
        bad[j] = 0
        if (obs >> j) & 1:
            v = vals[j]
            if cnt1[j, v + 1] + cnt1[j, 0] * shares[j, v] < thr:
                weak |= 1 << j
    if not pairs:
        return weak
    for a in range(m):
        if not (obs >> a) & 1 or (weak >> a) & 1:
            continue
        pa = shares[a, vals[a]]
        for b in range(a + 1, m):
            if not (obs >> b) & 1 or (weak >> b) & 1:
                continue
            pb = shares[b, vals[b]]
            pi = pidx[a, b]
            f = (
                _pair_get(tally, _pair_key(pi, vals[a], vals[b], base))
                + _pair_get(tally, _pair_key(pi, vals[a], -1, base)) * pb
                + _pair_get(tally, _pair_key(pi, -1, vals[b], base)) * pa
                + _pair_get(tally, _pair_key(pi, -1, -1, base)) * pa * pb
            )
            if f < thr:
                bad[a] |= 1 << b
                bad[b] |= 1 << a
    return weak


@numba.njit(cache=True, nogil=True)
def _list_sources(codes, wt, obs, vals, lc, lb, lw):  # pragma: no cover - numba
    """List, for the row with observed columns ``obs`` and values ``vals``, the records
    compatible with it on at least two of those columns: per distinct (compatible
    columns, blank columns among them), in ``lc``, ``lb``, their records in ``lw``.
    Returns the length of the list."""
    n, m = codes.shape
    keys = np.empty(n, dtype=np.int64)
    w = np.empty(n, dtype=np.int64)
    size = 0
    for s in range(n):
        c = 0
        b = 0
        ones = 0
        for j in range(m):
            if (obs >> j) & 1:
                x = codes[s, j]
                if x == vals[j]:
                    c |= 1 << j
                    ones += 1
                elif x < 0:
                    c |= 1 << j
                    b |= 1 << j
                    ones += 1
        if ones >= 2:
            keys[size] = c | (b << m)
            w[size] = wt[s]
            size += 1
    srt = np.argsort(keys[:size])
    n_out = 0
    for t in range(size):
        key = keys[srt[t]]
        if n_out > 0 and (lc[n_out - 1] | (lb[n_out - 1] << m)) == key:
            lw[n_out - 1] += w[srt[t]]
            continue
        lc[n_out] = key & ((1 << m) - 1)
        lb[n_out] = key >> m
        lw[n_out] = w[srt[t]]
        n_out += 1
    return n_out


@numba.njit(cache=True, nogil=True)
def _list_count(lc, lb, lw, size, a_set, shares, vals):  # pragma: no cover - numba
    """Probabilistic count of the columns ``a_set`` (at least two) from the list of
    :func:`_list_sources`."""
    f = 0.0
    for t in range(size):
        if a_set & ~lc[t]:
            continue
        f += lw[t] * share_product(shares, vals, a_set & lb[t])
    return f


@numba.njit(cache=True, nogil=True)
def _support_all(
    ht, meta, reg, key, mk, td, n_masks, a_set, vals, data, n_tables, out, res, walk, stop
):  # pragma: no cover - numba
    """Probabilistic count of (a_set, vals) into res[0], scaled waiting support into res[1].

    ``walk`` is the tuple (present, morder, mweight, ub). ``present[b, j, v]``
    counts the records of mask ``b`` with value v in column j (empty first axis:
    not used); a mask lacking one of the target's values on the columns both
    observe is skipped. Masks are visited in the order
    ``morder``; the walk stops once the count reaches ``stop`` (the waiting
    support is then partial). With a finite ``stop`` and the tally, each mask's
    share is first bounded by its fewest records carrying one of the target's
    values (``mweight[b]``: records of mask b; ``ub``: scratch per mask id), and
    the walk also stops once the count cannot reach ``stop`` (res[0] then holds
    a bound below it). Returns the new number of tables.
    """
    shares = data[6]
    present, morder, mweight, ub = walk
    q = 0.0
    p = 0.0
    use_present = present.shape[0] > 0
    bounded = use_present and stop < np.inf
    rem = 0.0
    if bounded:
        for t in range(n_masks):
            mid = morder[t]
            ub[mid] = 0.0
            if mk[mid, MROWS] == 0:
                continue
            b = mk[mid, MVAL]
            common = a_set & b
            lim = mweight[b]
            j = 0
            while common:
                if common & 1 and present[b, j, vals[j]] < lim:
                    lim = present[b, j, vals[j]]
                common >>= 1
                j += 1
            if lim > 0:
                ub[mid] = lim * share_product(shares, vals, a_set & ~b)
                rem += ub[mid]
        if rem < stop - _MARGIN:
            res[0] = rem
            res[1] = 0.0
            return n_tables
    if bounded:
        out[2] += n_masks
    for t in range(n_masks):
        if q >= stop:
            break
        mid = morder[t]
        out[2] += 1
        if mk[mid, MROWS] == 0:
            continue
        b = mk[mid, MVAL]
        if bounded:
            if ub[mid] == 0.0:
                continue
            if q + rem < stop - _MARGIN:
                break
            rem -= ub[mid]
        elif use_present:
            common = a_set & b
            j = 0
            miss = False
            while common:
                if common & 1 and present[b, j, vals[j]] == 0:
                    miss = True
                    break
                common >>= 1
                j += 1
            if miss:
                continue
        cols = a_set & b  # the columns the target and mask b both observe
        n_tables = support_from(
            ht, meta, reg, key, mk, td, mid, cols, vals, data, n_tables, out, shares, _BUILD_AFTER
        )
        if out[0] > 0:
            q += out[0] * share_product(shares, vals, a_set & ~b)
        p += out[1]
    res[0] = q
    res[1] = p
    return n_tables


@numba.njit(cache=True, nogil=True)
def greedy_probabilistic(
    codes,
    order,
    candidates,
    cand_class,
    k,
    shares,
    word_of,
    mult,
    n_words,
    weight,
    wt,
    select_max,
    bounds=7,
    progress=None,
):  # pragma: no cover - numba
    """Blank cells of the rows ``order`` (in that order) until each reaches k.

    Parameters
    ----------
    codes : ndarray of shape (n, m), int64, C-ordered, -1 = missing; modified in place
    order : ndarray of shape (r,), int64, rows to process
    candidates : ndarray of shape (c,), int64, column subsets (bit masks) by increasing cost
    cand_class : ndarray of shape (c,), int64, interchangeable candidates share a class
    k : float
    shares : ndarray of shape (m, max categories), float64, share of each value per column
    word_of, mult, n_words : see :func:`microsdc._kernels.masktables.key_layout`
    weight : ndarray of shape (r,), float64, >= 0
        Weight of each row of ``order`` while it waits (its deficit k - fk times its records).
    wt : ndarray of shape (n,), int64, >= 1, records each row stands for
    select_max : int
        Candidates of a class above this one are taken as soon as one reaches k
        (no tie-break: a count can then stop as soon as it is decided).
    bounds : int, default 7
        Bit set of the bounds that skip candidates: 1 or 2, the counts of
        single columns; 2, also of pairs of columns (a tally of up to 32 bytes
        per row and pair); 4, once the failed counts of a row have read
        ``_LIST_AFTER`` rows and masks per row of the data, its count on the
        records compatible with it on two columns or more (at most 31 columns).
        0: count every candidate (the same blanks, more slowly).
    progress : ndarray of shape (1,), int64, optional
        Receives the position in ``order`` of the row being handled, for a
        helper thread that reports progress while this kernel runs without the GIL.

    A row whose count (with the shares given) already reaches k when its turn
    comes is skipped. Otherwise, among the candidates of the cheapest class
    that brings it to k, the first (class above ``select_max``) or the one
    whose new pattern adds the most support to the rows still waiting (ties to
    the cheaper) is taken; when none does, every observed cell of the row is
    blanked. A candidate that keeps a column, or a pair of columns, whose count
    alone is below k is skipped uncounted (see the module docstring): it could
    not reach k.

    Returns
    -------
    blanked : ndarray of shape (r,), int64, column mask blanked in each processed row
    """
    n, m = codes.shape
    vals = np.empty(m, dtype=np.int64)
    out = np.zeros(3, dtype=np.int64)  # records, scaled waiting weight, work of the walks
    res = np.zeros(2, dtype=np.float64)
    pending = waiting_rows(n, order, weight)
    ht, meta, key, mk, n_masks, rnext, rprev, rmask, reg, td = init_state(codes, n_words)
    data = (codes, rnext, pending, wt, word_of, mult, shares)
    n_tables = 0
    tol = 1e-9
    max_card = shares.shape[1]
    tally = m <= _PRESENT_BITS and (1 << m) * m * max_card <= _PRESENT_MAX
    present = np.zeros(((1 << m) if tally else 0, m, max_card), dtype=np.int64)
    mweight = np.zeros(present.shape[0], dtype=np.int64)
    ub = np.zeros(present.shape[0], dtype=np.float64)
    if present.shape[0] > 0:
        for i in range(n):
            b = rmask[i]
            mweight[b] += wt[i]
            for j in range(m):
                if codes[i, j] >= 0:
                    present[b, j, codes[i, j]] += wt[i]
    blanked = np.zeros(order.shape[0], dtype=np.int64)
    weigh = candidates.shape[0] > 0 and cand_class[0] <= select_max
    # tallies of single columns and pairs of columns: the bounds that skip candidates
    base = max_card + 1
    n_pairs = m * (m - 1) // 2
    pairs = bounds & 2 != 0 and n_pairs > 0 and float(n_pairs) * base * base < 2.0**62
    pidx = np.zeros((m, m), dtype=np.int64)
    p_id = 0
    for a in range(m):
        for b in range(a + 1, m):
            pidx[a, b] = p_id
            p_id += 1
    cnt1 = np.zeros((m, base), dtype=np.int64)
    ptab = (np.full(1 << 10, -1, dtype=np.int64), np.zeros(1 << 10, dtype=np.int64), 54, 0)
    for i in range(n):
        for j in range(m):
            vals[j] = codes[i, j]
        ptab = _tally_row(cnt1, ptab, pidx, vals, wt[i], base, pairs)
    bad = np.zeros(m, dtype=np.int64)
    thr = k - tol - _PRUNE_MARGIN
    listing = bounds & 4 != 0 and m <= 31
    n_list = n if listing else 0
    lc = np.empty(n_list, dtype=np.int64)
    lb = np.empty(n_list, dtype=np.int64)
    lw = np.empty(n_list, dtype=np.float64)
    morder = np.arange(max(n_masks, 1), dtype=np.int64)
    for oi in range(order.shape[0]):
        if progress is not None:
            progress[0] = oi
        if oi % 64 == 0:  # largest masks first: the walk can stop early
            morder = np.argsort(-mk[:n_masks, MROWS], kind="mergesort")
        r = order[oi]
        obs = rmask[r]
        ht = begin_row(ht, meta, key, mk, td, rmask, vals, r, n_tables, data, shares)
        if obs == 0:
            continue
        wasted = 0  # work of the walks of this row that failed
        listed = -1
        weak = 0
        if bounds & 3:
            weak = _weak_columns(cnt1, ptab, pidx, vals, obs, shares, base, pairs, thr, bad)
        chosen = -1
        best_gain = 0.0
        best_class = -1
        p0 = 0.0
        for ci in range(-1, candidates.shape[0]):
            s_set = candidate_blanks(candidates, ci, obs)
            if s_set < 0:
                continue
            if best_class >= 0 and cand_class[ci] != best_class:
                break
            a_set = obs & ~s_set
            if ci >= 0 or not weigh:
                if a_set & weak:
                    continue  # keeps a column whose count alone is below k
                dead = False
                rest = a_set
                j = 0
                while rest:
                    if rest & 1 and bad[j] & a_set:
                        dead = True
                        break
                    rest >>= 1
                    j += 1
                if dead:
                    continue  # keeps a pair of columns whose count is below k
                if listing and wasted >= _LIST_AFTER * n and a_set & (a_set - 1):
                    if listed < 0:
                        listed = _list_sources(codes, wt, obs, vals, lc, lb, lw)
                    if _list_count(lc, lb, lw, listed, a_set, shares, vals) < thr:
                        continue  # counted on the records compatible on two columns
            ht = reserve(ht, meta, n + n_masks + 2)
            td = grow_rows(td, n_tables + n_masks + 1)
            work0 = out[2]
            state = (ht, meta, reg, key, mk, td)
            walk = (present, morder, mweight, ub)
            weighed = (ci < 0 and weigh) or (ci >= 0 and cand_class[ci] <= select_max)
            stop = np.inf if weighed else k
            n_tables = _support_all(
                *state, n_masks, a_set, vals, data, n_tables, out, res, walk, stop
            )
            if s_set == 0:
                p0 = res[1]
            if res[0] < k - tol:
                wasted += out[2] - work0
                continue
            if s_set == 0:
                chosen = 0
                break
            if cand_class[ci] > select_max:
                chosen = s_set
                break
            if best_class < 0 or res[1] - p0 > best_gain:
                best_gain = res[1] - p0
                chosen = s_set
                best_class = cand_class[ci]
        if chosen == 0:
            continue
        if chosen < 0:
            chosen = obs  # no subset reaches k: blank the whole row
        blanked[oi] = chosen
        # move row r from mask obs to mask obs & ~chosen (it waits no more: weight 0)
        ptab = _tally_row(cnt1, ptab, pidx, vals, -wt[r], base, pairs)
        if present.shape[0] > 0:
            b2 = obs & ~chosen
            mweight[obs] -= wt[r]
            mweight[b2] += wt[r]
            for j in range(m):
                if (obs >> j) & 1:
                    present[obs, j, vals[j]] -= wt[r]
                    if (b2 >> j) & 1:
                        present[b2, j, vals[j]] += wt[r]
        ht, mk, reg, mid2, n_masks = move_counted(
            ht, meta, key, mk, td, reg, n_masks, rprev, rmask, vals, r, chosen, n_tables, data
        )
        ptab = _tally_row(cnt1, ptab, pidx, vals, wt[r], base, pairs)
        if mid2 >= morder.shape[0]:
            morder = np.append(morder, mid2)
    return blanked
