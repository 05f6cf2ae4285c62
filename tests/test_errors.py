"""Errors carry what they are about as fields, and keep them through pickling."""

from __future__ import annotations

import pickle

import pandas as pd
import pytest

import microsdc
from microsdc._core.messages import render
from microsdc.exceptions import ColumnNotFoundError, InvalidParameterError


def test_parameter_error_fields() -> None:
    df = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(InvalidParameterError) as info:
        microsdc.check_k_anonymity(df, ["a"], k=0)
    exc = info.value
    assert (exc.func, exc.param, exc.requirement, exc.value) == (
        "check_k_anonymity",
        "k",
        "an int >= 1",
        0,
    )
    assert render(exc, {"k": "-k/--k-anonymity"}) == (
        "Option -k/--k-anonymity must be an int >= 1. Got 0 instead."
    )
    assert render(exc, {"k": "'suppression.k'"}, "Key") == (
        "Key 'suppression.k' must be an int >= 1. Got 0 instead."
    )


def test_column_error_fields_survive_pickling() -> None:
    df = pd.DataFrame({"age": [1, 2]})
    with pytest.raises(ColumnNotFoundError) as info:
        microsdc.sample_frequencies(df, ["Age"])
    back = pickle.loads(pickle.dumps(info.value))
    assert type(back) is ColumnNotFoundError
    assert str(back) == str(info.value)
    assert (back.func, back.param, back.missing) == (
        "sample_frequencies",
        "quasi_identifiers",
        ["Age"],
    )


def test_value_phrases_take_the_readers_names() -> None:
    exc = InvalidParameterError(
        "method='exact' of local_suppression supports missing='wildcard' only.",
        func="local_suppression",
        param="method",
        related=("missing",),
    )
    assert render(exc, {"method": "--method", "missing": "--missing"}) == (
        "--method exact supports --missing wildcard only."
    )
    assert render(exc, {"method": "'suppression.method'"}, "Key") == (
        "'suppression.method' = \"exact\" supports missing='wildcard' only."
    )
    # a parameter whose name ends another's is not reworded inside it
    assert render(exc, {"ing": "--ing"}) == "method='exact' supports missing='wildcard' only."


def test_a_message_without_its_function_is_reworded_by_its_param() -> None:
    exc = InvalidParameterError(
        "The 'seed' parameter must be an int >= 0. Got -5 instead.",
        func="record_swap",
        param="seed",
    )
    assert render(exc, {"seed": "--seed"}) == "Option --seed must be an int >= 0. Got -5 instead."
    # another parameter's phrase is left as it is
    assert render(exc, {"k": "-k"}) == str(exc)
