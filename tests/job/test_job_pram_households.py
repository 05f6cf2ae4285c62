"""A job's [pram] step by household (``household_id``), with the household id not released."""

from __future__ import annotations

import dataclasses
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import microsdc
from microsdc.exceptions import JobFileError
from real_data import real_data_file

JOB = """title = "households"
steps = ["risk", "suppression", "pram"]

[input]
path = "persons.csv"

[variables]
quasi_identifiers = ["region", "sex"]
drop = ["hh"]

[risk]
k = 2

[pram]
variables = ["roof", "walls"]
strata = ["region"]
household_id = "hh"
pd = 0.3
seed = 5

[output]
directory = "out"
"""


@pytest.fixture
def job(tmp_path: Path) -> Path:
    rng = np.random.default_rng(3)
    n_hh = 300
    size = rng.integers(1, 6, n_hh)
    rows = np.repeat(np.arange(n_hh), size)
    pd.DataFrame(
        {
            "hh": rows + 1000,
            "region": rng.choice(["n", "s"], n_hh)[rows],
            "sex": rng.choice(["m", "f"], len(rows)),
            "roof": rng.choice(["tin", "tile", "straw"], n_hh)[rows],
            "walls": rng.choice(["brick", "wood", "mud"], n_hh)[rows],
        }
    ).to_csv(tmp_path / "persons.csv", index=False)
    (tmp_path / "job.toml").write_text(JOB, encoding="utf-8")
    return tmp_path / "job.toml"


def test_pram_by_household_with_the_id_dropped(job: Path) -> None:
    res = microsdc.run_job(job)
    original = pd.read_csv(job.parent / "persons.csv")
    released = pd.read_csv(job.parent / "out" / "persons_anonymised.csv")
    assert "hh" not in released.columns and len(released) == len(original)
    for col in ("roof", "walls"):  # rows in the input's order: grouped by the input's id
        assert (released[col].groupby(original["hh"]).nunique() == 1).all()
    changed = (released[["roof", "walls"]] != original[["roof", "walls"]]).any(axis=1)
    assert changed.sum() > 0
    audit = res.audit
    assert audit["pram"]["by_household"] is True
    n_hh = original["hh"].nunique()
    assert [r["records"] for r in audit["pram"]["per_variable"]] == [n_hh, n_hh]
    roles = {v["name"]: v["roles"] for v in audit["variables"]}
    assert roles["hh"] == ["household id", "dropped"]
    assert res.release is not None
    release = json.loads(json.dumps(res.release))
    assert release["protection"]["pram"]["by_household"] is True
    text = " ".join(microsdc.report.plain_summary(audit))
    assert "household by household" in text and "of households changed" in text
    html = microsdc.render_report(audit)
    section = html[html.index('<section id="pram">') :]
    section = section[: section.index("</section>")]
    assert '<th class="num">households PRAMmed</th>' in section
    assert "records PRAMmed" not in section


def test_without_household_id_the_members_disagree(job: Path) -> None:
    job.write_text(JOB.replace('household_id = "hh"\n', ""), encoding="utf-8")
    original = pd.read_csv(job.parent / "persons.csv")
    res = microsdc.run_job(job, write=False)
    assert res.audit["pram"]["by_household"] is False
    assert '<th class="num">records PRAMmed</th>' in microsdc.render_report(res.audit)
    # hh is not used, so it is dropped on reading; the members of a household disagree
    assert (res.data["roof"].groupby(original["hh"]).nunique() > 1).any()


def test_person_level_variable_is_refused_naming_the_key(job: Path) -> None:
    job.write_text(JOB.replace('["roof", "walls"]', '["roof", "sex"]'), encoding="utf-8")
    with pytest.raises(Exception, match=r"pram\.variables.*'sex' \(in [\d,]+ of 300 households"):
        microsdc.run_job(job, write=False)


def test_household_id_key_is_checked(job: Path) -> None:
    job.write_text(JOB.replace('household_id = "hh"', 'household_id = "hhh"'), encoding="utf-8")
    with pytest.raises(JobFileError, match=r"pram\.household_id.*'hhh'"):
        microsdc.run_job(job, write=False)
    job.write_text(JOB.replace('household_id = "hh"', "household_id = 3"), encoding="utf-8")
    with pytest.raises(JobFileError, match=r"pram\.household_id"):
        microsdc.load_job(job)
    # a used column that is not a household id still may not be dropped
    job.write_text(JOB.replace('drop = ["hh"]', 'drop = ["hh", "sex"]'), encoding="utf-8")
    with pytest.raises(JobFileError, match=r"variables\.drop.*'sex'"):
        microsdc.load_job(job)


def test_testdata_example_households_agree() -> None:
    real_data_file("testdata.csv")  # skips without the data
    cfg = microsdc.load_job(Path(__file__).parents[2] / "examples" / "testdata_release.toml")
    source = pd.read_csv(cfg.input_path)
    in_order = dataclasses.replace(cfg, output=dataclasses.replace(cfg.output, random_order=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = microsdc.run_job(in_order, write=False, progress=False)
    assert "ori_hid" not in res.data.columns
    released = res.data.reset_index(drop=True)
    for col in ("roof", "walls", "electcon"):
        assert (released[col].groupby(source["ori_hid"]).nunique(dropna=False) == 1).all()
        assert (released[col] != source[col]).any()
    assert not [w for w in res.audit["warnings"] if "ori_hid" in w["message"]]
