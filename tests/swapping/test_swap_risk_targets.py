"""Fast kernels of record swapping against brute-force oracles: household risk and targets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from microsdc.swapping import level_risk
from microsdc.swapping.targets import distribute_targets, total_pairs


def brute_risk(df: pd.DataFrame, hier: list[str], rv: list[str]) -> np.ndarray:
    """O(n^2): for each person and level count persons with equal key; household maximum."""
    rows = df.to_dict("records")
    out = np.zeros((len(rows), len(hier)))
    for h in range(len(hier)):
        keys = [tuple(r[c] for c in rv + hier[: h + 1]) for r in rows]
        person = [1 / sum(k2 == k1 for k2 in keys) for k1 in keys]
        for i, ri in enumerate(rows):
            out[i, h] = max(person[j] for j, rj in enumerate(rows) if rj["hid"] == ri["hid"])
    return out


@st.composite
def frames(draw):
    n_hh = draw(st.integers(1, 12))
    recs = []
    for hid in draw(st.permutations(list(range(n_hh)))):
        a = draw(st.integers(0, 2))
        b = draw(st.sampled_from(["x", "y"]))
        for _ in range(draw(st.integers(1, 4))):
            recs.append((hid * 7, a, b, draw(st.integers(0, 2)), draw(st.booleans())))
    return pd.DataFrame(recs, columns=["hid", "a", "b", "r1", "r2"])


@given(frames())
def test_household_risk_matches_brute_force(df):
    got = level_risk(df, "hid", ["a", "b"], ["r1", "r2"])
    assert list(got.columns) == ["a", "b"]
    assert got.index.equals(df.index)
    np.testing.assert_allclose(got.to_numpy(), brute_risk(df, ["a", "b"], ["r1", "r2"]))


def test_household_risk_non_decreasing_from_coarse_to_fine(census5k):
    r = level_risk(census5k, "hid", ["nuts1", "nuts2", "nuts3"], ["ageGroup", "national"])
    assert (np.diff(r.to_numpy(), axis=1) >= 0).all()


@given(
    st.lists(st.integers(0, 50), min_size=1, max_size=30),
    st.integers(0, 200),
    st.integers(0, 2**32 - 1),
)
def test_targets_sum_and_rounding(sizes, n_pairs, seed):
    sizes = np.array(sizes)
    t = distribute_targets(sizes, n_pairs, np.random.default_rng(seed))
    if sizes.sum() == 0:
        assert (t == 0).all()
        return
    x = sizes * n_pairs / sizes.sum()
    assert t.sum() == n_pairs
    assert (t >= np.floor(x) - 1e-9).all() and (t <= np.ceil(x) + 1e-9).all()
    assert (t[sizes == 0] == 0).all()


def test_targets_unbiased():
    sizes = np.array([1, 2, 3, 7, 11, 5])
    n_pairs = 9
    mean = np.mean(
        [distribute_targets(sizes, n_pairs, np.random.default_rng(s)) for s in range(4000)], axis=0
    )
    np.testing.assert_allclose(mean, sizes * n_pairs / sizes.sum(), atol=0.05)


def test_total_pairs():
    rng = np.random.default_rng(0)
    assert total_pairs(10000, 0.05, rng) == 250
    assert total_pairs(10000, 0.1, rng) == 500
    assert total_pairs(10000, 0.25, rng) == 1250
    assert total_pairs(10000, 0.0, rng) == 0
    draws = {total_pairs(10001, 0.05, rng) for _ in range(50)}
    assert draws == {250, 251}


@pytest.mark.parametrize("n_pairs", [0, 3])
def test_targets_zero_households(n_pairs):
    t = distribute_targets(np.zeros(4, dtype=int), n_pairs, np.random.default_rng(0))
    assert t.tolist() == [0, 0, 0, 0]
