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


def _close(got: Any, want: Any) -> None:
    if isinstance(want, dict):
        assert got.keys() == want.keys()
        for key in want:
            _close(got[key], want[key])
    elif isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _close(g, w)
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12)
    else:
        assert got == want


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
    _close(got["variables"], want["variables"])
    _close(got["key_variables"], want["key_variables"])
