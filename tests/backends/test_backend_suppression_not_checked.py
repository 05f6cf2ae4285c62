"""``local_suppression`` on a lazy frame cannot check whether other columns give
blanked values back (that needs the records): when it blanked cells and the frame has
other columns, it says so once (``DisclosureRiskWarning``) and
``details["recoverable"]`` is None (not checked); pandas checks it."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import microsdc
from microsdc.exceptions import DisclosureRiskWarning

pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")

#: ``code`` gives ``edu`` back: the rare (m, c) record is blanked.
FRAME = pd.DataFrame(
    {
        "sex": ["m", "m", "m", "f", "f", "f", "m"],
        "edu": ["a", "a", "a", "b", "b", "b", "c"],
        "code": [1, 1, 1, 2, 2, 2, 3],
    }
)


def _lazy(kind: str, df: pd.DataFrame) -> object:
    if kind == "polars":
        return pl.from_pandas(df).lazy()
    return duckdb.connect().from_df(df)


def _caught(frame: object, qi: list[str]) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = microsdc.local_suppression(frame, qi, k=2)
    said = [str(w.message) for w in caught if issubclass(w.category, DisclosureRiskWarning)]
    return res, [s for s in said if "other columns give blanked values back" in s]


@pytest.mark.parametrize("kind", ["polars", "duckdb"])
def test_a_lazy_frame_says_the_linked_columns_were_not_checked(kind: str) -> None:
    res, said = _caught(_lazy(kind, FRAME), ["sex", "edu"])
    assert res.n_cells == 2  # (m, c) and one more to hide it among
    assert res.details["recoverable"] is None
    assert len(said) == 1  # once per call
    assert "Not checked here" in said[0]
    assert "2 cell(s) blanked; 1 other column(s), such as 'code'" in said[0]
    assert "microsdc.recoverable_cells" in said[0]
    assert "linked=" in said[0]
    assert res.to_dict()["recoverable"] is None
    assert "not checked: whether other columns give blanked values back" in res.summary()


@pytest.mark.parametrize("kind", ["polars", "duckdb"])
def test_no_note_without_other_columns_or_blanked_cells(kind: str) -> None:
    res, said = _caught(_lazy(kind, FRAME[["sex", "edu"]]), ["sex", "edu"])
    assert res.n_cells == 2 and said == [] and "recoverable" not in res.details
    safe = FRAME.iloc[:6]  # every key combination three times: nothing blanked
    res, said = _caught(_lazy(kind, safe), ["sex", "edu"])
    assert res.n_cells == 0 and said == [] and "recoverable" not in res.details


def test_pandas_checks_it() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = microsdc.local_suppression(FRAME, ["sex", "edu"], k=2)
    assert isinstance(res.details["recoverable"], list)
    assert not [w for w in caught if "Not checked here" in str(w.message)]
