"""Under missing="category", an engine blanks every record of a key combination alike. When
the solution for the records blanks records of one combination differently, the engine's
greedy on patterns may blank many more cells: it must say so, never silently."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from microsdc import local_suppression
from microsdc.exceptions import SDCWarning

pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")

SPLIT = pd.DataFrame(
    {
        "a": [2, 0, 0, 0, 0, 2, 2, 1, 0, 0, 0, 1],
        "b": [1, 1, 0, 0, 2, 2, 0, 0, 1, 1, 2, 1],
        "c": [0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1],
    }
)
QI = ["a", "b", "c"]


def _lazy(engine: str, df: pd.DataFrame) -> object:
    return pl.from_pandas(df).lazy() if engine == "polars" else duckdb.from_df(df)


def _released(res: object) -> pd.DataFrame:
    data = res.data  # type: ignore[attr-defined]
    return data.collect().to_pandas() if hasattr(data, "collect") else data.df()


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_more_cells_than_the_solution_for_the_records_is_said(engine: str) -> None:
    assert local_suppression(SPLIT, QI, 3).n_cells == 21  # pandas, record by record
    with pytest.warns(SDCWarning, match=r"blanked 36 cells, where a solution for the records"):
        res = local_suppression(_lazy(engine, SPLIT), QI, 3)
    assert res.n_cells == 36  # every cell: the greedy on patterns
    solution = res.details["record_solution_cells"]
    assert 0 < solution < 36
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        released = _released(local_suppression(_lazy(engine, SPLIT), QI, 3))
    # still k-anonymous with a blank as one more value: every released tuple 3 times or more
    sizes = released[QI].astype(object).where(released[QI].notna(), "blank").value_counts()
    assert sizes.min() >= 3


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_no_warning_when_the_patterns_come_out_alike(engine: str) -> None:
    alike = pd.DataFrame({"a": [1, 1, 1, 2, 2, 2, 3], "b": [0, 0, 0, 1, 1, 1, 1]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", SDCWarning)
        res = local_suppression(_lazy(engine, alike), ["a", "b"], 3)
    assert res.details == {}
    assert res.n_cells == local_suppression(alike, ["a", "b"], 3).n_cells
