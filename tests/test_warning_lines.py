"""Warnings point at the user's line, however deep in microsdc they are raised."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import microsdc
from microsdc.exceptions import DisclosureRiskWarning


def test_a_key_variable_missing_everywhere_is_pointed_out_at_the_call() -> None:
    df = pd.DataFrame({"a": [1, 2, 2], "b": [None, None, None]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        microsdc.sample_frequencies(df, ["a", "b"])
    found = [w for w in caught if "missing in every record" in str(w.message)]
    assert found and {w.filename for w in found} == {__file__}


def test_columns_that_give_blanked_values_back_are_pointed_out_at_the_call() -> None:
    educ = ["MA"] * 30 + ["BA"] * 30 + ["MA"] * 30 + ["BA"]
    sex = ["f"] * 30 + ["m"] * 60 + ["f"]
    df = pd.DataFrame({"educ": educ, "sex": sex, "years": [16 if e == "BA" else 18 for e in educ]})
    with pytest.warns(DisclosureRiskWarning, match="'educ' from 'years'") as caught:
        microsdc.local_suppression(df, ["educ", "sex"], k=2, importance=["sex", "educ"])
    assert {w.filename for w in caught} == {__file__}
