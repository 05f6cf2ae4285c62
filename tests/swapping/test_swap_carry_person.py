"""A swap relabels households: it never changes the multiset of a person-level column."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from microsdc.exceptions import DataValidationError
from microsdc.swapping import record_swap, record_swap_result


def _swap_all(df: pd.DataFrame, carry: list[str]) -> pd.DataFrame:
    """Swap every household that has a partner of the same size in another region."""
    return record_swap(
        df,
        "hid",
        ["region"],
        [["hsize"]],
        swaprate=1,
        k_anonymity=0,
        risk_variables=["age"],
        carry_along=carry,
        seed=1,
    )


def test_income_example_keeps_every_value():
    df = pd.DataFrame(
        {
            "hid": [1, 1, 2, 2],
            "region": [1, 1, 2, 2],
            "hsize": [2, 2, 2, 2],
            "age": [30, 40, 50, 60],
            "income": [10, 20, 30, 40],
        }
    )
    out = _swap_all(df, ["income"])
    assert out["region"].tolist() == [2, 2, 1, 1]
    assert out["income"].tolist() == [30, 40, 10, 20]  # member by member, nothing lost
    assert out["age"].tolist() == [30, 40, 50, 60]


def test_blanks_in_carry_along_travel_with_their_household():
    df = pd.DataFrame(
        {
            "hid": [1, 1, 2, 2, 3],
            "region": [1, 1, 2, 2, 2],
            "hsize": [2, 2, 2, 2, 1],
            "age": [30, 40, 50, 60, 70],
            # household level, one household blank
            "town": pd.array([None, None, 7, 7, 8], dtype="Int64"),
            "income": [10, None, 30, 40, None],  # person level, blanks of two persons
        }
    )
    before = df.copy()
    out = _swap_all(df, ["town", "income"])
    pd.testing.assert_frame_equal(df, before)
    # households 1 and 2 (the only pair of equal size) exchange region, town and income
    assert out["region"].tolist() == [2, 2, 1, 1, 2]
    assert out["town"].dtype == "Int64"
    assert out["town"].tolist() == [7, 7, pd.NA, pd.NA, 8]
    np.testing.assert_array_equal(out["income"].to_numpy(), [30, 40, 10, np.nan, np.nan])
    assert out["age"].tolist() == [30, 40, 50, 60, 70]
    with pytest.raises(DataValidationError, match=r"'hsize'.*first rows: \[4\]"):
        _swap_all(df.assign(hsize=[2, 2, 2, 2, None]), [])


def test_person_level_carry_pairs_equal_sizes_only(census5k):
    res = record_swap_result(
        census5k,
        "hid",
        ["nuts1", "nuts2", "nuts3", "lau2"],
        None,
        swaprate=0.2,
        k_anonymity=0,
        risk_variables=["ageGroup"],
        carry_along=["national", "htype"],
        return_swapped_id=True,
        seed=5,
    )
    out = res.data
    assert res.parameters["carry_along_per_person"] == ["national"]
    size = census5k.groupby("hid").size()
    pairs = res.pairs
    assert len(pairs) > 0
    assert (
        size.loc[pairs["sampled_hid"]].to_numpy() == size.loc[pairs["donor_hid"]].to_numpy()
    ).all()
    assert Counter(out["national"]) == Counter(census5k["national"])
    # member i of a swapped household holds member i of the partner's original value
    before = census5k.assign(_m=census5k.groupby("hid").cumcount())
    after = out.assign(_m=out.groupby("hid").cumcount())
    want = before.set_index(["hid", "_m"])["national"]
    got = want.loc[list(zip(after["hid_swapped"], after["_m"], strict=True))].to_numpy()
    assert (after["national"].to_numpy() == got).all()


def test_person_level_similar_column_is_an_error(small_census):
    n_varying = int((small_census.groupby("hid")["gender"].nunique() > 1).sum())
    assert n_varying > 0
    with pytest.raises(DataValidationError, match=r"'gender' \(in [\d,]+ of") as info:
        record_swap(
            small_census,
            "hid",
            ["nuts1", "nuts2", "nuts3", "lau2"],
            [["hsize", "gender"], ["hsize"]],
            swaprate=0.1,
            k_anonymity=0,
            risk_variables=["ageGroup"],
            seed=1,
        )
    assert f"(in {n_varying:,} of 1,000 households" in str(info.value)
    assert info.value.param == "similar" and info.value.failure_cases == ["gender"]


@st.composite
def households(draw):
    n_hh = draw(st.integers(2, 12))
    sizes = draw(st.lists(st.integers(1, 4), min_size=n_hh, max_size=n_hh))
    regions = draw(st.lists(st.integers(0, 2), min_size=n_hh, max_size=n_hh))
    assume(len(set(regions)) > 1)  # one region: nowhere to move a household (an error)
    hh_value = draw(st.lists(st.integers(0, 3), min_size=n_hh, max_size=n_hh))
    rep = np.repeat(np.arange(n_hh), sizes)
    n = len(rep)
    person = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    income = draw(st.lists(st.integers(0, 1000), min_size=n, max_size=n))
    age = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    df = pd.DataFrame(
        {
            "hid": (np.arange(n_hh) * 7 % 13)[rep],
            "region": np.asarray(regions)[rep],
            "district": np.asarray(regions)[rep] * 10 + np.asarray(hh_value)[rep] % 2,
            "hsize": np.asarray(sizes)[rep],
            "tenure": np.asarray(hh_value)[rep],
            "age": age,
            "sex": person,
            "income": income,
        }
    )
    order = draw(st.permutations(range(n)))
    return df.iloc[list(order)]


@pytest.mark.filterwarnings("ignore::microsdc.exceptions.DisclosureRiskWarning")
@settings(max_examples=40, deadline=None)
@given(
    df=households(),
    carry=st.sampled_from([[], ["income"], ["income", "sex"], ["district", "income"], ["tenure"]]),
    similar=st.sampled_from([None, [["hsize"]], [["tenure"], []]]),
    rate=st.sampled_from([0.0, 0.5, 1.0]),
    k=st.sampled_from([0, 2, 3]),
    seed=st.integers(0, 5),
)
def test_multisets_and_household_integrity(df, carry, similar, rate, k, seed):
    hier = ["region"]
    res = record_swap_result(
        df,
        "hid",
        hier,
        similar,
        swaprate=rate,
        k_anonymity=k,
        risk_variables=["age"],
        carry_along=carry,
        return_swapped_id=True,
        seed=seed,
        # district nests in region (a finer geography), and in a small frame any other
        # column may follow the region (households of one person make age a household
        # value); this test is about the multisets, so they are accepted as checked
        # where they are not carried
        checked_columns=[
            c for c in ("district", "tenure", "hsize", "age", "sex", "income") if c not in carry
        ],
    )
    out = res.data
    varies = [c for c in carry if (df.groupby("hid")[c].nunique() > 1).any()]
    hh_level = [*hier, *(c for c in carry if c not in varies)]
    # every column that is not household-level geography keeps its multiset of values
    for col in df.columns:
        if col not in hh_level:
            assert Counter(out[col]) == Counter(df[col]), col
    # columns neither swapped nor carried are the sorted input, row for row
    rest = [c for c in df.columns if c not in [*hier, *carry]]
    expected = df.sort_values("hid", kind="stable")
    pd.testing.assert_index_equal(res.input_index, expected.index)  # kept for the statistician
    pd.testing.assert_frame_equal(out[rest], expected[rest].reset_index(drop=True))
    # household integrity: same households, sizes, one geography per household
    assert (out.groupby("hid").size() == df.groupby("hid").size()).all()
    assert (out.groupby("hid")[[*hh_level, "hid_swapped"]].nunique() == 1).all().all()
    # household-level values are exchanged whole: multiset over households unchanged
    first_b = df.sort_values("hid", kind="stable").groupby("hid")[hh_level].first()
    first_a = out.groupby("hid")[hh_level].first()
    assert sorted(map(tuple, first_b.to_numpy())) == sorted(map(tuple, first_a.to_numpy()))
    # persons of a household with person-level carry columns: partners have equal size
    if varies:
        p = out.groupby("hid")["hid_swapped"].first()
        size = df.groupby("hid").size()
        assert (size.loc[p.index].to_numpy() == size.loc[p.to_numpy()].to_numpy()).all()


def test_a_blank_member_cell_is_pointed_out():
    from microsdc.exceptions import DisclosureRiskWarning, HouseholdLevelWarning

    df = pd.DataFrame(
        {
            "hid": [1, 1, 2, 2, 3],
            "region": [1, 1, 2, 2, 3],
            "hsize": [1, 1, 1, 1, 1],  # one profile for all: only the size keeps 3 apart
            "age": [30, 30, 30, 30, 30],
            "zone": [4.0, np.nan, 5.0, 5.0, 6.0],  # household level but for one blank
        }
    )
    with pytest.warns(HouseholdLevelWarning, match=r"'zone' \(carry_along\) has blanks next"):
        out = _swap_all(df, ["zone"])
    # households 1 and 2 are paired member by member; the blank travels with its member
    np.testing.assert_array_equal(out["zone"].to_numpy(), [5.0, 5.0, 4.0, np.nan, 6.0])
    # household 3 (size 1) at risk finds no partner of its size: the warning says why
    with (
        pytest.warns(HouseholdLevelWarning),
        pytest.warns(DisclosureRiskWarning, match=r"same household size.*'zone'"),
    ):
        record_swap(
            df,
            "hid",
            ["region"],
            None,
            swaprate=0,
            k_anonymity=3,
            risk_variables=["age"],
            carry_along=["zone"],
            seed=1,
        )
