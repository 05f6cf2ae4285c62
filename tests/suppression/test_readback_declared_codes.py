"""Under the default ``missing="category"`` a declared code (-9) is a category of its own
to the search, and the read-back check also judges the release as an intruder with the
codebook reads it (-9 missing): a pair that ``recoverable_cells(..., missing_values=[-9])``
finds is never left out of ``details["recoverable"]`` and its warning."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import microsdc
from microsdc.suppression.local import _readings


def _frame(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(150, 400))
    df = pd.DataFrame()
    for i in range(2):
        m = int(rng.integers(3, 8))
        v = pd.Series(rng.choice(m, n, p=rng.dirichlet(np.ones(m) * 0.5)))
        df[f"k{i}"] = v.where(rng.random(n) > 0.12, -9)
    df["code"] = pd.factorize(df["k1"])[0]  # a code of k1: -9 has its own
    df["noisy"] = df["code"].where(rng.random(n) > 0.25, rng.integers(0, 5, n))
    df["label"] = df["k0"].map(lambda x: f"c{x}").where(rng.random(n) > 0.15, "-9")
    return df


@pytest.mark.parametrize("seed", range(40))
def test_every_pair_an_intruder_with_the_codebook_finds_is_warned(seed: int) -> None:
    df = _frame(seed)
    qi = ["k0", "k1"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = microsdc.local_suppression(df, qi, 50, missing_values=[-9])
    found = {(d["key_variable"], d["column"]) for d in res.details["recoverable"]}
    codebook = microsdc.recoverable_cells(df, res.data, qi, missing_values=[-9])
    assert set(zip(codebook["key_variable"], codebook["column"], strict=True)) <= found


def test_the_readings() -> None:
    assert _readings(None, [-9]) == [None, [-9]]  # category: the code is a value, then missing
    assert _readings([-9], [-9]) == [[-9]]  # the other policies count it missing already
    assert _readings(None, None) == [None]
    assert _readings(None, []) == [None]
