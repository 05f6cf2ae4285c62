"""The risk summary lists key combinations in one total order, the same on every engine:
fk, count (largest first), then the key values column by column, a missing value last."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microsdc
from microsdc.risk.pattern_order import summary_order, tie_rounded, value_ranks


def test_value_ranks_by_value_then_kind_for_mixed_types() -> None:
    assert value_ranks(pd.Index(["b", "a", "c"])).tolist() == [1, 0, 2]
    assert value_ranks(pd.Index([3.5, -1.0, 2.0])).tolist() == [2, 0, 1]
    # numbers (booleans among them) first, then texts, then other types by type name
    mixed = pd.Index(["x", pd.Timestamp("2020-01-01"), 2, True, "a", 1.5], dtype=object)
    assert value_ranks(mixed).tolist() == [4, 5, 2, 0, 3, 1]
    # the order met does not matter
    shuffled = pd.Index([1.5, "a", True, 2, pd.Timestamp("2020-01-01"), "x"], dtype=object)
    assert value_ranks(shuffled).tolist() == [1, 3, 0, 2, 5, 4]
    # equal values written differently: by type name (bool, float, int), then as written
    assert value_ranks(pd.Index([1, 1.0, True], dtype=object)).tolist() == [2, 1, 0]
    assert value_ranks(pd.Index([], dtype=object)).tolist() == []


def test_summary_order_by_hand() -> None:
    # rows: (b, -), (a, 10), (b, 10), (a, 20) with fk 1, 1, 1, 2 and count 1, 1, 2, 1:
    # fk 1 first; among them count 2 first: (b, 10); then (a, 10) before (b, -)
    codes = np.array([[1, -1], [0, 0], [1, 0], [0, 1]])
    cats = [pd.Index(["a", "b"]), pd.Index([10, 20])]
    got = summary_order(codes, cats, np.array([1, 1, 1, 2]), np.array([1, 1, 2, 1]))
    assert got.tolist() == [2, 1, 0, 3]
    # a missing value comes after every value of its column
    codes = np.array([[-1, 0], [1, 0], [0, 0]])
    assert summary_order(codes, cats, np.ones(3), np.ones(3)).tolist() == [2, 1, 0]
    # fractional fk summed in another order tie
    assert summary_order(
        np.array([[1, 0], [0, 0]]), cats, np.array([0.1 + 0.2, 0.3]), np.ones(2)
    ).tolist() == [1, 0]
    assert tie_rounded([0.1 + 0.2])[0] == 0.3


def test_check_k_anonymity_breaks_ties_by_the_key_values() -> None:
    df = pd.DataFrame({"sex": ["m", "f", "f", "m", None, "f"], "age": [30, 40, 20, 20, 30, 20]})
    _, summary = microsdc.check_k_anonymity(df, ["sex", "age"], 2, missing="category")
    rows = [tuple(r) for r in summary[["sex", "age", "count", "fk"]].astype(object).to_numpy()]
    rows = [(None if pd.isna(s) else s, a, c, f) for s, a, c, f in rows]
    # fk 1: (f, 40), (m, 20), (m, 30), (missing, 30) by sex then age; fk 2: (f, 20)
    assert rows == [
        ("f", 40, 1, 1),
        ("m", 20, 1, 1),
        ("m", 30, 1, 1),
        (None, 30, 1, 1),
        ("f", 20, 2, 2),
    ]


def _ties(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    """Mostly unique key combinations: thousands of rows tie on fk and count."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "a": rng.integers(0, 400, n),
            "b": rng.integers(0, 400, n),
            "c": rng.choice(np.array(["p", "q", None], dtype=object), n),
        }
    )


def _rows(summary: object, cols: list[str]) -> list[tuple[object, ...]]:
    """The summary's rows as plain values (missing as None, fk and Fk rounded)."""
    frame = summary if isinstance(summary, pd.DataFrame) else summary.to_pandas()  # type: ignore[attr-defined]
    if "Fk_pop" in frame.columns:
        frame = frame.rename(columns={"Fk_pop": "Fk"})
    out = []
    for rec in frame.to_dict("records"):
        keys = tuple(None if pd.isna(rec[c]) else rec[c] for c in cols)
        nums = (int(rec["count"]), float(tie_rounded([rec["fk"]])[0]))
        extra = (float(tie_rounded([rec["Fk"]])[0]),) if "Fk" in rec else ()
        out.append((*keys, *nums, *extra, bool(rec["at_risk"])))
    return out


def _on_every_engine(df: pd.DataFrame, qi: list[str], k: int, **kw: object) -> list[object]:
    """The summary of ``df`` on pandas, polars (eager and lazy) and DuckDB."""
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    duckdb = pytest.importorskip("duckdb")
    pytest.importorskip("narwhals")
    rel = duckdb.from_arrow(pa.Table.from_pandas(df, preserve_index=False))
    return [
        microsdc.check_k_anonymity(frame, qi, k, **kw)[1]
        for frame in (df, pl.from_pandas(df), pl.from_pandas(df).lazy(), rel)
    ]


@pytest.mark.parametrize("missing", ["wildcard", "category", "probabilistic", 0.5])
def test_the_summary_is_the_same_row_for_row_on_every_engine(missing: object) -> None:
    df = _ties()
    qi = ["a", "b", "c"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        summaries = _on_every_engine(df, qi, 3, missing=missing)
    want = _rows(summaries[0], qi)
    assert len(want) > 2000 and sum(r[4] == 1.0 for r in want) > 1000  # many ties on fk = 1
    for got in summaries[1:]:
        assert _rows(got, qi) == want

    # in the order promised: fk, count descending, then a, b, c (missing last)
    def key(r: tuple[object, ...]) -> tuple[object, ...]:
        return (r[4], -int(r[3]), r[0], r[1], (r[2] is None, r[2] or ""))  # type: ignore[call-overload]

    assert want == sorted(want, key=key)


@st.composite
def _frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 60))
    m = draw(st.integers(1, 3))
    data: dict[str, object] = {}
    for j in range(m):
        kind = draw(st.sampled_from(["int", "str", "float"]))
        values = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
        holes = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        if kind == "int":
            data[f"q{j}"] = pd.array(
                [None if h else v for v, h in zip(values, holes, strict=True)], dtype="Int64"
            )
        elif kind == "str":
            data[f"q{j}"] = [None if h else f"v{v}" for v, h in zip(values, holes, strict=True)]
        else:
            data[f"q{j}"] = [np.nan if h else v / 2 for v, h in zip(values, holes, strict=True)]
    out = pd.DataFrame(data)
    out["w"] = draw(st.lists(st.integers(1, 9), min_size=n, max_size=n))
    return out


@settings(max_examples=30, deadline=None)
@given(
    df=_frames(),
    k=st.integers(1, 4),
    missing=st.sampled_from(["wildcard", "category", "probabilistic", 0.5]),
    weighted=st.booleans(),
)
def test_random_frames_give_the_same_summary_on_every_engine(
    df: pd.DataFrame, k: int, missing: object, weighted: bool
) -> None:
    qi = [c for c in df.columns if c.startswith("q")]
    kw: dict[str, object] = {"missing": missing, "weights": "w" if weighted else None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        summaries = _on_every_engine(df, qi, k, **kw)
    want = _rows(summaries[0], qi)
    for got in summaries[1:]:
        assert _rows(got, qi) == want
