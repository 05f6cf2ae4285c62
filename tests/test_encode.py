"""Declared missing codes are compared by value, whatever the type they were read as."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

from microsdc import DisclosureRiskWarning, local_suppression, sample_frequencies
from microsdc.encode import encode_column, encode_qis, missing_mask
from microsdc.exceptions import InvalidParameterError


def test_text_code_read_from_csv_matches_numeric_declaration() -> None:
    df = pd.DataFrame({"educ": ["1", "1", "-999"], "sex": ["f", "f", "f"]})
    fk = sample_frequencies(df, ["educ", "sex"], missing_values=[-999])["fk"].tolist()
    assert fk == [3, 3, 3]


@pytest.mark.parametrize(
    ("values", "declared", "expected"),
    [
        (["1", "-999", "2"], [-999], [False, True, False]),  # text data, int code
        (["1", "-999", "2"], [-999.0], [False, True, False]),  # text data, float code
        (["1", "-999.0", "2"], [-999], [False, True, False]),  # "-999.0" is the number -999
        ([1, -999, 2], ["-999"], [False, True, False]),  # int data, text code
        ([1.0, -999.0, 2.0], ["-999"], [False, True, False]),  # float data, text code
        ([1, 99, 2], [99.0], [False, True, False]),  # 99 against 99.0
        ([1.0, 99.0, 2.0], [99], [False, True, False]),  # 99.0 against 99
        ([1.5, 99.5], ["99.5"], [False, True]),
        ([1, -999, 2], [-999], [False, True, False]),  # same type, as before
        (["a", "NA", "na"], ["NA"], [False, True, False]),  # other text: exact
        (["099", "99"], [99], [False, True]),  # leading zeros: a code, not a number
        (["1", "+99", "1e2"], [99, 100], [False, False, False]),
        ([True, 1, 0], [1], [False, True, False]),  # booleans are not numbers
        ([True, 1, 0], [True], [True, False, False]),
        ([1, "99", 99.0, None], [99], [False, True, True, True]),  # mixed objects
        ([" 99", "x"], [99], [True, False]),  # spaces around a number in a CSV cell
        ([" ?", "?", "? x"], ["?"], [True, True, False]),  # and around a text (UCI adult)
        (["?", " ?"], [" ? "], [True, True]),
    ],
)
def test_missing_codes_by_value(values: list, declared: list, expected: list) -> None:
    assert missing_mask(pd.Series(values), declared).tolist() == expected


@pytest.mark.parametrize("dtype", ["int64", "Int64", "float64", "Float64", "category", "string"])
def test_missing_codes_every_dtype(dtype: str) -> None:
    s = pd.Series([1, 99, 3, 99]).astype(dtype)
    for code in (99, 99.0, "99", "99.0"):
        assert missing_mask(s, [code]).tolist() == [False, True, False, True], (dtype, code)


def test_encode_column_drops_text_code_declared_as_number() -> None:
    codes, cats = encode_column(pd.Series(["3", "-1", "3", "7"]), [-1])
    assert codes.tolist() == [0, -1, 0, 1]
    assert list(cats) == ["3", "7"]


def test_per_column_declaration_with_mixed_types() -> None:
    df = pd.DataFrame({"a": ["1", "9", "2"], "b": [9, 9, 1]})
    fk = sample_frequencies(df, ["a", "b"], missing_values={"a": [9], "b": ["9"]})
    # (1, .), (., .), (2, 1): rows 0 and 2 differ on a; row 1 matches both
    assert fk["fk"].tolist() == [2, 3, 2]


def _all_missing_warnings(fn: Any) -> list[str]:
    """The messages of the all-missing warnings ``fn()`` raises (every one recorded)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [
        str(w.message)
        for w in caught
        if issubclass(w.category, DisclosureRiskWarning) and "every record" in str(w.message)
    ]


def test_encode_warns_once_per_key_variable_missing_in_every_record() -> None:
    df = pd.DataFrame(
        {
            "a": [1, 2, 2],
            "nan": [np.nan] * 3,
            "code": [-9, -9, None],  # missing by a declared code and a null
            "cat": pd.Categorical([None] * 3, categories=["x"]),  # unused category
            "some": [None, "x", None],
        }
    )
    got = _all_missing_warnings(
        lambda: encode_qis(df, ["a", "nan", "code", "cat", "some"], missing_values=[-9])
    )
    assert got == [
        f"key variable {c!r} is missing in every record, so it tells no record apart; check "
        "the column name, the separator and the missing-value codes."
        for c in ("nan", "code", "cat")
    ]
    assert _all_missing_warnings(lambda: encode_qis(df.iloc[:0], ["nan"])) == []  # no record
    assert _all_missing_warnings(lambda: encode_qis(df, ["code"])) == []  # -9 is a value here


def test_pandas_entry_points_warn_once_naming_the_column() -> None:
    from microsdc import check_k_anonymity, local_suppression

    df = pd.DataFrame({"a": [1, 1, 2, 2, 3], "x": [None] * 5})
    message = "key variable 'x' is missing in every record"
    for fn in (
        lambda: sample_frequencies(df, ["a", "x"]),
        lambda: check_k_anonymity(df, ["a", "x"], 2),
        lambda: local_suppression(df, ["a", "x"], 2),
    ):
        got = _all_missing_warnings(fn)
        assert len(got) == 1 and got[0].startswith(message)


def test_values_that_cannot_be_compared_are_named() -> None:
    from microsdc.exceptions import DataValidationError

    df = pd.DataFrame({"a": ["x", ["y"], "x"]})
    with pytest.raises(DataValidationError, match=r"Column 'a' .* such as \['y'\] \(list\)"):
        sample_frequencies(df, ["a"])


def test_declared_codes_for_unknown_columns_are_named_in_one_message() -> None:
    df = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    codes = {"zz": [1], "a": [9], 7: [2]}
    want = "The 'missing_values' parameter of {} names columns not in the data: 'zz', 7."
    with pytest.raises(InvalidParameterError) as got:
        encode_qis(df, ["a"], missing_values=codes)
    assert str(got.value) == want.format("encode_qis")
    assert got.value.param == "missing_values"
    with pytest.raises(InvalidParameterError) as got:
        local_suppression(df, ["a"], k=1, missing_values=codes)
    assert str(got.value) == want.format("local_suppression")
    # a list of codes names no column: nothing to check
    assert encode_qis(df, ["a"], missing_values=[9]).codes[:, 0].tolist() == [0, 1]
