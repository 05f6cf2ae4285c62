"""Jobs with each suppression guarantee: audit record, report and refusal of 'conservative'."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pandas as pd
import pytest

from microsdc.job import JobFileError, run_job
from microsdc.report import audit_schema
from microsdc.risk.kanonymity import sample_frequencies

QI = ["nuts1", "age", "gender", "national", "htype"]


def _set_missing(path: Path, missing: str) -> Path:
    """The survey job without its swapping section, with ``missing`` in [risk]."""
    text = path.read_text()
    text = text[: text.index("[swapping]")] + text[text.index("[output]") :]
    path.write_text(text.replace("k = 3\n", f'k = 3\nmissing = "{missing}"\n'))
    return path


@pytest.mark.parametrize("missing", ["category", "probabilistic"])
def test_suppression_job_under_each_guarantee(
    write_job: Callable[..., Path], tmp_path: Path, missing: str
) -> None:
    run_job(_set_missing(write_job(steps='["risk", "suppression"]'), missing))
    out = tmp_path / "out"
    audit = json.loads((out / "survey_audit.json").read_text())
    jsonschema.Draft202012Validator(audit_schema()).validate(audit)
    sup = audit["suppression"]
    assert sup["guarantee"] == missing
    pros = sup["prosecutor_risk"]
    assert 0 <= pros["after"]["mean"] <= pros["after"]["max"] <= 1
    assert pros["after"]["n_above_1_over_k"] <= pros["before"]["n_above_1_over_k"]
    data = pd.read_csv(out / "survey_anonymised.csv")
    fk = sample_frequencies(data, QI, missing=missing)["fk"]
    assert (fk >= 3 - 1e-9).all()
    if missing == "category":
        # identical classes: nobody is above 1/k for an intruder who knows every QI
        assert pros["after"]["n_above_1_over_k"] == 0
    html = (out / "survey_report.html").read_text()
    assert 'id="table-guarantees"' in html and 'id="table-prosecutor"' in html
    assert f"{missing} (used)" in html
    rule = {"category": "one more category", "probabilistic": "with that value's share"}
    assert rule[missing] in html.replace("&#39;", "'")


def test_conservative_with_suppression_is_refused(write_job: Callable[..., Path]) -> None:
    path = _set_missing(write_job(steps='["risk", "suppression"]'), "conservative")
    with pytest.raises(JobFileError, match='cannot be "conservative" with a suppression'):
        run_job(path)


def test_conservative_stays_a_measure(write_job: Callable[..., Path], tmp_path: Path) -> None:
    run_job(_set_missing(write_job(steps='["risk"]'), "conservative"))
    audit = json.loads((tmp_path / "out" / "survey_audit.json").read_text())
    assert audit["parameters"]["missing"] == "conservative"


def test_suppression_job_with_a_number_alpha(
    write_job: Callable[..., Path], tmp_path: Path
) -> None:
    # the key reference says "a number alpha in [0, 1]": a job file takes it as a number
    path = _set_missing(write_job(steps='["risk", "suppression"]'), "X")
    path.write_text(path.read_text().replace('missing = "X"', "missing = 0.5"))
    run_job(path)
    out = tmp_path / "out"
    audit = json.loads((out / "survey_audit.json").read_text())
    jsonschema.Draft202012Validator(audit_schema()).validate(audit)
    assert audit["suppression"]["guarantee"] == 0.5
    data = pd.read_csv(out / "survey_anonymised.csv")
    assert (sample_frequencies(data, QI, missing=0.5)["fk"] >= 3 - 1e-9).all()
    html = (out / "survey_report.html").read_text()
    assert "as 0.5 of a match (alpha, as sdcMicro&#39;s freqCalc)" in html or (
        "as 0.5 of a match (alpha, as sdcMicro's freqCalc)" in html
    )
    assert "a match through a missing value counts 0.5" in html  # the chart's caption
    path.write_text(path.read_text().replace("missing = 0.5", "missing = 1.5"))
    with pytest.raises(JobFileError, match="a number alpha in"):
        run_job(path)
