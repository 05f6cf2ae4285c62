"""A hierarchy level that splits nothing (a single area, or the same areas as a coarser
level) cannot keep a swapped household out of its area: it is skipped, with a warning
and ``SwapResult.skipped_levels``, and households at risk there are swapped at the level
that splits. A hierarchy of single areas only is an error."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from microsdc.cli import cli as main
from microsdc.exceptions import DataValidationError, DisclosureRiskWarning, SDCWarning
from microsdc.swapping import record_swap_result


def _one_country(n_hh: int = 40, n_regions: int = 4) -> pd.DataFrame:
    """One country, ``n_regions`` regions; household 0 is the only one with age 99 (unique
    in the whole file); every other age (0, 1, 2) is shared by many persons per region."""
    rows = []
    for h in range(n_hh):
        size = 1 + h % 3
        for m in range(size):
            age = 99 if h == 0 else (h + m) % 3
            rows.append(
                {"hid": h, "country": "X", "region": h % n_regions, "hsize": size, "age": age}
            )
    return pd.DataFrame(rows)


def _run(df: pd.DataFrame, hierarchy, **kw):
    args = dict(similar=None, swaprate=0.0, seed=1)
    if "risk" not in kw:  # a user risk takes neither
        args.update(k_anonymity=2, risk_variables=["age"])
    args.update(kw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = record_swap_result(df, "hid", hierarchy, **args)
    return res, [w for w in caught if issubclass(w.category, SDCWarning)]


def _brute_at_risk(df: pd.DataFrame, level: str, k: int) -> set[int]:
    """Households with a member sharing (age, level area) with fewer than k persons."""
    count = df.groupby(["age", level])["hid"].transform("size")
    return set(df.loc[count < k, "hid"])


def test_household_unique_in_the_file_is_swapped_at_the_region_level() -> None:
    df = _one_country()
    assert _brute_at_risk(df, "country", 2) == {0}
    for seed in range(50):
        res, caught = _run(df, ["country", "region"], seed=seed)
        assert res.n_no_donor == 0
        pairs = res.pairs
        assert 0 in set(pairs["sampled_hid"]) | set(pairs["donor_hid"])
        row = pairs[(pairs["sampled_hid"] == 0) | (pairs["donor_hid"] == 0)].iloc[0]
        assert row["level_name"] == "region"
        region = res.data.groupby("hid")["region"].first()
        assert region.loc[0] != 0  # moved to another region
        assert not any(issubclass(w.category, DisclosureRiskWarning) for w in caught)
    assert res.skipped_levels == ["country"]
    counts = res.counts_per_level.set_index("hierarchy")["households_at_risk"]
    assert counts.to_dict() == {"country": 0, "region": len(_brute_at_risk(df, "region", 2))}


def test_warning_says_the_level_is_skipped_and_how_many_move() -> None:
    res, caught = _run(_one_country(), ["country", "region"])
    text = " ".join(str(w.message) for w in caught)
    assert "level 'country' holds a single area" in text
    assert "protects nobody and is skipped" in text
    assert "1 household(s) at risk there" in text and "at level 'region' instead" in text
    assert "Leave 'country' out of the hierarchy" in text
    assert "relax the similarity" not in text
    assert res.to_dict()["skipped_levels"] == ["country"]
    assert "Skipped (they split no area of the level above): country" in res.summary()


def test_nobody_at_risk_there_still_warns_without_a_count() -> None:
    _, caught = _run(_one_country(), ["country", "region"], k_anonymity=0, swaprate=0.5)
    text = " ".join(str(w.message) for w in caught)
    assert "'country' holds a single area" in text and "household(s) at risk there" not in text


def test_user_risk_at_the_single_area_level_only_is_swapped_below() -> None:
    df = _one_country()
    risk = np.zeros((len(df), 3))
    risk[df["hid"].to_numpy() == 5, 0] = 1.0  # at risk at the country level only
    df = df.assign(district=df["region"] * 10 + df["hid"] % 2)
    for seed in range(10):
        res, _ = _run(
            df, ["country", "region", "district"], risk=risk, risk_threshold=0.5, seed=seed
        )
        assert res.n_no_donor == 0
        row = res.pairs[(res.pairs["sampled_hid"] == 5) | (res.pairs["donor_hid"] == 5)]
        assert list(row["level_name"]) == ["region"]
        assert res.data.groupby("hid")["region"].first().loc[5] != 5 % 4


def test_two_single_area_levels_are_both_skipped() -> None:
    df = _one_country().assign(continent=1)
    res, caught = _run(df, ["continent", "country", "region"])
    assert res.skipped_levels == ["continent", "country"]
    assert res.n_no_donor == 0
    text = " ".join(str(w.message) for w in caught)
    assert "'continent' holds a single area" in text and "'country' holds a single area" in text


def test_level_with_the_areas_of_the_level_above_is_skipped() -> None:
    df = _one_country(60, 4)
    df = df.assign(nuts=df["region"] + 100, region_name="r" + df["region"].astype(str))
    risk = np.zeros((len(df), 2))
    risk[df["hid"].to_numpy() == 7, 1] = 1.0  # at risk at the repeated level only
    res, caught = _run(
        df, ["region", "nuts"], risk=risk, risk_threshold=0.5, checked_columns=["region_name"]
    )
    assert res.skipped_levels == ["nuts"]
    assert res.counts_per_level["households_at_risk"].tolist() == [1, 0]
    assert list(res.pairs["level_name"]) == ["region"]
    assert "level 'nuts' splits no area of 'region' (4 areas at both levels)" in " ".join(
        str(w.message) for w in caught
    )


@pytest.mark.parametrize("hierarchy", [["country"], ["country", "one"]])
def test_hierarchy_of_single_areas_is_an_error(hierarchy) -> None:
    df = _one_country().assign(one=0)
    with pytest.raises(DataValidationError, match="holds a single area") as info:
        _run(df, hierarchy, swaprate=0.5)
    names = ", ".join(repr(h) for h in hierarchy)
    assert f"Every level of the hierarchy ({names})" in str(info.value)
    assert "Nothing was swapped" in str(info.value) and info.value.param == "hierarchy"


def test_command_line_shows_the_skipped_level(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    _one_country().to_csv(src, index=False)
    out = tmp_path / "out.csv"
    args = [
        "swap",
        str(src),
        "--hid",
        "hid",
        "--hierarchy",
        "country,region",
        "--risk-variables",
        "age",
        "-k",
        "2",
        "--swaprate",
        "0",
        "--seed",
        "1",
        "--out",
        str(out),
    ]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "'country' holds a single area" in text and "found no donor" not in text
