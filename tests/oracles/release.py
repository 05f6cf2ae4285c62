"""Checks that a released file gives nothing back: used by the demo and example tests."""

from __future__ import annotations

from pathlib import Path


def assert_no_read_back(job_file: Path, released: Path) -> None:
    """No non-key column of ``released`` determines a key value blanked by the job."""
    from microsdc.io import read_table
    from microsdc.job import load_job
    from microsdc.job.runner import _read, _recode
    from microsdc.risk.linked import recoverable_cells

    cfg = load_job(job_file)
    original = _read(cfg).drop(columns=list(cfg.drop))
    if cfg.recode:
        original, _ = _recode(cfg, original)
    after = read_table(released)
    assert list(after.columns) == list(original.columns)
    for col in cfg.drop:
        assert col not in after.columns
    qi = list(cfg.quasi_identifiers)
    found = recoverable_cells(original, after, qi, missing_values=list(cfg.missing_values))
    assert found.empty, found.to_string()
