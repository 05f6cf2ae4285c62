"""Give back blanked cells under alpha = 0 where every record keeps fk >= k.

Under alpha = 0 (sdcMicro ``freqCalc``) the fk of a record with pattern P
(its QI tuple, blanks included) is

- P complete: the number of records with exactly P;
- P with a blank: the number of complete records compatible with P plus the
  number of records with exactly P (the record included).

Restoring one blanked cell of t records of P (the same value) moves them from P
to P', P with that value filled in. Only these counts change: the records of P
lose t own-pattern matches, those of P' gain t, and when P' is complete the
movers become complete records compatible with every pattern that generalises
P' (P among them, whose records then lose nothing). Every other record counts
the movers as blank-bearing records outside its own pattern, that is 0, before
and after. So a move is safe exactly when P (if not left empty) and P' keep
fk >= k, which two lookups decide. One record alone rarely reaches k in a new
pattern, so the records that take back the same value move together.
"""

from __future__ import annotations

import numpy as np

from microsdc._core.policy import Policy

__all__ = ["restore_alpha0", "restore_alpha0_checked"]


def _how_many(size: int, have: int, in_pattern: int, complete: bool, spare: int, k: int) -> int:
    """How many of a group of ``size`` records of pattern P move to P' (0: none).

    ``have`` is fk of P', ``in_pattern`` the records of P, ``complete`` whether P' has no
    blank, ``spare`` what P's records can lose and keep k.
    """
    # all of them: P keeps k (or empties; a complete P' gives back what P loses)
    if have + size >= k and (in_pattern == size or complete or spare >= size):
        return size
    # fewest that reach k together with P' as it is, if P can spare them
    take = max(k - have, 1)
    if take > size or (in_pattern > take and not complete and spare < take):
        return 0
    return take


def restore_alpha0(
    original: np.ndarray, codes: np.ndarray, n_categories: np.ndarray, k: int, cost: np.ndarray
) -> int:
    """Give back blanked cells of ``codes`` (in place) while every record keeps fk >= k.

    Columns are tried the most costly first. In each, the records of one
    pattern blank there that take back the same value form a group (groups in
    order of their first row): the whole group moves when the counts of the two
    patterns it touches allow it, else the fewest of its records that reach k
    in the new pattern, when the old one can spare them (see the module
    docstring). ``codes`` must reach k under alpha = 0 on entry; it still does
    on return.

    Parameters
    ----------
    original : ndarray of shape (n, m), int64, -1 = missing, the codes before suppression
    codes : ndarray of shape (n, m), int64, the suppressed codes; modified in place
    n_categories : ndarray of shape (m,)
    k : int >= 1
    cost : ndarray of shape (m,), float64, cost of a cell of each column

    Returns
    -------
    int
        Number of cells given back.
    """
    n, m = codes.shape
    if n == 0 or m == 0:
        return 0
    radix = np.ones(m, dtype=np.int64)
    base = np.asarray(n_categories, dtype=np.int64) + 1
    for j in range(1, m):
        radix[j] = radix[j - 1] * base[j - 1]
    full = (1 << m) - 1

    mask_bits = 1 << np.arange(m, dtype=np.int64)
    masks = ((codes >= 0).astype(np.int64) * mask_bits).sum(axis=1)
    keys = ((codes + 1) * radix).sum(axis=1)
    uniq, counts = np.unique(keys, return_counts=True)
    own: dict[int, int] = dict(zip(uniq.tolist(), counts.tolist(), strict=True))
    complete_rows = [codes[masks == full]]
    # complete records projected on a mask: {mask: {key of the projection: count}}
    proj: dict[int, dict[int, int]] = {}

    def projection(b: int) -> dict[int, int]:
        table = proj.get(b)
        if table is None:
            if len(complete_rows) > 1:
                complete_rows[:] = [np.vstack(complete_rows)]
            on = np.array([(b >> j) & 1 for j in range(m)], dtype=np.int64)
            pk = ((complete_rows[0] + 1) * on * radix).sum(axis=1)
            u, c = np.unique(pk, return_counts=True)
            table = dict(zip(u.tolist(), c.tolist(), strict=True))
            proj[b] = table
        return table

    def fk(key: int, b: int) -> int:
        """fk of the records of pattern ``key`` with mask ``b`` (0 members: what one would see)."""
        if b == full:
            return own.get(key, 0)
        return projection(b).get(key, 0) + own.get(key, 0)

    def move(i: int, j: int, b2: int, key2: int) -> None:
        old = int(keys[i])
        codes[i, j] = original[i, j]
        masks[i], keys[i] = b2, key2
        own[old] -= 1
        own[key2] = own.get(key2, 0) + 1
        if b2 == full:
            row = codes[i]
            for mb, table in proj.items():
                pk = sum(int(row[t] + 1) * int(radix[t]) for t in range(m) if (mb >> t) & 1)
                table[pk] = table.get(pk, 0) + 1
            complete_rows.append(row[None, :].copy())

    restored = 0
    for j in np.argsort(-np.asarray(cost, dtype=np.float64), kind="stable"):
        j = int(j)
        rows = np.flatnonzero((codes[:, j] < 0) & (original[:, j] >= 0))
        if not len(rows):
            continue
        # the records of one pattern that take back the same value move together
        group_key = keys[rows] * (int(n_categories[j]) + 1) + original[rows, j]
        _, first, inverse = np.unique(group_key, return_index=True, return_inverse=True)
        # each group's rows, in row order, by one sort (not one scan of the rows per group)
        by_group = rows[np.argsort(inverse.reshape(-1), kind="stable")]
        bounds = np.concatenate([[0], np.cumsum(np.bincount(inverse.reshape(-1)))])
        for g in np.argsort(first, kind="stable"):
            members = by_group[bounds[g] : bounds[g + 1]]
            i0 = int(members[0])
            b, key = int(masks[i0]), int(keys[i0])
            b2 = b | (1 << j)
            key2 = key + int(original[i0, j] + 1) * int(radix[j])
            # what P's records can lose and keep k
            take = _how_many(len(members), fk(key2, b2), own[key], b2 == full, fk(key, b) - k, k)
            for i in members[:take]:
                move(int(i), j, b2, key2)
            restored += take
    return restored


def restore_alpha0_checked(
    original: np.ndarray,
    codes: np.ndarray,
    n_categories: np.ndarray,
    k: int,
    cost: np.ndarray,
    policy: Policy,
) -> int:
    """:func:`restore_alpha0` on a copy, kept only when a full fk count under ``policy``
    (alpha = 0) finds every record at k or more. Returns the cells given back."""
    from microsdc.suppression._engine import fk_of

    trial = codes.copy()
    got = restore_alpha0(original, trial, n_categories, k, cost)
    if got == 0 or (fk_of(trial, n_categories, policy) < k).any():
        return 0
    codes[...] = trial
    return got
