"""The swapped file carries nothing of the input's row order: the intruder tries it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from microsdc.datasets import synthetic_census
from microsdc.swapping import record_swap, record_swap_result

HIER3 = ["nuts1", "nuts2", "nuts3"]


@pytest.fixture(scope="module")
def by_area() -> pd.DataFrame:
    """A census sorted by area (as registers often are) with household ids in random order
    and pandas' default row labels: the labels are the positions in area order."""
    census = synthetic_census(3000, seed=2)
    rng = np.random.default_rng(5)
    codes, _ = pd.factorize(census["hid"])
    new_ids = rng.permutation(codes.max() + 1)[codes] + 1
    df = census.assign(hid=new_ids)
    return df.sort_values(["nuts3", "hid"], kind="stable").reset_index(drop=True)


def _intruder(released: pd.DataFrame, labels: np.ndarray) -> np.ndarray:
    """Original nuts3 per row read from row labels and the persons per area of the release
    (swapping households of the same size keeps those counts)."""
    counts = released["nuts3"].value_counts().sort_index()
    bounds = np.cumsum(counts.to_numpy())
    return counts.index.to_numpy()[np.searchsorted(bounds, labels, side="right")]


def _swap(df: pd.DataFrame):
    return record_swap_result(
        df,
        "hid",
        HIER3,
        "hsize",
        swaprate=0.2,
        k_anonymity=0,
        risk_variables=["ageGroup"],
        carry_along=["lau2"],
        seed=3,
    )


def test_written_with_pandas_defaults_the_release_gives_no_area_back(
    by_area: pd.DataFrame, tmp_path: Path
) -> None:
    res = _swap(by_area)
    out = res.data
    assert out.index.equals(pd.RangeIndex(len(out)))
    # the statistician's map back to the input: same persons, only the geography moved
    assert res.input_index is not None
    back = by_area.loc[res.input_index]
    rest = [c for c in by_area.columns if c not in [*HIER3, "lau2"]]
    assert (back[rest].to_numpy() == out[rest].to_numpy()).all()
    original = back["nuts3"].to_numpy()
    swapped = original != out["nuts3"].to_numpy()
    assert swapped.sum() > 300
    # the intruder reads the file as pandas wrote it (index column included)
    path = tmp_path / "release.csv"
    out.to_csv(path)
    released = pd.read_csv(path, index_col=0)
    guess = _intruder(released, released.index.to_numpy())
    right = float((guess[swapped] == original[swapped]).mean())
    chance = float((by_area["nuts3"].value_counts(normalize=True) ** 2).sum())
    assert right < chance + 0.05
    # the input's labels (what the release used to carry) give every swapped person back
    old = _intruder(released, np.asarray(res.input_index))
    assert (old[swapped] == original[swapped]).all()


def test_record_swap_numbers_its_rows_afresh(by_area: pd.DataFrame) -> None:
    shuffled = by_area.sample(frac=1.0, random_state=1)  # labels in no order at all
    out = record_swap(
        shuffled,
        "hid",
        HIER3,
        "hsize",
        k_anonymity=0,
        risk_variables=["ageGroup"],
        carry_along=["lau2"],
        seed=3,
    )
    assert out.index.equals(pd.RangeIndex(len(out)))
    assert out["hid"].is_monotonic_increasing
