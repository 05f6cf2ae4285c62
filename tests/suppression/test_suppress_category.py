"""Local suppression under the category and probabilistic guarantees."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from microsdc.exceptions import InvalidParameterError
from microsdc.suppression import local_suppression
from oracles.kanon import fk_bruteforce, rows_of


def test_four_corners_one_column_each() -> None:
    # (1,1), (1,2), (2,1), (2,2), k = 2: one column blanked in every row (4 cells), not
    # every row blanked entirely (8 cells)
    df = pd.DataFrame({"a": [1, 1, 2, 2], "b": [1, 2, 1, 2]})
    res = local_suppression(df, ["a", "b"], 2, missing="category")
    assert res.n_cells == 4
    assert res.n_at_risk_after == 0
    fk, _ = fk_bruteforce(rows_of(res.data, ["a", "b"]), "category")
    assert fk == [2.0, 2.0, 2.0, 2.0]


def test_importance_picks_the_column() -> None:
    df = pd.DataFrame({"a": [1, 1, 2, 2], "b": [1, 2, 1, 2]})
    res = local_suppression(df, ["a", "b"], 2, missing="category", importance=["b", "a"])
    assert res.cells_per_qi.to_dict() == {"a": 4, "b": 0}


def test_risky_record_joins_an_existing_class() -> None:
    # three records (x, NA) are a class; (x, u) alone joins it with one cell
    df = pd.DataFrame(
        {"a": ["x", "x", "x", "x", "y", "y", "y"], "b": [None, None, None, "u"] + ["v"] * 3}
    )
    res = local_suppression(df, ["a", "b"], 3, missing="category")
    assert res.n_cells == 1
    assert res.data["b"].isna().tolist() == [True, True, True, True, False, False, False]


def test_leftover_below_k_is_completed() -> None:
    # one record at risk and no class it can join: records of the big class are blanked
    # entirely with it, and the big class keeps k members
    df = pd.DataFrame({"a": ["x"] * 5 + ["y"], "b": ["u"] * 5 + ["v"]})
    res = local_suppression(df, ["a", "b"], 2, missing="category")
    fk, _ = fk_bruteforce(rows_of(res.data, ["a", "b"]), "category")
    assert min(fk) >= 2
    assert res.n_cells == 4  # the record and one member of the class, entirely


@st.composite
def _frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 30))
    m = draw(st.integers(1, 4))
    cells = st.one_of(st.none(), st.integers(0, 2)) if draw(st.booleans()) else st.integers(0, 3)
    return pd.DataFrame({f"q{j}": draw(st.lists(cells, min_size=n, max_size=n)) for j in range(m)})


@given(df=_frames(), k=st.integers(1, 5), data=st.data())
def test_category_result_every_class_has_k(df: pd.DataFrame, k: int, data: st.DataObject) -> None:
    qi = list(df.columns)
    k = min(k, len(df))
    snapshot = df.copy(deep=True)
    res = local_suppression(df, qi, k, missing="category")
    pd.testing.assert_frame_equal(df, snapshot)
    fk, _ = fk_bruteforce(rows_of(res.data, qi), "category")
    assert min(fk) >= k
    assert res.n_at_risk_after == 0
    # never changes anything but observed cells to missing
    for c in qi:
        kept = res.data[c].notna()
        assert (res.data[c][kept].astype(object) == df[c][kept].astype(object)).all()
    # no cell is blanked where nothing is at risk. (No bound on the cells beyond that:
    # completing the group of blank records can take a class below k, which must then
    # go too, see below; and the greedy's groups can cost more than blanking every
    # record at risk entirely.)
    fk0, _ = fk_bruteforce(rows_of(df, qi), "category")
    if min(fk0) >= k:
        assert res.n_cells == 0


def test_category_completion_can_take_a_whole_class() -> None:
    # k = 4: the unique record needs three blank companions; taking them from the
    # class of five leaves two, below k, so they are blanked as well. Every category
    # solution blanks all six records (the only classes are "0" x >= 4 or blank x >= 4).
    df = pd.DataFrame({"q0": [0, 0, 0, 0, 0, 1]})
    res = local_suppression(df, ["q0"], 4, missing="category")
    assert res.n_cells == 6 and bool(res.data["q0"].isna().all())
    assert res.n_at_risk_after == 0


def test_conservative_is_refused_as_a_guarantee() -> None:
    df = pd.DataFrame({"a": [1, 2, 3], "b": [1, 2, 3]})
    with pytest.raises(InvalidParameterError, match=r"'category'.*'probabilistic'"):
        local_suppression(df, ["a", "b"], 2, missing="conservative")


@example(  # equal fk in exact arithmetic; the routes' sums differ in the last bit
    df=pd.DataFrame(
        {
            "q0": [np.nan] * 5 + [0.0, np.nan, np.nan],
            "q1": [np.nan] * 4 + [0.0, 0.0, np.nan, np.nan],
            "q2": [np.nan, 0.0, 0.0, 1.0, np.nan, 1.0, 2.0, 2.0],
        }
    ),
    k=3,
)
@given(df=_frames(), k=st.integers(2, 4))
def test_probabilistic_both_count_routes_agree(df: pd.DataFrame, k: int) -> None:
    # the exact counts between passes through the dense array, through mask pairs or
    # through bit sets: same cells
    import microsdc._kernels.dense as dense
    import microsdc._kernels.route as routes

    qi = list(df.columns)
    k = min(k, len(df))
    results = []
    for dense_limit, route in (
        (1 << 24, "dense"),
        (0, "pairs"),
        (0, "bitset"),
    ):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(dense, "DENSE_LIMIT", dense_limit)
            mp.setattr(routes, "choose_route", lambda *_, r=route, **__: r)
            results.append(local_suppression(df, qi, k, missing="probabilistic").data)
    for other in results[1:]:
        pd.testing.assert_frame_equal(results[0], other)
    fk, _ = fk_bruteforce(rows_of(results[0], qi), "probabilistic")
    assert min(fk) >= k - 1e-9


def test_probabilistic_by_hand() -> None:
    # (x,u) x3, (y,v), (y,w): the two y records blank their second value; each then
    # counts the other's blank with weight 1 (its own blank) -> fk 2
    df = pd.DataFrame({"a": ["x", "x", "x", "y", "y"], "b": ["u", "u", "u", "v", "w"]})
    res = local_suppression(df, ["a", "b"], 2, missing="probabilistic")
    assert res.n_cells == 2
    assert res.data["b"].isna().tolist() == [False, False, False, True, True]


@pytest.mark.parametrize(("m", "n_values"), [(14, 2), (10, 90)])
def test_category_many_columns(m: int, n_values: int) -> None:
    # 14 QIs: only the masks of up to L columns are tried; 10 QIs of 90 values: the
    # tuples do not fit one integer key and the per-record greedy is used
    rng = np.random.default_rng(m)
    df = pd.DataFrame({f"q{j}": rng.integers(0, n_values, 40) for j in range(m)})
    res = local_suppression(df, list(df.columns), 2, missing="category")
    fk, _ = fk_bruteforce(rows_of(res.data, list(df.columns)), "category")
    assert min(fk) >= 2
    assert res.n_cells <= 40 * m


@pytest.mark.parametrize("missing", ["category", "probabilistic"])
def test_strata_each_on_its_own(missing: str) -> None:
    rng = np.random.default_rng(3)
    df = pd.DataFrame(
        {"s": np.repeat(["a", "b"], 30), "x": rng.integers(0, 3, 60), "y": rng.integers(0, 4, 60)}
    )
    res = local_suppression(df, ["x", "y"], 3, missing=missing, strata="s")
    for _, part in res.data.groupby("s"):
        fk, _ = fk_bruteforce(rows_of(part, ["x", "y"]), missing)
        assert min(fk) >= 3 - 1e-9
    assert res.prosecutor_after is not None
    if missing == "category":
        assert res.prosecutor_after.max() <= 1 / 3 + 1e-12


def test_random_baseline_refuses_conservative() -> None:
    from microsdc.suppression import min_missingness_max_deid

    df = pd.DataFrame({"a": [1, 2, 3], "b": [1, 2, 3]})
    with pytest.raises(InvalidParameterError, match="cannot be 'conservative'"):
        min_missingness_max_deid(df, ["a", "b"], 2, missing="conservative", seed=0)


def test_bad_missing_lists_only_the_targets_suppression_takes() -> None:
    from microsdc.suppression import min_missingness_max_deid

    df = pd.DataFrame({"a": [1, 2, 3], "b": [1, 2, 3]})
    for func in (local_suppression, min_missingness_max_deid):
        with pytest.raises(InvalidParameterError) as info:
            func(df, ["a", "b"], 2, missing="wild")
        assert "'category', 'probabilistic' or a real number" in str(info.value)
        assert "conservative" not in str(info.value)


def test_probabilistic_with_combs() -> None:
    rng = np.random.default_rng(5)
    df = pd.DataFrame({c: rng.integers(0, 4, 30) for c in "abc"})
    res = local_suppression(df, ["a", "b", "c"], 3, missing="probabilistic", combs=[2])
    for pair in (["a", "b"], ["a", "c"], ["b", "c"]):
        fk, _ = fk_bruteforce(rows_of(res.data, pair), "probabilistic")
        assert min(fk) >= 3 - 1e-9
    assert res.n_at_risk_after == 0


def test_probabilistic_record_made_safe_by_an_earlier_blank_is_skipped() -> None:
    # (x,u) fk 1 and (x,v) fk 1 + 2/11 (the blank a of (NA,v) weighs the share of x)
    # are at risk for k = 2; (y,v) x 9. Blanking b of (x,u) brings it to 1 + 1 + 2/11,
    # and (x,v) then counts (x,NA) with the share of v, 11/12 with the shares of the
    # pass's start (1 once exact): (x,v) is skipped, one cell instead of two
    df = pd.DataFrame({"a": ["x", "x"] + ["y"] * 9 + [None], "b": ["u", "v"] + ["v"] * 10})
    res = local_suppression(df, ["a", "b"], 2, missing="probabilistic")
    assert res.n_cells == 1
    assert res.data["b"].isna().tolist() == [True] + [False] * 11
    fk, _ = fk_bruteforce(rows_of(res.data, ["a", "b"]), "probabilistic")
    assert fk[:2] == pytest.approx([2 + 2 / 11, 2 + 2 / 11])
    assert min(fk) >= 2 - 1e-9


@given(df=_frames(), k=st.integers(2, 5), tie=st.sampled_from([0, 1, 3]))
def test_probabilistic_greedy_variants_keep_the_guarantee(
    df: pd.DataFrame, k: int, tie: int
) -> None:
    # first candidate reaching k (counts stop once decided, by the bound from the
    # values each mask holds) or ties weighed by the support given to the records
    # still waiting: every record's probabilistic fk >= k by the brute-force oracle,
    # only QI cells blanked
    import microsdc.suppression._probabilistic as prob

    qi = list(df.columns)
    k = min(k, len(df))
    snapshot = df.copy(deep=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(prob, "_TIE_CLASSES", tie)
        res = local_suppression(df, qi, k, missing="probabilistic")
    pd.testing.assert_frame_equal(df, snapshot)
    fk, _ = fk_bruteforce(rows_of(res.data, qi), "probabilistic")
    assert min(fk) >= k - 1e-9
    assert res.n_at_risk_after == 0
    for c in qi:
        kept = res.data[c].notna()
        assert (res.data[c][kept].astype(object) == df[c][kept].astype(object)).all()
    fk0, _ = fk_bruteforce(rows_of(df, qi), "probabilistic")
    if min(fk0) >= k - 1e-9:
        assert res.n_cells == 0


def test_probabilistic_many_columns_without_the_value_tally() -> None:
    # 11 QIs: above the columns for which the greedy tallies the values of each mask
    # (its quick filter and bound), counts walk every mask
    rng = np.random.default_rng(11)
    df = pd.DataFrame({f"q{j}": rng.integers(0, 3, 30) for j in range(11)})
    df.iloc[::7, 2] = None
    res = local_suppression(df, list(df.columns), 3, missing="probabilistic")
    fk, _ = fk_bruteforce(rows_of(res.data, list(df.columns)), "probabilistic")
    assert min(fk) >= 3 - 1e-9
    assert 0 < res.n_cells < 30 * 11
