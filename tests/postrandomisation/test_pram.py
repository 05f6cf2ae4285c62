"""pram and pram_estimate on data frames: what moves, what never moves, and the estimate."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microsdc import pram, pram_estimate
from microsdc.exceptions import ColumnNotFoundError, DataValidationError, InvalidParameterError


def survey(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "region": rng.choice(["north", "south", "east"], n, p=[0.5, 0.3, 0.2]),
            "roof": rng.choice(["tin", "tile", "straw", "concrete"], n, p=[0.5, 0.3, 0.15, 0.05]),
            "rooms": rng.integers(1, 6, n),
            "water": rng.choice(["pipe", "well"], n),
            "income": rng.lognormal(8, 1, n),
        }
    )
    df.loc[::50, "roof"] = None
    return df


def test_input_unchanged_and_other_columns_kept() -> None:
    df = survey()
    before = df.copy()
    res = pram(df, ["roof", "rooms"], strata="region", seed=1)
    pd.testing.assert_frame_equal(df, before)
    for c in ("region", "water", "income"):
        pd.testing.assert_series_equal(res.data[c], df[c])
    assert list(res.data.columns) == list(df.columns) and res.data.index.equals(df.index)
    assert res.data["rooms"].dtype == df["rooms"].dtype
    assert res.changed["roof"].sum() > 0 and res.changed["rooms"].sum() > 0


def test_missing_kept_or_a_state() -> None:
    df = survey()
    missing = df["roof"].isna()
    kept = pram(df, "roof", seed=3).data["roof"]
    assert kept[missing].isna().all() and kept[~missing].notna().all()
    state = pram(df, "roof", missing="state", pd=0.2, alpha=1.0, seed=3)
    moved = state.data["roof"].isna() != missing
    assert moved.any()  # a missing value can change, and a value can become missing
    assert np.isnan(state.matrix("roof").matrix.index[0])


def test_records_never_cross_strata_and_where_is_respected() -> None:
    df = survey()
    adults = pd.Series(df["rooms"] > 2, index=df.index)
    res = pram(df, "roof", strata="region", where=adults, pd=0.1, alpha=1.0, seed=4)
    assert res.data.loc[~adults, "roof"].equals(df.loc[~adults, "roof"])
    for m in res.matrices:
        (region,) = m.stratum
        inside = (df["region"] == region) & adults & df["roof"].notna()
        # the matrix comes from the frequencies of the chosen records of the stratum
        assert m.counts.to_dict() == {
            **{c: 0 for c in m.counts.index},
            **df.loc[inside, "roof"].value_counts().to_dict(),
        }
        # released counts are those of the chosen records after PRAM
        released = res.data.loc[inside, "roof"].value_counts()
        hit = m.released[m.released > 0]
        assert (hit == released.reindex(hit.index)).all()
    assert len(res.matrices) == 3 and {m.stratum for m in res.matrices} == {
        ("east",),
        ("north",),
        ("south",),
    }


def test_nothing_moves_into_a_category_absent_from_the_stratum() -> None:
    df = pd.DataFrame({"s": ["a"] * 50 + ["b"] * 50, "v": ["x", "y"] * 25 + ["y", "z"] * 25})
    res = pram(df, "v", strata="s", pd=0.0, alpha=1.0, seed=1)
    assert set(res.data.loc[df["s"] == "a", "v"]) <= {"x", "y"}
    assert set(res.data.loc[df["s"] == "b", "v"]) <= {"y", "z"}


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 10_000))
def test_same_seed_same_release_whatever_the_row_order(seed: int, shuffle: int) -> None:
    df = survey(400, seed=seed % 7)
    df = pd.concat([df, df.iloc[:40]], ignore_index=True)  # identical records too
    res = pram(df, ["roof", "water"], strata="region", seed=seed)
    perm = np.random.default_rng(shuffle).permutation(len(df))
    again = pram(df.iloc[perm], ["roof", "water"], strata="region", seed=seed)
    pd.testing.assert_frame_equal(again.data.loc[df.index], res.data)
    for a, b in zip(res.matrices, again.matrices, strict=True):
        pd.testing.assert_frame_equal(a.matrix, b.matrix)
    # the same file read in another order (new row labels): the same records released,
    # each distinct record exactly; identical records are interchangeable
    reread = pram(
        df.iloc[perm].reset_index(drop=True), ["roof", "water"], strata="region", seed=seed
    )
    ordered = res.data.iloc[perm].reset_index(drop=True)
    distinct = ~df.iloc[perm].reset_index(drop=True).duplicated(keep=False)
    pd.testing.assert_frame_equal(reread.data[distinct], ordered[distinct])
    key = list(df.columns)

    def rows(frame: pd.DataFrame) -> list[tuple[str, ...]]:
        return sorted(tuple(map(repr, row)) for row in frame[key].to_numpy())

    assert rows(reread.data) == rows(ordered)


def test_seeds() -> None:
    df = survey()
    a = pram(df, "roof", seed=7).data
    assert a.equals(pram(df, "roof", seed=7).data)
    assert not a.equals(pram(df, "roof", seed=8).data)
    assert a.equals(pram(df, "roof", seed=np.random.default_rng(7)).data)


def test_invariance_on_many_records() -> None:
    # each category's released frequency lies within 4 standard errors of the original
    n = 200_000
    rng = np.random.default_rng(5)
    df = pd.DataFrame(
        {
            "a": rng.choice(5, n, p=[0.4, 0.3, 0.15, 0.1, 0.05]),
            "b": rng.choice(8, n),
            "s": rng.choice(3, n),
        }
    )
    res = pram(df, ["a", "b"], strata="s", pd=0.5, alpha=1.0, seed=2)
    for m in res.matrices:
        r = m.matrix.to_numpy()
        n_c = m.counts.to_numpy(dtype=float)
        var = np.diag(n_c @ r) - (r.T * n_c) @ r  # multinomial covariance of released counts
        z = (m.released.to_numpy() - n_c) / np.sqrt(np.diag(var))
        assert np.abs(z).max() < 4
        assert m.invariance_error < 1e-9
        assert 0.05 < m.change_rate < 0.6


def test_estimate_is_unbiased_and_its_error_is_right() -> None:
    df = pd.DataFrame({"v": ["a"] * 300 + ["b"] * 150 + ["c"] * 50, "s": ["x", "y"] * 250})
    truth = df.groupby("s")["v"].value_counts()
    estimates = []
    for seed in range(300):
        res = pram(df, "v", strata="s", pd=0.4, alpha=1.0, seed=seed)
        estimates.append(pram_estimate(res.data, res).set_index(["s", "category"])["estimate"])
    frame = pd.concat(estimates, axis=1)
    mean, sd = frame.mean(axis=1), frame.std(axis=1)
    for key, value in truth.items():
        assert abs(mean[key] - value) < 4 * sd[key] / np.sqrt(300) + 1e-9
    # with one matrix held fixed, the standard error is the spread of the estimate
    fixed = pram(df, "v", pd=0.4, alpha=1.0, seed=0).matrix("v").matrix
    runs = [
        pram_estimate(r.data, r).set_index("category")
        for r in (pram(df, "v", transition={"v": fixed}, seed=s) for s in range(400))
    ]
    spread = pd.concat([r["estimate"] for r in runs], axis=1).std(axis=1)
    reported = pd.concat([r["standard_error"] for r in runs], axis=1).mean(axis=1)
    for category in ("a", "b", "c"):
        assert reported[category] == pytest.approx(spread[category], rel=0.2)


def test_given_matrix_used_and_checked() -> None:
    df = pd.DataFrame({"v": ["a", "b"] * 500})
    swap = pd.DataFrame([[0.0, 1.0], [1.0, 0.0]], index=["a", "b"], columns=["a", "b"])
    res = pram(df, "v", transition={"v": swap}, seed=1)
    assert (res.data["v"] != df["v"]).all() and res.matrices[0].kind == "given"
    assert res.matrices[0].invariance_error == 0.0  # a swap of equal shares is invariant
    bad_sum = pd.DataFrame([[0.5, 0.4], [0.0, 1.0]], index=["a", "b"], columns=["a", "b"])
    with pytest.raises(DataValidationError, match=r"row 'a' sums to 0\.9"):
        pram(df, "v", transition={"v": bad_sum})
    lacking = pd.DataFrame([[1.0]], index=["a"], columns=["a"])
    with pytest.raises(DataValidationError, match=r"\['b'\]"):
        pram(df, "v", transition={"v": lacking})
    extra = pd.DataFrame(np.eye(3), index=["a", "b", "z"], columns=["a", "b", "z"])
    with pytest.raises(DataValidationError, match="'z'"):
        pram(df, "v", transition={"v": extra})
    with pytest.raises(InvalidParameterError, match="'a' -> 'b'"):
        pram(df, "v", transition={"v": swap}, allowed={"v": []})


def test_neighbours_only() -> None:
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age_band": rng.integers(0, 8, 5000)})
    res = pram(df, "age_band", allowed={"age_band": "neighbours"}, pd=0.0, alpha=1.0, seed=2)
    jump = (res.data["age_band"] - df["age_band"]).abs()
    assert jump.max() == 1 and (jump == 1).sum() > 100
    with pytest.raises(InvalidParameterError, match="only one way"):
        one_way = pd.DataFrame(False, index=range(8), columns=range(8))
        one_way.loc[0, 1] = True
        pram(df, "age_band", allowed={"age_band": one_way})


def test_together_keeps_combinations_that_occur() -> None:
    rng = np.random.default_rng(1)
    n = 4000
    a = rng.integers(0, 4, n)
    df = pd.DataFrame({"a": a, "b": (a + rng.integers(0, 2, n)) % 4, "s": rng.integers(0, 2, n)})
    res = pram(df, ["a", "b"], together=[["a", "b"]], strata="s", pd=0.0, alpha=1.0, seed=3)
    for s in (0, 1):
        inside = df["s"] == s
        seen = set(map(tuple, df.loc[inside, ["a", "b"]].to_numpy()))
        out = set(map(tuple, res.data.loc[inside, ["a", "b"]].to_numpy()))
        assert out <= seen
    assert (res.changed["a"] | res.changed["b"]).sum() > 500
    assert res.summary()["variables"].tolist() == ["a + b"]


def test_linked_columns_follow_their_key() -> None:
    names = {1: "Ashby", 2: "Brook", 3: "Corfe"}
    df = pd.DataFrame({"district": [1, 2, 3] * 300})
    df["district_name"] = df["district"].map(names)
    res = pram(df, "district", linked={"district": ["district_name"]}, pd=0.2, seed=1)
    assert (res.data["district"].map(names) == res.data["district_name"]).all()
    assert res.changed["district_name"].equals(res.changed["district"])
    broken = df.copy()
    broken.loc[5, "district_name"] = "Elsewhere"
    with pytest.raises(DataValidationError, match="'Corfe' and 'Elsewhere'"):
        pram(broken, "district", linked={"district": ["district_name"]})


def test_categorical_stays_categorical() -> None:
    df = pd.DataFrame({"v": pd.Categorical(["a", "b", "c"] * 100, categories=["c", "b", "a", "z"])})
    out = pram(df, "v", pd=0.1, seed=1).data["v"]
    assert out.dtype == df["v"].dtype and (out != df["v"]).any()


@pytest.mark.parametrize(
    ("kwargs", "error", "param"),
    [
        ({"pd": 1.5}, InvalidParameterError, "pd"),
        ({"alpha": -0.1}, InvalidParameterError, "alpha"),
        ({"alpha": {"nosuch": 0.3}}, InvalidParameterError, "alpha"),
        ({"missing": "drop"}, InvalidParameterError, "missing"),
        ({"strata": "roof"}, InvalidParameterError, "strata"),
        ({"strata": "nosuch"}, ColumnNotFoundError, "strata"),
        ({"together": [["roof"]]}, InvalidParameterError, "together"),
        ({"together": [["roof", "water"]]}, InvalidParameterError, "together"),
        ({"linked": {"water": ["rooms"]}}, InvalidParameterError, "linked"),
        ({"where": [True, False]}, InvalidParameterError, "where"),
        ({"allowed": {"roof": "neighbors"}}, InvalidParameterError, "allowed"),
        ({"allowed": {"roof": "neighbours"}}, InvalidParameterError, "allowed"),  # text
        ({"seed": -1}, InvalidParameterError, "seed"),
    ],
)
def test_errors_name_the_parameter(kwargs: dict, error: type, param: str) -> None:
    with pytest.raises(error) as info:
        pram(survey(200), ["roof", "rooms"], **kwargs)
    assert info.value.param == param and info.value.func == "pram"


def test_where_must_be_boolean() -> None:
    df = survey(100)
    with pytest.raises(DataValidationError, match="True or False"):
        pram(df, "roof", where=pd.Series([1.0] * 100, index=df.index))


def test_given_matrix_is_restricted_to_each_stratum() -> None:
    given = pd.DataFrame(
        [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]], index=list("xyz"), columns=list("xyz")
    )
    d = pd.DataFrame({"a": list("xxxyyz") + ["x"] * 60, "s": [1] * 6 + [2] * 60})
    res = pram(d, "a", strata="s", transition={"a": given}, seed=3)
    assert (res.data.loc[d["s"] == 2, "a"] == "x").all()
    assert res.matrix("a", 2).matrix.loc["x", "x"] == 1.0


def test_unknown_keys_of_a_per_column_dict_are_named_with_the_keys_allowed() -> None:
    df = survey(50)
    with pytest.raises(InvalidParameterError) as info:
        pram(df, ["roof", "rooms"], together=[["roof", "rooms"]], alpha={"nosuch": 0.3, 2: 0.1})
    assert str(info.value) == (
        "The 'alpha' parameter of pram names ['nosuch', 2], which are not PRAMmed columns "
        "(or groups of together=). Its keys are among "
        "['roof', 'rooms', ('roof', 'rooms')]."
    )
    assert info.value.param == "alpha"
    # a key that is a column, or a group of together=, is accepted
    pram(df, ["roof", "rooms"], together=[["roof", "rooms"]], alpha={("roof", "rooms"): 0.3})
