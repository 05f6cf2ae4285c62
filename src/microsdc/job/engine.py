"""The job on an engine input (``[input] engine = "duckdb" | "polars"``).

The engine reads the input lazily (a Parquet file, folder or glob, or a DuckDB
table), groups the records by the key variables (missing values kept as a
group), and writes the anonymised Parquet file itself; rows never enter
Python. Every figure of the audit record comes from the distinct key
combinations and their numbers of records (and weight sums): records at risk,
fk, the individual risk with weights, the suppressed cells per key variable, the
prosecutor risk of suppression. What needs the records themselves (the household
risk, l-diversity, whether other columns give blanked values back) is not
computed, and the report says so.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from microsdc.job.audit import JobResult, audit_header, audit_outputs, finish_job, sha256_file
from microsdc.job.columns import check_columns, column_roles
from microsdc.job.config import JobConfig
from microsdc.job.steps import ProgressDisplay, as_read, risk_stage, step_timer

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = [
    "Patterns",
    "columns_of",
    "describe_engine",
    "engine_not_computed",
    "measure_risk_engine",
    "open_input",
    "run_engine_job",
    "sha256_input",
    "suppress_engine",
]

_N = "__microsdc_records"


def open_input(cfg: JobConfig) -> tuple[Any, list[str]]:
    """The job's input as a lazy frame of its engine, without the dropped columns, and the
    input's columns; the columns the job names are checked against the schema (no row is
    read).

    Raises
    ------
    JobFileError
        If the engine or narwhals is not installed, the table does not exist,
        the Parquet files hold nothing or differ in their columns, the CSV file
        is empty, or a column named by the job is not in the input.
    DataValidationError
        If the input has no records (as the pandas job).
    """
    from microsdc.backends import install_hint
    from microsdc.exceptions import DataValidationError, InvalidParameterError
    from microsdc.io.engines import check_records, scan

    assert cfg.engine is not None
    try:
        import narwhals as nw
    except ImportError:
        raise cfg.error(
            "input.engine",
            f"cannot be used: the engine needs narwhals: {install_hint(cfg.engine)}.",
        ) from None
    try:
        frame = scan(str(cfg.input_path), cfg.engine, cfg.table, cfg.sep, cfg.encoding)
    except DataValidationError as exc:  # as the pandas job words it
        raise cfg.error("input.path", f"names a file that cannot be read: {exc}") from None
    except InvalidParameterError as exc:
        text = str(exc)
        if "no table" in text:
            key = "input.table"
        elif "pip install" in text:
            key = "input.engine"
        else:
            key = "input.path"
        raise cfg.error(key, f"cannot be used: {exc}.") from None
    check_records(frame, cfg.input_path.name, "nothing to anonymise.")  # first, as on pandas
    columns = columns_of(frame)
    _check_columns_named(cfg, columns)
    if cfg.drop:
        frame = nw.from_native(frame).drop(*cfg.drop).to_native()
    return frame, columns


def columns_of(frame: Any) -> list[str]:
    """Column names of a lazy frame (from its schema)."""
    import narwhals as nw

    return [str(c) for c in nw.from_native(frame).collect_schema().names()]


def _check_columns_named(cfg: JobConfig, columns: list[str]) -> None:
    import pandas as pd

    # the pandas route's checks and messages, on a frame with the input's columns only
    check_columns(cfg, pd.DataFrame(columns=pd.Index(columns, dtype=object)))


class Patterns:
    """The distinct key combinations of a lazy frame with their records (and weight sums),
    and their frequencies under the job's missing-value policy.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per combination the engine reported: the key variables,
        ``records``.
    count : ndarray of int64, records per distinct pattern (missing codes merged)
    fk : ndarray, fk per distinct pattern
    Fk : ndarray or None, the weighted population frequency per distinct pattern
    """

    def __init__(self, frame: Any, cfg: JobConfig) -> None:
        import narwhals as nw

        from microsdc._core.policy import parse_policy
        from microsdc.backends.frequencies import to_pandas
        from microsdc.risk.lazy import lazy_patterns

        qi: list[Any] = list(cfg.quasi_identifiers)
        mv = list(cfg.missing_values) or None
        policy = parse_policy(cfg.missing, "run_job")
        table, freqs = lazy_patterns(nw.from_native(frame), qi, cfg.weights, policy, mv, "run_job")
        _enc, count, fk, big, inverse = freqs
        self.table: pd.DataFrame = to_pandas(table).rename(columns={_N: "records"})
        self.count: np.ndarray = count
        self.fk: np.ndarray = fk
        self.Fk: np.ndarray | None = big
        self.inverse: np.ndarray = inverse

    @property
    def n_records(self) -> int:
        """Number of records of the frame."""
        return int(self.count.sum())


def _checked_patterns(frame: Any, cfg: JobConfig) -> Patterns:
    """The input's patterns, with the pandas job's warning about key variables holding
    texts that often mean missing ("NA", "?")."""
    from microsdc.data.quality import warn_suspect_key_texts

    patterns = Patterns(frame, cfg)
    warn_suspect_key_texts(
        patterns.table,
        list(cfg.quasi_identifiers),
        list(cfg.missing_values),
        "missing_values = [{1}] in [input]",
        patterns.table["records"],
    )
    return patterns


def recode_engine(cfg: JobConfig, frame: Any, notes: list[dict[str, Any]]) -> Any:
    """``[recode]`` of bands of one width, in the engine
    (:func:`microsdc.backends.recoding.bin_width_lazy`); ``notes`` gets the audit's
    entries, as the pandas job writes them."""
    from microsdc.exceptions import DataValidationError
    from microsdc.recoding.lazy import bin_width_lazy

    for spec in cfg.recode:
        assert spec.width is not None  # breaks are refused when the job is read
        try:
            frame, info = bin_width_lazy(
                frame,
                spec.column,
                spec.width,
                origin=spec.start or 0.0,
                missing_values=list(cfg.missing_values),
            )
        except DataValidationError as exc:
            raise cfg.error(f"recode.{spec.column}", f"cannot be applied: {exc}") from None
        notes.append({"column": spec.column, **info})
    return frame


def measure_risk_engine(patterns: Patterns, cfg: JobConfig) -> dict[str, Any]:
    """:func:`microsdc.job.runner.measure_risk` from the distinct key combinations.

    Every figure that depends on a record only through its key combination
    (and the weight sum of the combination) is the same as on pandas; the
    household risk (``household``) and ``l_diversity`` need the records and
    are left empty (None and ``{}``).
    """
    import numpy as np

    from microsdc.encode import missing_mask
    from microsdc.risk.summary import pattern_risk_summary

    records = patterns.table["records"].to_numpy(dtype=np.int64)
    missing: Any = cfg.missing  # a policy name or an alpha, checked when the job was read
    mv = list(cfg.missing_values)
    n_missing = sum(
        int(records[np.asarray(missing_mask(patterns.table[c], mv), dtype=bool)].sum())
        for c in cfg.quasi_identifiers
    )
    return pattern_risk_summary(
        patterns.fk,
        patterns.Fk,
        patterns.count,
        cfg.k,
        risk_threshold=cfg.risk_threshold,
        missing_qi_cells=n_missing,
        missing=missing,
    )


def engine_not_computed(cfg: JobConfig) -> list[str]:
    """One sentence per part of the report left out because it needs the records."""
    why = (
        f"the rows of this input stay in the {cfg.engine} engine, which only reports the "
        "distinct key combinations and their numbers of records"
    )
    out = []
    if cfg.household_id:
        out.append(
            f"The household risk was not computed: it needs each household's members, and {why}."
        )
    if cfg.sensitive:
        out.append(
            "l-diversity was not computed: it needs the sensitive values of each record, and "
            f"{why}."
        )
    if "suppression" in cfg.steps:
        out.append(
            "Whether other columns give blanked values back was not checked: it needs the "
            f"records, and {why}."
        )
    return out


def _value_counts(table: pd.DataFrame, col: str, mv: list[Any]) -> tuple[pd.Series, Any]:
    """Records per value of ``col`` (missing as one category) and the missing mask."""
    import numpy as np

    from microsdc.encode import missing_mask

    miss = np.asarray(missing_mask(table[col], mv), dtype=bool)
    values = table[col].astype(object).where(~miss, None).astype(str)
    values[miss] = "\x00missing"
    return table["records"].groupby(values.to_numpy()).sum(), miss


def describe_engine(
    cfg: JobConfig,
    columns: list[str],
    released: list[str],
    before: Patterns,
    after: Patterns,
    cells: dict[str, int],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """:func:`microsdc.job.runner.describe_variables` from the key combinations before and
    after; ``cells`` is the cells blanked per key variable (the only change an engine
    job makes)."""
    import numpy as np
    import pandas as pd

    mv = list(cfg.missing_values)
    roles = column_roles(cfg)
    variables = []
    for name in columns:
        entry_roles = list(roles.get(name, [])) or ["other"]
        is_released = name in released
        if not is_released:
            entry_roles.append("dropped")
        variables.append(
            {
                "name": name,
                "roles": entry_roles,
                "released": is_released,
                "cells_changed": int(cells.get(name, 0)),
            }
        )
    keys = []
    n = before.n_records
    rec_b = before.table["records"].to_numpy(dtype=np.int64)
    rec_a = after.table["records"].to_numpy(dtype=np.int64)
    for col in map(str, cfg.quasi_identifiers):
        vb, miss_b = _value_counts(before.table, col, mv)
        va, miss_a = _value_counts(after.table, col, mv)
        both = pd.concat([vb.rename("b"), va.rename("a")], axis=1).fillna(0)
        if n:
            p, q = both["b"].to_numpy() / n, both["a"].to_numpy() / n
            hell = float(np.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2)))
        else:
            hell = 0.0
        observed = int(rec_b[~miss_b].sum())
        n_cat_b = int(before.table[col][~miss_b].nunique())
        keys.append(
            {
                "name": col,
                "categories_input": n_cat_b,
                "categories_before": n_cat_b,
                "categories_after": int(after.table[col][~miss_a].nunique()),
                "missing_before": int(rec_b[miss_b].sum()),
                "missing_after": int(rec_a[miss_a].sum()),
                "cells_changed": int(cells.get(col, 0)),
                "share_suppressed": cells.get(col, 0) / observed if observed else 0.0,
                "hellinger": hell,
            }
        )
    return variables, keys


def suppress_engine(
    cfg: JobConfig,
    frame: Any,
    before: Patterns,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[Any, dict[str, Any], dict[str, int]]:
    """Local suppression on the engine: the lazy released frame, the audit figures and the
    cells blanked per key variable."""
    import numpy as np

    from microsdc.encode import missing_mask
    from microsdc.suppression import local_suppression
    from microsdc.suppression.result import LazySuppressionResult

    s = cfg.suppression
    kwargs: dict[str, Any] = {
        "missing": cfg.missing,
        "missing_values": list(cfg.missing_values) or None,
    }
    for key in ("importance", "combs", "strata", "accept_rare_values"):
        if key in s:
            kwargs[key] = s[key]
    res = local_suppression(frame, list(cfg.quasi_identifiers), cfg.k, progress=progress, **kwargs)
    assert isinstance(res, LazySuppressionResult)
    per_variable = {str(c): int(v) for c, v in res.cells_per_qi.items()}
    records = before.table["records"].to_numpy(dtype=np.int64)
    mv = list(cfg.missing_values)
    observed = {
        str(c): int(records[~np.asarray(missing_mask(before.table[c], mv), dtype=bool)].sum())
        for c in cfg.quasi_identifiers
    }
    total = sum(per_variable.values())
    hit = res.patterns[res.patterns["cells"] > 0]
    by_count = hit.groupby("cells")["records"].sum()
    by_count[0] = res.n_rows - res.n_rows_suppressed
    by_count = by_count[by_count > 0].sort_index()
    figures: dict[str, Any] = {
        "total": total,
        "share": total / sum(observed.values()) if sum(observed.values()) else 0.0,
        "records_with_suppression": res.n_rows_suppressed,
        "per_variable": per_variable,
        "observed_before": observed,
        "records_by_count": {str(c): int(v) for c, v in by_count.items()},
        "method": "greedy",
        "true_fk_below_k": res.n_true_fk_below(cfg.k),
        "guarantee": cfg.missing,
        "prosecutor_risk": res.intruder(),
    }
    return res.data, figures, per_variable


def _intruder(cfg: JobConfig, start: Patterns, sup_fig: Any) -> dict[str, Any]:
    """``{"intruder": ...}`` of the audit (the headline, from the distinct patterns), or
    nothing when the route did not list every pattern (the combined-key route)."""
    import numpy as np

    from microsdc.encode import encode_qis
    from microsdc.risk.prosecutor import prosecutor_figures, prosecutor_from_codes

    if sup_fig is not None:
        pros = sup_fig.get("prosecutor_risk")
        return {} if pros is None else {"intruder": {"k": cfg.k, **pros}}
    table = start.table
    enc = encode_qis(table, list(cfg.quasi_identifiers), warn_cardinality=False)
    codes = np.ascontiguousarray(enc.codes, dtype=np.int64)
    records = table["records"].to_numpy(dtype=np.float64)
    risk = prosecutor_from_codes(codes, codes, enc.n_categories, records)
    same = prosecutor_figures(risk, cfg.k, records)
    return {"intruder": {"k": cfg.k, "before": same, "after": same}}


def sha256_input(cfg: JobConfig) -> str:
    """SHA-256 of an engine input: of the file, or, for a folder or glob, of the files'
    relative names and contents in name order."""
    from microsdc.backends.files import input_files, is_pattern

    path = cfg.input_path
    if path.is_file():
        return sha256_file(path)
    files = sorted(Path(f) for f in input_files(str(path)) if Path(f).is_file())
    root = path
    while is_pattern(str(root)) and root.parent != root:
        root = root.parent
    h = hashlib.sha256()
    for f in files:
        try:
            name = str(f.relative_to(root))
        except ValueError:
            name = str(f)
        h.update(name.encode("utf-8") + b"\0" + bytes.fromhex(sha256_file(f)))
    return h.hexdigest()


def _check_output(cfg: JobConfig) -> None:
    """The output data file is not among the input's files: checked when the job was
    read; again, for an output folder given since."""
    from microsdc.backends.files import check_output_location
    from microsdc.exceptions import InvalidParameterError

    try:
        check_output_location(
            str(cfg.output.data), str(cfg.input_path), f"the output data file {cfg.output.data}"
        )
    except InvalidParameterError as exc:
        raise cfg.error("output", f"cannot be used: {exc}.") from None


def _risk_before(
    cfg: JobConfig, read: Any, frame: Any, timed: Callable[[str, str, Callable[[], Any]], Any]
) -> tuple[Any, dict[str, Any], list[dict[str, Any]]]:
    """The key patterns protection starts from (after recoding), the risk of the file as
    read ("before") and the audit's first ``risk.steps`` (as read, after recoding)."""
    engine = cfg.engine
    start = timed(
        "risk_before",
        f"grouping by the key variables ({engine})",
        lambda: _checked_patterns(frame, cfg),
    )
    recoded = before = measure_risk_engine(start, cfg)
    if cfg.recode:  # "before" is the risk of the file as read
        before = timed(
            "risk_read",
            f"grouping by the key variables as read ({engine})",
            lambda: as_read(cfg, lambda: measure_risk_engine(Patterns(read, cfg), cfg)),
        )
    stages = [risk_stage("read", before)]
    if cfg.recode:
        stages.append(risk_stage("recode", recoded))
    return start, before, stages


def _pram_step(cfg: JobConfig, frame: Any, timed: Any) -> tuple[Any, dict[str, Any] | None]:
    """The job's ``[pram]`` step inside the engine, if it has one: the lazy release and
    its figures (the call and figures of the pandas route,
    :func:`microsdc.job.methods.run_method`); else ``frame`` and None."""
    if "pram" not in cfg.steps:
        return frame, None
    from microsdc.job.methods import run_method

    return timed(
        "pram",
        f"PRAM of categorical variables ({cfg.engine})",
        lambda: run_method(cfg, "pram", frame),
    )


def run_engine_job(
    cfg: JobConfig,
    *,
    write: bool,
    display: ProgressDisplay,
    now: Any,
    started: float,
) -> JobResult:
    """:func:`microsdc.job.run_job` for a job with ``input.engine`` (called by it)."""

    from microsdc.io.engines import write_parquet

    _check_output(cfg)
    timings: list[dict[str, Any]] = []
    notes: list[dict[str, str]] = []
    suppress = "suppression" in cfg.steps
    n_steps = 4 + sum(map(bool, (suppress, write, cfg.recode, "pram" in cfg.steps)))
    engine = cfg.engine
    with display(n_steps) as step:
        timed = step_timer(step, cfg, timings, notes)

        frame, all_columns = timed(
            "read", f"opening {cfg.input_path.name} ({engine})", lambda: open_input(cfg)
        )
        recode_notes: list[dict[str, Any]] = []
        read = frame
        if cfg.recode:
            frame = timed(
                "recode",
                f"binning {', '.join(r.column for r in cfg.recode)} ({engine})",
                lambda: recode_engine(cfg, read, recode_notes),
            )
        start, before, stages = _risk_before(cfg, read, frame, timed)
        final = frame
        sup_fig = None
        cells: dict[str, int] = {}
        if suppress:
            records = step.records()
            final, sup_fig, cells = timed(
                "suppression",
                f"local suppression ({engine})",
                lambda: suppress_engine(cfg, frame, start, records),
            )
        final, pram_fig = _pram_step(cfg, final, timed)
        end = timed("risk_after", f"measuring risk (after, {engine})", lambda: Patterns(final, cfg))
        after = measure_risk_engine(end, cfg)
        ran = [name for name in ("suppression", "pram") if name in cfg.steps]
        if ran:
            stages.append(risk_stage(ran[-1], after))
        released = columns_of(final)
        variables, key_variables = describe_engine(cfg, all_columns, released, start, end, cells)
        audit: dict[str, Any] = {
            **audit_header(
                cfg,
                now,
                {
                    "sha256": sha256_input(cfg),
                    "n_records": start.n_records,
                    "n_columns": len(released),
                },
            ),
            "recode": recode_notes,
            "variables": variables,
            "key_variables": key_variables,
            "risk": {"before": before, "after": after, "steps": stages},
            **_intruder(cfg, start, sup_fig),
            "suppression": sup_fig,
            "swapping": None,
            **({"pram": pram_fig} if pram_fig is not None else {}),
            "not_computed": engine_not_computed(cfg),
            "warnings": notes,
            "timings": timings,
            "outputs": audit_outputs(cfg),
        }
        html, written, release = finish_job(
            cfg,
            audit,
            timed,
            step,
            write,
            (
                f"writing {cfg.output.data.name} ({engine})",
                lambda path: write_parquet(final, str(path)),
            ),
            started,
        )
    return JobResult(
        config=cfg, data=final, audit=audit, report_html=html, written=written, release=release
    )
