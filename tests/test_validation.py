"""The parameter checks of microsdc._validation: the requirement each message states."""

from __future__ import annotations

from typing import Any

import pytest

from microsdc._validation import check_int, check_number
from microsdc.exceptions import InvalidParameterError


@pytest.mark.parametrize(
    ("kwargs", "requirement"),
    [
        ({}, "an int"),
        ({"min_value": 1}, "an int >= 1"),
        ({"max_value": 3}, "an int <= 3"),
        ({"min_value": 1, "max_value": 3}, "an int in the range [1, 3]"),
    ],
)
def test_int_requirement(kwargs: dict[str, Any], requirement: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        check_int(2.0, "k", "f", **kwargs)
    assert str(info.value) == f"The 'k' parameter of f must be {requirement}. Got 2.0 instead."
    assert info.value.requirement == requirement


@pytest.mark.parametrize(
    ("kwargs", "requirement"),
    [
        ({}, "a finite real number"),
        ({"low": 0}, "a real number >= 0"),
        ({"low": 0, "low_open": True}, "a real number > 0"),
        ({"high": 1}, "a real number <= 1"),
        ({"high": 1, "high_open": True}, "a real number < 1"),
        ({"low": 0, "high": 1}, "a real number in the range [0, 1]"),
        ({"low": 0, "high": 1, "low_open": True}, "a real number in the range (0, 1]"),
        ({"low": 0, "high": 1, "high_open": True}, "a real number in the range [0, 1)"),
    ],
)
def test_number_requirement(kwargs: dict[str, Any], requirement: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        check_number(float("nan"), "share", "f", **kwargs)
    assert str(info.value) == (
        f"The 'share' parameter of f must be {requirement}. Got nan instead."
    )
    assert info.value.requirement == requirement
