"""Run a job: read, recode, measure, swap and/or suppress, measure again, write.

Nothing is written until every step has succeeded: the anonymised file, the
audit record (JSON) and the report (HTML) are produced in memory, written at the
end under temporary names beside their targets, and moved into place together;
when a write fails, the files of an earlier run stay as they were, all three.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from microsdc.job.audit import (
    AUDIT_SCHEMA_VERSION,
    JobResult,
    audit_header,
    audit_outputs,
    finish_job,
    sha256_file,
)
from microsdc.job.columns import check_columns, column_roles
from microsdc.job.config import (
    OUTPUTS_APART,
    JobConfig,
    check_run_arguments,
    load_job,
    outputs_apart,
)
from microsdc.job.continuous import CONTINUOUS_STEPS, continuous_measures
from microsdc.job.methods import METHOD_STEPS, run_method
from microsdc.job.recode import recode as _recode
from microsdc.job.schema import default_of
from microsdc.job.stepfigures import suppression_figures, swap_figures
from microsdc.job.steps import ProgressDisplay, as_read, no_display, risk_stage, step_timer
from microsdc.risk.summary import RISK_BANDS

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = [
    "AUDIT_SCHEMA_VERSION",
    "RISK_BANDS",
    "JobResult",
    "describe_variables",
    "in_random_order",
    "measure_risk",
    "pram_risk",
    "run_job",
    "warn_row_order",
]


def _missing_values(cfg: JobConfig) -> list[Any] | None:
    return list(cfg.missing_values) or None


def _read(cfg: JobConfig) -> pd.DataFrame:
    from microsdc.exceptions import DataValidationError
    from microsdc.io import number_records, read_table

    try:
        df = number_records(  # rows named in messages as in the file
            read_table(cfg.input_path, sep=cfg.sep, encoding=cfg.encoding),
            cfg.input_path,
            cfg.sep,
            cfg.encoding,
        )
    except FileNotFoundError:
        raise cfg.error(
            "input.path", f"names a file that does not exist: {cfg.input_path}"
        ) from None
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise cfg.error("input.path", f"names a file that cannot be read: {first}") from None
    if len(df) == 0:
        raise DataValidationError(
            f"{cfg.input_path.name} has a header ({len(df.columns)} column(s)) but no records; "
            "nothing to anonymise."
        )
    return df


def _read_checked(cfg: JobConfig) -> pd.DataFrame:
    """Read the input, check that the job's columns exist, warn about empty key variables."""
    from microsdc.data.quality import (
        warn_all_missing,
        warn_suspect_key_texts,
        warn_user_missing_codes,
    )

    df = _read(cfg)
    check_columns(cfg, df)
    warn_all_missing(df, list(cfg.quasi_identifiers), _missing_values(cfg))
    for warn in (warn_suspect_key_texts, warn_user_missing_codes):
        warn(
            df,
            list(cfg.quasi_identifiers),
            _missing_values(cfg),
            "missing_values = [{1}] in [input]",
        )
    return df


def _changed_cells(before: pd.Series, after: pd.Series) -> int:
    """Cells whose value (or missingness) differs between two aligned columns."""
    import numpy as np

    b_na = before.isna().to_numpy()
    a_na = after.isna().to_numpy()
    both = ~b_na & ~a_na
    differ = b_na != a_na
    if both.any():
        b = before.to_numpy(dtype=object)[both]
        a = after.to_numpy(dtype=object)[both]
        differ[both] = np.array([str(x) != str(y) for x, y in zip(b, a, strict=True)], dtype=bool)
    return int(differ.sum())


def describe_variables(
    cfg: JobConfig,
    raw: pd.DataFrame,
    start: pd.DataFrame,
    final: pd.DataFrame,
    *,
    origin: np.ndarray | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every variable of the input with its role, and the key variables before and after.

    Parameters
    ----------
    cfg : JobConfig
    raw : pandas.DataFrame
        The input as read.
    start : pandas.DataFrame
        The data protection starts from (after recoding).
    final : pandas.DataFrame
        The released data.
    origin : numpy.ndarray of int, optional
        When the release holds the records in another order (swapping returns them in
        household order; renumbered households are sorted by their new ids): the
        position in ``raw`` and ``start`` of each row of ``final``. Cells are then
        compared record by record, never row by row.

    Returns
    -------
    variables : list of dict
        ``name``, ``roles`` (key, weight, household id, hierarchy, sensitive,
        stratum, similarity, carried along, linked; "other" when none;
        "recoded" when ``[recode]`` grouped it into bands, "dropped" when it is not
        released), ``released`` and ``cells_changed`` (from ``start``, the data
        protection starts from after recoding, to the release: the same count as
        ``key_variables``).
    key_variables : list of dict
        Per key variable: ``categories_input`` (distinct values in the input),
        ``categories_before`` (after recoding) and ``categories_after``,
        ``missing_before``/``missing_after`` (cells), ``cells_changed`` (from
        ``start`` to the release), ``share_suppressed`` (cells observed before
        and missing after, over the cells observed before) and ``hellinger``,
        the Hellinger distance between the distributions of the variable
        (missing as a category of its own) before and after:
        ``sqrt(sum((sqrt(p) - sqrt(q)) ** 2) / 2)``, 0 for no change, 1 for
        disjoint distributions.
    """
    import numpy as np
    import pandas as pd

    from microsdc.encode import missing_mask

    mv = list(cfg.missing_values)
    if origin is not None:  # each released record beside itself as read
        raw = raw.iloc[origin].reset_index(drop=True)
        start = start.iloc[origin].reset_index(drop=True)
        final = final.reset_index(drop=True)
    roles = column_roles(cfg)
    touched = {*map(str, cfg.quasi_identifiers), *map(str, cfg.hierarchy)}
    touched |= {str(c) for c in cfg.swapping.get("carry_along", [])}
    touched |= {r.column for r in cfg.recode}
    touched |= {str(c) for cols in (cfg.suppression.get("linked", {}) or {}).values() for c in cols}
    for section in cfg.methods.values():
        touched |= {str(c) for c in section.get("variables", [])}
        touched |= {str(c) for c in (section.get("totals") or {})}
    variables = []
    recoded = {r.column for r in cfg.recode}
    for col in raw.columns:
        name = str(col)
        released = col in final.columns
        entry_roles = list(roles.get(name, [])) or ["other"]
        if name in recoded:
            entry_roles.append("recoded")
        if not released:
            entry_roles.append("dropped")
        # what protection changed, after recoding: the count of the key variables' table
        base = start[col] if col in start.columns else raw[col]
        changed = _changed_cells(base, final[col]) if released and name in touched else 0
        variables.append(
            {"name": name, "roles": entry_roles, "released": released, "cells_changed": changed}
        )
    keys = []
    for col in cfg.quasi_identifiers:
        miss_raw = missing_mask(raw[col], mv)
        miss_b = missing_mask(start[col], mv)
        miss_a = missing_mask(final[col], mv)
        b = start[col].astype(object).where(~miss_b, None).astype(str)
        a = final[col].astype(object).where(~miss_a, None).astype(str)
        b[miss_b] = "\x00missing"
        a[miss_a] = "\x00missing"
        n = len(start)
        table = pd.concat(
            [b.value_counts().rename("b"), a.value_counts().rename("a")], axis=1
        ).fillna(0)
        if n:
            p, q = table["b"].to_numpy() / n, table["a"].to_numpy() / n
            hell = float(np.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2)))
        else:
            hell = 0.0
        observed = int((~miss_b).sum())
        suppressed = int((~miss_b & miss_a).sum())
        keys.append(
            {
                "name": str(col),
                "categories_input": int(raw[col][~miss_raw].nunique()),
                "categories_before": int(start[col][~miss_b].nunique()),
                "categories_after": int(final[col][~miss_a].nunique()),
                "missing_before": int(miss_b.sum()),
                "missing_after": int(miss_a.sum()),
                "cells_changed": _changed_cells(start[col], final[col]),
                "share_suppressed": suppressed / observed if observed else 0.0,
                "hellinger": hell,
            }
        )
    return variables, keys


def measure_risk(
    df: pd.DataFrame,
    cfg: JobConfig,
) -> dict[str, Any]:
    """Risk figures of a frame under a job's settings (aggregates only):
    :func:`microsdc.risk.summary.risk_summary` with the job's variables and risk keys.

    Parameters
    ----------
    df : pandas.DataFrame
        Data with the job's columns (after recoding).
    cfg : JobConfig

    Returns
    -------
    dict
        As :func:`microsdc.risk.summary.risk_summary`.
    """
    from microsdc.risk.summary import risk_summary

    missing: Any = cfg.missing  # a policy name or an alpha, checked when the job was read
    figures = risk_summary(
        df,
        list(cfg.quasi_identifiers),
        cfg.k,
        weights=cfg.weights,
        hid=cfg.household_id or None,
        sensitive=list(cfg.sensitive),
        kind=cfg.l_diversity,
        l=cfg.l,
        c=cfg.c,
        risk_threshold=cfg.risk_threshold,
        missing=missing,
        missing_values=_missing_values(cfg),
    )
    if cfg.suda:
        figures["suda"] = _special_uniques(df, cfg)
    return figures


def pram_risk(cfg: JobConfig, before: pd.DataFrame, after: pd.DataFrame) -> dict[str, Any]:
    """The risk of the key variables just before and just after PRAM (``k``, records in
    groups smaller than k, unique records, expected re-identifications): PRAM of the
    other variables leaves it as it was, which the report says."""
    from dataclasses import replace

    plain = replace(cfg, suda=False, sensitive=())
    keys = ("n_records", "k", "n_at_risk", "n_unique", "expected_reidentifications")
    return {
        when: {key: figures[key] for key in keys}
        for when, figures in (
            ("before", measure_risk(before, plain)),
            ("after", measure_risk(after, plain)),
        )
    }


def _special_uniques(df: pd.DataFrame, cfg: JobConfig) -> dict[str, Any]:
    """:meth:`~microsdc.risk.suda.SudaResult.summary` under the job's settings; missing
    values count as ``risk.missing`` says (alpha > 0 and "probabilistic" as wildcards:
    a record is unique under them exactly when it is unique under "wildcard")."""
    from microsdc.risk.suda import suda

    rule = cfg.missing if cfg.missing in ("wildcard", "category") else "wildcard"
    res = suda(
        df,
        list(cfg.quasi_identifiers),
        max_msu=cfg.max_msu,
        missing=rule,  # type: ignore[arg-type]
        missing_values=_missing_values(cfg),
    )
    return res.summary()


def intruder_of(cfg: JobConfig, start: pd.DataFrame, final: pd.DataFrame) -> dict[str, Any]:
    """The release's headline (:func:`microsdc.risk.prosecutor.intruder_figures`): records
    an intruder who knows their key values picks with probability above 1/k, from the
    data protection starts from to the release, within the suppression's strata."""
    from microsdc.risk.prosecutor import intruder_figures

    strata = cfg.suppression.get("strata") if "suppression" in cfg.steps else None
    return intruder_figures(start, final, list(cfg.quasi_identifiers), cfg.k, strata=strata)


def _suppress(
    cfg: JobConfig, df: pd.DataFrame, progress: Callable[[int, int], None] | None = None
) -> tuple[pd.DataFrame, dict[str, Any]]:
    try:
        from microsdc.suppression import local_suppression
    except ImportError as exc:  # the suppression module is not installed in this build
        raise cfg.error(
            "steps", f"asks for suppression, which this installation lacks ({exc})."
        ) from None
    from microsdc.suppression.params import DIS_FRACTION, DIS_SUDA_THRESHOLD

    s = cfg.suppression
    kwargs: dict[str, Any] = {"missing": cfg.missing, "missing_values": _missing_values(cfg)}
    keys = ("importance", "combs", "strata", "method", "linked", "accept_rare_values")
    for key in (*keys, DIS_SUDA_THRESHOLD.name, DIS_FRACTION.name):
        if key in s:
            kwargs[key] = s[key]
    # a household id that is not released cannot give a blanked cell back: left out
    kept = [c for c in cfg.dropped_at_output if c in df.columns]
    full, df = df, df.drop(columns=kept)
    res = local_suppression(df, list(cfg.quasi_identifiers), cfg.k, progress=progress, **kwargs)
    if not cfg.output.random_order:  # else the rows leave their order as read
        warn_row_order(cfg, df, res.data)
    figures = suppression_figures(cfg, df, res)
    released = res.data
    if kept:
        released = full.copy()
        released[list(df.columns)] = res.data
    return released, figures


def in_random_order(
    final: pd.DataFrame, origin: np.ndarray | None
) -> tuple[pd.DataFrame, np.ndarray]:
    """The released rows sorted by a hash of their released values (``output.random_order``),
    and each one's position as read."""
    from microsdc.data.rowkeys import random_order

    perm = random_order(final)
    reordered = final.iloc[perm].reset_index(drop=True)
    return reordered, perm if origin is None else origin[perm]


def warn_row_order(cfg: JobConfig, before: pd.DataFrame, after: pd.DataFrame) -> None:
    """Warn when the release, in the input's row order, gives blanked cells back through
    the records next to them (:func:`microsdc.risk.linked.warn_row_order`)."""
    from microsdc.risk.linked import warn_row_order as warn_order

    warn_order(before, after, list(cfg.quasi_identifiers), missing_values=_missing_values(cfg))


def _swap(
    cfg: JobConfig, df: pd.DataFrame, on_progress: Callable[[int, float], None] | None = None
) -> tuple[pd.DataFrame, dict[str, Any], np.ndarray | None]:
    """Swap households; with ``renumber_households``, give them new ids and sort the rows
    by them. Returns the data, the figures and, when the rows were reordered (the swap
    returns them in household order; renumbering sorts them by the new ids), the
    position in ``df`` of each returned row (else None)."""
    from microsdc.swapping import record_swap_result

    s = cfg.swapping
    similar = s.get("similar", [])
    kwargs: dict[str, Any] = {
        "swaprate": s.get("swaprate", default_of("swapping.swaprate")),
        "k_anonymity": s.get("k_anonymity", cfg.k),
        "risk_variables": list(s["risk_variables"]),
        "carry_along": list(s.get("carry_along", [])) or None,
        "checked_columns": list(s.get("checked_columns", [])) or None,
        "seed": s.get("seed"),
    }
    renumber = bool(s.get("renumber_households", default_of("swapping.renumber_households")))
    if renumber:  # the ids are replaced below: their order may follow the geography
        kwargs["checked_columns"] = [*(kwargs["checked_columns"] or []), cfg.household_id]
    if "risk_threshold" in s:
        kwargs["risk_threshold"] = s["risk_threshold"]
    hierarchy = list(cfg.hierarchy)
    if not df.index.is_unique:  # the labels name the records below
        df = df.reset_index(drop=True)
    res = record_swap_result(
        df, cfg.household_id, hierarchy, similar or None, **kwargs, progress=on_progress
    )
    # the input's row labels back on the swapped rows, for messages that name rows as in
    # the input file (the data file is written without them); the swap returns the rows in
    # household order, so each one's position as read goes with it
    swapped = res.data if res.input_index is None else res.data.set_axis(res.input_index)
    origin = None if swapped.index.equals(df.index) else df.index.get_indexer(swapped.index)
    figures = swap_figures(cfg, df, swapped, res)
    if renumber:
        import numpy as np

        from microsdc.swapping import renumber_households
        from microsdc.swapping.apply import renumbering_generator

        # the rows are reordered: each one's position as read goes along, under a name
        # no column has, so that before/after figures compare each record with itself
        mark = "\x00row" + "_" * max((len(str(c)) for c in swapped.columns), default=0)
        tagged = swapped.copy()
        tagged[mark] = np.arange(len(tagged), dtype=np.int64)
        released = renumber_households(
            tagged, cfg.household_id, renumbering_generator(s.get("seed"))
        )
        moved = released.pop(mark).to_numpy()
        return released, figures, moved if origin is None else origin[moved]
    return swapped, figures, origin


def _protect(
    cfg: JobConfig,
    raw: pd.DataFrame,
    data: pd.DataFrame,
    timed: Callable[[str, str, Callable[[], Any]], Any],
    step: Any,
) -> tuple[
    pd.DataFrame,
    np.ndarray | None,
    dict[str, Any],
    dict[str, Any] | None,
    dict[str, Any] | None,
    dict[str, Any],
]:
    """Measure the risk of the file as read (``raw``) and of the recoded ``data``, swap
    and/or suppress, measuring the risk after each step. Returns the released data, the
    position as read of each released row (None: the rows kept their order), the
    audit's ``risk`` entry, the swapping and suppression figures (None when the step
    did not run) and those of the release-method steps that ran (PRAM, microaggregation,
    noise, in that order, after suppression)."""
    before = timed(
        "risk_before",
        "measuring risk (as read)",
        lambda: as_read(cfg, lambda: measure_risk(raw, cfg)),
    )
    stages = [risk_stage("read", before)]
    if cfg.recode:
        recoded = timed(
            "risk_recoded", "measuring risk (after recoding)", lambda: measure_risk(data, cfg)
        )
        stages.append(risk_stage("recode", recoded))
    current = data
    swap_fig = None
    sup_fig = None
    origin = None
    if "swapping" in cfg.steps:
        levels = step.levels(list(cfg.hierarchy))
        current, swap_fig, origin = timed(
            "swapping", "swapping households", lambda: _swap(cfg, data, levels)
        )
    if "suppression" in cfg.steps:
        base = current
        if swap_fig is not None:  # the risk between the two steps
            swapped = timed(
                "risk_swapped", "measuring risk (after swapping)", lambda: measure_risk(base, cfg)
            )
            stages.append(risk_stage("swapping", swapped))
        records = step.records()
        current, sup_fig = timed(
            "suppression", "local suppression", lambda: _suppress(cfg, base, records)
        )
    method_figs: dict[str, Any] = {}
    reference = current  # the values the release-method steps start from
    for name in METHOD_STEPS:  # PRAM, microaggregation, noise: rows keep their order
        if name in cfg.steps:
            prior = current
            current, method_figs[name] = timed(
                name, _METHOD_DESC[name], _method_call(cfg, name, current, reference)
            )
            if name == "pram":
                method_figs[name]["risk"] = pram_risk(cfg, prior, current)
    if any(name in cfg.steps for name in CONTINUOUS_STEPS):
        released = current
        method_figs["continuous"] = timed(
            "continuous",
            "measuring the continuous variables",
            lambda: continuous_measures(cfg, reference, released),
        )
    final = current
    after = timed("risk_after", "measuring risk (after)", lambda: measure_risk(final, cfg))
    ran = [s for s in ("swapping", "suppression", *METHOD_STEPS) if s in cfg.steps]
    if ran:
        stages.append(risk_stage(ran[-1], after))
    risk = {"before": before, "after": after, "steps": stages}
    return final, origin, risk, swap_fig, sup_fig, method_figs


#: what the progress display says while a release-method step runs
_METHOD_DESC = {
    "pram": "PRAM of categorical variables",
    "microaggregation": "microaggregation",
    "noise": "adding noise",
}


def _method_call(
    cfg: JobConfig, step: str, data: pd.DataFrame, reference: pd.DataFrame
) -> Callable[[], Any]:
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
    if cfg.engine is not None:  # the rows stay in the engine
        from microsdc.job.engine import run_engine_job

        return run_engine_job(cfg, write=write, display=display, now=now, started=started)
    timings: list[dict[str, Any]] = []
    notes: list[dict[str, str]] = []
    protect = [s for s in ("swapping", "suppression", *METHOD_STEPS) if s in cfg.steps]
    # the risk is measured as read, after recoding, between swapping and suppression, after
    n_steps = 4 + len(protect) + (2 if cfg.recode else 0) + (1 if write else 0)
    n_steps += 1 if "swapping" in protect and "suppression" in protect else 0
    n_steps += 1 if any(s in protect for s in CONTINUOUS_STEPS) else 0

    with display(n_steps) as step:
        timed = step_timer(step, cfg, timings, notes)

        raw = timed("read", f"reading {cfg.input_path.name}", lambda: _read_checked(cfg))
        read = raw
        if cfg.drop:  # never released; never used but for the household ids
            raw = raw.drop(columns=[c for c in cfg.drop if c not in cfg.dropped_at_output])
        data, recode_notes = raw, []
        if cfg.recode:
            data, recode_notes = timed("recode", "recoding", lambda: _recode(cfg, raw))
        final, origin, risk, swap_fig, sup_fig, method_figs = _protect(cfg, raw, data, timed, step)
        final = final.drop(columns=list(cfg.dropped_at_output))
        if cfg.output.random_order:
            final, origin = in_random_order(final, origin)
        # the headline compares each released record with itself before protection
        start = data if origin is None else data.iloc[origin]
        intruder = intruder_of(cfg, start, final)
        variables, key_variables = describe_variables(cfg, read, data, final, origin=origin)
        audit: dict[str, Any] = {
            **audit_header(
                cfg,
                now,
                {
                    "sha256": sha256_file(cfg.input_path),
                    "n_records": len(raw),
                    "n_columns": raw.shape[1] - len(cfg.dropped_at_output),
                },
            ),
            "recode": recode_notes,
            "variables": variables,
            "key_variables": key_variables,
            "risk": risk,
            "intruder": intruder,
            "suppression": sup_fig,
            "swapping": swap_fig,
            **method_figs,
            "warnings": notes,
            "timings": timings,
            "outputs": audit_outputs(cfg),
        }

        def write_data(path: Path) -> None:
            from microsdc.io import release_style, write_table

            write_table(final, path, **release_style(cfg.input_path, cfg.sep, cfg.encoding))

        html, written, release = finish_job(
            cfg, audit, timed, step, write, ("writing files", write_data), started
        )
    return JobResult(
        config=cfg, data=final, audit=audit, report_html=html, written=written, release=release
    )
