"""The report's fk chart: bars that agree with the text under a fractional fk, and as
many bars for k = 10^14 as the data call for."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from microsdc.job import run_job

JOB = """steps = ["risk"]
[input]
path = "{path}"
[variables]
quasi_identifiers = ["a", "b"]
[risk]
k = {k}
missing = {missing}
"""


def _job(tmp_path: Path, frame: pd.DataFrame, k: int, missing: str) -> Path:
    frame.to_csv(tmp_path / "in.csv", index=False)
    job = tmp_path / "job.toml"
    job.write_text(JOB.format(path=(tmp_path / "in.csv").as_posix(), k=k, missing=missing))
    return job


def test_fractional_fk_chart_agrees_with_the_text(tmp_path: Path) -> None:
    # alpha = 0.5 (sdcMicro's freqCalc): (a, b) and (a, d) have fk = 1 + 0.5 (the blank
    # of (a, -)), (a, -) 1 + 1 + 1 (complete records count in full), the three (c, e) 3:
    # two records at risk for k = 3, and until now no bar below k held them
    frame = pd.DataFrame({"a": [*"aaaccc"], "b": ["b", None, "d", "e", "e", "e"]})
    res = run_job(_job(tmp_path, frame, 3, "0.5"), write=False)
    risk = res.audit["risk"]["before"]
    assert risk["n_at_risk"] == 2
    assert risk["fk_counts"] == {"labels": ["< 2", "2 to < 3", ">= 3"], "counts": [2, 0, 4]}
    assert "hold the 2 records at risk before and the 2 after" in res.report_html


def test_probabilistic_fk_chart_agrees_with_the_text(tmp_path: Path) -> None:
    frame = pd.DataFrame({"a": [*"aaaccc"], "b": ["b", None, "d", "e", "e", "e"]})
    res = run_job(_job(tmp_path, frame, 3, '"probabilistic"'), write=False)
    for when in ("before", "after"):
        risk = res.audit["risk"][when]
        counts = risk["fk_counts"]["counts"]
        assert risk["n_at_risk"] >= 2  # (a, b) and (a, d) at least
        assert sum(counts[:-1]) == risk["n_at_risk"]
        assert sum(counts) == 6
        assert risk["fk_counts"]["labels"] == ["< 2", "2 to < 3", ">= 3"]


def test_a_huge_k_draws_a_few_bars(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"a": rng.integers(0, 5, 100), "b": rng.integers(0, 5, 100)})
    res = run_job(_job(tmp_path, frame, 10**14, '"wildcard"'), write=False)
    fk = res.audit["risk"]["before"]["fk_counts"]
    assert len(fk["labels"]) <= 12
    assert fk["labels"][-1] == ">= 100,000,000,000,000"
    assert sum(fk["counts"][:-1]) == res.audit["risk"]["before"]["n_at_risk"] == 100
    assert 'id="fig-fk"' in res.report_html
