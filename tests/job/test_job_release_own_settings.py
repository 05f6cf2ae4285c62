"""A Release step given a setting the release itself passes on (its data, key variables,
k, missing-value policy, household id, hierarchy) is refused by name, not with Python's
bare "got multiple values" TypeError."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest

from microsdc import Release
from microsdc.exceptions import InvalidParameterError


def _release() -> Release:
    df = pd.DataFrame(
        {"a": [1, 1, 2, 2, 3] * 4, "b": list("xyxyx") * 4, "c": [1.0, 2, 3, 4, 5] * 4}
    )
    return Release(df, ["a", "b"], k=3)


CALLS: list[tuple[str, str, Callable[[Release], Any], str]] = [
    ("local_suppression", "k", lambda r: r.local_suppression(k=5), "(k=3)"),
    ("local_suppression", "qi", lambda r: r.local_suppression(qi=["a"]), "['a', 'b']"),
    (
        "local_suppression",
        "missing",
        lambda r: r.local_suppression(missing="wildcard"),
        "'category'",
    ),
    (
        "local_suppression",
        "missing_values",
        lambda r: r.local_suppression(missing_values=[9]),
        "[]",
    ),
    ("local_suppression", "df", lambda r: r.local_suppression(df=None), "data"),
    ("record_swap", "hid", lambda r: r.record_swap("a", hid="a"), "household_id"),
    ("record_swap", "hierarchy", lambda r: r.record_swap("a", hierarchy=["b"]), "hierarchy"),
    ("pram", "df", lambda r: r.pram("b", df=None), "data"),
    ("microaggregate", "df", lambda r: r.microaggregate("c", df=None), "data"),
    ("add_noise", "df", lambda r: r.add_noise("c", df=None), "data"),
]


@pytest.mark.parametrize(("method", "param", "call", "shown"), CALLS)
def test_a_setting_of_the_release_is_refused_by_name(
    method: str, param: str, call: Callable[[Release], Any], shown: str
) -> None:
    rel = _release()
    with pytest.raises(InvalidParameterError) as info:
        call(rel)
    assert info.value.param == param
    assert info.value.func == f"Release.{method}"
    text = str(info.value)
    assert f"'{param}' parameter of Release.{method} is the release's own" in text
    assert shown in text and "Build the Release" in text
    assert rel.data.equals(_release().data)  # nothing was done to the release
