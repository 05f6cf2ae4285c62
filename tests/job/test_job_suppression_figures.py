"""The audit's suppression figures come from what local suppression returned (cells per
key variable and per record): on pandas they equal the cells found blanked by comparing
the frames cell by cell (:func:`microsdc.utility.suppressed_cells`), declared missing
codes under "category" (a code is a value there, and may be blanked) and linked
columns included."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from microsdc import Release
from microsdc.utility import suppressed_cells


def _frame(seed: int, n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "a": rng.integers(0, 6, n).astype(object),
            "b": rng.choice(["x", "y", "z"], n).astype(object),
            "c": rng.integers(0, 4, n).astype(object),
            "linked": rng.integers(0, 5, n),
            "st": rng.integers(0, 2, n),
        }
    )
    for col, code in (("a", -7), ("b", "?"), ("c", -7)):
        df.loc[rng.random(n) < 0.12, col] = code  # declared missing codes
        df.loc[rng.random(n) < 0.08, col] = None
    return df


CASES = [
    ({"missing": "category"}, {}),
    ({"missing": "wildcard"}, {}),
    ({"missing": 0.5}, {}),
    ({"missing": "category"}, {"linked": {"a": ["linked"]}}),
    ({"missing": "wildcard"}, {"strata": ["st"], "linked": {"b": ["linked"]}}),
    ({"missing": "category"}, {"combs": [2]}),
]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(("settings", "options"), CASES)
def test_suppression_figures_are_the_cells_blanked_cell_by_cell(
    seed: int, settings: dict, options: dict
) -> None:
    df = _frame(seed)
    qi = ["a", "b", "c"]
    release = Release(df, qi, k=3, missing_values=[-7, "?"], **settings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = release.local_suppression(accept_rare_values=True, **options)
        figures = release.audit()["suppression"]
    # under "category" a declared code is a value that can be blanked; else it is missing
    counted = None if settings["missing"] == "category" else [-7, "?"]
    want = suppressed_cells(df, res.data, qi, missing_values=counted).to_dict()
    assert {k: figures[k] for k in want} == want
    if settings["missing"] == "category":  # some codes were blanked and are counted
        codes = df[qi].isin([-7, "?"]).to_numpy() & res.data[qi].isna().to_numpy()
        assert codes.sum() > 0
        assert figures["total"] > codes.sum()
        assert figures["observed_before"]["a"] == int(df["a"].notna().sum())
