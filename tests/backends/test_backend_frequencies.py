"""sample_frequencies and check_k_anonymity on polars, pyarrow and DuckDB frames equal pandas."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microsdc
from microsdc.exceptions import ColumnNotFoundError, DataValidationError, InvalidParameterError

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")

POLICIES = ["wildcard", "category", "conservative", "probabilistic", 0.5]


@st.composite
def frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 40))
    m = draw(st.integers(1, 4))
    data: dict[str, list[object]] = {}
    for j in range(m):
        kind = draw(st.sampled_from(["int", "str", "float"]))
        values = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
        holes = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        if kind == "int":
            col: list[object] = [None if h else v for v, h in zip(values, holes, strict=True)]
        elif kind == "str":
            col = [None if h else f"v{v}" for v, h in zip(values, holes, strict=True)]
        else:
            col = [np.nan if h else v + 0.5 for v, h in zip(values, holes, strict=True)]
        data[f"q{j}"] = col
    out = pd.DataFrame(data)
    for c in out.columns:
        if out[c].map(lambda v: isinstance(v, int)).any():
            out[c] = out[c].astype("Int64")
    out["w"] = draw(st.lists(st.integers(1, 9), min_size=n, max_size=n))
    out["rid"] = np.arange(n)
    return out


def _by_rid(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values("rid").reset_index(drop=True)


def _eager_kinds(df: pd.DataFrame) -> list[object]:
    return [pl.from_pandas(df), pa.Table.from_pandas(df, preserve_index=False)]


@settings(max_examples=25)
@given(df=frames(), policy=st.sampled_from(POLICIES), k=st.integers(1, 4))
def test_fk_equal_on_every_backend(df: pd.DataFrame, policy: object, k: int) -> None:
    qi = [c for c in df.columns if c.startswith("q")]
    want = microsdc.sample_frequencies(df, qi, k=k, missing=policy, weights="w")
    for eager in _eager_kinds(df):
        got = microsdc.sample_frequencies(eager, qi, k=k, missing=policy, weights="w")
        assert type(got) is type(eager)
        got_pd = got.to_pandas()
        np.testing.assert_allclose(got_pd["fk"], want["fk"])
        np.testing.assert_allclose(got_pd["Fk"], want["Fk"])
        assert got_pd["at_risk"].tolist() == want["at_risk"].tolist()
    lazy = microsdc.sample_frequencies(
        pl.from_pandas(df).lazy(), qi, k=k, missing=policy, weights="w"
    )
    assert isinstance(lazy, pl.LazyFrame)
    got_lazy = lazy.collect().to_pandas()  # polars keeps the input's order
    np.testing.assert_allclose(got_lazy["fk"], want["fk"])
    np.testing.assert_allclose(got_lazy["Fk"], want["Fk"])
    assert got_lazy["at_risk"].tolist() == want["at_risk"].tolist()
    rel = duckdb.from_arrow(pa.Table.from_pandas(df, preserve_index=False))
    got_db = _by_rid(microsdc.sample_frequencies(rel, qi, k=k, missing=policy, weights="w").df())
    np.testing.assert_allclose(got_db["fk"], want["fk"])
    np.testing.assert_allclose(got_db["Fk_pop"], want["Fk"])
    assert got_db["at_risk"].tolist() == want["at_risk"].tolist()
    assert got_db["rid"].tolist() == list(range(len(df)))


@settings(max_examples=25)
@given(df=frames(), k=st.integers(1, 4))
def test_check_k_anonymity_equal_on_lazy_backends(df: pd.DataFrame, k: int) -> None:
    qi = [c for c in df.columns if c.startswith("q")]
    n_want, summary = microsdc.check_k_anonymity(df, qi, k, weights="w")
    rel = duckdb.from_arrow(pa.Table.from_pandas(df, preserve_index=False))
    for frame in (pl.from_pandas(df).lazy(), rel, pl.from_pandas(df)):
        n_got, got = microsdc.check_k_anonymity(frame, qi, k, weights="w")
        assert n_got == n_want
        got_pd = got.to_pandas() if hasattr(got, "to_pandas") else got
        assert sorted(got_pd["count"]) == sorted(summary["count"])
        assert got_pd["count"].sum() == len(df)
        fk_name = "Fk" if "Fk" in got_pd else "Fk_pop"
        key = sorted(zip(got_pd["fk"], got_pd["count"], got_pd[fk_name], strict=True))
        assert key == sorted(zip(summary["fk"], summary["count"], summary["Fk"], strict=True))


def test_hand_computed_example_on_duckdb_and_polars_lazy() -> None:
    df = pd.DataFrame(
        {"A": [0, 0, 1, 1, None, 0, None], "B": [1, 1, 2, 1, 2, None, None], "rid": range(7)}
    )
    rel = duckdb.from_arrow(pa.Table.from_pandas(df, preserve_index=False))
    out = _by_rid(microsdc.sample_frequencies(rel, ["A", "B"], k=3).df())
    assert out["fk"].tolist() == [4, 4, 3, 2, 4, 5, 7]
    assert out["at_risk"].tolist() == [False, False, False, True, False, False, False]
    lazy = microsdc.sample_frequencies(pl.from_pandas(df).lazy(), ["A", "B"]).collect()
    assert lazy["fk"].to_list() == [4, 4, 3, 2, 4, 5, 7]


def test_nan_null_and_declared_codes_are_all_missing() -> None:
    # a float NaN, a null and a declared code are one and the same missing value
    frame = pl.DataFrame(
        {"a": [1.0, 1.0, float("nan"), None, -9.0], "b": ["x", "x", "x", "x", "x"]}
    )
    want = [5, 5, 5, 5, 5]
    got = microsdc.sample_frequencies(frame.lazy(), ["a", "b"], missing_values=[-9])
    assert got.collect()["fk"].to_list() == want
    rel = duckdb.from_arrow(frame.to_arrow())
    out = microsdc.sample_frequencies(rel, ["a", "b"], missing_values=[-9]).fetchall()
    assert sorted(r[-1] for r in out) == want
    assert (
        microsdc.sample_frequencies(frame, ["a", "b"], missing_values=[-9])["fk"].to_list() == want
    )


def test_errors_before_any_work() -> None:
    lazy = pl.LazyFrame({"a": [1, 2], "w": [1.0, None], "s": ["x", "y"]})
    with pytest.raises(ColumnNotFoundError, match="'nope'"):
        microsdc.sample_frequencies(lazy, ["a", "nope"])
    with pytest.raises(InvalidParameterError, match="'k' parameter"):
        microsdc.sample_frequencies(lazy, ["a"], k=0)
    with pytest.raises(DataValidationError, match="1 missing"):
        microsdc.sample_frequencies(lazy, ["a"], weights="w")
    with pytest.raises(DataValidationError, match="must be numeric"):
        microsdc.sample_frequencies(lazy, ["a"], weights="s")
    with pytest.raises(InvalidParameterError, match="column name"):
        microsdc.sample_frequencies(lazy, ["a"], weights=[1.0, 2.0])
    neg = duckdb.sql("select * from (values (1, -1.0), (2, 1.0)) t(a, w)")
    with pytest.raises(DataValidationError, match="negative"):
        microsdc.check_k_anonymity(neg, ["a"], 2, weights="w")
    clash = pl.LazyFrame({"a": [1, 2], "Fk": [0, 0]})
    with pytest.raises(InvalidParameterError, match="already has 'Fk'"):
        microsdc.sample_frequencies(clash, ["a"])
    # DuckDB's names are case-insensitive: FK is fk there (polars keeps both, below)
    with pytest.raises(InvalidParameterError, match="already has 'FK'"):
        microsdc.sample_frequencies(duckdb.sql("select 1 as a, 0 as FK"), ["a"])
    both = microsdc.sample_frequencies(pl.LazyFrame({"a": [1, 2], "FK": [0, 0]}), ["a"])
    assert both.collect().columns == ["a", "FK", "fk"]


def test_missing_engine_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "narwhals", None)
    with pytest.raises(InvalidParameterError, match=r'pip install "microsdc\[polars\]"'):
        microsdc.sample_frequencies(pl.DataFrame({"a": [1]}), ["a"])
    with pytest.raises(InvalidParameterError, match=r'pip install "microsdc\[duckdb\]"'):
        microsdc.sample_frequencies(duckdb.sql("select 1 as a"), ["a"])


def test_unknown_object_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match="pandas DataFrame \\(or a polars, pyarrow"):
        microsdc.sample_frequencies({"a": [1]}, ["a"])


@settings(max_examples=20)
@given(df=frames(), k=st.integers(1, 4), policy=st.sampled_from(POLICIES))
def test_safe_combinations_equal_on_every_backend(df: pd.DataFrame, k: int, policy: object) -> None:
    qi = [c for c in df.columns if c.startswith("q")]
    want = microsdc.safe_combinations(df, qi, k, min_combi_size=1, missing=policy)
    rel = duckdb.from_arrow(pa.Table.from_pandas(df, preserve_index=False))
    for frame in (pl.from_pandas(df), pl.from_pandas(df).lazy(), rel):
        assert microsdc.safe_combinations(frame, qi, k, min_combi_size=1, missing=policy) == want


def test_all_zero_weights_refused_on_lazy_frames() -> None:
    lazy = pl.LazyFrame({"a": [1, 2], "w": [0.0, 0.0]})
    with pytest.raises(DataValidationError, match="0 for every record"):
        microsdc.sample_frequencies(lazy, ["a"], weights="w")
    with pytest.raises(DataValidationError, match="0 for every record"):
        microsdc.sample_frequencies(
            pd.DataFrame({"a": [1, 2], "w": [0.0, 0.0]}), ["a"], weights="w"
        )


def test_duckdb_awkward_names_and_shadowing_tables() -> None:
    # dots, spaces, quotes and SQL-ish names (k, t) in the key variables; tables of the
    # caller's connection named like microsdc's join tables must not leak into results
    con = duckdb.connect()
    con.execute("CREATE TABLE microsdc_patterns AS SELECT 1 AS a, 99 AS __microsdc_out0")
    con.execute("CREATE TABLE t AS SELECT 5 AS x")
    rng = np.random.default_rng(0)
    n = 120
    df = pd.DataFrame(
        {
            "id": np.arange(n),
            "s.ex": rng.choice(["m", "f"], n),
            "re g": rng.integers(0, 5, n),
            "k": rng.integers(0, 3, n),
            'q"x': rng.integers(0, 4, n).astype(float),
            "w.t": rng.random(n) + 1,
        }
    )
    df.loc[rng.random(n) < 0.1, 'q"x'] = np.nan
    con.register("people_df", df)
    con.execute("CREATE TABLE people AS SELECT * FROM people_df")
    rel = con.table("people")
    qi = ["s.ex", "re g", "k", 'q"x']
    want = microsdc.sample_frequencies(df, qi, k=3, weights="w.t")
    got = microsdc.sample_frequencies(rel, qi, k=3, weights="w.t").df().sort_values("id")
    assert got["fk"].tolist() == want["fk"].tolist()
    np.testing.assert_allclose(got["Fk_pop"], want["Fk"])
    assert microsdc.check_k_anonymity(rel, qi, k=3)[0] == microsdc.check_k_anonymity(df, qi, k=3)[0]
    assert microsdc.safe_combinations(rel, qi, 3) == microsdc.safe_combinations(df, qi, 3)
    wc = {"missing": "wildcard"}  # the greedy both routes share
    lazy = microsdc.local_suppression(rel, qi, k=3, **wc)
    eager = microsdc.local_suppression(df, qi, k=3, **wc)
    assert lazy.n_cells == eager.n_cells > 0
    out = lazy.data.df().sort_values("id").reset_index(drop=True)
    for c in qi:
        assert out[c].isna().tolist() == eager.data[c].isna().tolist()
    # integer key variables of small range take the combined-key route
    keyed = microsdc.sample_frequencies(rel, ["re g", "k"], k=3).df().sort_values("id")
    assert keyed["fk"].tolist() == microsdc.sample_frequencies(df, ["re g", "k"])["fk"].tolist()
