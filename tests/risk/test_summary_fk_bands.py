"""The fk chart of the risk summary: every record in the bar its fk falls in (a fractional
fk included), the bars below k adding up to the records at risk, and a number of bars
that grows with the logarithm of k, never with k."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microsdc.risk.kanonymity import sample_frequencies
from microsdc.risk.summary import fk_bands, pattern_risk_summary, risk_summary

POLICIES = ["wildcard", "category", "conservative", "probabilistic", 0.5, 0.25, 0.0]


def test_a_fractional_fk_is_counted_in_its_bar() -> None:
    # (a, b) and (a, -): under alpha = 0.5 the first has fk = 1.5, at risk for k = 2
    df = pd.DataFrame({"x": ["a", "a"], "y": ["b", None]})
    s = risk_summary(df, ["x", "y"], 2, missing=0.5)
    fk = sample_frequencies(df, ["x", "y"], missing=0.5)["fk"].to_numpy()
    assert fk.tolist() == [1.5, 2.0]
    assert s["n_at_risk"] == 1
    assert s["fk_counts"] == {"labels": ["< 2", ">= 2"], "counts": [1, 1]}


def test_probabilistic_fk_below_k_is_charted() -> None:
    df = pd.DataFrame({"x": ["a", "a", "a", "c"], "y": ["b", "d", None, "e"]})
    s = risk_summary(df, ["x", "y"], 3, missing="probabilistic")
    fk = sample_frequencies(df, ["x", "y"], missing="probabilistic")["fk"].to_numpy()
    assert np.any(fk != np.floor(fk))  # the case: fractional values below k
    lows = [1, 2]
    expected = [int(np.sum(fk < 2)), int(np.sum((fk >= 2) & (fk < 3))), int(np.sum(fk >= 3))]
    assert fk_bands(3, True)[0] == lows
    assert s["fk_counts"]["counts"] == expected
    assert sum(s["fk_counts"]["counts"][:-1]) == s["n_at_risk"] == int(np.sum(fk < 3))


def _brute_bar(value: float, lows: list[int], k: int) -> int:
    if value >= k:
        return len(lows)
    return max(i for i, lo in enumerate(lows) if i == 0 or value >= lo)


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.sampled_from(["a", "b", None]), st.sampled_from([1, 2, 3, None])),
        min_size=1,
        max_size=25,
    ),
    k=st.integers(1, 30),
    policy=st.sampled_from(POLICIES),
)
def test_bars_hold_each_record_once_and_agree_with_the_text(
    rows: list[tuple[object, object]], k: int, policy: object
) -> None:
    df = pd.DataFrame(rows, columns=["x", "y"])
    s = risk_summary(df, ["x", "y"], k, missing=policy)  # type: ignore[arg-type]
    fk = sample_frequencies(df, ["x", "y"], missing=policy)["fk"].to_numpy()  # type: ignore[arg-type]
    counts = s["fk_counts"]["counts"]
    lows, labels = fk_bands(k, policy in ("probabilistic", 0.5, 0.25), len(df))
    assert s["fk_counts"]["labels"] == labels
    expected = np.bincount([_brute_bar(v, lows, k) for v in fk], minlength=len(lows) + 1)
    assert counts == expected.tolist()
    assert sum(counts[:-1]) == s["n_at_risk"]
    assert sum(counts) == s["n_records"] == len(df)


def test_pattern_summary_bins_a_fractional_fk_as_the_record_summary() -> None:
    fk = np.array([1.5, 2.0, 2.5, 4.0])
    records = np.array([3, 2, 1, 5])
    s = pattern_risk_summary(fk, None, records, 3)
    assert s["fk_counts"] == {"labels": ["< 2", "2 to < 3", ">= 3"], "counts": [3, 3, 5]}
    assert s["n_at_risk"] == 6
    whole = pattern_risk_summary(fk.round(), None, records, 3, missing="wildcard")
    assert whole["fk_counts"]["labels"] == ["1", "2", ">= 3"]


@pytest.mark.parametrize("k", [1, 2, 11, 12, 13, 100, 2_000, 10_001, 10**14, 10**18, 10**30])
def test_bars_grow_with_the_logarithm_of_k(k: int) -> None:
    for fractional in (False, True):
        lows, labels = fk_bands(k, fractional)
        assert len(labels) == len(lows) + 1 <= 40
        assert lows == sorted(set(lows)) and all(lo < k for lo in lows)
        assert labels[-1] == f">= {k:,}"
        assert len(set(labels)) == len(labels)
    assert len(fk_bands(k, False, n_records=100)[0]) <= 12


def test_whole_bands_read_as_ranges() -> None:
    assert fk_bands(13, False)[1] == ["1", "2", "3", "4", "5-9", "10-12", ">= 13"]
    assert fk_bands(12, False)[1] == [*map(str, range(1, 12)), ">= 12"]
    assert fk_bands(13, True)[1] == ["< 2", "2 to < 3", "3 to < 4", "4 to < 5", "5 to < 10",
                                     "10 to < 13", ">= 13"]  # fmt: skip


def test_a_huge_k_costs_what_the_data_costs() -> None:
    df = pd.DataFrame({"x": np.arange(100) % 5, "y": np.arange(100) % 3})
    s = risk_summary(df, ["x", "y"], 10**14)  # formerly a list of 10^14 counts
    assert s["n_at_risk"] == 100
    assert sum(s["fk_counts"]["counts"][:-1]) == 100
    assert len(s["fk_counts"]["labels"]) <= 12
