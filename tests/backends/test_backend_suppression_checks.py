"""local_suppression checks its parameters in one order for every frame: a lazy frame
(polars LazyFrame, DuckDB relation) gets the error a pandas frame gets, and only then
are the settings that need the records refused, before a row is read."""

from __future__ import annotations

import warnings
from typing import Any

import pandas as pd
import pytest

import microsdc
from microsdc.exceptions import InvalidParameterError

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")

QI = ["a", "b"]
DATA = pd.DataFrame(
    {"a": ["x", "x", "y", "y", "z", "z"], "b": [1, 1, 2, 2, 3, 4], "g": [0, 0, 1, 1, 2, 2]}
)


def _lazy(kind: str) -> Any:
    table = pa.Table.from_pandas(DATA, preserve_index=False)
    return pl.from_arrow(table).lazy() if kind == "polars" else duckdb.from_arrow(table)


def _error(df: Any, **kw: Any) -> Exception:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as info:
            microsdc.local_suppression(df, QI, **kw)
    return info.value


#: two faults each: a parameter error of every frame and a setting a lazy engine refuses;
#: the parameter error comes first on every frame (a lazy frame used to refuse the
#: setting first, so its message depended on the frame)
TWO_FAULTS = [
    ({"k": 2, "method": "exact", "accept_rare_values": "yes"}, "accept_rare_values"),
    ({"k": 2, "linked": {"a": ["g"]}, "subject_rule": "mode"}, "subject_rule"),
    ({"k": 2, "dis_suda_threshold": 0.1, "subject_id": "g"}, "dis_suda_threshold"),
    ({"k": 2, "dis_suda_threshold": 0.1, "method": "random"}, "dis_suda_threshold"),
    ({"k": 2, "missing": "probabilistic", "progress": 3}, "progress"),
    ({"k": 2, "method": "exact", "seed": 7, "missing": "wildcard"}, "seed"),
    ({"k": 2, "subject_id": "g", "missing_values": {"nope": [1]}}, "missing_values"),
    ({"k": 2, "method": "exact"}, "method"),  # exact under the default policy
    ({"k": 2, "method": "exact", "missing": "wildcard", "combs": 1}, "method"),
]


@pytest.mark.parametrize("kind", ["polars", "duckdb"])
@pytest.mark.parametrize(("kw", "param"), TWO_FAULTS)
def test_a_lazy_frame_gets_the_parameter_error_of_pandas_first(
    kind: str, kw: dict[str, Any], param: str
) -> None:
    expected = _error(DATA, **kw)
    got = _error(_lazy(kind), **kw)
    assert isinstance(expected, InvalidParameterError)
    assert expected.param == param
    assert type(got) is type(expected)
    assert str(got) == str(expected)
    assert (got.func, got.param) == ("local_suppression", param)  # type: ignore[attr-defined]


#: one setting a lazy engine refuses, with everything else right: the refusal names it,
#: in the capability table's words
REFUSED = [
    ({"method": "exact", "missing": "wildcard"}, "method", "method='exact' works on the records"),
    ({"method": "random"}, "method", "method='random' works on the records"),
    ({"missing": "probabilistic"}, "missing", "missing='probabilistic' suppression works"),
    ({"subject_id": "g"}, "subject_id", "subjects are collapsed from their records"),
    ({"linked": {"a": ["g"]}}, "linked", "blanking linked columns needs their values"),
    ({"dis_suda_threshold": 0.1}, "dis_suda_threshold", "special uniques (DIS-SUDA)"),
]


@pytest.mark.parametrize("kind", ["polars", "duckdb"])
@pytest.mark.parametrize(("kw", "param", "why"), REFUSED)
def test_what_an_engine_cannot_run_is_refused_after_the_checks(
    kind: str, kw: dict[str, Any], param: str, why: str
) -> None:
    got = _error(_lazy(kind), k=2, **kw)
    assert isinstance(got, InvalidParameterError)
    assert got.param == param
    assert str(got).startswith(
        f"The '{param}' parameter of local_suppression is not supported on a lazy frame: "
    )
    assert why in str(got)
    assert "Collect the frame first (polars: .collect(); DuckDB: .pl() or .df()" in str(got)
    # the same call runs on pandas: nothing else is wrong with it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = microsdc.local_suppression(DATA, QI, k=2, **kw)
    assert res.data.shape == DATA.shape


def test_duckdb_combined_key_route_words_a_k_out_of_reach_as_pandas(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the combined-key route counts the records itself (no patterns reach the core):
    # its refusal of a k above them is the core's, word for word
    from microsdc.backends import keyed

    monkeypatch.setattr(keyed, "CELLS_PER_ROW", 10**6)
    monkeypatch.setattr("microsdc.suppression._engine.bitset_fits", lambda *a: False)
    ints = DATA[["b", "g"]]
    rel = duckdb.from_arrow(pa.Table.from_pandas(ints, preserve_index=False))
    kw: dict[str, Any] = {"missing": "wildcard"}
    details = microsdc.local_suppression(rel, ["b", "g"], 2, **kw).details
    assert details == {"route": "combined key", "recoverable": []}
    with pytest.raises(InvalidParameterError) as pandas_err:
        microsdc.local_suppression(ints, ["b", "g"], 7, **kw)
    with pytest.raises(InvalidParameterError) as engine_err:
        microsdc.local_suppression(rel, ["b", "g"], 7, **kw)
    assert (
        str(engine_err.value)
        == str(pandas_err.value)
        == (
            "The 'k' parameter of local_suppression must be at most the number of records: "
            "the data have 6 record(s) and k=7; no suppression can reach it."
        )
    )
    assert engine_err.value.param == "k"
