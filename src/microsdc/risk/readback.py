"""What an intruder gains from a released column: protected values guessed back.

One rule, used for blanked key-variable cells (:func:`microsdc.risk.linked.recoverable_cells`)
and for the geography of swapped households (``microsdc.swapping``). A protected
value ``v`` (a blanked cell, the original area of a household) of a record is
*given back* by another column C when, among the ``n >= min_count`` other
records that share the record's value of C and show the protected variable:

1. the ``a`` of them that hold ``v`` are at least ``n (3 + p) / 4``, ``p``
   the share of ``v`` among all other records that show the variable: the
   guess "``v``" read from C is wrong at most a quarter as often as the same guess
   made blind (so ``v`` is the intruder's best guess from C, and a column that
   only repeats the most frequent value gains nothing);
2. the agreement is no accident: were C unrelated to the variable, ``a`` or
   more of the ``n`` records would hold ``v`` with probability at most
   :data:`CHANCE` (binomial tail).

What the intruder knows of the relation between C and the variable, and of
the variable's distribution (``p``), is given by the caller: for blanked cells
(:func:`microsdc.risk.linked.recoverable_cells`) it is what the release shows
on its records that show both, plus the true values of a value the release no
longer shows at all (a codebook says what a code means even when every record
of it was blanked); for swapped households, the geography of the other
households. Rare values count: two records sharing a code are enough (a value
held by one record alone gives no guess). A column is judged by the share of
the protected values it gives back.
"""

from __future__ import annotations

import numpy as np

__all__ = ["CHANCE", "SHARE", "given_back"]

#: Largest chance probability of the agreement behind a guess (condition 2).
CHANCE = 0.05
#: Default share of the protected values a column must give back to be flagged.
SHARE = 0.1


def _pair_count(values: np.ndarray, counts: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    if not len(values):
        return np.zeros(len(wanted), dtype=np.int64)
    pos = np.minimum(np.searchsorted(values, wanted), len(values) - 1)
    return np.where(values[pos] == wanted, counts[pos], 0).astype(np.int64)


def given_back(
    ref_c: np.ndarray,
    ref_k: np.ndarray,
    shown_k: np.ndarray,
    c: np.ndarray,
    k: np.ndarray,
    in_ref: np.ndarray,
    *,
    min_count: int = 1,
    in_shown: bool = True,
    ref_weights: np.ndarray | None = None,
    shown_weights: np.ndarray | None = None,
) -> np.ndarray:
    """For each protected value (C value ``c``, true value ``k``): given back by C?

    Parameters
    ----------
    ref_c, ref_k : ndarray of int64 (codes >= 0)
        The records the relation is learned from, with both observed.
    shown_k : ndarray of int64 (codes >= 0)
        The variable of every record that shows it (the base rates ``p``).
    c, k : ndarray of int64
        The targets; ``c < 0`` (C not shown) gives no guess.
    in_ref : ndarray of bool
        Whether the target itself is among ``ref`` (its own pair is left out).
    min_count : int >= 1
        Other records with the target's value of C needed for a guess.
    in_shown : bool, default True
        Whether every target is among ``shown_k`` (and left out of its base rate).
    ref_weights, shown_weights : ndarray of int64 (>= 0), optional
        The records each row of ``ref_c``/``ref_k`` and of ``shown_k`` stands for
        (distinct combinations with their counts, as an engine's group-by gives them);
        default one record per row. The result is that of the rows repeated.

    Returns
    -------
    ndarray of bool
        The rule of the module docstring, target by target.
    """
    from scipy.special import betainc  # lighter than scipy.stats

    out = np.zeros(len(c), dtype=bool)
    ok = (c >= 0) & (k >= 0)
    ref_w: np.ndarray | None = None  # None: one record per row
    shown_w: np.ndarray | None = None
    if ref_weights is not None:  # rows standing for no record are left out
        ref_w = np.asarray(ref_weights, dtype=np.int64)
        ref_c, ref_k, ref_w = ref_c[ref_w > 0], ref_k[ref_w > 0], ref_w[ref_w > 0]
    if shown_weights is not None:
        shown_w = np.asarray(shown_weights, dtype=np.int64)
        shown_k, shown_w = shown_k[shown_w > 0], shown_w[shown_w > 0]
    if not ok.any() or not len(ref_c) or not len(shown_k):
        return out
    n_k = int(max(ref_k.max(), k.max(), shown_k.max())) + 1
    n_c = int(max(ref_c.max(), c.max())) + 1
    per_c = np.bincount(ref_c, weights=ref_w, minlength=n_c).astype(np.int64)
    wanted = np.zeros(n_c, dtype=bool)
    wanted[c[ok]] = True
    keep = wanted[ref_c]  # only the groups of the targets' values are counted
    if ref_w is None:
        values, counts = np.unique(ref_c[keep] * n_k + ref_k[keep], return_counts=True)
    else:
        values, inverse = np.unique(ref_c[keep] * n_k + ref_k[keep], return_inverse=True)
        counts = np.bincount(inverse, weights=ref_w[keep], minlength=len(values))
        counts = counts.astype(np.int64)
    idx = np.flatnonzero(ok)
    cc, kk = c[idx], k[idx]
    own = in_ref[idx].astype(np.int64)
    n = per_c[cc] - own
    a = _pair_count(values, counts, cc * n_k + kk) - own
    # p: the share of v among the other records showing the variable (a blind guess)
    own_shown = 1 if in_shown else 0
    per_k = np.bincount(shown_k, weights=shown_w, minlength=n_k).astype(np.int64)
    total = len(shown_k) if shown_w is None else int(shown_w.sum())
    p = (per_k[kk] - own_shown) / max(total - own_shown, 1)
    # wrong at most a quarter as often as the blind guess: 1 - a / n <= (1 - p) / 4
    guess = (n >= min_count) & (a >= 1) & (4 * a >= n * (3.0 + p))
    if not guess.any():
        return out
    # P(Binomial(n, p) >= a) = I_p(a, n - a + 1), for the targets with a guess
    g = np.flatnonzero(guess)
    tail = betainc(a[g].astype(float), (n[g] - a[g] + 1).astype(float), p[g])
    out[idx[g]] = tail <= CHANCE
    return out
