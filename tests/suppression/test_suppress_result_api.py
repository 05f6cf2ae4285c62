"""SuppressionResult printing, method="random" in local_suppression, non-pandas frames."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microsdc import local_suppression
from microsdc.exceptions import InvalidParameterError
from microsdc.risk.kanonymity import sample_frequencies
from microsdc.suppression import min_missingness_max_deid

DF = pd.DataFrame(
    {
        "sex": ["m", "m", "m", "f", "f", "f", "f"] * 3,
        "age": [30, 30, 40, 30, 30, 30, 50] * 3,
        "town": list("abcabca") * 3,
    }
)


def test_print_is_a_short_summary() -> None:
    big = pd.concat([DF] * 200, ignore_index=True)
    big.loc[0, "age"] = 99
    res = local_suppression(big, ["sex", "age", "town"], k=3, missing="wildcard")
    text, rep = str(res), repr(res)
    assert text == res.summary()
    assert "records at risk (wildcard count): 1 before, 0 after" in text
    assert len(text.splitlines()) < 10 and len(rep) < 300
    assert rep.startswith("SuppressionResult(method='greedy', k=3")
    assert "n_rows=4,200" in rep and "n_cells=1" in rep and "at_risk=1 -> 0" in rep
    assert "99" not in rep  # no data values


def test_random_method_delegates_to_the_baseline() -> None:
    qi = ["sex", "age", "town"]
    res = local_suppression(DF, qi, k=4, method="random", seed=5, missing="wildcard")
    data, pct, left = min_missingness_max_deid(DF, qi, 4, seed=5)
    pd.testing.assert_frame_equal(res.data, data)
    assert res.method == "random"
    assert res.details["percent_per_qi"] == pct
    assert res.n_at_risk_after == left == 0
    blank = res.data[qi].isna() & DF[qi].notna()
    assert res.cells_per_qi.to_dict() == blank.sum().to_dict()
    assert res.n_cells == int(blank.to_numpy().sum()) > 0
    expected_before = int((sample_frequencies(DF, qi)["fk"] < 4).sum())
    assert res.n_at_risk_before == expected_before
    assert (sample_frequencies(res.data, qi)["fk"].to_numpy() >= 4).all()
    np.testing.assert_array_equal(res.fk_after.to_numpy(), sample_frequencies(res.data, qi)["fk"])
    # same seed, same result; the input is not touched
    again = local_suppression(DF, qi, k=4, method="random", seed=5, missing="wildcard")
    pd.testing.assert_frame_equal(again.data, res.data)
    assert DF["age"].notna().all()


def test_random_method_refuses_what_it_cannot_do() -> None:
    with pytest.raises(InvalidParameterError, match=r"method='random'.*'importance'"):
        local_suppression(DF, ["sex", "age"], k=2, method="random", importance=["age", "sex"])


def test_non_pandas_frame_is_told_to_convert() -> None:
    class DataFrame:  # stands for polars.DataFrame, which is not a dependency
        def to_pandas(self) -> pd.DataFrame:
            return DF

    DataFrame.__module__ = "polars.dataframe.frame"
    with pytest.raises(InvalidParameterError, match=r"Got a polars DataFrame.*\.to_pandas\(\)"):
        local_suppression(DataFrame(), ["sex"], k=2)
    with pytest.raises(InvalidParameterError, match=r"must be a pandas DataFrame .*Got 'list'"):
        local_suppression([1, 2], ["sex"], k=2)
