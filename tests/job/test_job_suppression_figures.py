"""The audit's suppression figures come from what local suppression returned (cells per
key variable and per record): on pandas they equal the cells found blanked by comparing
the frames cell by cell (:func:`microsdc.utility.suppressed_cells`), declared missing
codes under "category" (a code is a value there, and may be blanked) and linked
columns included."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from microsdc import Release
from microsdc.job import run_job
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


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("missing", ["category", "wildcard"])
def test_engine_counts_the_cells_observed_before_as_pandas(
    tmp_path: Path, engine: str, missing: str
) -> None:
    """Under "category" a declared code is a value suppression may blank (and counts
    among the cells blanked): it counts among the cells that held a value before, on an
    engine as on pandas; under the other policies it is a missing value."""
    pytest.importorskip(engine)
    pytest.importorskip("narwhals")
    df = _frame(4, n=300).drop(columns=["st"])
    df["a"] = pd.to_numeric(df["a"]).astype("Int64")
    df["c"] = pd.to_numeric(df["c"]).astype("Int64")
    df.to_parquet(tmp_path / "in.parquet", index=False)
    audits = {}
    for name, line in (("pandas", ""), (engine, f'engine = "{engine}"')):
        job = tmp_path / f"{name}.toml"
        job.write_text(
            f'steps = ["risk", "suppression"]\n[input]\npath = "in.parquet"\n{line}\n'
            'missing_values = [-7, "?"]\n[variables]\nquasi_identifiers = ["a", "b", "c"]\n'
            f'[risk]\nk = 3\nmissing = "{missing}"\n',
            encoding="utf-8",
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            audits[name] = run_job(job, write=False).audit["suppression"]
    got, want = audits[engine], audits["pandas"]
    assert got["observed_before"] == want["observed_before"]
    coded = df[["a", "b", "c"]].isin([-7, "?"]).sum()
    observed = df[["a", "b", "c"]].notna().sum() - (0 if missing == "category" else coded)
    assert got["observed_before"] == {c: int(observed[c]) for c in ["a", "b", "c"]}
    assert got["share"] == got["total"] / sum(got["observed_before"].values())
