"""The conservative missing-value policy: a record with missing values gets the
smallest wildcard count over the completions of its missing cells.

For a record r with observed columns O and missing columns M, a completion x
assigns a category to each column of M; its count is the number of records s
that agree with (r_O, x) wherever s is observed. The minimum is found column by
column: if some category of a column is used by none of the records still in
play, choosing it removes every record observed on that column, and that choice
is optimal; otherwise the search branches only over the categories present.
The cartesian product of categories is never enumerated.
"""

from __future__ import annotations

import numpy as np

from microsdc._kernels.patterns import Patterns

__all__ = ["conservative_counts"]


def _min_completion(sub: np.ndarray, val: np.ndarray, card: np.ndarray) -> float:
    """min over complete x of sum(val[s] for s with sub[s, j] in (-1, x_j) for all j)."""
    if sub.shape[1] == 0 or sub.shape[0] == 0:
        return float(val.sum())
    # a column with a category nobody uses: choose it, keep only records missing there
    best_col = -1
    best_present: np.ndarray | None = None
    for j in range(sub.shape[1]):
        present = np.unique(sub[:, j][sub[:, j] >= 0])
        if card[j] == 0 or len(present) < card[j]:
            keep = sub[:, j] < 0
            rest = np.delete(np.arange(sub.shape[1]), j)
            return _min_completion(sub[keep][:, rest], val[keep], card[rest])
        if best_present is None or len(present) < len(best_present):
            best_col, best_present = j, present
    assert best_present is not None
    j = best_col
    rest = np.delete(np.arange(sub.shape[1]), j)
    wildcard_rows = sub[:, j] < 0
    best = np.inf
    for v in best_present:
        keep = wildcard_rows | (sub[:, j] == v)
        best = min(best, _min_completion(sub[keep][:, rest], val[keep], card[rest]))
    return float(best)


def conservative_counts(
    pat: Patterns, complete_support: np.ndarray, weighted: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Per-pattern conservative fk and Fk.

    Parameters
    ----------
    pat : Patterns
    complete_support : ndarray of shape (n_patterns, 4)
        Output of ``wildcard_support``; used as it is for complete patterns.
    weighted : bool

    Returns
    -------
    fk, Fk : ndarray of shape (n_patterns,), float64
    """
    m = pat.codes.shape[1]
    full = (1 << m) - 1
    fk = complete_support[:, 0] + complete_support[:, 1]
    big_fk = complete_support[:, 2] + complete_support[:, 3] if weighted else fk.copy()
    # possible completions are the categories observed in the data
    card = np.array(
        [np.unique(pat.codes[:, j][pat.codes[:, j] >= 0]).size for j in range(m)], dtype=np.int64
    )
    for p in np.flatnonzero(pat.mask != full):
        r = pat.codes[p]
        obs = np.flatnonzero(r >= 0)
        mis = np.flatnonzero(r < 0)
        if obs.size:
            block = pat.codes[:, obs]
            ok = np.all((block == r[obs]) | (block < 0), axis=1)
        else:
            ok = np.ones(len(pat.codes), dtype=bool)
        sub = pat.codes[ok][:, mis]
        card_sub = card[mis]
        fk[p] = _min_completion(sub, pat.count[ok].astype(np.float64), card_sub)
        if weighted:
            big_fk[p] = _min_completion(sub, pat.weight[ok], card_sub)
        else:
            big_fk[p] = fk[p]
    return fk, big_fk
