"""l-diversity: hand examples, the missing-value rules, and a brute-force oracle."""

from __future__ import annotations

import math
from collections import Counter

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from microsdc.exceptions import ColumnNotFoundError, InvalidParameterError
from microsdc.risk.ldiversity import l_diversity


def _compatible(r: tuple[object, ...], s: tuple[object, ...], wildcard: bool) -> bool:
    if not wildcard:
        return r == s
    return all(a is None or b is None or a == b for a, b in zip(r, s, strict=True))


def _oracle(df: pd.DataFrame, qi: list[str], s: str, wildcard: bool) -> list[Counter[object]]:
    """Counter of observed sensitive values among the records compatible with each record."""
    keys = [tuple(None if pd.isna(v) else v for v in row) for row in df[qi].itertuples(False)]
    vals = [None if pd.isna(v) else v for v in df[s]]
    out = []
    for r in keys:
        c: Counter[object] = Counter()
        for key, v in zip(keys, vals, strict=True):
            if v is not None and _compatible(r, key, wildcard):
                c[v] += 1
        out.append(c)
    return out


def _na(values: object) -> list[object]:
    """A result column as a list, not-applicable entries as None."""
    return [None if pd.isna(v) else v for v in values]  # type: ignore[attr-defined]


def _entropy(c: Counter[object]) -> float | None:
    total = sum(c.values())
    if not total:
        return None
    return math.exp(-sum(n / total * math.log(n / total) for n in c.values()))


def _recursive(c: Counter[object], cc: float, ll: int) -> bool | None:
    counts = sorted(c.values(), reverse=True)
    if not counts:
        return None
    if len(counts) < ll:
        return False
    return counts[0] < cc * sum(counts[ll - 1 :])


EXAMPLE = pd.DataFrame(
    {
        "sex": ["m", "m", "m", "f", "f", None, "f"],
        "age": ["1", "1", "1", "2", "2", "2", "3"],
        "income": ["low", "high", "low", "low", None, "mid", None],
    },
    index=list("abcdefg"),
)


def test_distinct_by_hand() -> None:
    # (m,1): low, high, low -> 2.
    # (f,2) ~ (f,2), (None,2): low, mid -> 2 (the missing one adds nothing)
    # (None,2) ~ (f,2) x2 and itself: low, mid -> 2.
    # (f,3): only a missing value -> not applicable
    res = l_diversity(EXAMPLE, ["sex", "age"], "income")
    assert _na(res["income"]) == [2, 2, 2, 2, 2, 2, None]
    assert res["income"].dtype == "Int64"
    assert list(res.index) == list("abcdefg")


def test_missing_sensitive_value_is_not_a_distinct_value() -> None:
    df = pd.DataFrame({"k": ["x", "x", "x"], "s": ["a", None, float("nan")]})
    assert l_diversity(df, ["k"], "s")["s"].tolist() == [1, 1, 1]
    df2 = pd.DataFrame({"k": ["x", "x"], "s": ["a", -9]})
    assert l_diversity(df2, ["k"], "s", missing_values={"s": [-9]})["s"].tolist() == [1, 1]


def test_category_policy_uses_exact_keys() -> None:
    res = l_diversity(EXAMPLE, ["sex", "age"], "income", missing="category")
    # (None,2) is alone in its class: mid -> 1; (f,2): low only -> 1
    assert _na(res["income"]) == [2, 2, 2, 1, 1, 1, None]


def test_entropy_by_hand() -> None:
    res = l_diversity(EXAMPLE, ["sex", "age"], "income", kind="entropy")["income"]
    # (m,1): low 2, high 1 -> exp(H) with p = 2/3, 1/3
    h = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))
    assert res.iloc[0] == pytest.approx(math.exp(h))
    assert res.iloc[3] == pytest.approx(2.0)  # low 1, mid 1
    assert pd.isna(res.iloc[6])


def test_recursive_by_hand() -> None:
    df = pd.DataFrame({"k": ["x"] * 6 + ["y"] * 3, "s": list("aaabbc") + list("abc")})
    # x: counts 3, 2, 1; (c=2, l=2): 3 < 2 * (2 + 1) -> True; (c=1, l=2): 3 < 3 -> False
    assert l_diversity(df, ["k"], "s", kind="recursive", c=2, l=2)["s"].tolist() == [True] * 9
    res = l_diversity(df, ["k"], "s", kind="recursive", c=1, l=2)["s"].tolist()
    assert res == [False] * 6 + [True] * 3  # y: 1 < 1 * (1 + 1)
    res = l_diversity(df, ["k"], "s", kind="recursive", c=5, l=4)["s"].tolist()
    assert res == [False] * 9  # fewer than l values


def test_several_sensitive_variables() -> None:
    res = l_diversity(EXAMPLE.assign(t=1), ["sex"], ["income", "t"])
    assert list(res.columns) == ["income", "t"]
    assert res["t"].tolist() == [1] * 7


def test_input_not_mutated_and_empty_frame() -> None:
    before = EXAMPLE.copy()
    l_diversity(EXAMPLE, ["sex", "age"], "income", kind="entropy")
    pd.testing.assert_frame_equal(EXAMPLE, before)
    empty = EXAMPLE.iloc[:0]
    assert l_diversity(empty, ["sex"], "income").shape == (0, 1)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"kind": "nope"}, "kind"),
        ({"kind": "recursive"}, "'c'"),
        ({"kind": "recursive", "c": 0, "l": 2}, "'c'"),
        ({"kind": "recursive", "c": 2, "l": 0}, "'l'"),
        ({"kind": "distinct", "c": 2}, "'c'"),
        ({"missing": "conservative"}, "missing"),
    ],
)
def test_bad_parameters(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(InvalidParameterError, match=match):
        l_diversity(EXAMPLE, ["sex", "age"], "income", **kwargs)  # type: ignore[arg-type]


def test_bad_columns() -> None:
    with pytest.raises(ColumnNotFoundError, match="'salary'"):
        l_diversity(EXAMPLE, ["sex"], "salary")
    with pytest.raises(InvalidParameterError, match="not quasi-identifiers"):
        l_diversity(EXAMPLE, ["sex", "income"], "income")


row = st.tuples(
    st.sampled_from(["a", "b", None]),
    st.sampled_from([0, 1, 2, None]),
    st.sampled_from(["x", "y", "z", None]),
)


@given(st.lists(row, min_size=1, max_size=30), st.sampled_from(["wildcard", "category"]))
def test_matches_oracle(rows: list[tuple[object, object, object]], missing: str) -> None:
    df = pd.DataFrame(rows, columns=["q1", "q2", "s"], dtype=object)
    expected = _oracle(df, ["q1", "q2"], "s", missing == "wildcard")
    got = l_diversity(df, ["q1", "q2"], "s", missing=missing)["s"].tolist()
    assert _na(got) == [len(c) or None for c in expected]
    got_e = l_diversity(df, ["q1", "q2"], "s", kind="entropy", missing=missing)["s"]
    assert _na(got_e) == pytest.approx([_entropy(c) for c in expected])
    got_r = l_diversity(df, ["q1", "q2"], "s", kind="recursive", c=1.5, l=2, missing=missing)
    assert _na(got_r["s"]) == [_recursive(c, 1.5, 2) for c in expected]


row4 = st.tuples(
    st.sampled_from(["a", None]),
    st.sampled_from([0, 1, None]),
    st.sampled_from(["u", "v", None]),
    st.sampled_from([True, False, None]),
    st.sampled_from(["x", "y", "z", None]),
)


@given(st.lists(row4, min_size=1, max_size=25))
def test_matches_oracle_with_many_masks(rows: list[tuple[object, ...]]) -> None:
    df = pd.DataFrame(rows, columns=["q1", "q2", "q3", "q4", "s"], dtype=object)
    qi = ["q1", "q2", "q3", "q4"]
    expected = _oracle(df, qi, "s", True)
    assert _na(l_diversity(df, qi, "s")["s"]) == [len(c) or None for c in expected]
    got = l_diversity(df, qi, "s", kind="entropy")["s"]
    assert _na(got) == pytest.approx([_entropy(c) for c in expected])


@pytest.mark.parametrize(
    ("kind", "kw"), [("distinct", {}), ("entropy", {}), ("recursive", {"c": 2, "l": 2})]
)
def test_all_missing_class_is_not_applicable(kind: str, kw: dict[str, object]) -> None:
    df = pd.DataFrame({"sex": ["m", "m", "f", "f"], "inc": [None, None, "a", "b"]})
    res = l_diversity(df, ["sex"], "inc", kind=kind, **kw)["inc"]  # type: ignore[arg-type]
    assert res.isna().tolist() == [True, True, False, False]
    assert _na(res)[2:] == ([2, 2] if kind != "recursive" else [True, True])


def test_job_counts_not_applicable_apart_from_failing() -> None:
    from microsdc.job.config import parse_job
    from microsdc.job.runner import measure_risk

    df = pd.DataFrame(
        {"sex": ["m"] * 3 + ["f"] * 3 + ["x"] * 3, "inc": [None] * 3 + ["a"] * 3 + ["a", "b", "c"]}
    )
    cfg = parse_job(
        'steps = ["risk"]\n[input]\npath = "d.csv"\n[variables]\nquasi_identifiers = ["sex"]\n'
        'sensitive = ["inc"]\n[risk]\nk = 2\nl = 2\n',
        check_files=False,
    )
    entry = measure_risk(df, cfg)["l_diversity"]["inc"]
    assert entry["n_failing"] == 3  # sex f: one value only
    assert entry["n_not_applicable"] == 3  # sex m: no value at all
    assert entry["min"] == 1.0
