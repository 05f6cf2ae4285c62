"""Warnings point at the user's line, however deep in microsdc they are raised, and
whichever kind of frame the call was given (the dispatch to the engines is microsdc's
own code too)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest

import microsdc
from microsdc.exceptions import DisclosureRiskWarning


def _kinds() -> dict[str, Callable[[pd.DataFrame], Any]]:
    kinds: dict[str, Callable[[pd.DataFrame], Any]] = {"pandas": lambda df: df}
    try:
        import narwhals  # noqa: F401
        import polars as pl
        import pyarrow as pa
    except ImportError:  # the engines are optional extras
        return kinds
    kinds["polars"] = pl.from_pandas
    kinds["pyarrow"] = lambda df: pa.Table.from_pandas(df, preserve_index=False)
    kinds["polars LazyFrame"] = lambda df: pl.from_pandas(df).lazy()
    return kinds


KINDS = _kinds()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_key_variable_missing_everywhere_is_pointed_out_at_the_call(kind: str) -> None:
    df = pd.DataFrame({"a": [1, 2, 2], "b": [None, None, None]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        microsdc.sample_frequencies(KINDS[kind](df), ["a", "b"])
    found = [w for w in caught if "missing in every record" in str(w.message)]
    assert found and {w.filename for w in found} == {__file__}


@pytest.mark.parametrize("kind", sorted(set(KINDS) - {"polars LazyFrame"}))
def test_columns_that_give_blanked_values_back_are_pointed_out_at_the_call(kind: str) -> None:
    educ = ["MA"] * 30 + ["BA"] * 30 + ["MA"] * 30 + ["BA"]
    sex = ["f"] * 30 + ["m"] * 60 + ["f"]
    df = pd.DataFrame({"educ": educ, "sex": sex, "years": [16 if e == "BA" else 18 for e in educ]})
    with pytest.warns(DisclosureRiskWarning, match="'educ' from 'years'") as caught:
        microsdc.local_suppression(
            KINDS[kind](df), ["educ", "sex"], k=2, importance=["sex", "educ"]
        )
    assert {w.filename for w in caught} == {__file__}
