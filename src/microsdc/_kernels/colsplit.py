"""Wildcard support of distinct patterns by splitting on one column at a time.

Two patterns are compatible when they agree on every column both observe. The
kernel finds every compatible pair without any combined key, by recursion over
the columns (in a fixed order). A node is a set X whose members agree on the
columns already split, or a pair of disjoint sets (A, B) of which only the
pairs across the two are wanted. Splitting a node on the next column c:

- a set X falls into its groups X_v by value at c and X_* (blank at c): the
  pairs inside each X_v, the pairs inside X_*, and the pairs across (X_*, the
  union of the X_v), since a blank matches every value;
- a pair (A, B) gives the pairs (A_v, B_v) for each value v on both sides,
  (A_*, B) and (A minus A_*, B_*).

Each compatible pair is met exactly once. Once every column is split, all
members of a node are compatible with each other (or with every member of the
other side), and each gets the sum of their values; small nodes compare their
members directly. Nodes whose sides have no value in common end there, which
is what keeps the work near the number of patterns times the number of
columns when the files are sparse; a blank makes its pattern travel with every
value of its column, so the work grows with the share of blanks (not with the
number of missingness masks, nor with the volume of the key space: no key is
ever formed, so nothing can overflow).

The members of a node are a contiguous range of working rows (the patterns'
codes, in lexicographic order at first); splitting moves the rows of the range
in place (blanks first, then by value, a stable counting sort or, for a few
members, an insertion sort), so that a node reads its codes in order rather
than through an index (at 10M patterns, a quarter of the time). Children that
use finer ranges run before those that use coarser ones, so every range a node
was given still holds the same members when it runs. Sets are only ever made by
sets, and run before any pair that moves their rows: a set's rows are still in
lexicographic order, so its groups are found by reading, without a sort. A side
of a pair is sorted on its column and on as many next columns as keep the keys
few (at most ``MULTI_COLUMN_SPAN``, and about twice its members): the groups it
gives on both sides are then in order on those next columns, and their own
children read their groups off too; a union of groups (a side met by the blanks
of the other) is not, and is sorted again. The
codes come in the narrowest integer type that holds them, for the same reason,
and the rows are padded to whole 64-bit words: a row moves a word at a time, and
a direct comparison of two rows tests a word at a time (the codes that differ,
where neither is blank, by a few bit operations). The loop is one function with
no calls inside: a call that passes arrays costs two atomic reference count
updates per array in numba, more than the work of a small node.

This module imports numba; import it only inside the functions that need it.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["split_support"]

#: Nodes with at most this many members on a side (or pairs) compare them directly.
DIRECT_MEMBERS = 4
#: Largest number of keys of a counting sort on several columns at once (the groups of
#: the next columns are then read off, not sorted again).
MULTI_COLUMN_SPAN = 4096


@numba.njit(cache=True, nogil=True)
def _lex_order(codes, card, top):  # pragma: no cover - numba
    """The patterns in lexicographic order of the columns (blanks first): a
    least-significant-digit radix sort, each digit a run of columns spanning at
    most 2^16 keys (or one column of more, ``top`` being the most categories)."""
    n_rows, m = codes.shape
    perm = np.arange(n_rows)
    other = np.empty(n_rows, dtype=np.int64)
    digit = np.empty(n_rows, dtype=np.int64)
    bucket = np.empty(max(1 << 16, top + 1) + 1, dtype=np.int64)
    hi_col = m
    while hi_col > 0:
        lo_col = hi_col - 1
        span = card[lo_col] + 1
        while lo_col > 0 and span * (card[lo_col - 1] + 1) <= 1 << 16:
            lo_col -= 1
            span *= card[lo_col] + 1
        for v in range(span + 1):
            bucket[v] = 0
        for i in range(n_rows):
            x = perm[i]
            k = 0
            for j in range(lo_col, hi_col):
                k = k * (card[j] + 1) + codes[x, j] + 1
            digit[i] = k
            bucket[k + 1] += 1
        for v in range(span):
            bucket[v + 1] += bucket[v]
        for i in range(n_rows):
            k = digit[i]
            other[bucket[k]] = perm[i]
            bucket[k] += 1
        perm, other = other, perm
        hi_col = lo_col
    return perm


@numba.njit(cache=True, nogil=True)
def split_support(codes, card, values):  # pragma: no cover - numba
    """For each pattern, the sums of ``values`` over the patterns compatible with it
    (itself included), shape (n_patterns, n_values).

    ``codes`` (n, m), int8, int16 or int32, holds distinct patterns (-1 = blank),
    columns in the order of the splits (columns of many categories first end
    nodes soonest); ``card`` (m,) their categories; ``values`` (n, n_values),
    float64, what each pattern adds to those compatible with it (its count, its
    weight, ...).
    """
    n_rows, m = codes.shape
    nv = values.shape[1]
    if n_rows == 0:
        return np.zeros((0, nv), dtype=np.float64)
    if n_rows >= 2**31 - 1:  # row ids are 32 bits
        raise ValueError("the split route counts fewer than 2^31 - 1 distinct patterns")
    top = 1
    for j in range(m):
        top = max(top, card[j])
    # the patterns in lexicographic order, so that the rows of a node lie near each other
    perm = _lex_order(codes, card, top)
    values = values[perm]
    n = n_rows
    acc = np.zeros((n, nv), dtype=np.float64)
    # the working rows: the codes, moved by the splits (so that a node reads its rows
    # in order, not through an index), padded to whole 64-bit words (a row moves, and
    # two rows are compared, a word at a time); ``rid``: where each row is in
    # ``values`` and ``acc``
    per_word = 8 // codes.itemsize
    work = np.zeros((n, (m + per_word - 1) // per_word * per_word), dtype=codes.dtype)
    for i in range(n):
        for j in range(m):
            work[i, j] = codes[perm[i], j]
    words = work.view(np.uint64)
    n_words = words.shape[1]
    # in a word, the lowest bit of each code and the shift to its sign bit: a blank
    # (-1) has every bit set, a code none of its sign bits
    bits = 8 * codes.itemsize
    lane_low = np.uint64(0)
    for lane in range(per_word):
        lane_low |= np.uint64(1) << np.uint64(lane * bits)
    lane_shift = np.uint64(bits - 1)
    lane_ones = np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(64 - bits)
    rid = np.arange(n).astype(np.int32)
    tmp = np.empty((n, n_words), dtype=np.uint64)  # rows move a word at a time
    tmp_rid = np.empty(n, dtype=np.int32)
    row = np.empty(n_words, dtype=np.uint64)
    counts = np.empty(max(top + 3, MULTI_COLUMN_SPAN + 2), dtype=np.int64)
    tmp_key = np.empty(n, dtype=np.int64)
    depth = np.zeros(2, dtype=np.int64)  # per side: columns from c its rows are sorted on
    vals = np.empty((2, top + 1), dtype=np.int64)  # per side: the values present ...
    starts = np.empty((2, top + 2), dtype=np.int64)  # ... and where their groups start
    n_blank = np.zeros(2, dtype=np.int64)
    n_groups = np.zeros(2, dtype=np.int64)
    sa = np.empty(nv)
    sb = np.empty(nv)
    # the stack of nodes: (kind, column, a_lo, a_hi, b_lo, b_hi, sorted); kind 0 = a set,
    # 1 = a pair; for a pair, ``sorted`` holds for each side (A in the low byte, B in the
    # next) how many columns from ``column`` on its rows are still in order
    st = np.zeros((1024, 7), dtype=np.int64)
    st[0, 0] = 0
    st[0, 1] = 0
    st[0, 2] = 0
    st[0, 3] = n
    sp = 1
    while sp > 0:
        sp -= 1
        if sp + top + 3 > st.shape[0]:  # room for every child of this node
            grown = np.empty((2 * st.shape[0] + top + 3, 7), dtype=np.int64)
            grown[: sp + 1] = st[: sp + 1]
            st = grown
        kind = st[sp, 0]
        c = st[sp, 1]
        alo = st[sp, 2]
        ahi = st[sp, 3]
        blo = st[sp, 4]
        bhi = st[sp, 5]
        in_order = st[sp, 6]
        na = ahi - alo
        nb = bhi - blo
        if kind == 1 and (na == 0 or nb == 0):
            continue
        if c == m or (kind == 0 and na == 1):  # all compatible: sums
            for t in range(nv):
                sa[t] = 0.0
            for i in range(alo, ahi):
                for t in range(nv):
                    sa[t] += values[rid[i], t]
            if kind == 0:
                for i in range(alo, ahi):
                    for t in range(nv):
                        acc[rid[i], t] += sa[t]
            else:
                for t in range(nv):
                    sb[t] = 0.0
                for i in range(blo, bhi):
                    for t in range(nv):
                        sb[t] += values[rid[i], t]
                for i in range(alo, ahi):
                    for t in range(nv):
                        acc[rid[i], t] += sb[t]
                for i in range(blo, bhi):
                    for t in range(nv):
                        acc[rid[i], t] += sa[t]
            continue
        if (kind == 0 and na <= DIRECT_MEMBERS) or (
            kind == 1 and na * nb <= DIRECT_MEMBERS * (na + nb)
        ):  # compare the members directly on the columns not split yet
            for i in range(alo, ahi):
                x = rid[i]
                if kind == 0:
                    for t in range(nv):
                        acc[x, t] += values[x, t]
                    j_lo = i + 1
                    j_hi = ahi
                else:
                    j_lo = blo
                    j_hi = bhi
                for jj in range(j_lo, j_hi):
                    y = rid[jj]
                    ok = True
                    for q in range(n_words):  # the columns split already agree
                        u = words[i, q]
                        w = words[jj, q]
                        either = (((u | w) >> lane_shift) & lane_low) * lane_ones
                        if (u ^ w) & ~either:
                            ok = False
                            break
                    if ok:
                        for t in range(nv):
                            acc[x, t] += values[y, t]
                            acc[y, t] += values[x, t]
            continue
        # split each side on column c: blanks first, then the groups of each value
        cc = card[c]
        for side in range(kind + 1):
            lo = alo if side == 0 else blo
            hi = ahi if side == 0 else bhi
            size = hi - lo
            # a set's rows are still in lexicographic order: its groups are read off, as
            # are those of a pair's side still in order on c; other sides are sorted
            # first, by insertion or merge when small
            d = (in_order >> (8 * side)) & 255
            ordered = kind == 0 or d > 0
            depth[side] = max(d, 1)
            read_off = ordered or size <= 24 or size * 4 < cc
            if not ordered and size <= 24:  # insertion sort (stable)
                for i in range(lo + 1, hi):
                    kx = work[i, c]
                    j = i
                    while j > lo and work[j - 1, c] > kx:
                        j -= 1
                    if j < i:  # row i moves to j, rows j..i-1 one down
                        x = rid[i]
                        for q in range(n_words):
                            row[q] = words[i, q]
                        for q in range(i, j, -1):
                            rid[q] = rid[q - 1]
                            for w in range(n_words):
                                words[q, w] = words[q - 1, w]
                        rid[j] = x
                        for q in range(n_words):
                            words[j, q] = row[q]
            elif not ordered and read_off:  # far fewer members than values: merge, not count
                keys = np.empty(size, dtype=np.int64)
                for i in range(size):
                    keys[i] = work[lo + i, c]
                by_key = np.argsort(keys, kind="mergesort")
                for i in range(size):
                    tmp_rid[i] = rid[lo + by_key[i]]
                    for q in range(n_words):
                        tmp[i, q] = words[lo + by_key[i], q]
                for i in range(size):
                    rid[lo + i] = tmp_rid[i]
                    for q in range(n_words):
                        words[lo + i, q] = tmp[i, q]
            if read_off:
                nbl = 0
                while nbl < size and work[lo + nbl, c] < 0:
                    nbl += 1
                ng = 0
                prev = -2
                for i in range(lo + nbl, hi):
                    k = work[i, c]
                    if k != prev:
                        vals[side, ng] = k
                        starts[side, ng] = i
                        ng += 1
                        prev = k
            else:  # counting sort (stable), on c and the next columns while the span is small
                limit = min(MULTI_COLUMN_SPAN, 2 * size + 64)
                rest = 1  # keys per value of c: the span of the next columns sorted on
                n_cols = 1
                while c + n_cols < m and (cc + 1) * rest * (card[c + n_cols] + 1) <= limit:
                    rest *= card[c + n_cols] + 1
                    n_cols += 1
                span = (cc + 1) * rest
                for v in range(span + 1):
                    counts[v] = 0
                for i in range(lo, hi):
                    k = 0
                    for j in range(c, c + n_cols):
                        k = k * (card[j] + 1) + work[i, j] + 1
                    tmp_key[i - lo] = k
                    counts[k + 1] += 1
                for v in range(span):
                    counts[v + 1] += counts[v]
                for i in range(lo, hi):
                    k = tmp_key[i - lo]
                    tmp_rid[counts[k]] = rid[i]
                    for q in range(n_words):
                        tmp[counts[k], q] = words[i, q]
                    counts[k] += 1
                for i in range(size):
                    rid[lo + i] = tmp_rid[i]
                    for q in range(n_words):
                        words[lo + i, q] = tmp[i, q]
                depth[side] = n_cols
                # the groups at c (counts now hold the end of each key)
                nbl = counts[rest - 1]
                ng = 0
                for v in range(cc):
                    g_lo = counts[v * rest + rest - 1]
                    g_hi = counts[(v + 1) * rest + rest - 1]
                    if g_hi > g_lo:
                        vals[side, ng] = v
                        starts[side, ng] = lo + g_lo
                        ng += 1
            starts[side, ng] = hi
            n_blank[side] = nbl
            n_groups[side] = ng
        # the children, coarse ranges first so that the finer ones run first
        if kind == 0:
            nbl = n_blank[0]
            if 0 < nbl < na:  # blanks at c against the rest
                st[sp] = (1, c + 1, alo, alo + nbl, alo + nbl, ahi, 0)
                sp += 1
            if nbl > 0:  # blanks at c among themselves
                st[sp] = (0, c + 1, alo, alo + nbl, 0, 0, 0)
                sp += 1
            for g in range(n_groups[0]):  # each value among itself
                st[sp] = (0, c + 1, starts[0, g], starts[0, g + 1], 0, 0, 0)
                sp += 1
        else:
            nba = n_blank[0]
            nbb = n_blank[1]
            # a group of a side in order on c and the next columns is in order on the
            # next ones; a union of groups is not
            da = depth[0] - 1
            db = (depth[1] - 1) << 8
            if nba > 0:  # A blank at c against all of B
                st[sp] = (1, c + 1, alo, alo + nba, blo, bhi, da)
                sp += 1
            if nbb > 0 and nba < na:  # the rest of A against B blank at c
                st[sp] = (1, c + 1, alo + nba, ahi, blo, blo + nbb, db)
                sp += 1
            i = 0
            j = 0
            while i < n_groups[0] and j < n_groups[1]:  # each value on both sides
                if vals[0, i] == vals[1, j]:
                    st[sp] = (
                        1,
                        c + 1,
                        starts[0, i],
                        starts[0, i + 1],
                        starts[1, j],
                        starts[1, j + 1],
                        da | db,
                    )
                    sp += 1
                    i += 1
                    j += 1
                elif vals[0, i] < vals[1, j]:
                    i += 1
                else:
                    j += 1
    out = np.empty((n, nv), dtype=np.float64)
    for i in range(n):
        out[perm[i]] = acc[i]
    return out
