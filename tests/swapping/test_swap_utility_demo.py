"""Utility figures after swapping, and the demo helpers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microsdc.datasets.demo import demo_swap
from microsdc.exceptions import DataValidationError
from microsdc.report.console import render_swap_summary
from microsdc.swapping import record_swap, record_swap_result, swap_utility

HIER = ["nuts1", "nuts2"]
RV = ["ageGroup", "national"]

#: census geography below the hierarchies used here (checked: tests of the algorithm)
GEO = ["nuts2", "nuts3", "lau2"]


@pytest.fixture(scope="module")
def swapped(census5k):
    return record_swap(
        census5k.sample(frac=1, random_state=2),
        "hid",
        HIER,
        "hsize",
        swaprate=0.1,
        k_anonymity=0,
        risk_variables=RV,
        seed=1,
        checked_columns=GEO,
    )


def test_shares(census5k, swapped):
    u = swap_utility(census5k, swapped, "hid", HIER, RV)
    lvl = u.share_per_level
    assert lvl["households_swapped"].tolist() == [500, 500]
    assert lvl["share_households"].tolist() == [0.1, 0.1]
    assert lvl["areas"].tolist() == [3, 15]
    area = u.share_per_area
    assert area.groupby("level")["households"].sum().tolist() == [5000, 5000]
    assert area.groupby("level")["households_swapped"].sum().tolist() == [500, 500]
    assert area.groupby("level")["persons"].sum().tolist() == [len(census5k)] * 2
    one = area[(area["level"] == 0) & (area["area"] == (1,))].iloc[0]
    hh = census5k.groupby("hid").first()
    moved = swapped.groupby("hid")["nuts2"].first() != hh["nuts2"]
    assert one["households_swapped"] == int((moved & (hh["nuts1"] == 1)).sum())


def test_tables_and_hellinger(census5k, swapped):
    u = swap_utility(census5k, swapped, "hid", HIER, RV)
    t = u.tables["nuts1"]
    assert t["before"].sum() == t["after"].sum() == len(census5k)
    assert (t["abs_diff"] == t["after"] - t["before"]).all()
    direct = census5k.groupby(["nuts1", *RV]).size()
    got = t.set_index(["nuts1", *RV])["before"]
    pd.testing.assert_series_equal(got.loc[direct.index], direct, check_names=False)
    h = u.hellinger["hellinger"].to_numpy()
    assert (h > 0).all() and (h < 0.2).all()
    assert h[0] <= h[1]  # finer tables change more
    p = t["before"] / len(census5k)
    q = t["after"] / len(census5k)
    assert h[0] == pytest.approx(np.sqrt(0.5 * ((np.sqrt(p) - np.sqrt(q)) ** 2).sum()))


def test_nothing_swapped_means_no_change(census5k):
    out = record_swap(
        census5k,
        "hid",
        HIER,
        "hsize",
        swaprate=0.0,
        k_anonymity=0,
        risk_variables=RV,
        seed=1,
        checked_columns=GEO,
    )
    u = swap_utility(census5k, out, "hid", HIER, RV)
    assert (u.hellinger["hellinger"] == 0).all()
    assert (u.share_per_area["share_households"] == 0).all()


def test_mismatched_frames(census5k, swapped):
    with pytest.raises(DataValidationError, match="same households"):
        swap_utility(census5k.iloc[:-3], swapped, "hid", HIER, RV)


def test_demo_swap_and_table():
    from rich.console import Console

    res = demo_swap(3000, seed=5)
    assert res.n_households == 3000
    assert res.n_swapped_households >= 150
    assert res.n_swapped_households == 2 * len(res.pairs)
    console = Console(record=True, width=120)
    console.print(render_swap_summary(res))
    text = console.export_text()
    for name in ("nuts1", "nuts2", "nuts3", "total", f"{res.n_swapped_households:,}"):
        assert name in text


def test_result_summary_and_dict(census5k):
    res = record_swap_result(
        census5k,
        "hid",
        HIER,
        "hsize",
        swaprate=0.1,
        k_anonymity=3,
        risk_variables=[*RV, "hsize"],
        seed=123,
        checked_columns=GEO,
    )
    d = res.to_dict()
    assert d["n_swapped_households"] == res.n_swapped_households == 2 * d["n_pairs"]
    assert d["parameters"]["seed_given"] is True
    assert "123" not in repr(d)  # the seed is never recorded
    assert sum(r["households_swapped"] for r in d["counts_per_level"]) == d["n_swapped_households"]
    s = res.summary()
    assert "nuts1 > nuts2" in s and f"{res.n_swapped_households:,} households" in s
    assert res.n_swapped_persons == int(
        census5k[
            census5k["hid"].isin(set(res.pairs["sampled_hid"]) | set(res.pairs["donor_hid"]))
        ].shape[0]
    )
