"""``local_suppression`` on a lazy frame checks whether other columns give blanked values
back (in the engine, on counts; tests/backends/test_backend_recoverable.py compares it
with the records): ``details["recoverable"]`` is a list as on pandas, never None, and
the old "Not checked here" warning, which named an arbitrary column, is gone."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import microsdc
from microsdc.exceptions import DisclosureRiskWarning

pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")

#: The rare (m, c) record is blanked, and one (m, a) to hide it among; ``code`` (3 for
#: c, held by that record alone) gives neither back.
FRAME = pd.DataFrame(
    {
        "sex": ["m", "m", "m", "f", "f", "f", "m"],
        "edu": ["a", "a", "a", "b", "b", "b", "c"],
        "code": [1, 1, 1, 2, 2, 2, 3],
    }
)
#: 30 records, ``code`` 10 per value: c (one m, one f) is blanked, and 4 more edu cells
#: to hide them among (k = 3); code gives every one back.
BIGGER = pd.DataFrame(
    {
        "sex": ["m", "f"] * 15,
        "edu": ["a"] * 14 + ["b"] * 14 + ["c", "c"],
        "code": [1] * 14 + [2] * 14 + [3, 3],
    }
)


def _lazy(kind: str, df: pd.DataFrame) -> object:
    if kind == "polars":
        return pl.from_pandas(df).lazy()
    return duckdb.connect().from_df(df)


def _caught(frame: object, qi: list[str], k: int = 2) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = microsdc.local_suppression(frame, qi, k=k)
    said = [str(w.message) for w in caught if issubclass(w.category, DisclosureRiskWarning)]
    return res, [s for s in said if "blanked values back" in s or "read back" in s]


@pytest.mark.parametrize("kind", ["polars", "duckdb"])
def test_a_lazy_frame_checks_the_other_columns(kind: str) -> None:
    res, said = _caught(_lazy(kind, FRAME), ["sex", "edu"])
    assert res.n_cells == 2  # (m, c) and one more to hide it among
    assert res.details["recoverable"] == []  # as pandas: code gives nothing back
    assert said == []  # no "Not checked here", no pair
    assert res.to_dict()["recoverable"] == []
    assert "not checked" not in res.summary() and "read back" not in res.summary()


@pytest.mark.parametrize("kind", ["polars", "duckdb"])
def test_a_lazy_frame_names_the_pair_it_finds(kind: str) -> None:
    res, said = _caught(_lazy(kind, BIGGER), ["sex", "edu"], k=3)
    want = {"key_variable": "edu", "column": "code", "n_blanked": 6, "n_recoverable": 6}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DisclosureRiskWarning)
        pandas = microsdc.local_suppression(BIGGER, ["sex", "edu"], k=3)
    assert res.details["recoverable"] == pandas.details["recoverable"]
    assert res.details["recoverable"] == [{**want, "share": 1.0}]
    assert len(said) == 1
    assert said[0].startswith(
        "Blanked cells can be read back from other columns: 'edu' from 'code' (6 of 6). "
    )
    assert "linked={key: columns}" in said[0]
    assert res.to_dict()["recoverable"][0]["column"] == "code"
    assert "warning: 6 blanked edu cells can be read back from code" in res.summary()


@pytest.mark.parametrize("kind", ["polars", "duckdb"])
def test_nothing_to_check_without_other_columns_or_blanked_cells(kind: str) -> None:
    res, said = _caught(_lazy(kind, FRAME[["sex", "edu"]]), ["sex", "edu"])
    assert res.n_cells == 2 and said == [] and res.details["recoverable"] == []
    safe = FRAME.iloc[:6]  # every key combination three times: nothing blanked
    res, said = _caught(_lazy(kind, safe), ["sex", "edu"])
    assert res.n_cells == 0 and said == [] and res.details["recoverable"] == []


def test_pandas_checks_it() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = microsdc.local_suppression(FRAME, ["sex", "edu"], k=2)
    assert res.details["recoverable"] == []
    assert not [w for w in caught if "Not checked here" in str(w.message)]
