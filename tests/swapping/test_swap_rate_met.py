"""The swap rate is a minimum: pairs an area cannot reach (its households taken as donors
by other areas) are drawn again where households are left; what still cannot be formed
is said with the numbers (a warning and ``SwapResult.missing_pairs``)."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from click.testing import CliRunner
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from microsdc.cli import cli as main
from microsdc.exceptions import DisclosureRiskWarning
from microsdc.swapping import record_swap_result


def _areas(sizes: list[int], seed: int = 0) -> pd.DataFrame:
    """Households of 1 or 2 persons in areas of the given numbers of households."""
    rng = np.random.default_rng(seed)
    rows, hid = [], 0
    for area, n in enumerate(sizes):
        for _ in range(n):
            size = int(rng.integers(1, 3))
            for _ in range(size):
                rows.append(
                    {"hid": hid, "region": area, "hsize": size, "age": int(rng.integers(0, 3))}
                )
            hid += 1
    return pd.DataFrame(rows)


def _swap(df: pd.DataFrame, hierarchy=("region",), similar=None, **kw):
    args = dict(
        swaprate=0.5,
        k_anonymity=0,
        risk_variables=["age"],
        seed=1,
        checked_columns=[c for c in df.columns if c not in hierarchy],
    )
    args.update(kw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = record_swap_result(df, "hid", list(hierarchy), similar, **args)
    rate = [
        str(w.message)
        for w in caught
        if issubclass(w.category, DisclosureRiskWarning) and "swaprate" in str(w.message)
    ]
    return res, rate


def test_areas_run_out_of_donors_and_the_rate_is_still_met() -> None:
    df = _areas([40, 5, 5, 5])  # 55 households: the large area takes the small ones' households
    assert df["hid"].nunique() == 55
    for seed in range(40):
        res, rate = _swap(df, seed=seed)
        assert res.target_pairs in (13, 14)
        assert res.n_swapped_households == 2 * res.target_pairs, seed
        assert res.missing_pairs == 0 and res.n_no_donor == 0 and rate == []


def test_swaprate_one_with_an_odd_number_of_households() -> None:
    df = _areas([20, 20, 15])
    for seed in range(20):
        res, rate = _swap(df, swaprate=1.0, seed=seed)
        assert res.target_pairs == 27  # not 28: 55 households form at most 27 pairs
        assert res.n_swapped_households == 54 and rate == []


def test_rate_that_cannot_be_met_is_said_with_the_numbers() -> None:
    df = _areas([10, 1])  # every pair needs the one household of area 1: one pair at most
    res, rate = _swap(df, swaprate=1.0)
    assert res.target_pairs == 5 and len(res.pairs) == 1
    assert res.missing_pairs == 4
    assert len(rate) == 1
    assert (
        "The swaprate 1 asks for at least 5 pairs (10 of 11 households) but 1 pair(s) "
        "(2 households) were formed: 4 pair(s) short"
    ) in rate[0]
    assert "relax the similarity" not in rate[0]
    assert res.to_dict()["missing_pairs"] == 4
    assert "Swap rate not met: 4 of 5 pairs could not be formed" in res.summary()


def test_advice_names_the_profiles_when_given() -> None:
    df = _areas([10, 10])
    df["hsize"] = np.where(df["region"] == 0, 1, 2)  # no partner with the same size
    res, rate = _swap(df, similar="hsize", swaprate=0.5)
    assert res.n_swapped_households == 0 and res.missing_pairs == res.target_pairs == 5
    assert "with the same similarity profile" in rate[0]
    assert "relax the similarity profiles" in rate[0]


def _matches(a: pd.Series, b: pd.Series, profiles: list[list[str]]) -> bool:
    return any(all(a[c] == b[c] for c in prof) for prof in profiles)


@st.composite
def frames(draw):
    n_hh = draw(st.integers(2, 30))
    weights = draw(st.lists(st.integers(1, 8), min_size=2, max_size=4))
    area = draw(
        st.lists(
            st.sampled_from([i for i, w in enumerate(weights) for _ in range(w)]),
            min_size=n_hh,
            max_size=n_hh,
        )
    )
    assume(len(set(area)) > 1)
    rows = []
    for h in range(n_hh):
        size = draw(st.integers(1, 3))
        htype = draw(st.integers(0, 1))
        for _ in range(size):
            rows.append(
                {
                    "hid": h,
                    "zone": area[h] // 2,
                    "region": area[h],
                    "hsize": size,
                    "htype": htype,
                    "age": draw(st.integers(0, 2)),
                }
            )
    return pd.DataFrame(rows)


@settings(max_examples=150, deadline=None)
@given(
    df=frames(),
    rate=st.sampled_from([0.2, 0.5, 0.8, 1.0]),
    k=st.sampled_from([0, 2]),
    similar=st.sampled_from([None, [["hsize"]], [["htype", "hsize"], ["hsize"]]]),
    two_levels=st.booleans(),
    seed=st.integers(0, 3),
)
def test_rate_met_or_no_pair_left_to_form(df, rate, k, similar, two_levels, seed):
    hierarchy = ("zone", "region") if two_levels else ("region",)
    res, warned = _swap(df, hierarchy, similar, swaprate=rate, k_anonymity=k, seed=seed)
    n_hh = df["hid"].nunique()
    formed = len(res.pairs)
    swapped = set(res.pairs["sampled_hid"]) | set(res.pairs["donor_hid"])
    assert len(swapped) == 2 * formed and not swapped & set(res.no_donor)
    assert res.n_swapped_households == 2 * formed
    assert res.target_pairs <= n_hh // 2
    assert res.missing_pairs == max(0, res.target_pairs - formed)
    if k == 0 and similar in (None, [["hsize"]]):
        # nobody at risk and one profile: the most pairs of households in different
        # areas, per profile cell, is min(n // 2, n - the largest area's households)
        hh = df.groupby("hid").first()
        cells = [hh] if similar is None else [g for _, g in hh.groupby("hsize")]
        most = sum(min(len(g) // 2, len(g) - int(g["region"].value_counts().max())) for g in cells)
        assert formed >= min(res.target_pairs, most)
    if formed >= res.target_pairs:
        assert warned == []
        return
    missing = res.target_pairs - formed
    assert len(warned) == 1 and f": {missing:,} pair(s) short" in warned[0]
    assert f"at least {res.target_pairs:,} pairs" in warned[0]
    # brute force: no two households left (not swapped, not without a donor) in different
    # finest areas agree on a similarity profile, so no further pair could be formed
    hh = df.groupby("hid").first()
    left = [h for h in hh.index if h not in swapped and h not in set(res.no_donor)]
    profiles = similar or [[]]
    for u, v in itertools.combinations(left, 2):
        assert hh.loc[u, "region"] == hh.loc[v, "region"] or not _matches(
            hh.loc[u], hh.loc[v], profiles
        ), (u, v)


def test_command_line_warns_with_the_numbers(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    _areas([10, 1]).to_csv(src, index=False)
    args = [
        "swap",
        str(src),
        "--hid",
        "hid",
        "--hierarchy",
        "region",
        "--risk-variables",
        "age",
        "-k",
        "0",
        "--swaprate",
        "1",
        "--seed",
        "1",
        "--checked",
        "hsize,age",
        "--out",
        str(tmp_path / "out.csv"),
    ]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "asks for at least 5 pairs (10 of 11 households)" in text
    assert "4 pair(s) short" in text
