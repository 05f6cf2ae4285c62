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
    # the continuous variables measured as the job measures them, from the data before PRAM
    assert mine["continuous"] == job.audit["continuous"]
    assert mine["continuous"]["variables"] == ["income", "expend", "savings"]
    assert mine["continuous"]["by_group"] == []
    assert [t["step"] for t in mine["timings"]][-1] == "continuous"
    html = rel.report()
    for name in ("pram", "risk", "suppression", "continuous"):
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


def test_continuous_by_group_as_the_job(tmp_path: Path, survey: pd.DataFrame) -> None:
    text = METHODS_JOB.replace(
        '["region", "sex", "age"]\n\n[recode',
        '["region", "sex", "age"]\ncompare_by = "region"\n\n[recode',
        1,
    )
    assert 'compare_by = "region"' in text
    (tmp_path / "job.toml").write_text(text, encoding="utf-8")
    job = microsdc.run_job(tmp_path / "job.toml", write=False)
    df = pd.read_csv(tmp_path / "survey.csv")
    rel = Release(df, ["region", "sex", "age"], k=2, title="survey", compare_by="region")
    rel.recode("age", bin_numeric(rel.data["age"], method="width", width=20, origin=0))
    rel.local_suppression(importance=["region", "sex", "age"])
    rel.pram(["roof", "water"], strata=["region"], pd=0.7, seed=SEED)
    rel.microaggregate(["income", "expend"], k=4)
    rel.add_noise(["savings"], relative_sd=0.2, lower=0, seed=12)
    mine = rel.audit()
    cont = mine["continuous"]
    assert cont == job.audit["continuous"]
    assert mine["parameters"]["compare_by"] == "region"
    # one row per (group, variable); the regions' records add up to the file
    assert len(cont["by_group"]) == 3 * 3
    income = [r for r in cont["by_group"] if r["column"] == "income"]
    assert sorted(r["group"] for r in income) == ["e", "n", "s"]
    assert sum(r["records"] for r in income) == len(df)
    # the before means are of the data as PRAM found it: income is not changed before
    for row in income:
        assert row["mean_before"] == pytest.approx(
            df.loc[df["region"] == row["group"], "income"].mean()
        )
    html = rel.report()
    assert 'id="table-continuous-groups"' in html
    assert _section(html, "continuous") == _section(job.report_html, "continuous")
    jsonschema = pytest.importorskip("jsonschema")
    from microsdc.report import audit_schema

    jsonschema.Draft202012Validator(audit_schema()).validate(mine)


@pytest.mark.filterwarnings("ignore::microsdc.exceptions.DisclosureRiskWarning")  # no donor
def test_continuous_after_a_later_swap_compares_the_same_records(survey_csv: Path) -> None:
    from microsdc.utility.continuous import continuous_utility

    df = pd.read_csv(survey_csv).sample(frac=1, random_state=5)  # households not in order
    rel = Release(df, ["nuts1", "gender"], k=3, household_id="hid", hierarchy=["nuts1", "nuts2"])
    rel.microaggregate(["hincome"], k=3)
    grouped = rel.data
    rel.record_swap(
        ["age", "national"],
        swaprate=0.1,
        similar=[["hsize"]],
        carry_along=["nuts3", "lau2"],
        seed=3,
    )
    assert not rel.data.index.equals(grouped.index)  # the swap moved the rows
    assert not rel.data.loc[grouped.index, "nuts2"].equals(grouped["nuts2"])
    cont = rel.audit()["continuous"]
    # the same records compared before and after, whatever their order now
    want = continuous_utility(df, grouped, ["hincome"])
    assert cont["il1s"] == pytest.approx(want.il1s)
    assert cont["sse_sst"] == pytest.approx(want.sse_sst)
    assert cont["records_compared"] == int(df["hincome"].notna().sum())


def test_compare_by_refused_as_the_job_refuses_it(survey: pd.DataFrame) -> None:
    with pytest.raises(ColumnNotFoundError, match="regoin"):
        Release(survey, ["sex"], compare_by="regoin")
    with pytest.raises(InvalidParameterError, match="one column name"):
        Release(survey, ["sex"], compare_by=["region"])
    with pytest.raises(InvalidParameterError, match=r"'drop'.*'region'"):
        Release(survey, ["sex"], compare_by="region", drop=["region"])
    with pytest.raises(InvalidParameterError, match=r"'drop'.*'sex'"):
        Release(survey, ["sex"], drop=["sex"])  # any column the release uses
    rel = Release(survey, ["sex"], k=2, compare_by="region")
    rel.pram("roof", seed=1)
    with pytest.raises(InvalidParameterError, match="needs a microaggregation or noise step"):
        rel.audit()
    rel.add_noise(["income"], relative_sd=0.1, seed=2)
    assert {r["group"] for r in rel.audit()["continuous"]["by_group"]} == {"n", "s", "e"}
    assert "continuous" not in Release(survey, ["sex"]).audit()
