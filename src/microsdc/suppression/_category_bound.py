"""Lower bounds on the cost of suppression under ``missing="category"``.

Used by the benchmarks and tests to measure how far a solution is from the optimum;
:func:`microsdc.local_suppression` does not call it.

The problem. Records with the same QI tuple (blanks included) are interchangeable;
let ``c_u`` be the records of distinct tuple ``u``. A record of tuple u may be
released as any *target* t obtained from u by blanking observed cells, at cost
``a_ut`` (the weights of the cells blanked). After suppression every target in use
holds at least k records. A record can only be released as t when its original
tuple agrees with t on t's observed cells, so a target whose *support* (the records
agreeing with it there) is below k is never used.

The relaxation (a linear program). Call a tuple *at risk* when ``c_u < k`` and
*safe* otherwise. Variables ``x_ut >= 0`` (records of u released as t) and
``0 <= y_t <= 1`` (t in use) over the targets of support >= k that generalise an
at-risk tuple; constraints ``sum_t x_ut = c_u`` for at-risk u, ``x_ut <= c_u y_t``
and ``sum_u x_ut >= k y_t``. Three relaxations make it smaller, each only enlarging
the feasible set: a target equal to a safe tuple (a *free* target) loses its
constraints, so joining it costs a record only its own cells (``f_u``, the
cheapest such join); a safe tuple may give records to any number of targets (its
own class is not required to keep k); and a safe record's price is 0. Every
solution of the integer problem is feasible here, so the optimum of the
relaxation is a lower bound; so is the value of any feasible point of its dual.

The dual. For any prices ``pi_u <= f_u`` of the at-risk tuples,

    L(pi) = sum_u c_u pi_u - sum_t P_t(pi),
    P_t(pi) = max(0, -min{ sum_v r_vt z_v : 0 <= z_v <= c_v, sum_v z_v >= k }),

with ``r_vt = a_vt - pi_v`` over the tuples v that generalise to t (``pi_v = 0``
for safe v), is the value of a feasible dual solution (``lambda_t`` the price of
the k records of t, ``mu_ut = max(0, pi_u + lambda_t - a_ut)``,
``nu_t = P_t``), hence a lower bound on every solution, whatever the prices. The
prices are improved by projected subgradient ascent (Polyak steps towards a known
solution's cost); the bound reported is the best ``L`` seen. With unit weights the
cost is a whole number of cells and the bound is rounded up.

The combinatorial bound :func:`record_bound`: every record of an at-risk tuple is
released as some target of support >= k (or a free target), so it costs at least
the cheapest such target; summing over records gives a bound. It is implied by the
relaxation (``L`` at ``pi_u`` = those costs, before penalties, is no larger) but is
cheap and needs no prices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from microsdc.suppression._category import category_radix

__all__ = ["Targets", "category_bounds", "dual_bound", "enumerate_targets", "record_bound"]


@dataclass
class Targets:
    """The targets of the relaxation, grouped by target (see the module docstring)."""

    c: np.ndarray  # records of each at-risk tuple
    free: np.ndarray  # f_u: cheapest join of a free target (inf if none)
    r_ptr: np.ndarray
    r_u: np.ndarray
    r_a: np.ndarray
    s_ptr: np.ndarray
    s_a: np.ndarray
    s_c: np.ndarray


def enumerate_targets(
    codes: np.ndarray, n_categories: np.ndarray, k: int, weight: np.ndarray
) -> Targets:
    """Every target of support >= k that generalises an at-risk tuple (one per blank set)."""
    tuples, counts = np.unique(codes, axis=0, return_counts=True)
    m = tuples.shape[1]
    radix = category_radix(n_categories)
    obs = tuples >= 0
    risky = counts < k
    idx = np.full(len(tuples), -1, dtype=np.int64)
    idx[risky] = np.arange(int(risky.sum()))
    free = np.full(int(risky.sum()), np.inf)
    r_parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    s_parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    n_t = 0
    for blank in range(1 << m):
        in_b = np.array([(blank >> j) & 1 == 1 for j in range(m)], dtype=bool)
        elig = np.flatnonzero(obs[:, ~in_b].all(axis=1))
        if len(elig) == 0:
            continue
        proj = tuples[elig].copy()
        proj[:, in_b] = -1
        _, inv = np.unique((proj + 1) @ radix, return_inverse=True)
        inv = inv.reshape(-1)
        support = np.bincount(inv, weights=counts[elig])
        cost = obs[elig][:, in_b] @ weight[in_b] if in_b.any() else np.zeros(len(elig))
        has_risky = np.bincount(inv, weights=risky[elig]) > 0
        is_free = np.bincount(inv, weights=(cost == 0) & ~risky[elig]) > 0
        rk = risky[elig]
        fr = is_free[inv] & rk
        np.minimum.at(free, idx[elig[fr]], cost[fr])
        keep = has_risky & (support >= k) & ~is_free
        tid = np.full(len(keep), -1, dtype=np.int64)
        tid[keep] = n_t + np.arange(int(keep.sum()))
        n_t += int(keep.sum())
        t = tid[inv]
        on = t >= 0
        r_parts.append((t[on & rk], idx[elig[on & rk]], cost[on & rk]))
        sm = on & ~rk
        s_parts.append((t[sm], counts[elig[sm]], cost[sm]))
    rt, ru, ra = (np.concatenate([p[i] for p in r_parts]) for i in range(3))
    st, sc, sa = (np.concatenate([p[i] for p in s_parts]) for i in range(3))
    order = np.argsort(rt, kind="stable")
    s_order = np.lexsort((sa, st))
    return Targets(
        c=counts[risky].astype(np.int64),
        free=free,
        r_ptr=np.searchsorted(rt[order], np.arange(n_t + 1)).astype(np.int64),
        r_u=ru[order].astype(np.int64),
        r_a=ra[order].astype(np.float64),
        s_ptr=np.searchsorted(st[s_order], np.arange(n_t + 1)).astype(np.int64),
        s_a=sa[s_order].astype(np.float64),
        s_c=sc[s_order].astype(np.int64),
    )


def record_bound(tg: Targets) -> float:
    """Sum over at-risk records of the cheapest target they can be released as."""
    best = tg.free.copy()
    if len(tg.r_u):
        np.minimum.at(best, tg.r_u, tg.r_a)
    return float(best @ tg.c)


def dual_bound(tg: Targets, k: int, upper: float, iterations: int = 300) -> float:
    """The best ``L(pi)`` found by projected subgradient ascent from the record bound."""
    from microsdc._kernels.category_dual import dual_penalties

    c = tg.c.astype(np.float64)
    pi = tg.free.copy()
    if len(tg.r_u):
        np.minimum.at(pi, tg.r_u, tg.r_a)
    cap = tg.free
    x = np.zeros(len(c))
    best = -np.inf
    theta, stall = 1.0, 0
    for _ in range(iterations):
        pen = dual_penalties(pi, tg.c, tg.r_ptr, tg.r_u, tg.r_a, tg.s_ptr, tg.s_a, tg.s_c, k, x)
        value = float(c @ pi) - pen
        if value > best + 1e-9:
            best, stall = value, 0
        else:
            stall += 1
            if stall >= 10:
                theta, stall = theta / 2, 0
        g = c - x
        g[(pi >= cap) & (g > 0)] = 0.0
        norm = float(g @ g)
        if norm == 0 or theta < 1e-4:
            break
        pi = np.minimum(pi + theta * max(upper - value, 1e-3 * upper) / norm * g, cap)
        pi = np.maximum(pi, 0.0)
    return best


def category_bounds(
    codes: np.ndarray,
    n_categories: np.ndarray,
    k: int,
    weight: np.ndarray | None = None,
    upper: float | None = None,
    iterations: int = 300,
) -> dict[str, float]:
    """The record bound and the dual bound of the relaxation (see the module docstring).

    Parameters
    ----------
    codes : ndarray of shape (n, m), int64, -1 = missing
    n_categories : ndarray of shape (m,)
    k : int
    weight : ndarray of shape (m,), optional
        Cost of a cell of each column; default 1 (cells), and the bounds are rounded up.
    upper : float, optional
        The cost of a known solution (guides the step sizes only).
    iterations : int
        Subgradient steps.

    Returns
    -------
    dict
        ``{"record": ..., "dual": ...}``; both are lower bounds on the cost of any
        solution.
    """
    unit = weight is None
    w = np.ones(codes.shape[1]) if weight is None else np.asarray(weight, dtype=np.float64)
    _, counts = np.unique(codes, axis=0, return_counts=True)
    if not (counts < k).any():
        return {"record": 0.0, "dual": 0.0}
    tg = enumerate_targets(codes, n_categories, k, w)
    rec = record_bound(tg)
    ub = upper if upper is not None else float(codes.shape[0] * w.sum())
    dual = max(dual_bound(tg, k, ub, iterations), rec)
    if unit:
        rec, dual = float(np.ceil(rec - 1e-6)), float(np.ceil(dual - 1e-6))
    return {"record": rec, "dual": dual}
