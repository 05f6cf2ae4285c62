"""local_suppression refuses a setting given without the one it works with (seed without
method="random", subject_rule without subject_id, time_limit without method="exact"),
where alone it would change nothing."""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

import microsdc
from microsdc.exceptions import InvalidParameterError

QI = ["sex", "age"]

#: the message's reason, per parameter
_WHY = {
    "seed": "only the random baseline draws its blanks at random",
    "subject_rule": "it says how the records of one subject are collapsed",
    "time_limit": "only the exact method runs a solver against the clock",
}


def _people() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "pid": [1, 1, 2, 2, 3, 3, 4, 4],
            "sex": ["m", "m", "f", "f", "m", "m", "f", "f"],
            "age": [30, 30, 30, 40, 30, 40, 50, 50],
        }
    )


def _frame(kind: str) -> Any:
    df: Any = _people()
    if kind == "pandas":
        return df
    pl = pytest.importorskip("polars")
    df = pl.from_pandas(df)
    if kind == "polars_lazy":
        return df.lazy()
    if kind == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        return duckdb.connect().from_arrow(df.to_arrow())
    return df


def _refused(df: Any, **kw: Any) -> InvalidParameterError:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(InvalidParameterError) as info:
            microsdc.local_suppression(df, QI, 2, **kw)
    return info.value


FRAMES = ["pandas", "polars", "polars_lazy", "duckdb"]


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("method", ["greedy", "exact"])
def test_a_seed_without_the_random_method_is_refused(frame: str, method: str) -> None:
    # the seed only draws the blanks of method="random": with another method it used to
    # be taken and change nothing (the command line refused it already)
    kw: dict[str, Any] = {"seed": 7}
    if method == "exact":  # on a lazy frame too: its checks come before what it refuses
        kw |= {"method": "exact", "missing": "wildcard"}
    err = _refused(_frame(frame), **kw)
    assert (err.func, err.param, err.value) == ("local_suppression", "seed", 7)
    assert err.related == ("method",)
    assert err.requirement == "given together with method='random'"
    assert str(err) == (
        f"The 'seed' parameter of local_suppression is 7, but method is '{method}', not "
        f"'random': {_WHY['seed']}, so alone it changes nothing. Give method='random' too, "
        "or leave 'seed' out."
    )


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("rule", ["mode", "missing_if_differs"])
def test_a_subject_rule_without_subjects_is_refused(frame: str, rule: str) -> None:
    # the rule only collapses a subject's records; without subject_id it used to be
    # taken and change nothing, "mode" (the default) given explicitly included
    err = _refused(_frame(frame), subject_rule=rule)
    assert (err.func, err.param, err.value) == ("local_suppression", "subject_rule", rule)
    assert err.related == ("subject_id",)
    assert err.requirement == "given together with 'subject_id'"
    assert str(err) == (
        f"The 'subject_rule' parameter of local_suppression is '{rule}', but no "
        f"'subject_id' is given: {_WHY['subject_rule']}, so alone it changes nothing. "
        "Give 'subject_id' too, or leave 'subject_rule' out."
    )


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("method", ["greedy", "random"])
def test_a_time_limit_without_the_exact_method_is_refused(frame: str, method: str) -> None:
    # the limit only stops the exact method's solver: with another method it used to be
    # taken and change nothing
    kw: dict[str, Any] = {"time_limit": 5.0}
    if method == "random":  # on a lazy frame too: its checks come before what it refuses
        kw["method"] = "random"
    err = _refused(_frame(frame), **kw)
    assert (err.func, err.param, err.value) == ("local_suppression", "time_limit", 5.0)
    assert err.related == ("method",)
    assert err.requirement == "given together with method='exact'"
    assert str(err) == (
        f"The 'time_limit' parameter of local_suppression is 5, but method is '{method}', "
        f"not 'exact': {_WHY['time_limit']}, so alone it changes nothing. Give "
        "method='exact' too, or leave 'time_limit' out."
    )


def test_the_time_limit_left_out_is_the_documented_one() -> None:
    from microsdc.suppression.params import TIME_LIMIT

    assert TIME_LIMIT == 60.0
    assert inspect.signature(microsdc.local_suppression).parameters["time_limit"].default is None
    doc = microsdc.local_suppression.__doc__ or ""
    assert "Default (None): 60. Only with that method" in doc
    df = _people()
    kw: dict[str, Any] = {"method": "exact", "missing": "wildcard"}
    left_out = microsdc.local_suppression(df, QI, 2, **kw)
    given = microsdc.local_suppression(df, QI, 2, time_limit=TIME_LIMIT, **kw)
    pd.testing.assert_frame_equal(left_out.data, given.data)
    assert left_out.details["optimal"] and left_out.n_cells == given.n_cells


def test_a_bad_value_is_named_before_it_is_refused_alone() -> None:
    df = _people()
    err = _refused(df, subject_rule="median")
    assert err.param == "subject_rule" and "must be one of" in str(err)
    err = _refused(df, seed="seven")
    assert err.param == "seed" and "alone" not in str(err)
    err = _refused(df, time_limit=-1.0)
    assert err.param == "time_limit" and "must be a real number > 0" in str(err)


def test_the_rule_left_out_is_the_documented_one() -> None:
    signature = inspect.signature(microsdc.local_suppression).parameters
    assert signature["subject_rule"].default is None
    assert signature["seed"].default is None
    doc = microsdc.local_suppression.__doc__ or ""
    assert 'Default (None): "mode"' in doc
    assert "Only with ``subject_id``" in doc
    df = _people()
    left_out = microsdc.local_suppression(df, QI, 2, subject_id="pid")
    mode = microsdc.local_suppression(df, QI, 2, subject_id="pid", subject_rule="mode")
    differs = microsdc.local_suppression(
        df, QI, 2, subject_id="pid", subject_rule="missing_if_differs"
    )
    pd.testing.assert_frame_equal(left_out.data, mode.data)
    # the rule given is used: subjects 2 and 3 have two ages, blank under missing_if_differs
    assert differs.data["age"].isna().sum() > 0
    assert not left_out.data.equals(differs.data)


def test_the_seed_with_the_random_method_is_taken() -> None:
    df = pd.DataFrame(
        {"sex": list("mfmfmfmfmf") * 3, "age": np.arange(30) % 7, "town": np.arange(30) % 3}
    )
    qi = ["sex", "age", "town"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = microsdc.local_suppression(df, qi, 2, method="random", seed=3)
        two = microsdc.local_suppression(df, qi, 2, method="random", seed=3)
    pd.testing.assert_frame_equal(one.data, two.data)
    assert one.n_cells > 0
