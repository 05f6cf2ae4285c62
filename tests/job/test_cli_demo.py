"""``microsdc demo``: the Adult job (risk + suppression) and the census job (risk + swapping)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from microsdc.cli import cli
from microsdc.report import audit_schema
from oracles.release import assert_no_read_back


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """``microsdc demo`` run once: its folder and the click result."""
    try:
        from microsdc.suppression import local_suppression  # noqa: F401
    except ImportError:
        pytest.skip("microsdc.suppression.local_suppression is not available")
    out = tmp_path_factory.mktemp("demo") / "demo"
    res = CliRunner().invoke(
        cli,
        ["demo", "-o", str(out), "--households", "800", "--no-progress"],
        catch_exceptions=False,
    )
    return out, res


def test_demo_writes_both_reports_and_says_where(
    demo_run: tuple[Path, Any], tmp_path: Path
) -> None:
    out, res = demo_run
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
    # a risk figure that goes up after swapping is explained, after the census result
    said = " ".join(res.stdout.split())
    assert said.index("Risk measured on the swapped file can be higher than before") > said.index(
        "census"
    )
    assert "not by raising fk." in said
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


def test_demo_job_names_its_data_relatively(demo_run: tuple[Path, Any], tmp_path: Path) -> None:
    """The adult job reads the data copied next to it: the folder can move, microsdc too."""
    import tomllib

    out, res = demo_run
    assert res.exit_code == 0, res.stderr
    job = tomllib.loads((out / "adult.toml").read_text())
    assert job["input"]["path"] == "adult_sample.csv.gz"
    assert (out / "adult_sample.csv.gz").is_file()
    moved = tmp_path / "moved"
    shutil.copytree(out, moved)
    again = CliRunner().invoke(
        cli, ["run", str(moved / "adult.toml"), "-o", str(tmp_path / "again"), "-q"]
    )
    assert again.exit_code == 0, again.stderr


def test_demo_releases_nothing_a_column_gives_back(demo_run: tuple[Path, Any]) -> None:
    """No non-key column of the released Adult file gives blanked key values back."""
    out, res = demo_run
    assert res.exit_code == 0, res.stderr
    audit = json.loads((out / "adult_audit.json").read_text())
    assert audit["suppression"]["linked_cells"]["relationship"] > 0
    assert not [n for n in audit["warnings"] if "read back" in n["message"]]
    assert_no_read_back(out / "adult.toml", out / "adult_anonymised.csv")


def test_demo_again_keeps_an_edited_job_file(demo_run: tuple[Path, Any], tmp_path: Path) -> None:
    src, first = demo_run
    assert first.exit_code == 0
    out = tmp_path / "demo"
    shutil.copytree(src, out)
    edited = (out / "adult.toml").read_text().replace("k = 3", "k = 5")
    assert edited != (out / "adult.toml").read_text()
    (out / "adult.toml").write_text(edited)
    unchanged = (out / "census.toml").read_text()
    res = CliRunner().invoke(
        cli,
        ["demo", "-o", str(out), "--households", "800", "--no-progress"],
        catch_exceptions=False,
    )
    assert res.exit_code == 0
    assert (out / "adult.edited-1.toml").read_text() == edited  # nothing lost
    assert (out / "adult.toml").read_text() == (src / "adult.toml").read_text()
    assert "adult.toml differed from the demo's: kept as adult.edited-1.toml" in res.stdout
    assert not list(out.glob("census.edited-*"))  # the same text is simply rewritten
    assert (out / "census.toml").read_text() == unchanged


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize("name", ["census.csv", "adult_report.html", "adult_sample.csv.gz"])
def test_demo_does_not_replace_a_file_it_did_not_write(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_bytes(b"the user's own file\n")
    (tmp_path / "notes.txt").write_text("kept")
    before = _files(tmp_path)
    res = CliRunner().invoke(cli, ["demo", "-o", str(tmp_path), "--households", "800"])
    assert res.exit_code == 2
    assert name in res.stderr and "--force" in res.stderr and "-o" in res.stderr
    assert _files(tmp_path) == before  # nothing written, nothing replaced


def test_demo_refuses_its_own_file_changed_since(
    demo_run: tuple[Path, Any], tmp_path: Path
) -> None:
    src, first = demo_run
    assert first.exit_code == 0
    out = tmp_path / "demo"
    shutil.copytree(src, out)
    (out / "census.csv").write_text("hid,own\n1,2\n")  # the user's census in its place
    before = _files(out)
    res = CliRunner().invoke(cli, ["demo", "-o", str(out), "--households", "800"])
    assert res.exit_code == 2
    assert "census.csv" in res.stderr and "adult" not in res.stderr
    assert _files(out) == before


def test_demo_force_replaces(tmp_path: Path) -> None:
    (tmp_path / "census.csv").write_text("hid,own\n1,2\n")
    res = CliRunner().invoke(
        cli, ["demo", "-o", str(tmp_path), "--households", "800", "--no-progress", "--force"]
    )
    assert res.exit_code == 0, res.stderr
    assert (tmp_path / "census.csv").read_text().startswith("nuts1,nuts2,nuts3,lau2,hid,")
    # and the demo's own files, unchanged, are replaced on the next run without --force
    again = CliRunner().invoke(
        cli, ["demo", "-o", str(tmp_path), "--households", "800", "--no-progress"]
    )
    assert again.exit_code == 0, again.stderr
