"""The exact integer program: reaches k, never costs more than the greedy, and hand cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microsdc.suppression import local_suppression
from oracles.kanon import fk_bruteforce, rows_of


@st.composite
def small_frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(2, 12))
    m = draw(st.integers(1, 3))
    cells = st.one_of(st.none(), st.integers(0, 2)) if draw(st.booleans()) else st.integers(0, 3)
    return pd.DataFrame({f"q{j}": draw(st.lists(cells, min_size=n, max_size=n)) for j in range(m)})


def _cost(res: object, weights: dict[str, float]) -> float:
    return float(sum(weights[c] * n for c, n in res.cells_per_qi.items()))  # type: ignore[attr-defined]


@settings(max_examples=25)
@given(df=small_frames(), k=st.integers(2, 3))
def test_exact_reaches_k_and_is_no_worse_than_greedy(df: pd.DataFrame, k: int) -> None:
    qi = list(df.columns)
    k = min(k, len(df))
    weights = {c: 1.0 + 0.1 * j for j, c in enumerate(qi)}
    exact = local_suppression(df, qi, k, method="exact", importance=weights)
    greedy = local_suppression(df, qi, k, importance=weights)
    fk, _ = fk_bruteforce(rows_of(exact.data, qi))
    assert min(fk) >= k
    assert exact.n_at_risk_after == 0
    assert _cost(exact, weights) <= _cost(greedy, weights) + 1e-9
    changed = exact.data.isna().to_numpy() & df.notna().to_numpy()
    assert changed.sum() == exact.n_cells


def test_exact_hand_case() -> None:
    # four unique records pairwise differing in b only: two blanks of b suffice for k=2
    df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["p", "q", "r", "s"]})
    res = local_suppression(df, ["a", "b"], 2, method="exact")
    assert res.n_cells == 2
    assert res.cells_per_qi["b"] == 2
    assert res.method == "exact"


def test_exact_too_large() -> None:
    from microsdc.exceptions import InvalidParameterError

    df = pd.DataFrame({"a": np.arange(2500) % 7, "b": np.arange(2500) % 11})
    with pytest.raises(InvalidParameterError, match="at most 2000 records"):
        local_suppression(df, ["a", "b"], 2, method="exact")
