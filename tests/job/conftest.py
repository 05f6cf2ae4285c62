"""Fixtures of the job tests: a small household survey on disk and a job-file writer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from microsdc.datasets import synthetic_census


@pytest.fixture(scope="session")
def survey_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A synthetic census of 300 households with weights, ages in years and a few missing cells."""
    df = synthetic_census(300, seed=11)
    rng = np.random.default_rng(11)
    df["w"] = rng.uniform(20, 80, len(df)).round(1)
    df["age"] = (df["ageGroup"] * 12 - rng.integers(0, 12, len(df))).astype(int)
    htype = df["htype"].astype("Float64")
    htype[rng.random(len(df)) < 0.03] = np.nan
    df["htype"] = htype
    path = tmp_path_factory.mktemp("data") / "survey.csv"
    df.to_csv(path, index=False)
    return path


SURVEY_JOB = """
title = "Test survey"
steps = {steps}

[input]
path = "{path}"

[variables]
quasi_identifiers = ["nuts1", "age", "gender", "national", "htype"]
weights = "w"
household_id = "hid"
hierarchy = ["nuts1", "nuts2"]
sensitive = ["hincome"]

[recode.age]
width = 10
start = 0

[risk]
k = 3

[swapping]
swaprate = 0.1
similar = [["hsize"]]
risk_variables = ["age", "national"]
seed = 987654321
carry_along = ["nuts3", "lau2"]

[output]
directory = "out"
"""


@pytest.fixture
def write_job(tmp_path: Path, survey_csv: Path) -> Callable[..., Path]:
    """Write a job file into ``tmp_path`` (default: the survey job) and return its path."""

    def write(
        text: str | None = None, *, name: str = "job.toml", steps: str = '["risk", "swapping"]'
    ) -> Path:
        body = SURVEY_JOB.format(path=survey_csv.as_posix(), steps=steps) if text is None else text
        path = tmp_path / name
        path.write_text(body, encoding="utf-8")
        return path

    return write
