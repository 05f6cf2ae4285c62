"""A release built in Python (microsdc.Release) gives the report a job gives for the same
steps, and keeps no seed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import microsdc
from microsdc import Release, bin_numeric
from microsdc.exceptions import (
    ColumnNotFoundError,
    DisclosureRiskWarning,
    InvalidParameterError,
)

SEED = 987654321  # digits that appear nowhere else in a report

METHODS_JOB = """title = "survey"
steps = ["risk", "suppression", "pram", "microaggregation", "noise"]

[input]
path = "survey.csv"

[variables]
quasi_identifiers = ["region", "sex", "age"]

[recode.age]
width = 20
start = 0

[risk]
k = 2

[suppression]
importance = ["region", "sex", "age"]

[pram]
variables = ["roof", "water"]
strata = ["region"]
pd = 0.7
seed = SEED

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
""".replace("SEED", str(SEED))


@pytest.fixture
def survey(tmp_path: Path) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 400
    df = pd.DataFrame(
        {
            "region": rng.choice(["n", "s", "e"], n),
            "sex": rng.choice(["m", "f"], n),
            "age": rng.integers(16, 90, n),
            "roof": rng.choice(["tin", "tile", "straw"], n, p=[0.6, 0.3, 0.1]),
            "water": rng.choice(["pipe", "well"], n),
            "income": rng.lognormal(9, 1, n).round(2),
            "expend": rng.lognormal(8, 1, n).round(2),
            "savings": rng.lognormal(7, 1, n).round(2),
        }
    )
    df.to_csv(tmp_path / "survey.csv", index=False)
    (tmp_path / "job.toml").write_text(METHODS_JOB, encoding="utf-8")
    return df


def _section(html: str, name: str) -> str:
    found = re.search(rf'<section id="{name}">.*?</section>', html, re.S)
    assert found is not None, name
    return found.group(0)


def _python_release(df: pd.DataFrame) -> Release:
    rel = Release(df, ["region", "sex", "age"], k=2, title="survey")
    rel.recode("age", bin_numeric(rel.data["age"], method="width", width=20, origin=0))
    rel.local_suppression(importance=["region", "sex", "age"])
    rel.pram(["roof", "water"], strata=["region"], pd=0.7, seed=SEED)
    rel.microaggregate(["income", "expend"], k=4)
    rel.add_noise(["savings"], relative_sd=0.2, lower=0, seed=12)
    return rel


def test_python_release_has_the_jobs_figures(tmp_path: Path, survey: pd.DataFrame) -> None:
    job = microsdc.run_job(tmp_path / "job.toml", write=False)
    rel = _python_release(pd.read_csv(tmp_path / "survey.csv"))
    mine = rel.audit()
    for key in ("risk", "suppression", "pram", "microaggregation", "noise", "recode"):
        assert mine[key] == job.audit[key], key
    assert mine["variables"] == job.audit["variables"]
    assert mine["key_variables"] == job.audit["key_variables"]
    assert mine["intruder"] == job.audit["intruder"]
    html = rel.report()
    for name in ("pram", "risk", "suppression"):
        assert _section(html, name) == _section(job.report_html, name), name
    # the recode done in Python is in the report, with what it did
    assert "recode age" in html
    assert f"recoded in Python: {survey['age'].nunique()} values into" in html
    assert "Variables were recoded first: age (" in html


def test_no_seed_in_the_files_of_a_python_release(tmp_path: Path, survey: pd.DataFrame) -> None:
    rel = _python_release(survey)
    rel.report(tmp_path / "alone.html")
    written = rel.write(tmp_path / "rel", stem="survey")
    assert sorted(written) == ["audit", "data", "release", "report"]
    for path in [*written.values(), tmp_path / "alone.html"]:
        text = path.read_text(encoding="utf-8")
        assert str(SEED) not in text, path.name
        assert "seed = 12" not in text and '"seed": 12' not in text, path.name
    audit = json.loads(written["audit"].read_text(encoding="utf-8"))
    assert audit["parameters"]["pram"]["seed_given"] is True
    assert audit["parameters"]["microaggregation"]["seed_given"] is False
    assert audit["outputs"]["data"].endswith("survey_anonymised.csv")
    released = pd.read_csv(written["data"])
    assert len(released) == len(survey)
    jsonschema = pytest.importorskip("jsonschema")
    from microsdc.report import audit_schema

    jsonschema.Draft202012Validator(audit_schema()).validate(audit)


def test_a_generator_as_seed_is_recorded_as_given(survey: pd.DataFrame) -> None:
    rel = Release(survey, ["region", "sex"], k=2)
    rel.pram("roof", seed=np.random.default_rng(SEED))
    audit = rel.audit()
    assert audit["parameters"]["pram"] == {"variables": ["roof"], "seed_given": True}
    assert "Generator" not in rel.report()


def test_swap_then_suppression_as_the_job(write_job) -> None:  # type: ignore[no-untyped-def]
    path = write_job(steps='["risk", "swapping", "suppression"]')
    job = microsdc.run_job(path, write=False)
    cfg = job.config
    df = pd.read_csv(cfg.input_path)
    rel = Release(
        df,
        list(cfg.quasi_identifiers),
        k=cfg.k,
        weights=cfg.weights,
        household_id=cfg.household_id,
        hierarchy=list(cfg.hierarchy),
        sensitive=list(cfg.sensitive),
        title=cfg.title,
    )
    rel.recode("age", bin_numeric(rel.data["age"], method="width", width=10, origin=0))
    rel.record_swap(
        ["age", "national"],
        swaprate=0.1,
        similar=[["hsize"]],
        carry_along=["nuts3", "lau2"],
        seed=987654321,
    )
    with pytest.warns(DisclosureRiskWarning) as got:
        rel.local_suppression()
    mine = rel.audit()
    said = [w["message"][:40] for w in mine["warnings"]]
    assert said == [w["message"][:40] for w in job.audit["warnings"]]
    assert said == [
        "Blanked cells can be read back from othe",
        "The row order of the release gives blank",
    ]
    assert [str(w.message)[:40] for w in got] == said
    for key in ("risk", "swapping", "suppression", "key_variables", "variables"):
        assert mine[key] == job.audit[key], key
    assert [s["step"] for s in mine["risk"]["steps"]] == [
        "read",
        "recode",
        "swapping",
        "suppression",
    ]
    html = rel.report()
    assert _section(html, "swapping") == _section(job.report_html, "swapping")
    assert "987654321" not in html
    assert "given (not shown)" in html


def test_release_refuses_what_it_cannot_report(survey: pd.DataFrame) -> None:
    from microsdc import local_suppression, pram

    rel = Release(survey, ["region", "sex"], k=2)
    with pytest.raises(ColumnNotFoundError):
        Release(survey, ["region", "sexx"])
    with pytest.raises(InvalidParameterError, match=r"index of Release\.data"):
        rel.recode("age", survey["age"].reset_index(drop=True).iloc[::-1])
    other = local_suppression(survey, ["region", "sex"], 3, missing="category")
    with pytest.raises(InvalidParameterError, match="k = 3"):
        rel.add(other)
    not_on_data = pram(survey.iloc[::-1], "roof", seed=1)
    with pytest.raises(InvalidParameterError, match=r"not run on Release\.data"):
        rel.add(not_on_data)
    rel.pram("roof", seed=1)
    with pytest.raises(InvalidParameterError, match="recorded already"):
        rel.pram("water", seed=1)
    with pytest.raises(InvalidParameterError, match="before any protection step"):
        rel.recode("age", survey["age"] // 10)
    with pytest.raises(InvalidParameterError, match="result"):
        rel.add(survey)
    assert rel.steps == ["pram"]


def test_the_input_frame_is_never_changed(survey: pd.DataFrame) -> None:
    before = survey.copy()
    _python_release(survey).report()
    pd.testing.assert_frame_equal(survey, before)


def test_random_order_as_the_job(tmp_path: Path, survey: pd.DataFrame) -> None:
    text = METHODS_JOB.replace('directory = "out"', 'directory = "out"\nrandom_order = true')
    (tmp_path / "job.toml").write_text(text, encoding="utf-8")
    job = microsdc.run_job(tmp_path / "job.toml", write=False)
    rel = Release(
        pd.read_csv(tmp_path / "survey.csv"),
        ["region", "sex", "age"],
        k=2,
        random_order=True,
        title="survey",
    )
    rel.recode("age", bin_numeric(rel.data["age"], method="width", width=20, origin=0))
    rel.local_suppression(importance=["region", "sex", "age"])
    rel.pram(["roof", "water"], strata=["region"], pd=0.7, seed=SEED)
    rel.microaggregate(["income", "expend"], k=4)
    rel.add_noise(["savings"], relative_sd=0.2, lower=0, seed=12)
    released = rel.released
    # the job's release, row for row: the same values in the same drawn order
    assert released.reset_index(drop=True).equals(job.data.reset_index(drop=True))
    assert not released.equals(rel.data)  # the rows left their order
    mine = rel.audit()
    for key in ("risk", "suppression", "pram", "variables", "key_variables"):
        assert mine[key] == job.audit[key], key
    written = rel.write(tmp_path / "rel")
    back = pd.read_csv(written["data"])
    assert back["region"].tolist() == released["region"].tolist()
    assert np.allclose(back["savings"], released["savings"])
