"""The distance between a key variable's distributions before and after protection, as
the audit record gives it (``key_variables[...]["hellinger"]``), for pandas and engine
inputs alike."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from microsdc.job.measures import hellinger, value_labels


def _counts(**records: int) -> pd.Series:
    return pd.Series(records, dtype=np.int64)


def test_hellinger_by_hand() -> None:
    # p = (1/2, 1/2), q = (1, 0): H^2 = 1 - sum(sqrt(p q)) = 1 - sqrt(1/2)
    got = hellinger(_counts(a=2, b=2), _counts(a=4), 4)
    assert got == pytest.approx(math.sqrt(1 - math.sqrt(0.5)), abs=1e-15)


def test_hellinger_ends_of_its_range() -> None:
    assert hellinger(_counts(a=3, b=1), _counts(b=1, a=3), 4) == 0.0  # same, in any order
    assert hellinger(_counts(a=3), _counts(b=3), 3) == pytest.approx(1.0, abs=1e-15)
    assert hellinger(_counts(), _counts(), 0) == 0.0  # no records


def test_missing_values_are_one_category_of_their_own() -> None:
    values = pd.Series([1, None, 2, -9], dtype=object)
    labels = value_labels(values, np.array([False, True, False, True]))
    assert labels.tolist() == ["1", "\x00missing", "2", "\x00missing"]
    # a cell blanked: one record moves from "1" to missing, out of 4
    before = value_labels(pd.Series([1, 1, 2, 2], dtype=object), np.zeros(4, dtype=bool))
    after = value_labels(
        pd.Series([1, None, 2, 2], dtype=object), np.array([False, True, False, False])
    )
    p = np.array([0.5, 0.5, 0.0])
    q = np.array([0.25, 0.5, 0.25])
    want = math.sqrt(0.5 * float(np.sum((np.sqrt(p) - np.sqrt(q)) ** 2)))
    assert hellinger(before.value_counts(), after.value_counts(), 4) == pytest.approx(
        want, abs=1e-15
    )
