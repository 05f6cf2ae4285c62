"""k-anonymity with missing values: worked examples, oracle cross-checks, edge cases, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from microsdc import (
    ColumnNotFoundError,
    DataValidationError,
    DisclosureRiskWarning,
    HighCardinalityWarning,
    InvalidParameterError,
    check_k_anonymity,
    safe_combinations,
    sample_frequencies,
)
from microsdc._core.policy import parse_policy
from microsdc.encode import encode_qis
from oracles.kanon import fk_bruteforce, rows_of, safe_combinations_bruteforce

POLICIES = ["wildcard", "category", "conservative", "probabilistic", 0.0, 0.3, 1.0]

SPEC_EXAMPLE = pd.DataFrame({"A": [0, 0, 1, 1, None, 0, None], "B": [1, 1, 2, 1, 2, None, None]})


# --- worked examples of the spec (section 1) -------------------------------------------------


def test_spec_example_wildcard() -> None:
    out = sample_frequencies(SPEC_EXAMPLE, ["A", "B"])
    assert out["fk"].tolist() == [4, 4, 3, 2, 4, 5, 7]
    assert out["fk"].dtype == np.int64
    assert list(out.columns) == ["fk"]


def test_spec_example_weighted() -> None:
    df = pd.DataFrame({"A": [0, 0, 1, None], "B": [1, 1, 2, 2], "w": [10, 20, 30, 40]})
    out = sample_frequencies(df, ["A", "B"], weights="w")
    assert out["fk"].tolist() == [2, 2, 2, 2]
    assert out["Fk"].tolist() == [30.0, 30.0, 70.0, 70.0]


def test_spec_example_other_policies_by_hand() -> None:
    # category: missing is its own value; (0,1) twice, everything else once
    assert sample_frequencies(SPEC_EXAMPLE, ["A", "B"], missing="category")["fk"].tolist() == [
        2,
        2,
        1,
        1,
        1,
        1,
        1,
    ]
    # conservative: (NA,2) -> min((0,2):3, (1,2):3) = 3; (0,NA) -> min((0,1):4, (0,2):3) = 3;
    # (NA,NA) -> (1,1) is compatible with itself and (NA,NA) only = 2
    assert sample_frequencies(SPEC_EXAMPLE, ["A", "B"], missing="conservative")["fk"].tolist() == [
        4,
        4,
        3,
        2,
        3,
        3,
        2,
    ]
    # alpha = 0.5 (sdcMicro freqCalc): a record with a missing value adds 0.5 unless it
    # is of r's exact pattern; complete records and r's own pattern add 1.
    # (0,1): 2 complete + 0.5 (0,NA) + 0.5 (NA,NA) = 3; (NA,2): (1,2) + itself + 0.5 (0,NA)
    # + 0.5 (NA,NA) = 3; (0,NA): 2 x (0,1) + itself + 0.5 (NA,2) + 0.5 (NA,NA) = 4;
    # (NA,NA): 4 complete + itself + 0.5 x 2 = 6
    out = sample_frequencies(SPEC_EXAMPLE, ["A", "B"], missing=0.5)["fk"].tolist()
    assert out == [3.0, 3.0, 2.0, 1.5, 3.0, 4.0, 6.0]


def test_alpha_zero_keeps_own_pattern_and_complete_matches() -> None:
    # with alpha = 0 a record with a missing value counts its own pattern and every
    # compatible complete record: never at risk for k = 1
    df = pd.DataFrame({"A": [0, None, None, 1], "B": [None, 1, 1, 1]})
    out = sample_frequencies(df, ["A", "B"], missing=0.0)["fk"].tolist()
    # (0,NA): itself only (the (NA,1) records have a missing value) = 1
    # (NA,1) x2: own pattern 2 + complete (1,1) = 3; (1,1): itself = 1
    assert out == [1.0, 3.0, 3.0, 1.0]
    assert min(out) >= 1.0


def test_probabilistic_by_hand() -> None:
    # shares: A: 0 -> 3/5, 1 -> 2/5; B: 1 -> 3/5, 2 -> 2/5. A blank of another record
    # matches r's value with its share; r's own blanks match anything with weight 1.
    out = sample_frequencies(SPEC_EXAMPLE, ["A", "B"], missing="probabilistic")["fk"]
    # (0,1): 2 x (0,1) + (0,NA) 0.6 + (NA,NA) 0.6 x 0.6 = 2.96
    # (1,2): itself + (NA,2) 0.4 + (NA,NA) 0.4 x 0.4 = 1.56
    # (NA,NA): every record, weight 1 = 7
    np.testing.assert_allclose(out.to_numpy(), [2.96, 2.96, 1.56, 1.24, 2.8, 4.2, 7.0])
    weighted = sample_frequencies(
        SPEC_EXAMPLE, ["A", "B"], missing="probabilistic", weights=[1, 1, 1, 1, 1, 1, 10]
    )
    # (1,1): itself + (NA,NA) weighing 10 x 0.4 x 0.6
    assert weighted["Fk"].iloc[3] == pytest.approx(1 + 10 * 0.24)


def test_probabilistic_blank_records_add_only_their_shares() -> None:
    # two entirely blank records add 2 x p(A=x) p(B=u) to a complete record, never a match
    df = pd.DataFrame({"A": ["x", "x", "y", None, None], "B": ["u", "v", "v", None, None]})
    out = sample_frequencies(df, ["A", "B"], missing="probabilistic")["fk"].tolist()
    assert out[0] == pytest.approx(1 + 2 * (2 / 3) * (1 / 3))
    assert out[3] == 5.0


def test_all_missing_row_counts_for_every_row() -> None:
    df = pd.DataFrame({"a": ["x", "y", None], "b": ["u", "v", None]})
    assert sample_frequencies(df, ["a", "b"])["fk"].tolist() == [2, 2, 3]


def test_check_k_anonymity_summary_and_count() -> None:
    n, summary = check_k_anonymity(SPEC_EXAMPLE, ["A", "B"], 4)
    assert n == 2  # fk 3 and 2
    assert summary["count"].sum() == len(SPEC_EXAMPLE)
    assert summary["fk"].tolist() == sorted(summary["fk"].tolist())
    assert summary["at_risk"].tolist() == [f < 4 for f in summary["fk"]]
    row = summary[(summary["A"] == 0) & (summary["B"] == 1)]
    assert row["count"].tolist() == [2] and row["fk"].tolist() == [4]
    all_missing = summary[summary["A"].isna() & summary["B"].isna()]
    assert all_missing["fk"].tolist() == [7]


def test_at_risk_is_strict_less_than_k() -> None:
    out = sample_frequencies(SPEC_EXAMPLE, ["A", "B"], k=4)
    assert out["at_risk"].tolist() == [False, False, True, True, False, False, False]


def test_k_equal_one_nothing_at_risk() -> None:
    n, _ = check_k_anonymity(SPEC_EXAMPLE, ["A", "B"], 1)
    assert n == 0


# --- oracle cross-checks ---------------------------------------------------------------------


@st.composite
def frames(draw: st.DrawFn, max_rows: int = 40) -> tuple[pd.DataFrame, list[str], list[float]]:
    n_qi = draw(st.integers(1, 8))
    n = draw(st.integers(0, max_rows))
    p_missing = draw(st.sampled_from([0.0, 0.1, 0.3, 0.6]))
    cols: dict[str, list[object]] = {}
    for j in range(n_qi):
        n_cat = draw(st.integers(1, 4))
        all_missing = draw(st.booleans()) if j == n_qi - 1 else False
        values = draw(st.lists(st.integers(0, n_cat - 1), min_size=n, max_size=n))
        miss = draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))
        cols[f"q{j}"] = [
            None if (all_missing or u < p_missing) else v for v, u in zip(values, miss, strict=True)
        ]
    df = pd.DataFrame(cols, dtype=object)
    if n and draw(st.booleans()):  # duplicate some rows and add an all-missing row
        df = pd.concat(
            [df, df.iloc[: max(1, n // 3)], pd.DataFrame([[None] * n_qi], columns=df.columns)]
        )
        df = df.reset_index(drop=True)
    weights = draw(
        st.lists(st.floats(0.5, 50, allow_nan=False), min_size=len(df), max_size=len(df))
    )
    return df, list(cols), weights


@given(data=frames(), policy=st.sampled_from(POLICIES))
def test_fk_matches_bruteforce(
    data: tuple[pd.DataFrame, list[str], list[float]], policy: object
) -> None:
    df, qi, weights = data
    df = df.assign(w=weights)
    before = df.copy()
    out = sample_frequencies(df, qi, missing=policy, weights="w")  # type: ignore[arg-type]
    fk, big = fk_bruteforce(rows_of(df, qi), policy, weights)
    np.testing.assert_allclose(out["fk"].to_numpy(dtype=float), fk, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(out["Fk"].to_numpy(dtype=float), big, rtol=1e-9, atol=1e-9)
    pd.testing.assert_frame_equal(df, before)
    assert out.index.equals(df.index)


@given(data=frames(max_rows=25), k=st.integers(1, 4))
def test_check_k_anonymity_matches_bruteforce(
    data: tuple[pd.DataFrame, list[str], list[float]], k: int
) -> None:
    df, qi, _ = data
    n_at_risk, summary = check_k_anonymity(df, qi, k)
    fk, _ = fk_bruteforce(rows_of(df, qi))
    assert n_at_risk == sum(f < k for f in fk)
    assert int(summary["count"].sum()) == len(df)


@given(data=frames(max_rows=20), k=st.integers(1, 4), min_size=st.integers(1, 3))
def test_safe_combinations_matches_exhaustive(
    data: tuple[pd.DataFrame, list[str], list[float]], k: int, min_size: int
) -> None:
    df, qi, _ = data
    max_size = len(qi)
    if min_size > max_size:
        min_size = max_size
    got = safe_combinations(df, qi, k, min_combi_size=min_size)
    assert got == safe_combinations_bruteforce(df, qi, k, min_size, max_size)
    maximal = safe_combinations(df, qi, k, min_combi_size=min_size, maximal=True)
    assert all(m in got for m in maximal)
    for s in got:  # every safe set is inside some maximal one
        assert any(set(s) <= set(m) for m in maximal)
    for m in maximal:  # and no maximal one is inside another safe set
        assert not any(set(m) < set(s) for s in got)


def test_safe_combinations_prunes_supersets_of_unsafe_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    import microsdc.risk.kanonymity as kan

    df = pd.DataFrame(
        {"u": range(6), "a": [1, 1, 1, 2, 2, 2], "b": [1, 1, 1, 1, 1, 1], "c": [3, 3, 3, 4, 4, 4]}
    )
    seen: list[int] = []
    real = kan.frequencies_from_codes

    def spy(codes, n_categories, **kw):  # type: ignore[no-untyped-def]
        seen.append(codes.shape[1])
        return real(codes, n_categories, **kw)

    monkeypatch.setattr(kan, "frequencies_from_codes", spy)
    assert safe_combinations(df, ["u", "a", "b", "c"], 3) == [
        ["a", "b"],
        ["a", "c"],
        ["b", "c"],
        ["a", "b", "c"],
    ]
    # 4 singletons + 3 pairs without "u" + 1 triple; nothing containing the unique "u"
    assert seen == [1, 1, 1, 1, 2, 2, 2, 3]


def test_safe_combinations_max_size() -> None:
    df = pd.DataFrame({"a": [1, 1, 2, 2], "b": [1, 1, 2, 2], "c": [1, 1, 2, 2]})
    assert safe_combinations(df, ["a", "b", "c"], 2, max_combi_size=2) == [
        ["a", "b"],
        ["a", "c"],
        ["b", "c"],
    ]
    assert safe_combinations(df, ["a", "b", "c"], 2, maximal=True) == [["a", "b", "c"]]


# --- dtypes and names ------------------------------------------------------------------------


def test_any_dtype_same_answer() -> None:
    base = SPEC_EXAMPLE
    expected = [4, 4, 3, 2, 4, 5, 7]
    variants = {
        "nullable Int64": base.astype("Int64"),
        "strings": base.apply(lambda s: s.map(lambda v: None if pd.isna(v) else f"é {int(v)}")),
        "categorical unused": base.apply(
            lambda s: pd.Categorical(s, categories=[0.0, 1.0, 2.0, 9.0])
        ),
        "mixed": pd.DataFrame(
            {
                "A": ["0", "0", 1.5, 1.5, pd.NA, "0", None],
                "B": ["x", "x", 2, "x", 2, np.nan, pd.NaT],
            }
        ),
        "bool": pd.DataFrame(
            {
                "A": pd.array([False, False, True, True, None, False, None], dtype="boolean"),
                "B": pd.array([True, True, False, True, False, None, None], dtype="boolean"),
            }
        ),
    }
    for name, df in variants.items():
        assert sample_frequencies(df, list(df.columns))["fk"].tolist() == expected, name


def test_datetimes_and_nat() -> None:
    df = pd.DataFrame({"d": pd.to_datetime(["2020-01-01", "2020-01-01", None, "2021-05-05"])})
    assert sample_frequencies(df, ["d"])["fk"].tolist() == [3, 3, 4, 2]


def test_declared_missing_codes() -> None:
    df = pd.DataFrame({"a": [1, 1, -999, 2], "b": ["x", "", "x", "NA"]})
    out = sample_frequencies(df, ["a", "b"], missing_values=[-999, "", "NA"])
    # rows: (1,x) (1,NA) (NA,x) (2,NA)
    assert out["fk"].tolist() == [3, 3, 4, 2]
    per_col = sample_frequencies(df, ["a", "b"], missing_values={"a": [-999]})
    # only -999 is missing: (1,x) (1,"") (NA,x) (2,"NA")
    assert per_col["fk"].tolist() == [2, 1, 2, 1]


def test_unicode_space_and_non_string_column_names() -> None:
    df = pd.DataFrame({"âge band": ["a", "a", "b"], 7: [1, 1, 1], ("t", 1): ["x", "x", "x"]})
    out = sample_frequencies(df, ["âge band", 7, ("t", 1)])
    assert out["fk"].tolist() == [2, 2, 1]


def test_index_kept_and_input_untouched() -> None:
    df = SPEC_EXAMPLE.copy()
    df.index = pd.Index(["g", "f", "e", "d", "c", "b", "a"])
    before = df.copy()
    out = sample_frequencies(df, ["A", "B"], k=3)
    assert out.index.equals(df.index)
    assert out.loc["d", "fk"] == 2
    pd.testing.assert_frame_equal(df, before)


def test_all_missing_column_is_irrelevant() -> None:
    df = SPEC_EXAMPLE.assign(C=None)
    with pytest.warns(DisclosureRiskWarning, match="key variable 'C' is missing in every record"):
        fk = sample_frequencies(df, ["A", "B", "C"])["fk"].tolist()
    assert fk == [4, 4, 3, 2, 4, 5, 7]


def test_empty_frame() -> None:
    df = pd.DataFrame({"a": pd.Series([], dtype=object), "b": pd.Series([], dtype=float)})
    n, summary = check_k_anonymity(df, ["a", "b"], 3)
    assert n == 0
    assert len(summary) == 0 and {"a", "b", "count", "fk"} <= set(summary.columns)
    assert len(sample_frequencies(df, ["a", "b"])) == 0
    assert safe_combinations(df, ["a", "b"], 3) == [["a", "b"]]


def test_high_cardinality_warns() -> None:
    df = pd.DataFrame({"income": np.arange(5000) * 1.5, "sex": ["m", "f"] * 2500})
    with pytest.warns(HighCardinalityWarning, match="'income' has 5,000 distinct values"):
        sample_frequencies(df, ["income", "sex"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sample_frequencies(df, ["sex"])


def test_many_high_cardinality_columns_still_exact() -> None:
    # radix product beyond one int64 key and beyond every dense table: the sorted
    # fallbacks must stay exact
    rng = np.random.default_rng(1)
    n = 500
    df = pd.DataFrame({f"c{j}": rng.integers(0, 2000, n).astype(float) for j in range(7)})
    df.iloc[:50, 0] = np.nan
    df.iloc[40:60, 3] = np.nan
    df = pd.concat([df, df.iloc[:100]], ignore_index=True)
    qi = list(df.columns)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HighCardinalityWarning)
        out = sample_frequencies(df, qi)
        n_at_risk, _ = check_k_anonymity(df, qi, 2)
    expected = [int(f) for f in fk_bruteforce(rows_of(df, qi))[0]]
    assert out["fk"].tolist() == expected
    assert n_at_risk == sum(f < 2 for f in expected)
    assert out["fk"].iloc[:100].ge(2).all()  # duplicated rows


# --- bad input -------------------------------------------------------------------------------


def test_unknown_columns_all_listed() -> None:
    with pytest.raises(ColumnNotFoundError, match=r"2 column\(s\) not in the data: 'x', 'y'") as e:
        check_k_anonymity(SPEC_EXAMPLE, ["A", "x", "y"], 2)
    assert e.value.missing == ["x", "y"]
    assert isinstance(e.value, KeyError)


@pytest.mark.parametrize("k", [0, -1, 2.5, 3.0, "3", None, True])
def test_bad_k(k: object) -> None:
    with pytest.raises(InvalidParameterError, match="The 'k' parameter of check_k_anonymity"):
        check_k_anonymity(SPEC_EXAMPLE, ["A"], k)  # type: ignore[arg-type]


def test_numpy_int_k_accepted() -> None:
    assert check_k_anonymity(SPEC_EXAMPLE, ["A", "B"], np.int64(4))[0] == 2


def test_empty_qi_list() -> None:
    with pytest.raises(InvalidParameterError, match="non-empty list of column names"):
        check_k_anonymity(SPEC_EXAMPLE, [], 2)


def test_qi_named_twice() -> None:
    with pytest.raises(InvalidParameterError, match="same column more than once: 'A'"):
        sample_frequencies(SPEC_EXAMPLE, ["A", "B", "A"])


def test_duplicate_column_names() -> None:
    df = pd.DataFrame([[1, 2, 3]], columns=["a", "b", "a"])
    with pytest.raises(DataValidationError, match="duplicate column names: 'a'"):
        check_k_anonymity(df, ["a", "b"], 2)


def test_not_a_frame() -> None:
    with pytest.raises(InvalidParameterError, match="must be a pandas DataFrame"):
        check_k_anonymity([[1, 2]], ["a"], 2)  # type: ignore[arg-type]


def test_bad_policy() -> None:
    with pytest.raises(InvalidParameterError, match="The 'missing' parameter"):
        sample_frequencies(SPEC_EXAMPLE, ["A"], missing="drop")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="The 'missing' parameter"):
        sample_frequencies(SPEC_EXAMPLE, ["A"], missing=1.5)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        (
            [1.0, 2.0, np.nan, 1.0, 1.0, 1.0, 1.0],
            r"1 missing or infinite value\(s\) \(first rows: \[2\]\)",
        ),
        ([1.0, -2.0, 1.0, 1.0, 1.0, 1.0, 1.0], r"1 negative value\(s\) \(first rows: 1: -2\)"),
        (
            ["a", "b", "c", "d", "e", "f", "g"],
            r"must be numeric: it holds 7 value\(s\) that are not numbers \(first rows: 0: .a.",
        ),
    ],
)
def test_bad_weights(weights: list[object], message: str) -> None:
    df = SPEC_EXAMPLE.assign(w=weights)
    before = df.copy()
    with pytest.raises(DataValidationError, match=message):
        sample_frequencies(df, ["A", "B"], weights="w")
    pd.testing.assert_frame_equal(df, before)


def test_weights_unknown_column_and_wrong_length() -> None:
    with pytest.raises(ColumnNotFoundError, match="'weights' parameter"):
        sample_frequencies(SPEC_EXAMPLE, ["A"], weights="nope")
    with pytest.raises(InvalidParameterError, match="array of length 7"):
        sample_frequencies(SPEC_EXAMPLE, ["A"], weights=[1.0, 2.0])


def test_weights_as_array() -> None:
    out = sample_frequencies(SPEC_EXAMPLE, ["A", "B"], weights=np.arange(1, 8, dtype=float))
    # row (1,1): itself (4) and (NA,NA) (7)
    assert out["Fk"].iloc[3] == 11.0


@pytest.mark.parametrize("route", ["dense", "pairs", "bitset"])
@pytest.mark.parametrize(
    ("a", "w", "fk", "big"),
    [
        # the blank record's least count is with a = 2: itself and the record of weight
        # 100 (Fk 101), not the weights of a = 1 (Fk 4), which counts 4 records
        ([None, 1, 1, 1, 2], [1.0, 1, 1, 1, 100], [2, 4, 4, 4, 2], [101.0, 4, 4, 4, 101]),
        # two completions with the same count: the one of smaller weight
        ([None, 1, 2], [1.0, 5.0, 3.0], [2, 2, 2], [4.0, 6.0, 4.0]),
    ],
)
def test_conservative_fk_and_Fk_from_one_completion(
    route: str, a: list[object], w: list[float], fk: list[int], big: list[float]
) -> None:
    from microsdc.risk.kanonymity import frequencies_from_codes

    enc = encode_qis(pd.DataFrame({"a": a}), ["a"])
    policy = parse_policy("conservative", "t")
    res = frequencies_from_codes(
        enc.codes, enc.n_categories, policy=policy, weights=np.array(w), route=route
    )
    assert res.row_fk.tolist() == fk
    assert res.row_Fk.tolist() == big


def test_weights_series_matched_by_label() -> None:
    from microsdc import individual_risk

    df = pd.DataFrame({"age": [1, 1, 2]}, index=[10, 11, 12])
    w = pd.Series([100.0, 1.0, 1.0], index=[10, 11, 12])
    # the same weights in another order give the same Fk: record 10 weighs 100
    for given_w in (w, w.iloc[::-1]):
        assert sample_frequencies(df, ["age"], weights=given_w)["Fk"].tolist() == [101, 101, 1]
    risk = individual_risk(df, ["age"], weights=w.iloc[::-1])
    assert risk.tolist() == individual_risk(df, ["age"], weights=w).tolist()
    # an array is taken by position
    assert sample_frequencies(df, ["age"], weights=w.iloc[::-1].to_numpy())["Fk"].tolist() == [
        2,
        2,
        100,
    ]
    # a Series indexed otherwise is refused, naming labels not in the data
    with pytest.raises(DataValidationError, match=r"labels not in the data: \[0, 1, 2\]"):
        sample_frequencies(df, ["age"], weights=w.reset_index(drop=True))


@pytest.mark.parametrize("bad", [{"min_combi_size": 0}, {"max_combi_size": 1, "min_combi_size": 2}])
def test_safe_combinations_bad_sizes(bad: dict[str, int]) -> None:
    with pytest.raises(InvalidParameterError, match="combi_size"):
        safe_combinations(SPEC_EXAMPLE, ["A", "B"], 2, **bad)


# --- every counting route gives the same numbers ---------------------------------------------

ROUTES = [
    "dense kernel",
    "dense",
    "pairs",
    "pairs hashed",
    "pairs split",
    "pairs split, no weights",
    "pairs no cross",
    "bitset",
    "split",
]


def _route_fk(
    codes: np.ndarray, n_cat: np.ndarray, policy: object, w: np.ndarray | None, route: str
) -> tuple[np.ndarray, np.ndarray | None]:
    import microsdc._kernels.dense as dense
    import microsdc._kernels.maskpairs as maskpairs
    import microsdc.risk.frequencies as kan

    pol = parse_policy(policy, "test")
    if route == "dense kernel":  # the dense kernel on the rows, whatever the heuristics say
        return dense.frequencies(codes, n_cat, pol.kind, pol.alpha, weights=w)

    def no_rare(masks: np.ndarray, *args: object) -> np.ndarray:
        return np.zeros(len(masks), dtype=bool)

    def every_other(masks: np.ndarray, *args: object) -> np.ndarray:
        return np.arange(len(masks)) % 2 == 1

    if route == "pairs split, no weights":  # counts alone take another split (_support)
        w = None
        route = "pairs split"
    if route == "split" and pol.kind not in ("wildcard", "alpha"):  # not its policies
        route = "bitset"

    with pytest.MonkeyPatch.context() as mp:
        # pairs: every mask in mask pairs; split: every other mask on bit sets
        mp.setattr(kan, "_rare_masks", every_other if route == "pairs split" else no_rare)
        if route == "pairs hashed":  # no direct lookup table: every pair hashed
            mp.setattr(maskpairs, "DIRECT_LIMIT", 1)
        if route == "pairs no cross":  # complete patterns in mask pairs like the others
            mp.setattr(kan, "_CROSS_MIN_COMPLETE", 1 << 62)
        forced = route if route in ("dense", "bitset", "split") else "pairs"
        res = kan.frequencies_from_codes(codes, n_cat, policy=pol, weights=w, route=forced)
        row_fk = kan.row_frequencies(codes, n_cat, policy=pol, weights=w, route=forced)[0]
    np.testing.assert_allclose(row_fk, res.row_fk, rtol=1e-12)
    return res.row_fk, res.row_Fk


@given(data=frames(), policy=st.sampled_from(POLICIES), route=st.sampled_from(ROUTES))
def test_every_route_matches_bruteforce(
    data: tuple[pd.DataFrame, list[str], list[float]], policy: object, route: str
) -> None:
    df, qi, weights = data
    enc = encode_qis(df, qi)
    fk_d, big_d = _route_fk(enc.codes, enc.n_categories, policy, np.asarray(weights), route)
    fk, big = fk_bruteforce(rows_of(df, qi), policy, weights)
    np.testing.assert_allclose(np.asarray(fk_d, dtype=float), fk, atol=1e-9)
    if route != "pairs split, no weights":
        np.testing.assert_allclose(np.asarray(big_d, dtype=float), big, rtol=1e-9, atol=1e-9)


@st.composite
def wide_frames(draw: st.DrawFn) -> tuple[pd.DataFrame, list[str], list[float]]:
    """Few rows, many categories: key spaces beyond 2^31 or 2^63 cells."""
    n_qi = draw(st.integers(4, 12))
    n = draw(st.integers(1, 30))
    big = draw(st.sampled_from([300, 5000]))  # 300^4 > 2^31; 5000^6 > 2^63
    p_missing = draw(st.sampled_from([0.0, 0.15, 0.4]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    cols: dict[str, object] = {}
    for j in range(n_qi):
        # a few distinct values in use (so that rows do meet), coded among `big` categories
        used = rng.choice(big, size=int(rng.integers(1, 4)), replace=False)
        values = rng.choice(used, size=n).astype(float)
        values[rng.random(n) < p_missing] = np.nan
        cols[f"q{j}"] = pd.Categorical(values, categories=np.arange(big, dtype=float))
    df = pd.DataFrame(cols)
    weights = rng.uniform(0.5, 5.0, size=n).round(2).tolist()
    return df, list(df.columns), weights


@given(data=wide_frames(), policy=st.sampled_from(POLICIES), route=st.sampled_from(ROUTES[2:]))
def test_routes_exact_on_key_spaces_beyond_int64(
    data: tuple[pd.DataFrame, list[str], list[float]], policy: object, route: str
) -> None:
    df, qi, weights = data
    enc = encode_qis(df, qi, warn_cardinality=False)
    assert float(np.prod(enc.n_categories.astype(float))) > 2.0**31
    fk_d, big_d = _route_fk(enc.codes, enc.n_categories, policy, np.asarray(weights), route)
    fk, big = fk_bruteforce(rows_of(df, qi), policy, weights)
    np.testing.assert_allclose(np.asarray(fk_d, dtype=float), fk, atol=1e-9)
    if route != "pairs split, no weights":
        np.testing.assert_allclose(np.asarray(big_d, dtype=float), big, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", ["count", "fk", "Fk", "at_risk"])
def test_qi_named_like_an_output_column_is_refused(name: str) -> None:
    df = pd.DataFrame({name: ["a", "a", "b"], "w": [1.0, 2.0, 3.0]})
    with pytest.raises(InvalidParameterError, match=f"'{name}'.*output column"):
        check_k_anonymity(df, [name], 2, weights="w")
    # sample_frequencies returns no QI column: nothing to clash with
    out = sample_frequencies(df, [name], k=2, weights="w")
    assert out["fk"].tolist() == [2, 2, 1]
    assert list(out.columns) == ["fk", "Fk", "at_risk"]


def test_qi_names_that_do_not_clash_keep_their_values() -> None:
    df = pd.DataFrame({"counts": ["a", "a", "b"], "FK": [1, 1, 2]})
    _, summary = check_k_anonymity(df, ["counts", "FK"], 2)
    assert summary[["counts", "FK", "count", "fk"]].values.tolist() == [
        ["b", 2, 1, 1],
        ["a", 1, 2, 2],
    ]


def test_check_k_anonymity_probabilistic() -> None:
    n, summary = check_k_anonymity(SPEC_EXAMPLE, ["A", "B"], 3, missing="probabilistic")
    # fk 2.96, 2.96, 1.56, 1.24, 2.8 are below 3; 4.2 and 7 are not
    assert n == 5
    assert summary["fk"].round(2).tolist() == [1.24, 1.56, 2.8, 2.96, 4.2, 7.0]
    assert summary["count"].tolist() == [1, 1, 1, 2, 1, 1]
