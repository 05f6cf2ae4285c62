"""Optimal local suppression for small instances: an integer program solved by HiGHS.

Used through ``local_suppression(..., method="exact")`` to measure how far the
greedy is from the optimum.

The solver runs in a separate process that is killed when the time limit (plus
:data:`GRACE_SECONDS` and 10 %) has passed: HiGHS's own limit is not always kept. The
answer is never worse than a solution already at hand: the best of the solver's
solution, the greedy's and the (k - 1) entirely blanked records (see
:func:`exact_suppress_codes`).
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from microsdc._core.warn import warn
from microsdc.exceptions import PerformanceWarning

__all__ = ["GRACE_SECONDS", "MAX_EXACT_ROWS", "MAX_MODEL_NONZEROS", "exact_suppress_codes"]

#: Largest number of records accepted by the exact model (it grows with n x records at risk).
MAX_EXACT_ROWS = 2000

#: Largest model (non-zeros of the constraint matrix) handed to the solver; bigger
#: models are not built and the best known solution is used.
MAX_MODEL_NONZEROS = 3_000_000

#: The solver process is killed if it has not answered ``GRACE_SECONDS + 10 %`` of
#: ``time_limit`` after the limit (HiGHS sometimes overruns its own limit by minutes).
GRACE_SECONDS = 1.0

#: Program of the solver process: reads the model (pickle) on stdin, writes the answer on stdout.
_SOLVER = """
import pickle, sys
import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_array
m = pickle.load(sys.stdin.buffer)
a = csr_array((m["data"], m["indices"], m["indptr"]), shape=m["shape"])
res = milp(m["c"], integrality=np.ones(len(m["c"])), bounds=Bounds(0, 1),
           constraints=LinearConstraint(a, m["lb"], m["ub"]),
           options={"time_limit": m["time_limit"]})
pickle.dump({"x": res.x, "status": int(res.status), "message": str(res.message)},
            sys.stdout.buffer)
"""


def _run_solver(model: dict[str, Any], hard_limit: float) -> dict[str, Any]:
    """Solve ``model`` in a child process; kill it after ``hard_limit`` seconds."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _SOLVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = proc.communicate(pickle.dumps(model), timeout=max(hard_limit, 0.0))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"x": None, "status": -1, "message": f"solver stopped after {hard_limit:.3g} s"}
    if proc.returncode != 0 or not out:
        tail = err.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        return {"x": None, "status": -2, "message": f"solver process failed: {tail[0]}"}
    answer: dict[str, Any] = pickle.loads(out)
    return answer


def _blank_records_solution(obs: np.ndarray, weights: np.ndarray, k: int) -> np.ndarray:
    """Blank every cell of the k - 1 cheapest records: wildcards make every record reach k."""
    n = obs.shape[0]
    cost = (obs * weights).sum(axis=1)
    rows = np.argsort(cost, kind="stable")[: max(min(k - 1, n), 0)]
    x = np.zeros_like(obs)
    x[rows] = obs[rows]
    return x


def exact_suppress_codes(
    codes: np.ndarray,
    n_categories: np.ndarray,
    k: int,
    weights: np.ndarray,
    time_limit: float = 60.0,
    greedy: np.ndarray | None = None,
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
        Wall-clock seconds for building and solving the model. The solver runs
        in a separate process with this limit and is killed
        :data:`GRACE_SECONDS` + 10 % of ``time_limit`` later if it has not answered.
    greedy : ndarray of shape (n, m), int64, optional
        ``codes`` after the greedy: a solution the answer must not be worse than.

    Returns
    -------
    dict
        ``objective`` (total cost), ``cells``, ``optimal`` (bool: the solver
        proved it), ``status`` (the solver's message), ``source`` (which
        solution was used: ``"solver"``, ``"greedy"`` or ``"blank_records"``,
        the k - 1 cheapest records blanked entirely), ``greedy_cells`` and
        ``solver_cells`` (None when the solver gave no solution).

    Raises
    ------
    InvalidParameterError
        If there are more than ``MAX_EXACT_ROWS`` records.

    Warns
    -----
    PerformanceWarning
        When optimality is not proven (time limit, solver killed, model too
        large); the message says which solution is used.

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

    Without a proof of optimality the answer is the cheapest of three: the
    solver's best solution, the greedy's (when given) and the k - 1 cheapest
    records blanked entirely, so its cost is at most that of the greedy and at
    most (k - 1) x (the largest record cost). scipy's HiGHS interface takes no
    starting solution; instead the cheaper of the other two bounds the
    objective (a cut-off row), and the three are compared after the solve.
    """
    from microsdc._core.policy import Policy
    from microsdc.exceptions import InvalidParameterError
    from microsdc.suppression._engine import fk_of

    t0 = time.monotonic()
    n, m = codes.shape
    if n > MAX_EXACT_ROWS:
        raise InvalidParameterError(
            f"method='exact' accepts at most {MAX_EXACT_ROWS} records; got {n}. "
            "Use method='greedy'.",
            param="method",
        )
    fk = fk_of(codes, np.asarray(n_categories), Policy("wildcard"))
    at_risk = np.flatnonzero(fk < k)
    if len(at_risk) == 0:
        return {
            "objective": 0.0,
            "cells": 0,
            "optimal": True,
            "status": "nothing to do",
            "source": "solver",
            "greedy_cells": 0,
            "solver_cells": 0,
        }
    weights = np.asarray(weights, dtype=np.float64)
    obs = codes >= 0
    x_index = -np.ones((n, m), dtype=np.int64)
    x_index[obs] = np.arange(int(obs.sum()))
    n_x = int(obs.sum())

    # size of the model before building it: one constraint per conflicting column
    # of each pair (r, s) with r at risk (an upper bound: pairs of two records at
    # risk are counted twice)
    conflicts = 0
    for r in at_risk.tolist():
        conflicts += int((obs[r] & obs & (codes != codes[r])).sum())
    too_large = 3 * conflicts > MAX_MODEL_NONZEROS

    # solutions at hand: the solver is asked only for something at least as cheap
    known: list[tuple[float, int, str, np.ndarray]] = []
    greedy_cells = None
    if greedy is not None:
        gsol = obs & (greedy < 0)
        greedy_cells = int(gsol.sum())
        known.append((float((gsol * weights).sum()), 1, "greedy", gsol))
    bsol = _blank_records_solution(obs, weights, k)
    known.append((float((bsol * weights).sum()), 2, "blank_records", bsol))
    cutoff = min(c for c, *_ in known)

    build = partial(_build_model, codes, obs, x_index, at_risk, weights, k, t0, time_limit, cutoff)
    solver = _solve(build, 3 * conflicts, t0, time_limit)
    cost_x = weights[np.nonzero(obs)[1]]
    candidates: list[tuple[float, int, str, np.ndarray]] = []
    solver_cells = None
    if solver["x"] is not None:
        xs = np.asarray(solver["x"])[:n_x] > 0.5
        sol = np.zeros_like(obs)
        sol[obs] = xs
        if _reaches_k(codes, sol, n_categories, k):
            solver_cells = int(xs.sum())
            candidates.append((float(cost_x[xs].sum()), 0, "solver", sol))
    candidates += known
    objective, _, source, best = min(candidates, key=lambda t: (round(t[0], 9), t[1]))
    optimal = source == "solver" and solver["status"] == 0
    if not optimal:
        _warn_not_optimal(source, str(solver["message"]), too_large, time_limit, k)
    _warn_blank_records(best, obs, k)
    codes[best] = -1
    return {
        "objective": objective,
        "cells": int(best.sum()),
        "optimal": bool(optimal),
        "status": str(solver["message"]),
        "source": source,
        "greedy_cells": greedy_cells,
        "solver_cells": solver_cells,
    }


def _solve(
    build: Callable[[], dict[str, Any] | None], nonzeros: int, t0: float, time_limit: float
) -> dict[str, Any]:
    """Build the model (``build()``, ``nonzeros`` at most) and run HiGHS on it within what
    is left of ``time_limit`` (counted from ``t0``): ``{"x", "status", "message"}`` (``x``
    None when nothing was solved)."""
    if nonzeros > MAX_MODEL_NONZEROS:
        message = (
            f"model too large for the solver ({nonzeros:,} non-zeros > {MAX_MODEL_NONZEROS:,})"
        )
        return {"x": None, "status": -3, "message": message}
    model = build()
    if model is None:
        message = f"building the model took the whole time limit ({time_limit:g} s)"
        return {"x": None, "status": -3, "message": message}
    left = max(time_limit - (time.monotonic() - t0), 0.01)
    model["time_limit"] = float(left)
    return _run_solver(model, left + GRACE_SECONDS + 0.1 * time_limit)


def _warn_not_optimal(
    source: str, message: str, too_large: bool, time_limit: float, k: int
) -> None:
    """Say which solution is released when the solver proved none optimal, and why."""
    what = {
        "solver": "the solver's best solution",
        "greedy": "the greedy's solution (the solver had nothing cheaper)",
        "blank_records": f"{k - 1} record(s) blanked entirely (cheaper than the greedy "
        "and anything the solver found)",
    }[source]
    reason = message or "no proof of optimality"
    unsolved = too_large or message.startswith("building the model")
    head = (
        "The exact model was not solved"
        if unsolved
        else f"The exact model did not prove optimality within {time_limit:g} s"
    )
    warn(f"{head} ({reason}); using {what}.", PerformanceWarning)


def _warn_blank_records(best: np.ndarray, obs: np.ndarray, k: int) -> None:
    """Warn when k is reached through records blanked in every key variable."""
    whole = int((best.any(axis=1) & (best == obs).all(axis=1)).sum())
    if k > 1 and obs.shape[1] > 1 and whole >= k - 1:  # one key variable: a blank is a record
        from microsdc.exceptions import DisclosureRiskWarning

        warn(
            f"The exact solution blanks {whole} record(s) in every key variable. Under the "
            "wildcard policy such a record matches every record, so k is reached by "
            "counting blank records rather than records that share key values: an intruder "
            "who knows a person's key values still sees fewer than k records showing them. "
            "Use the default missing='category' (method='greedy'): every released record "
            "then shares its key values, blanks included, with k - 1 others.",
            DisclosureRiskWarning,
        )


def _reaches_k(codes: np.ndarray, blank: np.ndarray, n_categories: Any, k: int) -> bool:
    """Does blanking ``blank`` give every record wildcard fk >= k?"""
    from microsdc._core.policy import Policy
    from microsdc.suppression._engine import fk_of

    trial = np.where(blank, -1, codes)
    return bool((fk_of(trial, np.asarray(n_categories), Policy("wildcard")) >= k).all())


def _build_model(
    codes: np.ndarray,
    obs: np.ndarray,
    x_index: np.ndarray,
    at_risk: np.ndarray,
    weights: np.ndarray,
    k: int,
    t0: float,
    time_limit: float,
    cutoff: float = np.inf,
) -> dict[str, Any] | None:
    """The integer program as arrays (see the notes of :func:`exact_suppress_codes`).

    With a finite ``cutoff`` (the cost of a solution at hand), the objective is
    bounded by it: a constraint that prunes the search without losing any
    solution at least as cheap. None if building it outlasts ``time_limit``
    (counted from ``t0``).
    """
    from scipy.sparse import coo_array

    n = codes.shape[0]
    n_x = int(obs.sum())
    cost = weights[np.nonzero(obs)[1]]
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
        if time.monotonic() - t0 > time_limit:
            return None
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
    if np.isfinite(cutoff):
        rows_a += [n_con] * n_x
        cols_a += list(range(n_x))
        vals_a += cost.tolist()
        lb.append(-np.inf)
        ub.append(float(cutoff) + 1e-9 * max(1.0, abs(float(cutoff))))
        n_con += 1
    n_var = n_x + n_y
    a_mat = coo_array((vals_a, (rows_a, cols_a)), shape=(n_con, n_var)).tocsr()
    return {
        "c": np.concatenate([cost, np.zeros(n_y)]),
        "data": a_mat.data,
        "indices": a_mat.indices,
        "indptr": a_mat.indptr,
        "shape": a_mat.shape,
        "lb": np.asarray(lb),
        "ub": np.asarray(ub),
    }
