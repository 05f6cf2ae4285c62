"""SUDA and DIS-SUDA: a table worked by hand, a brute-force oracle, invariances, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import microsdc
from microsdc import (
    ColumnNotFoundError,
    DataValidationError,
    InvalidParameterError,
    suda,
)
from microsdc.risk.suda_core import dis_suda_scores, disclosure_index
from oracles.suda import msus_bruteforce, weight

RULES = ["wildcard", "category", "sdcmicro"]

# Six records, four keys. r0 and r1 are identical; the MSUs of the others, listed by hand:
#   r2 (1,1,2,2): {A,D} {B,D} {C,D} {A,B,C}
#   r3 (2,1,2,1): {A,B} {A,C} {A,D} {B,C,D}
#   r4 (2,2,1,2): all six pairs
#   r5 (1,2,2,1): {A,B} {B,C} {B,D} {A,C,D}
HAND = pd.DataFrame(
    {
        "A": [1, 1, 1, 2, 2, 1],
        "B": [1, 1, 1, 1, 2, 2],
        "C": [1, 1, 2, 2, 1, 2],
        "D": [1, 1, 2, 1, 2, 1],
    },
    index=[f"r{i}" for i in range(6)],
)
HAND_MSUS = {
    "r0": [],
    "r1": [],
    "r2": ["AD", "BD", "CD", "ABC"],
    "r3": ["AB", "AC", "AD", "BCD"],
    "r4": ["AB", "AC", "AD", "BC", "BD", "CD"],
    "r5": ["AB", "BC", "BD", "ACD"],
}
KEYS = ["A", "B", "C", "D"]


def _as_sets(res: microsdc.SudaResult) -> dict[object, set[str]]:
    return {k: {"".join(sorted(map(str, u))) for u in v} for k, v in res.msus.items()}


def test_hand_table_msus() -> None:
    res = suda(HAND, KEYS, msus_of=list(HAND.index))
    assert _as_sets(res) == {k: set(v) for k, v in HAND_MSUS.items()}
    # and each MSU lists the record's own values
    assert res.msus["r5"][0] == {"A": 1, "B": 2}
    assert res.msu_counts.loc["r3"].tolist() == [0, 3, 1, 0]
    assert res.scores["n_msu"].tolist() == [0, 0, 4, 4, 6, 4]


def test_hand_table_original_scores() -> None:
    # M = 4: an MSU of size 2 weighs (4-2)! = 2, of size 3 weighs 1!
    res = suda(HAND, KEYS)
    assert res.scores["suda"].tolist() == [0, 0, 7, 7, 12, 7]
    assert res.total_score == 33.0


def test_hand_table_ihsn_scores() -> None:
    # (2^(M-s) - 1) s! (M-s)! / M!: size 2 -> 3*2*2/24 = 0.5, size 3 -> 1*6*1/24 = 0.25
    res = suda(HAND, KEYS, original_scores=False)
    np.testing.assert_allclose(res.scores["suda"], [0, 0, 1.75, 1.75, 3.0, 1.75])
    assert res.original_scores is False


def test_hand_table_dis_and_dis_suda() -> None:
    res = suda(HAND, KEYS, dis_fraction=0.01)
    # U = 4 uniques, P = 2 records in the pair r0/r1
    assert res.n_sample_uniques == 4
    assert res.n_pairs == 2
    assert res.dis == pytest.approx(0.04 / (0.04 + 2 * 0.99))
    s = np.array([7.0, 7.0, 12.0, 7.0])
    q = 1 + (8 - 4) / 20
    adj = np.sum(s ** (-q))
    u, dis = 4, 0.04 / (0.04 + 2 * 0.99)
    expected = 1 / (1 + (u / dis - u) / (s**q * adj))
    np.testing.assert_allclose(res.scores["dis_suda"].to_numpy()[2:], expected, rtol=1e-12)
    assert res.scores["dis_suda"].iloc[:2].tolist() == [0.0, 0.0]


def test_hand_table_contributions() -> None:
    res = suda(HAND, KEYS)
    vc = res.variable_contributions
    # each size-2 MSU gives 2/2 = 1 to each variable, each size-3 MSU 1/3
    share = {"A": 8 + 2 / 3, "B": 8 + 2 / 3, "C": 7.0, "D": 8 + 2 / 3}
    for v, x in share.items():
        assert vc.loc[v, "contribution"] == pytest.approx(100 * x / 33)
    assert vc["contribution"].sum() == pytest.approx(100.0)
    # A is in 8 MSUs of size 2 (weight 2) and 2 of size 3 (weight 1)
    assert vc.loc["A", "in_msus"] == pytest.approx(100 * 18 / 33)
    assert vc["n_msus"].tolist() == [10, 10, 9, 10]
    lc = res.level_contributions
    assert lc["contribution"].sum() == pytest.approx(100.0)
    by_var = lc.groupby("variable")["contribution"].sum()
    np.testing.assert_allclose(by_var[KEYS].to_numpy(), vc["contribution"].to_numpy())
    # D=2: r2's AD, BD, CD and r4's AD, BD, CD -> 6 * 1
    d2 = lc[(lc["variable"] == "D") & (lc["level"] == 2)]
    assert d2["contribution"].item() == pytest.approx(100 * 6 / 33)


def test_summary_for_the_audit() -> None:
    res = suda(HAND, KEYS)
    summ = res.summary(top_levels=3)
    assert summ["records_with_msu"] == 4 and summ["n_records"] == 6
    assert summ["dis"] == pytest.approx(res.dis)
    counts = summ["dis_suda_bins"]["counts"]
    assert sum(counts) == 6 and counts[0] == 2
    assert len(counts) == len(summ["dis_suda_bins"]["upper_edges"])
    assert [v["variable"] for v in summ["variables"]][-1] == "C"
    assert summ["variables"][-1]["contribution"] == pytest.approx(100 * 7 / 33)
    assert len(summ["levels"]) == 3
    # A=2, B=2 and D=2 each get 6 of 33 (six size-2 MSUs), in the order of the keys
    assert [(lv["variable"], lv["level"]) for lv in summ["levels"]] == [
        ("A", "2"),
        ("B", "2"),
        ("D", "2"),
    ]
    assert summ["levels"][2]["contribution"] == pytest.approx(100 * 6 / 33)


def test_max_msu_limits_the_search_and_the_weights() -> None:
    res = suda(HAND, KEYS, max_msu=2)
    # sizes above 2 are not searched; M = 2 gives size-2 MSUs the weight 0! = 1
    assert list(res.msu_counts.columns) == [1, 2]
    assert res.scores["suda"].tolist() == [0, 0, 3, 3, 6, 3]
    assert res.max_msu == 2
    # a limit at or above the number of keys is no limit
    pd.testing.assert_frame_equal(suda(HAND, KEYS, max_msu=9).scores, suda(HAND, KEYS).scores)


def test_disclosure_index_formula() -> None:
    assert disclosure_index(10, 20, 0.1) == pytest.approx(1.0 / (1.0 + 18.0))
    assert disclosure_index(0, 0, 0.1) == 0.0
    assert dis_suda_scores(np.array([0.0, 2.0]), 0, 4, 0.1, 3).tolist() == [0.0, 0.0]
    # no pairs: DIS = 1 and every record with a score gets DIS-SUDA 1
    assert dis_suda_scores(np.array([0.0, 2.0, 5.0]), 2, 0, 0.1, 3).tolist() == [0.0, 1.0, 1.0]


# --- missing values ---------------------------------------------------------------------------

MISS = pd.DataFrame(
    {
        "a": ["x", "x", "y", "y"],
        "b": ["p", None, "p", "q"],
    }
)


def test_wildcard_blank_never_makes_more_unique() -> None:
    # record 1 (x, ?) matches record 0 on b: record 0 has no MSU under wildcard
    res = suda(MISS, ["a", "b"], missing="wildcard", msus_of=[0, 1, 2, 3])
    assert res.msus[0] == []
    assert res.msus[1] == []
    # record 1's blank also matches q, so q alone is not unique to record 3
    assert res.msus[3] == [{"a": "y", "b": "q"}]
    assert res.msus[2] == [{"a": "y", "b": "p"}]


def test_sdcmicro_rule_missing_matches_nothing() -> None:
    res = suda(MISS, ["a", "b"], missing="sdcmicro", msus_of=[0, 1])
    # record 1's blank does not match record 0's p, so {x, p} is unique to record 0
    assert res.msus[0] == [{"a": "x", "b": "p"}]
    # record 1's own blank is never an item, and x alone is shared: no MSU
    assert res.msus[1] == []


def test_category_rule_missing_is_a_value() -> None:
    res = suda(MISS, ["a", "b"], missing="category", msus_of=[1])
    assert len(res.msus[1]) == 1 and set(res.msus[1][0]) == {"b"}
    assert pd.isna(res.msus[1][0]["b"])
    lc = res.level_contributions
    assert lc["level"].isna().sum() == 1


def test_missing_value_codes() -> None:
    df = MISS.astype(object).fillna("-999")
    a = suda(df, ["a", "b"], missing_values=[-999], missing="sdcmicro").scores
    b = suda(MISS, ["a", "b"], missing="sdcmicro").scores
    pd.testing.assert_frame_equal(a, b)


# --- brute-force oracle -----------------------------------------------------------------------

values = st.sampled_from([0, 1, 2, None])


@st.composite
def frames(draw: st.DrawFn) -> pd.DataFrame:
    m = draw(st.integers(1, 4))
    n = draw(st.integers(1, 12))
    cols = {f"k{j}": draw(st.lists(values, min_size=n, max_size=n)) for j in range(m)}
    return pd.DataFrame(cols, dtype=object)


@pytest.mark.parametrize("rule", RULES)
@given(df=frames(), max_size=st.one_of(st.none(), st.integers(1, 3)))
def test_equals_bruteforce(rule: str, df: pd.DataFrame, max_size: int | None) -> None:
    qis = list(df.columns)
    res = suda(df, qis, missing=rule, max_msu=max_size, msus_of=list(df.index))
    expected = msus_bruteforce(df, qis, rule, max_size)
    got = [{frozenset(u) for u in res.msus[i]} for i in df.index]
    assert got == expected
    big_m = len(qis) if max_size is None else min(max_size, len(qis))
    for original in (True, False):
        s = suda(df, qis, missing=rule, max_msu=max_size, original_scores=original)
        want = [sum(weight(len(u), big_m, original) for u in e) for e in expected]
        np.testing.assert_allclose(s.scores["suda"], want, rtol=1e-12, atol=1e-12)


@given(df=frames(), seed=st.integers(0, 2**16))
def test_row_and_column_order_do_not_matter(df: pd.DataFrame, seed: int) -> None:
    rng = np.random.default_rng(seed)
    qis = list(df.columns)
    base = suda(df, qis)
    shuffled = df.iloc[rng.permutation(len(df)), rng.permutation(len(qis))]
    other = suda(shuffled, list(shuffled.columns))
    pd.testing.assert_frame_equal(other.scores.loc[df.index], base.scores)
    pd.testing.assert_frame_equal(
        other.variable_contributions.loc[qis], base.variable_contributions
    )
    assert other.dis == base.dis


def test_larger_frame_equals_bruteforce() -> None:
    rng = np.random.default_rng(7)
    n, m = 60, 5
    df = pd.DataFrame({f"k{j}": rng.integers(0, 3, n).astype(object) for j in range(m)})
    df = df.mask(rng.random((n, m)) < 0.1)
    for rule in RULES:
        res = suda(df, list(df.columns), missing=rule, msus_of=list(df.index))
        expected = msus_bruteforce(df, list(df.columns), rule)
        assert [{frozenset(u) for u in res.msus[i]} for i in df.index] == expected


@pytest.mark.parametrize("rule", RULES)
def test_two_threads_find_the_same_msus(rule: str) -> None:
    rng = np.random.default_rng(11)
    n, m = 4000, 7
    df = pd.DataFrame({f"k{j}": rng.integers(0, 3 + j, n) for j in range(m)})
    df = df.mask(rng.random((n, m)) < 0.05)
    one = suda(df, list(df.columns), missing=rule)
    two = suda(df, list(df.columns), missing=rule, threads=2)
    assert one.scores["n_msu"].sum() > 1000
    pd.testing.assert_frame_equal(one.scores, two.scores)
    pd.testing.assert_frame_equal(one.msu_counts, two.msu_counts)
    pd.testing.assert_frame_equal(one.level_contributions, two.level_contributions)
    labels = list(one.scores.index[one.scores["n_msu"] > 0][:50])
    assert one.list_msus(labels) == two.list_msus(labels)


# --- strata, shapes, input --------------------------------------------------------------------


def test_strata_equal_separate_runs() -> None:
    rng = np.random.default_rng(3)
    n = 80
    df = pd.DataFrame(
        {
            "region": rng.choice(["n", "s"], n),
            "a": rng.integers(0, 3, n),
            "b": rng.integers(0, 4, n),
            "c": rng.integers(0, 2, n),
        }
    )
    res = suda(df, ["a", "b", "c"], strata="region")
    for region, part in df.groupby("region"):
        alone = suda(part, ["a", "b", "c"])
        pd.testing.assert_frame_equal(res.scores.loc[part.index], alone.scores)
        assert res.dis[region] == pytest.approx(alone.dis)
    assert list(res.dis.index) == ["n", "s"]


def test_sampling_fraction_per_stratum() -> None:
    rng = np.random.default_rng(5)
    n = 60
    df = pd.DataFrame(
        {
            "region": rng.choice(["n", "s"], n),
            "a": rng.integers(0, 3, n),
            "b": rng.integers(0, 3, n),
        }
    )
    res = suda(df, ["a", "b"], strata="region", dis_fraction={"n": 0.1, "s": 0.02})
    for region, f in (("n", 0.1), ("s", 0.02)):
        part = df[df["region"] == region]
        alone = suda(part, ["a", "b"], dis_fraction=f)
        assert res.dis[region] == pytest.approx(alone.dis)
        pd.testing.assert_frame_equal(res.scores.loc[part.index], alone.scores)
    with pytest.raises(InvalidParameterError, match="no fraction for the stratum 's'"):
        suda(df, ["a", "b"], strata="region", dis_fraction={"n": 0.1})
    with pytest.raises(InvalidParameterError, match="no strata are given"):
        suda(df, ["a", "b"], dis_fraction={"n": 0.1})
    with pytest.raises(InvalidParameterError) as info:
        suda(df, ["a", "b"], strata="region", dis_fraction={"n": 0.1, "s": 1.5})
    assert info.value.param == "dis_fraction"


def test_two_strata_columns() -> None:
    df = HAND.assign(r1=["a", "a", "a", "b", "b", "b"], r2=[1, 1, 2, 2, 2, 2])
    res = suda(df, KEYS, strata=["r1", "r2"], msus_of=["r5"])
    assert res.dis.index.names == ["r1", "r2"]
    assert list(res.dis.index) == [("a", 1), ("a", 2), ("b", 2)]
    # r3, r4, r5 form one stratum: each is unique on any single key that differs
    alone = suda(df.loc[["r3", "r4", "r5"]], KEYS)
    pd.testing.assert_frame_equal(res.scores.loc[["r3", "r4", "r5"]], alone.scores)
    # r0 and r1 share their stratum and key: no MSU; r2 is alone in its stratum
    assert res.scores["n_msu"].iloc[:2].tolist() == [0, 0]


def test_one_and_two_keys_need_no_dummy_columns() -> None:
    df = pd.DataFrame({"a": [1, 1, 2, 3], "b": [1, 2, 1, 1]})
    one = suda(df, ["a"])
    assert one.scores["suda"].tolist() == [0.0, 0.0, 1.0, 1.0]  # (1-1)! = 1
    two = suda(df, ["a", "b"], msus_of=[0, 1])
    assert two.msus[1] == [{"b": 2}]
    assert two.msus[0] == [{"a": 1, "b": 1}]


def test_input_frame_unchanged_and_empty_frame() -> None:
    df = MISS.copy()
    suda(df, ["a", "b"], missing="category")
    pd.testing.assert_frame_equal(df, MISS)
    empty = suda(MISS.iloc[:0], ["a", "b"])
    assert len(empty.scores) == 0 and empty.total_score == 0.0
    assert empty.variable_contributions["contribution"].tolist() == [0.0, 0.0]


def test_duplicate_rows_have_no_msu() -> None:
    df = pd.DataFrame({"a": [1, 1, 1, 2], "b": [5, 5, 5, 6]})
    res = suda(df, ["a", "b"])
    assert res.scores["n_msu"].tolist() == [0, 0, 0, 2]
    assert res.n_sample_uniques == 1 and res.n_pairs == 0


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize("missing", ["probabilistic", "conservative", 0.5, "blank"])
def test_unknown_missing_rule(missing: object) -> None:
    with pytest.raises(InvalidParameterError, match="missing") as info:
        suda(HAND, KEYS, missing=missing)  # type: ignore[arg-type]
    assert info.value.param == "missing"


def test_strata_with_missing_values() -> None:
    df = HAND.assign(region=["a", None, "a", "b", "b", "b"])
    with pytest.raises(DataValidationError, match=r"'region'.*1 missing"):
        suda(df, KEYS, strata="region")


def test_unknown_columns_and_labels() -> None:
    with pytest.raises(ColumnNotFoundError):
        suda(HAND, ["A", "Z"])
    with pytest.raises(InvalidParameterError, match="'r9'") as info:
        suda(HAND, KEYS, msus_of=["r9"])
    assert info.value.param == "msus_of"
    with pytest.raises(InvalidParameterError, match="more than once"):
        suda(HAND.set_axis(["x"] * 6), KEYS, msus_of=["x"])
    with pytest.raises(InvalidParameterError) as info:
        suda(HAND, KEYS, dis_fraction=0.0)
    assert info.value.param == "dis_fraction"


def test_tuple_column_names_and_an_array_of_labels() -> None:
    """Key columns named by tuples (MultiIndex columns) and ``msus_of`` as a numpy array."""
    df = pd.DataFrame({("q", 0): [1, 1, 2, 2, 3], ("q", 1): [1, 2, 1, 1, 3]})
    res = suda(df, list(df.columns), msus_of=np.array([0, 4]))
    assert list(res.variable_contributions.index) == [("q", 0), ("q", 1)]
    assert res.variable_contributions["n_msus"].tolist() == [2, 3]
    assert res.msus == {0: [{("q", 0): 1, ("q", 1): 1}], 4: [{("q", 0): 3}, {("q", 1): 3}]}
    # r1 is unique on q1 = 2 alone (weight 1! = 1); r0 on both (0! = 1); r4 twice on one
    assert res.scores["suda"].tolist() == [1.0, 1.0, 0.0, 0.0, 2.0]


def test_polars_and_pyarrow_frames_are_searched_and_a_lazy_frame_refused() -> None:
    pl = pytest.importorskip("polars")
    df = pd.DataFrame({"a": [1, 2, 2, 3, 3], "b": ["x", "x", "y", "y", "y"]})
    expected = suda(df, ["a", "b"], msus_of=[0, 1])
    eager = pl.from_pandas(df)
    for frame in (eager, eager.to_arrow()):
        res = suda(frame, ["a", "b"], msus_of=[0, 1])
        pd.testing.assert_frame_equal(res.scores, expected.scores)
        assert res.msus == expected.msus == {0: [{"a": 1}], 1: [{"a": 2, "b": "x"}]}
    with pytest.raises(InvalidParameterError, match=r"needs the rows in memory.*\.collect\(\)"):
        suda(eager.lazy(), ["a", "b"])
