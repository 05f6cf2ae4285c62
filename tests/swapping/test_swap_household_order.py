"""One household order for every function that lines households up (issue: category order)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from microsdc.exceptions import DataValidationError
from microsdc.swapping import record_swap, record_swap_result, swap_utility
from microsdc.swapping._prepare import household_order


def _two_households(hid):
    return pd.DataFrame({"hid": hid, "region": [1, 2], "age": [30, 40]})


@pytest.mark.parametrize("rate", [0.0, 1.0])
def test_categorical_hid_in_category_order(rate):
    df = _two_households(pd.Categorical([1, 2], categories=[2, 1]))
    out = record_swap(
        df, "hid", ["region"], None, swaprate=rate, k_anonymity=0, risk_variables=["age"], seed=1
    )
    assert out["hid"].tolist() == [2, 1]  # category order
    u = swap_utility(df, out, "hid", ["region"], ["age"])
    assert u.share_per_level["households_swapped"].tolist() == [2 if rate else 0]
    tab = u.tables["region"].set_index(["region", "age"])
    assert tab.loc[(1, 30), "before"] == 1 and tab.loc[(2, 40), "before"] == 1
    assert tab.loc[(1, 30), "after"] == (0 if rate else 1)


HIDS = {
    "categorical": pd.Categorical(["b", "a", "c", "b", "d", "c"], categories=["d", "c", "b", "a"]),
    "string": ["h10", "h9", "h2", "h10", "h1", "h2"],
    "float": [2.5, 1.0, 3.25, 2.5, -1.0, 3.25],
    "int64": np.array([2**62, 5, 7, 2**62, 1, 7], dtype=np.int64),
}


@pytest.mark.parametrize("kind", list(HIDS))
def test_utility_lines_up_households_of_any_type(kind):
    df = pd.DataFrame(
        {
            "hid": HIDS[kind],
            "region": [1, 2, 3, 1, 4, 3],
            "age": [1, 2, 1, 2, 1, 2],
        },
        index=[50, 40, 30, 20, 10, 0],  # non-default, unsorted index; unsorted hids
    )
    res = record_swap_result(
        df, "hid", ["region"], None, swaprate=1.0, k_anonymity=0, risk_variables=["age"], seed=3
    )
    u = swap_utility(df, res.data, "hid", ["region"], ["age"])
    # every household swapped (4 households, 2 pairs) and it is seen as such
    assert res.n_swapped_households == 4
    assert u.share_per_level["households_swapped"].tolist() == [4]
    assert u.share_per_level["persons_swapped"].tolist() == [6]
    # the swapped frame in another row order gives the same figures
    shuffled = res.data.iloc[[3, 0, 5, 1, 4, 2]]
    u2 = swap_utility(df, shuffled, "hid", ["region"], ["age"])
    pd.testing.assert_frame_equal(u.share_per_area, u2.share_per_area)


def test_household_order_matches_swap_order():
    hid = pd.Series(pd.Categorical([3, 1, 2, 1], categories=[2, 3, 1]))
    order, keys = household_order(hid)
    assert hid.take(order).tolist() == [2, 3, 1, 1]
    assert keys.tolist() == [0, 1, 2, 2]
    assert household_order(pd.Series([1, 1, 2]))[0] is None


def test_utility_rejects_missing_hid():
    df = pd.DataFrame({"hid": [1.0, np.nan], "region": [1, 2], "age": [1, 2]}, index=[7, 9])
    with pytest.raises(DataValidationError, match=r"missing household ids in 1 row.*rows: \[9\]"):
        swap_utility(df, df, "hid", ["region"], ["age"])


def test_job_swapping_step_with_categorical_hid_in_parquet(tmp_path):
    from microsdc.datasets import synthetic_census
    from microsdc.job import load_job, run_job

    df = synthetic_census(300, seed=2)
    ids = [f"h{h:04d}" for h in sorted(df["hid"].unique())]
    labels = df["hid"].map(lambda h: f"h{h:04d}")
    df["hid"] = pd.Categorical(labels, categories=ids[::-1])  # category order != value order
    df.to_parquet(tmp_path / "census.parquet")
    (tmp_path / "job.toml").write_text(
        """
title = "categorical hids"
steps = ["swapping"]
[input]
path = "census.parquet"
[variables]
quasi_identifiers = ["nuts1", "ageGroup"]
household_id = "hid"
hierarchy = ["nuts1", "nuts2", "nuts3"]
[swapping]
swaprate = 0.2
k_anonymity = 0
risk_variables = ["ageGroup"]
carry_along = ["lau2"]
seed = 4
[output]
directory = "out"
data = "swapped.parquet"
""",
        encoding="utf-8",
    )
    run_job(load_job(tmp_path / "job.toml"))
    audit = json.loads(next((tmp_path / "out").glob("*audit.json")).read_text())
    assert audit["swapping"]["n_swapped_households"] == 60
    out = pd.read_parquet(tmp_path / "out" / "swapped.parquet")
    assert out["hid"].cat.categories.tolist() == ids[::-1]
    assert out["hid"].tolist() == sorted(labels, reverse=True)  # category order
