"""Fixtures of the record swapping tests: synthetic censuses of a few sizes."""

from __future__ import annotations

import pandas as pd
import pytest

from microsdc.datasets import synthetic_census


@pytest.fixture(scope="session")
def census5k() -> pd.DataFrame:
    return synthetic_census(5000, seed=2021)


@pytest.fixture(scope="session")
def census10k() -> pd.DataFrame:
    return synthetic_census(10000, seed=2021)


@pytest.fixture(scope="session")
def small_census() -> pd.DataFrame:
    return synthetic_census(1000, seed=7)
