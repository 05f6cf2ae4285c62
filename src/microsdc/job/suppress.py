"""Local suppression of a job, for every input: :func:`microsdc.local_suppression` with
the job's key variables, k, guarantee and ``[suppression]`` settings, on a pandas frame
or on an engine's lazy frame (an engine input refuses the settings that need the
records when the job is read, :mod:`microsdc.job.engine_checks`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from microsdc.job.config import JobConfig
from microsdc.job.stepfigures import counted_codes, observed_cells, suppression_figures

__all__ = ["run_suppression", "suppression_step"]


def run_suppression(
    cfg: JobConfig, data: Any, progress: Callable[[int, int], None] | None = None
) -> Any:
    """:func:`microsdc.local_suppression` of ``data`` under the job's settings: a
    ``SuppressionResult`` (a ``LazySuppressionResult`` for a lazy frame).

    Raises
    ------
    JobFileError
        If this installation lacks the suppression module.
    """
    try:
        from microsdc.suppression import local_suppression
    except ImportError as exc:  # the suppression module is not installed in this build
        raise cfg.error(
            "steps", f"asks for suppression, which this installation lacks ({exc})."
        ) from None
    from microsdc.suppression.params import DIS_FRACTION, DIS_SUDA_THRESHOLD

    s = cfg.suppression
    kwargs: dict[str, Any] = {
        "missing": cfg.missing,
        "missing_values": list(cfg.missing_values) or None,
    }
    keys = ("importance", "combs", "strata", "method", "linked", "accept_rare_values")
    for key in (*keys, DIS_SUDA_THRESHOLD.name, DIS_FRACTION.name):
        if key in s:
            kwargs[key] = s[key]
    return local_suppression(data, list(cfg.quasi_identifiers), cfg.k, progress=progress, **kwargs)


def suppression_step(
    cfg: JobConfig,
    data: Any,
    progress: Callable[[int, int], None] | None = None,
    table: Any = None,
    records: Any = None,
) -> tuple[Any, dict[str, Any]]:
    """:func:`run_suppression` of ``data`` and its audit figures
    (:func:`~microsdc.job.stepfigures.suppression_figures`), the cells observed before
    counted on the records of ``data``, or, for an engine, on its distinct key
    combinations ``table`` with the ``records`` behind each."""
    res = run_suppression(cfg, data, progress)
    before = data if table is None else table
    observed = observed_cells(before, cfg.quasi_identifiers, counted_codes(cfg), records)
    return res, suppression_figures(cfg, res, observed)
