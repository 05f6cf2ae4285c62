"""The release-method steps of a job: pram, microaggregation and noise."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import microsdc
from microsdc.exceptions import JobFileError

JOB = """title = "survey"
steps = ["risk", "suppression", "pram", "microaggregation", "noise"]

[input]
path = "survey.csv"

[variables]
quasi_identifiers = ["region", "sex"]

[risk]
k = 2

[pram]
variables = ["roof", "water"]
strata = ["region"]
together = [["roof", "water"]]
seed = 11

[microaggregation]
variables = ["income", "expend"]
k = 4

[noise]
variables = ["savings"]
relative_sd = 0.2
lower = 0
seed = 12

[output]
directory = "out"
"""


@pytest.fixture
def job(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    n = 400
    pd.DataFrame(
        {
            "region": rng.choice(["n", "s"], n),
            "sex": rng.choice(["m", "f"], n),
            "roof": rng.choice(["tin", "tile", "straw"], n),
            "water": rng.choice(["pipe", "well"], n),
            "income": rng.lognormal(9, 1, n).round(2),
            "expend": rng.lognormal(8, 1, n).round(2),
            "savings": rng.lognormal(7, 1, n).round(2),
        }
    ).to_csv(tmp_path / "survey.csv", index=False)
    (tmp_path / "job.toml").write_text(JOB, encoding="utf-8")
    return tmp_path / "job.toml"


def test_job_runs_the_methods_and_records_them(job: Path) -> None:
    res = microsdc.run_job(job)
    original = pd.read_csv(job.parent / "survey.csv")
    released = pd.read_csv(job.parent / "out" / "survey_anonymised.csv")
    assert released["region"].equals(original["region"])
    pairs = set(map(tuple, original[["region", "roof", "water"]].to_numpy()))
    assert set(map(tuple, released[["region", "roof", "water"]].to_numpy())) <= pairs
    assert (released[["roof", "water"]] != original[["roof", "water"]]).any(axis=1).sum() > 0
    for col in ("income", "expend"):
        assert released.groupby(col).size().min() >= 4
    assert (released["savings"] >= 0).all() and (released["savings"] != original["savings"]).all()
    audit = json.loads((job.parent / "out" / "survey_audit.json").read_text(encoding="utf-8"))
    assert audit["microaggregation"]["min_group_size"] >= 4
    assert audit["pram"]["per_variable"][0]["variables"] == "roof + water"
    assert 0 < audit["noise"]["per_variable"][0]["relative_sd"] < 0.4
    assert "seed" not in json.dumps(audit["parameters"]["pram"]).replace("seed_given", "")
    text = " ".join(microsdc.report.plain_summary(res.audit))
    assert "PRAM released roof + water" in text and "groups of at least 4 records" in text
    assert "No other value was changed" not in text
    assert "no protection step was run" not in text
    roles = {v["name"]: (v["roles"], v["cells_changed"]) for v in audit["variables"]}
    assert roles["income"][0] == ["microaggregated"] and roles["income"][1] == len(original)
    assert roles["roof"][0] == ["PRAMmed"] and roles["roof"][1] > 0
    assert roles["region"][0] == ["key", "stratum"]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace('"pram", ', ""), "section [pram] is given"),
        (lambda t: t.replace("[noise]\nvariables", "[noise]\nvariabels"), "noise"),
        (lambda t: t.replace("relative_sd = 0.2", "relative_sd = -1"), "noise.relative_sd"),
        (
            lambda t: t.replace('[pram]\nvariables = ["roof", "water"]', "[pram]"),
            "pram.variables",
        ),
    ],
)
def test_job_file_errors(job: Path, edit, message: str) -> None:
    job.write_text(edit(JOB), encoding="utf-8")
    with pytest.raises(JobFileError, match=message.replace("[", r"\[").replace(".", r"\.")):
        microsdc.load_job(job)


def test_library_errors_name_the_job_key(job: Path) -> None:
    job.write_text(
        JOB.replace('variables = ["income", "expend"]', 'variables = ["roof"]'), encoding="utf-8"
    )
    with pytest.raises(Exception, match=r"microaggregation\.variables"):
        microsdc.run_job(job, write=False)


def test_a_step_needs_its_section(job: Path) -> None:
    text = JOB.split("[pram]")[0] + '[output]\ndirectory = "out"\n'
    job.write_text(text, encoding="utf-8")
    with pytest.raises(JobFileError, match=r"needs a section \[pram\]"):
        microsdc.load_job(job)


@pytest.mark.parametrize(
    ("edit", "answer"),
    [
        (lambda t: t.replace("[variables]\n", '[variables]\nnumeric = ["income"]\n'), "numVars"),
        (lambda t: t.replace("relative_sd = 0.2", "noise = 150"), "relative_sd = 1.5"),
        (lambda t: t.replace("k = 4", "aggr = 4"), "'microaggregation.k'"),
    ],
)
def test_sdcmicro_keys_get_an_answer(job: Path, edit, answer: str) -> None:
    job.write_text(edit(JOB), encoding="utf-8")
    with pytest.raises(JobFileError) as info:
        microsdc.load_job(job)
    assert answer in str(info.value) and "sdcMicro" in str(info.value)


def test_seeds_of_every_step_are_blanked_in_the_job_hash(job: Path) -> None:
    import hashlib

    audit = microsdc.run_job(job, write=False).audit
    blanked = JOB.replace("seed = 11", 'seed = ""').replace("seed = 12", 'seed = ""')
    assert audit["job_file"]["sha256"] == hashlib.sha256(blanked.encode()).hexdigest()


def test_a_key_variable_in_pram_is_warned(job: Path) -> None:
    job.write_text(
        JOB.replace('variables = ["roof", "water"]', 'variables = ["sex", "roof"]').replace(
            'together = [["roof", "water"]]\n', ""
        ),
        encoding="utf-8",
    )
    res = microsdc.run_job(job, write=False)
    assert any("changes the key variables ['sex']" in n["message"] for n in res.audit["warnings"])


def test_random_order_releases_rows_by_their_released_values(job: Path) -> None:
    sorted_input = pd.read_csv(job.parent / "survey.csv").sort_values(["region", "sex"])
    sorted_input.to_csv(job.parent / "survey.csv", index=False)
    text = JOB.replace('directory = "out"', 'directory = "out"\nrandom_order = true')
    job.write_text(text, encoding="utf-8")
    first = microsdc.run_job(job, write=False).data
    again = microsdc.run_job(job, write=False).data
    pd.testing.assert_frame_equal(first, again)  # no seed needed: the order follows the values
    runs = int((first["region"] != first["region"].shift()).sum())
    assert runs > 50  # no longer grouped by region as the input was
