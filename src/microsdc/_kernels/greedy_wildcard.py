"""Numba kernels of the greedy local suppression, with incremental frequency counts.

The state (:mod:`microsdc._kernels.masktables`) is a set of count tables, one
per pair (source mask ``b``, column set ``C``): ``T[b, C][v]`` is the number of
records whose observed columns are exactly ``b`` and whose values on ``C`` (a
subset of ``b``) are ``v``. The wildcard support of a target with observed
columns ``A`` and values ``v`` is

    Q(A, v) = sum over masks b present of T[b, A & b][v restricted to A & b],

one hash lookup per mask. Tables are built lazily, the first time a pair is
needed, from a linked list of the records of each mask (masks with very few
records are scanned directly instead). When a record's cells are blanked it
moves from one mask to another: its old key is removed from every table of its
old mask and its new key added to every table of the new one. There is never a
full recount inside the loop. The second count of each key is the weight of
the records still waiting to be processed.

This module imports numba; import it only inside the functions that need it.
Nothing here is recursive: numba cannot reload cached recursive functions.
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
    mask_lookup,
    move_counted,
    support_from,
    waiting_rows,
)

__all__ = ["KIND", "NO_BACKGROUND", "greedy_suppress", "support_many"]

#: Policy codes understood by the kernels.
KIND = {"wildcard": 0, "alpha": 1, "category": 2, "conservative": 3}

#: ``bg`` and ``bg_radix`` of :func:`greedy_suppress` when no record lies outside ``codes``.
NO_BACKGROUND = (np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64))


# --------------------------------------------------------------------------- conservative


@numba.njit(cache=True, nogil=True)
def _min_completion_at_least(codes, idx, cnt, mcols, catcount, k, wt):  # pragma: no cover - numba
    """True when every completion of the columns ``mcols`` keeps >= k of the rows idx[:cnt].

    Rows count with their weights ``wt`` (records per row).

    A completion x chooses, for each column j of ``mcols``, a category present
    in the data; it keeps the rows that are missing on j or equal to x_j. Depth
    first over the columns with an explicit stack (numba cannot cache recursive
    functions): a node fails as soon as fewer than k rows remain, succeeds as
    soon as k rows are missing on every remaining column; a column with a
    category that no remaining row has needs no branching (choosing it keeps
    only the rows missing there, the smallest choice).
    """
    n_m = mcols.shape[0]
    n_cat = catcount.shape[1]
    buf = np.empty((n_m + 1, max(cnt, 1)), dtype=np.int64)
    size = np.zeros(n_m + 1, dtype=np.int64)
    nxt = np.full(n_m + 1, -1, dtype=np.int64)
    seen = np.zeros(max(n_cat, 1), dtype=np.uint8)
    for t in range(cnt):
        buf[0, t] = idx[t]
    size[0] = cnt
    level = 0
    while level >= 0:
        if nxt[level] == -1:  # first visit of this node
            here = size[level]
            here_w = 0
            for t in range(here):
                here_w += wt[buf[level, t]]
            if here_w < k:
                return False
            lower = 0
            for t in range(here):
                s = buf[level, t]
                all_missing = True
                for lv in range(level, n_m):
                    if codes[s, mcols[lv]] >= 0:
                        all_missing = False
                        break
                if all_missing:
                    lower += wt[s]
            if lower >= k:
                level -= 1
                continue
            if level == n_m:
                return False
            j = mcols[level]
            for c in range(n_cat):
                seen[c] = 0
            for t in range(here):
                c = codes[buf[level, t], j]
                if c >= 0:
                    seen[c] = 1
            in_data = 0
            unused = False
            for c in range(n_cat):
                if catcount[j, c] > 0:
                    in_data += 1
                    if seen[c] == 0:
                        unused = True
            if in_data == 0 or unused:
                n_sub = 0
                for t in range(here):
                    s = buf[level, t]
                    if codes[s, j] < 0:
                        buf[level + 1, n_sub] = s
                        n_sub += 1
                size[level + 1] = n_sub
                nxt[level] = n_cat  # no further children
                nxt[level + 1] = -1
                level += 1
                continue
            nxt[level] = 0
        # next child: the next category present in the data
        j = mcols[level]
        c = nxt[level]
        while c < n_cat and catcount[j, c] == 0:
            c += 1
        if c >= n_cat:
            level -= 1
            continue
        nxt[level] = c + 1
        n_sub = 0
        for t in range(size[level]):
            s = buf[level, t]
            v = codes[s, j]
            if v < 0 or v == c:
                buf[level + 1, n_sub] = s
                n_sub += 1
        size[level + 1] = n_sub
        nxt[level + 1] = -1
        level += 1
    return True


@numba.njit(cache=True, nogil=True)
def _conservative_ok(codes, r, newvals, catcount, k, idx, wt):  # pragma: no cover - numba
    """Conservative fk of row r with values ``newvals`` is >= k (row r temporarily rewritten).

    Row s stands for ``wt[s]`` identical records."""
    n, m = codes.shape
    old = codes[r].copy()
    for j in range(m):
        codes[r, j] = newvals[j]
    cnt = np.int64(0)  # int64 from the start: one compiled callee, not a literal one too
    for s in range(n):
        ok = True
        for j in range(m):
            v = newvals[j]
            if v >= 0:
                c = codes[s, j]
                if c >= 0 and c != v:
                    ok = False
                    break
        if ok:
            idx[cnt] = s
            cnt += 1
    n_m = 0
    for j in range(m):
        if newvals[j] < 0:
            n_m += 1
    mcols = np.empty(n_m, dtype=np.int64)
    t = 0
    for j in range(m):
        if newvals[j] < 0:
            mcols[t] = j
            t += 1
    res = _min_completion_at_least(codes, idx, cnt, mcols, catcount, k, wt)
    for j in range(m):
        codes[r, j] = old[j]
    return res


# --------------------------------------------------------------------------- support
# The support helpers take the hash table and mask tables (ht, meta, reg, key, mk, td),
# which grow and are replaced as the greedy runs, and ``data``, the tuple of
# :func:`~microsdc._kernels.masktables.support_from` (without shares: the waiting weights
# are integers) that stays the same objects for a whole run. The tuple is built once per
# kernel call, not per candidate.


@numba.njit(cache=True, nogil=True)
def _support_all(
    ht, meta, reg, key, mk, td, n_masks, a_set, vals, data, n_tables, full, out3
):  # pragma: no cover - numba
    """Wildcard support of (a_set, vals): out3 = (all rows, complete rows, pending rows).

    ``out3`` has 6 slots, the last three are scratch. Returns the new number of tables.
    """
    out = out3[3:]
    q = 0
    qc = 0
    p = 0
    for mid in range(n_masks):
        if mk[mid, MROWS] == 0:
            continue
        b = mk[mid, MVAL]
        n_tables = support_from(
            ht, meta, reg, key, mk, td, mid, a_set & b, vals, data, n_tables, out
        )
        q += out[0]
        p += out[1]
        if b == full:
            qc += out[0]
    out3[0] = q
    out3[1] = qc
    out3[2] = p
    return n_tables


@numba.njit(cache=True, nogil=True)
def _pattern_count(
    ht, meta, reg, key, mk, td, b, cols, vals, data, n_tables, full, out
):  # pragma: no cover - numba
    """Rows of mask ``b`` agreeing with ``vals`` on ``cols``: out = (records, pending weight,
    work), (0, 0) when no row has mask ``b``. Returns the new number of tables."""
    mid = mask_lookup(ht, key, b, full)
    if mid < 0 or mk[mid, MROWS] == 0:
        out[0] = 0
        out[1] = 0
        return n_tables
    return support_from(ht, meta, reg, key, mk, td, mid, cols, vals, data, n_tables, out)


# --------------------------------------------------------------------------- the greedy


@numba.njit(cache=True, nogil=True)
def greedy_suppress(
    codes,
    n_categories,
    order,
    candidates,
    cand_size,
    k,
    kind,
    alpha,
    word_of,
    mult,
    n_words,
    select,
    weight,
    wt,
    bg,
    bg_radix,
    progress=None,
):  # pragma: no cover - numba
    """Blank cells of the rows ``order`` (in that order) until each reaches k.

    Parameters
    ----------
    codes : ndarray of shape (n, m), int64, C-ordered, -1 = missing; modified in place
    n_categories : ndarray of shape (m,), int64
    order : ndarray of shape (r,), int64, rows to process
    candidates : ndarray of shape (c,), int64, column subsets (bit masks) by increasing cost
    cand_size : ndarray of shape (c,), int64, cells in each candidate
    k : float
    kind : int, see ``KIND``
    alpha : float, weight of matches involving a record with missing values (kind 1)
    word_of, mult, n_words : see ``key_layout``
    select : int
        0: the first candidate (cheapest) that reaches k. 1: among the candidates
        with as few cells as the cheapest one reaching k, the one whose new
        pattern newly supports the most rows still waiting in ``order`` (counted
        with ``weight``); ties go to the cheaper candidate.
    weight : ndarray of shape (r,), int64, >= 1
        Weight of each row of ``order`` while it waits (e.g. its deficit k - fk).
    wt : ndarray of shape (n,), int64, >= 1
        Number of identical records each row of ``codes`` stands for (all ones
        for plain records). Counts are sums of ``wt``; a row's blanks apply to
        all its records.
    bg : ndarray of shape (0,) or (prod(bg_radix-wise slots),), int32 or int64
        Records outside ``codes`` that never change (kind 0 only), as wildcard
        sums over a combined key (see :mod:`microsdc._kernels.keyspace`): the fk
        of a candidate pattern is its support among ``codes`` plus ``bg`` at its
        key ``sum_j (code_j + 1) * bg_radix[j]`` (0 for a blank). Empty: none.
    bg_radix : ndarray of shape (0,) or (m,), int64
    progress : ndarray of shape (1,), int64, optional
        Set to the number of rows of ``order`` handled so far, for a thread
        that reports progress while this kernel runs without the GIL.

    Returns
    -------
    blanked : ndarray of shape (r,), int64, column mask blanked in each processed row
    """
    n, m = codes.shape
    full = (1 << m) - 1
    vals = np.empty(m, dtype=np.int64)
    out = np.zeros(3, dtype=np.int64)
    out3 = np.zeros(6, dtype=np.int64)
    pending = waiting_rows(n, order, weight)
    ht, meta, key, mk, n_masks, rnext, rprev, rmask, reg, td = init_state(codes, n_words)
    data = (codes, rnext, pending, wt, word_of, mult)
    n_tables = np.int64(0)
    max_card = 1
    for j in range(m):
        max_card = max(max_card, n_categories[j])
    catcount = np.zeros((m if kind == 3 else 0, max_card), dtype=np.int64)
    scratch = np.empty(n if kind == 3 else 0, dtype=np.int64)
    if kind == 3:
        for i in range(n):
            for j in range(m):
                if codes[i, j] >= 0:
                    catcount[j, codes[i, j]] += wt[i]

    blanked = np.zeros(order.shape[0], dtype=np.int64)
    for oi in range(order.shape[0]):
        if progress is not None:
            progress[0] = oi
        r = order[oi]
        obs = rmask[r]
        ht = begin_row(ht, meta, key, mk, td, rmask, vals, r, n_tables, data)
        if obs == 0:
            continue
        chosen = -1
        best_gain = -1
        best_size = -1
        p0 = 0
        for ci in range(-1, candidates.shape[0]):
            s_set = candidate_blanks(candidates, ci, obs)
            if s_set < 0:
                continue
            if best_size >= 0 and cand_size[ci] > best_size:
                break
            a_set = obs & ~s_set
            ht = reserve(ht, meta, n + n_masks + 2)
            td = grow_rows(td, n_tables + n_masks + 1)
            p = 0
            if kind == 2:
                # exact count of the pattern; the row itself counts once
                n_tables = _pattern_count(
                    ht, meta, reg, key, mk, td, a_set, a_set, vals, data, n_tables, full, out
                )
                q = float(out[0])
                p = out[1]
                if s_set != 0:
                    q += float(wt[r])
                fk = q
            elif kind == 1:
                # sdcMicro freqCalc: complete records and the pattern's own exact
                # matches (row r included, once moved) count 1, the other
                # compatible records with a missing value count alpha. Row r is
                # counted in q (and in qc when complete) at its current mask.
                # With alpha = 0 only the complete records and the own matches
                # count: two lookups instead of one per mask.
                exact_only = alpha == 0.0
                q = 0.0
                if exact_only:
                    n_tables = _pattern_count(
                        ht, meta, reg, key, mk, td, full, a_set, vals, data, n_tables, full, out
                    )
                    qc = float(out[0])
                else:
                    n_tables = _support_all(
                        ht, meta, reg, key, mk, td, n_masks, a_set, vals, data, n_tables, full, out3
                    )
                    q = float(out3[0])
                    qc = float(out3[1])
                    p = out3[2]
                if a_set == full:
                    fk = qc if exact_only else qc + alpha * (q - qc)
                else:
                    n_tables = _pattern_count(
                        ht, meta, reg, key, mk, td, a_set, a_set, vals, data, n_tables, full, out
                    )
                    own = float(out[0])
                    if s_set != 0:
                        own += float(wt[r])  # row r joins the pattern
                        if obs == full:
                            qc -= float(wt[r])  # and is no longer complete
                    fk = qc + own if exact_only else qc + own + alpha * (q - qc - own)
                if exact_only and (s_set == 0 or (fk >= k and select != 0)):
                    # the tie-break weighs the waiting rows compatible with the new
                    # pattern, as for alpha > 0 (they can join it later); counted
                    # over every mask, so only for the candidates that reach k
                    n_tables = _support_all(
                        ht, meta, reg, key, mk, td, n_masks, a_set, vals, data, n_tables, full, out3
                    )
                    p = out3[2]
            else:
                n_tables = _support_all(
                    ht, meta, reg, key, mk, td, n_masks, a_set, vals, data, n_tables, full, out3
                )
                fk = float(out3[0])
                p = out3[2]
                if bg.shape[0] > 0:
                    cell = 0
                    for j in range(m):
                        if (a_set >> j) & 1:
                            cell += (vals[j] + 1) * bg_radix[j]
                    fk += float(bg[cell])
            if s_set == 0:
                p0 = p
            if fk < k:
                continue
            if kind == 3 and a_set != full:
                for j in range(m):
                    vals[j] = codes[r, j] if (a_set >> j) & 1 else -1
                ok = _conservative_ok(codes, r, vals, catcount, k, scratch, wt)
                for j in range(m):
                    vals[j] = codes[r, j]
                if not ok:
                    continue
            if s_set == 0 or select == 0:
                chosen = s_set
                break
            if p - p0 > best_gain:
                best_gain = p - p0
                chosen = s_set
                best_size = cand_size[ci]
        if chosen == 0:
            continue
        if chosen < 0:
            chosen = obs  # no subset reaches k: blank the whole row
        blanked[oi] = chosen
        # move row r from mask obs to mask obs & ~chosen
        if kind == 3:
            for j in range(m):
                if (chosen >> j) & 1:
                    catcount[j, codes[r, j]] -= wt[r]
        ht, mk, reg, _, n_masks = move_counted(
            ht, meta, key, mk, td, reg, n_masks, rprev, rmask, vals, r, chosen, n_tables, data
        )
    return blanked


@numba.njit(cache=True, nogil=True)
def support_many(codes, targets, word_of, mult, n_words, wt):  # pragma: no cover - numba
    """Wildcard support of each target row among the rows of ``codes`` (row s counts ``wt[s]``)."""
    n, m = codes.shape
    full = (1 << m) - 1
    pending = np.zeros(n, dtype=np.int64)
    out3 = np.zeros(6, dtype=np.int64)
    ht, meta, key, mk, n_masks, rnext, _rprev, _rmask, reg, td = init_state(codes, n_words)
    data = (codes, rnext, pending, wt, word_of, mult)
    n_tables = np.int64(0)
    res = np.zeros(targets.shape[0], dtype=np.int64)
    vals = np.empty(m, dtype=np.int64)
    for t in range(targets.shape[0]):
        a_set = np.int64(0)
        for j in range(m):
            vals[j] = targets[t, j]
            if vals[j] >= 0:
                a_set |= 1 << j
        ht = reserve(ht, meta, n + n_masks + 2)
        td = grow_rows(td, n_tables + n_masks + 1)
        n_tables = _support_all(
            ht, meta, reg, key, mk, td, n_masks, a_set, vals, data, n_tables, full, out3
        )
        res[t] = out3[0]
    return res
