"""Suppression under missing="category" against the optimum: brute force on small frames,
the lower bounds of the relaxation, and the improvement pass's guarantees."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microsdc.suppression import local_suppression
from microsdc.suppression._category import (
    _masks_by_cost,
    _search,
    category_radix,
    category_suppress,
)
from microsdc.suppression._category_bound import category_bounds
from microsdc.suppression._category_improve import improve_category
from oracles.kanon import fk_bruteforce, rows_of


def optimum_bruteforce(codes: np.ndarray, k: int) -> int:
    """Fewest cells of any release where every tuple (blank = a value) occurs >= k times."""
    n, m = codes.shape
    options = []
    for row in codes.tolist():
        obs = [j for j in range(m) if row[j] >= 0]
        opts = []
        for blank in range(1 << len(obs)):
            t = list(row)
            for i, j in enumerate(obs):
                if (blank >> i) & 1:
                    t[j] = -1
            opts.append((tuple(t), bin(blank).count("1")))
        options.append(opts)
    best = n * m + 1
    for choice in itertools.product(*options):
        cost = sum(c for _, c in choice)
        if cost >= best:
            continue
        count: dict[tuple[int, ...], int] = {}
        for t, _ in choice:
            count[t] = count.get(t, 0) + 1
        if min(count.values()) >= k:
            best = cost
    return best


def _codes(df: pd.DataFrame) -> np.ndarray:
    return np.column_stack([pd.factorize(df[c])[0] for c in df.columns]).astype(np.int64)


def _cells(orig: np.ndarray, codes: np.ndarray) -> int:
    return int(((orig >= 0) & (codes < 0)).sum())


def _valid(orig: np.ndarray, codes: np.ndarray, k: int) -> bool:
    _, counts = np.unique(codes, axis=0, return_counts=True)
    return bool((counts >= k).all() and ((codes == orig) | (codes < 0)).all())


@pytest.mark.parametrize(
    ("rows", "k", "optimum"),
    [
        # one unique (0,1): blank its b with one record of the class (0,2), 2 cells
        # (blanking it whole needed a second whole record: 4 cells)
        ([[1, 2], [0, 2], [0, 2], [0, 2], [0, 1], [0, 2], [1, 2]], 2, 2),
        # (0,-) x 4 and (-,2) x 3: 7 cells (the mask search blanked four records whole)
        ([[0, 1], [0, 0], [1, 2], [0, 1], [1, 2], [2, 2], [0, 1]], 3, 7),
        ([[1, 2, 0], [2, 1, 2], [0, 1, 2], [2, 1, 0], [1, 1, 0]], 2, 8),
    ],
)
def test_small_cases_reach_the_bruteforce_optimum(
    rows: list[list[int]], k: int, optimum: int
) -> None:
    df = pd.DataFrame(rows, columns=[f"q{j}" for j in range(len(rows[0]))])
    qi = list(df.columns)
    assert optimum_bruteforce(_codes(df), k) == optimum
    res = local_suppression(df, qi, k, missing="category")
    assert res.n_cells == optimum
    fk, _ = fk_bruteforce(rows_of(res.data, qi), "category")
    assert min(fk) >= k


@st.composite
def _small(draw: st.DrawFn) -> tuple[np.ndarray, int]:
    n = draw(st.integers(2, 6))
    m = draw(st.integers(1, 3 if n <= 5 else 2))
    cells = st.integers(-1, 2) if draw(st.booleans()) else st.integers(0, 2)
    row = st.lists(cells, min_size=m, max_size=m)
    codes = np.array(draw(st.lists(row, min_size=n, max_size=n)))
    return codes.astype(np.int64), draw(st.integers(2, min(3, n)))


@settings(max_examples=60, deadline=None)
@given(case=_small())
def test_bounds_below_optimum_below_solution(case: tuple[np.ndarray, int]) -> None:
    codes, k = case
    ncat = np.full(codes.shape[1], 3)
    opt = optimum_bruteforce(codes, k)
    b = category_bounds(codes, ncat, k, iterations=100)
    assert b["record"] <= b["dual"] <= opt
    sol = codes.copy()
    category_suppress(sol, ncat, k, np.ones(codes.shape[1]))
    assert _valid(codes, sol, k)
    assert _cells(codes, sol) >= opt


def test_dual_bound_is_stronger_than_the_record_bound() -> None:
    # k = 2, records (0,0), (0,1), (1,0): each alone can reach a target of support 2
    # with one cell (record bound 3), but (0,0) cannot serve both; the optimum is 6
    codes = np.array([[0, 0], [0, 1], [1, 0]])
    b = category_bounds(codes, np.array([2, 2]), 2, iterations=200)
    assert b["record"] == 3 and b["dual"] == 4
    assert optimum_bruteforce(codes, 2) == 6


@st.composite
def _frames(draw: st.DrawFn) -> tuple[np.ndarray, int]:
    n = draw(st.integers(3, 60))
    m = draw(st.integers(1, 4))
    low = -1 if draw(st.booleans()) else 0
    row = st.lists(st.integers(low, 3), min_size=m, max_size=m)
    codes = np.array(draw(st.lists(row, min_size=n, max_size=n)))
    return codes.astype(np.int64), draw(st.integers(2, min(5, n)))


@settings(max_examples=80, deadline=None)
@given(case=_frames(), weights=st.lists(st.sampled_from([1.0, 1.5, 3.0]), min_size=4, max_size=4))
def test_improvement_keeps_k_and_never_costs_more(
    case: tuple[np.ndarray, int], weights: list[float]
) -> None:
    codes, k = case
    m = codes.shape[1]
    w = np.array(weights[:m])
    radix = category_radix(np.full(m, 4))
    sol = codes.copy()
    if not _search(sol, k, radix, w, _masks_by_cost(w)):
        return
    cost_before = float((((codes >= 0) & (sol < 0)) @ w).sum())
    again = sol.copy()
    improve_category(codes, sol, radix, k, w)
    improve_category(codes, again, radix, k, w)
    assert _valid(codes, sol, k)
    assert float((((codes >= 0) & (sol < 0)) @ w).sum()) <= cost_before + 1e-9
    np.testing.assert_array_equal(sol, again)  # deterministic


def test_many_binary_columns_try_a_bounded_number_of_blank_sets() -> None:
    # 30 binary key variables fit one integer key (3**30 < 2**62); the moves try the
    # blank sets of up to 2 columns and the full one, not 2**30 of them
    rng = np.random.default_rng(30)
    df = pd.DataFrame({f"q{j}": rng.integers(0, 2, 40) for j in range(30)})
    res = local_suppression(df, list(df.columns), 2, missing="category")
    fk, _ = fk_bruteforce(rows_of(res.data, list(df.columns)), "category")
    assert min(fk) >= 2
