"""microaggregate: the k guarantee, the exact optimum against brute force, missing values,
strata, weights and row order."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microsdc import microaggregate
from microsdc.exceptions import (
    ColumnNotFoundError,
    DataValidationError,
    DisclosureRiskWarning,
    InvalidParameterError,
)


def _sse(values: list[float], groups: list[list[int]]) -> float:
    parts = [np.take(values, g) for g in groups]
    return sum(float(np.sum((p - p.mean()) ** 2)) for p in parts)


def _partitions(items: list[int], k: int):
    """Every partition of ``items`` into blocks of at least k (brute force)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for size in range(k - 1, len(rest) + 1):
        for mates in itertools.combinations(rest, size):
            left = [i for i in rest if i not in mates]
            for tail in _partitions(left, k):
                yield [[first, *mates], *tail]


def test_optimal_by_hand() -> None:
    # {10, 11, 12, 50} and {52, 54, 200}: SSE 1142.75 + 14408 = 15550.75, below
    # {10, 11, 12} and {50, 52, 54, 200}: 2 + 16436 = 16438.
    df = pd.DataFrame({"income": [10.0, 11, 12, 50, 52, 54, 200]})
    res = microaggregate(df, "income", k=3, method="optimal")
    assert res.data["income"].tolist() == [20.75] * 4 + [102.0] * 3
    assert res.groups["income"].nunique() == 2 and res.min_group_size == 3


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 40), min_size=3, max_size=8),
    st.integers(2, 3),
)
def test_optimal_equals_brute_force(values: list[int], k: int) -> None:
    if len(values) < k:
        return
    x = [float(v) for v in values]
    best = min(_sse(x, p) for p in _partitions(list(range(len(x))), k))
    res = microaggregate(pd.DataFrame({"v": x}), "v", k=k, method="optimal")
    groups = res.groups["v"].to_numpy()
    got = _sse(x, [list(np.flatnonzero(groups == g)) for g in np.unique(groups)])
    assert got == pytest.approx(best, abs=1e-9)
    assert np.bincount(groups).min() >= k


def _check_guarantee(df: pd.DataFrame, res, cols: list[str], k: int, strata: str | None) -> None:
    for c in cols:
        g = res.groups[c].to_numpy()
        observed = df[c].notna().to_numpy()
        assert ((g >= 0) == observed).all()
        assert res.data[c].isna().equals(df[c].isna())
        for gid in np.unique(g[g >= 0]):
            members = np.flatnonzero(g == gid)
            assert len(members) >= k
            assert res.data[c].iloc[members].nunique() == 1
            assert res.data[c].iloc[members[0]] == pytest.approx(df[c].iloc[members].mean())
            if strata:
                assert df[strata].iloc[members].nunique() == 1


@pytest.mark.parametrize("method", ["mdav", "individual", "optimal", "quantile"])
def test_every_value_is_a_mean_of_k_or_more(method: str) -> None:
    rng = np.random.default_rng(3)
    n = 600
    df = pd.DataFrame(
        {
            "income": rng.lognormal(8, 1, n),
            "expend": rng.lognormal(7, 1, n),
            "region": rng.choice(["a", "b", "c"], n),
            "id": np.arange(n),
        }
    )
    df.loc[rng.choice(n, 60, replace=False), "income"] = np.nan
    before = df.copy()
    groups = {"n_groups": 5} if method == "quantile" else {}
    res = microaggregate(df, ["income", "expend"], k=4, method=method, strata="region", **groups)
    pd.testing.assert_frame_equal(df, before)
    _check_guarantee(df, res, ["income", "expend"], 4, "region")
    assert res.min_group_size >= 4 and 0 < res.sse_sst < 1
    pd.testing.assert_series_equal(res.data["id"], df["id"])


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 1000), st.integers(1, 5))
def test_same_release_whatever_the_row_order(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    n = 120
    df = pd.DataFrame({"a": rng.integers(0, 20, n).astype(float), "b": rng.normal(size=n)})
    df = pd.concat([df, df.iloc[:10]], ignore_index=True)
    perm = rng.permutation(len(df))
    for method in ("mdav", "individual", "optimal"):
        res = microaggregate(df, ["a", "b"], k=k, method=method)
        again = microaggregate(df.iloc[perm], ["a", "b"], k=k, method=method)
        pd.testing.assert_frame_equal(again.data.loc[df.index], res.data)
        reread = microaggregate(
            df.iloc[perm].reset_index(drop=True), ["a", "b"], k=k, method=method
        ).data
        ordered = res.data.iloc[perm].reset_index(drop=True)
        # each distinct record exactly; identical records are interchangeable
        distinct = ~df.iloc[perm].reset_index(drop=True).duplicated(keep=False)
        pd.testing.assert_frame_equal(reread[distinct], ordered[distinct])
        assert sorted(map(tuple, reread.to_numpy())) == sorted(map(tuple, ordered.to_numpy()))


def test_weights_give_weighted_means() -> None:
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 10.0, 11.0, 12.0], "w": [1, 1, 2, 1, 1, 1]})
    res = microaggregate(df, "x", k=3, method="individual", weights="w")
    assert res.data["x"].tolist() == [2.25] * 3 + [11.0] * 3


def test_mdav_in_parts_keeps_the_guarantee() -> None:
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(3000, 2)), columns=["a", "b"])
    whole = microaggregate(df, ["a", "b"], k=3)
    parts = microaggregate(df, ["a", "b"], k=3, block_size=500)
    _check_guarantee(df, parts, ["a", "b"], 3, None)
    assert parts.sse_sst < 2 * whole.sse_sst


def test_mdav_groups_similar_records() -> None:
    # three tight clusters of three: MDAV finds them
    df = pd.DataFrame(
        {"a": [0, 0.1, 0.2, 10, 10.1, 10.2, 20, 20.1, 20.2], "b": [0, 0, 0, 5, 5, 5, 0, 0, 0]}
    )
    res = microaggregate(df, ["a", "b"], k=3)
    assert sorted(res.data["a"].round(6).unique()) == [0.1, 10.1, 20.1]


def test_small_groups_of_observed_values_are_merged() -> None:
    # MDAV puts records together by the variables they have; a group with fewer than k
    # observed incomes is merged, for income, with the nearest group
    df = pd.DataFrame(
        {
            "age": [20.0, 21, 22, 60, 61, 62],
            "income": [100.0, np.nan, np.nan, 500.0, 520.0, 540.0],
        }
    )
    res = microaggregate(df, ["age", "income"], k=3)
    assert res.data.loc[0, "income"] == pytest.approx(415.0)
    assert res.data["income"].isna().tolist() == [False, True, True, False, False, False]
    assert res.min_group_size == 3


@pytest.mark.parametrize(
    ("kwargs", "error", "param"),
    [
        ({"k": 0}, InvalidParameterError, "k"),
        ({"method": "rmd"}, InvalidParameterError, "method"),
        ({"measure": "mode"}, InvalidParameterError, "measure"),
        ({"weights": "w", "measure": "median"}, InvalidParameterError, "measure"),
        ({"strata": "nosuch"}, ColumnNotFoundError, "strata"),
        ({"columns": ["name"]}, DataValidationError, "columns"),
        ({"k": 5, "strata": "region"}, DataValidationError, "k"),
        ({"method": "quantile", "n_groups": 3, "k": 2}, DataValidationError, "k"),
    ],
)
def test_errors(kwargs: dict, error: type, param: str) -> None:
    df = pd.DataFrame(
        {
            "x": [1.0, 2, 3, 4, 5],
            "w": [1.0] * 5,
            "name": list("abcde"),
            "region": ["n", "n", "n", "s", "s"],
        }
    )
    args = {"columns": ["x"], **kwargs}
    with pytest.raises(error) as info:
        microaggregate(df, **args)
    assert info.value.param == param and info.value.func == "microaggregate"


def test_odd_values_and_weights_are_refused_or_warned() -> None:
    with pytest.raises(DataValidationError, match="holds inf in row 3"):
        microaggregate(pd.DataFrame({"x": [1.0, 2, 3, np.inf, 5, 6]}), "x", k=3)
    with pytest.raises(DataValidationError, match="> 0"):
        microaggregate(pd.DataFrame({"x": [10.0, 11, 12], "w": [1, 0, 0]}), "x", k=3, weights="w")
    heavy = pd.DataFrame({"x": [10.0, 20, 30, 40, 50, 60], "w": [100, 1, 1, 1, 1, 1]})
    with pytest.warns(DisclosureRiskWarning, match="1 group"):
        microaggregate(heavy, "x", k=3, weights="w")


def test_a_record_missing_every_column_takes_no_place() -> None:
    df = pd.DataFrame({"x": [1.0, 2, 3, 4, 5, 6, 7, np.nan]})
    res = microaggregate(df, "x", k=3)
    assert res.data["x"].tolist()[:7] == [2.0, 2.0, 2.0, 5.5, 5.5, 5.5, 5.5]
    assert np.isnan(res.data["x"].iloc[7]) and res.groups["x"].iloc[7] == -1


def test_numbers_kept_as_text_are_microaggregated() -> None:
    text = pd.DataFrame({"x": ["12.50", "3.75", "3.00", "4.10", "5.25", "6.00"]})
    res = microaggregate(text, "x", k=3, method="individual")
    # sorted 3.00 3.75 4.10 | 5.25 6.00 12.50
    assert res.data["x"].tolist() == pytest.approx(
        [7.9166667, 3.6166667, 3.6166667, 3.6166667, 7.9166667, 7.9166667]
    )


_BY_NUMBER = "only the quantile method forms groups by number"
_IN_PARTS = "only MDAV groups the records in parts of this size"


@pytest.mark.parametrize(
    ("param", "value", "method", "user", "why"),
    [
        ("n_groups", 5, "mdav", "quantile", _BY_NUMBER),
        ("n_groups", 2, "optimal", "quantile", _BY_NUMBER),
        ("block_size", 500, "quantile", "mdav", _IN_PARTS),
        ("block_size", 2, "individual", "mdav", _IN_PARTS),
    ],
)
def test_a_size_without_its_method_is_refused(
    param: str, value: int, method: str, user: str, why: str
) -> None:
    # n_groups acts with method="quantile" only, block_size with "mdav" only: given with
    # another method they used to be taken and changed nothing (microaggregate takes
    # pandas frames only)
    df = pd.DataFrame({"x": [1.0, 2, 3, 4, 5, 6, 7, 8]})
    with pytest.raises(InvalidParameterError) as info:
        microaggregate(df, "x", k=2, method=method, **{param: value})
    err = info.value
    assert (err.func, err.param, err.value) == ("microaggregate", param, value)
    assert err.related == ("method",)
    assert err.requirement == f"given together with method='{user}'"
    assert str(err) == (
        f"The '{param}' parameter of microaggregate is {value}, but method is '{method}', "
        f"not '{user}': {why}, so alone it "
        f"changes nothing. Give method='{user}' too, or leave '{param}' out."
    )


def test_the_sizes_left_out_are_the_documented_ones() -> None:
    from microsdc.microaggregation.core import BLOCK_SIZE, N_GROUPS

    assert (N_GROUPS, BLOCK_SIZE) == (10, 50_000)
    doc = microaggregate.__doc__ or ""
    assert "Default (None): 10" in doc and "50000 (:data:`BLOCK_SIZE`)" in doc
    # 20 distinct values, no n_groups: 10 groups of 2 (the documented default), as n_groups=10
    df = pd.DataFrame({"x": np.arange(20.0)})
    left_out = microaggregate(df, "x", k=2, method="quantile")
    given = microaggregate(df, "x", k=2, method="quantile", n_groups=10)
    assert left_out.data["x"].tolist() == [i + 0.5 for i in range(0, 20, 2) for _ in (0, 1)]
    pd.testing.assert_frame_equal(left_out.data, given.data)
    # the sizes are still checked for their range before their method
    with pytest.raises(InvalidParameterError, match="must be an int >= 1"):
        microaggregate(df, "x", k=2, n_groups=0)
    # MDAV on more records than block_size runs in parts, as block_size=BLOCK_SIZE
    rng = np.random.default_rng(1)
    two = pd.DataFrame(rng.normal(size=(300, 2)), columns=["a", "b"])
    default = microaggregate(two, ["a", "b"], k=3)
    explicit = microaggregate(two, ["a", "b"], k=3, block_size=BLOCK_SIZE)
    pd.testing.assert_frame_equal(default.data, explicit.data)
