"""Checks that a released file gives nothing back: used by the demo and example tests."""

from __future__ import annotations

from pathlib import Path


def assert_no_read_back(
    job_file: Path, released: Path, allowed: frozenset[tuple[str, str]] = frozenset()
) -> None:
    """No non-key column of ``released`` gives back key values blanked by the job, but
    the (key variable, column) pairs ``allowed``."""
    from microsdc.io import read_table
    from microsdc.job import load_job
    from microsdc.job.pandas_input import read_input
    from microsdc.job.recode import recode
    from microsdc.risk.linked import recoverable_cells

    cfg = load_job(job_file)
    if "swapping" in cfg.steps:
        # the release is in another row order (households renumbered): no row of the
        # input is known to be a row of the release; the job's own check (on the swapped
        # frame, row by row) is in its audit's warnings
        return
    original = read_input(cfg).drop(columns=list(cfg.drop))
    if cfg.recode:
        original, _ = recode(cfg, original)
    after = read_table(released)
    assert list(after.columns) == list(original.columns)
    for col in cfg.drop:
        assert col not in after.columns
    qi = list(cfg.quasi_identifiers)
    found = recoverable_cells(original, after, qi, missing_values=list(cfg.missing_values))
    left = {(str(r.key_variable), str(r.column)) for r in found.itertuples()}
    assert left <= allowed, found.to_string()
