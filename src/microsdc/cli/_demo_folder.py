"""The folder of ``microsdc demo``: the files the demo writes there, and which of the
files already there it may replace (its own, unchanged since it wrote them).

The demo keeps a record of what it wrote, each file with its SHA-256, in
:data:`RECORD` in the folder. A file of one of the demo's names that the record does
not list, or that changed since, belongs to the user: the demo stops before writing
anything rather than replace it.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["DEMO_FILES", "JOB_FILES", "RECORD", "files_not_ours", "record_written"]

#: Every file the demo writes into its folder, in the order it writes them.
DEMO_FILES = (
    "adult_sample.csv.gz",
    "adult.toml",
    "adult_anonymised.csv",
    "adult_audit.json",
    "adult_report.html",
    "adult_release.json",
    "census.csv",
    "census.toml",
    "census_swapped.csv",
    "census_audit.json",
    "census_report.html",
    "census_release.json",
)

#: The job files: one that differs from the demo's is kept under a new name, never lost.
JOB_FILES = ("adult.toml", "census.toml")

#: The demo's record of the files it wrote and their SHA-256.
RECORD = ".microsdc-demo.json"


def _recorded(folder: Path) -> dict[str, str]:
    try:
        data = json.loads((folder / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}


def files_not_ours(folder: Path) -> list[str]:
    """The files of the demo's names in ``folder`` that the demo did not write, or that
    changed since it wrote them (the job files aside: they are kept under a new name)."""
    from microsdc.job.audit import sha256_file  # the job package loads only when used

    recorded = _recorded(folder)
    out = []
    for name in DEMO_FILES:
        path = folder / name
        if name in JOB_FILES or not (path.exists() or path.is_symlink()):
            continue
        if path.is_symlink() or not path.is_file() or recorded.get(name) != sha256_file(path):
            out.append(name)
    return out


def record_written(folder: Path, names: list[str]) -> None:
    """Add ``names`` (files the demo just wrote in ``folder``) to the demo's record."""
    from microsdc.job.audit import sha256_file

    recorded = _recorded(folder)
    for name in names:
        recorded[name] = sha256_file(folder / name)
    text = json.dumps({"files": recorded}, indent=2, sort_keys=True) + "\n"
    (folder / RECORD).write_text(text, encoding="utf-8")
