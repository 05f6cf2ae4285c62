"""The documentation: strict MkDocs build, runnable guide examples, generated job-file
reference, changelog, citation file and the single source of the version."""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import microsdc
from microsdc.job.config import parse_job
from microsdc.job.reference import job_reference_markdown, schema_keys
from microsdc.job.schema import KEY_DOCS

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
PAGES_WITH_CODE = [p for p in PAGES if "```python" in p.read_text(encoding="utf-8")]


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    reference = (site / "job-reference" / "index.html").read_text(encoding="utf-8")
    assert "risk_threshold" in reference and "<!-- job-reference -->" not in reference
    api = (site / "api" / "swapping" / "index.html").read_text(encoding="utf-8")
    # docstrings assigned at import time are rendered, Sphinx roles are not left raw
    assert "swaprate" in api and "k_anonymity" in api
    for page in (site / "api").rglob("*.html"):
        assert ":func:`" not in page.read_text(encoding="utf-8"), page
    assert (site / "sdcmicro" / "index.html").is_file()


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=lambda p: str(p.relative_to(DOCS)))
def test_guide_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # examples that write files write here
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for block in blocks:  # one namespace per page: later blocks use earlier ones
        exec(compile(block, str(page), "exec"), namespace)


def test_pages_with_code_are_found() -> None:
    names = {p.relative_to(DOCS).as_posix() for p in PAGES_WITH_CODE}
    assert {"guide/risk.md", "guide/suppress.md", "guide/swap.md", "guide/job.md"} <= names


def test_every_job_key_is_documented() -> None:
    keys = schema_keys()
    undocumented = [k for k in keys if k not in KEY_DOCS]
    stale = [k for k in KEY_DOCS if k not in keys]
    assert not undocumented, f"add these keys to KEY_DOCS in job/schema.py: {undocumented}"
    assert not stale, f"KEY_DOCS documents keys the schema no longer has: {stale}"
    assert all(meaning.strip() for _, meaning in KEY_DOCS.values())


def test_job_reference_lists_every_key() -> None:
    text = job_reference_markdown()
    for dotted in schema_keys():
        name = dotted.rsplit(".", 1)[-1]
        assert f"`{name}`" in text or f"`[{dotted.replace('*', '<column>')}]`" in text, dotted
    assert "| `k` | an integer >= 1 | `3` |" in text
    assert "| `path` | a file name (string) | required |" in text


def test_documented_defaults_are_the_real_defaults() -> None:
    job = parse_job(
        'steps = ["risk"]\n[input]\npath = "d.csv"\n[variables]\nquasi_identifiers = ["a"]\n',
        "/tmp/j.toml",
        check_files=False,
    )

    def default(key: str) -> str | None:
        return KEY_DOCS[key][0]

    assert default("risk.k") == str(job.k) == "3"
    assert default("risk.missing") == json.dumps(job.missing)
    assert default("risk.l_diversity") == json.dumps(job.l_diversity)
    assert default("risk.l") == str(job.l)
    assert default("risk.risk_threshold") == format(job.risk_threshold, "g")
    assert default("input.sep") == "detected" and job.sep is None
    assert default("input.encoding") == "utf-8" and job.encoding is None
    assert job.output.directory == Path("/tmp")  # '"."': the job file's folder
    assert job.output.report.name == "d_report.html"
    swap = inspect.signature(microsdc.record_swap).parameters
    assert default("swapping.swaprate") == str(swap["swaprate"].default)
    sup = inspect.signature(microsdc.local_suppression).parameters
    assert default("suppression.method") == json.dumps(sup["method"].default)


def test_version_has_one_source() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "microsdc.__version__"
    assert re.fullmatch(r"\d+\.\d+\.\d+", microsdc.__version__)


def test_changelog_follows_keep_a_changelog() -> None:
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n")
    headings = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, re.M)
    assert headings[0][0] == "Unreleased"
    versions = [v for v, _ in headings[1:]]
    assert microsdc.__version__ in versions
    assert all(date for _, date in headings[1:])  # every release has its date
    sections = set(re.findall(r"^### (\w+)$", text, re.M))
    assert sections <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_citation_file() -> None:
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    assert {"message", "title", "authors"} <= set(cff)
    assert str(cff["version"]) == microsdc.__version__
    assert all("name" in a or "family-names" in a for a in cff["authors"])


def test_api_reference_covers_the_public_api() -> None:
    """Every name exported by ``microsdc`` has its entry in docs/api/."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in (DOCS / "api").glob("*.md"))
    whole_modules = set(re.findall(r"^::: (\S+)\s*$\n\s+options:", text, re.M))
    entries = set(re.findall(r"^::: (\S+)", text, re.M))
    missing = []
    for name, module in microsdc._EXPORTS.items():
        obj = getattr(microsdc, name)
        defined_in = getattr(obj, "__module__", module)
        if defined_in in whole_modules:
            continue
        if f"{defined_in}.{name}" not in entries:
            missing.append(f"::: {defined_in}.{name}")
    assert not missing, f"add to a page of docs/api/: {missing}"


def test_swap_guide_command_line_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import shlex

    from cli_runner import run_cli

    text = (DOCS / "guide" / "swap.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```bash\n(.*?)```", text, re.S) if "microsdc swap" in b)
    commands = block.replace("\\\n", " ").strip().splitlines()
    assert [c.split()[:2] for c in commands] == [["microsdc", "synth"], ["microsdc", "swap"]]
    monkeypatch.chdir(tmp_path)
    for command in commands:
        code, _, err = run_cli(shlex.split(command)[1:], capsys)
        assert code == 0, f"{command}: {err}"
    assert (tmp_path / "swapped.parquet").exists()
