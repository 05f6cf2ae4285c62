"""pram without hid= on a household-level variable, a household id left in the frame:
a DisclosureRiskWarning naming both columns, the households now split, and the fix."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from microsdc import pram
from microsdc.exceptions import DisclosureRiskWarning
from microsdc.postrandomisation.grouped import grouping_columns


def persons(n_hh: int = 300, seed: int = 1) -> pd.DataFrame:
    """Persons sorted by household (as testdata): roof is household-level, sex is not."""
    rng = np.random.default_rng(seed)
    size = rng.integers(1, 7, n_hh)
    roof = rng.choice(["tin", "tile", "straw", "concrete"], n_hh, p=[0.5, 0.3, 0.15, 0.05])
    n = int(size.sum())
    return pd.DataFrame(
        {
            "ori_hid": np.repeat(np.arange(1, n_hh + 1), size),
            "roof": np.repeat(roof, size),
            "sex": rng.choice(["f", "m"], n),
            "income": rng.normal(size=n),
        }
    )


def _split(df: pd.DataFrame, out: pd.DataFrame, col: str) -> int:
    """Brute force: households of two or more members, one value before, several after."""
    k = 0
    for _, idx in df.groupby("ori_hid").groups.items():
        if len(idx) >= 2 and df.loc[idx, col].nunique() == 1 and out.loc[idx, col].nunique() > 1:
            k += 1
    return k


def _risk(record: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, DisclosureRiskWarning)]


def test_household_variable_without_hid_is_pointed_out() -> None:
    df = persons()
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        res = pram(df, "roof", pd=0.7, seed=3)
    k = _split(df, res.data, "roof")
    assert k > 20  # members PRAMmed apart: many households now split
    (message,) = _risk(got)
    assert "'roof' can be undone through 'ori_hid'" in message
    assert f"within {k:,} of them" in message and "hid='ori_hid'" in message
    assert "pram.household_id" in message and "drop 'ori_hid'" in message
    assert grouping_columns(df, res.data, ["roof"]) == [("roof", "ori_hid", k)]


def test_no_warning_with_hid_or_for_a_person_level_variable() -> None:
    df = persons()
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        res = pram(df, "roof", pd=0.7, seed=3, hid="ori_hid")
        pram(df, "sex", pd=0.7, seed=3)
    assert _risk(got) == []
    assert _split(df, res.data, "roof") == 0  # by household: members alike
    # without the id column there is nothing to group by
    plain = df.drop(columns="ori_hid")
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        pram(plain, "roof", pd=0.7, seed=3)
    assert _risk(got) == []


@pytest.mark.parametrize("seed", range(5))
def test_count_is_the_brute_force_count_of_split_households(seed: int) -> None:
    df = persons(200, seed)
    df["hh_code"] = "H" + df["ori_hid"].astype(str)  # a second id: both named
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pram(df, "roof", pd=0.8, seed=seed)
    k = _split(df, res.data, "roof")
    assert grouping_columns(df, res.data, ["roof"]) == [
        ("roof", "ori_hid", k),
        ("roof", "hh_code", k),
    ]
