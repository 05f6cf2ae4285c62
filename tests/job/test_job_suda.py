"""The job key risk.suda: special uniques in the audit record and the report."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pandas as pd
import pytest

from microsdc import suda
from microsdc.job import JobFileError, run_job
from microsdc.report import audit_schema, plain_summary, render_report

# the hand-worked table of tests/risk/test_suda.py (r0 = r1; r4 has six size-2 MSUs)
HAND = pd.DataFrame(
    {
        "A": [1, 1, 1, 2, 2, 1],
        "B": [1, 1, 1, 1, 2, 2],
        "C": [1, 1, 2, 2, 1, 2],
        "D": [1, 1, 2, 1, 2, 1],
    }
)


def _job(tmp: Path, risk: str, steps: str = '["risk"]') -> Path:
    HAND.to_csv(tmp / "hand.csv", index=False)
    path = tmp / "job.toml"
    path.write_text(
        f'steps = {steps}\n[input]\npath = "hand.csv"\n'
        '[variables]\nquasi_identifiers = ["A", "B", "C", "D"]\n'
        f'[risk]\nk = 2\n{risk}\n[output]\ndirectory = "out"\n',
        encoding="utf-8",
    )
    return path


def test_suda_figures_in_audit_and_report(tmp_path: Path) -> None:
    res = run_job(_job(tmp_path, "suda = true"), write=False)
    jsonschema.Draft202012Validator(audit_schema()).validate(res.audit)
    before = res.audit["risk"]["before"]["suda"]
    # under the job's risk.missing, "category" by default
    assert before == suda(HAND, ["A", "B", "C", "D"], missing="category").summary()
    assert before["records_with_msu"] == 4 and before["max_msu"] == 4
    assert before["variables"][-1]["variable"] == "C"
    html = render_report(res.audit)
    assert "Special uniques (SUDA2)" in html and 'id="table-suda-variables"' in html
    assert "records with a minimal sample unique" in html
    text = " ".join(plain_summary(res.audit))
    assert "Special uniques (records unique on at most 4 of their key values)" in text


def test_suda_max_msu_and_absent_by_default(tmp_path: Path) -> None:
    res = run_job(_job(tmp_path, "suda = true\nmax_msu = 2"), write=False)
    assert res.audit["risk"]["before"]["suda"]["max_msu"] == 2
    plain = run_job(_job(tmp_path, ""), write=False)
    assert "suda" not in plain.audit["risk"]["before"]
    assert "Special uniques" not in render_report(plain.audit)


@pytest.mark.parametrize(
    ("risk", "key", "words"),
    [
        ("max_msu = 3", "risk.max_msu", "goes with risk.suda = true"),
        ('suda = true\nmissing = "conservative"', "risk.suda", "cannot count missing values"),
        ("suda = 1", "risk.suda", "true or false"),
    ],
)
def test_suda_keys_refused(tmp_path: Path, risk: str, key: str, words: str) -> None:
    with pytest.raises(JobFileError, match=words) as info:
        run_job(_job(tmp_path, risk), write=False)
    assert info.value.key == key


def _suppression_job(tmp: Path, threshold: str) -> Path:
    HAND.to_csv(tmp / "hand.csv", index=False)
    path = tmp / "job.toml"
    path.write_text(
        'steps = ["risk", "suppression"]\n[input]\npath = "hand.csv"\n'
        '[variables]\nquasi_identifiers = ["A", "B", "C", "D"]\n'
        '[risk]\nk = 1\nmissing = "wildcard"\nsuda = true\n'
        f'[suppression]\ndis_suda_threshold = {threshold}\n[output]\ndirectory = "out"\n',
        encoding="utf-8",
    )
    return path


def test_suppression_to_a_dis_suda_threshold(tmp_path: Path) -> None:
    import warnings

    from microsdc import local_suppression

    res = run_job(_suppression_job(tmp_path, "0.01"), write=False)
    jsonschema.Draft202012Validator(audit_schema()).validate(res.audit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib = local_suppression(
            HAND, ["A", "B", "C", "D"], 1, missing="wildcard", dis_suda_threshold=0.01
        )
    figures = res.audit["suppression"]["dis_suda"]
    assert figures == lib.details["dis_suda"]
    assert figures["n_above_before"] == 4 and figures["n_above_after"] == 0
    assert res.audit["parameters"]["suppression"] == {"dis_suda_threshold": 0.01}
    # the risk measured after the job agrees: no record above 0.01 is released
    assert res.audit["risk"]["after"]["suda"]["max_dis_suda"] <= 0.01
    assert res.audit["suppression"]["total"] == lib.n_cells > 0


def test_suppression_sampling_fraction_reaches_the_library(tmp_path: Path) -> None:
    path = _suppression_job(tmp_path, "0.1\ndis_fraction = 0.1")
    res = run_job(path, write=False)
    jsonschema.Draft202012Validator(audit_schema()).validate(res.audit)
    figures = res.audit["suppression"]["dis_suda"]
    assert figures["dis_fraction"] == 0.1 and figures["n_above_before"] == 4
    with pytest.raises(JobFileError, match=r"must be a number in \(0, 1\)") as info:
        run_job(_suppression_job(tmp_path, "0.1\ndis_fraction = 1"), write=False)
    assert info.value.key == "suppression.dis_fraction"


def test_suppression_sampling_fraction_without_a_threshold_is_refused(tmp_path: Path) -> None:
    # it used to be taken and change nothing
    path = _suppression_job(tmp_path, "0.1")
    text = path.read_text(encoding="utf-8").replace(
        "dis_suda_threshold = 0.1", "dis_fraction = 0.1"
    )
    path.write_text(text, encoding="utf-8")
    with pytest.raises(JobFileError) as info:
        run_job(path, write=False)
    assert info.value.key == "suppression.dis_fraction"
    message = str(info.value)
    assert "line 11:" in message
    assert "'suppression.dis_fraction' goes with 'suppression.dis_suda_threshold'" in message
    assert "Add 'suppression.dis_suda_threshold' or remove 'suppression.dis_fraction'." in message


@pytest.mark.parametrize("bad", ["1.5", "1", "-0.1", "true", '"0.1"'])
def test_suppression_threshold_refused_with_the_range(tmp_path: Path, bad: str) -> None:
    with pytest.raises(JobFileError, match=r"must be a number in \[0, 1\)") as info:
        run_job(_suppression_job(tmp_path, bad), write=False)
    assert info.value.key == "suppression.dis_suda_threshold"
