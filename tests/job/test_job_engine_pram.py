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


SUPPRESS_THEN_PRAM = """title = "integer key blanked, then PRAMmed"
steps = ["risk", "suppression", "pram"]

[input]
path = "people.parquet"
missing_values = [-9]
{engine}

[variables]
quasi_identifiers = ["age", "sex", "region"]

[risk]
k = 3

[pram]
variables = ["age", "roof"]
strata = ["sex"]
seed = {seed}

[output]
directory = "{out}"
data = "people.parquet"
"""


@pytest.mark.parametrize("seed", [1, 7])
def test_an_integer_key_blanked_by_suppression_is_prammed_as_on_pandas(
    tmp_path: Path, seed: int
) -> None:
    """Suppression blanks cells of the integer key ``age`` (which also holds the
    declared missing code -9 and missing values of its own): every engine then PRAMs
    with the draws of pandas, where polars used to draw from the column as floats."""
    rng = np.random.default_rng(0)
    n = 300
    age = [None if i % 9 == 0 else int(v) for i, v in enumerate(rng.integers(1, 9, n))]
    pd.DataFrame(
        {
            "age": pd.array([-9 if i % 31 == 0 else v for i, v in enumerate(age)], "Int64"),
            "sex": rng.choice(["m", "f"], n),
            "region": rng.choice(list("abc"), n),
            "roof": rng.choice(["tin", "tile", "straw"], n),
            "size": rng.integers(1, 6, n),
        }
    ).to_parquet(tmp_path / "people.parquet", index=False)
    released = {}
    for engine in ("pandas", "duckdb", "polars"):
        line = "" if engine == "pandas" else f'engine = "{engine}"'
        job = tmp_path / f"{engine}.toml"
        job.write_text(SUPPRESS_THEN_PRAM.format(engine=line, seed=seed, out=engine), "utf-8")
        microsdc.run_job(job)
        out = pd.read_parquet(tmp_path / engine / "people.parquet")
        released[engine] = {
            c: [None if pd.isna(v) else v for v in out[c].astype(object)] for c in out.columns
        }
    original = pd.read_parquet(tmp_path / "people.parquet")
    missing = int((original["age"].isna() | (original["age"] == -9)).sum())
    assert sum(v is None or v == -9 for v in released["pandas"]["age"]) > missing  # blanked
    assert released["pandas"]["roof"] != original["roof"].tolist()  # PRAM moved some
    for engine in ("duckdb", "polars"):
        differ = {
            c: sum(a != b for a, b in zip(v, released["pandas"][c], strict=True))
            for c, v in released[engine].items()
        }
        assert differ == dict.fromkeys(released["pandas"], 0), engine
