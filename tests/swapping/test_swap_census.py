"""The synthetic census generator (distributions of sdcMicro's createDat)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microsdc.datasets import synthetic_census
from microsdc.datasets.census import CENSUS_COLUMNS
from microsdc.exceptions import InvalidParameterError


@pytest.fixture(scope="module")
def big() -> pd.DataFrame:
    return synthetic_census(60000, seed=11)


def test_columns_and_types(census10k):
    assert tuple(census10k.columns) == CENSUS_COLUMNS
    assert (census10k.dtypes == np.int32).all()
    assert census10k["hid"].is_monotonic_increasing
    assert census10k["hid"].tolist()[:1] == [1] and census10k["hid"].max() == 10000
    assert census10k["hid"].nunique() == 10000


def test_households(census10k):
    g = census10k.groupby("hid")
    assert (g.size() == g["hsize"].first()).all()
    hh_cols = ["nuts1", "nuts2", "nuts3", "lau2", "hsize", "htype", "hincome"]
    assert (g[hh_cols].nunique() == 1).all().all()
    assert 3.3 * 10000 < len(census10k) < 3.7 * 10000


def test_nested_codes_and_ranges(big):
    hh = big.groupby("hid").first()
    assert set(hh["nuts1"]) == {1, 2, 3}
    assert ((hh["nuts2"] // 10) == hh["nuts1"]).all()
    assert ((hh["nuts3"] // 100) == hh["nuts2"]).all()
    assert ((hh["lau2"] // 10) == hh["nuts3"]).all()
    assert set(hh["nuts2"] % 10) == set(range(1, 6))
    assert set(hh["nuts3"] % 100) == set(range(1, 16))
    assert set(hh["lau2"] % 10) == set(range(1, 6))
    assert [hh[c].nunique() for c in ("nuts1", "nuts2", "nuts3", "lau2")] == [3, 15, 225, 1125]
    for col, hi in (("hsize", 6), ("htype", 10), ("hincome", 10)):
        assert set(hh[col]) == set(range(1, hi + 1))
    for col, hi in (("ageGroup", 7), ("gender", 2), ("national", 5)):
        assert set(big[col]) == set(range(1, hi + 1))


@pytest.mark.parametrize(
    ("col", "level", "k"),
    [
        ("nuts1", "hh", 3),
        ("hsize", "hh", 6),
        ("htype", "hh", 10),
        ("ageGroup", "p", 7),
        ("gender", "p", 2),
        ("national", "p", 5),
    ],
)
def test_uniform_distributions(big, col, level, k):
    values = big.groupby("hid")[col].first() if level == "hh" else big[col]
    share = values.value_counts(normalize=True).sort_index().to_numpy()
    n = len(values)
    tol = 5 * np.sqrt((1 / k) * (1 - 1 / k) / n)  # five standard errors
    assert np.abs(share - 1 / k).max() < tol


def test_seeded():
    pd.testing.assert_frame_equal(synthetic_census(500, seed=3), synthetic_census(500, seed=3))
    assert not synthetic_census(500, seed=3).equals(synthetic_census(500, seed=4))
    assert synthetic_census(1, seed=0)["hid"].unique().tolist() == [1]


@pytest.mark.parametrize("n", [0, -5, 2.5, "10", None])
def test_bad_size(n):
    with pytest.raises(InvalidParameterError, match="'n_households'"):
        synthetic_census(n)
