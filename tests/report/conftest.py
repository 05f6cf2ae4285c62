"""Fixtures of the report tests: reports of small jobs, built once per session."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from microsdc.datasets import synthetic_census
from microsdc.job import JobResult, run_job

#: A value planted in one record only; it must never reach a report or an audit record.
PLANTED = "Zyxwv-unique-occupation"
SEED = 918273645

JOB = """
title = "Report test <survey> & co"
steps = {steps}

[input]
path = "survey.csv"

[variables]
quasi_identifiers = ["nuts1", "ageGroup", "gender", "national", "job"]
weights = "w"
household_id = "hid"
hierarchy = ["nuts1", "nuts2"]
sensitive = ["hincome"]

[risk]
k = 3
{swapping}
{suppression}
[output]
directory = "out"
"""

SWAPPING = f"""
[swapping]
swaprate = 0.1
similar = [["hsize"]]
risk_variables = ["ageGroup", "national"]
carry_along = ["nuts3", "lau2"]
seed = {SEED}
"""

SUPPRESSION = """
[suppression]
importance = ["nuts1", "gender", "ageGroup", "national", "job"]
"""


def has_suppression() -> bool:
    try:
        from microsdc.suppression import local_suppression  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(scope="session")
def secrets() -> dict[str, object]:
    """What must never appear in a report: the seed and a value of a unique record."""
    return {"seed": SEED, "planted": PLANTED}


@pytest.fixture(scope="session")
def suppression_available() -> bool:
    return has_suppression()


@pytest.fixture(scope="session")
def survey_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    df = synthetic_census(400, seed=3)
    rng = np.random.default_rng(3)
    df["w"] = rng.uniform(10, 50, len(df)).round(2)
    jobs = np.array(["clerk", "farmer", "teacher", "driver"])
    job = jobs[rng.integers(0, 4, len(df))].astype(object)
    job[rng.random(len(df)) < 0.05] = None
    job[7] = PLANTED
    df["job"] = job
    df.loc[7, "hincome"] = 7
    folder = tmp_path_factory.mktemp("report")
    df.to_csv(folder / "survey.csv", index=False)
    return folder


def _run(folder: Path, name: str, steps: list[str]) -> JobResult:
    text = JOB.format(
        steps="[" + ", ".join(f'"{s}"' for s in steps) + "]",
        swapping=SWAPPING if "swapping" in steps else "",
        suppression=SUPPRESSION if "suppression" in steps else "",
    ).replace('directory = "out"', f'directory = "{name}"')
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return run_job(path)


@pytest.fixture(scope="session")
def full_report(survey_dir: Path) -> JobResult:
    """Risk, swapping and (when available) suppression on the survey: every figure."""
    steps = ["risk", "swapping"] + (["suppression"] if has_suppression() else [])
    return _run(survey_dir, "full", steps)


@pytest.fixture(scope="session")
def risk_report(survey_dir: Path) -> JobResult:
    """Risk only: the two risk figures."""
    return _run(survey_dir, "risk", ["risk"])
