"""Linked ("ghost") variables: columns that give a key variable back, found and blanked."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from microsdc import local_suppression
from microsdc.exceptions import ColumnNotFoundError, DisclosureRiskWarning, InvalidParameterError
from microsdc.risk.linked import linked_columns, recoverable_cells


def _survey(n_per: int = 24) -> pd.DataFrame:
    """educ with a one-to-one code, sex told by 'rel' for husbands/wives only, a unique id."""
    educ = ["BA"] * (2 * n_per) + ["MA"] * (2 * n_per)
    sex = (["m", "f"] * n_per) * 2
    rel = [{"m": "husband", "f": "wife"}[s] if i % 4 < 2 else "child" for i, s in enumerate(sex)]
    return pd.DataFrame(
        {
            "educ": educ,
            "years": [16 if e == "BA" else 18 for e in educ],
            "sex": sex,
            "rel": rel,
            "id": range(len(educ)),
            "hours": [40] * len(educ),
        }
    )


def test_linked_columns_by_hand() -> None:
    df = _survey()
    got = linked_columns(df, ["educ", "sex"])
    pairs = {(r.key_variable, r.column): (r.n_records, r.share) for r in got.itertuples()}
    # years is a code of educ: every record
    assert pairs[("educ", "years")] == (96, 1.0)
    # rel says sex for husbands and wives (48 records), not for children
    assert pairs[("sex", "rel")] == (48, 0.5)
    # an identifier and a constant column give nothing back
    assert not [p for p in pairs if p[1] in ("id", "hours")]
    assert set(pairs) == {("educ", "years"), ("sex", "rel")}


def test_chance_agreement_on_a_common_value_does_not_count() -> None:
    # 95 of 100 records are "x"; a column whose groups of 10 are all "x" by chance says nothing
    key = ["x"] * 95 + ["y"] * 5
    col = [i // 10 for i in range(100)]
    df = pd.DataFrame({"k": key, "c": col})
    assert linked_columns(df, ["k"]).empty
    # a rarer value confined to one group is read back; the common one still is not
    key = ["x"] * 80 + ["y"] * 20
    col = [1 + i % 8 for i in range(80)] + [0] * 20
    got = linked_columns(pd.DataFrame({"k": key, "c": col}), ["k"])
    assert got.values.tolist() == [["k", "c", 20, 0.2]]


def test_share_and_min_count_are_the_stated_thresholds() -> None:
    # group "a": 38 "m" and 2 "f"; group "b": 40 "f"
    df = pd.DataFrame({"k": ["m"] * 38 + ["f"] * 42, "c": ["a"] * 40 + ["b"] * 40})
    # an "m" of "a": 37 of the 39 others are "m" (95 %), against 37 of all 79 others (47 %):
    # wrong 5 % of the time where a blind guess "m" is wrong 53 % (over 4 times as often):
    # given back.
    # an "f" of "b": 39 of 39 against 41 of 79: given back; an "f" of "a": 1 of 39, not
    got = linked_columns(df, ["k"])
    assert got.values.tolist() == [["k", "c", 78, 0.975]]
    assert linked_columns(df, ["k"], share=0.975).values.tolist() == got.values.tolist()
    assert linked_columns(df, ["k"], share=0.98).empty
    assert linked_columns(df, ["k"], min_count=39).values.tolist() == got.values.tolist()
    assert linked_columns(df, ["k"], min_count=40).empty  # only 39 others in a group


def test_a_column_that_repeats_the_common_value_gains_nothing() -> None:
    # "k" is "x" for 90 % of the records in both groups of "c" (91 % and 89 %): reading "x"
    # from "c" is wrong 9 % of the time in group "a" where a blind "x" is wrong 10 %
    k = ["x"] * 91 + ["y"] * 9 + ["x"] * 89 + ["y"] * 11
    df = pd.DataFrame({"k": k, "c": ["a"] * 100 + ["b"] * 100})
    assert linked_columns(df, ["k"], share=0.001).empty
    after = df.assign(k=df["k"].where(df.index % 10 != 0))  # 20 cells blanked
    assert recoverable_cells(df, after, ["k"], share=0.001).empty


def test_rare_values_count_and_chance_pairs_do_not() -> None:
    # 97 "x" and 3 "y"; the three "y" share the code "z", every other code is unique:
    # two other records agreeing on a value of 2 % is no accident (tail 0.0004)
    df = pd.DataFrame({"k": ["x"] * 97 + ["y"] * 3, "c": [str(i) for i in range(97)] + ["z"] * 3})
    assert linked_columns(df, ["k"], share=0.01).values.tolist() == [["k", "c", 3, 0.03]]
    assert linked_columns(df, ["k"]).empty  # 3 % of the records: under the default 10 %
    # pairs sharing a code and a common value: 1 other of 50 % agreeing is chance (tail 0.5)
    df = pd.DataFrame({"k": ["x", "x", "y", "y"] * 25, "c": [i // 2 for i in range(100)]})
    assert linked_columns(df, ["k"], share=0.01).empty
    # the same pairs on a value of 2 %: given back
    df = pd.DataFrame({"k": ["x"] * 98 + ["y"] * 2, "c": [i // 2 for i in range(100)]})
    assert linked_columns(df, ["k"], share=0.01).values.tolist() == [["k", "c", 2, 0.02]]


def test_recoverable_cells_by_hand() -> None:
    before = _survey()
    after = before.copy()
    after.loc[[0, 5], "educ"] = None  # years gives both back
    after.loc[[0, 2], "sex"] = None  # row 0 is a husband, row 2 a child
    got = recoverable_cells(before, after, ["educ", "sex"])
    assert got.values.tolist() == [["educ", "years", 2, 2, 1.0], ["sex", "rel", 2, 1, 0.5]]
    # rel gives back 1 of the 2 sex cells: reported from share 0.5, not above
    assert recoverable_cells(before, after, ["sex"], share=0.51).empty
    # blanking the linked columns too removes the read-back
    after.loc[[0, 5], "years"] = None
    after.loc[[0, 2], "rel"] = None
    assert recoverable_cells(before, after, ["educ", "sex"]).empty


def test_missing_codes_are_missing_in_recoverable_cells() -> None:
    before = _survey()
    after = before.assign(educ=["-9", *list(before["educ"][1:])])
    assert recoverable_cells(before, after, ["educ"]).empty  # "-9" is a value here
    got = recoverable_cells(before, after, ["educ"], missing_values=[-9])
    assert got.values.tolist() == [["educ", "years", 1, 1, 1.0]]


def test_bad_input() -> None:
    df = _survey()
    with pytest.raises(InvalidParameterError, match="'share' parameter"):
        linked_columns(df, ["educ"], share=0)
    with pytest.raises(InvalidParameterError, match="'min_count' parameter"):
        linked_columns(df, ["educ"], min_count=0)
    with pytest.raises(InvalidParameterError, match=r"'columns' parameter.*'sex'"):
        linked_columns(df, ["educ", "sex"], columns=["sex"])
    with pytest.raises(ColumnNotFoundError, match="'nope'"):
        linked_columns(df, ["nope"])
    with pytest.raises(InvalidParameterError, match="same records"):
        recoverable_cells(df, df.iloc[:3], ["educ"])


# --------------------------------------------------------------------------- local_suppression


def _to_suppress() -> pd.DataFrame:
    """30 (MA, f), 30 (BA, m), 30 (MA, m) and a lone (BA, f); years is a code of educ."""
    educ = ["MA"] * 30 + ["BA"] * 30 + ["MA"] * 30 + ["BA"]
    sex = ["f"] * 30 + ["m"] * 60 + ["f"]
    return pd.DataFrame(
        {"educ": educ, "sex": sex, "years": [16 if e == "BA" else 18 for e in educ]}
    )


def test_local_suppression_warns_about_columns_that_give_values_back() -> None:
    df = _to_suppress()
    # sex is kept (more important): educ of the lone record is blanked, and years says BA
    with pytest.warns(DisclosureRiskWarning, match=r"'educ' from 'years' \(1 of 1\)"):
        res = local_suppression(
            df, ["educ", "sex"], k=2, importance=["sex", "educ"], missing="wildcard"
        )
    assert res.data["educ"].isna().tolist() == [False] * 90 + [True]
    assert res.details["recoverable"] == [
        {
            "key_variable": "educ",
            "column": "years",
            "n_blanked": 1,
            "n_recoverable": 1,
            "share": 1.0,
        }
    ]
    assert res.to_dict()["recoverable"] == res.details["recoverable"]
    assert "1 blanked educ cells can be read back from years" in res.summary()
    # linked: years goes with educ, and nothing is left to warn about
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message="missing='wildcard' is a measure")
        res = local_suppression(
            df,
            ["educ", "sex"],
            k=2,
            importance=["sex", "educ"],
            linked={"educ": ["years"]},
            missing="wildcard",
        )
    assert res.data["years"].isna().tolist() == [False] * 90 + [True]
    assert res.details["recoverable"] == []
    assert res.to_dict()["linked_cells"] == {"years": 1}
    assert "linked column years: 1 cells blanked" in res.summary()


def test_random_baseline_warns_too() -> None:
    from microsdc.suppression import min_missingness_max_deid

    df = _to_suppress()
    with pytest.warns(DisclosureRiskWarning, match=r"'educ' from 'years'") as rec:
        min_missingness_max_deid(df, ["educ", "sex"], 2, seed=1)
    assert rec[0].filename == __file__  # points at the caller


def test_linked_columns_are_blanked_with_their_key() -> None:
    df = pd.DataFrame(
        {
            "educ": ["BA"] * 12 + ["MA"] * 12 + ["PhD"],
            "years": [16] * 12 + [18] * 12 + [21],
            "sex": ["m", "f"] * 12 + ["f"],
            "note": list(range(25)),
        }
    )
    df.loc[24, "educ"] = "BA"  # a lone (BA, f, years=21) record
    qi = ["educ", "sex"]
    before = df.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message="missing='wildcard' is a measure")
        res = local_suppression(
            df, qi, k=13, importance=["sex", "educ"], linked={"educ": ["years"]}
        )
    pd.testing.assert_frame_equal(df, before)  # input untouched
    blanked = res.data["educ"].isna() & df["educ"].notna()
    assert blanked.any()
    assert res.data.loc[blanked, "years"].isna().all()
    assert res.data.loc[~blanked, "years"].tolist() == df.loc[~blanked, "years"].tolist()
    assert res.details["linked_cells"] == {"years": int(blanked.sum())}
    assert int(res.cells_per_qi.sum()) == int(res.data[qi].isna().sum().sum())
    assert res.data["note"].tolist() == list(range(25))


def test_linked_with_subjects_and_several_keys() -> None:
    df = pd.DataFrame(
        {
            "pid": np.repeat(np.arange(8), 2),
            "a": np.repeat(["x", "x", "x", "y", "y", "y", "z", "x"], 2),
            "b": np.repeat(["u", "u", "v", "v", "u", "u", "v", "w"], 2),
            "ga": np.repeat(list("ppppqqqr"), 2),
            "gab": 1,
        }
    )
    res = local_suppression(
        df, ["a", "b"], k=2, subject_id="pid", linked={"a": ["ga", "gab"], "b": ["gab"]}
    )
    blank_a = res.data["a"].isna() & df["a"].notna()
    blank_b = res.data["b"].isna() & df["b"].notna()
    assert (blank_a | blank_b).any()
    assert res.data["ga"].isna().tolist() == blank_a.tolist()
    assert res.data["gab"].isna().tolist() == (blank_a | blank_b).tolist()


@pytest.mark.parametrize(
    ("linked", "error", "match"),
    [
        ({"years": ["educ"]}, InvalidParameterError, "'years', which is not a quasi-identifier"),
        ({"educ": ["sex"]}, InvalidParameterError, "'sex' is a quasi-identifier"),
        ({"educ": ["nope"]}, ColumnNotFoundError, "'linked' parameter.*'nope'"),
        (["years"], InvalidParameterError, "'linked' parameter"),
    ],
)
def test_linked_bad_input(linked: object, error: type, match: str) -> None:
    df = _survey()
    with pytest.raises(error, match=match):
        local_suppression(df, ["educ", "sex"], k=2, linked=linked)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- oracle


def _tail(n: int, a: int, p: float) -> float:
    """P(Binomial(n, p) >= a), summed term by term."""
    return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(a, n + 1))


def _gives_back(others_c: list, others_all: list, v: object, min_count: int) -> bool:
    """The stated rule, for one record: ``others_c`` the key values of the other records
    with its value of the column, ``others_all`` those of every other record showing the key."""
    n, a = len(others_c), others_c.count(v)
    if not others_all:
        return False
    p = others_all.count(v) / len(others_all)
    if n < min_count or a < 1 or 1 - a / n > (1 - p) / 4 + 1e-12:
        return False
    return _tail(n, a, p) <= 0.05 + 1e-12


def _brute(
    before: pd.DataFrame, after: pd.DataFrame, key: str, col: str, min_count: int
) -> tuple[int, int]:
    """(cells blanked, cells given back) of key from col, record by record: the intruder
    learns from the released records that show the key, and, for a column with 10 records
    per value or more (a code), the true values of a key value no released record shows."""
    k0 = [None if pd.isna(v) else v for v in before[key]]
    k1 = [None if pd.isna(v) else v for v in after[key]]
    c1 = [None if pd.isna(v) else v for v in after[col]]
    shown = [v for v in k1 if v is not None]
    vanished = {v for v in k0 if v is not None} - set(shown)
    observed = [v for v in c1 if v is not None]
    code = len(observed) >= 10 * len(set(observed))
    blanked = hits = 0
    for i in range(len(k0)):
        if k0[i] is None or k1[i] is not None:
            continue
        blanked += 1
        if c1[i] is None or (not shown and not (code and k0[i] in vanished)):
            continue
        known = [
            j
            for j in range(len(k0))
            if j != i and (k1[j] is not None or (code and k0[j] in vanished and k0[j] is not None))
        ]
        same = [k0[j] for j in known if c1[j] == c1[i]]
        n, a = len(same), same.count(k0[i])
        p = shown.count(k0[i]) / max(len(shown), 1)
        if n >= min_count and a >= 1 and 1 - a / n <= (1 - p) / 4 + 1e-12:
            hits += _tail(n, a, p) <= 0.05 + 1e-12
    return blanked, hits


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

#: the column as a code of the key (its value, or another one, or a blank, now and then)
_CODE = {"a": 0, "b": 1, "c": 2}


@given(
    st.lists(
        st.tuples(
            st.sampled_from("aaaabc"),
            st.sampled_from(["code", "code", "code", 0, 1, 3, None]),
            st.booleans(),
        ),
        min_size=1,
        max_size=60,
    ),
    st.sampled_from([0.05, 0.3, 1.0]),
    st.sampled_from([1, 2, 3]),
)
def test_recoverable_cells_matches_brute_force(
    rows: list[tuple[str, object, bool]], share: float, min_count: int
) -> None:
    c = [_CODE[r[0]] if r[1] == "code" else r[1] for r in rows]
    before = pd.DataFrame({"k": [r[0] for r in rows], "c": c}, dtype=object)
    after = before.copy()
    after.loc[[r[2] for r in rows], "k"] = None
    got = recoverable_cells(before, after, ["k"], share=share, min_count=min_count)
    blanked, hits = _brute(before, after, "k", "c", min_count)
    if hits and hits >= share * blanked:
        assert got.values.tolist() == [["k", "c", blanked, hits, hits / blanked]]
    else:
        assert got.empty


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "a", "a", "a", "b", "c", None]),
            st.sampled_from(["code", "code", "code", 0, 1, 3, None]),
        ),
        min_size=1,
        max_size=60,
    ),
    st.sampled_from([0.05, 0.3, 1.0]),
    st.sampled_from([1, 2, 3]),
)
def test_linked_columns_matches_brute_force(
    rows: list[tuple[object, object]], share: float, min_count: int
) -> None:
    codes = [
        (_CODE.get(key, 9) if key is not None else 9) if col == "code" else col for key, col in rows
    ]
    df = pd.DataFrame({"k": [r[0] for r in rows], "c": codes}, dtype=object)
    k = [None if pd.isna(v) else v for v in df["k"]]
    c = [None if pd.isna(v) else v for v in df["c"]]
    hits = both = 0
    for i in range(len(k)):
        if k[i] is None or c[i] is None:
            continue
        both += 1
        rest = [j for j in range(len(k)) if j != i and k[j] is not None]
        same = [k[j] for j in rest if c[j] == c[i]]
        hits += _gives_back(same, [k[j] for j in rest], k[i], min_count)
    got = linked_columns(df, ["k"], share=share, min_count=min_count)
    if hits and hits >= share * both:
        assert got.values.tolist() == [["k", "c", hits, hits / both]]
    else:
        assert got.empty


def test_a_declared_code_does_not_make_a_code_an_identifier_by_its_place() -> None:
    """years (values 16 and 9: 20 records, 10 per value) is a code, so the two blanked
    'z' (a value the release no longer shows) are given back through it from outside.
    The declared -7 of years is not a value: before, it counted as one when it came
    first in row order (3 values, 20 records: an identifier, nothing given back)."""
    educ = ["z", "z"] + ["BA"] * 18 + ["MA"] * 2
    years = [9, 9] + [16] * 18 + [-7, -7]
    before = pd.DataFrame({"educ": educ, "years": years})
    after = before.assign(educ=[None, None, *educ[2:]])
    want = [
        {
            "key_variable": "educ",
            "column": "years",
            "n_blanked": 2,
            "n_recoverable": 2,
            "share": 1.0,
        }
    ]
    for order in (list(range(22)), list(range(20, 22)) + list(range(20))):  # -7 last, first
        b, a = before.iloc[order], after.iloc[order]
        got = recoverable_cells(b, a, ["educ"], missing_values={"years": [-7]})
        assert got.to_dict("records") == want
