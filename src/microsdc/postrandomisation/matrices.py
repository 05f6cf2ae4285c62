"""Transition matrices of PRAM: the invariant construction, its masked variant, and checks.

Every function here works on plain numpy arrays of one variable (or one group of variables
PRAMmed together) in one stratum: ``counts[j]`` records hold category ``j``; row ``i`` of a
matrix is the distribution of the released category of a record whose category is ``i``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "cumulative_rows",
    "invariance_error",
    "invariant_matrix",
    "masked_invariant_matrix",
]


def _shares(counts: np.ndarray) -> np.ndarray:
    total = float(counts.sum())
    return counts / total if total > 0 else np.zeros(len(counts))


def invariant_matrix(counts: np.ndarray, diagonal: np.ndarray, alpha: float) -> np.ndarray:
    """Invariant transition matrix as sdcMicro's ``pram`` builds it.

    ``P`` keeps category ``i`` with probability ``diagonal[i]`` and spreads the rest evenly
    over the other categories; ``Q`` is its Bayes reverse under the observed shares ``p``
    (``Q[k, j] = P[j, k] p_j / sum_l p_l P[l, k]``); ``R = P Q`` leaves ``p`` invariant
    (``p R = p``), and the result is ``alpha R + (1 - alpha) I``.

    Parameters
    ----------
    counts : numpy.ndarray of shape (L,)
        Records per category in the stratum (a category absent from it has 0 and never
        receives a record: its column of ``Q`` is 0).
    diagonal : numpy.ndarray of shape (L,)
        The diagonal of ``P``, values in [0, 1] (sdcMicro draws them uniformly in [pd, 1]).
    alpha : float in [0, 1]
        Weight of ``R`` against the identity.

    Returns
    -------
    numpy.ndarray of shape (L, L), rows summing to 1.

    Examples
    --------
    >>> r = invariant_matrix(np.array([60.0, 40.0]), np.array([0.8, 0.8]), 1.0)
    >>> np.round(r, 4).tolist()
    [[0.7403, 0.2597], [0.3896, 0.6104]]
    >>> np.round(np.array([0.6, 0.4]) @ r, 12).tolist()
    [0.6, 0.4]
    """
    n_cat = len(counts)
    if n_cat == 1:
        return np.ones((1, 1))
    p = _shares(np.asarray(counts, dtype=np.float64))
    off = (1.0 - diagonal) / (n_cat - 1)
    big_p = np.repeat(off[:, None], n_cat, axis=1)
    np.fill_diagonal(big_p, diagonal)
    s = p @ big_p  # s[k] = sum_j p_j P[j, k]
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(s[:, None] > 0, big_p.T * p[None, :] / s[:, None], 0.0)
    r = big_p @ q
    # A category absent from the stratum has no records: its row is never used. Keep it
    # the identity so that every row is a distribution.
    absent = p == 0
    r[absent] = 0.0
    r[absent, absent] = 1.0
    r = alpha * r + (1.0 - alpha) * np.eye(n_cat)
    return _normalise(r)


def masked_invariant_matrix(
    counts: np.ndarray, diagonal: np.ndarray, alpha: float, allowed: np.ndarray
) -> np.ndarray:
    """Invariant transition matrix whose moves stay inside a symmetric mask.

    A Metropolis-Hastings chain with stationary distribution ``p`` (the observed shares):
    from category ``i`` a move is proposed with probability ``1 - diagonal[i]``, to one of
    the allowed categories present in the stratum chosen evenly, and accepted with
    probability ``min(1, p_j q_ji / (p_i q_ij))``. Detailed balance (``p_i R_ij = p_j R_ji``)
    gives ``p R = p``; ``R_ij = 0`` wherever the mask forbids ``i -> j``; and the diagonal is
    at least ``diagonal[i]``, also for rare categories (sdcMicro's construction lets it fall
    below ``pd`` there, its issue #264). The result is ``alpha R + (1 - alpha) I``.

    Parameters
    ----------
    counts, diagonal, alpha
        As in :func:`invariant_matrix`.
    allowed : numpy.ndarray of shape (L, L), bool
        Symmetric; ``allowed[i, j]`` when a record may move from ``i`` to ``j``.

    Returns
    -------
    numpy.ndarray of shape (L, L), rows summing to 1.

    Examples
    --------
    >>> mask = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], dtype=bool)
    >>> r = masked_invariant_matrix(np.array([50.0, 30.0, 20.0]), np.full(3, 0.8), 1.0, mask)
    >>> np.round(r, 4).tolist()
    [[0.94, 0.06, 0.0], [0.1, 0.8, 0.1], [0.0, 0.15, 0.85]]
    >>> np.round(np.array([0.5, 0.3, 0.2]) @ r, 12).tolist()
    [0.5, 0.3, 0.2]
    """
    n_cat = len(counts)
    p = _shares(np.asarray(counts, dtype=np.float64))
    present = p > 0
    targets = allowed & present[None, :] & ~np.eye(n_cat, dtype=bool)
    n_targets = targets.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        propose = np.where(
            targets, ((1.0 - diagonal) / np.maximum(n_targets, 1))[:, None], 0.0
        )  # q_ij
        flow = p[:, None] * propose  # p_i q_ij
        accepted = np.minimum(flow, flow.T)  # p_i R_ij, symmetric
        r = np.where(present[:, None], accepted / p[:, None], 0.0)
    np.fill_diagonal(r, 0.0)
    np.fill_diagonal(r, 1.0 - r.sum(axis=1))
    r = alpha * r + (1.0 - alpha) * np.eye(n_cat)
    return _normalise(r)


def _normalise(r: np.ndarray) -> np.ndarray:
    r = np.clip(r, 0.0, None)
    return r / r.sum(axis=1, keepdims=True)


def invariance_error(counts: np.ndarray, matrix: np.ndarray) -> float:
    """``max_j |(p R)_j - p_j|`` for the shares ``p`` of ``counts`` (0 for no records)."""
    p = _shares(np.asarray(counts, dtype=np.float64))
    if not p.any():
        return 0.0
    return float(np.abs(p @ matrix - p).max())


def cumulative_rows(matrix: np.ndarray) -> np.ndarray:
    """Row-wise cumulative sums ending at exactly 1, for drawing by ``u < cum``.

    A transition of probability 0 keeps the cumulative value equal to its left
    neighbour, so a uniform draw never selects it.
    """
    cum = np.cumsum(matrix, axis=1)
    return cum / cum[:, -1:]
