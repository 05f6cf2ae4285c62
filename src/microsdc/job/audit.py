"""The audit record of a job and its result: header (job file, input, parameters,
environment), outputs, and the files written at the end, published together.

The audit record and the report drawn from it are internal: they carry the input's
SHA-256 and figures of the input before protection, which an intruder could invert (a
CSV release keeps the input's bytes but for the blanked cells, so trying the observed
values of each blank against the hash gives them back). What goes out with the data is
the release record (:mod:`microsdc.job.release`)."""

from __future__ import annotations

import hashlib
import platform
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from microsdc.job.config import JobConfig

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "AUDIT_SCHEMA_VERSION",
    "JobResult",
    "audit_header",
    "audit_outputs",
    "finish_job",
    "frame_sha256",
    "job_file_sha256",
    "sha256_file",
]

#: Version of the audit record layout (``report/audit.schema.json``).
AUDIT_SCHEMA_VERSION = "1.0"

_PACKAGES = (
    "microsdc",
    "numpy",
    "pandas",
    "scipy",
    "numba",
    "pyarrow",
    "matplotlib",
    "jinja2",
    "rich",
    "click",
)


@dataclass(frozen=True)
class JobResult:
    """Outcome of :func:`run_job`.

    Attributes
    ----------
    config : JobConfig
        The job that ran.
    data : pandas.DataFrame
        The anonymised data (what was, or would be, written); for a job with
        ``input.engine``, the engine's lazy frame (polars ``LazyFrame`` or
        DuckDB relation).
    audit : dict
        The internal audit record (JSON-ready; validates against
        ``report/audit.schema.json``): it holds figures of the confidential
        input (its SHA-256, the risk before); keep it, never publish it.
    report_html : str
        The internal report, one self-contained HTML page (the audit drawn).
    written : dict of str to pathlib.Path
        ``data``, ``audit``, ``report`` and ``release`` paths, when written.
    release : dict
        The external release record, published with the data
        (:func:`microsdc.job.release.release_record`).
    """

    config: JobConfig
    data: pd.DataFrame | Any
    audit: dict[str, Any]
    report_html: str
    written: dict[str, Path] = field(default_factory=dict)
    release: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> str:
        """Before/after figures as plain text."""
        from microsdc.report import format_percent

        before = self.audit["risk"]["before"]
        after = self.audit["risk"]["after"]
        k = self.config.k
        lines = [
            f"{'':34}{'before':>14}{'after':>14}",
            f"{'records':34}{before['n_records']:>14,}{after['n_records']:>14,}",
            f"{f'records with fk < {k}':34}{before['n_at_risk']:>14,}{after['n_at_risk']:>14,}",
            f"{'unique records (fk = 1)':34}{before['n_unique']:>14,}{after['n_unique']:>14,}",
            f"{'expected re-identifications':34}"
            f"{before['expected_reidentifications']:>14,.1f}"
            f"{after['expected_reidentifications']:>14,.1f}",
            f"{'global risk':34}{format_percent(before['global_risk'], 3):>14}"
            f"{format_percent(after['global_risk'], 3):>14}",
            f"{'records with risk > ' + format(self.config.risk_threshold, 'g'):34}"
            f"{before['n_high_risk']:>14,}{after['n_high_risk']:>14,}",
        ]
        if before.get("household") and after.get("household"):
            lines.append(
                f"{'household risk (persons)':34}"
                f"{before['household']['expected_reidentifications']:>14,.1f}"
                f"{after['household']['expected_reidentifications']:>14,.1f}"
            )
        for name, lb in before.get("l_diversity", {}).items():
            la = after["l_diversity"][name]
            lines.append(
                f"{f'records failing l-div. ({name})'[:33]:34}"
                f"{lb['n_failing']:>14,}{la['n_failing']:>14,}"
            )
        sup = self.audit.get("suppression")
        if sup:
            lines.append(
                f"suppressed cells: {sup['total']:,} ({sup['share']:.2%} of QI cells) in "
                f"{sup['records_with_suppression']:,} records"
            )
        swp = self.audit.get("swapping")
        if swp:
            lines.append(
                f"swapped: {swp['n_swapped_households']:,} households "
                f"({swp['share_households']:.2%}), {swp['n_swapped_persons']:,} persons "
                f"({swp['share_persons']:.2%})"
            )
        return "\n".join(lines)


def frame_sha256(df: pd.DataFrame) -> str:
    """SHA-256 of a frame's rows (pandas' row hashes, index included)."""
    import pandas as pd

    hashed = pd.util.hash_pandas_object(df, index=True).to_numpy()
    return hashlib.sha256(hashed.tobytes()).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


#: A TOML assignment of the key seed (bare, quoted, or the last part of a dotted key) and
#: its value: an integer in any TOML notation, or a string.
_SEED_VALUE = re.compile(
    rb"""((?:\bseed|"seed"|'seed')\s*=\s*)"""
    rb"""(?:[+-]?(?:0x[0-9A-Fa-f_]+|0o[0-7_]+|0b[01_]+|[0-9][0-9_]*)|"[^"]*"|'[^']*')"""
)


#: The sections of a job file that may hold a seed.
SEEDED_SECTIONS = ("swapping", "pram", "noise")


def _seeded(cfg: JobConfig) -> list[str]:
    sections = {"swapping": cfg.swapping, **cfg.methods}
    return [name for name in SEEDED_SECTIONS if "seed" in sections.get(name, {})]


def job_file_sha256(cfg: JobConfig) -> str:
    """SHA-256 of the job file, the value of every seed (``swapping.seed``, ``pram.seed``,
    ``noise.seed``) blanked first.

    The audit record and the report are internal (kept by the statistician; the
    release record goes out with the data), but may be shown to others, and the seeds
    must never be in them (they would let anyone redo the random swaps, draws and
    noise). A hash of the file as it is would give a small seed back to whoever tries
    the values, the rest of the file being in the audit record. To check it, blank each
    seed's value (``seed = ""``) and hash the file. When a seed cannot be found on its
    line and blanked (checked by reading the blanked file again), the hash is of the
    job's settings instead (the file read as TOML, the seeds left out, as sorted JSON),
    never of the file as written.
    """
    import json
    import tomllib

    raw = cfg.source.read_bytes()
    seeded = _seeded(cfg)
    if not seeded:
        return hashlib.sha256(raw).hexdigest()
    lines = raw.split(b"\n")
    for name in seeded:
        line = cfg.line_of(f"{name}.seed")
        if line is not None and 0 < line <= len(lines):
            lines[line - 1] = _SEED_VALUE.sub(rb'\1""', lines[line - 1], count=1)
    blanked = b"\n".join(lines)
    try:
        doc = tomllib.loads(blanked.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        doc = {}
    if all(doc.get(name, {}).get("seed") == "" for name in seeded):
        return hashlib.sha256(blanked).hexdigest()
    settings = tomllib.loads(raw.decode("utf-8"))
    for name in seeded:
        settings.get(name, {}).pop("seed", None)
    text = json.dumps(settings, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            continue
    return out


def audit_header(cfg: JobConfig, now: datetime | None, inputs: dict[str, Any]) -> dict[str, Any]:
    """The first entries of an audit record: schema, time, job file, input, parameters and
    environment (``inputs``: sha256, n_records, n_columns of the input)."""
    return {
        "schema_version": AUDIT_SCHEMA_VERSION,
        "created": (now or datetime.now(UTC)).isoformat(timespec="seconds"),
        "title": cfg.title,
        "job_file": {"name": cfg.source.name, "sha256": job_file_sha256(cfg)}
        if cfg.source.is_file()
        else {"name": cfg.source.name, "sha256": None},
        "input": {"path": str(cfg.input_path), **inputs},
        "parameters": cfg.parameters(),
        "environment": {
            "packages": _versions(),
            "platform": platform.platform(terse=True),
        },
    }


def audit_outputs(cfg: JobConfig) -> dict[str, str]:
    """The ``outputs`` entry of an audit record."""
    return {
        "data": str(cfg.output.data),
        "audit": str(cfg.output.audit),
        "report": str(cfg.output.report),
        "release": str(cfg.output.release),
    }


def finish_job(
    cfg: JobConfig,
    audit: dict[str, Any],
    timed: Callable[[str, str, Callable[[], Any]], Any],
    step: Any,
    write: bool,
    write_data: tuple[str, Callable[[Path], None]],
    started: float,
) -> tuple[str, dict[str, Path], dict[str, Any]]:
    """Draw the report and, with ``write``, write the data (``write_data``: the step's
    label and ``writer(path)``, which writes the data to ``path``), the audit record,
    the report and the release record (:mod:`microsdc.job.release`, with the SHA-256 of
    the data as written), and publish the four together
    (:func:`microsdc.job.publish.publish_together`): when any of them fails, the
    files of an earlier run stay as they were, all four. The total time goes into
    the audit's timings either way. Returns the report's HTML, the files written and
    the release record."""
    import json

    from microsdc.job.publish import publish_together
    from microsdc.job.release import release_record

    def render() -> str:
        from microsdc.report import render_report

        return render_report(audit)

    html = timed("report", "drawing the report", render)
    timings = audit["timings"]
    if not write:
        timings.append({"step": "total", "seconds": round(time.perf_counter() - started, 4)})
        return html, {}, release_record(cfg, audit, None)
    label, writer = write_data
    step(label)
    out = cfg.output
    for path in (out.data, out.audit, out.report, out.release):  # may name subfolders
        path.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    written_data: list[Path] = []
    record: dict[str, Any] = {}

    def write_data_file(path: Path) -> None:
        writer(path)
        written_data.append(path)
        timings.append({"step": "write", "seconds": round(time.perf_counter() - t0, 4)})
        timings.append({"step": "total", "seconds": round(time.perf_counter() - started, 4)})

    def write_release_file(path: Path) -> None:  # after the data: the hash of its bytes
        record.update(release_record(cfg, audit, sha256_file(written_data[-1])))
        text = json.dumps(record, indent=2, default=_json_default) + "\n"
        path.write_text(text, encoding="utf-8")

    publish_together(
        [
            (out.data, write_data_file),  # first: its timings go into the audit record
            (
                out.audit,
                lambda p: p.write_text(
                    json.dumps(audit, indent=2, default=_json_default) + "\n", encoding="utf-8"
                ),
            ),
            (out.report, lambda p: p.write_text(html, encoding="utf-8")),
            (out.release, write_release_file),
        ]
    )
    written = {"data": out.data, "audit": out.audit, "report": out.report, "release": out.release}
    return html, written, record


def _json_default(value: Any) -> Any:
    import numpy as np

    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, Path | datetime):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
