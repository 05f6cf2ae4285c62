"""local_suppression(dis_suda_threshold=...): special uniques as what "at risk" means."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import microsdc
from microsdc.exceptions import InvalidParameterError

QI = ["sex", "age", "region"]


def _frame(rows: list[tuple[object, ...]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=QI)


def _one_region_unique() -> pd.DataFrame:
    """Record 12 is the only one in region b; on sex and age it has three twins."""
    rows = [("m", 20, "a")] * 3 + [("f", 20, "a")] * 3 + [("m", 30, "a")] * 3
    rows += [("f", 30, "a")] * 3 + [("m", 20, "b")]
    return _frame(rows)


def _run(df: pd.DataFrame, k: int = 1, **kw: object) -> microsdc.SuppressionResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return microsdc.local_suppression(df, QI, k, **kw)


@pytest.mark.parametrize("importance", [None, ["region", "sex", "age"]])
def test_the_cell_of_the_only_msu_goes_whatever_the_importance(importance: object) -> None:
    df = _one_region_unique()
    # by hand: the one MSU of record 12 is {region = b} (size 1, weight (3 - 1)! = 2);
    # U = 1, P = 0, so DIS-SUDA = 1 for it and 0 for the others
    before = microsdc.suda(df, QI)
    assert before.scores["dis_suda"].tolist() == [0.0] * 12 + [1.0]
    res = _run(df, importance=importance, missing="wildcard", dis_suda_threshold=0.5)
    assert res.n_cells == 1
    assert res.cells_per_qi.to_dict() == {"sex": 0, "age": 0, "region": 1}
    assert pd.isna(res.data.loc[12, "region"])
    assert res.data.drop(index=12).equals(df.drop(index=12))
    assert res.details["dis_suda"] == {
        "threshold": 0.5,
        "missing_rule": "wildcard",
        "dis_fraction": 0.01,
        "max_before": 1.0,
        "max_after": 0.0,
        "n_above_before": 1,
        "n_above_after": 0,
        "rounds": 1,
        # k = 2 blanks the same one cell: a tie, the rounds' release stays; a cell of
        # rank r among 3 costs 1 + (r + 1) / 7 (region: least important by default,
        # most important in the list)
        "solution": "rounds",
        "cells_rounds": 1,
        "cost_rounds": 1 + (1 if importance is None else 3) / 7,
        "cells_k2": 1,
        "cost_k2": 1 + (1 if importance is None else 3) / 7,
    }


@pytest.mark.parametrize(
    ("importance", "blanked"),
    [(["sex", "region", "age"], "age"), (["age", "region", "sex"], "sex")],
)
def test_importance_breaks_the_tie_between_the_variables_of_one_msu(
    importance: list[str], blanked: str
) -> None:
    # record 12 = (f, 30, a): its one MSU is {sex = f, age = 30}; both variables carry
    # its whole score, so the least important of the two is blanked
    rows = [("m", 20, "a")] * 3 + [("f", 20, "a")] * 3 + [("m", 30, "a")] * 3
    df = _frame([*rows, ("f", 30, "a")])
    assert microsdc.suda(df, QI, msus_of=[9]).msus[9] == [{"sex": "f", "age": 30}]
    res = _run(df, importance=importance, missing="wildcard", dis_suda_threshold=0.5)
    assert res.n_cells == 1
    assert pd.isna(res.data.loc[9, blanked])


def test_under_category_a_lone_blank_is_still_a_special_unique() -> None:
    # blanking record 12's region leaves (m, 20, blank) alone: under the category rule
    # the blank is a value, so {region = blank} is an MSU; a second (m, 20, a) record
    # must give its region up too. Two cells, both of region.
    df = _one_region_unique()
    res = _run(df, missing="category", dis_suda_threshold=0.5)
    assert res.cells_per_qi.to_dict() == {"sex": 0, "age": 0, "region": 2}
    assert pd.isna(res.data.loc[12, "region"])
    after = microsdc.suda(res.data, QI, missing="category")
    assert after.scores["dis_suda"].max() == 0.0
    assert res.details["dis_suda"]["missing_rule"] == "category"
    assert res.details["dis_suda"]["n_above_after"] == 0


def test_k_and_the_threshold_hold_together() -> None:
    df = _one_region_unique()
    res = _run(df, k=3, missing="wildcard", dis_suda_threshold=0.5)
    assert res.n_at_risk_after == 0
    assert int(res.fk_after.min()) >= 3
    assert microsdc.suda(res.data, QI).scores["dis_suda"].max() <= 0.5


def test_nothing_above_the_threshold_blanks_nothing_more() -> None:
    df = _one_region_unique()
    plain = _run(df, k=2, missing="wildcard")
    res = _run(df, k=2, missing="wildcard", dis_suda_threshold=0.5)
    assert res.data.equals(plain.data)
    assert res.details["dis_suda"]["rounds"] == 0


def test_the_figures_are_reported() -> None:
    res = _run(_one_region_unique(), missing="wildcard", dis_suda_threshold=0.5)
    assert "records with DIS-SUDA above 0.5: 1 before, 0 after" in res.summary()
    assert res.to_dict()["dis_suda"]["n_above_after"] == 0
    assert _run(_one_region_unique(), missing="wildcard").to_dict()["dis_suda"] is None


@pytest.mark.parametrize("bad", [-0.1, 1, 1.0, 1.5, math.nan, math.inf, True, "0.1", [0.1]])
def test_a_bad_threshold_names_the_value_and_the_range(bad: object) -> None:
    with pytest.raises(InvalidParameterError) as err:
        microsdc.local_suppression(_one_region_unique(), QI, 1, dis_suda_threshold=bad)
    assert err.value.param == "dis_suda_threshold"
    assert "[0.0, 1.0)" in str(err.value)
    assert repr(bad) in str(err.value) or str(bad) in str(err.value)


def test_the_sampling_fraction_moves_the_scores_the_threshold_compares() -> None:
    # four special uniques: DIS-SUDA 0.017 and 0.033 with f = 0.01, 0.16 and 0.27 with
    # f = 0.1 (hand table of the suda tests); a threshold of 0.1 acts only at f = 0.1
    df = pd.DataFrame(
        {
            "A": [1, 1, 1, 2, 2, 1],
            "B": [1, 1, 1, 1, 2, 2],
            "C": [1, 1, 2, 2, 1, 2],
            "D": [1, 1, 2, 1, 2, 1],
        }
    )
    qi = list(df.columns)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low = microsdc.local_suppression(df, qi, 1, missing="wildcard", dis_suda_threshold=0.1)
        high = microsdc.local_suppression(
            df, qi, 1, missing="wildcard", dis_suda_threshold=0.1, dis_fraction=0.1
        )
    assert low.n_cells == 0 and low.details["dis_suda"]["max_before"] == pytest.approx(
        0.032864, abs=1e-6
    )
    assert high.details["dis_suda"]["dis_fraction"] == 0.1
    assert high.details["dis_suda"]["n_above_before"] == 4
    assert high.n_cells > 0
    after = microsdc.suda(high.data, qi, dis_fraction=0.1).scores["dis_suda"]
    assert after.max() <= 0.1


@pytest.mark.parametrize("bad", [0, 0.0, 1, -0.5, 1.5, math.nan, True, "0.1"])
def test_a_bad_sampling_fraction_names_the_value_and_the_range(bad: object) -> None:
    with pytest.raises(InvalidParameterError) as err:
        microsdc.local_suppression(
            _one_region_unique(), QI, 1, dis_suda_threshold=0.1, dis_fraction=bad
        )
    assert err.value.param == "dis_fraction"
    assert "(0.0, 1.0)" in str(err.value)


@pytest.mark.parametrize(
    "kw", [{"method": "random"}, {"subject_id": "sex"}], ids=["random", "subject_id"]
)
def test_refused_where_records_are_not_measured_one_by_one(kw: dict[str, object]) -> None:
    with pytest.raises(InvalidParameterError, match="dis_suda_threshold") as err:
        microsdc.local_suppression(_one_region_unique(), QI, 1, dis_suda_threshold=0.1, **kw)
    assert err.value.param == "dis_suda_threshold"


def test_refused_on_a_lazy_frame() -> None:
    pl = pytest.importorskip("polars")
    lazy = pl.from_pandas(_one_region_unique()).lazy()
    with pytest.raises(InvalidParameterError, match="lazy frame: special uniques") as err:
        microsdc.local_suppression(lazy, QI, 1, dis_suda_threshold=0.1)
    assert err.value.param == "dis_suda_threshold"


# --------------------------------------------------------------------------- property


@st.composite
def _frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(2, 30))
    m = draw(st.integers(1, 4))
    cols = {}
    for j in range(m):
        card = draw(st.integers(1, 4))
        values = draw(st.lists(st.integers(0, card - 1), min_size=n, max_size=n))
        holes = draw(st.lists(st.sampled_from([False] * 4 + [True]), min_size=n, max_size=n))
        cols[f"q{j}"] = pd.Series(
            [np.nan if h else float(v) for v, h in zip(values, holes, strict=True)]
        )
    return pd.DataFrame(cols)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    df=_frames(),
    policy=st.sampled_from(["wildcard", "category", "probabilistic"]),
    k=st.integers(1, 2),
    threshold=st.sampled_from([0.0, 1e-3, 0.01, 0.1, 0.5, 0.9]),
)
def test_no_released_record_is_above_the_threshold(
    df: pd.DataFrame, policy: str, k: int, threshold: float
) -> None:
    qi = list(df.columns)
    copy = df.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = microsdc.local_suppression(df, qi, k, missing=policy, dis_suda_threshold=threshold)
    pd.testing.assert_frame_equal(df, copy)  # the input is not changed
    rule = "category" if policy == "category" else "wildcard"
    after = microsdc.suda(res.data, qi, missing=rule).scores["dis_suda"]
    assert after.max() <= threshold
    assert res.details["dis_suda"]["n_above_after"] == 0
    assert res.details["dis_suda"]["max_after"] == pytest.approx(after.max())
    assert res.n_at_risk_after == 0
    # cells only go missing, and the count is right
    was = df.notna().to_numpy()
    now = res.data[qi].notna().to_numpy()
    assert not (now & ~was).any()
    known = np.where(now, res.data[qi].to_numpy(), 0) == np.where(now, df.to_numpy(), 0)
    assert known.all()
    assert res.n_cells == int((was & ~now).sum())
    before = microsdc.suda(df, qi, missing=rule)
    assert res.details["dis_suda"]["n_above_before"] == int(
        (before.scores["dis_suda"] > threshold).sum()
    )
    if policy == "wildcard" and k == 1:
        # the naive baseline: blank every known key cell of every record with a special
        # unique; only such records ever lose cells, one cell per round at most
        baseline = int(was[before.scores["suda"].to_numpy() > 0].sum())
        assert res.n_cells <= baseline
        lost = (was & ~now).any(axis=1)
        assert not (lost & (before.scores["suda"].to_numpy() == 0)).any()


def test_strata_are_measured_each_on_its_own() -> None:
    # the same file twice, once per region stratum "x" and "y": each copy has its own
    # special unique (row 12 and row 25), found and fixed within its stratum
    one = _one_region_unique()
    df = pd.concat([one.assign(zone="x"), one.assign(zone="y")], ignore_index=True)
    res = _run(df, missing="wildcard", strata="zone", dis_suda_threshold=0.5)
    assert res.n_cells == 2
    assert res.data["region"].isna().tolist() == ([False] * 12 + [True]) * 2
    after = microsdc.suda(res.data, QI, strata="zone").scores["dis_suda"]
    assert after.max() == 0.0
    # without strata the two region-b records are a pair: nothing is above 0.5
    assert _run(df, missing="wildcard", dis_suda_threshold=0.5).n_cells == 0


@pytest.mark.parametrize("frame", ["pandas", "polars", "polars_lazy", "duckdb"])
def test_a_sampling_fraction_without_a_threshold_is_refused(frame: str) -> None:
    # it used to be taken and change nothing: the fraction only sets the scores the
    # threshold compares
    df: object = _one_region_unique()
    if frame != "pandas":
        pl = pytest.importorskip("polars")
        df = pl.from_pandas(df)
        if frame == "polars_lazy":
            df = df.lazy()  # type: ignore[attr-defined]
        elif frame == "duckdb":
            duckdb = pytest.importorskip("duckdb")
            con = duckdb.connect()
            df = con.from_arrow(df.to_arrow())  # type: ignore[attr-defined]
    with pytest.raises(InvalidParameterError) as err:
        microsdc.local_suppression(df, QI, 2, dis_fraction=0.1)
    assert err.value.param == "dis_fraction"
    assert err.value.related == ("dis_suda_threshold",)
    message = str(err.value)
    assert "'dis_fraction'" in message and "is 0.1" in message
    assert "Give 'dis_suda_threshold' too, or leave 'dis_fraction' out." in message


def test_the_sampling_fraction_left_out_is_the_documented_one() -> None:
    from microsdc.suppression.params import DIS_FRACTION

    res = _run(_one_region_unique(), missing="wildcard", dis_suda_threshold=0.5)
    assert DIS_FRACTION.default == 0.01
    assert res.details["dis_suda"]["dis_fraction"] == DIS_FRACTION.default
    # the default alone is no longer a value to pass by hand without a threshold
    plain = _run(_one_region_unique(), k=2)
    assert "dis_suda" not in plain.details


# --------------------------------------------------------------------------- the k = 2 release


def _blanked(before: pd.DataFrame, after: pd.DataFrame, qi: list[str]) -> int:
    """Key cells known in ``before`` and missing in ``after``, counted on the frames."""
    return int((before[qi].notna().to_numpy() & after[qi].isna().to_numpy()).sum())


def _smallest_class(data: pd.DataFrame, qi: list[str]) -> int:
    """The fewest records sharing one released key tuple, a blank equal to a blank."""
    return int(data.groupby(qi, dropna=False).size().min())


def _four_uniques() -> pd.DataFrame:
    return pd.DataFrame({"q0": [2, 1, 1, 0], "q1": [0, 1, 1, 0], "q2": [1, 0, 1, 0]})


def test_a_k2_release_cheaper_than_the_rounds_is_released() -> None:
    # by hand: the four records are distinct, so each is unique on the whole key and has
    # DIS-SUDA 1 (U = 4, P = 0). One round blanks one cell of each: 4 cells. k = 2 under
    # the wildcard count needs 3: records 1 and 2 differ only in q2 (one blank makes them
    # match), records 0 and 3 in q0 and q2 (two blanks); any other pairing differs in two
    # variables twice. With every record compatible with another, none is a sample unique
    # on any set of its known values, so every DIS-SUDA score is 0.
    df = _four_uniques()
    qi = list(df.columns)
    res = microsdc.local_suppression(df, qi, 1, missing="wildcard", dis_suda_threshold=0.1)
    plain = microsdc.local_suppression(df, qi, 2, missing="wildcard")
    figures = res.details["dis_suda"]
    assert (figures["solution"], figures["rounds"]) == ("k2", 1)
    assert (figures["cells_rounds"], figures["cells_k2"]) == (4, 3)
    assert res.n_cells == 3 == _blanked(df, res.data, qi)
    assert res.data.equals(plain.data)
    assert int(res.data.loc[[1, 2], "q2"].isna().sum()) == 1
    assert int(res.data.loc[[0, 3]].isna().to_numpy().sum()) == 2
    assert (figures["max_after"], figures["n_above_after"]) == (0.0, 0)
    assert microsdc.suda(res.data, qi).scores["dis_suda"].max() == 0.0
    assert res.n_at_risk_after == 0 and res.k == 1
    assert "released: the k = 2 solution (3 cells; the rounds blanked 4)" in res.summary()


def test_on_a_tie_the_rounds_release_stays() -> None:
    # record 12 alone in region b: under "category" the rounds blank its region and that
    # of one (m, 20, a) record, which then pair as (m, 20, blank): 2 cells. k = 2 needs
    # two cells as well (record 12 differs from every other record, so it and a partner
    # each lose at least one value), so the two cost the same: the rounds' release stays
    df = _one_region_unique()
    res = _run(df, missing="category", dis_suda_threshold=0.5)
    plain = _run(df, k=2, missing="category")
    figures = res.details["dis_suda"]
    assert plain.n_cells == 2 == res.n_cells
    assert figures["cells_rounds"] == figures["cells_k2"] == 2
    assert figures["cost_rounds"] == figures["cost_k2"]
    assert figures["solution"] == "rounds"


def test_a_cheaper_rounds_release_stays_and_both_figures_are_given() -> None:
    # by hand, under "category": the four records are distinct, each has DIS-SUDA 1; one
    # round blanks one cell of each (4 cells) and leaves none above 0.5. k = 2 needs
    # pairs of identical tuples: (0,0,1)+(0,0,0) lose q2 (2 cells) and (2,1,1)+(2,0,0)
    # lose q1 and q2 (4 cells), or (0,0,1)+(2,1,1) lose q0, q1 (4) and (2,0,0)+(0,0,0)
    # q0 (2); the third pairing costs 4 + 6: at least 6 cells, more than the rounds'
    df = pd.DataFrame({"q0": [0, 2, 2, 0], "q1": [0, 1, 0, 0], "q2": [1, 1, 0, 0]})
    qi = list(df.columns)
    res = microsdc.local_suppression(df, qi, 1, dis_suda_threshold=0.5)
    figures = res.details["dis_suda"]
    assert (figures["solution"], figures["rounds"]) == ("rounds", 1)
    assert (figures["cells_rounds"], figures["cells_k2"]) == (4, 6)
    assert res.n_cells == 4 == _blanked(df, res.data, qi)
    assert res.cells_per_row.tolist() == [1, 1, 1, 1]
    assert figures["cost_rounds"] < figures["cost_k2"]
    assert microsdc.suda(res.data, qi, missing="category").scores["dis_suda"].max() <= 0.5


def test_weights_decide_between_the_two_releases() -> None:
    df = pd.DataFrame({"q0": [0, 2, 2, 0], "q1": [0, 1, 0, 0], "q2": [1, 1, 0, 0]})
    qi = list(df.columns)
    weights = {"q0": 1.0, "q1": 2.0, "q2": 5.0}
    res = microsdc.local_suppression(df, qi, 1, importance=weights, dis_suda_threshold=0.5)
    figures = res.details["dis_suda"]
    cost = sum(weights[c] * int(n) for c, n in res.cells_per_qi.items())
    assert figures[f"cost_{figures['solution']}"] == pytest.approx(cost)
    assert cost <= min(figures["cost_rounds"], figures["cost_k2"]) + 1e-12
    plain = microsdc.local_suppression(df, qi, 2, importance=weights)
    assert figures["cost_k2"] == pytest.approx(
        sum(weights[c] * int(n) for c, n in plain.cells_per_qi.items())
    )


def test_no_k2_release_where_it_cannot_cost_less_or_is_asked_for() -> None:
    # the rounds blank nothing (no score above 0.1 at f = 0.01): nothing costs less
    df = pd.DataFrame(
        {
            "A": [1, 1, 1, 2, 2, 1],
            "B": [1, 1, 1, 1, 2, 2],
            "C": [1, 1, 2, 2, 1, 2],
            "D": [1, 1, 2, 1, 2, 1],
        }
    )
    res = microsdc.local_suppression(df, list(df.columns), 1, dis_suda_threshold=0.1)
    assert res.n_cells == 0
    assert res.details["dis_suda"]["cells_k2"] is None
    assert res.details["dis_suda"]["cost_k2"] is None
    # k = 2 asked for already: the call's own release is the k = 2 one
    below = _run(_one_region_unique(), missing="category", k=2, dis_suda_threshold=0.5)
    assert below.details["dis_suda"]["cells_k2"] is None
    assert below.details["dis_suda"]["solution"] == "rounds"


def test_testdata_k1_with_a_threshold_blanks_no_more_than_k2(shared_data: Path) -> None:
    td = pd.read_csv(shared_data / "testdata.csv")
    keys = "urbrur,roof,walls,water,electcon,relat,sex".split(",")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = microsdc.local_suppression(td, keys, k=1, dis_suda_threshold=0.05)
        plain = microsdc.local_suppression(td, keys, k=2)
    figures = res.details["dis_suda"]
    # the rounds alone blanked 261 cells; the k = 2 release 198, counted on the frame
    assert (figures["cells_rounds"], figures["cells_k2"], figures["solution"]) == (261, 198, "k2")
    assert res.n_cells == 198 == _blanked(td, res.data, keys) == plain.n_cells
    assert res.data.equals(plain.data)
    assert _smallest_class(res.data, keys) >= 2  # no sample unique at all
    assert microsdc.suda(res.data, keys, missing="category").scores["dis_suda"].max() == 0.0


def test_adult_k1_with_a_threshold_blanks_no_more_than_k2(shared_data: Path) -> None:
    adult = pd.read_csv(shared_data / "adult_missing.csv")
    adult["age"] = (adult["age"] // 10) * 10
    keys = ["age", "workclass", "marital-status", "race", "sex", "native-country"]
    adult = adult[keys]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = microsdc.local_suppression(adult, keys, k=1, dis_suda_threshold=0.05)
        plain = microsdc.local_suppression(adult, keys, k=2)
    figures = res.details["dis_suda"]
    assert (figures["cells_rounds"], figures["cells_k2"], figures["solution"]) == (
        1647,
        1490,
        "k2",
    )
    assert res.n_cells == 1490 == _blanked(adult, res.data, keys) == plain.n_cells
    assert res.data.equals(plain.data)
    assert _smallest_class(res.data, keys) >= 2
    assert microsdc.suda(res.data, keys, missing="category").scores["dis_suda"].max() == 0.0


def test_a_lone_record_stratum_under_category_names_the_threshold_and_the_stratum() -> None:
    df = pd.DataFrame({"a": [1, 1, 2, 1, 2], "b": [1, 2, 2, 1, 1], "s": list("xxxxy")})
    with pytest.raises(InvalidParameterError) as err:
        microsdc.local_suppression(df, ["a", "b"], 1, strata="s", dis_suda_threshold=0.1)
    assert err.value.param == "dis_suda_threshold"
    assert err.value.related == ("strata",)
    assert "the stratum 'y' holds a single record" in str(err.value)
    assert "DIS-SUDA score is 1 whatever is blanked" in str(err.value)
    # a blank matches any value under the wildcard count: the record, blanked, is no
    # special unique; k = 2 is out of that stratum's reach, so only the rounds run
    wild = microsdc.local_suppression(
        df, ["a", "b"], 1, strata="s", missing="wildcard", dis_suda_threshold=0.1
    )
    assert wild.details["dis_suda"]["cells_k2"] is None
    assert wild.details["dis_suda"]["n_above_after"] == 0


@pytest.mark.parametrize("policy", ["category", "wildcard", "probabilistic", 0.5, 0.0])
def test_every_policy_measures_with_a_rule_under_which_k2_leaves_no_msu(policy: object) -> None:
    from microsdc._core.policy import parse_policy
    from microsdc.suppression.dis_suda import suda_rule

    # the threshold never measures with suda's "sdcmicro" rule, under which a blank
    # matches nothing: there, (x, u) is a special unique although its wildcard fk is 3
    assert suda_rule(parse_policy(policy, "t")) in ("category", "wildcard")
    df = pd.DataFrame({"a": ["x", None, "x"], "b": ["u", "u", None]})
    assert microsdc.suda(df, ["a", "b"], missing="sdcmicro").scores["dis_suda"].iloc[0] == 1.0
    assert microsdc.suda(df, ["a", "b"], missing="wildcard").scores["dis_suda"].max() == 0.0


def test_k_per_subset_keeps_its_k_in_the_k2_release() -> None:
    from microsdc.suppression.dis_suda import k2_jobs

    assert k2_jobs([(3, 1)], 3) == [(3, 2)]
    assert k2_jobs([(2, 3), (3, 1)], 3) == [(2, 3), (3, 2)]
    assert k2_jobs([(1, 1), (2, 2)], 3) == [(2, 2), (3, 2)]
    assert k2_jobs([(3, 4)], 3) == [(3, 4)]
    df = _four_uniques()
    qi = list(df.columns)
    res = microsdc.local_suppression(
        df, qi, [2, 1], combs=[1, 3], missing="wildcard", dis_suda_threshold=0.1
    )
    ref = microsdc.local_suppression(df, qi, [2, 2], combs=[1, 3], missing="wildcard")
    assert res.n_cells <= ref.n_cells
    assert res.n_at_risk_after == 0
    assert microsdc.suda(res.data, qi).scores["dis_suda"].max() <= 0.1


def test_the_exact_method_solves_the_k2_release_too() -> None:
    # the same four records: the solver proves 3 cells optimal for k = 2 (the pairing
    # by hand above); its figures are those of the release taken
    df = _four_uniques()
    qi = list(df.columns)
    res = microsdc.local_suppression(
        df, qi, 1, missing="wildcard", method="exact", dis_suda_threshold=0.1
    )
    assert res.n_cells == 3
    assert res.details["dis_suda"]["solution"] == "k2"
    assert res.details["solution"] == "solver" and res.details["optimal"]
    assert microsdc.suda(res.data, qi).scores["dis_suda"].max() == 0.0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    df=_frames(),
    policy=st.sampled_from(["wildcard", "category", "probabilistic"]),
    k_small=st.integers(1, 3),
    threshold=st.sampled_from([0.0, 0.1, 0.5]),
)
def test_with_combs_never_costs_more_than_k2_with_the_same_subsets(
    df: pd.DataFrame, policy: str, k_small: int, threshold: float
) -> None:
    from hypothesis import assume

    qi = list(df.columns)
    assume(len(qi) >= 2 and len(df) >= k_small)
    m = len(qi)
    rule = "category" if policy == "category" else "wildcard"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = microsdc.local_suppression(
            df, qi, [k_small, 1], combs=[1, m], missing=policy, dis_suda_threshold=threshold
        )
        # the k = 2 release: single variables keep their k when it is 2 or more
        ref = (
            microsdc.local_suppression(df, qi, [k_small, 2], combs=[1, m], missing=policy)
            if k_small >= 2
            else microsdc.local_suppression(df, qi, 2, missing=policy)
        )
    assert res.n_cells <= ref.n_cells
    assert res.n_at_risk_after == 0
    after = microsdc.suda(res.data, qi, missing=rule).scores["dis_suda"]
    assert after.max() <= threshold


@st.composite
def _case(draw: st.DrawFn) -> tuple[pd.DataFrame, list[str], dict[str, object]]:
    df = draw(_frames())
    qi = list(df.columns)
    options: dict[str, object] = {}
    if draw(st.booleans()) and len(df) >= 4:  # two strata of at least two records
        df = df.assign(zone=["x", "y"] * (len(df) // 2) + ["x"] * (len(df) % 2))
        options["strata"] = "zone"
    if draw(st.booleans()):
        options["importance"] = {c: draw(st.sampled_from([1.0, 2.0, 5.0])) for c in qi}
    return df, qi, options


def _cost(res: microsdc.SuppressionResult, options: dict[str, object]) -> float:
    weights = options.get("importance")
    if not isinstance(weights, dict):
        return float(res.n_cells)
    return sum(weights[c] * int(n) for c, n in res.cells_per_qi.items())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=_case(),
    policy=st.sampled_from(["wildcard", "category", "probabilistic", 0.5, 0.0]),
    threshold=st.sampled_from([0.0, 0.01, 0.1, 0.5]),
)
def test_k1_with_a_threshold_never_costs_more_than_k2(
    case: tuple[pd.DataFrame, list[str], dict[str, object]], policy: object, threshold: float
) -> None:
    df, qi, options = case
    rule = "category" if policy == "category" else "wildcard"
    strata = options.get("strata")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = microsdc.local_suppression(
            df, qi, 1, missing=policy, dis_suda_threshold=threshold, **options
        )
        plain = microsdc.local_suppression(df, qi, 2, missing=policy, **options)
    # the k = 2 release has no special unique under the rule the threshold measures with
    two = microsdc.suda(plain.data, qi, missing=rule, strata=strata).scores["dis_suda"]
    assert two.max() == 0.0
    after = microsdc.suda(res.data, qi, missing=rule, strata=strata).scores["dis_suda"]
    assert after.max() <= threshold
    assert res.n_cells == _blanked(df, res.data, qi)
    if "importance" in options:
        assert _cost(res, options) <= _cost(plain, options) + 1e-9
    else:
        assert res.n_cells <= plain.n_cells  # a ranking: fewer cells first
    figures = res.details["dis_suda"]
    if figures["solution"] == "k2":
        assert res.data.equals(plain.data)
        # taken only when cheaper: under a ranking fewer cells, or as many with a lower
        # weighted total; under a dict importance a lower weighted total
        assert figures["cells_k2"] == plain.n_cells
        assert figures["cost_k2"] < figures["cost_rounds"]
        assert figures["cells_k2"] <= figures["cells_rounds"] or "importance" in options


def test_the_command_line_says_when_the_k2_release_is_taken(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from microsdc.cli import cli as main

    src = tmp_path / "in.csv"
    _four_uniques().to_csv(src, index=False)
    out = tmp_path / "out.csv"
    args = ["suppress", str(src), "--qi", "q0,q1,q2", "-k", "1", "--missing", "wildcard"]
    result = CliRunner().invoke(main, [*args, "--dis-suda-threshold", "0.1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "released: the k = 2 solution, 3 cells against 4 for the rounds" in result.output
    assert int(pd.read_csv(out).isna().to_numpy().sum()) == 3
