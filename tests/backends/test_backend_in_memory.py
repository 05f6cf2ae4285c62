"""Suppression, swapping and risk measures on polars DataFrames and pyarrow Tables equal pandas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import microsdc
from microsdc.exceptions import InvalidParameterError

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
pytest.importorskip("narwhals")


def _frame(n: int = 200, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 6, n).astype(float)
    age[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame(
        {
            "age": pd.array(np.where(np.isnan(age), None, age), dtype="Int64"),
            "sex": rng.choice(["f", "m"], n),
            "region": rng.choice(["north", "south", "east", "west", "centre"], n),
            "income": rng.normal(100, 10, n),
        }
    )


def test_local_suppression_same_cells_and_types() -> None:
    df = _frame()
    qi = ["age", "sex", "region"]
    want = microsdc.local_suppression(df, qi, k=3)
    for native in (pl.from_pandas(df), pa.Table.from_pandas(df, preserve_index=False)):
        got = microsdc.local_suppression(native, qi, k=3)
        assert type(got.data) is type(native)
        assert got.n_cells == want.n_cells > 0
        assert got.cells_per_qi.tolist() == want.cells_per_qi.tolist()
        assert got.data.schema == native.schema  # Int64 stays Int64, strings stay strings
        back = got.data.to_pandas()
        for c in qi:
            assert back[c].isna().tolist() == want.data[c].isna().tolist()


def test_record_swap_same_swaps() -> None:
    census = microsdc.synthetic_census(300, seed=4)
    kw = {
        "hid": "hid",
        "hierarchy": ["nuts1", "nuts2"],
        "similar": ["hsize"],
        "swaprate": 0.1,
        "k_anonymity": 0,
        "risk_variables": ["ageGroup"],
        "carry_along": ["nuts3", "lau2"],
        "seed": 5,
    }
    want = microsdc.record_swap(census, **kw)
    got = microsdc.record_swap(pl.from_pandas(census), **kw)
    assert isinstance(got, pl.DataFrame)
    assert got.to_pandas().equals(want.reset_index(drop=True))
    res = microsdc.record_swap_result(pa.Table.from_pandas(census, preserve_index=False), **kw)
    assert isinstance(res.data, pa.Table)
    assert res.data.to_pandas().equals(want.reset_index(drop=True))


def test_risk_measures_and_tuples() -> None:
    df = _frame()
    qi = ["age", "sex"]
    want = microsdc.global_risk(df, qi)
    assert microsdc.global_risk(pl.from_pandas(df), qi) == want
    frame, pct, n_risk = microsdc.min_missingness_max_deid(
        pl.from_pandas(df), qi, 2, n_random_trials=2, seed=1
    )
    assert isinstance(frame, pl.DataFrame) and n_risk == 0 and pct >= 0


def test_lazy_frame_refused_with_how_to_collect() -> None:
    with pytest.raises(InvalidParameterError, match=r"\.collect\(\)"):
        microsdc.min_missingness_max_deid(pl.from_pandas(_frame()).lazy(), ["age"], 2)


@pytest.mark.parametrize("kind", ["distinct", "entropy", "recursive"])
def test_l_diversity_figures_keep_their_own_types(kind: str) -> None:
    # the figures are named after the sensitive columns they describe; they once took
    # those columns' types: an entropy l-diversity of 3 (2.9999...) came back from a
    # polars integer column as 2, and from a text column as the text "2.9999999999999996"
    df = pd.DataFrame({"sex": list("mmmff"), "count": [1, 2, 3, 1, 1], "word": list("abcaa")})
    options = {"kind": kind, "c": 2, "l": 2} if kind == "recursive" else {"kind": kind}
    want = microsdc.l_diversity(df, ["sex"], ["count", "word"], **options)
    for native in (pl.from_pandas(df), pa.Table.from_pandas(df, preserve_index=False)):
        got = microsdc.l_diversity(native, ["sex"], ["count", "word"], **options)
        assert type(got) is type(native)
        back = got.to_pandas()
        for column in ("count", "word"):
            assert back[column].dtype.kind == want[column].dtype.kind, (native, column)
            assert back[column].tolist() == pytest.approx(want[column].tolist())
    if kind == "entropy":
        assert want["count"].round(9).tolist() == [3.0, 3.0, 3.0, 1.0, 1.0]


def test_released_data_keep_the_callers_types_beside_figures() -> None:
    # the same rule from the other side: blanked data keep the input's column types
    df = _frame()
    native = pl.from_pandas(df).with_columns(pl.col("age").cast(pl.Int16))
    frame, _, _ = microsdc.min_missingness_max_deid(native, ["age", "sex"], 2, seed=1)
    assert frame.schema == native.schema


@pytest.mark.parametrize("kind", ["polars", "pyarrow"])
def test_new_household_ids_stay_numbers_on_a_text_hid(kind: str) -> None:
    """renumber_households gives int ids; cast back to a text hid column they would
    come back as the texts "1", "10", "2" (which sort as texts)."""
    from microsdc.swapping import renumber_households

    df = pd.DataFrame({"hid": ["a", "a", "b", "c", "c", "c"], "age": [30, 31, 40, 5, 6, 7]})
    want = renumber_households(df, "hid", seed=2)
    native = pl.from_pandas(df) if kind == "polars" else pa.Table.from_pandas(df)
    got = renumber_households(native, "hid", seed=2)
    assert type(got) is type(native)
    ids = got["hid"].to_list() if kind == "polars" else got.column("hid").to_pylist()
    assert ids == want["hid"].tolist() and all(type(i) is int for i in ids)
    ages = got["age"].to_list() if kind == "polars" else got.column("age").to_pylist()
    assert ages == want["age"].tolist()  # the rows move with their household


@pytest.mark.filterwarnings("ignore::microsdc.exceptions.DisclosureRiskWarning")
def test_level_risk_of_a_polars_frame_is_a_risk_record_swap_takes() -> None:
    """level_risk on polars data returns a polars frame; record_swap takes it as
    ``risk`` (by position, as polars has no row labels) and swaps as with pandas."""
    from microsdc.swapping import level_risk

    census = microsdc.synthetic_census(60, seed=4)
    hier = ["nuts1", "nuts2"]
    kw = {
        "hid": "hid",
        "hierarchy": hier,
        "similar": "hsize",
        "swaprate": 0.1,
        "risk_threshold": 0.4,
        "carry_along": ["nuts3", "lau2"],
        "seed": 1,
    }
    risk = level_risk(census, "hid", hier, ["ageGroup"])
    want = microsdc.record_swap(census, risk=risk, **kw)
    assert not want.equals(census)  # something was swapped
    for native in (pl.from_pandas(census), pa.Table.from_pandas(census, preserve_index=False)):
        native_risk = level_risk(native, "hid", hier, ["ageGroup"])
        assert type(native_risk) is type(native)
        assert native_risk.to_pandas().equals(risk.reset_index(drop=True))
        got = microsdc.record_swap(native, risk=native_risk, **kw)
        assert got.to_pandas().equals(want)
    # pandas data with a polars risk: by position
    assert microsdc.record_swap(census, risk=pl.from_pandas(risk), **kw).equals(want)
    with pytest.raises(InvalidParameterError) as info:
        microsdc.record_swap(census, risk=pl.from_pandas(risk).lazy(), **kw)
    assert str(info.value) == (
        "record_swap needs the rows in memory; got a lazy polars frame as 'risk'. "
        "Collect it first (polars: .collect())."
    )
    assert (info.value.func, info.value.param) == ("record_swap", "risk")
