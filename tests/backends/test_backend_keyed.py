"""fk and local suppression of DuckDB relations with integer QIs through one combined key
equal pandas."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microsdc
from microsdc._core.policy import Policy
from microsdc._kernels.keyspace import add_keys, wildcard_sums_inplace, zeros
from microsdc.backends import keyed
from microsdc.exceptions import InvalidParameterError
from microsdc.suppression import _engine
from oracles.kanon import fk_bruteforce, rows_of

pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")


@st.composite
def int_frames(draw: st.DrawFn) -> pd.DataFrame:
    """Integer QIs with nulls and a declared missing code -9 among the values."""
    n = draw(st.integers(1, 40))
    m = draw(st.integers(1, 4))
    data: dict[str, object] = {}
    for j in range(m):
        offset = draw(st.integers(-3, 5))
        values = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
        kinds = st.sampled_from(["v", "v", "v", "null", "code"])
        kind = draw(st.lists(kinds, min_size=n, max_size=n))
        col = [
            None if h == "null" else (-9 if h == "code" else v + offset)
            for v, h in zip(values, kind, strict=True)
        ]
        data[f"q{j}"] = pd.array(col, dtype="Int64")
    out = pd.DataFrame(data)
    out["rid"] = np.arange(n)
    return out


def _relation(df: pd.DataFrame) -> object:
    return duckdb.from_arrow(pa.Table.from_pandas(df, preserve_index=False))


@settings(max_examples=40, deadline=None)
@given(df=int_frames(), policy=st.sampled_from(["wildcard", "category"]), k=st.integers(1, 4))
def test_keyed_route_equals_pandas(df: pd.DataFrame, policy: str, k: int) -> None:
    qi = [c for c in df.columns if c.startswith("q")]
    rel = _relation(df)
    want = microsdc.sample_frequencies(df, qi, k=k, missing=policy, missing_values=[-9])
    with pytest.MonkeyPatch.context() as mp:  # a few rows over many cells: route forced
        mp.setattr(keyed, "CELLS_PER_ROW", 10**6)
        assert keyed.plan_keys(rel, qi, [-9], Policy(policy), False) is not None
        out = microsdc.sample_frequencies(rel, qi, k=k, missing=policy, missing_values=[-9])
    got = out.df()
    got = got.sort_values("rid").reset_index(drop=True)
    assert got["rid"].tolist() == list(range(len(df)))
    assert got["fk"].tolist() == want["fk"].tolist()
    assert got["at_risk"].tolist() == want["at_risk"].tolist()
    assert list(got.columns) == [*df.columns, "fk", "at_risk"]


def test_hand_computed_example() -> None:
    # A: 0, 0, 1, 1, -, 0, -   B: 1, 1, 2, 1, 2, -, -  (- = missing: null or the code 99)
    df = pd.DataFrame(
        {
            "A": pd.array([10, 10, 11, 11, None, 10, 99], dtype="Int32"),
            "B": pd.array([1, 1, 2, 1, 2, None, None], dtype="Int8"),
            "rid": range(7),
        }
    )
    rel = _relation(df)
    plan = keyed.plan_keys(rel, ["A", "B"], {"A": ["99"]}, Policy("wildcard"), False)
    assert plan is not None and plan.base.tolist() == [3, 3] and plan.n_rows == 7
    out = microsdc.sample_frequencies(rel, ["A", "B"], k=3, missing_values={"A": ["99"]}).df()
    out = out.sort_values("rid")
    assert out["fk"].tolist() == [4, 4, 3, 2, 4, 5, 7]
    assert out["at_risk"].tolist() == [False, False, False, True, False, False, False]


@pytest.mark.parametrize(
    "frame, weighted, policy",
    [
        (pd.DataFrame({"a": ["x", "y"]}), False, "wildcard"),  # text
        (pd.DataFrame({"a": [1.0, 2.0]}), False, "wildcard"),  # float
        (pd.DataFrame({"a": [0, 10**9]}), False, "wildcard"),  # range too wide
        (pd.DataFrame({"a": np.array([2**63, 2**63 + 1], dtype=np.uint64)}), False, "wildcard"),
        (pd.DataFrame({"a": [1, 2]}), True, "wildcard"),  # weights
        (pd.DataFrame({"a": [1, 2]}), False, "conservative"),
    ],
)
def test_other_inputs_take_the_pattern_route(
    frame: pd.DataFrame, weighted: bool, policy: str
) -> None:
    assert keyed.plan_keys(_relation(frame), ["a"], None, Policy(policy), weighted) is None


def test_sparse_key_space_takes_the_pattern_route(monkeypatch: pytest.MonkeyPatch) -> None:
    rel = _relation(pd.DataFrame({"a": [0, 50], "b": [0, 50]}))  # 52 * 52 cells, 2 rows
    assert keyed.plan_keys(rel, ["a", "b"], None, Policy("wildcard"), False) is None
    monkeypatch.setattr(keyed, "CELLS_PER_ROW", 10**4)
    assert keyed.plan_keys(rel, ["a", "b"], None, Policy("wildcard"), False) is not None


@settings(max_examples=30, deadline=None)
@given(
    base=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    data=st.data(),
)
def test_wildcard_sums_inplace_matches_brute_force(base: list[int], data: st.DataObject) -> None:
    size = int(np.prod(base))
    keys = np.array(data.draw(st.lists(st.integers(0, size - 1), max_size=30)), dtype=np.int64)
    table = zeros(size, np.int32)
    add_keys(table, keys)
    counts = table.copy()
    wildcard_sums_inplace(table, np.array(base))
    cells = list(itertools.product(*[range(b) for b in base]))  # slot 0 = missing

    def key(cell: tuple[int, ...]) -> int:
        return int(np.ravel_multi_index(cell[::-1], base[::-1]))

    for x in cells:
        want = sum(
            int(counts[key(y)])
            for y in cells
            if all(a == b or a == 0 or b == 0 for a, b in zip(x, y, strict=True))
        )
        assert table[key(x)] == want


# --------------------------------------------------------------------------- suppression


def _released(rel: object) -> pd.DataFrame:
    return rel.df().sort_values("rid").reset_index(drop=True)  # type: ignore[attr-defined]


@settings(max_examples=40, deadline=None)
@given(df=int_frames(), k=st.integers(2, 4), data=st.data())
def test_keyed_suppression_blanks_the_cells_pandas_blanks(
    df: pd.DataFrame, k: int, data: st.DataObject
) -> None:
    qi = [c for c in df.columns if c.startswith("q")]
    importance = data.draw(st.none() | st.permutations(qi))
    kw = {"missing_values": [-9], "importance": importance, "missing": "wildcard"}
    with pytest.MonkeyPatch.context() as mp:
        # the hash-table greedy on both sides (the keyed route takes it on large inputs)
        mp.setattr(_engine, "bitset_fits", lambda *a: False)
        mp.setattr(keyed, "CELLS_PER_ROW", 10**6)
        if len(df) < k:
            for frame in (df, _relation(df)):
                with pytest.raises(InvalidParameterError, match="at most the number of records"):
                    microsdc.local_suppression(frame, qi, k, **kw)
            return
        want = microsdc.local_suppression(df, qi, k, **kw)
        rel = _relation(df)
        got = microsdc.local_suppression(rel, qi, k, **kw)
    # the engine checks the other columns as pandas does, on the same cells
    assert got.details == {"route": "combined key", "recoverable": want.details["recoverable"]}
    assert got.data.columns == rel.columns and got.data.types == rel.types
    released = _released(got.data)
    assert rows_of(released, df.columns) == rows_of(want.data, df.columns)
    assert got.n_cells == want.n_cells and got.n_rows == len(df)
    assert got.n_at_risk_before == want.n_at_risk_before and got.n_at_risk_after == 0
    assert got.n_rows_suppressed == want.n_rows_suppressed
    assert got.n_true_fk_below(k) == want.n_true_fk_below(k)
    assert got.n_patterns == len(df[qi].replace(-9, pd.NA).drop_duplicates())
    # k reached, by the definition
    fk, _ = fk_bruteforce(rows_of(released[qi].replace(-9, pd.NA), qi))
    assert min(fk) >= k


def test_keyed_suppression_hand_computed() -> None:
    # (1, 1) x 3, (1, 2) x 3, (2, 2) once, (3, 1) once: k = 2
    df = pd.DataFrame(
        {
            "sex": pd.array([1, 1, 1, 1, 1, 1, 2, 3], dtype="Int64"),
            "age band": pd.array([1, 1, 1, 2, 2, 2, 2, 1], dtype="Int16"),
            "name": list("abcdefgh"),
            "rid": range(8),
        }
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_engine, "bitset_fits", lambda *a: False)
        res = microsdc.local_suppression(_relation(df), ["sex", "age band"], 2, missing="wildcard")
    # checked in the engine: name and rid (a value per record) give nothing back
    assert res.details == {"route": "combined key", "recoverable": []}
    out = _released(res.data)
    # sex has more categories: blanked first (sdcMicro's default importance)
    assert out["sex"].isna().tolist() == [False] * 6 + [True, True]
    assert out["age band"].tolist() == df["age band"].tolist()
    assert out["name"].tolist() == list("abcdefgh")
    assert [str(t) for t in res.data.types] == ["BIGINT", "SMALLINT", "VARCHAR", "BIGINT"]
    assert res.n_cells == 2 and res.n_patterns == 4 and res.n_rows == 8
    p = res.patterns  # only the two patterns at risk
    assert p[["sex", "age band"]].values.tolist() == [[3, 1], [2, 2]] or p[
        ["sex", "age band"]
    ].values.tolist() == [[2, 2], [3, 1]]
    assert p["fk_before"].tolist() == [1, 1] and sorted(p["fk_after"].tolist()) == [4, 4]
    assert p["cells"].tolist() == [1, 1]


def test_keyed_suppression_returns_the_relation_when_nothing_is_at_risk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    df = pd.DataFrame({"a": pd.array([1, 1, 2, 2, None], dtype="Int64"), "rid": range(5)})
    rel = _relation(df)
    monkeypatch.setattr(_engine, "bitset_fits", lambda *a: False)  # as for a large input
    res = microsdc.local_suppression(rel, ["a"], 3, missing="wildcard")
    assert res.data is rel and res.n_cells == 0 and res.n_rows == 5 and res.n_patterns == 3
    assert len(res.patterns) == 0
    assert res.details == {"route": "combined key", "recoverable": []}  # nothing blanked


def test_keyed_suppression_small_inputs_take_the_bitset_greedy_as_pandas() -> None:
    rng = np.random.default_rng(3)
    df = pd.DataFrame({f"q{j}": pd.array(rng.integers(0, 6, 400), dtype="Int64") for j in range(3)})
    df.loc[rng.random(400) < 0.1, "q1"] = pd.NA
    df["rid"] = range(400)
    qi = ["q0", "q1", "q2"]
    want = microsdc.local_suppression(df, qi, 4, missing="wildcard")
    got = microsdc.local_suppression(_relation(df), qi, 4, missing="wildcard")
    assert want.n_cells > 0 and "route" not in got.details
    assert rows_of(_released(got.data), df.columns) == rows_of(want.data, df.columns)


def test_keyed_suppression_warns_about_a_key_variable_missing_everywhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    df = pd.DataFrame(
        {"a": pd.array([1, 1, 2, 2, 3], dtype="Int64"), "b": pd.array([None] * 5, dtype="Int64")}
    )
    monkeypatch.setattr(_engine, "bitset_fits", lambda *a: False)
    with pytest.warns(microsdc.DisclosureRiskWarning, match="'b' is missing in every record"):
        res = microsdc.local_suppression(_relation(df), ["a", "b"], 2, missing="wildcard")
    assert res.details == {"route": "combined key", "recoverable": []}  # no other column
    released = res.data.order("a").fetchall()
    assert released == [(1, None), (1, None), (2, None), (2, None), (None, None)]
    assert res.n_cells == 1  # the lone 3 loses its value; b matches everything already
