"""A frame of any engine that repeats a column name is refused as pandas refuses it.

A DuckDB relation (or a Spark frame) may repeat a column name; a release built on
it dropped one of the columns (``local_suppression``) or renamed it ``age_1``
(``sample_frequencies``), without a word, and a pyarrow ``Table`` met narwhals' bare
``DuplicateError``. Every engine frame now gets pandas' refusal, naming the repeated
names, the function and the fix.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest

import microsdc
from microsdc.exceptions import DataValidationError

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")

ROWS = [(30, "m", 1), (30, "m", 2), (40, "f", 3), (40, "f", 4), (50, "m", 5)]

CALLS: dict[str, Callable[[Any], Any]] = {
    "local_suppression": lambda df: microsdc.local_suppression(df, ["age", "sex"], 2),
    "sample_frequencies": lambda df: microsdc.sample_frequencies(df, ["age", "sex"], k=2),
    "check_k_anonymity": lambda df: microsdc.check_k_anonymity(df, ["age", "sex"], 2),
    "pram": lambda df: microsdc.pram(df, ["sex"], seed=1),
}


def _pandas() -> pd.DataFrame:
    return pd.DataFrame(ROWS, columns=["age", "sex", "age"])


def _pyarrow() -> Any:
    return pa.table(
        [[r[0] for r in ROWS], [r[1] for r in ROWS], [r[2] for r in ROWS]],
        names=["age", "sex", "age"],
    )


def _duckdb() -> Any:
    con = duckdb.connect()
    values = ", ".join(f"({a}, '{s}', {x})" for a, s, x in ROWS)
    return con.sql(f"SELECT * FROM (VALUES {values}) t(age, sex, x)").select("age, sex, x AS age")


FRAMES: dict[str, Callable[[], Any]] = {
    "pandas": _pandas,
    "pyarrow": _pyarrow,
    "DuckDB": _duckdb,
}


@pytest.mark.parametrize("kind", sorted(FRAMES))
@pytest.mark.parametrize("func", sorted(CALLS))
def test_a_repeated_column_name_is_refused_on_every_engine(kind: str, func: str) -> None:
    frame = FRAMES[kind]()
    with pytest.raises(DataValidationError) as caught:
        CALLS[func](frame)
    err = caught.value
    assert str(err) == (
        f"The data frame passed to {func} has duplicate column names: 'age'. "
        "Rename them so each column can be named."
    )
    assert err.func == func
    assert err.failure_cases == ["age"]


def test_each_repeated_name_is_named_once_in_order() -> None:
    con = duckdb.connect()
    rel = con.sql("SELECT 1 AS b, 2 AS a, 3 AS b, 4 AS a, 5 AS b, 6 AS c")
    with pytest.raises(DataValidationError, match="duplicate column names: 'b', 'a'\\. "):
        microsdc.sample_frequencies(rel, ["c"])


def test_polars_cannot_repeat_a_column_name() -> None:
    # so the polars frames need no check of their own (a lazy schema is not resolved)
    with pytest.raises(pl.exceptions.DuplicateError):
        pl.DataFrame([pl.Series("a", [1]), pl.Series("a", [2])])
    with pytest.raises(pl.exceptions.DuplicateError):
        pl.LazyFrame({"a": [1], "b": [2]}).rename({"b": "a"}).collect_schema()


def test_a_relation_without_a_repeated_name_keeps_every_column() -> None:
    con = duckdb.connect()
    values = ", ".join(f"({a}, '{s}', {x})" for a, s, x in ROWS)
    rel = con.sql(f"SELECT * FROM (VALUES {values}) t(age, sex, x)")
    result = microsdc.local_suppression(rel, ["age", "sex"], 2)
    assert result.data.columns == ["age", "sex", "x"]
    assert result.n_cells == microsdc.local_suppression(rel.df(), ["age", "sex"], 2).n_cells
