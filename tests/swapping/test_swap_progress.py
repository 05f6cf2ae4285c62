"""The ``progress`` callback of record_swap and record_swap_result: its contract, and that
the swap does not depend on it."""

from __future__ import annotations

import itertools

import pandas as pd
import pytest

from microsdc.swapping import record_swap, record_swap_result

HIER = ["nuts1", "nuts2", "nuts3"]
KW = dict(
    hid="hid",
    hierarchy=HIER,
    similar=[["hsize"], []],  # the empty profile: a donor for every household at risk
    swaprate=0.1,
    risk_variables=["ageGroup", "national"],
    carry_along=["lau2"],
)


def _calls(**kw) -> tuple[object, list[tuple[int, float]]]:
    calls: list[tuple[int, float]] = []
    res = record_swap_result(**kw, progress=lambda level, done: calls.append((level, done)))
    return res, calls


@pytest.mark.parametrize("k", [0, 3])
def test_progress_rises_level_by_level_to_one(small_census, k):
    _, calls = _calls(data=small_census, **KW, k_anonymity=k, seed=5)
    assert calls
    levels = [level for level, _ in calls]
    assert levels == sorted(levels)
    assert set(levels) == set(range(len(HIER)))  # every level reports
    for h in range(len(HIER)):
        done = [d for level, d in calls if level == h]
        assert all(0 < d <= 1 for d in done)
        assert all(a < b for a, b in itertools.pairwise(done))
        assert done[-1] == 1.0
    assert all(isinstance(level, int) for level in levels)


def test_no_progress_for_data_without_rows(small_census):
    _, calls = _calls(data=small_census.iloc[:0], **KW, seed=1)
    assert calls == []


@pytest.mark.parametrize("k", [0, 3])
def test_result_is_the_same_with_and_without_progress(small_census, k):
    kw = dict(KW, k_anonymity=k, return_swapped_id=True, seed=11)
    plain = record_swap_result(small_census, **kw)
    shown, calls = _calls(data=small_census, **kw)
    assert calls
    pd.testing.assert_frame_equal(shown.data, plain.data)
    pd.testing.assert_frame_equal(shown.pairs, plain.pairs)
    pd.testing.assert_index_equal(shown.no_donor, plain.no_donor)
    pd.testing.assert_frame_equal(shown.counts_per_level, plain.counts_per_level)
    assert shown.to_dict() == plain.to_dict()
    assert shown.summary() == plain.summary()


def test_record_swap_passes_progress_on(small_census):
    calls: list[tuple[int, float]] = []
    out = record_swap(small_census, **KW, seed=3, progress=lambda h, d: calls.append((h, d)))
    pd.testing.assert_frame_equal(out, record_swap(small_census, **KW, seed=3))
    assert calls[-1] == (len(HIER) - 1, 1.0)


def test_an_error_in_progress_stops_the_swap(small_census):
    def fail(level: int, done: float) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        record_swap_result(small_census, **KW, seed=1, progress=fail)
