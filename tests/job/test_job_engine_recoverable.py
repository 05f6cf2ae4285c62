"""An engine job checks whether other columns give blanked cells back, as the pandas job:
on the Adult data with education-num kept, the suppression step's warning names
'education' from 'education-num' with every blanked cell, in the audit and the report,
word for word as the pandas job says it (the newuser33 engine job named 'workclass' in a
"Not checked here" warning instead)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from microsdc.job import run_job

duckdb = pytest.importorskip("duckdb")
pytest.importorskip("polars")
pytest.importorskip("narwhals")

QI = ["age", "sex", "race", "marital-status", "education"]

JOB = """title = "read back"
steps = ["risk", "suppression"]

[input]
path = "adult.parquet"
{engine}

[variables]
quasi_identifiers = {qi}

[risk]
k = 3
missing = "wildcard"

[output]
directory = "out_{name}"
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from microsdc.datasets import load_adult

    path = tmp_path_factory.mktemp("readback")
    load_adult().iloc[:4000].reset_index(drop=True).to_parquet(path / "adult.parquet")
    return path


def _run(root: Path, engine: str) -> Any:
    line = "" if engine == "pandas" else f'engine = "{engine}"'
    qi = "[" + ", ".join(f'"{q}"' for q in QI) + "]"
    job = root / f"{engine}.toml"
    job.write_text(JOB.format(engine=line, qi=qi, name=engine), encoding="utf-8")
    return run_job(job)


def _read_back(audit: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [
        (w["step"], w["category"], w["message"])
        for w in audit["warnings"]
        if "read back from other columns" in w["message"]
        or "Not checked here: whether" in w["message"]
    ]


@pytest.fixture(scope="module")
def pandas_job(root: Path) -> Any:
    return _run(root, "pandas")


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_the_engine_job_names_the_pairs_as_the_pandas_job(
    root: Path, pandas_job: Any, engine: str
) -> None:
    res = _run(root, engine)
    said, want = _read_back(res.audit), _read_back(pandas_job.audit)
    assert said == want and len(said) == 1
    step, category, message = said[0]
    assert (step, category) == ("suppression", "DisclosureRiskWarning")
    out = pd.read_parquet(res.written["data"])
    n = int(out["education"].isna().sum())
    assert n > 0
    assert message.startswith(
        f"Blanked cells can be read back from other columns: 'education' from "
        f"'education-num' ({n:,} of {n:,})"
    )
    assert "workclass" not in message.split(". Blank")[0]
    text = html.unescape(re.sub(r"<[^>]+>", " ", res.report_html))
    assert message in text and "Not checked here: whether" not in text
    assert res.audit["not_computed"] == []
