"""Wildcard support of distinct patterns through bit sets, for data with many missingness masks.

For column j and category v, ``B[j, v]`` is the set of patterns whose value in
column j is v or missing. The patterns compatible with a pattern r are the
intersection of ``B[j, r_j]`` over the columns r observes; the intersection
starts from the smallest set and only visits its non-zero words. The cost is
at most n_patterns x n_observed x n_patterns / 64 word operations, whatever the
number of masks (the same idea as the suppression bit sets).
"""

from __future__ import annotations

import numba
import numpy as np

from microsdc._kernels.conservative import min_completion

__all__ = ["bitset_bytes", "bitset_support", "category_sets", "popcount"]

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


def bitset_bytes(n_patterns: int, n_categories: np.ndarray) -> float:
    """Memory of the bit sets of this route, in bytes."""
    return float(np.sum(n_categories)) * ((n_patterns + 63) // 64) * 8.0


@numba.njit(cache=True, inline="always")
def popcount(x):  # pragma: no cover - numba
    """Number of set bits of the uint64 ``x``."""
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return (x * _H01) >> np.uint64(56)


@numba.njit(cache=True, nogil=True)
def category_sets(codes, card):  # pragma: no cover - numba
    """The sets ``B[j, v]``: for column j and category v, the rows of ``codes`` whose
    value in column j is v or missing (-1), as bit rows.

    Returns ``offset`` (row of ``B[j, 0]`` is ``offset[j]``), ``bits`` (one row of
    uint64 words per set; at least one row) and ``size`` (rows in each set). The
    suppression bit sets (:mod:`microsdc._kernels.greedy_bitset`) and the support
    counts here build the same sets.
    """
    p_total, m = codes.shape
    words = (p_total + 63) // 64
    offset = np.zeros(m + 1, dtype=np.int64)
    for j in range(m):
        offset[j + 1] = offset[j] + card[j]
    bits = np.zeros((max(offset[m], 1), words), dtype=np.uint64)
    size = np.zeros(max(offset[m], 1), dtype=np.int64)
    blank = np.zeros(words, dtype=np.uint64)
    for j in range(m):
        blank[:] = 0
        n_missing = 0
        for p in range(p_total):
            c = codes[p, j]
            b = np.uint64(1) << np.uint64(p & 63)
            if c < 0:
                n_missing += 1
                blank[p >> 6] |= b
            else:
                bits[offset[j] + c, p >> 6] |= b
                size[offset[j] + c] += 1
        if n_missing:  # a blank cell belongs to every set of its column
            for v in range(card[j]):
                row = offset[j] + v
                size[row] += n_missing
                for w in range(words):
                    bits[row, w] |= blank[w]
    return offset, bits, size


@numba.njit(cache=True, nogil=True)
def _by_size(sets, ssize, n):  # pragma: no cover - numba
    """Sort ``sets[:n]`` by ``ssize[:n]`` in place, smallest first (insertion sort: n is
    the number of columns; numba's argsort would be compiled for this alone)."""
    for i in range(1, n):
        s = sets[i]
        z = ssize[i]
        t = i
        while t > 0 and ssize[t - 1] > z:
            sets[t] = sets[t - 1]
            ssize[t] = ssize[t - 1]
            t -= 1
        sets[t] = s
        ssize[t] = z


@numba.njit(cache=True, nogil=True)
def bitset_support(
    codes,
    mask,
    card,
    cnt,
    wsum,
    weighted,
    colw,
    use_colw,
    observed_card,
    targets,
    push,
):  # pragma: no cover - numba
    """Support of the patterns ``targets``, shape (n_patterns, 4) as in ``pair_support``
    (rows of other patterns are zero, or hold what was pushed to them); when
    ``observed_card`` (int64, categories observed per column) is given, also the
    conservative count and weight of incomplete targets (NaN elsewhere), else an
    empty (0, 2) array.

    ``observed_card=None`` is a type of its own to numba: the conservative branch
    is pruned before typing, so the other policies never compile the conservative
    search (:mod:`microsdc._kernels.conservative`).

    Where ``push[q]`` is set, every target p compatible with q also adds its own count
    and weight to q's support (q's support from the targets, in one pass).

    The patterns must be distinct. A complete target then meets no other complete
    pattern: when at least half of the patterns are complete, complete targets are
    intersected on bit sets of the incomplete patterns alone (far fewer words, as
    in files with few blanks) and meet themselves; the matches are visited in
    the same order either way.
    """
    p_total, m = codes.shape
    full = (np.int64(1) << m) - 1
    words = (p_total + 63) // 64
    offset, bits, size = category_sets(codes, card)
    n_inc = 0
    for q in range(p_total):
        if mask[q] != full:
            n_inc += 1
    split = False
    if m > 0 and 2 * n_inc <= p_total:
        for t_i in range(targets.shape[0]):
            if mask[targets[t_i]] == full:
                split = True
                break
    inc_idx = np.empty(n_inc if split else 0, dtype=np.int64)
    if split:
        u = 0
        for q in range(p_total):
            if mask[q] != full:
                inc_idx[u] = q
                u += 1
    _, bits_i, size_i = category_sets(codes[inc_idx], card)
    words_i = (inc_idx.shape[0] + 63) // 64
    out = np.zeros((p_total, 4), dtype=np.float64)
    n_cons = 0
    if observed_card is not None:
        n_cons = p_total
    cons = np.full((n_cons, 2), np.nan)
    buf = np.zeros(words, dtype=np.uint64)
    nz = np.empty(words, dtype=np.int64)
    sets = np.empty(m, dtype=np.int64)
    ssize = np.empty(m, dtype=np.int64)
    cand = np.empty(p_total, dtype=np.int64)
    for t_i in range(targets.shape[0]):
        p = targets[t_i]
        a = mask[p]
        fast = split and a == full
        fam_bits = bits_i if fast else bits
        fam_size = size_i if fast else size
        fam_words = words_i if fast else words
        n_sets = np.int64(0)
        for j in range(m):
            c = codes[p, j]
            if c >= 0:
                sets[n_sets] = offset[j] + c
                ssize[n_sets] = fam_size[offset[j] + c]
                n_sets += 1
        count = 0
        if n_sets == 0:
            for w in range(words):
                x = np.uint64(0xFFFFFFFFFFFFFFFF)
                if w == words - 1 and (p_total & 63) != 0:
                    x = (np.uint64(1) << np.uint64(p_total & 63)) - np.uint64(1)
                buf[w] = x
                nz[count] = w
                count += 1
        else:
            _by_size(sets, ssize, n_sets)
            first = sets[0]
            for w in range(fam_words):
                x = fam_bits[first, w]
                if x:
                    buf[w] = x
                    nz[count] = w
                    count += 1
            for t in range(1, n_sets):
                s = sets[t]
                keep = 0
                for i in range(count):
                    w = nz[i]
                    x = buf[w] & fam_bits[s, w]
                    if x:
                        buf[w] = x
                        nz[keep] = w
                        keep += 1
                count = keep
                if count == 0:
                    break
        # the compatible patterns in increasing order (with a fast target itself, in place)
        nc = 0
        pending = fast
        for i in range(count):
            w = nz[i]
            x = buf[w]
            while x:
                low = x & (~x + np.uint64(1))
                bit = np.int64(popcount(low - np.uint64(1)))
                x ^= low
                q = w * 64 + bit
                if fast:
                    q = inc_idx[q]
                    if pending and q > p:
                        cand[nc] = p
                        nc += 1
                        pending = False
                cand[nc] = q
                nc += 1
        if pending:
            cand[nc] = p
            nc += 1
        for i in range(nc):
            q = cand[i]
            f = 1.0
            if use_colw:
                only_r = a & ~mask[q]
                if only_r:
                    for j in range(m):
                        if (only_r >> j) & 1:
                            f *= colw[j, codes[p, j]]
            c = 0 if mask[q] == full else 1
            out[p, c] += f * cnt[q]
            if weighted:
                out[p, c + 2] += f * wsum[q]
            if push[q]:
                g = 1.0
                if use_colw:
                    only_q = mask[q] & ~a
                    if only_q:
                        for j in range(m):
                            if (only_q >> j) & 1:
                                g *= colw[j, codes[q, j]]
                c = 0 if a == full else 1
                out[q, c] += g * cnt[p]
                if weighted:
                    out[q, c + 2] += g * wsum[p]
        if observed_card is not None:  # pruned at compile time when None
            if a != full:
                n_miss = 0
                for j in range(m):
                    if not (a >> j) & 1:
                        n_miss += 1
                miss = np.empty(n_miss, dtype=np.int64)
                u = 0
                for j in range(m):
                    if not (a >> j) & 1:
                        miss[u] = j
                        u += 1
                chosen = cand[:nc].copy()
                # fk's completion and the weights of the records it counts
                low, low_w = min_completion(codes, chosen, miss, observed_card, card, cnt, wsum)
                cons[p, 0] = low
                if weighted:
                    cons[p, 1] = low_w
    return out, cons
