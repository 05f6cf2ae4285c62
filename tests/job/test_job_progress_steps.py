"""What the progress display of a job is told: the number of steps, then the description
of each step as it starts, in order, for a pandas input and for an engine input (one
runner serves both; the descriptions say which engine holds the rows)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from microsdc.job import load_job, run_job

JOB = """title = "progress"
steps = {steps}

[input]
path = "survey.parquet"
{engine}

[variables]
quasi_identifiers = ["region", "sex", "age"]

{recode}
[risk]
k = 2
missing = "wildcard"

[suppression]
importance = ["sex", "region", "age"]

{pram}
"""

PRAM = '[pram]\nvariables = ["roof"]\nseed = 3\n'

RECODE = "[recode.age]\nwidth = 10\n"


class _Recorder:
    """A job's progress: ``log`` gets the step count and each description."""

    def __init__(self, log: list[object]) -> None:
        self.log = log

    def __call__(self, desc: str) -> None:
        self.log.append(desc)

    def records(self) -> Callable[[int, int], None]:
        return lambda done, total: None

    def levels(self, names: list[str]) -> None:
        return None


def _display(log: list[object]) -> Callable[[int], contextlib.AbstractContextManager[_Recorder]]:
    @contextlib.contextmanager
    def display(n_steps: int) -> Iterator[_Recorder]:
        log.append(n_steps)
        yield _Recorder(log)

    return display


@pytest.fixture
def root(tmp_path: Path) -> Path:
    rng = np.random.default_rng(1)
    n = 300
    pd.DataFrame(
        {
            "region": rng.choice(["n", "s", "e"], n),
            "sex": rng.choice(["m", "f"], n),
            "age": rng.integers(0, 90, n),
            "roof": rng.choice(["tin", "tile", "straw"], n),
        }
    ).to_parquet(tmp_path / "survey.parquet", index=False)
    return tmp_path


def _progress(root: Path, engine: str, steps: str, recode: str, write: bool) -> list[object]:
    job = root / f"job_{engine or 'pandas'}.toml"
    line = f'engine = "{engine}"' if engine else ""
    pram = PRAM if "pram" in steps else ""
    text = JOB.format(steps=steps, engine=line, recode=recode, pram=pram)
    job.write_text(text, encoding="utf-8")
    log: list[object] = []
    run_job(load_job(job), write=write, output_dir=root / "out", progress_display=_display(log))
    return log


def test_pandas_job_steps_and_their_count(root: Path) -> None:
    log = _progress(root, "", '["risk", "suppression", "pram"]', RECODE, True)
    assert log == [
        9,
        "reading survey.parquet",
        "recoding",
        "measuring risk (as read)",
        "measuring risk (after recoding)",
        "local suppression",
        "PRAM of categorical variables",
        "measuring risk (after)",
        "drawing the report",
        "writing files",
    ]
    assert log[0] == len(log) - 1  # each step counted once


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engine_job_steps_and_their_count(root: Path, engine: str) -> None:
    pytest.importorskip(engine)
    pytest.importorskip("narwhals")
    log = _progress(root, engine, '["risk", "suppression", "pram"]', "", False)
    assert log == [
        6,
        f"opening survey.parquet ({engine})",
        f"grouping by the key variables ({engine})",
        f"local suppression ({engine})",
        f"PRAM of categorical variables ({engine})",
        f"measuring risk (after, {engine})",
        "drawing the report",
    ]
    assert log[0] == len(log) - 1
    with_recode = _progress(root, engine, '["risk", "suppression"]', RECODE, True)
    assert with_recode == [
        8,
        f"opening survey.parquet ({engine})",
        f"binning age ({engine})",
        f"grouping by the key variables ({engine})",
        f"grouping by the key variables as read ({engine})",
        f"local suppression ({engine})",
        f"measuring risk (after, {engine})",
        "drawing the report",
        f"writing survey_anonymised.parquet ({engine})",
    ]
    assert with_recode[0] == len(with_recode) - 1  # the grouping as read counted too


#: the sections of each step beyond risk, for the combinations below
SECTIONS = {
    "suppression": '[suppression]\nimportance = ["sex", "region", "age"]\n',
    "pram": PRAM,
    "swapping": '[swapping]\nswaprate = 0.2\nrisk_variables = ["sex"]\nseed = 1\n',
    "microaggregation": '[microaggregation]\nvariables = ["income"]\nk = 3\n',
    "noise": '[noise]\nvariables = ["income"]\nseed = 4\n',
}

COMBINATIONS = [
    ("risk",),
    ("risk", "suppression"),
    ("risk", "pram"),
    ("risk", "suppression", "pram"),
    ("risk", "swapping"),
    ("risk", "swapping", "suppression"),
    ("risk", "microaggregation"),
    ("risk", "suppression", "noise"),
    ("risk", "swapping", "suppression", "pram", "microaggregation", "noise"),
]

#: what an engine input runs (the others are refused when the job is read)
ENGINE_STEPS = {"risk", "suppression", "pram"}


def _job_text(engine: str, steps: tuple[str, ...], recode: bool) -> str:
    line = f'engine = "{engine}"' if engine else ""
    households = 'household_id = "hid"\nhierarchy = ["region"]\n' if "swapping" in steps else ""
    return (
        f"steps = {list(steps)!r}\n".replace("'", '"')
        + f'[input]\npath = "survey.parquet"\n{line}\n'
        + f'[variables]\nquasi_identifiers = ["region", "sex", "age"]\n{households}\n'
        + (RECODE if recode else "")
        + '[risk]\nk = 2\nmissing = "wildcard"\n'
        + "".join(SECTIONS[s] for s in steps if s in SECTIONS)
    )


RUNS = [
    pytest.param(engine, steps, id=f"{engine or 'pandas'}-{'+'.join(steps)}")
    for engine in ("", "duckdb", "polars")
    for steps in COMBINATIONS
    if not engine or set(steps) <= ENGINE_STEPS
]


@pytest.mark.parametrize(("recode", "write"), [(False, False), (True, True), (True, False)])
@pytest.mark.parametrize(("engine", "steps"), RUNS)
def test_every_step_shown_is_counted_once(
    root: Path, engine: str, steps: tuple[str, ...], recode: bool, write: bool
) -> None:
    """Whatever the steps, the input, the recoding and the writing: the display is told
    as many steps as it is then shown, each description once."""
    if engine:
        pytest.importorskip(engine)
        pytest.importorskip("narwhals")
    data = pd.read_parquet(root / "survey.parquet")
    data["hid"] = np.arange(len(data)) // 3
    data["region"] = data.groupby("hid")["region"].transform("first")  # one area each
    data["income"] = np.random.default_rng(2).gamma(2.0, 900.0, len(data)).round(2)
    data.to_parquet(root / "survey.parquet", index=False)
    job = root / "job.toml"
    job.write_text(_job_text(engine, steps, recode), encoding="utf-8")
    log: list[object] = []
    run_job(load_job(job), write=write, output_dir=root / "out", progress_display=_display(log))
    shown = log[1:]
    assert log[0] == len(shown)
    assert len(set(shown)) == len(shown)  # no description twice
    assert ("writing" in str(shown[-1])) is write
