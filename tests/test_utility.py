"""Information loss: suppressed cells per variable and record; report-safe swap summaries."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microsdc.datasets import synthetic_census
from microsdc.exceptions import ColumnNotFoundError, DataValidationError
from microsdc.swapping import record_swap, swap_utility
from microsdc.utility import suppressed_cells, swap_utility_summary


def test_suppressed_cells_by_hand() -> None:
    before = pd.DataFrame(
        {"a": [1, 2, None, 4], "b": ["x", "y", "z", "-9"], "c": [1.0, 2.0, 3.0, 4.0]},
        index=[7, 8, 9, 10],
    )
    after = pd.DataFrame(
        {"a": [None, 2, None, None], "b": [None, None, "z", None], "c": [1.0, 2.0, 3.0, 9.0]},
        index=[7, 8, 9, 10],
    )
    snapshot = before.copy()
    res = suppressed_cells(before, after, missing_values={"b": ["-9"]})
    # a: rows 7 and 10 blanked (row 9 was missing already); b: 7, 8 (10 was "-9" = missing)
    assert res.per_variable.to_dict() == {"a": 2, "b": 2, "c": 0}
    assert res.per_record.tolist() == [2, 1, 0, 1]
    assert list(res.per_record.index) == [7, 8, 9, 10]
    assert res.observed_before.to_dict() == {"a": 3, "b": 3, "c": 4}
    assert res.total == 4
    assert res.n_records == 3
    assert res.share == pytest.approx(4 / 10)
    assert res.records_by_count() == {"0": 1, "1": 2, "2": 1}
    d = res.to_dict()
    assert d["per_variable"] == {"a": 2, "b": 2, "c": 0}
    assert d["records_with_suppression"] == 3
    pd.testing.assert_frame_equal(before, snapshot)


def test_suppressed_cells_aligns_on_labels_and_selects_columns() -> None:
    before = pd.DataFrame({"a": [1, 2, 3], "b": [1, 2, 3]}, index=["x", "y", "z"])
    after = before.iloc[::-1].copy()
    after.loc["x", "a"] = np.nan
    res = suppressed_cells(before, after, ["a"])
    assert res.per_record.tolist() == [1, 0, 0]
    assert res.per_variable.to_dict() == {"a": 1}


def test_suppressed_cells_errors() -> None:
    a = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(DataValidationError, match="same records"):
        suppressed_cells(a, a.iloc[:1])
    with pytest.raises(ColumnNotFoundError, match="'zz'"):
        suppressed_cells(a, a, ["zz"])
    dup = pd.DataFrame({"a": [1, 2]}, index=[0, 0])
    with pytest.raises(DataValidationError, match="unique row labels"):
        suppressed_cells(dup, dup)


def test_suppressed_cells_empty() -> None:
    a = pd.DataFrame({"a": pd.Series([], dtype=float)})
    res = suppressed_cells(a, a)
    assert res.total == 0
    assert res.share == 0.0
    assert res.records_by_count() == {}


def test_swap_utility_summary_is_aggregate_and_consistent() -> None:
    df = synthetic_census(600, seed=5)
    out = record_swap(
        df,
        "hid",
        ["nuts1", "nuts2"],
        "hsize",
        swaprate=0.1,
        risk_variables=["ageGroup"],
        carry_along=["nuts3", "lau2"],
        seed=5,
    )
    util = swap_utility(df, out, "hid", ["nuts1", "nuts2"], ["ageGroup"])
    s = swap_utility_summary(util, max_areas=5)
    assert [lv["hierarchy"] for lv in s["levels"]] == ["nuts1", "nuts2"]
    # only nuts1 (3 areas) is listed per area with max_areas=5; nuts2 has 15
    assert {a["hierarchy"] for a in s["areas"]} == {"nuts1"}
    assert sum(a["households_swapped"] for a in s["areas"]) == s["levels"][0]["households_swapped"]
    for lv in s["levels"]:
        tab = util.tables[lv["hierarchy"]]
        assert lv["cells"] == len(tab)
        assert lv["sum_abs_diff"] == int(tab["abs_diff"].abs().sum())
        assert 0.0 <= lv["hellinger"] <= 1.0
        assert lv["area_share_min"] <= lv["area_share_median"] <= lv["area_share_max"]
    # nothing that looks like a household id or a table cell
    flat = repr(s)
    assert "hid" not in flat
    assert "before" not in flat and "after" not in flat


def test_suppressed_cells_agree_with_local_suppression() -> None:
    from microsdc.suppression import local_suppression

    df = synthetic_census(150, seed=2)[["nuts2", "ageGroup", "gender", "national"]]
    res = local_suppression(df, list(df.columns), 3)
    cells = suppressed_cells(df, res.data, list(df.columns))
    assert cells.per_variable.to_dict() == res.cells_per_qi.to_dict()
    assert cells.per_record.tolist() == res.cells_per_row.tolist()
    assert cells.total == res.n_cells > 0
