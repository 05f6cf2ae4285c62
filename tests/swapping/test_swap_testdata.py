"""Real input: the households of sdcMicro's testdata (1,000 households, 4,580 persons)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microsdc.exceptions import DisclosureRiskWarning
from microsdc.swapping import record_swap_result
from real_data import real_data_file

RV = ["sex", "ageband", "relat"]


@pytest.fixture(scope="module")
def testdata() -> pd.DataFrame:
    df = pd.read_csv(real_data_file("testdata.csv"))
    df["ageband"] = pd.cut(df["age"], [-1, 14, 24, 34, 44, 54, 64, 200], labels=False)
    df["hsize"] = df.groupby("ori_hid")["ori_hid"].transform("size")
    return df


def at_risk(df: pd.DataFrame, k: int) -> set[int]:
    cnt = df.groupby([*RV, "urbrur"])["ori_hid"].transform("size")
    return set(df.loc[cnt < k, "ori_hid"])


def test_testdata_k3_with_fallback_profile(testdata):
    res = record_swap_result(
        testdata,
        "ori_hid",
        ["urbrur"],
        [["hsize"], []],
        k_anonymity=3,
        risk_variables=RV,
        return_swapped_id=True,
        seed=2021,
        checked_columns=["ori_hid"],  # its order follows urbrur: see the test below
    )
    risky = at_risk(testdata, 3)
    assert res.n_households == 1000 and res.n_persons == 4580
    assert res.counts_per_level["households_at_risk"].tolist() == [len(risky)] == [38]
    assert res.n_no_donor == 0
    out = res.data
    partner = out.groupby("ori_hid")["ori_hid_swapped"].first()
    moved = set(partner.index[partner.index != partner.to_numpy()])
    assert risky <= moved
    assert res.n_swapped_households == len(moved) == 68
    before = testdata.groupby("ori_hid")["urbrur"].first()
    after = out.groupby("ori_hid")["urbrur"].first()
    assert (before.loc[list(moved)] != after.loc[list(moved)]).all()
    assert (out.groupby("ori_hid")["urbrur"].nunique() == 1).all()
    rest = [c for c in testdata.columns if c != "urbrur"]
    expected = testdata.sort_values("ori_hid", kind="stable")[rest]
    pd.testing.assert_frame_equal(out[rest], expected)


def test_testdata_k3_same_size_only(testdata):
    with pytest.warns(DisclosureRiskWarning, match="household"):
        res = record_swap_result(
            testdata,
            "ori_hid",
            ["urbrur"],
            "hsize",
            k_anonymity=3,
            risk_variables=RV,
            seed=2021,
        )
    assert res.counts_per_level["households_at_risk"].tolist() == [38]
    assert res.n_no_donor > 0
    hs = testdata.groupby("ori_hid")["hsize"].first()
    assert (
        hs.loc[res.pairs["sampled_hid"]].to_numpy() == hs.loc[res.pairs["donor_hid"]].to_numpy()
    ).all()
    # households without a donor are the larger ones, whose size is rare in the other area
    assert np.median(hs.loc[list(res.no_donor)]) > np.median(hs)
    paired = set(res.pairs["sampled_hid"]) | set(res.pairs["donor_hid"])
    assert not (paired & set(res.no_donor))


def test_testdata_ids_follow_the_geography(testdata):
    # households are numbered area by area: an id range tells the original urbrur
    with pytest.warns(DisclosureRiskWarning, match="'ori_hid' follow the geography.*13 runs"):
        record_swap_result(
            testdata, "ori_hid", ["urbrur"], None, k_anonymity=0, risk_variables=RV, seed=1
        )
    renumbered = testdata.assign(
        ori_hid=testdata["ori_hid"].map(
            dict(zip(range(1, 1001), np.random.default_rng(0).permutation(1000), strict=True))
        )
    )
    res = record_swap_result(
        renumbered, "ori_hid", ["urbrur"], None, k_anonymity=0, risk_variables=RV, seed=1
    )
    assert res.n_households == 1000
