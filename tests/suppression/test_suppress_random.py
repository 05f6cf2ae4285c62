"""The random-missingness baseline (kanonymity 0.1.0): seeded, reaches k, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microsdc.exceptions import InvalidParameterError
from microsdc.suppression import local_suppression, min_missingness_max_deid
from oracles.kanon import fk_bruteforce, rows_of


@pytest.fixture
def df() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame(
        {
            "a": rng.integers(0, 3, 60),
            "b": rng.choice(list("pqrs"), 60),
            "c": rng.integers(0, 2, 60),
            "keep": np.arange(60),
        }
    )


def test_seeded_determinism_and_k(df: pd.DataFrame) -> None:
    qi = ["a", "b", "c"]
    out1, p1, r1 = min_missingness_max_deid(df, qi, 3, seed=7, n_random_trials=5, step=0.5)
    out2, p2, r2 = min_missingness_max_deid(df, qi, 3, seed=7, n_random_trials=5, step=0.5)
    pd.testing.assert_frame_equal(out1, out2)
    assert (p1, r1) == (p2, r2)
    assert r1 == 0 and 0 < p1 <= 25
    fk, _ = fk_bruteforce(rows_of(out1, qi))
    assert min(fk) >= 3
    pd.testing.assert_series_equal(out1["keep"], df["keep"])
    # the same share of each QI
    added = [int(out1[c].isna().sum()) for c in qi]
    assert len(set(added)) == 1
    # the baseline blanks more than local suppression
    assert sum(added) >= local_suppression(df, qi, 3).n_cells


def test_generator_seed(df: pd.DataFrame) -> None:
    _, _, r = min_missingness_max_deid(
        df, ["a", "b"], 2, seed=np.random.default_rng(0), n_random_trials=3, step=1.0
    )
    assert r == 0


def test_already_safe_and_excluded(df: pd.DataFrame) -> None:
    out, p, r = min_missingness_max_deid(df, ["c"], 3, seed=0)
    assert (p, r) == (0.0, 0)
    pd.testing.assert_frame_equal(out, df)
    out, p, r = min_missingness_max_deid(
        df, ["a", "b", "c"], 3, excluded_features=["c"], seed=1, n_random_trials=3, step=1.0
    )
    assert out["c"].isna().sum() == 0


def test_maximum_not_enough_returns_best_trial(df: pd.DataFrame) -> None:
    _, p, r = min_missingness_max_deid(
        df, ["a", "b", "c"], 10, maximum_missingness=1, seed=0, n_random_trials=3
    )
    assert p == 1.0 and r > 0


@pytest.mark.parametrize("bad", [-1, 100.5, float("nan")])
def test_maximum_missingness_out_of_range(df: pd.DataFrame, bad: float) -> None:
    with pytest.raises(InvalidParameterError, match="'maximum_missingness' parameter"):
        min_missingness_max_deid(df, ["a"], 2, maximum_missingness=bad)


def test_other_bad_input(df: pd.DataFrame) -> None:
    with pytest.raises(InvalidParameterError, match="'step' parameter"):
        min_missingness_max_deid(df, ["a"], 2, step=0)
    with pytest.raises(InvalidParameterError, match="'n_random_trials' parameter"):
        min_missingness_max_deid(df, ["a"], 2, n_random_trials=0)
    with pytest.raises(InvalidParameterError, match="not quasi-identifiers"):
        min_missingness_max_deid(df, ["a"], 2, excluded_features=["keep"])
    with pytest.raises(InvalidParameterError, match="'seed' parameter"):
        min_missingness_max_deid(df, ["a"], 2, seed=-3)
