"""The ``[pram]`` step of a job whose input is read by DuckDB or polars: PRAM runs in the
engine, and the release equals that of the same job on pandas."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import microsdc

pytest.importorskip("duckdb")
pytest.importorskip("polars")
pytest.importorskip("narwhals")

JOB = """title = "engine pram"
steps = ["risk", "pram"]

[input]
path = "survey.parquet"
{engine}

[variables]
quasi_identifiers = ["region", "sex"]

[risk]
k = 2

[pram]
variables = ["roof", "water"]
strata = ["region"]
seed = 11

[output]
directory = "{out}"
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    n = 600
    pd.DataFrame(
        {
            "rid": np.arange(n),
            "region": rng.choice(["n", "s", "e"], n),
            "sex": rng.choice(["m", "f"], n),
            "roof": rng.choice(["tin", "tile", "straw", None], n),
            "water": rng.integers(1, 5, n),
        }
    ).to_parquet(tmp_path / "survey.parquet", index=False)
    return tmp_path


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engine_job_prams_in_the_engine_as_pandas_does(root: Path, engine: str) -> None:
    (root / "pandas.toml").write_text(JOB.format(engine="", out="out_pd"), encoding="utf-8")
    job = root / f"{engine}.toml"
    job.write_text(JOB.format(engine=f'engine = "{engine}"', out=f"out_{engine}"), "utf-8")
    want = microsdc.run_job(root / "pandas.toml")
    got = microsdc.run_job(job)
    released = pd.read_parquet(root / f"out_{engine}" / "survey_anonymised.parquet")
    expected = pd.read_parquet(root / "out_pd" / "survey_anonymised.parquet")
    for col in expected.columns:
        assert released[col].astype(object).tolist() == expected[col].astype(object).tolist(), col
    original = pd.read_parquet(root / "survey.parquet")
    assert (released["water"] != original["water"]).sum() > 0  # PRAM changed something
    audit = json.loads((root / f"out_{engine}" / "survey_audit.json").read_text("utf-8"))
    assert audit["pram"]["per_variable"] == want.audit["pram"]["per_variable"]
    # the matrices, frequencies and unbiased estimates of the report: from the engine's
    # released counts, equal to those pandas counts from the records
    assert len(audit["pram"]["matrices"]) == len(want.audit["pram"]["matrices"]) > 0
    for m, w in zip(audit["pram"]["matrices"], want.audit["pram"]["matrices"], strict=True):
        assert [f["category"] for f in m["frequencies"]] == [
            f["category"] for f in w["frequencies"]
        ]
        for key in ("before", "after", "estimate", "standard_error"):
            got_v = [f[key] for f in m["frequencies"]]
            assert got_v == pytest.approx([f[key] for f in w["frequencies"]], rel=1e-12), key
        assert np.allclose(m["matrix"], w["matrix"], rtol=0, atol=1e-15)
    assert audit["risk"]["steps"][-1]["step"] == "pram"
    assert got.audit["pram"]["variables"] == ["roof", "water"]
