"""Minimal sample uniques (MSUs): a depth-first search over sorted partitions.

The search walks the tree of item sets ``{(column, value), ...}`` with columns in
increasing order; a node holds the list of distinct patterns that match its item
set (its partition). A node is split column by column into its children, the
partition of each child being a contiguous slice of the split (a counting sort by
the column's code). A child whose support is 1 is unique: its one pattern is the
only record with these values, so the item set is a candidate MSU of that record
and the search does not go below it (a superset of a unique set is never minimal).
A child is searched further only while it holds a pattern of count 1 that owns
every item (a record that can still have an MSU below it) and its size is below
the largest MSU size asked for.

Children are visited with columns in *decreasing* order. In that order every proper
subset of an item set is visited before the set itself, so a unique set found for a
record is minimal exactly when none of the MSUs already found for that record is a
subset of it (the MSUs of a record are kept as column bit masks). This replaces the
"special row" test of SUDA2 (Manning, Haglin & Keane 2008) by a bit-mask test.

Missing values (-1): with ``wildcard`` a pattern with a missing value in the split
column matches every value and goes into every child (it adds support but owns no
item there); otherwise it matches no value and leaves the partition. A pattern never
owns an item set that contains one of its missing columns.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["msu_search"]

#: a node with at most FEW records that can have an MSU, or at most SMALL patterns, is
#: searched record by record on match masks instead of being split further
FEW = 1
SMALL = 0


@numba.njit(cache=True, nogil=True)
def _grow(a: np.ndarray, need: int) -> np.ndarray:  # pragma: no cover - numba
    if need <= a.shape[0]:
        return a
    size = max(need, 2 * a.shape[0])
    b = np.empty(size, dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@numba.njit(cache=True, nogil=True)
def _split(
    stack, lo, hi, out, codes, c, wildcard, cnt, touched, gstart, gend, gb
):  # pragma: no cover - numba
    """Group ``stack[lo:hi]`` by the code of column ``c`` into ``stack[out:]``.

    Returns the (possibly grown) stack, the number of groups (written at ``gb`` in
    ``gstart``/``gend``) and the end of the written region.
    """
    nt = 0
    nmiss = 0
    for e in range(lo, hi):
        v = codes[stack[e], c]
        if v < 0:
            nmiss += 1
        else:
            if cnt[v] == 0:
                touched[nt] = v
                nt += 1
            cnt[v] += 1
    if nt == 0:
        return stack, 0, out
    extra = nmiss if wildcard else 0
    need = out + (hi - lo - nmiss) + extra * nt
    stack = _grow(stack, need)
    pos = out
    for t in range(nt):
        v = touched[t]
        k = cnt[v]
        gstart[gb + t] = pos
        gend[gb + t] = pos + k + extra
        cnt[v] = pos  # write pointer
        pos += k + extra
    for e in range(lo, hi):
        p = stack[e]
        v = codes[p, c]
        if v >= 0:
            stack[cnt[v]] = p
            cnt[v] += 1
    if extra:
        for e in range(lo, hi):
            p = stack[e]
            if codes[p, c] < 0:
                for t in range(nt):
                    v = touched[t]
                    stack[cnt[v]] = p
                    cnt[v] += 1
    for t in range(nt):
        cnt[touched[t]] = 0
    return stack, nt, pos


@numba.njit(cache=True, nogil=True)
def _add_msu(p, mask, head, out_pat, out_mask, out_next, n_out):  # pragma: no cover - numba
    """Record ``mask`` as an MSU of pattern ``p`` unless it contains one already found.

    Returns the arrays (possibly grown) and the new number of MSUs."""
    q = head[p]
    while q >= 0:
        mm = out_mask[q]
        if (mm & mask) == mm:
            return out_pat, out_mask, out_next, n_out
        q = out_next[q]
    if n_out == out_pat.shape[0]:
        out_pat = _grow(out_pat, n_out + 1)
        out_mask = _grow(out_mask, n_out + 1)
        out_next = _grow(out_next, n_out + 1)
    out_pat[n_out] = p
    out_mask[n_out] = mask
    out_next[n_out] = head[p]
    head[p] = n_out
    return out_pat, out_mask, out_next, n_out + 1


@numba.njit(cache=True, nogil=True)
def _record_search(
    r, node_mask, last, base_size, stack, a, b, codes, wildcard, max_size, raw, lbuf, state
):  # pragma: no cover - numba
    """The MSUs of one record ``r`` below the node ``stack[a:b]`` (items ``node_mask``).

    Each other record of the node becomes the mask of the remaining columns on which
    it matches ``r``; an extension ``J`` of the node is unique when no such mask
    holds ``J``. The extensions are walked in the order of the main search (columns
    decreasing), so minimality is again a subset test against the MSUs found."""
    head, out_pat, out_mask, out_next, n_out = state
    m = codes.shape[1]
    own = np.int64(0)
    for c in range(last + 1, m):
        if codes[r, c] >= 0:
            own |= np.int64(1) << c
    if own == 0:
        return out_pat, out_mask, out_next, n_out
    k = 0
    for f in range(a, b):
        s = stack[f]
        if s == r:
            continue
        am = np.int64(0)
        for c in range(last + 1, m):
            if (own >> c) & 1:
                v = codes[s, c]
                if v == codes[r, c] or (wildcard and v < 0):
                    am |= np.int64(1) << c
        if am == own:  # matches r on every remaining item: nothing below is unique
            return out_pat, out_mask, out_next, n_out
        raw[k] = am
        k += 1
    srt = np.sort(raw[:k])
    n_l = 0
    for t in range(k):
        if t == 0 or srt[t] != srt[t - 1]:
            lbuf[n_l] = srt[t]
            n_l += 1
    depth_cap = m + 1
    lev_lo = np.empty(depth_cap, dtype=np.int64)
    lev_hi = np.empty(depth_cap, dtype=np.int64)
    jm = np.empty(depth_cap, dtype=np.int64)
    jlast = np.empty(depth_cap, dtype=np.int64)
    jcol = np.empty(depth_cap, dtype=np.int64)
    lev_lo[0] = 0
    lev_hi[0] = n_l
    jm[0] = 0
    jlast[0] = last
    jcol[0] = m - 1
    dd = 0
    while dd >= 0:
        c = jcol[dd]
        if c <= jlast[dd]:
            dd -= 1
            continue
        jcol[dd] -= 1
        if not (own >> c) & 1:
            continue
        lo = lev_lo[dd]
        hi = lev_hi[dd]
        w = hi
        for t in range(lo, hi):
            if (lbuf[t] >> c) & 1:
                lbuf[w] = lbuf[t]
                w += 1
        nk = w - hi
        if nk == 0:
            out_pat, out_mask, out_next, n_out = _add_msu(
                r, node_mask | jm[dd] | (np.int64(1) << c), head, out_pat, out_mask, out_next, n_out
            )
        elif nk == hi - lo:
            continue  # every matching record has this value too
        elif base_size + dd + 1 < max_size:
            e = dd + 1
            lev_lo[e] = hi
            lev_hi[e] = w
            jm[e] = jm[dd] | (np.int64(1) << c)
            jlast[e] = c
            jcol[e] = m - 1
            dd = e
    return out_pat, out_mask, out_next, n_out


@numba.njit(cache=True, nogil=True)
def msu_search(codes, counts, n_categories, wildcard, max_size):  # pragma: no cover - numba
    """All minimal sample uniques of the distinct patterns ``codes``.

    Parameters
    ----------
    codes : int32 array (n_patterns, m), C-ordered; -1 = missing; rows distinct
    counts : int64 array (n_patterns,), records per pattern
    n_categories : int64 array (m,), codes of column j are in [0, n_categories[j])
    wildcard : bool, a missing value matches every value (else none)
    max_size : int, largest MSU size searched (<= m)

    Returns
    -------
    pattern : int64 array (n_msus,), the pattern (of count 1) each MSU belongs to
    mask : int64 array (n_msus,), the MSU's columns as a bit mask
    """
    n_pat, m = codes.shape
    miss = np.zeros(n_pat, dtype=np.int64)
    for p in range(n_pat):
        b = 0
        for j in range(m):
            if codes[p, j] < 0:
                b |= np.int64(1) << j
        miss[p] = b
    stack = np.empty(max(2 * n_pat, 16), dtype=np.int64)
    for p in range(n_pat):
        stack[p] = p
    max_cat = 1
    for j in range(m):
        max_cat = max(max_cat, n_categories[j])
    cnt = np.zeros(max_cat, dtype=np.int64)
    touched = np.empty(max_cat, dtype=np.int64)
    gstart = np.empty((m + 1) * max_cat + 1, dtype=np.int64)
    gend = np.empty((m + 1) * max_cat + 1, dtype=np.int64)
    node_lo = np.zeros(m + 1, dtype=np.int64)
    node_hi = np.zeros(m + 1, dtype=np.int64)
    node_last = np.zeros(m + 1, dtype=np.int64)
    node_mask = np.zeros(m + 1, dtype=np.int64)
    col = np.zeros(m + 1, dtype=np.int64)
    split_col = np.zeros(m + 1, dtype=np.int64)
    reg_hi = np.zeros(m + 1, dtype=np.int64)
    g_base = np.zeros(m + 1, dtype=np.int64)
    g_n = np.zeros(m + 1, dtype=np.int64)
    g_i = np.zeros(m + 1, dtype=np.int64)
    head = np.full(n_pat, -1, dtype=np.int64)
    raw = np.empty(max(n_pat, 1), dtype=np.int64)
    lbuf = np.empty((m + 2) * min(max(n_pat, 1), np.int64(1) << min(m, 40)), dtype=np.int64)
    out_pat = np.empty(1024, dtype=np.int64)
    out_mask = np.empty(1024, dtype=np.int64)
    out_next = np.empty(1024, dtype=np.int64)
    n_out = 0
    if n_pat == 0 or m == 0 or max_size < 1:
        return out_pat[:0].copy(), out_mask[:0].copy()

    total = 0
    for p in range(n_pat):
        total += counts[p]
    d = 0
    node_lo[0] = 0
    node_hi[0] = n_pat
    node_last[0] = -1
    col[0] = m - 1
    reg_hi[0] = n_pat
    while d >= 0:
        if g_i[d] < g_n[d]:
            g = g_base[d] + g_i[d]
            g_i[d] += 1
            a = gstart[g]
            b = gend[g]
            c = split_col[d]
            cmask = node_mask[d] | (np.int64(1) << c)
            sup = 0
            cand = -1
            ncand = 0
            for e in range(a, b):
                p = stack[e]
                sup += counts[p]
                if counts[p] == 1 and (miss[p] & cmask) == 0:
                    cand = p
                    ncand += 1
            if cand < 0:
                continue
            if sup == 1:
                out_pat, out_mask, out_next, n_out = _add_msu(
                    cand, cmask, head, out_pat, out_mask, out_next, n_out
                )
            elif d + 1 >= max_size or c >= m - 1:
                continue
            elif ncand <= FEW or b - a <= SMALL:
                for e in range(a, b):
                    p = stack[e]
                    if counts[p] == 1 and (miss[p] & cmask) == 0:
                        out_pat, out_mask, out_next, n_out = _record_search(
                            p,
                            cmask,
                            c,
                            d + 1,
                            stack,
                            a,
                            b,
                            codes,
                            wildcard,
                            max_size,
                            raw,
                            lbuf,
                            (head, out_pat, out_mask, out_next, n_out),
                        )
            else:
                e = d + 1
                node_lo[e] = a
                node_hi[e] = b
                node_last[e] = c
                node_mask[e] = cmask
                col[e] = m - 1
                reg_hi[e] = reg_hi[d]
                g_base[e] = g_base[d] + g_n[d]
                g_n[e] = 0
                g_i[e] = 0
                d = e
        elif col[d] > node_last[d]:
            c = col[d]
            col[d] -= 1
            start = reg_hi[d - 1] if d > 0 else n_pat
            stack, ng, end = _split(
                stack,
                node_lo[d],
                node_hi[d],
                start,
                codes,
                c,
                wildcard,
                cnt,
                touched,
                gstart,
                gend,
                g_base[d],
            )
            split_col[d] = c
            if (
                ng == 1
                and (d > 0 or total >= 2)
                and gend[g_base[d]] - gstart[g_base[d]] == node_hi[d] - node_lo[d]
            ):
                # every record of the node has this value (or a wildcard): adding the
                # column never makes a set unique, so no MSU of the node holds it
                ng = 0
            g_n[d] = ng
            g_i[d] = 0
            reg_hi[d] = end
        else:
            d -= 1
    return out_pat[:n_out].copy(), out_mask[:n_out].copy()
