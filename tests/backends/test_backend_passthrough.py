"""Columns a method does not use come back untouched and are never judged as key
variables: list, dict and struct columns, and a float column holding both NaN and
null, on every engine and through every method."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import microsdc

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")

N = 12
FLOATS = [float("nan"), 1.0, None, 2.0, 3.0, float("nan"), 1.0, 1.0, 2.0, 2.0, 3.0, 4.0]
LISTS = [[i, i] for i in range(N)]
DICTS = [{"k": i % 3} for i in range(N)]


def _table() -> Any:
    return pa.table(
        {
            "a": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5],
            "b": ["x", "y"] * 6,
            "hid": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6],
            "reg": ["r1", "r1", "r2", "r2"] * 3,
            "size": [2] * N,
            "num": [1.5, 2.0, 3.0, 40.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 120.0],
            "f": pa.array(FLOATS, type=pa.float64(), from_pandas=False),  # NaN and null
            "l": pa.array(LISTS),
            "m": pa.array(DICTS),
        }
    )


FRAMES: dict[str, Callable[[], Any]] = {
    "pandas": lambda: _table().to_pandas(),
    "pyarrow": _table,
    "polars": lambda: pl.from_arrow(_table()),
    "polars lazy": lambda: pl.from_arrow(_table()).lazy(),
    "duckdb": lambda: duckdb.from_arrow(_table()),
}

CALLS: dict[str, Callable[[Any], Any]] = {
    "local_suppression": lambda d: microsdc.local_suppression(d, ["a", "b"], 2).data,
    "sample_frequencies": lambda d: microsdc.sample_frequencies(d, ["a", "b"], k=2),
    "record_swap": lambda d: microsdc.record_swap(
        d,
        hid="hid",
        hierarchy=["reg"],
        similar=[["size"]],
        risk_variables=["a"],
        swaprate=0.5,
        seed=3,
    ),
}


def _arrow(out: Any) -> Any:
    out = getattr(out, "data", out)
    if isinstance(out, tuple):
        out = out[0]
    if hasattr(out, "collect"):
        out = out.collect()
    if hasattr(out, "to_arrow_table"):
        out = out.to_arrow_table()
    if isinstance(out, pl.DataFrame):
        out = out.to_arrow()
    return out


# the swap of so few households finds no donors and says so; only the columns matter here
@pytest.mark.filterwarnings("ignore:.*found no donor:microsdc.DisclosureRiskWarning")
@pytest.mark.parametrize("kind", sorted(FRAMES))
@pytest.mark.parametrize("call", sorted(CALLS))
def test_untouched_columns_pass_through(kind: str, call: str) -> None:
    df = FRAMES[kind]()
    if call == "record_swap" and kind in ("polars lazy", "duckdb"):
        pytest.skip("record swapping needs the records in memory")
    out = CALLS[call](df)
    if kind == "pandas":
        if "f" not in out.columns:  # sample_frequencies: the output columns only
            return
        assert [list(v) for v in out["l"]] == LISTS
        assert list(out["m"]) == DICTS
        assert np.isnan(out["f"].to_numpy()).sum() == 3  # pandas has one missing float
        return
    table = _arrow(out)
    if "f" not in table.column_names:
        return
    f = table.column("f").to_pylist()
    assert [v is None for v in f] == [v is None for v in FLOATS]  # a null stays a null
    assert [v != v for v in f if v is not None] == [  # and a NaN stays a NaN
        v != v for v in FLOATS if v is not None
    ]
    assert table.column("l").to_pylist() == LISTS
    assert table.column("m").to_pylist() == DICTS


def test_recoverable_cells_compares_lists_by_content() -> None:
    # the list column repeats the blanked key variable: it gives the blank back
    before = pd.DataFrame({"educ": ["BA"] * 30 + ["MA"] * 30, "years": [[16]] * 30 + [[18]] * 30})
    after = before.assign(educ=[None] + ["BA"] * 29 + ["MA"] * 30)
    found = microsdc.recoverable_cells(before, after, ["educ"])
    assert found.values.tolist() == [["educ", "years", 1, 1, 1.0]]
