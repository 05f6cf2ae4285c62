"""Width bands in the engine (``bin_width_lazy``) are those of ``bin_numeric`` on pandas,
values on a band's edge included."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microsdc.recoding import bin_numeric
from microsdc.recoding.lazy import bin_width_lazy

duckdb = pytest.importorskip("duckdb")
pl = pytest.importorskip("polars")
pytest.importorskip("narwhals")


def _engine_labels(values: list[float | None], width: float, origin: float, engine: str) -> list:
    frame = pd.DataFrame({"x": pd.array(values, dtype="Float64"), "i": range(len(values))})
    if engine == "polars":
        lazy = pl.from_pandas(frame).lazy()
        out, _ = bin_width_lazy(lazy, "x", width, origin=origin, missing_values=["-9"])
        got = out.collect().sort("i")["x"].to_list()
    else:
        con = duckdb.connect()
        rel = con.from_df(frame)
        out, _ = bin_width_lazy(rel, "x", width, origin=origin, missing_values=["-9"])
        got = [r[0] for r in out.order("i").select("x").fetchall()]
    return got


def _pandas_labels(values: list[float | None], width: float, origin: float) -> list:
    s = pd.Series(pd.array(values, dtype="Float64"))
    out = bin_numeric(s, width=width, origin=origin, missing_values=["-9"])
    return [None if pd.isna(v) else str(v) for v in out.astype(object)]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_edges_as_their_labels_say(engine: str) -> None:
    values = [0.0, 0.1, 0.2, 0.3, 0.6, 0.7, 2.3, 0.35, None, -9.0]
    want = _pandas_labels(values, 0.1, 0.0)
    assert want[:7] == [
        "[0, 0.1)",
        "[0.1, 0.2)",
        "[0.2, 0.3)",
        "[0.3, 0.4)",
        "[0.6, 0.7)",
        "[0.7, 0.8)",
        "[2.3, 2.4)",
    ]
    assert want[7:] == ["[0.3, 0.4)", None, "-9.0"]  # a declared code given as text
    assert _engine_labels(values, 0.1, 0.0, engine) == want


@settings(max_examples=40, deadline=None)
@given(
    steps=st.lists(st.integers(-300, 300), min_size=1, max_size=12),
    jitter=st.lists(st.sampled_from([0.0, 0.0, 0.3, 0.5, 0.999]), min_size=12, max_size=12),
    width=st.sampled_from([0.1, 0.25, 0.01, 2.5, 5.0, 7.5, 1.0, 0.3]),
    origin=st.sampled_from([0.0, 1.0, 0.05, -2.5]),
)
def test_engines_band_as_pandas(
    steps: list[int], jitter: list[float], width: float, origin: float
) -> None:
    # values on and between edges: origin + (i + jitter) * width
    values: list[float | None] = [
        origin + (i + j) * width for i, j in zip(steps, jitter, strict=False)
    ]
    want = _pandas_labels(values, width, origin)
    for engine in ("duckdb", "polars"):
        assert _engine_labels(values, width, origin, engine) == want, engine
    # every value lies in the band its label names: "[lo, hi)", or "lo-hi" for integers
    for v, label in zip(values, want, strict=True):
        assert label is not None and v is not None
        if label.startswith("["):
            lo, hi = (float(t) for t in label.strip("[)").split(", "))
            assert lo <= v < hi, (v, label)
        else:
            # "20-24", "-5--1", or "3" for a band of one integer (width 1)
            found = re.fullmatch(r"(-?[0-9.]+)(?:-(-?[0-9.]+))?", label)
            assert found is not None, label
            assert float(found[1]) <= v <= float(found[2] or found[1]), (v, label)
