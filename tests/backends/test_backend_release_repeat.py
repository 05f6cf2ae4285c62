"""A lazy release is a plan the engine computes again at each collect: on an input
with a fixed row order every collect gives the same cells, record by record."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import microsdc

duckdb = pytest.importorskip("duckdb")
pl = pytest.importorskip("polars")
pytest.importorskip("narwhals")

KEYS = ["a", "b", "c", "d"]


def _records(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 1500
    frame = pd.DataFrame(
        {
            "a": rng.integers(0, 12, n),
            "b": rng.choice(["x", "y", "z"], n),
            "c": rng.integers(0, 6, n),
            "d": rng.choice(["p", "q", "r", "s"], n, p=[0.6, 0.3, 0.07, 0.03]),
            "rid": np.arange(n),
        }
    ).astype({"a": "Int64", "c": "Int64"})
    frame.loc[rng.random(n) < 0.05, "a"] = pd.NA
    frame.loc[rng.random(n) < 0.05, "d"] = None
    return frame


@pytest.mark.parametrize("seed", [0, 1])
def test_two_collects_of_a_duckdb_release_over_a_table_are_identical(seed: int) -> None:
    con = duckdb.connect()
    records = _records(seed)
    con.execute("CREATE TABLE t AS SELECT * FROM records")
    res = microsdc.local_suppression(con.table("t"), KEYS, 3)
    # the solution splits key combinations, so each collect numbers their records again
    assert len(res.patterns) > res.n_patterns
    first = res.data.order("rid").fetchall()
    second = res.data.order("rid").fetchall()
    unordered = sorted(res.data.fetchall(), key=lambda row: row[-1])
    assert first == second == unordered
    blanks = sum(v is None for row in first for v in row[:4])
    assert blanks == res.n_cells + int(records[KEYS].isna().sum().sum())


def test_two_collects_of_a_polars_release_are_identical() -> None:
    records = _records(2)
    res = microsdc.local_suppression(pl.from_pandas(records).lazy(), KEYS, 3)
    assert len(res.patterns) > res.n_patterns
    first, second = res.data.collect(), res.data.collect()
    assert first.equals(second)
    assert first["rid"].to_list() == list(range(len(records)))
