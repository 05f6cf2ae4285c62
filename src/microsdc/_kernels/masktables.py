"""The state shared by the greedy suppression kernels: records grouped by missingness mask,
and count tables per (mask, column set) in one hash table.

``T[b, C][v]`` is the number of records whose observed columns are exactly
``b`` and whose values on ``C`` (a subset of ``b``) are ``v``, with a second
count per key that each kernel uses its own way (the weight of the records
still waiting). Tables are built lazily, the first time a pair is needed.

All tables live in one :mod:`~microsdc._kernels.hashtable`. A slot holds the key
``(table id + 1, w_0, ..., w_{W-1})``, the words ``w`` being mixed-radix
encodings of the values on ``C`` (several words when the radix product of all
columns does not fit in 62 bits, see :func:`key_layout`). Key ``(0, b, FULL + 1)``
maps a mask to its id; key ``(0, b, C)`` maps a pair to its table id unless a
dense registry ``reg`` (masks x 2**m) is used for few columns.

Per mask id, the array ``mk`` holds (mask, first record, records, first table); the
records of a mask form a doubly linked list (``rnext``, ``rprev``). Per table id,
``td`` holds (mask id, column set, next table of the same mask).

This module imports numba; import it only inside the functions that need it.
"""

from __future__ import annotations

import numba
import numpy as np

from microsdc._kernels.hashtable import add, grow_rows, lookup, lookup2, reserve

__all__ = [
    "DENSE_BITS",
    "MHEAD",
    "MROWS",
    "MTHEAD",
    "MVAL",
    "SCALE",
    "SMALL_MASK",
    "TC",
    "TMASK",
    "TNEXT",
    "agrees",
    "begin_row",
    "candidate_blanks",
    "enter_mask",
    "fill_key",
    "fill_meta_key",
    "init_state",
    "key_layout",
    "link",
    "mask_id",
    "mask_lookup",
    "move_counted",
    "move_row",
    "read_table",
    "register_table",
    "row_mask",
    "share_product",
    "support_from",
    "table_id",
    "unlink",
    "update_tables",
    "waiting_rows",
    "waiting_weight",
]

#: Up to this many columns the (mask, column set) -> table registry is a dense array.
DENSE_BITS = 10
#: Masks with at most this many records are scanned instead of tabulated.
SMALL_MASK = 16
#: Fixed-point scale of the waiting weights stored when shares are given.
SCALE = float(1 << 20)

# columns of the per-mask array mk
MVAL, MHEAD, MROWS, MTHEAD = 0, 1, 2, 3
# columns of the per-table array td
TMASK, TC, TNEXT = 0, 1, 2


def key_layout(n_categories: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Pack columns into 62-bit words for exact mixed-radix keys.

    Returns
    -------
    word_of : ndarray of shape (m,), int64, word holding column j
    mult : ndarray of shape (m,), int64, multiplier of column j inside its word
    n_words : int, at least 2
    """
    m = len(n_categories)
    word_of = np.zeros(m, dtype=np.int64)
    mult = np.ones(m, dtype=np.int64)
    w, radix = 0, 1
    for j in range(m):
        base = max(int(n_categories[j]), 1)
        if radix * base >= 2**62:
            w, radix = w + 1, 1
        word_of[j] = w
        mult[j] = radix
        radix *= base
    return word_of, mult, max(w + 1, 2)


# --------------------------------------------------------------------------- keys


@numba.njit(cache=True, nogil=True)
def fill_key(key, head, vals, cols, word_of, mult):  # pragma: no cover - numba
    """key = (head, words of ``vals`` on the column set ``cols``)."""
    key[0] = head
    for t in range(1, key.shape[0]):
        key[t] = 0
    for j in range(vals.shape[0]):
        if (cols >> j) & 1:
            key[1 + word_of[j]] += vals[j] * mult[j]


@numba.njit(cache=True, nogil=True)
def fill_meta_key(key, b, c):  # pragma: no cover - numba
    """key = (0, b, c): a mask (c = FULL + 1) or a (mask, column set) pair."""
    key[0] = 0
    key[1] = b
    key[2] = c
    for t in range(3, key.shape[0]):
        key[t] = 0


@numba.njit(cache=True, nogil=True)
def row_mask(codes, i):  # pragma: no cover - numba
    """Bit set of the observed columns of row i."""
    b = 0
    for j in range(codes.shape[1]):
        if codes[i, j] >= 0:
            b |= 1 << j
    return b


@numba.njit(cache=True, nogil=True)
def agrees(codes, s, cols, vals):  # pragma: no cover - numba
    """Row s of ``codes`` has the values ``vals`` on the columns of the bit set ``cols``."""
    for j in range(codes.shape[1]):
        if (cols >> j) & 1 and codes[s, j] != vals[j]:
            return False
    return True


# --------------------------------------------------------------------------- masks


@numba.njit(cache=True, nogil=True)
def mask_lookup(ht, key, b, full):  # pragma: no cover - numba
    """Id of mask ``b``, -1 when it was never registered."""
    fill_meta_key(key, b, full + 1)
    return lookup(ht, key) - 1


@numba.njit(cache=True, nogil=True)
def mask_id(ht, meta, mk, n_masks, b, full, key):  # pragma: no cover - numba
    """Id of mask ``b``, registered if new (capacity reserved by the caller).

    Returns the id and the new number of masks."""
    mid = mask_lookup(ht, key, b, full)
    if mid >= 0:
        return mid, n_masks
    mid = n_masks
    add(ht, meta, key, mid + 1, np.int64(0))
    mk[mid, MVAL] = b
    mk[mid, MHEAD] = -1
    mk[mid, MROWS] = 0
    mk[mid, MTHEAD] = -1
    return mid, n_masks + 1


@numba.njit(cache=True, nogil=True)
def link(mk, rnext, rprev, mid, r):  # pragma: no cover - numba
    """Put row r at the head of the records of mask ``mid``."""
    head = mk[mid, MHEAD]
    rnext[r] = head
    rprev[r] = -1
    if head >= 0:
        rprev[head] = r
    mk[mid, MHEAD] = r
    mk[mid, MROWS] += 1


@numba.njit(cache=True, nogil=True)
def unlink(mk, rnext, rprev, mid, r):  # pragma: no cover - numba
    """Take row r out of the records of mask ``mid``."""
    nx = rnext[r]
    pv = rprev[r]
    if pv >= 0:
        rnext[pv] = nx
    else:
        mk[mid, MHEAD] = nx
    if nx >= 0:
        rprev[nx] = pv
    mk[mid, MROWS] -= 1


@numba.njit(cache=True, nogil=True)
def enter_mask(
    ht, meta, key, mk, reg, n_masks, rnext, rprev, rmask, r, b, full
):  # pragma: no cover
    """Row r joins mask ``b`` (registered if new; hash capacity reserved by the caller).

    Returns ``mk``, ``reg`` (grown when needed), the mask id and the new number of masks."""
    rmask[r] = b
    mk = grow_rows(mk, n_masks + 1)
    reg = grow_rows(reg, n_masks + 1)
    mid, n_masks = mask_id(ht, meta, mk, n_masks, b, full, key)
    link(mk, rnext, rprev, mid, r)
    return mk, reg, mid, n_masks


@numba.njit(cache=True, nogil=True)
def move_row(
    ht, meta, key, mk, reg, n_masks, rnext, rprev, rmask, codes, vals, r, mid, chosen, full
):  # pragma: no cover - numba
    """Blank the cells ``chosen`` of row ``r`` (in ``codes`` and in its values ``vals``) and
    move it from mask id ``mid`` to the mask of the cells it keeps. The count tables are
    the caller's: take the row out of those of ``mid`` before, add it to the new mask's
    after. Returns ``mk, reg, new mask id, n_masks``."""
    unlink(mk, rnext, rprev, mid, r)
    for j in range(codes.shape[1]):
        if (chosen >> j) & 1:
            codes[r, j] = -1
            vals[j] = -1
    return enter_mask(
        ht, meta, key, mk, reg, n_masks, rnext, rprev, rmask, r, rmask[r] & ~chosen, full
    )


@numba.njit(cache=True, nogil=True)
def init_state(codes, n_words):  # pragma: no cover - numba
    """Hash table, masks and record lists of the rows of ``codes``, no count table yet; keys
    of ``n_words`` words (see :func:`key_layout`).

    Returns ``ht, meta, key, mk, n_masks, rnext, rprev, rmask, reg, td`` (``key``: scratch)."""
    n, m = codes.shape
    full = (1 << m) - 1
    key = np.zeros(n_words + 1, dtype=np.int64)
    cap = 16
    while cap < 4 * (n + 8):
        cap *= 2
    ht = np.full((cap, key.shape[0] + 2), -1, dtype=np.int64)
    meta = np.zeros(1, dtype=np.int64)
    mk = np.full((64, 4), -1, dtype=np.int64)
    rnext = np.full(n, -1, dtype=np.int64)
    rprev = np.full(n, -1, dtype=np.int64)
    rmask = np.empty(n, dtype=np.int64)
    n_masks = np.int64(0)
    for i in range(n):
        b = row_mask(codes, i)
        rmask[i] = b
        ht = reserve(ht, meta, np.int64(1))
        mk = grow_rows(mk, n_masks + 1)
        mid, n_masks = mask_id(ht, meta, mk, n_masks, b, full, key)
        link(mk, rnext, rprev, mid, i)
    reg = np.full((mk.shape[0], (1 << m) if m <= DENSE_BITS else 0), -1, dtype=np.int64)
    td = np.full((64, 3), -1, dtype=np.int64)
    return ht, meta, key, mk, n_masks, rnext, rprev, rmask, reg, td


@numba.njit(cache=True, nogil=True)
def waiting_rows(n, order, weight):  # pragma: no cover - numba
    """The weight each of ``n`` rows waits with: ``weight[i]`` for row ``order[i]``, else 0."""
    pending = np.zeros(n, dtype=weight.dtype)
    for oi in range(order.shape[0]):
        pending[order[oi]] = weight[oi]
    return pending


# --------------------------------------------------------------------------- tables


@numba.njit(cache=True, nogil=True)
def table_id(ht, reg, key, mk, mid, cols):  # pragma: no cover - numba
    """Id of the table of (mask ``mid``, ``cols``), negative when there is none.

    With the dense registry, the negative value is what the caller stored there."""
    if reg.shape[1] > 0:
        return reg[mid, cols]
    fill_meta_key(key, mk[mid, MVAL], cols)
    return lookup(ht, key) - 1


@numba.njit(cache=True, nogil=True)
def register_table(ht, meta, reg, key, mk, td, mid, cols, tid):  # pragma: no cover - numba
    """Register table ``tid`` of (mask ``mid``, ``cols``), still empty (capacity reserved)."""
    if reg.shape[1] > 0:
        reg[mid, cols] = tid
    else:
        fill_meta_key(key, mk[mid, MVAL], cols)
        add(ht, meta, key, tid + 1, np.int64(0))
    td[tid, TMASK] = mid
    td[tid, TC] = cols
    td[tid, TNEXT] = mk[mid, MTHEAD]
    mk[mid, MTHEAD] = tid


@numba.njit(cache=True, nogil=True)
def read_table(ht, key, tid, vals, cols, word_of, mult, out):  # pragma: no cover - numba
    """out = the two counts of table ``tid`` under the values ``vals`` on ``cols``."""
    fill_key(key, tid + 1, vals, cols, word_of, mult)
    lookup2(ht, key, out)


# --------------------------------------------------------------------------- supports
#
# ``data`` is the tuple (codes, rnext, pending, wt, word_of, mult, ...): the rows, the
# record lists of the masks, the weight of each row still waiting, the records each row
# stands for and the key layout, the same objects for a whole run (a kernel may append
# its own). ``shares`` (m x categories, float64), when given, are the shares of the
# values: each waiting weight is then stored times the shares of the values its table
# drops, in fixed point (``SCALE``); None (the default) stores the weights as they are.


@numba.njit(cache=True, nogil=True)
def share_product(shares, vals, cols):  # pragma: no cover - numba
    """Product of ``shares[j, vals[j]]`` over the columns of the bit set ``cols``."""
    f = 1.0
    j = 0
    while cols:
        if cols & 1:
            f *= shares[j, vals[j]]
        cols >>= 1
        j += 1
    return f


@numba.njit(cache=True, nogil=True)
def waiting_weight(wait, shares, vals, drop):  # pragma: no cover - numba
    """What a record waiting with weight ``wait`` and values ``vals`` adds to the second count
    of a table that drops the columns ``drop`` of its mask: ``wait`` itself without
    ``shares``, else ``wait`` times the shares of its values on ``drop``, in fixed point."""
    if shares is None:
        return wait
    if wait == 0.0:
        return 0
    return np.int64(np.rint(wait * share_product(shares, vals, drop) * SCALE))


@numba.njit(cache=True, nogil=True)
def update_tables(
    ht, meta, key, mk, td, mid, vals, d0, wait, shares, word_of, mult
):  # pragma: no cover - numba
    """Add ``d0`` records and the waiting weight ``wait`` under ``vals`` in every table of
    mask ``mid`` (see :func:`waiting_weight`)."""
    b = mk[mid, MVAL]
    t = mk[mid, MTHEAD]
    while t >= 0:
        cols = td[t, TC]
        fill_key(key, t + 1, vals, cols, word_of, mult)
        add(ht, meta, key, d0, waiting_weight(wait, shares, vals, b & ~cols))
        t = td[t, TNEXT]


@numba.njit(cache=True, nogil=True)
def support_from(
    ht, meta, reg, key, mk, td, mid, cols, vals, data, n_tables, out, shares=None, build_after=0
):  # pragma: no cover - numba
    """Rows of mask ``mid`` agreeing with ``vals`` on ``cols``: out = (records, waiting weight,
    work); the rows read are added to the work.

    Row s stands for ``wt[s]`` identical records. Builds table number
    ``n_tables`` when the pair is new and returns the new number of tables; with
    the dense registry, a new pair is scanned the first ``build_after`` times it
    is asked for (many are never asked again). Capacity (hash slots, ``td``
    rows) is reserved by the caller.
    """
    codes, rnext, pending, wt, word_of, mult = data[0], data[1], data[2], data[3], data[4], data[5]
    tid = table_id(ht, reg, key, mk, mid, cols)
    if tid >= 0:
        read_table(ht, key, tid, vals, cols, word_of, mult, out)
        return n_tables
    m = codes.shape[1]
    drop = mk[mid, MVAL] & ~cols
    scan = mk[mid, MROWS] <= SMALL_MASK
    if reg.shape[1] > 0 and not scan and -1 - tid < build_after:
        reg[mid, cols] = tid - 1
        scan = True
    out[2] += mk[mid, MROWS]
    if scan:
        if shares is not None:
            row_vals = np.empty(m, dtype=np.int64)
        c0 = 0
        c1 = 0
        s = mk[mid, MHEAD]
        while s >= 0:
            if agrees(codes, s, cols, vals):
                c0 += wt[s]
                if shares is None:
                    c1 += pending[s]
                else:  # the values of the row weigh it
                    for j in range(m):
                        row_vals[j] = codes[s, j]
                    c1 += waiting_weight(pending[s], shares, row_vals, drop)
            s = rnext[s]
        out[0] = c0
        out[1] = c1
        return n_tables
    tid = n_tables
    register_table(ht, meta, reg, key, mk, td, mid, cols, tid)
    row_vals = np.empty(m, dtype=np.int64)
    s = mk[mid, MHEAD]
    while s >= 0:
        for j in range(m):
            row_vals[j] = codes[s, j]
        fill_key(key, tid + 1, row_vals, cols, word_of, mult)
        add(ht, meta, key, wt[s], waiting_weight(pending[s], shares, row_vals, drop))
        s = rnext[s]
    read_table(ht, key, tid, vals, cols, word_of, mult, out)
    return n_tables + 1


@numba.njit(cache=True, nogil=True)
def begin_row(
    ht, meta, key, mk, td, rmask, vals, r, n_tables, data, shares=None
):  # pragma: no cover - numba
    """Row r's turn: ``vals`` = its values, and it waits no more (its waiting weight leaves
    the tables of its mask). Returns ``ht`` (grown when needed)."""
    codes, pending, word_of, mult = data[0], data[2], data[4], data[5]
    m = codes.shape[1]
    for j in range(m):
        vals[j] = codes[r, j]
    mid = mask_lookup(ht, key, rmask[r], (1 << m) - 1)
    if pending[r] != 0:
        ht = reserve(ht, meta, n_tables + 1)
        update_tables(ht, meta, key, mk, td, mid, vals, 0, -pending[r], shares, word_of, mult)
        pending[r] = 0
    return ht


@numba.njit(cache=True, nogil=True)
def candidate_blanks(candidates, ci, obs):  # pragma: no cover - numba
    """The cells candidate ``ci`` blanks in a row observing the columns ``obs``: none for
    ``ci = -1`` (the row as it is), -1 when the candidate blanks a column the row lacks."""
    s_set = 0 if ci < 0 else candidates[ci]
    return -1 if s_set & ~obs else s_set


@numba.njit(cache=True, nogil=True)
def move_counted(
    ht, meta, key, mk, td, reg, n_masks, rprev, rmask, vals, r, chosen, n_tables, data
):  # pragma: no cover - numba
    """:func:`move_row` with the count tables: row r, whose turn has come (it waits no more,
    see :func:`begin_row`), takes its records out of the tables of its mask and into those
    of the mask of the cells it keeps. Returns ``ht`` (grown when needed), ``mk``, ``reg``,
    the new mask id and ``n_masks``."""
    codes, rnext, wt, word_of, mult = data[0], data[1], data[3], data[4], data[5]
    full = (1 << codes.shape[1]) - 1
    mid = mask_lookup(ht, key, rmask[r], full)
    ht = reserve(ht, meta, n_tables + 2)
    update_tables(ht, meta, key, mk, td, mid, vals, -wt[r], 0, None, word_of, mult)
    mk, reg, mid2, n_masks = move_row(
        ht, meta, key, mk, reg, n_masks, rnext, rprev, rmask, codes, vals, r, mid, chosen, full
    )
    update_tables(ht, meta, key, mk, td, mid2, vals, wt[r], 0, None, word_of, mult)
    return ht, mk, reg, mid2, n_masks
