"""The risk "before" of a job is the risk of the file as read; the audit and the report
then give the risk after each step (recoding, swapping, suppression)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

from microsdc.job import load_job, run_job
from microsdc.job.recode import recode
from microsdc.job.runner import measure_risk
from microsdc.report import audit_schema, plain_summary
from microsdc.report.console import print_audit

JOB = """steps = {steps}
[input]
path = "{path}"
[variables]
quasi_identifiers = ["age", "sex"]
[recode.age]
width = 200
[risk]
k = 2
{engine}
"""

STAGE_KEYS = ("n_at_risk", "n_unique", "expected_reidentifications", "n_high_risk")


def _ten(tmp_path: Path, steps: str = '["risk", "suppression"]') -> Path:
    """Ten records, every one unique as read (ten ages), all in one band after recoding."""
    frame = pd.DataFrame({"age": [11, 23, 35, 47, 59, 61, 73, 85, 97, 19], "sex": ["m"] * 10})
    path = tmp_path / "ten.csv"
    frame.to_csv(path, index=False)
    job = tmp_path / "ten.toml"
    job.write_text(JOB.format(steps=steps, path=path.as_posix(), engine=""))
    return job


@pytest.mark.parametrize("steps", ['["risk", "suppression"]', '["risk"]'])
def test_before_is_the_file_as_read(tmp_path: Path, steps: str) -> None:
    res = run_job(_ten(tmp_path, steps), write=False)
    risk = res.audit["risk"]
    jsonschema.Draft202012Validator(audit_schema()).validate(res.audit)
    assert risk["before"]["n_at_risk"] == risk["before"]["n_unique"] == 10  # formerly 0
    assert risk["after"]["n_at_risk"] == 0
    names = [s["step"] for s in risk["steps"]]
    assert names == (["read", "recode", "suppression"] if "supp" in steps else ["read", "recode"])
    assert [s["n_at_risk"] for s in risk["steps"]] == [10, 0, 0][: len(names)]
    text = " ".join(plain_summary(res.audit))
    assert "As read, before any step, 10 records (100.0 %) were in groups smaller than 2" in text
    assert "Recoding into bands left 0 records" in text
    assert 'id="table-risk-steps"' in res.report_html
    assert "after recoding" in res.report_html


def test_every_step_is_measured_in_order(write_job: Callable[..., Path], survey_csv: Path) -> None:
    job = write_job(steps='["risk", "swapping", "suppression"]')
    res = run_job(job, write=False)
    risk = res.audit["risk"]
    assert [s["step"] for s in risk["steps"]] == ["read", "recode", "swapping", "suppression"]
    cfg = load_job(job)
    raw = pd.read_csv(survey_csv)
    as_read = measure_risk(raw, cfg)
    recoded = measure_risk(recode(cfg, raw)[0], cfg)
    assert risk["before"] == as_read
    for stage, want in zip(risk["steps"], (as_read, recoded), strict=False):
        assert {k: stage[k] for k in STAGE_KEYS} == {k: want[k] for k in STAGE_KEYS}
    last = risk["steps"][-1]
    assert {k: last[k] for k in STAGE_KEYS} == {k: risk["after"][k] for k in STAGE_KEYS}
    assert as_read["n_at_risk"] > recoded["n_at_risk"]  # age in years, then in bands
    timings = [t["step"] for t in res.audit["timings"]]
    assert timings[:7] == [
        "read",
        "recode",
        "risk_before",
        "risk_recoded",
        "swapping",
        "risk_swapped",
        "suppression",
    ]


def test_console_prints_the_risk_after_each_step(tmp_path: Path) -> None:
    from rich.console import Console

    res = run_job(_ten(tmp_path), write=False)
    con = Console(record=True, width=120)
    print_audit(res.audit, con)
    text = con.export_text()
    assert "Risk after each step" in text
    rows = [r for r in text.splitlines() if r.startswith("records with fk < 2") and "│" in r]
    line = next(r for r in rows if r.count("│") == 3)  # the table of the three steps
    assert [c.strip() for c in line.split("│")[1:]] == ["10", "0", "0"]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engine_job_before_is_the_file_as_read(tmp_path: Path, engine: str) -> None:
    frame = pd.DataFrame({"age": [11, 23, 35, 47, 59, 61, 73, 85, 97, 19], "sex": ["m"] * 10})
    (tmp_path / "parts").mkdir()
    frame.to_parquet(tmp_path / "parts" / "a.parquet", index=False)
    job = tmp_path / "e.toml"
    job.write_text(
        JOB.format(steps='["risk", "suppression"]', path="parts", engine="").replace(
            "[variables]", f'engine = "{engine}"\n[variables]'
        )
    )
    res = run_job(job, write=False)
    risk = res.audit["risk"]
    assert risk["before"]["n_at_risk"] == 10
    assert [(s["step"], s["n_at_risk"]) for s in risk["steps"]] == [
        ("read", 10),
        ("recode", 0),
        ("suppression", 0),
    ]


@pytest.mark.parametrize("engine", ["", "polars"])
def test_as_read_does_not_advise_binning_what_the_job_bins(tmp_path: Path, engine: str) -> None:
    rng = np.random.default_rng(0)
    n = 3000
    frame = pd.DataFrame(
        {
            "region": rng.integers(0, 3, n),
            "income": rng.integers(0, 10**6, n),  # continuous: binned by the job
            "id_like": np.arange(n),  # continuous and not binned: the advice stays
        }
    )
    (tmp_path / "parts").mkdir()
    frame.to_parquet(tmp_path / "parts" / "a.parquet", index=False)
    job = tmp_path / "inc.toml"
    job.write_text(
        'steps = ["risk"]\n[input]\npath = "parts/a.parquet"\n'
        + (f'engine = "{engine}"\n' if engine else "")
        + '[variables]\nquasi_identifiers = ["region", "income", "id_like"]\n'
        "[recode.income]\nwidth = 100000\n[risk]\nk = 3\n"
    )
    res = run_job(job, write=False)
    assert res.audit["risk"]["before"]["n_at_risk"] == n
    messages = [w["message"] for w in res.audit["warnings"]]
    assert not any("'income'" in m and "Bin it first" in m for m in messages)
    if not engine:
        assert any("'id_like'" in m for m in messages)
