"""Run a job: read, recode, measure, swap and/or suppress, measure again, write.

One orchestration serves every input: the steps, their progress and timings, the risk
stages and the audit record are written here once; how the rows are read, recoded,
measured, protected, described and written sits behind
:class:`microsdc.job.inputs.JobInput` (in memory with pandas,
:class:`~microsdc.job.pandas_input.PandasInput`; lazily in DuckDB or polars,
:class:`~microsdc.job.engine.EngineInput`).

Nothing is written until every step has succeeded: the anonymised file, the
audit record (JSON) and the report (HTML) are produced in memory, written at the
end under temporary names beside their targets, and moved into place together;
when a write fails, the files of an earlier run stay as they were, all three.
"""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from microsdc.job.audit import (
    AUDIT_SCHEMA_VERSION,
    JobResult,
    audit_header,
    audit_outputs,
    finish_job,
)
from microsdc.job.config import (
    OUTPUTS_APART,
    JobConfig,
    check_run_arguments,
    load_job,
    outputs_apart,
)
from microsdc.job.continuous import CONTINUOUS_STEPS, continuous_measures
from microsdc.job.inputs import JobInput, Timed
from microsdc.job.measures import describe_variables, intruder_of, measure_risk, pram_risk
from microsdc.job.methods import METHOD_STEPS, run_method
from microsdc.job.pandas_input import in_random_order, warn_row_order
from microsdc.job.steps import JobProgress, ProgressDisplay, no_display, risk_stage, step_timer
from microsdc.risk.summary import RISK_BANDS

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "AUDIT_SCHEMA_VERSION",
    "RISK_BANDS",
    "JobResult",
    "describe_variables",
    "in_random_order",
    "intruder_of",
    "measure_risk",
    "pram_risk",
    "run_job",
    "warn_row_order",
]

#: the steps that protect the data, in the order they run
_PROTECT_STEPS = ("swapping", "suppression", *METHOD_STEPS)


def job_input(cfg: JobConfig) -> JobInput:
    """The input of a job: in memory (pandas), or in the engine of ``input.engine``."""
    if cfg.engine is None:
        from microsdc.job.pandas_input import PandasInput

        return PandasInput(cfg)
    from microsdc.job.engine import EngineInput

    return EngineInput(cfg)


def _count_steps(cfg: JobConfig, source: JobInput, write: bool) -> int:
    """The steps the progress display counts: reading, the risk as read and after, the
    report, each protection step, the recoding (``source.recode_steps``), the risk
    between swapping and suppression, the continuous variables' measures, writing."""
    protect = [s for s in _PROTECT_STEPS if s in cfg.steps]
    n_steps = 4 + len(protect) + (source.recode_steps if cfg.recode else 0) + (1 if write else 0)
    n_steps += 1 if "swapping" in protect and "suppression" in protect else 0
    n_steps += 1 if any(s in protect for s in CONTINUOUS_STEPS) else 0
    return n_steps


def _protect(
    cfg: JobConfig, source: JobInput, raw: Any, data: Any, timed: Timed, step: JobProgress
) -> tuple[Any, np.ndarray | None, dict[str, Any], Any, Any, dict[str, Any]]:
    """Measure the risk of the file as read (``raw``) and of the recoded ``data``, swap
    and/or suppress, run the release-method steps, and measure the risk after. Returns
    the released data, the position as read of each released row (None: the rows kept
    their order), the audit's ``risk`` entry, the swapping and suppression figures (None
    when the step did not run) and those of the release-method steps that ran (PRAM,
    microaggregation, noise, in that order, after suppression)."""
    before, recoded = source.first_risks(raw, data, timed)
    stages = [risk_stage("read", before)]
    if recoded is not None:
        stages.append(risk_stage("recode", recoded))
    current, origin, swap_fig, sup_fig = data, None, None, None
    if "swapping" in cfg.steps:
        levels = step.levels(list(cfg.hierarchy))
        current, swap_fig, origin = timed(
            "swapping", source.label("swapping"), lambda: source.swap(data, levels)
        )
    if "suppression" in cfg.steps:
        base = current
        if swap_fig is not None:  # the risk between the two steps
            swapped = timed(
                "risk_swapped", source.label("risk_swapped"), lambda: source.measure(base)
            )
            stages.append(risk_stage("swapping", swapped))
        records = step.records()
        current, sup_fig = timed(
            "suppression", source.label("suppression"), lambda: source.suppress(base, records)
        )
    current, method_figs = _release_methods(cfg, source, current, timed)
    final = current
    after = timed("risk_after", source.label("risk_after"), lambda: source.measure(final))
    ran = [s for s in _PROTECT_STEPS if s in cfg.steps]
    if ran:
        stages.append(risk_stage(ran[-1], after))
    risk = {"before": before, "after": after, "steps": stages}
    return final, origin, risk, swap_fig, sup_fig, method_figs


def _release_methods(
    cfg: JobConfig, source: JobInput, current: Any, timed: Timed
) -> tuple[Any, dict[str, Any]]:
    """The release-method steps the job has (PRAM, microaggregation, noise; the rows keep
    their order), and the measures of the continuous variables after them: the data
    released and the figures of each."""
    method_figs: dict[str, Any] = {}
    reference = current  # the values the release-method steps start from
    for name in METHOD_STEPS:
        if name in cfg.steps:
            prior = current
            current, method_figs[name] = timed(
                name, source.label(name), _method_call(cfg, name, current, reference)
            )
            if name == "pram":
                risk = source.pram_risk(prior, current)
                if risk is not None:
                    method_figs[name]["risk"] = risk
    if any(name in cfg.steps for name in CONTINUOUS_STEPS):
        released = current
        method_figs["continuous"] = timed(
            "continuous",
            source.label("continuous"),
            lambda: continuous_measures(cfg, reference, released),
        )
    return current, method_figs


def _method_call(cfg: JobConfig, step: str, data: Any, reference: Any) -> Any:
    """``run_method(cfg, step, data, reference)`` as a call without arguments, for the
    step timer."""
    return lambda: run_method(cfg, step, data, reference)


def _in_directory(cfg: JobConfig, output_dir: str | Path) -> JobConfig:
    """``cfg`` with its outputs in ``output_dir`` (file names unchanged)."""
    from dataclasses import replace

    directory = Path(output_dir).resolve()
    output = replace(
        cfg.output,
        directory=directory,
        data=directory / cfg.output.data.name,
        audit=directory / cfg.output.audit.name,
        report=directory / cfg.output.report.name,
        release=directory / cfg.output.release.name,
    )
    if not outputs_apart(output, cfg.input_path):
        raise cfg.error("output", f"in {directory}: {OUTPUTS_APART}")
    return replace(cfg, output=output)


def _display(progress: bool, console: Any) -> ProgressDisplay:
    """Rich progress bars on ``console`` with ``progress``, else nothing shown."""
    if not progress:
        return no_display
    from microsdc.report.console import job_progress

    return job_progress(console)


def _run(
    cfg: JobConfig,
    source: JobInput,
    *,
    write: bool,
    display: ProgressDisplay,
    now: datetime | None,
    started: float,
) -> JobResult:
    """Run the job's steps on ``source`` under ``display``, build the audit record and
    finish (the report, and the files with ``write``)."""
    timings: list[dict[str, Any]] = []
    notes: list[dict[str, str]] = []
    with display(_count_steps(cfg, source, write)) as step:
        timed = step_timer(step, cfg, timings, notes)

        raw = timed("read", source.label("read"), source.read)
        data, recode_notes = raw, []
        if cfg.recode:
            data, recode_notes = timed("recode", source.label("recode"), lambda: source.recode(raw))
        final, origin, risk, swap_fig, sup_fig, method_figs = _protect(
            cfg, source, raw, data, timed, step
        )
        final, origin = source.release(final, origin)
        # the headline compares each released record with itself before protection
        intruder = source.intruder(data, final, origin, sup_fig)
        variables, key_variables = source.describe(data, final, origin, method_figs)
        audit: dict[str, Any] = {
            **audit_header(cfg, now, source.input_figures(raw, final)),
            "recode": recode_notes,
            "variables": variables,
            "key_variables": key_variables,
            "risk": risk,
            **intruder,
            "suppression": sup_fig,
            "swapping": swap_fig,
            **method_figs,
            **source.not_computed(),
            "warnings": notes,
            "timings": timings,
            "outputs": audit_outputs(cfg),
        }
        released = final
        html, written, release = finish_job(
            cfg,
            audit,
            timed,
            step,
            write,
            (source.label("write"), lambda path: source.write(released, path)),
            started,
        )
    return JobResult(
        config=cfg, data=final, audit=audit, report_html=html, written=written, release=release
    )


def run_job(
    job: JobConfig | str | Path,
    *,
    output_dir: str | Path | None = None,
    write: bool = True,
    progress: bool = False,
    console: Any = None,
    now: datetime | None = None,
    progress_display: ProgressDisplay | None = None,
) -> JobResult:
    """Run an anonymisation job.

    Parameters
    ----------
    job : JobConfig, str or pathlib.Path
        A checked job, or the path of a job file.
    output_dir : str or pathlib.Path, optional
        Write the outputs here instead of the job's ``output.directory``
        (file names unchanged).
    write : bool, default True
        Whether to write the anonymised file, the audit record and the report.
    progress : bool, default False
        Show rich progress bars (:func:`microsdc.report.console.job_progress`),
        when ``progress_display`` is not given.
    console : rich.console.Console, optional
        Where those progress bars go (default: standard error).
    now : datetime.datetime, optional
        Time stamp of the audit record (default: the current UTC time).
    progress_display : callable, optional
        ``progress_display(n_steps)`` gives a context manager, open while the job
        runs, that yields the job's progress callbacks
        (:class:`microsdc.job.steps.JobProgress`): it is called with the
        description of each step as the step starts, and gives the callbacks of
        local suppression (records at risk handled) and record swapping (areas per
        level). The command line passes its display here. When given, ``progress``
        and ``console`` are not used.

    Returns
    -------
    JobResult

    Raises
    ------
    JobFileError
        If the job file is invalid, the input file is missing or unreadable,
        or names columns it does not hold, or a recoding does not fit the data.
    SDCError
        From a step (invalid data for suppression or swapping).

    Notes
    -----
    Steps run in this order: recoding of numeric variables (``[recode]``),
    record swapping, local suppression. Swapping runs before suppression
    because it needs complete geography and household variables; suppression
    then treats whatever risk is left. The risk "before" is the risk of the
    file as read (recoding is a step of protection too, as in sdcMicro's
    report); the audit's ``risk.steps`` gives it again, then the risk after
    each step that changed the data, the last being "after".

    Nothing is written unless every step succeeded. The three files are written
    under temporary names first and moved into place together: when writing any
    of them fails (a full disk), none is replaced, and the files of an earlier run
    in the same place stay as they were, all three.
    """
    started = time.perf_counter()
    check_run_arguments(job, output_dir, write, progress, now, progress_display)
    cfg = job if isinstance(job, JobConfig) else load_job(job)
    if output_dir is not None:
        cfg = _in_directory(cfg, output_dir)
    display = progress_display or _display(progress, console)
    source = job_input(cfg)
    source.check()
    return _run(cfg, source, write=write, display=display, now=now, started=started)
