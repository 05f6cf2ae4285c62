"""Minimal sample uniques (MSUs): a depth-first search over sorted partitions.

The search walks the tree of item sets ``{(column, value), ...}`` with columns in
increasing order; a node holds the list of distinct patterns that match its item
set (its partition). A node is split column by column: a first pass counts, per
value of the column, the patterns, the records and the records that can still have
an MSU (patterns of count 1 that own every item). A child whose support is 1 is
unique: its one record gets the item set as a candidate MSU and the search does not
go below it (a superset of a unique set is never minimal). A child with no record
that can have an MSU is dropped; a child with exactly one is searched for that
record alone on match masks (:func:`_record_search`); only the others are written
out (a counting sort into a contiguous slice) and searched further, while their
size is below the largest MSU size asked for. A column on which every record of the
node agrees is skipped: it never makes a set unique, so no MSU of the node holds it.

Children are visited with columns in *decreasing* order. In that order every proper
subset of an item set is visited before the set itself, so a unique set found for a
record is minimal exactly when none of the MSUs already found for that record is a
subset of it. This replaces the "special row" test of SUDA2 (Manning, Haglin & Keane
2008) by one bit test: each pattern has a bit per column set, set for the supersets
of its MSUs as they are found (lists of MSUs are walked instead when those bits
would take too much memory). A record found unique on the node's items plus column
``c`` has ``c`` closed in the groups of the node split afterwards: every set there
that holds ``c`` is a superset, so the record is no candidate for ``c`` below.

The node's patterns are moved as packed rows (the codes as bit fields, the pattern's
number, its closed columns and two flags in one int64 word or a few), so a split
reads its rows in order instead of looking codes up pattern by pattern.

Missing values (-1): with ``wildcard`` a pattern with a missing value in the split
column matches every value and goes into every child (it adds support but owns no
item there); otherwise it matches no value and leaves the partition. A pattern never
owns an item set that contains one of its missing columns.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.typed import List

__all__ = [
    "covered_by_bits",
    "drop_supersets",
    "join_lists",
    "msu_search",
    "msu_tallies",
    "pack_layout",
    "pack_rows",
    "record_msus",
]

#: largest memory (bytes) of the superset bits of the MSUs found (else lists are walked)
BITS_BUDGET = 1 << 25
#: the MSU lists are kept in blocks of this many entries (2 ** BLOCK_BITS)
BLOCK_BITS = 16
BLOCK = 1 << BLOCK_BITS


@numba.njit(cache=True, nogil=True)
def _grow(a: np.ndarray, need: int) -> np.ndarray:  # pragma: no cover - numba
    if need <= a.shape[0]:
        return a
    size = max(need, a.shape[0] + a.shape[0] // 2 + 16)
    b = np.empty(size, dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@numba.njit(cache=True, nogil=True)
def _add_msu(p, mask, found, n_out):  # pragma: no cover - numba
    """Record ``mask`` as an MSU of pattern ``p`` unless it contains one already found.

    ``found`` is ``(head, bits, within, drop, lists, tallies, store)``. With ``bits``
    of one or more columns, row ``p`` of it has bit ``x >> drop`` set for every column
    set ``x`` (within the columns ``within``) that holds an MSU of ``p`` (set when the
    MSU is recorded: one test per candidate); without, the MSUs of ``p`` form a list
    from ``head[p]`` through the links of ``store`` that is walked. The MSU goes into
    the lists of ``store`` (blocks of :data:`BLOCK` entries: pattern, mask, link) when
    ``lists`` (always without bits), and is counted in ``tallies`` = ``(by_pattern,
    by_level, packed)`` when those have rows (see :func:`msu_tallies`).

    Returns the new number of MSUs in the lists."""
    head, bits, within, drop, lists, tallies, store = found
    if bits.shape[1] > 0:
        x = np.int64(mask) >> drop
        if (bits[p, x >> 6] >> (x & 63)) & 1:
            return n_out
        free = within & ~np.int64(mask)
        y = np.int64(0)
        while True:  # every superset of the mask within the columns
            x = (mask | y) >> drop
            bits[p, x >> 6] |= np.int64(1) << (x & 63)
            if y == free:
                break
            y = (y - free) & free
    else:
        pats, masks, links = store
        q = head[p]
        while q >= 0:
            mm = masks[q >> BLOCK_BITS][q & (BLOCK - 1)]
            if (mm & mask) == mm:
                return n_out
            q = links[q >> BLOCK_BITS][q & (BLOCK - 1)]
    by_pattern, by_level, packed = tallies
    if by_pattern.shape[0] > 0:
        _tally(p, mask, packed, by_pattern, by_level)
    if not lists and bits.shape[1] > 0:
        return n_out
    pats, masks, links = store
    b = n_out >> BLOCK_BITS
    if b == len(pats):  # a new block: the lists grow without copies
        pats.append(np.empty(BLOCK, dtype=pats[0].dtype))
        masks.append(np.empty(BLOCK, dtype=masks[0].dtype))
        if bits.shape[1] == 0:
            links.append(np.empty(BLOCK, dtype=links[0].dtype))
    o = n_out & (BLOCK - 1)
    pats[b][o] = p
    masks[b][o] = mask
    if bits.shape[1] == 0:
        links[b][o] = head[p]
        head[p] = n_out
    return n_out + 1


@numba.njit(cache=True, nogil=True, inline="always")
def _tally(p, mask, packed, by_pattern, by_level):  # pragma: no cover - numba
    """Count the MSU ``mask`` of pattern ``p`` by size and by column, level and size;
    ``packed`` is ``(rows, word, shift, fmask)`` of :func:`pack_rows` (row ``p``
    is pattern ``p``)."""
    rows, word, shift, fmask = packed
    m = word.shape[0] - 2
    n_levels = by_level.shape[1]
    size = 0
    for j in range(m):
        if (mask >> j) & 1:
            size += 1
    by_pattern[p, size - 1] += 1
    for j in range(m):
        if (mask >> j) & 1:
            lv = ((rows[p, word[j]] >> shift[j]) & fmask[j]) - 1
            if lv < 0:
                lv = n_levels - 1
            by_level[j, lv, size] += 1


@numba.njit(cache=True, nogil=True)
def _bit_length(x):  # pragma: no cover - numba
    b = 0
    while x > 0:
        b += 1
        x >>= 1
    return b


@numba.njit(cache=True, nogil=True)
def pack_layout(n_categories, n_pat):  # pragma: no cover - numba
    """Where each field of a packed row lies: the patterns as rows of bit fields, in as
    few int64 words as hold them.

    A field per column (code + 1; 0 for missing), one for the pattern's number and one
    of m bits, the columns closed to the pattern (set by the search); bit 0 of the
    first word marks a candidate (a pattern of one record that can own an MSU), bit 1
    a pattern of two or more records. The search moves these rows (not pattern
    numbers): a split reads them in order instead of looking up the codes.

    Returns, per field (the columns, the pattern number, the closed columns), its
    word, shift and mask."""
    m = n_categories.shape[0]
    word = np.empty(m + 2, dtype=np.int64)
    shift = np.empty(m + 2, dtype=np.int64)
    fmask = np.empty(m + 2, dtype=np.int64)
    w = 0
    pos = 2
    for j in range(m + 2):
        if j < m:
            width = _bit_length(n_categories[j])
        elif j == m:
            width = max(_bit_length(n_pat - 1), 1)
        else:
            width = m
        if pos + width > 63:
            w += 1
            pos = 0
        word[j] = w
        shift[j] = pos
        fmask[j] = (np.int64(1) << width) - 1
        pos += width
    return word, shift, fmask


@numba.njit(cache=True, nogil=True)
def pack_rows(codes, counts, rows, word, shift, fmask):  # pragma: no cover - numba
    """Write pattern ``p`` of ``codes`` (n_pat, m; -1 = missing) into row ``p`` of
    ``rows`` (zeros, of the words of :func:`pack_layout`)."""
    n_pat, m = codes.shape
    for p in range(n_pat):
        for j in range(m):
            rows[p, word[j]] |= np.int64(codes[p, j] + 1) << shift[j]
        rows[p, word[m]] |= np.int64(p) << shift[m]
        rows[p, 0] |= 1 if counts[p] == 1 else 2


@numba.njit(cache=True, nogil=True, inline="always")
def _field(rows, e, j, word, shift, fmask):  # pragma: no cover - numba
    return (rows[e, word[j]] >> shift[j]) & fmask[j]


@numba.njit(cache=True, nogil=True)
def _grow_rows(a: np.ndarray, need: int) -> np.ndarray:  # pragma: no cover - numba
    if need <= a.shape[0]:
        return a
    size = max(need, a.shape[0] + a.shape[0] // 2 + 16)
    b = np.empty((size, a.shape[1]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@numba.njit(cache=True, nogil=True)
def _walk(raw, k, lbuf, own, last, node_mask, base_size, max_size, r, found, n_out):
    # pragma: no cover - numba
    """The unique extensions of the node ``node_mask`` (of ``base_size`` items, the last
    ``last``) for one record (pattern ``r`` of ``found``), from ``raw[:k]``: for each
    other record that matches it on the node, the mask of the columns of ``own`` (the
    record's remaining items) on which it matches too. An extension ``J`` is unique
    when no mask holds it; the extensions are walked in the order of the main search
    (columns decreasing, sets growing by larger columns, every subset of a set before
    it), each unique one recorded by :func:`_add_msu` (a subset test against the MSUs
    found) and not extended.

    Returns the new number of MSUs and ``lbuf`` (grown when a level's list needed it)."""
    m = _bit_length(own)
    srt = np.sort(raw[:k])
    lbuf = _grow(lbuf, k)
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
        lbuf = _grow(lbuf, hi + (hi - lo))  # room for the next level's list
        w = hi
        for t in range(lo, hi):
            if (lbuf[t] >> c) & 1:
                lbuf[w] = lbuf[t]
                w += 1
        nk = w - hi
        if nk == 0:
            n_out = _add_msu(r, node_mask | jm[dd] | (np.int64(1) << c), found, n_out)
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
    return n_out, lbuf


@numba.njit(cache=True, nogil=True)
def _record_search(
    er, node_mask, last, base_size, rows, a, b, layout, wildcard, max_size, raw, lbuf, state
):  # pragma: no cover - numba
    """The MSUs of the one candidate at ``rows[er]`` below the node of the rows
    ``a:b`` that match it on column ``last`` (items ``node_mask``, which holds ``last``).

    Each other row of the node becomes the mask of the remaining columns on which
    it matches the candidate, and :func:`_walk` finds the unique extensions.

    Returns the new number of MSUs and ``lbuf`` (grown when a level's list needed it)."""
    found, n_out = state
    word, shift, fmask = layout
    m = word.shape[0] - 2
    r = _field(rows, er, m, word, shift, fmask)
    closed = _field(rows, er, m + 1, word, shift, fmask)
    own = np.int64(0)
    for c in range(last + 1, m):
        if _field(rows, er, c, word, shift, fmask) > 0 and not (closed >> c) & 1:
            own |= np.int64(1) << c
    if own == 0:
        return n_out, lbuf
    k = 0
    rv = _field(rows, er, last, word, shift, fmask)
    for f in range(a, b):
        if f == er:
            continue
        sv = _field(rows, f, last, word, shift, fmask)
        if sv != rv and not (wildcard and sv == 0):
            continue
        am = np.int64(0)
        for c in range(last + 1, m):
            if (own >> c) & 1:
                v = _field(rows, f, c, word, shift, fmask)
                if v == _field(rows, er, c, word, shift, fmask) or (wildcard and v == 0):
                    am |= np.int64(1) << c
        if am == own:  # matches r on every remaining item: nothing below is unique
            return n_out, lbuf
        raw[k] = am
        k += 1
    return _walk(raw, k, lbuf, own, last, node_mask, base_size, max_size, r, found, n_out)


@numba.njit(cache=True, nogil=True)
def _count(rows, lo, hi, field, closed, n_values, tab, touched):  # pragma: no cover - numba
    """First pass of a split of ``rows[lo:hi]`` by the field ``(wi, sh, mk)`` of column
    ``c``: per value ``v`` (0 = missing) the patterns ``tab[v, 0]``, those of two or
    more records ``tab[v, 1]``, the candidates (column ``c`` not closed to them)
    ``tab[v, 2]`` and the sum of their positions ``tab[v, 3]`` (the position of the
    candidate when there is one). ``closed`` is ``(word, shift + c)`` of the closed
    columns.

    Returns the number of known values, listed in ``touched``."""
    wi, sh, mk = field
    cw, cs = closed
    for e in range(lo, hi):
        x = rows[e, 0]
        v = (rows[e, wi] >> sh) & mk
        cand = x & 1 & ~(rows[e, cw] >> cs)
        tab[v, 0] += 1
        tab[v, 1] += (x >> 1) & 1
        tab[v, 2] += cand
        tab[v, 3] += e * cand
    nt = 0
    if hi - lo < n_values:
        for e in range(lo, hi):
            v = (rows[e, wi] >> sh) & mk
            if v > 0 and tab[v, 5] == 0:
                tab[v, 5] = 1
                touched[nt] = v
                nt += 1
    else:
        for v in range(1, n_values + 1):
            if tab[v, 0] > 0:
                touched[nt] = v
                nt += 1
    return nt


@numba.njit(cache=True, nogil=True)
def _materialize(rows, lo, hi, out, wi, sh, mk, nmiss, tab, keep, n_keep, groups):
    # pragma: no cover - numba
    """Write the groups of the values ``keep[:n_keep]`` of ``rows[lo:hi]`` (by the field
    ``(wi, sh, mk)``) after ``out``; with ``nmiss`` > 0 (wildcard), a row missing in the
    column goes into every group, as no candidate there.

    Returns the (possibly grown) rows and the end of the written region."""
    gstart, gend, gb = groups
    need = out
    for t in range(n_keep):
        need += tab[keep[t], 0] + nmiss
    rows = _grow_rows(rows, need)
    pos = out
    for t in range(n_keep):
        v = keep[t]
        gstart[gb + t] = pos
        gend[gb + t] = pos + tab[v, 0] + nmiss
        tab[v, 4] = pos  # write pointer
        tab[v, 6] = 1  # kept
        pos += tab[v, 0] + nmiss
    nw = rows.shape[1]
    for e in range(lo, hi):
        v = (rows[e, wi] >> sh) & mk
        if tab[v, 6]:
            dst = tab[v, 4]
            tab[v, 4] = dst + 1
            if nw == 1:
                rows[dst, 0] = rows[e, 0]
            else:
                for k in range(nw):
                    rows[dst, k] = rows[e, k]
        elif v == 0 and nmiss:
            for t in range(n_keep):
                u = keep[t]
                dst = tab[u, 4]
                tab[u, 4] = dst + 1
                for k in range(nw):
                    rows[dst, k] = rows[e, k]
                rows[dst, 0] &= ~np.int64(1)
    return rows, pos


@numba.njit(cache=True, nogil=True)
def msu_search(
    rows,
    layout,
    n_pat,
    n_categories,
    wildcard,
    max_size,
    first_columns,
    mask_like,
    bits_budget=BITS_BUDGET,
    lists=True,
    tally=False,
):
    # pragma: no cover - numba
    """All minimal sample uniques of distinct patterns, packed by :func:`pack_rows`.

    Parameters
    ----------
    rows, layout : the rows and ``(word, shift, fmask)`` of :func:`pack_rows`;
        the search writes in ``rows`` (each search needs its own copy), but not in the
        codes of its first ``n_pat`` rows
    n_pat : int, the number of patterns
    n_categories : int64 array (m,), codes of column j are in [0, n_categories[j])
    wildcard : bool, a missing value matches every value (else none)
    max_size : int, largest MSU size searched (<= m)
    first_columns : int64 bit mask, search only the item sets whose first (smallest)
        column is one of these (all columns: every MSU). Sets with a first column c
        have all their subsets among the sets with a first column >= c.
    mask_like : empty array of the integer type of the returned masks (int16 holds up
        to 15 columns, int32 up to 31: less memory for the MSU lists)
    bits_budget : int, most bytes for the superset bits of the MSUs found (one bit per
        pattern and column set); above it, the minimality test walks lists instead
    lists : bool, return the MSUs as lists (always kept when the superset bits are not)
    tally : bool, count the MSUs as they are found (``by_pattern``, ``by_level``)

    Returns
    -------
    store : the MSU lists as typed lists of blocks of :data:`BLOCK` entries,
        ``(patterns, masks, links)``: the pattern (of count 1, int32) each MSU belongs
        to and its columns as bits (of the type of ``mask_like``); entry ``i`` is at
        ``[i >> BLOCK_BITS][i & (BLOCK - 1)]`` (:func:`join_lists` joins them)
    n_msus : int, the number of MSUs in the lists: 0 when not ``lists`` and the
        superset bits were kept
    by_pattern, by_level : the counts of :func:`msu_tallies` (n_levels = the most
        categories + 1; ``by_pattern`` of the type of ``mask_like``, which holds the
        C(m, s) sets of a size); with no rows when not ``tally``
    bits : int64 array (n_patterns, words), the superset bits (see :func:`_add_msu`;
        the sets indexed by their columns shifted right by ``drop``, 1 when the sets
        searched all hold the first column or none does); no columns when the lists
        were walked instead
    """
    m = n_categories.shape[0]
    packed = (rows, layout[0], layout[1], layout[2])  # row p is pattern p: for the tallies
    pats = List()
    masks = List()
    links = List()
    pats.append(np.empty(BLOCK, dtype=np.int32))
    masks.append(np.empty(BLOCK, dtype=mask_like.dtype))
    links.append(np.empty(0, dtype=np.int32))
    store = (pats, masks, links)
    n_out = 0
    max_cat = 1
    for j in range(m):
        max_cat = max(max_cat, n_categories[j])
    n_tally = n_pat if tally else 0
    # MSUs of one size per pattern: at most C(m, s), which the mask type holds
    by_pattern = np.zeros((n_tally, max(max_size, 1)), dtype=mask_like.dtype)
    by_level = np.zeros((m if tally else 0, max_cat + 1, max_size + 1), dtype=np.int64)
    if n_pat == 0 or m == 0 or max_size < 1:
        no_bits = np.zeros((0, 0), dtype=np.int64)
        return store, 0, by_pattern, by_level, no_bits
    word, shift, fmask = layout
    tab = np.zeros((max_cat + 1, 8), dtype=np.int64)
    touched = np.empty(max_cat + 1, dtype=np.int64)
    keep = np.empty(max_cat + 1, dtype=np.int64)
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
    # the supersets of the MSUs found, as bits, while they take little memory
    # (half of them when the sets searched all hold the first column, or none does)
    every = (np.int64(1) << m) - 1
    drop = 1 if m >= 2 and (first_columns == 1 or first_columns == every - 1) else 0
    within = every - 1 if drop and first_columns != 1 else every
    n_sets = np.int64(1) << (m - drop)
    if m <= 16 and n_pat * (n_sets // 8) <= bits_budget:
        bits = np.zeros((n_pat, max(n_sets // 64, 1)), dtype=np.int64)
        head = np.full(0, -1, dtype=np.int32)
    else:
        bits = np.zeros((0, 0), dtype=np.int64)
        head = np.full(n_pat, -1, dtype=np.int32)
        links[0] = np.empty(BLOCK, dtype=np.int32)
    found = (head, bits, within, drop, lists, (by_pattern, by_level, packed), store)
    raw = np.empty(16, dtype=np.int64)
    lbuf = np.empty(16, dtype=np.int64)

    total = 0  # records, at least (2 for a pattern of two or more)
    for p in range(n_pat):
        total += 1 + ((rows[p, 0] >> 1) & 1)
    d = 0
    node_lo[0] = 0
    node_hi[0] = n_pat
    node_last[0] = -1
    col[0] = m - 1
    reg_hi[0] = n_pat
    while d >= 0:
        if g_i[d] < g_n[d]:  # go down into the next group of the current split
            g = g_base[d] + g_i[d]
            g_i[d] += 1
            e = d + 1
            node_lo[e] = gstart[g]
            node_hi[e] = gend[g]
            node_last[e] = split_col[d]
            node_mask[e] = node_mask[d] | (np.int64(1) << split_col[d])
            col[e] = m - 1
            g_n[e] = 0
            g_i[e] = 0
            g_base[e] = g_base[d] + g_n[d]
            d = e
        elif col[d] > node_last[d]:  # split the node by its next column
            c = col[d]
            col[d] -= 1
            if d == 0 and not (first_columns >> c) & 1:
                continue
            lo = node_lo[d]
            hi = node_hi[d]
            nt = _count(
                rows, lo, hi, (word[c], shift[c], fmask[c]), (word[m + 1], shift[m + 1] + c),
                n_categories[c], tab, touched,
            )  # fmt: skip
            nmiss = tab[0, 0] if wildcard else 0
            mmiss = tab[0, 1] if wildcard else 0
            # a value every record of the node has (or matches) never makes a set
            # unique: no MSU of the node holds the column
            constant = nt == 1 and tab[touched[0], 0] + nmiss == hi - lo
            constant = constant and (d > 0 or total >= 2)
            can_push = d + 1 < max_size and c < m - 1
            cmask = node_mask[d] | (np.int64(1) << c)
            n_keep = 0
            for t in range(nt):
                v = touched[t]
                if constant or tab[v, 2] == 0:
                    continue
                if tab[v, 0] + nmiss == 1 and tab[v, 1] + mmiss == 0:
                    # unique: the column is closed to the pattern in the groups of the
                    # node split later (every set there with the column holds this one)
                    rows[tab[v, 3], word[m + 1]] |= np.int64(1) << (shift[m + 1] + c)
                    p = _field(rows, tab[v, 3], m, word, shift, fmask)
                    n_out = _add_msu(p, cmask, found, n_out)
                elif not can_push:
                    continue
                elif tab[v, 2] == 1:
                    raw = _grow(raw, hi - lo)
                    lbuf = _grow(lbuf, hi - lo)
                    n_out, lbuf = _record_search(
                        tab[v, 3], cmask, c, d + 1, rows, lo, hi, layout, wildcard, max_size,
                        raw, lbuf, (found, n_out),
                    )  # fmt: skip
                else:
                    keep[n_keep] = v
                    n_keep += 1
            if n_keep:
                start = reg_hi[d - 1] if d > 0 else n_pat
                rows, reg_hi[d] = _materialize(
                    rows, lo, hi, start, word[c], shift[c], fmask[c], nmiss, tab, keep, n_keep,
                    (gstart, gend, g_base[d]),
                )  # fmt: skip
            tab[0, :] = 0
            for t in range(nt):
                tab[touched[t], :] = 0
            split_col[d] = c
            g_n[d] = n_keep
            g_i[d] = 0
        else:
            d -= 1
    if not lists and bits.shape[1] > 0:
        n_out = 0
    return store, n_out, by_pattern, by_level, bits


@numba.njit(cache=True, nogil=True)
def drop_supersets(pattern, mask, n_patterns, other_pattern, other_mask):
    # pragma: no cover - numba
    """Which of the sets ``(pattern, mask)`` hold none of the MSUs ``(other_pattern,
    other_mask)`` of the same pattern: the minimal ones, when the others are all the
    MSUs whose first column comes after the first column of these sets."""
    head = np.full(n_patterns, -1, dtype=np.int64)
    nxt = np.empty(len(other_pattern), dtype=np.int64)
    for i in range(len(other_pattern)):
        p = other_pattern[i]
        nxt[i] = head[p]
        head[p] = i
    keep = np.ones(len(pattern), dtype=np.bool_)
    for i in range(len(pattern)):
        q = head[pattern[i]]
        mk = mask[i]
        while q >= 0:
            om = other_mask[q]
            if (om & mk) == om:
                keep[i] = False
                break
            q = nxt[q]
    return keep


@numba.njit(cache=True, nogil=True)
def covered_by_bits(store, n, bits, drop):  # pragma: no cover - numba
    """Which of the first ``n`` sets of the lists ``store`` (of :func:`msu_search`) hold
    a set marked in the superset ``bits`` of another search (sets indexed by columns
    shifted right by ``drop``): those are not minimal. With ``drop`` 1 the other
    search's sets lack the first column, and the first column of these sets is left
    out of the test."""
    pats, masks, _ = store
    out = np.zeros(n, dtype=np.bool_)
    for b in range((n + BLOCK - 1) >> BLOCK_BITS):  # block by block: one list lookup each
        pat = pats[b]
        mask = masks[b]
        base = b << BLOCK_BITS
        for o in range(min(BLOCK, n - base)):
            x = np.int64(mask[o]) >> drop
            out[base + o] = (bits[pat[o], x >> 6] >> (x & 63)) & 1
    return out


@numba.njit(cache=True, nogil=True)
def msu_tallies(store, n, keep, packed, by_pattern, by_level):  # pragma: no cover - numba
    """Add the first ``n`` MSUs of the lists ``store`` (of :func:`msu_search`) where
    ``keep`` to the counts by pattern and size and by column, level and size;
    ``packed`` is ``(rows, word, shift, fmask)`` of :func:`pack_rows`.

    ``by_pattern`` : array (n_patterns, max_size), MSUs of size s in column s - 1;
    ``by_level`` : int64 array (m, n_levels, max_size + 1), MSUs of size s that hold the
    column with that level (code; -1 counted as ``n_levels - 1``)."""
    pats, masks, _ = store
    for b in range((n + BLOCK - 1) >> BLOCK_BITS):
        pat = pats[b]
        mask = masks[b]
        base = b << BLOCK_BITS
        for o in range(min(BLOCK, n - base)):
            if keep[base + o]:
                _tally(pat[o], mask[o], packed, by_pattern, by_level)


@numba.njit(cache=True, nogil=True)
def join_lists(store, n):  # pragma: no cover - numba
    """The first ``n`` MSUs of the lists ``store`` (of :func:`msu_search`) as two
    arrays: the pattern and the column bit mask of each."""
    pats, masks, _ = store
    pattern = np.empty(n, dtype=pats[0].dtype)
    mask = np.empty(n, dtype=masks[0].dtype)
    for b in range((n + BLOCK - 1) >> BLOCK_BITS):
        base = b << BLOCK_BITS
        k = min(BLOCK, n - base)
        pattern[base : base + k] = pats[b][:k]
        mask[base : base + k] = masks[b][:k]
    return pattern, mask


@numba.njit(cache=True, nogil=True)
def record_msus(codes, r, wildcard, max_size):  # pragma: no cover - numba
    """The MSUs (column bit masks) of row ``r`` of ``codes`` (n_rows, m; -1 = missing),
    as the search finds them: :func:`_walk` from the root for that record alone.

    Each other row becomes the mask of the columns on which it matches row ``r``
    (with ``wildcard`` a missing value matches); a set of the columns where ``r`` has
    a value is unique when no such mask holds it."""
    n, m = codes.shape
    own = np.int64(0)
    for c in range(m):
        if codes[r, c] >= 0:
            own |= np.int64(1) << c
    raw = np.empty(max(n - 1, 1), dtype=np.int64)
    k = 0
    for f in range(n):
        if f == r:
            continue
        am = np.int64(0)
        for c in range(m):
            if (own >> c) & 1:
                v = codes[f, c]
                if v == codes[r, c] or (wildcard and v < 0):
                    am |= np.int64(1) << c
        if am == own:  # another record matches on every item: nothing is unique
            return np.zeros(0, dtype=np.int64)
        raw[k] = am
        k += 1
    # the MSUs of this one record (pattern 0) in walked lists, without counts
    pats = List()
    masks = List()
    links = List()
    pats.append(np.empty(BLOCK, dtype=np.int32))
    masks.append(np.empty(BLOCK, dtype=np.int64))
    links.append(np.empty(BLOCK, dtype=np.int32))
    no_rows = np.zeros((0, 1), dtype=np.int64)
    no_field = np.zeros(0, dtype=np.int64)
    tallies = (
        np.zeros((0, 1), dtype=np.int64),
        np.zeros((0, 1, 1), dtype=np.int64),
        (no_rows, no_field, no_field, no_field),
    )
    head = np.full(1, -1, dtype=np.int32)
    found = (
        head,
        np.zeros((0, 0), dtype=np.int64),
        np.int64(0),
        0,
        True,
        tallies,
        (pats, masks, links),
    )
    n_out, _ = _walk(
        raw, k, np.empty(16, dtype=np.int64), own, -1, np.int64(0), 0, max_size, 0, found, 0
    )
    return join_lists((pats, masks, links), n_out)[1]
