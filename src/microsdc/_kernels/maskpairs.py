"""Wildcard support of distinct patterns through pairs of missingness masks (spec section 3).

For a target mask ``a`` and a source mask ``b``, the patterns of ``b`` support
the patterns of ``a`` that agree with them on the columns observed in both,
``S = a & b``. The source masks are grouped by ``S`` (masks that meet ``a`` on
the same columns share one table), and for each group the keys on ``S`` of the
smaller side (sources or targets) go into a table: a direct array when the key
span is small, an int64-keyed hash table when the span fits in 62 bits, and a
hash table that compares the codes themselves otherwise (so a combined key can
never overflow). The larger side is streamed through the table. The cost is
O(n_masks x n_patterns) key computations and no term grows with the volume of
the key space.

A per-pair weight is applied at lookup time: the support of target ``r`` from
the group with shared columns ``S`` is multiplied by
``prod over c in a \\ S of colw[c, r_c]`` (columns that ``r`` observes and the
sources leave blank), which is 1 for the wildcard policy.
"""

from __future__ import annotations

import numba
import numpy as np

from microsdc._kernels.conservative import min_completion
from microsdc._kernels.hashing import capacity_bits, first_groups, key_slot
from microsdc._kernels.order import stable_order

__all__ = ["DIRECT_LIMIT", "pair_conservative", "pair_support"]

#: Largest key span (entries) looked up in a direct array rather than hashed.
DIRECT_LIMIT = 1 << 22
#: Largest span (bits) of the presence table that lets a pass over the complete
#: patterns skip those whose leading columns no pattern of the mask has (256 KiB).
PRESENCE_BITS = 1 << 21

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True, nogil=True)
def _keys(codes, rows, cols, radix):  # pragma: no cover - numba
    """Combined key of each row on ``cols``, column by column (exact below 2^62)."""
    n = rows.shape[0]
    key = np.zeros(n, dtype=np.int64)
    for t in range(cols.shape[0]):
        c = cols[t]
        r = radix[t]
        for i in range(n):
            key[i] += np.int64(codes[rows[i], c]) * r
    return key


@numba.njit(cache=True, nogil=True)
def _mixed(codes, rows, cols):  # pragma: no cover - numba
    """A 64-bit hash of each row on ``cols`` (equal rows, equal hashes; not conversely)."""
    n = rows.shape[0]
    h = np.full(n, np.uint64(0x243F6A8885A308D3), dtype=np.uint64)
    for t in range(cols.shape[0]):
        c = cols[t]
        for i in range(n):
            x = (h[i] ^ np.uint64(codes[rows[i], c] + 1)) * _GOLDEN
            h[i] = x ^ (x >> np.uint64(29))
    return h


@numba.njit(cache=True, nogil=True, inline="always")
def _same_on(a, p, b, r, cols):  # pragma: no cover - numba
    """Row ``p`` of ``a`` and row ``r`` of ``b`` hold the same codes on ``cols``."""
    for t in range(cols.shape[0]):
        if a[p, cols[t]] != b[r, cols[t]]:
            return False
    return True


@numba.njit(cache=True, nogil=True)
def group_ids(codes, build, probe, cols, card, direct):  # pragma: no cover - numba
    """Group ids on the columns ``cols`` (all observed in both sides).

    ``build`` patterns get ids 0..n_groups-1 (equal on ``cols`` <=> same id);
    ``probe`` patterns get the id of the build group they equal, or -1.
    ``direct`` is a scratch array filled with -1, returned filled with -1.
    """
    nb = build.shape[0]
    npr = probe.shape[0]
    gb = np.empty(nb, dtype=np.int64)
    gp = np.empty(npr, dtype=np.int64)
    q = cols.shape[0]
    if q == 0:
        gb[:] = 0
        gp[:] = 0 if nb > 0 else -1
        return gb, gp, 1 if nb > 0 else 0
    log_span = 0.0
    for t in range(q):
        log_span += np.log2(max(card[cols[t]], 1))
    radix = np.ones(q, dtype=np.int64)
    if log_span < 62.0:
        for t in range(1, q):
            radix[t] = radix[t - 1] * max(card[cols[t - 1]], 1)
    n_groups = 0
    # a direct table only when it is not much larger than a hash table would be
    # (random reads in a large array cost a cache miss each)
    limit = min(np.log2(direct.shape[0]), max(np.log2(max(4 * nb, 1)), 15.0))
    if log_span < 62.0 and log_span <= limit:
        kb = _keys(codes, build, cols, radix)
        kp = _keys(codes, probe, cols, radix)
        gb, _, n_groups = first_groups(
            kb, direct, np.empty(0, dtype=np.int64), np.uint64(0), 0, False
        )
        for i in range(npr):
            gp[i] = direct[kp[i]]
        for i in range(nb):
            direct[kb[i]] = -1
        return gb, gp, n_groups
    bits = capacity_bits(nb)
    cap = 1 << bits
    hmask = cap - 1
    shift = np.uint64(64 - bits)
    slot_id = np.full(cap, -1, dtype=np.int64)
    slot_key = np.empty(cap, dtype=np.int64)
    if log_span < 62.0:  # exact int64 keys
        kb = _keys(codes, build, cols, radix)
        kp = _keys(codes, probe, cols, radix)
        gb, _, n_groups = first_groups(kb, slot_id, slot_key, shift, hmask, True)
        for i in range(npr):
            gp[i] = slot_id[key_slot(slot_id, slot_key, kp[i], shift, hmask)]
        return gb, gp, n_groups
    # key span beyond 62 bits: hash the codes, compare the codes themselves
    hb = _mixed(codes, build, cols)
    hp = _mixed(codes, probe, cols)
    for i in range(nb):
        p = build[i]
        h = np.int64(hb[i] >> shift)
        while True:
            g = slot_id[h]
            if g < 0:
                slot_id[h] = n_groups
                slot_key[h] = p
                gb[i] = n_groups
                n_groups += 1
                break
            if _same_on(codes, p, codes, slot_key[h], cols):
                gb[i] = g
                break
            h = (h + 1) & hmask
    for i in range(npr):
        p = probe[i]
        h = np.int64(hp[i] >> shift)
        gp[i] = -1
        while True:
            g = slot_id[h]
            if g < 0:
                break
            if _same_on(codes, p, codes, slot_key[h], cols):
                gp[i] = g
                break
            h = (h + 1) & hmask
    return gb, gp, n_groups


@numba.njit(cache=True, nogil=True)
def _columns(bits, m):  # pragma: no cover - numba
    n = 0
    for j in range(m):
        if (bits >> j) & 1:
            n += 1
    out = np.empty(n, dtype=np.int64)
    t = 0
    for j in range(m):
        if (bits >> j) & 1:
            out[t] = j
            t += 1
    return out


@numba.njit(cache=True, nogil=True)
def _columns_by_categories(bits, m, card):  # pragma: no cover - numba
    """The columns of ``bits`` by decreasing categories, ties in column order (an
    insertion sort over the columns: numba's merge sort would be compiled for this
    alone)."""
    cols = _columns(bits, m)
    for i in range(1, cols.shape[0]):
        c = cols[i]
        t = i
        while t > 0 and card[cols[t - 1]] < card[c]:
            cols[t] = cols[t - 1]
            t -= 1
        cols[t] = c
    return cols


@numba.njit(cache=True, nogil=True)
def _side_ids(codes, src, tgt, cols, card, direct):  # pragma: no cover - numba
    """(source ids, target ids, n_groups), the table built on the smaller side."""
    if tgt.shape[0] < src.shape[0]:
        gt, gs, ng = group_ids(codes, tgt, src, cols, card, direct)
    else:
        gs, gt, ng = group_ids(codes, src, tgt, cols, card, direct)
    return gs, gt, ng


@numba.njit(cache=True, nogil=True)
def _bucket_sort(key, n_keys, start, rows):  # pragma: no cover - numba
    """A stable counting sort of ``key`` (values 0..n_keys-1): ``start`` (zeros, n_keys + 1)
    gets the bounds of each key's bucket and ``rows`` the positions in ``key`` bucket by
    bucket, in increasing order within each."""
    for i in range(key.shape[0]):
        start[key[i] + 1] += 1
    for g in range(n_keys):
        start[g + 1] += start[g]
    fill = start[:-1].copy()
    for i in range(key.shape[0]):
        g = key[i]
        rows[fill[g]] = i
        fill[g] += 1


@numba.njit(cache=True, nogil=True)
def _sources(order, mask_start, ob, lo, hi):  # pragma: no cover - numba
    """The entries of ``order`` at the rows of the masks ``ob[lo:hi]``."""
    rows = _rows(mask_start, ob, lo, hi)
    src = np.empty(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        src[i] = order[rows[i]]
    return src


@numba.njit(cache=True, nogil=True)
def _rows(mask_start, ob, lo, hi):  # pragma: no cover - numba
    """Rows of the masks ``ob[lo:hi]`` (patterns sorted by mask)."""
    n = 0
    for t in range(lo, hi):
        n += mask_start[ob[t] + 1] - mask_start[ob[t]]
    rows = np.empty(n, dtype=np.int64)
    k = 0
    for t in range(lo, hi):
        for u in range(mask_start[ob[t]], mask_start[ob[t] + 1]):
            rows[k] = u
            k += 1
    return rows


@numba.njit(cache=True, nogil=True)
def _table_mode(cols, card, direct_size, nb):  # pragma: no cover - numba
    """(mode, radix): 0 direct array, 1 int64 keys hashed, 2 beyond 62 bits."""
    q = cols.shape[0]
    log_span = 0.0
    for t in range(q):
        log_span += np.log2(max(card[cols[t]], 1))
    radix = np.ones(q, dtype=np.int64)
    if log_span >= 62.0:
        return 2, radix
    for t in range(1, q):
        radix[t] = radix[t - 1] * max(card[cols[t - 1]], 1)
    limit = min(np.log2(direct_size), max(np.log2(max(4 * nb, 1)), 15.0))
    return (0 if log_span <= limit else 1), radix


@numba.njit(cache=True, nogil=True)
def _share_factor(colw, codes, p, bits):  # pragma: no cover - numba
    """Product of ``colw[c, codes[p, c]]`` over the columns ``c`` of the bit set ``bits``."""
    f = 1.0
    c = 0
    while bits:
        if bits & 1:
            f *= colw[c, codes[p, c]]
        bits >>= 1
        c += 1
    return f


@numba.njit(cache=True, nogil=True)
def pair_support(
    codes, mask, mask_vals, mask_start, card, cnt, wsum, weighted, colw, use_colw, direct, wide
):  # pragma: no cover - numba
    """Per-pattern support, shape (n_patterns, 4): counts from complete and from
    incomplete source patterns, then the same as weight sums.

    The patterns must be sorted by mask: those of ``mask_vals[i]`` are the rows
    ``mask_start[i]:mask_start[i + 1]`` of ``codes``. Keys are computed and looked
    up row by row, without intermediate arrays (one pass over each side).

    Each pair of distinct masks is met once, from the mask with fewer patterns
    (ties: the lower index): one table on the shared columns gives the support
    both ways, the sources' to the targets and the targets' to the sources.

    ``wide`` is ``None`` when no set of columns spans 2^62 keys (the caller checks
    the span of all columns), else True. With ``None`` the generic grouping that
    compares codes is pruned before typing and never compiled (a span beyond 62
    bits then raises ValueError).
    """
    p_total, m = codes.shape
    n_masks = mask_vals.shape[0]
    full = (np.int64(1) << m) - 1
    out = np.zeros((p_total, 4), dtype=np.float64)
    shared = np.empty(n_masks, dtype=np.int64)
    met = np.empty(n_masks, dtype=np.int64)
    present = np.zeros(PRESENCE_BITS // 64, dtype=np.uint64)
    n_val = 4 if weighted else 2
    size = np.empty(n_masks, dtype=np.int64)
    for ib in range(n_masks):
        size[ib] = mask_start[ib + 1] - mask_start[ib]
    for ia in range(n_masks):
        a = mask_vals[ia]
        t_lo = mask_start[ia]
        t_hi = mask_start[ia + 1]
        nt = t_hi - t_lo
        ca = 0 if a == full else 1  # the targets' column when they are the sources
        # the masks met from this one: itself and those with more patterns
        n_met = 0
        for ib in range(n_masks):
            if ib == ia or size[ib] > nt or (size[ib] == nt and ib > ia):
                met[n_met] = ib
                shared[n_met] = mask_vals[ib] & a
                n_met += 1
        by_shared = stable_order(shared[:n_met], m)
        ob = np.empty(n_met, dtype=np.int64)
        for u in range(n_met):
            ob[u] = met[by_shared[u]]
        lo = np.int64(0)  # not a literal: one compiled _rows
        while lo < n_met:
            s_bits = mask_vals[ob[lo]] & a
            hi = lo
            ns = 0
            while hi < n_met and mask_vals[ob[hi]] & a == s_bits:
                ns += size[ob[hi]]
                hi += 1
            if hi - lo == 1 and ob[lo] == ia:
                # the mask with itself alone: distinct patterns match only themselves
                for p in range(t_lo, t_hi):
                    out[p, ca] += cnt[p]
                    if weighted:
                        out[p, ca + 2] += wsum[p]
                lo = hi
                continue
            cols = _columns_by_categories(s_bits, m, card)
            q = cols.shape[0]
            extra = a & ~s_bits if use_colw else np.int64(0)
            build_sources = ns <= nt
            nb = ns if build_sources else nt
            mode, radix = _table_mode(cols, card, direct.shape[0], nb)
            if mode == 2:  # rare: generic grouping that compares the codes
                if wide is None:
                    raise ValueError("key span beyond 62 bits: pass wide=True")
                src = _rows(mask_start, ob, lo, hi)
                tgt = np.arange(t_lo, t_hi)
                gs, gt, ng = _side_ids(codes, src, tgt, cols, card, direct)
                acc = np.zeros((max(ng, 1), n_val), dtype=np.float64)
                acc_t = np.zeros((max(ng, 1), n_val), dtype=np.float64)
                for t in range(src.shape[0]):
                    g = gs[t]
                    if g >= 0:
                        p = src[t]
                        c0 = 0 if mask[p] == full else 1
                        acc[g, c0] += cnt[p]
                        if weighted:
                            acc[g, c0 + 2] += wsum[p]
                for t in range(nt):
                    g = gt[t]
                    if g >= 0:
                        p = t_lo + t
                        acc_t[g, ca] += cnt[p]
                        if weighted:
                            acc_t[g, ca + 2] += wsum[p]
                        f = _share_factor(colw, codes, p, extra) if use_colw else 1.0
                        for c in range(n_val):
                            out[p, c] += f * acc[g, c]
                for t in range(src.shape[0]):
                    g = gs[t]
                    p = src[t]
                    if g >= 0 and mask[p] != a:
                        f = _share_factor(colw, codes, p, mask[p] & ~s_bits) if use_colw else 1.0
                        for c in range(n_val):
                            out[p, c] += f * acc_t[g, c]
                lo = hi
                continue
            # a presence table of the build side on the leading shared columns (most
            # categories first) rejects most probe patterns before their key; its span
            # stays within 64 bits per build pattern (it is cleared for every group)
            t0 = 0
            f_span = np.int64(1)
            while t0 < q and f_span * max(card[cols[t0]], 1) <= PRESENCE_BITS and f_span < 64 * nb:
                f_span *= max(card[cols[t0]], 1)
                t0 += 1
            use_filter = mode == 1 and 4 * nb <= f_span
            if use_filter:
                for w in range((f_span + 63) // 64):
                    present[w] = 0
            bits = capacity_bits(nb)
            cap = (1 << bits) if mode == 1 else 1
            hmask = cap - 1
            shift = np.uint64(64 - bits)
            slot_id = np.full(cap, -1, dtype=np.int64)
            slot_key = np.empty(cap, dtype=np.int64)
            acc = np.zeros((max(nb, 1), n_val), dtype=np.float64)  # sources by group
            acc_t = np.zeros((max(nb, 1), n_val), dtype=np.float64)  # targets by group
            gt = np.empty(nt if not build_sources else 0, dtype=np.int64)
            gs = np.empty(ns if build_sources else 0, dtype=np.int64)
            ng = 0
            # pass 1: the build side; pass 2: the probe side
            for side in range(2):
                on_sources = (side == 0) == build_sources
                insert = side == 0
                u_lo = lo if on_sources else 0
                u_hi = hi if on_sources else 1
                i_s = 0  # position among the sources (build side)
                for u in range(u_lo, u_hi):
                    if on_sources:
                        ib = ob[u]
                        r_lo = mask_start[ib]
                        r_hi = mask_start[ib + 1]
                        c0 = 0 if mask_vals[ib] == full else 1
                        back = ib != ia  # the sources get the targets' support
                        rest = mask_vals[ib] & ~s_bits
                    else:
                        r_lo = t_lo
                        r_hi = t_hi
                        c0 = ca
                        back = False
                        rest = np.int64(0)
                    for p in range(r_lo, r_hi):
                        k = np.int64(0)
                        for t in range(t0):
                            k += np.int64(codes[p, cols[t]]) * radix[t]
                        if use_filter:
                            if insert:
                                present[k >> 6] |= np.uint64(1) << np.uint64(k & 63)
                            elif not _is_present(present, k):
                                continue  # no build pattern has these values: no match
                        for t in range(t0, q):
                            k += np.int64(codes[p, cols[t]]) * radix[t]
                        if mode == 0:
                            g = direct[k]
                            if g < 0 and insert:
                                g = ng
                                direct[k] = g
                                ng += 1
                        else:
                            h = key_slot(slot_id, slot_key, k, shift, hmask)
                            g = slot_id[h]
                            if g < 0 and insert:
                                g = ng
                                slot_id[h] = g
                                slot_key[h] = k
                                ng += 1
                        if on_sources:
                            if insert:
                                gs[i_s] = g
                                i_s += 1
                            if g >= 0:
                                acc[g, c0] += cnt[p]
                                if weighted:
                                    acc[g, c0 + 2] += wsum[p]
                                if back and not insert:  # the targets' table is complete
                                    f = _share_factor(colw, codes, p, rest) if use_colw else 1.0
                                    for c in range(n_val):
                                        out[p, c] += f * acc_t[g, c]
                        else:
                            if g >= 0:
                                acc_t[g, c0] += cnt[p]
                                if weighted:
                                    acc_t[g, c0 + 2] += wsum[p]
                            if insert:
                                gt[p - t_lo] = g
                            elif g >= 0:
                                f = _share_factor(colw, codes, p, extra) if use_colw else 1.0
                                for c in range(n_val):
                                    out[p, c] += f * acc[g, c]
            if not build_sources:  # the targets were built: their support from the sources
                for p in range(t_lo, t_hi):
                    g = gt[p - t_lo]
                    f = _share_factor(colw, codes, p, extra) if use_colw else 1.0
                    for c in range(n_val):
                        out[p, c] += f * acc[g, c]
            else:  # the sources were built: their support from the targets
                i_s = 0
                for u in range(lo, hi):
                    ib = ob[u]
                    rest = mask_vals[ib] & ~s_bits
                    for p in range(mask_start[ib], mask_start[ib + 1]):
                        g = gs[i_s]
                        i_s += 1
                        if ib != ia:
                            f = _share_factor(colw, codes, p, rest) if use_colw else 1.0
                            for c in range(n_val):
                                out[p, c] += f * acc_t[g, c]
            if mode == 0:  # leave the direct table empty for the next group
                for u in range(lo, hi) if build_sources else range(1):
                    if build_sources:
                        ib = ob[u]
                        r_lo = mask_start[ib]
                        r_hi = mask_start[ib + 1]
                    else:
                        r_lo = t_lo
                        r_hi = t_hi
                    for p in range(r_lo, r_hi):
                        k = np.int64(0)
                        for t in range(q):
                            k += np.int64(codes[p, cols[t]]) * radix[t]
                        direct[k] = -1
            lo = hi
    return out


@numba.njit(cache=True, nogil=True)
def pair_conservative(
    codes, mask, order, mask_vals, mask_start, card, observed_card, values, carried, direct
):  # pragma: no cover - numba
    """Conservative count of every incomplete pattern: the smallest sum of
    ``values`` over the patterns compatible with a completion of its blanks, and
    the sum of ``carried`` over the patterns of that completion.

    Returns ndarray of shape (n_patterns, 2), NaN for complete patterns.
    """
    p_total, m = codes.shape
    n_masks = mask_vals.shape[0]
    full = (np.int64(1) << m) - 1
    out = np.full((p_total, 2), np.nan)
    shared = np.empty(n_masks, dtype=np.int64)
    cand = np.empty(p_total, dtype=np.int64)
    for ia in range(n_masks):
        a = mask_vals[ia]
        if a == full:
            continue
        tgt = order[mask_start[ia] : mask_start[ia + 1]]
        nt = tgt.shape[0]
        missing_cols = _columns(full & ~a, m)
        for ib in range(n_masks):
            shared[ib] = mask_vals[ib] & a
        ob = stable_order(shared, m)
        # matched (target group, source) pairs of every shared-column group, as a CSR
        grp_src = np.empty(p_total, dtype=np.int64)
        grp_gid = np.empty(p_total, dtype=np.int64)
        n_pairs = 0
        tgt_gid = np.full((n_masks, nt), -1, dtype=np.int64)
        n_grp = 0
        offset = 0
        lo = np.int64(0)
        while lo < n_masks:
            s_bits = shared[ob[lo]]
            hi = lo
            while hi < n_masks and shared[ob[hi]] == s_bits:
                hi += 1
            src = _sources(order, mask_start, ob, lo, hi)
            cols = _columns(s_bits, m)
            gs, gt, ng = _side_ids(codes, src, tgt, cols, card, direct)
            for t in range(src.shape[0]):
                if gs[t] >= 0:
                    grp_src[n_pairs] = src[t]
                    grp_gid[n_pairs] = offset + gs[t]
                    n_pairs += 1
            for t in range(nt):
                if gt[t] >= 0:
                    tgt_gid[n_grp, t] = offset + gt[t]
            offset += ng
            n_grp += 1
            lo = hi
        start = np.zeros(offset + 1, dtype=np.int64)
        members = np.empty(n_pairs, dtype=np.int64)
        _bucket_sort(grp_gid[:n_pairs], offset, start, members)
        for t in range(n_pairs):
            members[t] = grp_src[members[t]]
        for t in range(nt):
            nc = 0
            for g in range(n_grp):
                gid = tgt_gid[g, t]
                if gid >= 0:
                    for u in range(start[gid], start[gid + 1]):
                        cand[nc] = members[u]
                        nc += 1
            low, low_c = min_completion(
                codes, cand[:nc].copy(), missing_cols, observed_card, card, values, carried
            )
            out[tgt[t], 0] = low
            out[tgt[t], 1] = low_c
    return out


#: Most row indexes :func:`complete_cross` builds on the complete patterns.
CROSS_MAX_INDEXES = 8
#: Cost of checking one complete pattern of a bucket, in passes over one pattern
#: (a scattered read against a streamed one; of 1.5, 3 and 6, 1.5 was fastest on
#: the cases of benchmarks/bench_frequencies.py, uniform and Zipf-like).
_CHECK_COST = 1.5


@numba.njit(cache=True, nogil=True)
def _prefix_plan(mask_vals, mask_start, card, n_c, m):  # pragma: no cover - numba
    """Which masks meet the complete patterns through a row index rather than a pass.

    An index on a set S of columns buckets the complete patterns by their key on
    S (span at most ``max(n_c, 2^16)``); a mask that observes S can then check,
    for each of its patterns, only the complete patterns of its bucket (about
    ``n_c / span`` of them, each a scattered read costing ``_CHECK_COST``
    streamed ones) instead of passing over all ``n_c``. The candidate sets are,
    for each mask, its observed columns taken by decreasing categories (ties:
    lowest index) while the span fits, and the first one or two of them;
    indexes are chosen greedily by the passes they save, each having to save
    more than three passes (its cost), at most ``CROSS_MAX_INDEXES``. Returns
    (index_of, idx_bits, idx_span): the index of each mask (-1: one pass) and
    the columns (as bits) and span of each index.
    """
    n_masks = mask_vals.shape[0]
    limit = max(n_c, 65536)
    n_cand = 3 * n_masks
    cand_bits = np.zeros(n_cand, dtype=np.int64)
    cand_span = np.ones(n_cand, dtype=np.int64)
    index_of = np.full(n_masks, -1, dtype=np.int64)
    idx_bits = np.zeros(CROSS_MAX_INDEXES, dtype=np.int64)
    idx_span = np.ones(CROSS_MAX_INDEXES, dtype=np.int64)
    if n_masks > 1024 or n_c < 4096 or n_c >= (1 << 31) - 1:  # int32 rows
        return index_of, idx_bits[:0], idx_span[:0]
    for ib in range(n_masks):
        span = 1
        bits = 0
        n_taken = 0
        for best in _columns_by_categories(mask_vals[ib], m, card):
            if span * max(card[best], 1) <= limit:
                span *= max(card[best], 1)
                bits |= np.int64(1) << best
                n_taken += 1
                if n_taken <= 2:  # the one or two columns of most categories
                    cand_bits[n_masks * n_taken + ib] = bits
                    cand_span[n_masks * n_taken + ib] = span
        cand_bits[ib] = bits
        cand_span[ib] = span
    cost = np.empty(n_masks, dtype=np.float64)
    for ib in range(n_masks):
        cost[ib] = float(n_c)
    n_idx = 0
    while n_idx < CROSS_MAX_INDEXES:
        best_gain = 3.0 * n_c
        best = -1
        for c in range(n_cand):
            bits = cand_bits[c]
            if bits == 0:
                continue
            gain = 0.0
            for ib in range(n_masks):
                if mask_vals[ib] & bits == bits:
                    nb = mask_start[ib + 1] - mask_start[ib]
                    est = _CHECK_COST * nb * (n_c / cand_span[c])
                    if est < cost[ib]:
                        gain += cost[ib] - est
            if gain > best_gain:
                best_gain = gain
                best = c
        if best < 0:
            break
        bits = cand_bits[best]
        for ib in range(n_masks):
            if mask_vals[ib] & bits == bits:
                nb = mask_start[ib + 1] - mask_start[ib]
                est = _CHECK_COST * nb * (n_c / cand_span[best])
                if est < cost[ib]:
                    cost[ib] = est
                    index_of[ib] = n_idx
        idx_bits[n_idx] = bits
        idx_span[n_idx] = cand_span[best]
        n_idx += 1
    return index_of, idx_bits[:n_idx], idx_span[:n_idx]


@numba.njit(cache=True, nogil=True, inline="always")
def _row_key(x, r, cols, radix, t_lo, t_hi):  # pragma: no cover - numba
    """Key of row ``r`` of ``x`` on ``cols[t_lo:t_hi]``: the sum of code times ``radix[t]``."""
    k = np.int64(0)
    for t in range(t_lo, t_hi):
        k += np.int64(x[r, cols[t]]) * radix[t]
    return k


@numba.njit(cache=True, nogil=True, inline="always")
def _is_present(present, k):  # pragma: no cover - numba
    """Bit ``k`` of the presence bits ``present`` is set."""
    return ((present[k >> 6] >> np.uint64(k & 63)) & np.uint64(1)) != 0


@numba.njit(cache=True, nogil=True)
def _prefix_index(comp, cols, radix, span):  # pragma: no cover - numba
    """Complete patterns bucketed by their key on ``cols`` (a counting sort, stable):
    the rows of key k are ``rows[start[k]:start[k + 1]]``, in increasing order."""
    n_c = comp.shape[0]
    q = cols.shape[0]
    key = np.empty(n_c, dtype=np.int32)
    start = np.zeros(span + 1, dtype=np.int32)
    for r in range(n_c):
        key[r] = _row_key(comp, r, cols, radix, 0, q)
    rows = np.empty(n_c, dtype=np.int32)
    _bucket_sort(key, span, start, rows)
    return start, rows


@numba.njit(cache=True, nogil=True)
def _cross_indexed(
    comp,
    inc,
    lo,
    nb,
    b,
    m,
    card,
    bits,
    span,
    sl,
    built,
    idx_start,
    idx_rows,
    cnt_c,
    w_c,
    cnt_i,
    w_i,
    colw,
    use_colw,
    out_c,
    out_i,
):  # pragma: no cover - numba
    """:func:`complete_cross` for one mask through the index ``sl`` of the complete
    patterns on the columns ``bits`` (built on first use): each pattern of the mask
    checks the complete patterns of its bucket, in increasing order. Returns False,
    having added nothing, when checking the buckets of the mask costs more than a
    pass (see ``_CHECK_COST``)."""
    n_c = comp.shape[0]
    # the index columns by decreasing categories (ties: lowest index)
    pcols = _columns_by_categories(bits, m, card)
    q0 = pcols.shape[0]
    pradix = np.ones(q0, dtype=np.int64)
    for t in range(1, q0):
        pradix[t] = pradix[t - 1] * max(card[pcols[t - 1]], 1)
    if not built[sl]:
        start, rows = _prefix_index(comp, pcols, pradix, span)
        idx_start[sl] = start
        idx_rows[sl] = rows
        built[sl] = True
    start = idx_start[sl]
    rows = idx_rows[sl]
    key = np.empty(nb, dtype=np.int64)
    checks = 0
    for u in range(nb):
        k = np.int64(0)
        for t in range(q0):
            k += np.int64(inc[lo + u, pcols[t]]) * pradix[t]
        key[u] = k
        checks += start[k + 1] - start[k]
    if _CHECK_COST * checks > n_c:
        return False
    rest = _columns(b & ~bits, m)
    blank = _columns(((np.int64(1) << m) - 1) & ~b, m)
    for u in range(nb):
        p = lo + u
        k = key[u]
        for i in range(start[k], start[k + 1]):
            r = rows[i]
            same = True
            for t in range(rest.shape[0]):
                if comp[r, rest[t]] != inc[p, rest[t]]:
                    same = False
                    break
            if not same:
                continue
            f = 1.0
            if use_colw:
                for e in range(blank.shape[0]):
                    f *= colw[blank[e], comp[r, blank[e]]]
            out_c[r, 1] += f * cnt_i[p]
            out_c[r, 3] += f * w_i[p]
            out_i[p, 0] += cnt_c[r]
            out_i[p, 2] += w_c[r]
    return True


@numba.njit(cache=True, nogil=True)
def complete_cross(
    comp,
    inc,
    mask_vals,
    mask_start,
    card,
    cnt_c,
    w_c,
    cnt_i,
    w_i,
    colw,
    use_colw,
    direct_limit,
    out_c,
    out_i,
    wide,
):  # pragma: no cover - numba
    """Support between the complete patterns and the incomplete ones, both ways.

    ``comp`` (n_c, m) holds complete patterns; ``inc`` (n_i, m) incomplete ones
    sorted by mask (those of ``mask_vals[i]`` are rows ``mask_start[i]:mask_start[i + 1]``).
    An incomplete pattern q of mask b and a complete pattern r are compatible when
    they agree on b; as the patterns are distinct, at most one q of each mask
    matches r, so one table per mask, keyed on its observed columns, maps r to q.
    Each pair (r, q) adds q to r's support (columns 1 and 3; times the shares of
    r's values where q is blank, under ``use_colw``) and r to q's (columns 0 and 2),
    in one pass over the complete patterns per mask, or, for masks with few
    patterns, through an index of the complete patterns on some of the columns
    the mask observes (:func:`_prefix_plan`): each of its patterns then checks
    only the complete patterns of its bucket (in increasing order, so that every
    output cell adds the same terms in the same order as a pass). The tables are direct arrays
    when the key span is small (at most ``direct_limit``), int64-keyed hash tables
    below 2^62, and hash tables that compare the codes beyond (no combined key
    can overflow). ``out_c`` and ``out_i`` are updated in place.

    ``wide`` is ``None`` when no set of columns spans 2^62 keys, else True, as
    in :func:`pair_support`: with ``None`` the tables that compare the codes are
    pruned before typing and never compiled (a span beyond 62 bits then raises
    ValueError).
    """
    n_c, m = comp.shape
    n_masks = mask_vals.shape[0]
    hit_r = np.empty(n_c, dtype=np.int64)
    hit_u = np.empty(n_c, dtype=np.int64)
    index_of, idx_bits, idx_span = _prefix_plan(mask_vals, mask_start, card, n_c, m)
    n_slots = idx_bits.shape[0]
    last_use = np.full(n_slots, -1, dtype=np.int64)
    for ib in range(n_masks):
        if index_of[ib] >= 0:
            last_use[index_of[ib]] = ib
    built = np.zeros(n_slots, dtype=np.bool_)
    idx_start = [np.zeros(1, dtype=np.int32) for _ in range(n_slots)]
    idx_rows = [np.zeros(1, dtype=np.int32) for _ in range(n_slots)]
    for ib in range(n_masks):
        b = mask_vals[ib]
        lo = mask_start[ib]
        nb = mask_start[ib + 1] - lo
        if nb == 0:
            continue
        sl = index_of[ib]
        done = sl >= 0 and _cross_indexed(
            comp,
            inc,
            lo,
            nb,
            b,
            m,
            card,
            idx_bits[sl],
            idx_span[sl],
            sl,
            built,
            idx_start,
            idx_rows,
            cnt_c,
            w_c,
            cnt_i,
            w_i,
            colw,
            use_colw,
            out_c,
            out_i,
        )
        if sl >= 0 and last_use[sl] == ib:  # free the index after its last mask
            idx_start[sl] = np.zeros(1, dtype=np.int32)
            idx_rows[sl] = np.zeros(1, dtype=np.int32)
        if done:
            continue
        # columns by decreasing categories: a short prefix spans many keys (filter below)
        cols = _columns_by_categories(b, m, card)
        q = cols.shape[0]
        log_span = 0.0
        for t in range(q):
            log_span += np.log2(max(card[cols[t]], 1))
        radix = np.ones(q, dtype=np.int64)
        exact = log_span < 62.0
        if exact:
            for t in range(1, q):
                radix[t] = radix[t - 1] * max(card[cols[t - 1]], 1)
        # a presence table on the first t0 columns (span at most PRESENCE_BITS) rejects
        # most complete patterns before any hashing
        t0 = 0
        pre_span = 1
        while t0 < q and pre_span * max(card[cols[t0]], 1) <= PRESENCE_BITS:
            pre_span *= max(card[cols[t0]], 1)
            t0 += 1
        n_hit = 0
        if exact and log_span <= min(max(np.log2(16.0 * nb), 12.0), np.log2(direct_limit)):
            span = 1
            for t in range(q):
                span *= max(card[cols[t]], 1)
            table = np.full(span, -1, dtype=np.int32)
            for u in range(nb):
                k = np.int64(0)
                for t in range(q):
                    k += np.int64(inc[lo + u, cols[t]]) * radix[t]
                table[k] = u
            for r in range(n_c):
                k = np.int64(0)
                for t in range(q):
                    k += np.int64(comp[r, cols[t]]) * radix[t]
                u = table[k]
                if u >= 0:
                    hit_r[n_hit] = r
                    hit_u[n_hit] = u
                    n_hit += 1
        else:
            bits = capacity_bits(nb)
            hmask = (1 << bits) - 1
            shift = np.uint64(64 - bits)
            slot = np.full(1 << bits, -1, dtype=np.int32)
            slot_key = np.zeros(1 << bits, dtype=np.int64)
            present = np.zeros((pre_span + 63) // 64, dtype=np.uint64)
            for u in range(nb):
                k = np.int64(0)
                w = np.int64(1)
                for t in range(t0):
                    k += np.int64(inc[lo + u, cols[t]]) * w
                    w *= max(card[cols[t]], 1)
                present[k >> 6] |= np.uint64(1) << np.uint64(k & 63)
            if exact:
                for u in range(nb):
                    k = np.int64(0)
                    for t in range(q):
                        k += np.int64(inc[lo + u, cols[t]]) * radix[t]
                    h = np.int64((np.uint64(k) * _GOLDEN) >> shift)
                    while slot[h] >= 0:
                        h = (h + 1) & hmask
                    slot[h] = u
                    slot_key[h] = k
                for r in range(n_c):
                    k = np.int64(0)
                    w = np.int64(1)
                    for t in range(t0):
                        k += np.int64(comp[r, cols[t]]) * w
                        w *= max(card[cols[t]], 1)
                    if not (present[k >> 6] >> np.uint64(k & 63)) & np.uint64(1):
                        continue
                    for t in range(t0, q):
                        k += np.int64(comp[r, cols[t]]) * radix[t]
                    h = np.int64((np.uint64(k) * _GOLDEN) >> shift)
                    while slot[h] >= 0 and slot_key[h] != k:
                        h = (h + 1) & hmask
                    if slot[h] >= 0:
                        hit_r[n_hit] = r
                        hit_u[n_hit] = slot[h]
                        n_hit += 1
            else:  # beyond 62 bits: a 64-bit hash of the codes, the codes compared
                if wide is None:
                    raise ValueError("key span beyond 62 bits: pass wide=True")
                for u in range(nb):
                    x = np.uint64(0x243F6A8885A308D3)
                    for t in range(q):
                        x = (x ^ np.uint64(inc[lo + u, cols[t]] + 1)) * _GOLDEN
                        x = x ^ (x >> np.uint64(29))
                    h = np.int64((x * _GOLDEN) >> shift)
                    while slot[h] >= 0:
                        h = (h + 1) & hmask
                    slot[h] = u
                for r in range(n_c):
                    k = np.int64(0)
                    w = np.int64(1)
                    for t in range(t0):
                        k += np.int64(comp[r, cols[t]]) * w
                        w *= max(card[cols[t]], 1)
                    if not (present[k >> 6] >> np.uint64(k & 63)) & np.uint64(1):
                        continue
                    x = np.uint64(0x243F6A8885A308D3)
                    for t in range(q):
                        x = (x ^ np.uint64(comp[r, cols[t]] + 1)) * _GOLDEN
                        x = x ^ (x >> np.uint64(29))
                    h = np.int64((x * _GOLDEN) >> shift)
                    u = slot[h]
                    while u >= 0:
                        same = True
                        for t in range(q):
                            if inc[lo + u, cols[t]] != comp[r, cols[t]]:
                                same = False
                                break
                        if same:
                            break
                        h = (h + 1) & hmask
                        u = slot[h]
                    if u >= 0:
                        hit_r[n_hit] = r
                        hit_u[n_hit] = u
                        n_hit += 1
        blank = _columns(((np.int64(1) << m) - 1) & ~b, m)
        for i in range(n_hit):
            r = hit_r[i]
            p = lo + hit_u[i]
            f = 1.0
            if use_colw:
                for e in range(blank.shape[0]):
                    f *= colw[blank[e], comp[r, blank[e]]]
            out_c[r, 1] += f * cnt_i[p]
            out_c[r, 3] += f * w_i[p]
            out_i[p, 0] += cnt_c[r]
            out_i[p, 2] += w_c[r]
    return out_c, out_i
