"""The audit's ``variables`` and ``key_variables`` of a job are the same on an engine
input as on pandas: the roles (a recoded column is "recoded" on both), the categories
of each key variable as read and after recoding, the cells each step changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from microsdc.job import run_job
from nested_close import assert_close

pytest.importorskip("duckdb")
pytest.importorskip("polars")
pytest.importorskip("narwhals")

JOB = """steps = {steps}

[input]
path = "survey.parquet"
missing_values = [-9]
{engine}

[variables]
quasi_identifiers = ["region", "sex", "age"]
weights = "w"
drop = ["code"]

[recode.age]
width = 10

[recode.income]
width = 1000

[risk]
k = 3
missing = "wildcard"

[suppression]
importance = ["sex", "region", "age"]

{pram}
"""


def _frame(n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(8)
    age = pd.array(rng.integers(0, 90, n), dtype="Int64")
    age[rng.random(n) < 0.05] = pd.NA
    region = rng.integers(0, 12, n)
    region[rng.random(n) < 0.03] = -9  # a declared missing code
    return pd.DataFrame(
        {
            "region": region,
            "sex": rng.choice(["f", "m"], n),
            "age": age,
            "income": rng.integers(0, 9000, n),
            "w": rng.uniform(5, 40, n).round(1),
            "roof": rng.choice(["tin", "tile", "straw"], n),
            "water": rng.choice(["pipe", "well"], n),
            "code": rng.integers(0, 9, n),
        }
    )


def _audit(root: Path, engine: str, steps: str, pram: str) -> dict[str, Any]:
    line = f'engine = "{engine}"' if engine else ""
    job = root / f"job_{engine or 'pandas'}.toml"
    job.write_text(JOB.format(steps=steps, engine=line, pram=pram), encoding="utf-8")
    return run_job(job, write=False).audit


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("engine_audit")
    _frame().to_parquet(root / "survey.parquet", index=False)
    return root


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_recoded_columns_are_described_as_on_pandas(root: Path, engine: str) -> None:
    steps = '["risk", "suppression"]'
    want = _audit(root, "", steps, "")
    got = _audit(root, engine, steps, "")
    roles = {v["name"]: v["roles"] for v in got["variables"]}
    assert roles == {
        "region": ["key"],
        "sex": ["key"],
        "age": ["key", "recoded"],
        "income": ["other", "recoded"],
        "w": ["weight"],
        "roof": ["other"],
        "water": ["other"],
        "code": ["other", "dropped"],
    }
    age = {k["name"]: k for k in got["key_variables"]}["age"]
    data = _frame()
    assert age["categories_input"] == data["age"].nunique() > 9  # as read, not the bands
    assert age["categories_before"] == 9  # 0-9, ..., 80-89
    assert age["missing_before"] == int(data["age"].isna().sum())
    assert_close(got["variables"], want["variables"])
    assert_close(got["key_variables"], want["key_variables"])


PRAM_CASES = [
    '[pram]\nvariables = ["roof"]\nseed = 3\n',
    '[pram]\nvariables = ["roof", "sex"]\nstrata = ["water"]\nseed = 5\n',  # a key variable
    '[pram]\nvariables = ["roof", "water"]\nmissing = "state"\nseed = 7\n',
]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("pram", PRAM_CASES)
def test_cells_pram_changed_are_counted_as_on_pandas(root: Path, engine: str, pram: str) -> None:
    steps = '["risk", "suppression", "pram"]'
    want = _audit(root, "", steps, pram)
    got = _audit(root, engine, steps, pram)
    changed = {v["name"]: v["cells_changed"] for v in got["variables"]}
    per_matrix: dict[str, int] = {}
    for m in got["pram"]["matrices"]:
        per_matrix[m["variables"]] = per_matrix.get(m["variables"], 0) + m["n_changed"]
    assert changed["roof"] == per_matrix["roof"] > 0  # PRAM changed some roofs
    if "sex" in pram:  # blanked by suppression, then PRAMmed: both counted
        blanked = got["suppression"]["per_variable"]["sex"]
        assert changed["sex"] == blanked + per_matrix["sex"]
    if engine == "polars":
        # polars PRAMs the suppressed frame with other draws than pandas (its release
        # differs); the cells not PRAMmed are compared, the PRAMmed ones above
        prammed = set(per_matrix)
        keep = [v for v in want["variables"] if v["name"] not in prammed]
        assert_close([v for v in got["variables"] if v["name"] not in prammed], keep)
        return
    assert_close(got["variables"], want["variables"])
    assert_close(got["key_variables"], want["key_variables"])
    assert got["not_computed"] == [s for s in got["not_computed"] if "PRAM" not in s]


UNCOUNTED = [
    # columns PRAMmed together: a record counts when either changed
    (
        '[pram]\nvariables = ["roof", "water"]\ntogether = [["roof", "water"]]\nseed = 3\n',
        {"roof": 0, "water": 0},
        "roof, water",
    ),
    # a key variable PRAMmed with missing as a state: a blanked cell may get a value again
    ('[pram]\nvariables = ["roof", "sex"]\nmissing = "state"\nseed = 3\n', None, "sex"),
]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize(("pram", "zero", "named"), UNCOUNTED)
def test_cells_pram_changed_that_cannot_be_counted_are_said_so(
    root: Path, engine: str, pram: str, zero: dict[str, int] | None, named: str
) -> None:
    """The engine counts the records whose PRAMmed categories changed, not each cell:
    where that is not the cells of one column, the audit says so and leaves PRAM out."""
    got = _audit(root, engine, '["risk", "suppression", "pram"]', pram)
    changed = {v["name"]: v["cells_changed"] for v in got["variables"]}
    assert sum(m["n_changed"] for m in got["pram"]["matrices"]) > 0
    if zero is not None:
        assert {c: changed[c] for c in zero} == zero
    else:  # the blanks of suppression alone
        assert changed["sex"] == got["suppression"]["per_variable"]["sex"]
        # nor the share suppressed: PRAM may have drawn a value for a blanked cell
        share = {k["name"]: k["share_suppressed"] for k in got["key_variables"]}
        assert share["sex"] is None
        assert any(
            s.startswith("The share of cells suppressed in sex") for s in got["not_computed"]
        )
    said = [s for s in got["not_computed"] if "cells PRAM changed" in s]
    assert said == [
        f"The cells PRAM changed in {named} were not counted (their cells_changed leaves "
        "PRAM out): the engine counts the records whose PRAMmed categories changed, not "
        f"each cell, and the rows of this input stay in the {engine} engine."
    ]
