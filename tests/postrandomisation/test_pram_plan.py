"""The per-unit core that pandas and the engines share: planned on the records (each of
weight 1) or on their distinct patterns weighted by their records, a unit gets the same
counts and, from the same Generator, the same matrices; and its transition matrices
count the same released records and changes either way."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from microsdc.postrandomisation.params import plan_units
from microsdc.postrandomisation.plan import UnitRows, plan_unit, unit_transitions

N_RECORDS = "__records"


def _frame(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "roof": rng.choice(["tin", "tile", "straw", None], n).tolist(),
            "rooms": rng.integers(1, 4, n),
            "region": rng.choice(["n", "s", None], n).tolist(),
            "chosen": rng.random(n) < 0.7,
        }
    )


def _patterns(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The distinct rows of ``keys`` (missing kept) with their numbers of records, in
    an order of their own (as an engine's group-by gives them)."""
    out = df.groupby(keys, dropna=False, sort=False).size().rename(N_RECORDS).reset_index()
    return out.iloc[::-1].reset_index(drop=True)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 120),
    together=st.booleans(),
    state=st.booleans(),
    strata=st.booleans(),
)
def test_records_and_weighted_patterns_give_the_same_unit(
    seed: int, n: int, together: bool, state: bool, strata: bool
) -> None:
    df = _frame(seed, n)
    strata_cols = ["region"] if strata else []
    unit = plan_units(
        df,
        ["roof", "rooms"],
        pd_=0.6,
        alpha=0.7,
        strata=strata_cols,
        transition=None,
        allowed=None,
        together=[["roof", "rooms"]] if together else None,
        linked=None,
    )[0]
    on_records = plan_unit(
        UnitRows(df, df["chosen"].to_numpy()), unit, strata_cols, state, np.random.default_rng(5)
    )
    patterns = _patterns(df, ["chosen", *strata_cols, *unit.columns])
    records = patterns[N_RECORDS].to_numpy(dtype=np.int64)
    on_patterns = plan_unit(
        UnitRows(patterns, patterns["chosen"].to_numpy(), records),
        unit,
        strata_cols,
        state,
        np.random.default_rng(5),
    )
    np.testing.assert_array_equal(on_records.counts, on_patterns.counts)
    assert on_records.counts.sum() == (df["chosen"] & (on_records.enc.codes >= 0)).sum()
    assert on_records.stratum_values == on_patterns.stratum_values
    assert on_records.enc.labels.equals(on_patterns.enc.labels)
    for a, b in zip(on_records.mats, on_patterns.mats, strict=True):
        np.testing.assert_array_equal(a, b)

    # released codes: any code of the unit, the same for every record of a pattern
    n_cat = on_records.counts.shape[1]
    if n_cat == 0:
        return
    shift = np.random.default_rng(seed).integers(0, n_cat, len(patterns))
    new_of_pattern = (on_patterns.enc.codes + shift) % n_cat
    sel = on_patterns.selected
    by_patterns = unit_transitions(
        on_patterns,
        on_patterns.sid[sel],
        on_patterns.enc.codes[sel],
        new_of_pattern[sel],
        records[sel],
    )
    # each record takes its pattern's released code
    key = patterns.drop(columns=N_RECORDS).astype(object).fillna("<NA>")
    position = {tuple(row): i for i, row in enumerate(key.itertuples(index=False))}
    cols = list(key.columns)
    rows = df[cols].astype(object).fillna("<NA>").itertuples(index=False)
    new_of_record = new_of_pattern[[position[tuple(r)] for r in rows]]
    sel = on_records.selected
    by_records = unit_transitions(
        on_records, on_records.sid[sel], on_records.enc.codes[sel], new_of_record[sel]
    )
    assert len(by_records) == len(by_patterns)
    for a, b in zip(by_records, by_patterns, strict=True):
        assert a.stratum == b.stratum and a.n_changed == b.n_changed
        pd.testing.assert_series_equal(a.counts, b.counts)
        pd.testing.assert_series_equal(a.released, b.released)
        assert a.released.sum() == a.counts.sum()


def test_transitions_count_released_records_and_changes_by_hand() -> None:
    """Two strata, three categories: rows (stratum, old, new, records) counted by hand."""
    df = pd.DataFrame({"v": ["a", "b", "c", "a"], "s": ["x", "x", "y", "y"]})
    unit = plan_units(
        df,
        ["v"],
        pd_=0.8,
        alpha=0.5,
        strata=["s"],
        transition=None,
        allowed=None,
        together=None,
        linked=None,
    )[0]
    plan = plan_unit(UnitRows(df, True), unit, ["s"], False, np.random.default_rng(0))
    np.testing.assert_array_equal(plan.counts, [[1, 1, 0], [1, 0, 1]])
    strata = np.array([0, 0, 1, 1, 0])
    old = np.array([0, 1, 0, 2, 0])
    new = np.array([1, 1, 0, 0, 2])
    records = np.array([3, 2, 4, 1, 5])
    got = unit_transitions(plan, strata, old, new, records)
    assert [m.stratum for m in got] == [("x",), ("y",)]
    assert got[0].released.tolist() == [0, 5, 5] and got[0].n_changed == 8
    assert got[1].released.tolist() == [5, 0, 0] and got[1].n_changed == 1
    assert got[0].released.dtype == np.int64
    same = unit_transitions(plan, np.repeat(strata, records), *np.repeat([old, new], records, 1))
    for a, b in zip(got, same, strict=True):
        pd.testing.assert_series_equal(a.released, b.released)
        assert a.n_changed == b.n_changed
