"""A key variable of an object column that writes one number in several types (30,
"30", 30.0) gets a warning naming the column, the spellings and the fix: each
spelling is a value of its own, counted apart."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import microsdc
from microsdc.data.spellings import _spelling_groups
from microsdc.exceptions import SDCWarning


def test_a_column_mixing_30_and_text_30_is_warned_about() -> None:
    df = pd.DataFrame({"age": pd.Series([30, 30, "30", 40, 40, 40], dtype=object)})
    with pytest.warns(SDCWarning) as caught:
        fk = microsdc.sample_frequencies(df, ["age"], k=3)["fk"].tolist()
    assert fk == [2, 2, 1, 3, 3, 3]  # the spellings stay apart, as before
    (message,) = [str(w.message) for w in caught if "print alike" in str(w.message)]
    assert message == (
        "key variable 'age' mixes numbers and texts that print alike (30 / '30'): each "
        "spelling is a value of its own, so their records are counted apart. If they mean "
        "the same, make the column one type first, e.g. df['age'] = pd.to_numeric(df['age'])."
    )


@pytest.mark.parametrize(
    "func",
    [
        lambda df: microsdc.check_k_anonymity(df, ["age", "sex"], 3),
        lambda df: microsdc.local_suppression(df, ["age", "sex"], 3),
        lambda df: microsdc.individual_risk(df, ["age", "sex"]),
    ],
)
def test_every_function_on_the_key_variables_warns(func: object) -> None:
    df = pd.DataFrame(
        {
            "age": pd.Series([30, 30.0, "30", 40, 40, 40], dtype=object),
            "sex": ["m"] * 6,
        }
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        func(df)  # type: ignore[operator]
    assert any("(30 / 30.0 / '30')" in str(w.message) for w in caught)


@pytest.mark.parametrize(
    "values",
    [
        ["01", "1", "2"],  # codes written as texts: apart on purpose
        [1, 2, 3.5],  # numbers only
        [True, 1, "x"],  # a boolean is not a number here
        ["30", "30.0", "a"],  # texts only
    ],
)
def test_no_warning_without_a_number_written_in_two_types(values: list[object]) -> None:
    df = pd.DataFrame({"k": pd.Series(values * 3, dtype=object)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        microsdc.sample_frequencies(df, ["k"])


def test_the_groups_are_found_on_the_distinct_values() -> None:
    assert _spelling_groups([30, "30", 30.0, " 40", 40, "x", 5, "05", True]) == [
        [30, "30", 30.0],
        [" 40", 40],
    ]
