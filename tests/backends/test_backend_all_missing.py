"""A key variable missing in every record gets one warning naming it, on every engine
(pandas, polars, pyarrow, DuckDB by either route, Spark), as on pandas."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest

import microsdc
from microsdc import DisclosureRiskWarning

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")

MESSAGE = (
    "key variable 'x' is missing in every record, so it tells no record apart; check the "
    "column name, the separator and the missing-value codes."
)

# 'x' is missing everywhere: as a null, as NaN, or as the declared code -9
PANDAS = pd.DataFrame(
    {
        "a": [1, 1, 2, 2, 3],
        "x": pd.array([None, -9, None, -9, None], dtype="Int64"),
        "s": ["p", "q", "p", "q", "p"],
    }
)


def _frames(kind: str) -> Any:
    if kind == "pandas":
        return PANDAS
    table = pa.Table.from_pandas(PANDAS, preserve_index=False)
    if kind == "pyarrow":
        return table
    if kind == "polars":
        return pl.from_arrow(table)
    if kind == "polars lazy":
        return pl.from_arrow(table).lazy()
    return duckdb.connect().from_arrow(table)  # DuckDB: integer keys take the keyed route


def _warned(fn: Callable[[], Any]) -> list[str]:
    """The all-missing messages ``fn()`` raises, results of a lazy engine collected."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
        data = getattr(out, "data", out)
        if hasattr(data, "collect"):
            data.collect()
        elif hasattr(data, "fetchall"):
            data.fetchall()
    return [
        str(w.message)
        for w in caught
        if issubclass(w.category, DisclosureRiskWarning) and "every record" in str(w.message)
    ]


CALLS: dict[str, Callable[[Any, list[str]], Any]] = {
    "sample_frequencies": lambda df, qi: microsdc.sample_frequencies(
        df, qi, k=2, missing_values=[-9]
    ),
    "check_k_anonymity": lambda df, qi: microsdc.check_k_anonymity(df, qi, 2, missing_values=[-9]),
    "safe_combinations": lambda df, qi: microsdc.safe_combinations(df, qi, 2, missing_values=[-9]),
    "local_suppression": lambda df, qi: microsdc.local_suppression(df, qi, 2, missing_values=[-9]),
}


@pytest.mark.parametrize("kind", ["pandas", "pyarrow", "polars", "polars lazy", "duckdb"])
@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("qi", [["a", "x"], ["s", "x"]])  # DuckDB: keyed and pattern routes
def test_one_warning_naming_the_column_on_every_engine(kind: str, call: str, qi: list[str]) -> None:
    assert _warned(lambda: CALLS[call](_frames(kind), qi)) == [MESSAGE]
    assert _warned(lambda: CALLS[call](_frames(kind), [c for c in qi if c != "x"])) == []


@pytest.mark.parametrize("call", sorted(CALLS))
def test_one_warning_naming_the_column_on_spark(spark: Any, call: str) -> None:
    sdf = spark.createDataFrame(pa.Table.from_pandas(PANDAS, preserve_index=False))
    assert _warned(lambda: CALLS[call](sdf, ["a", "x"])) == [MESSAGE]
