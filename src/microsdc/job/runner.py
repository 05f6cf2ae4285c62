"""Run a job: read, recode, measure, swap and/or suppress, measure again, write.

Nothing is written until every step has succeeded: the anonymised file, the
audit record (JSON) and the report (HTML) are produced in memory and written
at the end, each through a temporary file renamed into place.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from microsdc.exceptions import SDCError
from microsdc.job.audit import (
    AUDIT_SCHEMA_VERSION,
    JobResult,
    audit_header,
    audit_outputs,
    finish_job,
    sha256_file,
    write_atomic,
)
from microsdc.job.columns import check_columns, column_roles
from microsdc.job.config import (
    OUTPUTS_APART,
    JobConfig,
    check_run_arguments,
    load_job,
    outputs_apart,
)
from microsdc.job.release import write_release
from microsdc.job.schema import default_of
from microsdc.job.steps import ProgressDisplay, no_display, step_timer
from microsdc.risk.summary import RISK_BANDS

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "AUDIT_SCHEMA_VERSION",
    "RISK_BANDS",
    "JobResult",
    "describe_variables",
    "measure_risk",
    "run_job",
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


def _recode(cfg: JobConfig, df: pd.DataFrame) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """Bin numeric columns (global recoding) with :func:`microsdc.recoding.bin_numeric`."""
    import pandas as pd

    from microsdc.encode import missing_mask
    from microsdc.recoding import bin_numeric

    out = df.copy()
    notes = []
    for spec in cfg.recode:
        key = f"recode.{spec.column}"
        col = df[spec.column]
        miss = missing_mask(col, list(cfg.missing_values))
        values = pd.to_numeric(col.where(~miss), errors="coerce")
        bad = values.isna().to_numpy() & ~miss
        if bad.any():
            example = col[bad].iloc[0]
            raise cfg.error(
                key,
                f"bins column {spec.column!r}, which holds {int(bad.sum()):,} non-numeric "
                f"value(s) such as {example!r}.",
            )
        kwargs: dict[str, Any]
        if spec.breaks is not None:
            kwargs = {"method": "edges", "bins": list(spec.breaks)}
            if spec.labels:
                kwargs["labels"] = list(spec.labels)
        else:
            kwargs = {"method": "width", "width": spec.width, "origin": spec.start or 0.0}
        try:
            # declared codes stay as they are: apart from the cells blanked later
            binned = bin_numeric(col, missing_values=list(cfg.missing_values), **kwargs)
        except SDCError as exc:
            from microsdc._core.messages import render

            where = f"{key}.breaks" if spec.breaks is not None else key
            names = {
                "bins": f"'{key}.breaks'",
                "labels": f"'{key}.labels'",
                "width": f"'{key}.width'",
                "origin": f"'{key}.start'",
            }
            message = render(exc, names, "Key")
            raise cfg.error(where, f"cannot be applied: {message}") from None
        out[spec.column] = binned
        notes.append(
            {
                "column": spec.column,
                "bins": len(binned.cat.categories) - len(pd.unique(col[miss & col.notna()])),
                "distinct_before": int(values.nunique()),
            }
        )
    return out, notes


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
    cfg: JobConfig, raw: pd.DataFrame, start: pd.DataFrame, final: pd.DataFrame
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

    Returns
    -------
    variables : list of dict
        ``name``, ``roles`` (key, weight, household id, hierarchy, sensitive,
        stratum, similarity, carried along, linked; "other" when none;
        "dropped" when it is not released), ``released`` and ``cells_changed`` (from the input
        to the release).
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
    roles = column_roles(cfg)
    touched = {*map(str, cfg.quasi_identifiers), *map(str, cfg.hierarchy)}
    touched |= {str(c) for c in cfg.swapping.get("carry_along", [])}
    touched |= {r.column for r in cfg.recode}
    touched |= {str(c) for cols in (cfg.suppression.get("linked", {}) or {}).values() for c in cols}
    variables = []
    for col in raw.columns:
        name = str(col)
        released = col in final.columns
        entry_roles = list(roles.get(name, [])) or ["other"]
        if not released:
            entry_roles.append("dropped")
        changed = _changed_cells(raw[col], final[col]) if released and name in touched else 0
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
    return risk_summary(
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


def _suppress(
    cfg: JobConfig, df: pd.DataFrame, progress: Callable[[int, int], None] | None = None
) -> tuple[pd.DataFrame, dict[str, Any]]:
    try:
        from microsdc.suppression import local_suppression
    except ImportError as exc:  # the suppression module is not installed in this build
        raise cfg.error(
            "steps", f"asks for suppression, which this installation lacks ({exc})."
        ) from None
    from microsdc.utility import suppressed_cells

    s = cfg.suppression
    kwargs: dict[str, Any] = {"missing": cfg.missing, "missing_values": _missing_values(cfg)}
    for key in ("importance", "combs", "strata", "method", "linked"):
        if key in s:
            kwargs[key] = s[key]
    res = local_suppression(df, list(cfg.quasi_identifiers), cfg.k, progress=progress, **kwargs)
    _warn_row_order(cfg, df, res.data)
    cells = suppressed_cells(
        df, res.data, list(cfg.quasi_identifiers), missing_values=_missing_values(cfg)
    )
    figures = cells.to_dict()
    figures["method"] = s.get("method", default_of("suppression.method"))
    true_fk = res.true_fk.to_numpy()
    figures["true_fk_below_k"] = int((true_fk < cfg.k).sum())
    figures["guarantee"] = cfg.missing
    figures["prosecutor_risk"] = res.to_dict()["prosecutor_risk"]
    if "linked" in s:
        figures["linked_cells"] = res.details.get("linked_cells", {})
    return res.data, figures


def _warn_row_order(cfg: JobConfig, before: pd.DataFrame, after: pd.DataFrame) -> None:
    """Warn when the release, in the input's row order, gives blanked cells back through
    the records around them (an input sorted by a key variable)."""
    from microsdc._core.warn import warn
    from microsdc.exceptions import DisclosureRiskWarning
    from microsdc.risk.linked import recoverable_by_order

    found = recoverable_by_order(
        before, after, list(cfg.quasi_identifiers), missing_values=_missing_values(cfg)
    )
    if len(found):
        listed = "; ".join(
            f"{r.key_variable!r} ({r.n_recoverable:,} of {r.n_blanked:,})"
            for r in found.itertuples()
        )
        warn(
            f"The row order of the release gives blanked cells back: {listed}. The input is "
            "sorted by these variables (or by columns that go with them), and the release "
            "keeps its order, so the records around a blanked cell show its value. Put the "
            "input's rows in random order before the job.",
            DisclosureRiskWarning,
        )


def _swap(
    cfg: JobConfig, df: pd.DataFrame, on_progress: Callable[[int, float], None] | None = None
) -> tuple[pd.DataFrame, dict[str, Any]]:
    from microsdc.swapping import record_swap_result, swap_utility
    from microsdc.utility import swap_utility_summary

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
    res = record_swap_result(
        df, cfg.household_id, hierarchy, similar or None, **kwargs, progress=on_progress
    )
    # the input's row labels back on the swapped rows, for messages that name rows as in
    # the input file; the data file is written without them
    swapped = res.data if res.input_index is None else res.data.set_axis(res.input_index)
    util = swap_utility(df, swapped, cfg.household_id, hierarchy, list(s["risk_variables"]))
    summary = swap_utility_summary(util)
    n_hh = res.n_households
    figures = {
        "n_households": n_hh,
        "n_persons": res.n_persons,
        "target_pairs": res.target_pairs,
        "n_swapped_households": res.n_swapped_households,
        "n_swapped_persons": res.n_swapped_persons,
        "share_households": res.n_swapped_households / n_hh if n_hh else 0.0,
        "share_persons": res.n_swapped_persons / res.n_persons if res.n_persons else 0.0,
        "n_no_donor": res.n_no_donor,
        "counts_per_level": res.to_dict()["counts_per_level"],
        "levels": summary["levels"],
        "areas": summary["areas"],
    }
    if renumber:
        import numpy as np

        from microsdc.swapping import renumber_households

        # new ids from a stream of their own: not the swap's
        stream = np.random.SeedSequence(s.get("seed")).spawn(2)[1]
        released = renumber_households(swapped, cfg.household_id, np.random.default_rng(stream))
        return released, figures
    return swapped, figures


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
    risk before, record swapping, local suppression, risk after. Swapping
    runs before suppression because it needs complete geography and household
    variables; suppression then treats whatever risk is left. Risk "before"
    is measured on the recoded data, the starting point of protection.

    Nothing is written unless every step succeeded.
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
    protect = [s for s in ("swapping", "suppression") if s in cfg.steps]
    n_steps = 4 + len(protect) + (1 if cfg.recode else 0) + (1 if write else 0)

    with display(n_steps) as step:
        timed = step_timer(step, cfg, timings, notes)

        raw = timed("read", f"reading {cfg.input_path.name}", lambda: _read_checked(cfg))
        read = raw
        if cfg.drop:  # never used, never released
            raw = raw.drop(columns=list(cfg.drop))
        data, recode_notes = raw, []
        if cfg.recode:
            data, recode_notes = timed("recode", "recoding", lambda: _recode(cfg, raw))
        before = timed("risk_before", "measuring risk (before)", lambda: measure_risk(data, cfg))
        current = data
        swap_fig = None
        sup_fig = None
        if "swapping" in cfg.steps:
            levels = step.levels(list(cfg.hierarchy))
            current, swap_fig = timed(
                "swapping", "swapping households", lambda: _swap(cfg, data, levels)
            )
        if "suppression" in cfg.steps:
            base = current
            records = step.records()
            current, sup_fig = timed(
                "suppression", "local suppression", lambda: _suppress(cfg, base, records)
            )
        final = current
        after = timed("risk_after", "measuring risk (after)", lambda: measure_risk(final, cfg))
        variables, key_variables = describe_variables(cfg, read, data, final)
        audit: dict[str, Any] = {
            **audit_header(
                cfg,
                now,
                {
                    "sha256": sha256_file(cfg.input_path),
                    "n_records": len(raw),
                    "n_columns": raw.shape[1],
                },
            ),
            "recode": recode_notes,
            "variables": variables,
            "key_variables": key_variables,
            "risk": {"before": before, "after": after},
            "suppression": sup_fig,
            "swapping": swap_fig,
            "warnings": notes,
            "timings": timings,
            "outputs": audit_outputs(cfg),
        }

        def write_data() -> None:
            from microsdc.io import release_style, write_table

            style = release_style(cfg.input_path, cfg.sep, cfg.encoding)
            write_atomic(cfg.output.data, lambda p: write_table(final, p, **style))

        html, written = finish_job(
            cfg, audit, timed, step, write, ("writing files", write_data), started
        )
    release = write_release(cfg, audit, write)
    if write:
        written["release"] = cfg.output.release
    return JobResult(
        config=cfg, data=final, audit=audit, report_html=html, written=written, release=release
    )
