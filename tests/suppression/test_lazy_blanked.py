"""A LazySuppressionResult says which key variable of each pattern (or piece of one) was
blanked (``blanked``): the flags give the cells blanked per value, checked against the
release the engine computes."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from microsdc.suppression import local_suppression


def _lazy(df: pd.DataFrame, engine: str) -> object:
    if engine == "polars":
        pl = pytest.importorskip("polars")
        return pl.from_pandas(df).lazy()
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.register("frame", df)
    return con.sql("select * from frame")


def _collect(data: object) -> pd.DataFrame:
    if hasattr(data, "collect"):
        return data.collect().to_pandas()  # type: ignore[attr-defined]
    return data.df()  # type: ignore[attr-defined]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_flags_of_a_split_pattern(engine: str) -> None:
    """(0, 0) x 3 and (0, 1) x 1 at k = 2 under "category": the cheapest release blanks
    ``b`` of (0, 1) and of one (0, 0) record; the (0, 0) records come back as two pieces."""
    pytest.importorskip("narwhals")
    df = pd.DataFrame({"a": [0, 0, 0, 0], "b": [0, 0, 0, 1]})
    res = local_suppression(_lazy(df, engine), ["a", "b"], 2, missing="category")
    got = pd.concat([res.patterns[["a", "b", "records"]], res.blanked.add_prefix("blank_")], axis=1)
    rows = sorted(map(tuple, got.to_numpy().tolist()))
    assert rows == [(0, 0, 1, False, True), (0, 0, 2, False, False), (0, 1, 1, False, True)]
    assert res.blanked.sum(axis=1).tolist() == res.patterns["cells"].tolist()


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("missing", ["category", "wildcard"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_flags_give_the_cells_blanked_per_value(engine: str, missing: str, seed: int) -> None:
    pytest.importorskip("narwhals")
    rng = np.random.default_rng(seed)
    n = 200
    df = pd.DataFrame(
        {
            "a": rng.choice([1, 2, 3, 4, -7], n, p=[0.4, 0.3, 0.15, 0.05, 0.1]).astype("float64"),
            "b": rng.choice(["x", "y", "z", "?"], n, p=[0.5, 0.3, 0.1, 0.1]),
            "c": rng.integers(0, 3, n).astype("float64"),
        }
    )
    df.loc[rng.random(n) < 0.05, "a"] = np.nan
    qi = ["a", "b", "c"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = local_suppression(_lazy(df, engine), qi, 3, missing=missing, missing_values=[-7, "?"])
    released = _collect(res.data)
    records = res.patterns["records"].to_numpy()
    assert res.blanked.index.equals(res.patterns.index)
    assert res.blanked.sum(axis=1).tolist() == res.patterns["cells"].tolist()
    for col in qi:
        flags = res.blanked[col].to_numpy(dtype=bool)
        assert int(records[flags].sum()) == int(res.cells_per_qi[col])
        by_value = pd.Series(records[flags]).groupby(res.patterns[col].to_numpy()[flags]).sum()
        # suppression only blanks: a value's cells blanked are those it lost
        lost = df[col].value_counts().sub(released[col].value_counts(), fill_value=0)
        lost = lost[lost > 0].astype(int)
        assert by_value.astype(int).sort_index().to_dict() == lost.sort_index().to_dict()
