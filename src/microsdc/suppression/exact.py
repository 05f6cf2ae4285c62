"""Optimal local suppression for small instances: an integer program solved by HiGHS.

Used through ``local_suppression(..., method="exact")`` to measure how far the
greedy is from the optimum.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from microsdc.exceptions import PerformanceWarning, SDCError

__all__ = ["MAX_EXACT_ROWS", "exact_suppress_codes"]

#: Largest number of records accepted by the exact model (it grows with n x records at risk).
MAX_EXACT_ROWS = 2000


def exact_suppress_codes(
    codes: np.ndarray,
    n_categories: np.ndarray,
    k: int,
    weights: np.ndarray,
    time_limit: float = 60.0,
) -> dict[str, Any]:
    """Blank (in place) a minimum-cost set of cells so that every record has wildcard fk >= k.

    Parameters
    ----------
    codes : ndarray of shape (n, m), int64, -1 = missing
        Modified in place.
    n_categories : ndarray of shape (m,)
        Not used by the model; kept for a uniform signature.
    k : int >= 1
    weights : ndarray of shape (m,), float > 0
        Cost of blanking a cell of each column.
    time_limit : float, seconds
        Passed to HiGHS. When it runs out, the best solution found is used and
        a ``PerformanceWarning`` says it is not proven optimal.

    Returns
    -------
    dict
        ``objective`` (total cost), ``cells``, ``optimal`` (bool), ``status``.

    Raises
    ------
    InvalidParameterError
        If there are more than ``MAX_EXACT_ROWS`` records.
    SDCError
        If the solver finds no solution within the time limit.

    Notes
    -----
    Binary x[r, j] = 1 blanks observed cell (r, j). Under the wildcard policy
    records r and s are compatible after suppression exactly when, for every
    column j where both are observed and differ, x[r, j] or x[s, j] is 1; the
    binary y[r, s] <= x[r, j] + x[s, j] for those j can be 1 only then. For
    every record r at risk, (records compatible from the start) + sum_s y[r, s]
    >= k. Records not at risk need no constraint: blanking never lowers a
    wildcard count. Minimise sum weight[j] x[r, j]. The problem is NP-hard
    (Meyerson & Williams 2004); the model has O(n x n_at_risk) variables and a
    weak linear relaxation: expect proofs of optimality for a few dozen
    records at most. Under the wildcard policy the optimum is often degenerate
    (k - 1 entirely blanked records are compatible with everyone).
    """
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_array

    from microsdc.exceptions import InvalidParameterError
    from microsdc.risk._policy import Policy
    from microsdc.suppression._engine import fk_of

    n, m = codes.shape
    if n > MAX_EXACT_ROWS:
        raise InvalidParameterError(
            f"method='exact' accepts at most {MAX_EXACT_ROWS} records; got {n}. "
            "Use method='greedy'."
        )
    fk = fk_of(codes, np.asarray(n_categories), Policy("wildcard"))
    at_risk = np.flatnonzero(fk < k)
    if len(at_risk) == 0:
        return {"objective": 0.0, "cells": 0, "optimal": True, "status": "nothing to do"}
    obs = codes >= 0
    x_index = -np.ones((n, m), dtype=np.int64)
    x_index[obs] = np.arange(int(obs.sum()))
    n_x = int(obs.sum())
    cost = [float(weights[j]) for r in range(n) for j in range(m) if obs[r, j]]
    # y variables: one per unordered pair (r, s) with r or s at risk and a conflicting column
    rows_a: list[int] = []
    cols_a: list[int] = []
    vals_a: list[float] = []
    lb: list[float] = []
    ub: list[float] = []
    n_con = 0
    y_of: dict[tuple[int, int], int] = {}
    ys_of: dict[int, list[int]] = {int(r): [] for r in at_risk}
    base = np.zeros(n, dtype=np.int64)
    for r in at_risk.tolist():
        both = obs[r] & obs
        conflict = both & (codes != codes[r])
        compatible = ~conflict.any(axis=1)
        base[r] = int(compatible.sum())
        for s in np.flatnonzero(~compatible).tolist():
            pair = (min(r, s), max(r, s))
            if pair in y_of:
                ys_of[r].append(y_of[pair])
                continue
            y = n_x + len(y_of)
            y_of[pair] = y
            ys_of[r].append(y)
            for j in np.flatnonzero(conflict[s]).tolist():
                # y - x[r, j] - x[s, j] <= 0
                rows_a += [n_con, n_con, n_con]
                cols_a += [y, int(x_index[r, j]), int(x_index[s, j])]
                vals_a += [1.0, -1.0, -1.0]
                lb.append(-np.inf)
                ub.append(0.0)
                n_con += 1
    n_y = len(y_of)
    for r in at_risk.tolist():
        ys = ys_of[r]
        rows_a += [n_con] * len(ys)
        cols_a += ys
        vals_a += [1.0] * len(ys)
        lb.append(float(k - base[r]))
        ub.append(np.inf)
        n_con += 1
    n_var = n_x + n_y
    a_mat = coo_array((vals_a, (rows_a, cols_a)), shape=(n_con, n_var)).tocsr()
    c = np.concatenate([np.asarray(cost), np.zeros(n_y)])
    res = milp(
        c,
        integrality=np.ones(n_var),
        bounds=Bounds(0, 1),
        constraints=LinearConstraint(a_mat, lb, ub),
        options={"time_limit": float(time_limit)},
    )
    if res.x is None:
        raise SDCError(
            f"The exact model found no solution within {time_limit:g} s ({res.message}). "
            "Raise time_limit or use method='greedy'."
        )
    optimal = res.status == 0
    if not optimal:
        warnings.warn(
            f"The exact model stopped at the time limit ({time_limit:g} s) without proving "
            "optimality; the best solution found is used.",
            PerformanceWarning,
            stacklevel=3,
        )
    x = res.x[:n_x] > 0.5
    rr, jj = np.nonzero(obs)
    codes[rr[x], jj[x]] = -1
    return {
        "objective": float(c[:n_x][x].sum()),
        "cells": int(x.sum()),
        "optimal": bool(optimal),
        "status": str(res.message),
    }
