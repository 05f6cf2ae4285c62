"""Greedy local suppression for the wildcard policy, on bit sets of records.

For column j and category v, ``B[j, v]`` is the set of records whose value in
column j is v or missing. The records compatible with a pattern are the
intersection of ``B[j, v_j]`` over its observed columns, so a record's fk with
any subset of its cells blanked is one intersection and a population count:
exact, and cheap enough to try every candidate subset of cells. Blanking cell
(r, j) adds record r to every ``B[j, v]``. Intersections start from the
smallest set and only visit its non-zero words.

Same choices as :func:`microsdc._kernels.greedy_wildcard.greedy_suppress` for the
wildcard policy (kind 0): rows in the given order, rows that became safe
skipped, the cheapest class of candidate subsets that reaches k, and within it
the subset that newly matches the most records still waiting (weighted).
:func:`restore_cells` then gives back the blanked cells that are not needed,
and :func:`improve_cells` trades a row's blanked cells for a cheaper set.

A row of the code matrix may stand for several identical records (its
multiplicity ``mult``): it is one bit, its records count ``mult`` times, and
its blanks apply to all of them. Each set also has a summary (one bit per
64-bit word that may be non-zero), so an intersection reads only the words
flagged in every set; with the rows sorted by the columns kept longest (see
:func:`microsdc.suppression._engine.distinct_patterns`) those are few.
"""

from __future__ import annotations

import numba
import numpy as np

from microsdc._kernels.bitcount import category_sets, popcount

__all__ = [
    "BITSET_MAX_ROWS",
    "change_cells",
    "greedy_bitset",
    "improve_cells",
    "restore_cells",
    "support_bitset",
]

#: Above this many distinct patterns the hash-table kernel is used instead.
BITSET_MAX_ROWS = 50_000_000


@numba.njit(cache=True, nogil=True, inline="always")
def _word_and(table, first, sets, n_sets, w):  # pragma: no cover - numba
    """AND of word ``w`` of the rows ``sets[:n_sets]`` of ``table``, from ``first`` (``sets[0]``,
    the smallest set, read once by the caller): the others are read while it is non-zero."""
    x = table[first, w]
    t = 1
    while x and t < n_sets:
        x &= table[sets[t], w]
        t += 1
    return x


@numba.njit(cache=True, nogil=True)
def _intersect(bits, summ, sets, n_sets, words, buf, nz):  # pragma: no cover - numba
    """Intersection of ``bits[sets[:n_sets]]`` into ``buf`` on words ``nz[:count]``; returns
    (count of non-zero words listed, population).

    ``summ[s]`` has bit w set when word w of set s may be non-zero (never clear
    when it is non-zero), so only the words flagged in every set are read.
    """
    one = np.uint64(1)
    count = 0
    pop = 0
    first = sets[0]  # the caller lists the smallest set first
    for w2 in range(summ.shape[1]):
        f = _word_and(summ, first, sets, n_sets, w2)
        while f:
            low = f & (~f + one)
            w = (w2 << 6) + popcount(low - one)
            f ^= low
            x = _word_and(bits, first, sets, n_sets, w)
            if x:
                buf[w] = x
                nz[count] = w
                count += 1
                pop += popcount(x)
    return count, pop


@numba.njit(cache=True, nogil=True)
def _weighted(buf, nz, count, pop, mult, k):  # pragma: no cover - numba
    """Records (units weighted by ``mult``) in ``buf``: exact below k, else a lower bound >= k.

    Every unit weighs at least 1, so ``pop >= k`` settles the comparison with k
    without visiting the bits; otherwise fewer than k bits are summed.
    """
    if pop >= k:
        return pop
    return _exact_weighted(buf, nz, count, mult)


@numba.njit(cache=True, nogil=True)
def _exact_weighted(buf, nz, count, mult):  # pragma: no cover - numba
    """Records (units weighted by ``mult``) in ``buf``, exactly."""
    one = np.uint64(1)
    total = 0
    for i in range(count):
        w = nz[i]
        x = buf[w]
        while x:
            low = x & (~x + one)
            total += mult[(w << 6) + popcount(low - one)]
            x ^= low
    return total


@numba.njit(cache=True, nogil=True)
def _fill_all(buf, nz, n):  # pragma: no cover - numba
    """``buf`` = every one of the n records, ``nz`` = every word; returns the number of words."""
    words = buf.shape[0]
    for w in range(words):
        buf[w] = ~np.uint64(0)
        nz[w] = w
    if n & 63:
        buf[words - 1] = (np.uint64(1) << np.uint64(n & 63)) - np.uint64(1)
    return words


@numba.njit(cache=True, nogil=True)
def _build(codes, n_categories):  # pragma: no cover - numba
    """Offsets of each column's sets, the sets ``B[j, v]`` (one row of words each,
    :func:`~microsdc._kernels.bitcount.category_sets`), their sizes, and a summary of
    each set (bit w: word w is non-zero)."""
    offset, bits, size = category_sets(codes, n_categories)
    one = np.uint64(1)
    words = bits.shape[1]
    summ = np.zeros((bits.shape[0], (words + 63) // 64), dtype=np.uint64)
    for s in range(bits.shape[0]):
        for w in range(words):
            if bits[s, w]:
                summ[s, w >> 6] |= one << np.uint64(w & 63)
    return offset, bits, size, summ


@numba.njit(cache=True, nogil=True)
def greedy_bitset(
    codes, n_categories, order, candidates, klass, k, select, weight, mult, progress=None
):  # pragma: no cover - numba
    """Blank cells of the rows ``order`` (in that order) until each reaches k (wildcard).

    Parameters are those of ``greedy_suppress`` for kind 0 (``progress``
    included); ``codes`` (int64,
    C-ordered, -1 = missing) is modified in place. Each row of ``codes`` is a
    unit standing for ``mult`` identical records (all ones for plain records):
    counts are sums of ``mult``, and a unit's blanks apply to all its records.

    Returns
    -------
    blanked : ndarray of shape (r,), int64, column mask blanked in each processed row
    """
    n, m = codes.shape
    words = (n + 63) // 64
    offset, bits, size, summ = _build(codes, n_categories)
    one = np.uint64(1)
    n_records = 0
    for i in range(n):
        n_records += mult[i]
    pending = np.zeros(words, dtype=np.uint64)
    pweight = np.zeros(n, dtype=np.int64)
    for oi in range(order.shape[0]):
        r = order[oi]
        pending[r >> 6] |= one << np.uint64(r & 63)
        pweight[r] = weight[oi]

    base = np.zeros(words, dtype=np.uint64)
    base_nz = np.empty(words, dtype=np.int64)
    buf = np.zeros(words, dtype=np.uint64)
    nz = np.empty(words, dtype=np.int64)
    sets = np.empty(m, dtype=np.int64)
    blanked = np.zeros(order.shape[0], dtype=np.int64)

    for oi in range(order.shape[0]):
        if progress is not None:
            progress[0] = oi
        r = order[oi]
        rb = one << np.uint64(r & 63)
        pending[r >> 6] &= ~rb
        obs = np.int64(0)  # not a literal: one compiled _ordered_sets
        for j in range(m):
            if codes[r, j] >= 0:
                obs |= 1 << j
        if obs == 0:
            continue
        # the record as it is
        n_sets = _ordered_sets(codes, r, obs, offset, size, sets, m)
        base_count, pop0 = _intersect(bits, summ, sets, n_sets, words, base, base_nz)
        fk0 = _weighted(base, base_nz, base_count, pop0, mult, k)
        if fk0 >= k:
            for i in range(base_count):
                base[base_nz[i]] = np.uint64(0)
            continue
        chosen = -1
        best_gain = -1
        best_class = -1
        for ci in range(candidates.shape[0]):
            s_set = candidates[ci]
            if s_set & ~obs:
                continue
            if best_class >= 0 and klass[ci] > best_class:
                break
            a_set = obs & ~s_set
            if a_set == 0:
                fk = n_records
                count = _fill_all(buf, nz, n)
            else:
                n_sets = _ordered_sets(codes, r, a_set, offset, size, sets, m)
                count, pop = _intersect(bits, summ, sets, n_sets, words, buf, nz)
                fk = _weighted(buf, nz, count, pop, mult, k)
            if fk < k:
                for i in range(count):
                    buf[nz[i]] = np.uint64(0)
                continue
            if select == 0:
                chosen = s_set
                for i in range(count):
                    buf[nz[i]] = np.uint64(0)
                break
            gain = 0
            for i in range(count):
                w = nz[i]
                x = buf[w] & ~base[w] & pending[w]
                while x:
                    low = x & (~x + one)
                    bit = popcount(low - one)
                    gain += pweight[(w << 6) + bit]
                    x ^= low
                buf[w] = np.uint64(0)
            if gain > best_gain:
                best_gain = gain
                chosen = s_set
                best_class = klass[ci]
        for i in range(base_count):
            base[base_nz[i]] = np.uint64(0)
        if chosen < 0:
            chosen = obs  # no subset reaches k: blank the whole record
        blanked[oi] = chosen
        w = r >> 6
        for j in range(m):
            if (chosen >> j) & 1:
                v = codes[r, j]
                for u in range(n_categories[j]):
                    if u != v:
                        bits[offset[j] + u, w] |= rb
                        summ[offset[j] + u, w >> 6] |= one << np.uint64(w & 63)
                        size[offset[j] + u] += 1
                codes[r, j] = -1
    return blanked


@numba.njit(cache=True, nogil=True)
def _ordered_sets(codes, r, a_set, offset, size, sets, m):  # pragma: no cover - numba
    """Bit-set indices of record r's values on the columns of ``a_set``, smallest set first."""
    n_sets = 0
    for j in range(m):
        if (a_set >> j) & 1:
            idx = offset[j] + codes[r, j]
            # insertion sort by set size
            t = n_sets
            while t > 0 and size[sets[t - 1]] > size[idx]:
                sets[t] = sets[t - 1]
                t -= 1
            sets[t] = idx
            n_sets += 1
    return n_sets


def improve_cells(
    codes: np.ndarray,
    original: np.ndarray,
    n_categories: np.ndarray,
    k: float,
    fk: np.ndarray,
    rows: np.ndarray,
    mult: np.ndarray,
    candidates: np.ndarray | None = None,
    col_cost: np.ndarray | None = None,
) -> int:
    """Change the blanked cells of the rows while every record keeps fk >= k (wildcard).

    Without ``candidates`` (also called as :func:`restore_cells`), blanked
    cells are given back. Restoring cell (r, j) to its value v removes r from
    ``B[j, u]`` for u != v: r then matches the records of ``C'`` (the records
    compatible with its restored pattern) and loses the others of ``C`` (those
    compatible with it now). A cell is restored only when r keeps at least k
    matches and every record it stops matching keeps at least k. The cells of
    each row are tried in column order.

    With ``candidates``, the blanked cells of a row are replaced by a cheaper
    set: for each row of ``rows`` with blanked cells ``S`` (cost
    ``sum(col_cost[S])``), try no blank at all, then the ``candidates``
    (subsets of the row's originally observed cells, by increasing cost)
    cheaper than ``S``. The first one that keeps the row at k and leaves every
    record it stops matching at k or more replaces ``S``: cells may come back
    and others go (a swap), never raising the cost.

    Parameters
    ----------
    codes : ndarray of shape (n, m), int64, -1 = missing; modified in place
    original : ndarray of shape (n, m), int64, the codes before suppression
    n_categories : ndarray of shape (m,), int64
    k : float
    fk : ndarray of shape (n,), float64, current fk of every record; updated
    rows : ndarray of shape (r,), int64, records whose blanked cells are tried, in order
    mult : ndarray of shape (n,), int64, >= 1
        Records each row of ``codes`` stands for (see ``greedy_bitset``).
    candidates : ndarray of shape (c,), int64, optional
        Column subsets (bit masks) by increasing cost; None gives cells back.
    col_cost : ndarray of shape (m,), float64
        Cost of blanking a cell of each column; required with ``candidates``.

    Returns
    -------
    int
        Without ``candidates``, the number of cells restored (counted once per
        row, not per record); with them, the number of rows changed.
    """
    if candidates is None:
        no_candidates = np.zeros(0, dtype=np.int64)
        no_cost = np.zeros(codes.shape[1], dtype=np.float64)
        return change_cells(
            codes, original, n_categories, k, fk, rows, mult, no_candidates, no_cost, True
        )
    return change_cells(
        codes, original, n_categories, k, fk, rows, mult, candidates, col_cost, False
    )


#: :func:`improve_cells` without candidates: give back the blanked cells not needed.
restore_cells = improve_cells


@numba.njit(cache=True, nogil=True)
def change_cells(
    codes, original, n_categories, k, fk, rows, mult, candidates, col_cost, restore_only
):  # pragma: no cover - numba
    """The kernel of :func:`restore_cells` (``restore_only``) and :func:`improve_cells`."""
    n, m = codes.shape
    words = (n + 63) // 64
    offset, bits, size, summ = _build(codes, n_categories)
    one = np.uint64(1)
    cur = np.zeros(words, dtype=np.uint64)
    cur_nz = np.empty(words, dtype=np.int64)
    buf = np.zeros(words, dtype=np.uint64)
    nz = np.empty(words, dtype=np.int64)
    sets = np.empty(m, dtype=np.int64)
    # records that could fall below k when losing a row: fk < k + the largest multiplicity
    # (a superset is fine, each is checked exactly)
    cap = np.int64(1)  # not a literal: one compiled _try_blanks
    for t in range(rows.shape[0]):
        cap = max(cap, mult[rows[t]])
    fragile = np.zeros(words, dtype=np.uint64)
    for s in range(n):
        if fk[s] < k + cap:
            fragile[s >> 6] |= one << np.uint64(s & 63)
    changed = 0
    for t in range(rows.shape[0]):
        r = rows[t]
        obs, orig_obs = _observed(codes, original, r, m)
        blank = orig_obs & ~obs
        if blank == 0:
            continue
        if restore_only:
            for j in range(m):
                if (blank >> j) & 1:
                    new_blank = blank & ~(1 << j)
                    if _try_blanks(
                        codes, original, n_categories, k, fk, mult, offset, bits, size, summ,
                        fragile, cap, r, new_blank, cur, cur_nz, buf, nz, sets,
                    ):  # fmt: skip
                        blank = new_blank
                        changed += 1
            continue
        cost = 0.0
        for j in range(m):
            if (blank >> j) & 1:
                cost += col_cost[j]
        for ci in range(-1, candidates.shape[0]):
            s_set = 0 if ci < 0 else candidates[ci]
            if s_set & ~orig_obs:
                continue
            c_cost = 0.0
            for j in range(m):
                if (s_set >> j) & 1:
                    c_cost += col_cost[j]
            if c_cost >= cost - 1e-9:
                if ci >= 0:
                    break
                continue
            if s_set == orig_obs:
                continue  # never cheaper than the current blanks, which keep some cell
            if _try_blanks(
                codes, original, n_categories, k, fk, mult, offset, bits, size, summ,
                fragile, cap, r, s_set, cur, cur_nz, buf, nz, sets,
            ):  # fmt: skip
                changed += 1
                break
    return changed


@numba.njit(cache=True, nogil=True)
def _observed(codes, original, r, m):  # pragma: no cover - numba
    """Bit sets of row r's observed columns: now (in ``codes``) and before suppression."""
    obs = np.int64(0)
    orig_obs = np.int64(0)
    for j in range(m):
        if codes[r, j] >= 0:
            obs |= 1 << j
        if original[r, j] >= 0:
            orig_obs |= 1 << j
    return obs, orig_obs


@numba.njit(cache=True, nogil=True)
def _try_blanks(
    codes, original, n_categories, k, fk, mult, offset, bits, size, summ,
    fragile, cap, r, new_blank, cur, cur_nz, buf, nz, sets,
):  # fmt: skip  # pragma: no cover - numba
    """Blank exactly ``new_blank`` of row r's original cells if every record keeps k.

    ``new_blank`` is a subset of the row's originally observed cells that
    keeps at least one of them. Returns True when the change was made (codes,
    bit sets, fk and ``fragile`` updated).
    """
    n, m = codes.shape
    words = (n + 63) // 64
    one = np.uint64(1)
    rb = one << np.uint64(r & 63)
    wr = r >> 6
    obs, orig_obs = _observed(codes, original, r, m)
    blank = orig_obs & ~obs
    # records compatible with the row now
    if obs == 0:
        cur_count = _fill_all(cur, cur_nz, n)
    else:
        n_sets = _ordered_sets(codes, r, obs, offset, size, sets, m)
        cur_count, _ = _intersect(bits, summ, sets, n_sets, words, cur, cur_nz)
    # records compatible with the changed row
    a_set = orig_obs & ~new_blank
    n_sets = _ordered_sets(original, r, a_set, offset, size, sets, m)
    count, pop = _intersect(bits, summ, sets, n_sets, words, buf, nz)
    ok = _weighted(buf, nz, count, pop, mult, k) >= k
    if ok:
        # every record compatible now but not after the change loses r
        for i in range(cur_count):
            w = cur_nz[i]
            x = cur[w] & ~buf[w] & fragile[w]
            while x and ok:
                low = x & (~x + one)
                s = (w << 6) + popcount(low - one)
                if fk[s] - mult[r] < k:
                    ok = False
                x ^= low
    if ok:
        for i in range(cur_count):
            w = cur_nz[i]
            x = cur[w] & ~buf[w]
            while x:
                low = x & (~x + one)
                s = (w << 6) + popcount(low - one)
                fk[s] -= mult[r]
                if fk[s] < k + cap:
                    fragile[w] |= low
                x ^= low
        # records compatible after the change but not now gain r
        for i in range(count):
            w = nz[i]
            x = buf[w] & ~cur[w]
            while x:
                low = x & (~x + one)
                fk[(w << 6) + popcount(low - one)] += mult[r]
                x ^= low
        fk[r] = _exact_weighted(buf, nz, count, mult)
        if fk[r] < k + cap:
            fragile[wr] |= rb
        for j in range(m):
            v = original[r, j]
            if v < 0:
                continue
            was_blank = (blank >> j) & 1
            now_blank = (new_blank >> j) & 1
            if was_blank and not now_blank:
                for u in range(n_categories[j]):
                    if u != v:
                        bits[offset[j] + u, wr] &= ~rb
                        size[offset[j] + u] -= 1
            elif now_blank and not was_blank:
                for u in range(n_categories[j]):
                    if u != v:
                        bits[offset[j] + u, wr] |= rb
                        summ[offset[j] + u, wr >> 6] |= one << np.uint64(wr & 63)
                        size[offset[j] + u] += 1
            codes[r, j] = -1 if now_blank else v
    for i in range(count):
        buf[nz[i]] = np.uint64(0)
    for i in range(cur_count):
        cur[cur_nz[i]] = np.uint64(0)
    return ok


@numba.njit(cache=True, nogil=True)
def support_bitset(codes, n_categories, mult, targets):  # pragma: no cover - numba
    """Wildcard support of each row of ``targets`` among the rows of ``codes``.

    Parameters
    ----------
    codes : ndarray of shape (n, m), int64, -1 = missing
    n_categories : ndarray of shape (m,), int64
    mult : ndarray of shape (n,), int64, records each row of ``codes`` stands for
    targets : ndarray of shape (t, m), int64, -1 = missing

    Returns
    -------
    ndarray of shape (t,), int64, sum of ``mult`` over the compatible rows
    """
    n, m = codes.shape
    words = (n + 63) // 64
    offset, bits, size, summ = _build(codes, n_categories)
    buf = np.zeros(words, dtype=np.uint64)
    nz = np.empty(words, dtype=np.int64)
    sets = np.empty(m, dtype=np.int64)
    total = 0
    for i in range(n):
        total += mult[i]
    res = np.zeros(targets.shape[0], dtype=np.int64)
    for t in range(targets.shape[0]):
        a_set = np.int64(0)
        for j in range(m):
            if targets[t, j] >= 0:
                a_set |= 1 << j
        if a_set == 0:
            res[t] = total
            continue
        n_sets = _ordered_sets(targets, t, a_set, offset, size, sets, m)
        count, _ = _intersect(bits, summ, sets, n_sets, words, buf, nz)
        res[t] = _exact_weighted(buf, nz, count, mult)
        for i in range(count):
            buf[nz[i]] = np.uint64(0)
    return res
