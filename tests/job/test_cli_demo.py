"""``microsdc demo``: the Adult job (risk + suppression) and the census job (risk + swapping)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from microsdc.cli import cli
from microsdc.report import audit_schema


def test_demo_writes_both_reports_and_says_where(tmp_path: Path) -> None:
    try:
        from microsdc.suppression import local_suppression  # noqa: F401
    except ImportError:
        pytest.skip("microsdc.suppression.local_suppression is not available")
    out = tmp_path / "demo"
    res = CliRunner().invoke(
        cli,
        ["demo", "-o", str(out), "--households", "800", "--no-progress"],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.stderr
    # the first output of the demo: records at risk of the Adult sample for a few k
    assert "Records at risk (fk < k)" in res.stdout
    for name in ("adult", "census"):
        report = out / f"{name}_report.html"
        assert report.is_file()
        assert str(report) in res.stdout.replace("\n", "")
        audit = json.loads((out / f"{name}_audit.json").read_text())
        jsonschema.Draft202012Validator(audit_schema()).validate(audit)
        assert (out / f"{name}.toml").is_file()
    adult = json.loads((out / "adult_audit.json").read_text())
    assert adult["parameters"]["steps"] == ["risk", "suppression"]
    assert adult["risk"]["after"]["n_at_risk"] == 0
    census = json.loads((out / "census_audit.json").read_text())
    assert census["parameters"]["steps"] == ["risk", "swapping"]
    assert census["swapping"]["n_swapped_households"] > 0
    # the municipality moved with its nuts3 area: it does not give the original area back
    import pandas as pd

    released = pd.read_csv(out / "census_swapped.csv")
    original = pd.read_csv(out / "census.csv")
    assert (released["lau2"] // 10 == released["nuts3"]).all()
    assert (released["nuts3"].to_numpy() != original["nuts3"].to_numpy()).any()
    # the job files the demo wrote run again as they are
    again = CliRunner().invoke(
        cli, ["run", str(out / "census.toml"), "-o", str(tmp_path / "again"), "-q"]
    )
    assert again.exit_code == 0, again.stderr
    assert (tmp_path / "again" / "census_report.html").is_file()
