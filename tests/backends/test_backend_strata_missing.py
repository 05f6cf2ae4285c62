"""A lazy frame whose stratum column has missing values is refused with the fix."""

from __future__ import annotations

import pytest

import microsdc
from microsdc.exceptions import DataValidationError

pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")


def test_a_missing_stratum_is_refused_with_how_to_recode_it() -> None:
    lazy = pl.LazyFrame(
        {"age": [30, 30, 40, 40, 30, 30], "region": ["N", "N", "S", "S", None, None]}
    )
    with pytest.raises(DataValidationError) as caught:
        microsdc.local_suppression(lazy, ["age"], 2, strata="region")
    assert str(caught.value) == (
        "The stratum column 'region' of local_suppression has 2 missing value(s). Every "
        "record needs a known stratum: recode the missing values to a stratum of their own "
        "first (polars: pl.col('region').fill_null('unknown'); SQL: coalesce(\"region\", "
        "'unknown'))."
    )
    filled = lazy.with_columns(pl.col("region").fill_null("unknown"))
    assert microsdc.local_suppression(filled, ["age"], 2, strata="region").n_rows == 6
