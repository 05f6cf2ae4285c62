"""pram(hid=): household-level variables PRAMmed by household, every member alike."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microsdc import pram, pram_estimate
from microsdc.exceptions import (
    ColumnNotFoundError,
    DataValidationError,
    DisclosureRiskWarning,
    InvalidParameterError,
)
from real_data import real_data_file

#: tin <-> tile always, straw stays: a known draw
SWAP = pd.DataFrame(
    [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
    index=["tin", "tile", "straw"],
    columns=["tin", "tile", "straw"],
)


def three_households() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "hh": ["a", "a", "a", "b", "b", "c"],
            "roof": ["tin", "tin", "tin", "tile", "tile", "straw"],
            "roof_name": ["Tin", "Tin", "Tin", "Tile", "Tile", "Straw"],
            "age": [40, 38, 9, 70, 66, 25],
        },
        index=[10, 11, 12, 20, 21, 30],
    )


def households(n_hh: int, seed: int, size_depends: bool = False) -> pd.DataFrame:
    """Persons in ``n_hh`` households; roof and region are household-level."""
    rng = np.random.default_rng(seed)
    roof = rng.choice(["tin", "tile", "straw", "concrete"], n_hh, p=[0.5, 0.3, 0.15, 0.05])
    region = rng.choice(["north", "south"], n_hh)
    size = rng.integers(1, 7, n_hh)
    if size_depends:
        size = np.where(roof == "straw", size + 4, size)
    rows = np.repeat(np.arange(n_hh), size)
    return pd.DataFrame(
        {
            "hid": rows * 7 + 3,
            "roof": roof[rows],
            "region": region[rows],
            "sex": rng.integers(0, 2, len(rows)),
        }
    )


def disagreeing(data: pd.DataFrame, hid: str, col: str) -> int:
    return int((data.groupby(hid)[col].nunique(dropna=False) > 1).sum())


def test_hand_case_every_member_gets_the_households_draw() -> None:
    df = three_households()
    before = df.copy()
    res = pram(df, "roof", hid="hh", transition={"roof": SWAP}, linked={"roof": ["roof_name"]})
    pd.testing.assert_frame_equal(df, before)
    assert res.data["roof"].tolist() == ["tile"] * 3 + ["tin"] * 2 + ["straw"]
    assert res.data["roof_name"].tolist() == ["Tile"] * 3 + ["Tin"] * 2 + ["Straw"]
    pd.testing.assert_series_equal(res.data["age"], df["age"])
    assert res.data.index.equals(df.index) and list(res.data.columns) == list(df.columns)
    assert res.changed["roof"].tolist() == [True] * 5 + [False]
    assert res.changed["roof_name"].tolist() == [True] * 5 + [False]
    assert res.pramed["roof"].all()
    m = res.matrix("roof")
    # the counts are households, one each, not the 3 + 2 + 1 persons
    assert m.counts.to_dict() == {"straw": 1, "tile": 1, "tin": 1}
    assert m.released.to_dict() == {"straw": 1, "tile": 1, "tin": 1}
    assert m.n_changed == 2 and m.counts.name == "households"
    assert res.summary()["records"].tolist() == [3] and res.hid == "hh"


def test_where_any_member_prams_the_whole_household() -> None:
    df = three_households()
    # one member of "a" (a child) and one of "b": both households, all their members
    where = np.array([False, False, True, False, True, False])
    res = pram(df, "roof", hid="hh", transition={"roof": SWAP}, where=where)
    assert res.data["roof"].tolist() == ["tile"] * 3 + ["tin"] * 2 + ["straw"]
    assert res.pramed["roof"].tolist() == [True] * 5 + [False]
    assert res.matrix("roof").counts.to_dict() == {"straw": 0, "tile": 1, "tin": 1}
    # a where column of the frame works the same way
    df["at_risk"] = where
    again = pram(df, "roof", hid="hh", transition={"roof": SWAP}, where="at_risk")
    assert again.data["roof"].tolist() == res.data["roof"].tolist()


def test_without_hid_members_disagree_with_hid_never() -> None:
    df = households(2000, 1)
    with pytest.warns(DisclosureRiskWarning, match="through 'hid'") as got:
        person = pram(df, "roof", strata="region", pd=0.6, seed=4)
    split = disagreeing(person.data, "hid", "roof")
    assert split > 50  # the fault hid= removes, pointed out
    assert [f"within {split:,} of them" in str(w.message) for w in got] == [True]
    res = pram(df, "roof", strata="region", hid="hid", pd=0.6, seed=4)
    assert disagreeing(res.data, "hid", "roof") == 0
    assert res.changed["roof"].sum() > 0
    for frame in (res.changed, res.pramed):
        assert (frame.groupby(df["hid"]).nunique() == 1).all().all()


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 5), min_size=1, max_size=30),
    values=st.lists(st.sampled_from(["a", "b", "c", None]), min_size=30, max_size=30),
    seed=st.integers(0, 2**16),
    missing=st.sampled_from(["keep", "state"]),
)
def test_property_every_household_constant(
    sizes: list[int], values: list[str | None], seed: int, missing: str
) -> None:
    rows = np.repeat(np.arange(len(sizes)), sizes)
    df = pd.DataFrame(
        {
            "hid": rows,
            "roof": [values[h] for h in rows],
            "walls": [values[(h * 7 + 3) % 30] for h in rows],
            "person": np.arange(len(rows)),
        }
    )
    res = pram(df, ["roof", "walls"], hid="hid", pd=0.2, missing=missing, seed=seed)
    for c in ("roof", "walls"):
        assert disagreeing(res.data, "hid", c) == 0
        # the values a household has are values some household had
        assert set(res.data[c].dropna()) <= set(df[c].dropna())
        if missing == "keep":  # a missing value stays missing, a value stays a value
            assert (res.data[c].isna() == df[c].isna()).all()
    pd.testing.assert_series_equal(res.data["person"], df["person"])
    assert sum(m.n_records for m in res.matrices if m.variables == ("roof",)) <= len(sizes)


def test_invariance_for_household_frequencies() -> None:
    # the household counts are the p of p R = p: each category's released number of
    # households lies within 4 standard errors of the original
    df = households(60_000, 2, size_depends=True)
    res = pram(df, "roof", strata="region", hid="hid", pd=0.5, alpha=1.0, seed=3)
    firsts = ~df["hid"].duplicated()
    for m in res.matrices:
        in_stratum = firsts & (df["region"] == m.stratum[0])
        truth = df.loc[in_stratum, "roof"].value_counts()
        assert m.counts.to_dict() == truth.to_dict()
        assert m.invariance_error < 1e-12
        r = m.matrix.to_numpy()
        n_c = m.counts.to_numpy(dtype=float)
        var = np.diag(n_c @ r) - (r.T * n_c) @ r
        z = (m.released.to_numpy() - n_c) / np.sqrt(np.diag(var))
        assert np.abs(z).max() < 4, z
        # the members' released values, counted once per household, are m.released
        released = res.data.loc[in_stratum, "roof"].value_counts()
        assert released.reindex(m.released.index, fill_value=0).tolist() == m.released.tolist()


def test_same_release_whatever_the_row_order() -> None:
    df = households(500, 6)
    df.index = pd.Index([f"p{i}" for i in range(len(df))])
    res = pram(df, "roof", strata="region", hid="hid", pd=0.5, seed=11)
    shuffled = df.sample(frac=1.0, random_state=2)
    again = pram(shuffled, "roof", strata="region", hid="hid", pd=0.5, seed=11)
    pd.testing.assert_frame_equal(again.data.loc[df.index], res.data)
    pd.testing.assert_frame_equal(again.changed.loc[df.index], res.changed)
    for a, b in zip(res.matrices, again.matrices, strict=True):
        pd.testing.assert_frame_equal(a.matrix, b.matrix)
    assert res.changed["roof"].any()
    other = pram(df, "roof", strata="region", hid="hid", pd=0.5, seed=12)
    assert not other.data.equals(res.data)


def test_estimate_counts_households() -> None:
    df = three_households()
    res = pram(df, "roof", hid="hh", transition={"roof": SWAP})
    est = pram_estimate(res.data, res).set_index("category")
    assert est["released"].to_dict() == {"straw": 1, "tile": 1, "tin": 1}
    # the swap matrix is its own inverse: the estimate is the original household count
    assert est["estimate"].round(12).to_dict() == {"straw": 1.0, "tile": 1.0, "tin": 1.0}
    big = households(20_000, 8)
    res = pram(big, "roof", hid="hid", pd=0.6, seed=1)
    est = pram_estimate(res.data, res).set_index("category")
    truth = big.loc[~big["hid"].duplicated(), "roof"].value_counts()
    assert est["released"].sum() == big["hid"].nunique()
    z = (est["estimate"] - truth.reindex(est.index)) / est["standard_error"]
    assert z.abs().max() < 4, z


def test_members_who_disagree_are_refused() -> None:
    df = households(300, 3)
    df.loc[[0, 10, 20], "roof"] = "thatch"  # one member of three households
    df.loc[5, "roof"] = None  # a blank next to values
    bad = df.groupby("hid", sort=False)["roof"].nunique(dropna=False).gt(1)
    n_bad, first_bad = int(bad.sum()), int(bad.index[bad][0])
    assert n_bad >= 2
    with pytest.raises(DataValidationError) as info:
        pram(df, "roof", hid="hid", seed=1)
    msg = str(info.value)
    assert "'roof'" in msg and f"in {n_bad:,} of 300 households" in msg
    assert f"hid {first_bad!r}" in msg and "Nothing was PRAMmed" in msg
    assert info.value.param == "columns" and info.value.failure_cases == ["roof"]


def test_strata_and_linked_must_be_household_level() -> None:
    df = three_households()
    df["area"] = [1, 1, 2, 3, 3, 3]
    with pytest.raises(DataValidationError, match=r"'area' \(in 1 of 3 households, hh 'a'\)") as e:
        pram(df, "roof", hid="hh", strata="area", seed=1)
    assert e.value.param == "strata"
    df = three_households()
    df.loc[21, "roof_name"] = "Tin roof"
    with pytest.raises(DataValidationError, match="'roof_name'") as e:
        pram(df, "roof", hid="hh", linked={"roof": ["roof_name"]}, seed=1)
    assert e.value.param == "linked"
    # a linked column the data lack: the columns listed are the data's, not the households'
    with pytest.raises(ColumnNotFoundError, match="'age'") as missing:
        pram(df, "roof", hid="hh", linked={"roof": ["name"]}, seed=1)
    assert missing.value.param == "linked"


def test_bad_hid() -> None:
    df = three_households()
    with pytest.raises(ColumnNotFoundError):
        pram(df, "roof", hid="household", seed=1)
    with pytest.raises(InvalidParameterError, match="'hid' parameter"):
        pram(df, "roof", hid=["hh"], seed=1)
    with pytest.raises(InvalidParameterError, match="PRAMmed"):
        pram(df, ["roof", "hh"], hid="hh", seed=1)
    with pytest.raises(InvalidParameterError, match="a stratum"):
        pram(df, "roof", hid="hh", strata="hh", seed=1)
    df.loc[12, "hh"] = None
    with pytest.raises(DataValidationError, match=r"1 missing value\(s\) \(first rows: \[12\]\)"):
        pram(df, "roof", hid="hh", seed=1)


def test_testdata_household_variables() -> None:
    df = pd.read_csv(real_data_file("testdata.csv"))
    cols = ["roof", "walls", "electcon"]
    assert all(disagreeing(df, "ori_hid", c) == 0 for c in cols)
    res = pram(df, cols, strata="urbrur", hid="ori_hid", pd=0.8, seed=20241201)
    assert all(disagreeing(res.data, "ori_hid", c) == 0 for c in cols)
    assert res.summary()["records"].tolist() == [1000] * 3
    assert res.changed[cols].any().all()
