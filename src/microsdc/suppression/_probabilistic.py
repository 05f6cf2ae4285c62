"""Local suppression under missing="probabilistic".

Under this policy another record's blank matches a value only with the
value's share p_c(v) among the observed values of the released data, so the
shares change as cells are blanked, and blanking a record can lower the count
of records that matched it. The loop therefore works in passes: each pass
counts fk on the current data (shares recomputed), and every record at risk
takes the cheapest set of its cells (by cost) whose blanking brings its own
count to k on that data, trying the sets one size at a time; a record for
which none does is blanked entirely (an entirely blank record matches every
record with weight 1, so its count is the number of records). Passes repeat
until a full count finds no record at risk; cells are only ever added, so
the loop ends.
"""

from __future__ import annotations

import numpy as np

from microsdc.exceptions import SDCError
from microsdc.risk._policy import Policy
from microsdc.suppression._engine import Costs

__all__ = ["probabilistic_reach_k", "probabilistic_support_of", "probabilistic_suppress"]

_POLICY = Policy("probabilistic")

#: Up to this many target patterns, counts are taken directly against the distinct rows.
_DIRECT_MAX = 256

#: Above this many targets per record, counts are taken one mask at a time.
_PROJECT_ABOVE = 4.0


def _support_direct(codes: np.ndarray, targets: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Probabilistic counts of a few targets against the distinct rows of ``codes``."""
    src, cnt = np.unique(codes, axis=0, return_counts=True)
    out = np.empty(len(targets))
    m = codes.shape[1]
    src_missing = src < 0
    for start in range(0, len(targets), 16):
        t = targets[start : start + 16]
        w = np.broadcast_to(cnt.astype(np.float64), (len(t), len(src))).copy()
        for j in range(m):
            tj = t[:, j][:, None]
            sj = src[:, j][None, :]
            ok = (tj < 0) | src_missing[:, j][None, :] | (sj == tj)
            factor = np.where(src_missing[:, j][None, :] & (tj >= 0), probs[j, tj + 1], 1.0)
            w *= ok * factor
        out[start : start + len(t)] = w.sum(axis=1)
    return out


def probabilistic_support_of(
    codes: np.ndarray, targets: np.ndarray, n_categories: np.ndarray
) -> np.ndarray:
    """Probabilistic count of each target pattern among the rows of ``codes``.

    A row s adds the product, over the columns where s is missing and the
    target is observed, of the share of the target's value among the observed
    values of ``codes`` in that column.

    Parameters
    ----------
    codes : ndarray of shape (n, m), integer, -1 = missing
    targets : ndarray of shape (t, m), integer, -1 = missing
    n_categories : ndarray of shape (m,)

    Returns
    -------
    ndarray of shape (t,), float64
    """
    from microsdc._kernels import dense
    from microsdc.risk.kanonymity import share_weighted_support

    n = codes.shape[0]
    base = np.asarray(n_categories, dtype=np.int64) + 1
    probs = dense.value_shares(codes, base)
    if len(targets) <= _DIRECT_MAX:
        return _support_direct(codes, targets, probs)
    both = np.concatenate([codes, targets])
    w = np.concatenate([np.ones(n), np.zeros(len(targets))])
    return share_weighted_support(both, w, n_categories, probs)[n:]


def _fk_without(codes: np.ndarray, n_categories: np.ndarray, b: int) -> np.ndarray:
    """Probabilistic fk of every row on the columns outside mask ``b``.

    Equal to the count of the row with the columns of ``b`` blank: a record's
    own blanks match anything with weight 1, and the shares of the other
    columns do not depend on ``b``.
    """
    from microsdc.suppression._engine import fk_of

    m = codes.shape[1]
    cols = [j for j in range(m) if not (b >> j) & 1]
    if not cols:
        return np.full(codes.shape[0], float(codes.shape[0]))
    sub = np.ascontiguousarray(codes[:, cols])
    return np.asarray(fk_of(sub, np.asarray(n_categories)[cols], _POLICY), dtype=np.float64)


def probabilistic_reach_k(
    codes: np.ndarray,
    n_categories: np.ndarray,
    jobs: list[tuple[tuple[int, ...], int]],
    costs: Costs,
) -> None:
    """Run :func:`probabilistic_suppress` on every job (column subset, k) until all hold."""
    from microsdc.suppression._engine import candidate_subsets, fk_of

    n, m = codes.shape
    for _ in range(n * m + 2):
        all_ok = True
        for cols, k in jobs:
            cl = list(cols)
            sub = np.ascontiguousarray(codes[:, cl])
            nc = np.asarray(n_categories[cl], dtype=np.int64)
            if (np.asarray(fk_of(sub, nc, _POLICY)) < k - 1e-9).any():
                all_ok = False
                probabilistic_suppress(sub, nc, k, candidate_subsets(costs.subset(cl))[0])
                codes[:, cl] = sub
        if all_ok:
            return
    raise SDCError("Local suppression under 'probabilistic' did not converge; please report this.")


def probabilistic_suppress(
    codes: np.ndarray, n_categories: np.ndarray, k: int, candidates: np.ndarray
) -> np.ndarray:
    """Blank cells of ``codes`` (in place) until no record has probabilistic fk < k.

    Parameters
    ----------
    codes : ndarray of shape (n, m), int64, -1 = missing; modified in place
    n_categories : ndarray of shape (m,)
    k : int, 1 <= k <= n
    candidates : ndarray of shape (c,), int64
        Column subsets (bit masks) by increasing cost, as from
        :func:`microsdc.suppression._engine.candidate_subsets`.

    Returns
    -------
    ndarray of shape (n,), float64
        fk after suppression (from the final count).

    Raises
    ------
    SDCError
        If the loop does not end (never expected).
    """
    from microsdc.suppression._engine import fk_of

    n, m = codes.shape
    sizes = np.array([bin(int(b)).count("1") for b in candidates], dtype=np.int64)
    for _ in range(n * m + 2):
        fk = np.asarray(fk_of(codes, n_categories, _POLICY), dtype=np.float64)
        risky = np.flatnonzero(fk < k - 1e-9)
        if len(risky) == 0:
            return fk
        observed = np.zeros(len(risky), dtype=np.int64)
        for j in range(m):
            observed |= (codes[risky, j] >= 0).astype(np.int64) << j
        chosen = observed.copy()  # default: every observed cell
        pending = np.ones(len(risky), dtype=bool)
        for size in np.unique(sizes):
            idx = np.flatnonzero(pending)
            if len(idx) == 0:
                break
            masks = candidates[sizes == size]
            # (record, mask) pairs where the mask blanks only observed cells of the record
            rec = np.repeat(idx, len(masks))
            msk = np.tile(masks, len(idx))
            keep = (msk & ~observed[rec]) == 0
            rec, msk = rec[keep], msk[keep]
            if len(rec) == 0:
                continue
            if len(rec) > _PROJECT_ABOVE * n:
                # many targets: the count of r with the columns of B blank is r's own
                # count on the other columns, one full count per mask
                fk_t = np.empty(len(rec))
                for b in np.unique(msk).tolist():
                    sel = msk == b
                    fk_t[sel] = _fk_without(codes, n_categories, b)[risky[rec[sel]]]
            else:
                targets = codes[risky[rec]].copy()
                for j in range(m):
                    targets[((msk >> j) & 1).astype(bool), j] = -1
                fk_t = probabilistic_support_of(codes, targets, n_categories)
            ok = fk_t >= k - 1e-9
            # first (cheapest) mask that reaches k, per record
            hit = np.flatnonzero(ok)
            if len(hit) == 0:
                continue
            first = np.unique(rec[hit], return_index=True)[1]
            winners = hit[first]
            chosen[rec[winners]] = msk[winners]
            pending[rec[winners]] = False
        for j in range(m):
            col = ((chosen >> j) & 1).astype(bool)
            codes[risky[col], j] = -1
        if np.all(chosen == 0):  # pragma: no cover - an at-risk record always has a cell
            break
    raise SDCError("Local suppression under 'probabilistic' did not converge; please report this.")
