"""The job on an engine input (``[input] engine = "duckdb" | "polars"``).

The engine reads the input lazily (a Parquet file, folder or glob, or a DuckDB
table), groups the records by the key variables (missing values kept as a
group), and writes the anonymised Parquet file itself; rows never enter
Python. Every figure of the audit record comes from the distinct key
combinations and their numbers of records (and weight sums): records at risk,
fk, the individual risk with weights, the suppressed cells per key variable, the
prosecutor risk of suppression. What needs the records themselves (the household
risk, l-diversity) is not computed, and the report says so. Whether other columns give
blanked values back is checked by the engine on counts, and the pairs found are among
the run's warnings, as in the pandas job.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from microsdc.job.audit import sha256_file
from microsdc.job.columns import check_columns, warn_suspect_keys
from microsdc.job.config import JobConfig
from microsdc.job.inputs import METHOD_LABELS, Timed
from microsdc.job.measures import KeyCounts, describe
from microsdc.job.stepfigures import values_blanked
from microsdc.job.steps import as_read
from microsdc.job.suppress import suppression_step

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from microsdc.job.recode_spec import RecodeSpec

__all__ = [
    "EngineInput",
    "Patterns",
    "columns_of",
    "engine_not_computed",
    "open_input",
    "pram_cells",
    "pram_moved_missing",
    "sha256_input",
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
    counted by its engine (:func:`microsdc.risk.counting.key_rows`, as
    :func:`microsdc.risk_summary` counts them); with ``warn``, the key-variable texts
    that often mean missing are warned about
    (:func:`microsdc.job.columns.warn_suspect_keys`), as the pandas job does.

    Attributes
    ----------
    keys : KeyRows
        The combinations, encoded under the job's missing-value policy.
    table : pandas.DataFrame
        One row per combination the engine reported: the key variables,
        ``records``.
    """

    def __init__(self, frame: Any, cfg: JobConfig, *, warn: bool = False) -> None:
        from microsdc.backends.adapters import adapt
        from microsdc.risk.counting import key_rows

        self.cfg = cfg
        qi: list[Any] = list(cfg.quasi_identifiers)
        mv = list(cfg.missing_values) or None
        self.keys = key_rows(adapt(frame, "run_job"), qi, cfg.missing, cfg.weights, mv, "run_job")
        assert self.keys.rows is not None and self.keys.records is not None
        self.table: pd.DataFrame = self.keys.rows.rename(columns={_N: "records"})
        if warn:  # as the pandas job warns on the records
            warn_suspect_keys(cfg, self.table, self.table["records"])

    @property
    def n_records(self) -> int:
        """Number of records of the frame."""
        assert self.keys.records is not None
        return int(self.keys.records.sum())

    def counts(self, col: str, codes: list[Any]) -> KeyCounts:
        """The values of ``col`` with their records, ``codes`` declared missing."""
        return KeyCounts.of(self.table[col], codes, self.table["records"].to_numpy(dtype="int64"))

    def risk(self) -> dict[str, Any]:
        """:func:`microsdc.job.measures.measure_risk` from these combinations: the figures
        of :func:`microsdc.risk_summary` on the lazy frame, without the household risk
        and l-diversity, which need the records (None and ``{}``)."""
        from microsdc.risk.summary import engine_risk_figures

        cfg = self.cfg
        mv = list(cfg.missing_values) or None
        return engine_risk_figures(self.keys, cfg.k, cfg.risk_threshold, mv)


def recode_engine(
    cfg: JobConfig, frame: Any, categories: dict[str, list[str]]
) -> tuple[Any, list[dict[str, Any]]]:
    """``[recode]`` of bands of one width, in the engine
    (:func:`microsdc.recoding.lazy.bin_width_lazy`), and the audit's notes
    (:func:`microsdc.job.recode.recode_columns`); ``categories`` gets the labels of the
    bands of each column, in order (what the release is written with)."""
    from microsdc.job.recode import applied, band_keys, recode_columns
    from microsdc.recoding.lazy import bin_width_lazy

    def column(frame: Any, spec: RecodeSpec) -> tuple[Any, dict[str, Any]]:
        assert spec.width is not None  # breaks are refused when the job is read
        mv, start = list(cfg.missing_values), spec.start or 0.0
        bands = functools.partial(
            bin_width_lazy, frame, spec.column, spec.width, origin=start, missing_values=mv
        )
        frame, info = applied(cfg, f"recode.{spec.column}", band_keys(spec.column), bands)
        categories[spec.column] = list(info["labels"])
        return frame, {k: info[k] for k in ("bins", "distinct_before")}

    return recode_columns(cfg, frame, column)


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
    # Whether other columns give blanked values back is checked by the engine on counts
    # (microsdc.risk.engine_readback): the suppression step warns of the pairs it finds,
    # as in the pandas job.
    return out


def pram_cells(cfg: JobConfig, figures: dict[str, Any] | None) -> tuple[dict[str, int], list[str]]:
    """The cells PRAM changed per column, from the records each of its matrices changed
    (``figures``: the audit's ``pram``, None when PRAM did not run), and one sentence per
    column whose changed cells cannot be told so: a column PRAMmed together with others
    (a record counts when any of them changed), or a key variable PRAMmed with its
    missing values as a state (a blanked cell may be drawn a value again)."""
    if figures is None:
        return {}, []
    from microsdc.job.schema import default_of

    section = cfg.methods["pram"]
    grouped = {str(c) for group in section.get("together", []) for c in group}
    state = section.get("missing", default_of("pram.missing")) == "state"
    counted: dict[str, int] = {}
    unknown: list[str] = []
    for col in map(str, section["variables"]):
        if col in grouped or (state and col in map(str, cfg.quasi_identifiers)):
            unknown.append(col)
            continue
        counted[col] = sum(
            int(m["n_changed"]) for m in figures["matrices"] if m["variables"] == col
        )
    if not unknown:
        return counted, []
    note = (
        f"The cells PRAM changed in {', '.join(unknown)} were not counted (their "
        "cells_changed leaves PRAM out): the engine counts the records whose PRAMmed "
        "categories changed, not each cell, and "
        f"the rows of this input stay in the {cfg.engine} engine."
    )
    return counted, [note]


def pram_moved_missing(cfg: JobConfig, start: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The key variables PRAM may have moved into or out of the missing values (its
    missing values drawn as a state, or a declared code among the values of the key
    variable in ``start``, the patterns protection starts from), whose cells made
    missing the engine cannot count, and one sentence saying so (none when there are
    none)."""
    if "pram" not in cfg.steps:
        return [], []
    import numpy as np

    from microsdc.encode import missing_mask
    from microsdc.job.schema import default_of

    section = cfg.methods["pram"]
    state = section.get("missing", default_of("pram.missing")) == "state"
    codes = list(cfg.missing_values)

    def coded(col: str) -> bool:
        values = start[col]
        declared = np.asarray(missing_mask(values, codes), dtype=bool) & values.notna().to_numpy()
        return bool(codes) and bool(declared.any())

    keys = set(map(str, cfg.quasi_identifiers))
    moved = [c for c in map(str, section["variables"]) if c in keys and (state or coded(c))]
    if not moved:
        return [], []
    why = "draws the missing values as a category" if state else "draws the declared codes"
    note = (
        f"The share of cells suppressed in {', '.join(moved)} was not computed (left out): "
        f"PRAM {why} and may move a cell into or out of the missing values after "
        "suppression; the engine counts the records whose PRAMmed categories changed, not "
        f"each cell, and the rows of this input stay in the {cfg.engine} engine."
    )
    return moved, [note]


def _intruder(cfg: JobConfig, start: Patterns, sup_fig: Any) -> dict[str, Any]:
    """``{"intruder": ...}`` of the audit (the headline, from the distinct patterns), or
    nothing when the route did not list every pattern (the combined-key route)."""
    from microsdc.risk.prosecutor import prosecutor_of_patterns

    if sup_fig is not None:
        pros = sup_fig.get("prosecutor_risk")
        return {} if pros is None else {"intruder": {"k": cfg.k, **pros}}
    table = start.table
    same = prosecutor_of_patterns(table, cfg.quasi_identifiers, table["records"], cfg.k)
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


class EngineInput:
    """:class:`microsdc.job.inputs.JobInput` of a job whose rows stay in the engine of
    ``input.engine``: every figure comes from the distinct key combinations
    (:class:`Patterns`); the steps that need the records are refused when the job is
    read (:mod:`microsdc.job.engine_checks`)."""

    #: the binning, and the grouping by the key variables as read
    recode_steps = 2

    def __init__(self, cfg: JobConfig) -> None:
        self.cfg = cfg
        self.columns: list[str] = []  # of the input, as read
        self.read_patterns: Patterns | None = None  # of the input as read (before recoding)
        self.start: Patterns | None = None  # protection starts from them (after recoding)
        self.end: Patterns | None = None  # of the last frame measured
        self.cells: dict[str, int] = {}  # blanked per key variable
        self.made_missing: dict[str, int] = {}  # of those, the cells that held a value
        self.uncounted: list[str] = []  # the changed cells that cannot be counted
        self.categories: dict[str, list[str]] = {}  # the band labels of binned columns

    def check(self) -> None:
        """The output data file is not among the input's files."""
        _check_output(self.cfg)

    def label(self, step: str) -> str:
        """What the progress display says while ``step`` runs."""
        cfg, engine = self.cfg, self.cfg.engine
        labels = {
            "read": f"opening {cfg.input_path.name} ({engine})",
            "recode": f"binning {', '.join(r.column for r in cfg.recode)} ({engine})",
            "suppression": f"local suppression ({engine})",
            "pram": f"{METHOD_LABELS['pram']} ({engine})",
            "risk_after": f"measuring risk (after, {engine})",
            "write": f"writing {cfg.output.data.name} ({engine})",
        }
        return labels[step]

    def read(self) -> Any:
        """The lazy frame (:func:`open_input`)."""
        frame, self.columns = open_input(self.cfg)
        return frame

    def recode(self, raw: Any) -> tuple[Any, list[dict[str, Any]]]:
        """:func:`recode_engine`."""
        return recode_engine(self.cfg, raw, self.categories)

    def first_risks(
        self, raw: Any, data: Any, timed: Timed
    ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The patterns protection starts from (after recoding) first, then, with
        ``[recode]``, the risk of the file as read."""
        cfg, engine = self.cfg, self.cfg.engine
        self.start = start = timed(
            "risk_before",
            f"grouping by the key variables ({engine})",
            lambda: Patterns(data, cfg, warn=True),
        )
        recoded = start.risk()
        if not cfg.recode:
            self.read_patterns = start
            return recoded, None

        def risk_as_read() -> dict[str, Any]:
            self.read_patterns = Patterns(raw, cfg)
            return self.read_patterns.risk()

        before = timed(
            "risk_read",
            f"grouping by the key variables as read ({engine})",
            lambda: as_read(cfg, risk_as_read),
        )
        return before, recoded

    def measure(self, data: Any) -> dict[str, Any]:
        """The risk figures (:meth:`Patterns.risk`) of ``data``'s patterns (kept for the end)."""
        self.end = Patterns(data, self.cfg)
        return self.end.risk()

    def swap(self, data: Any, on_progress: Any) -> NoReturn:
        """Never: swapping is refused when the job is read."""
        raise AssertionError("record swapping needs the records; refused when the job is read")

    def suppress(
        self, data: Any, progress: Callable[[int, int], None] | None
    ) -> tuple[Any, dict[str, Any]]:
        """:func:`microsdc.job.suppress.suppression_step`, the cells observed before
        counted on the patterns protection starts from; the cells blanked per key
        variable kept. Unless ``output.random_order``, a warning that the row order
        of the release was not checked
        (:func:`microsdc.risk.linked.warn_row_order_unchecked`), as the pandas job
        checks it."""
        from microsdc.risk.linked import warn_row_order_unchecked

        assert self.start is not None  # measured first
        table = self.start.table
        records = table["records"].to_numpy(dtype="int64")
        res, figures = suppression_step(self.cfg, data, progress, table, records)
        self.cells = figures["per_variable"]
        self.made_missing = values_blanked(res, list(self.cfg.missing_values))
        if not self.cfg.output.random_order:
            warn_row_order_unchecked(str(self.cfg.engine), int(res.n_cells))
        return res.data, figures

    def pram_risk(self, before: Any, after: Any) -> None:
        """Not measured: it needs the records."""
        return None

    def release(self, final: Any, origin: np.ndarray | None) -> tuple[Any, np.ndarray | None]:
        """As it is, in the engine's order, or with ``output.random_order`` sorted by a
        hash of the released values (:func:`microsdc.backends.hashorder.in_hash_order`),
        lazily."""
        if self.cfg.output.random_order:
            from microsdc.backends.hashorder import in_hash_order

            return in_hash_order(final), None
        return final, origin

    def intruder(
        self, data: Any, final: Any, origin: np.ndarray | None, suppression: Any
    ) -> dict[str, Any]:
        """The headline from the distinct patterns (:func:`_intruder`)."""
        assert self.start is not None
        return _intruder(self.cfg, self.start, suppression)

    def describe(
        self, data: Any, final: Any, origin: np.ndarray | None, methods: dict[str, Any]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """:func:`microsdc.job.measures.describe` from the patterns as read, before and
        after; the cells changed are those suppression blanked and those PRAM changed
        (:func:`pram_cells`), the cells made missing those suppression blanked that
        held a value (:func:`~microsdc.job.stepfigures.values_blanked`: a declared
        code blanked under ``"category"`` was missing already); their share is left
        out for a key variable PRAM may have moved into or out of the missing values
        (:func:`pram_moved_missing`)."""
        assert self.read_patterns is not None and self.start is not None and self.end is not None
        read, start, end = self.read_patterns, self.start, self.end
        pram, self.uncounted = pram_cells(self.cfg, methods.get("pram"))
        moved, note = pram_moved_missing(self.cfg, start.table)
        self.uncounted += note
        cells = self.cells
        changed = {c: cells.get(c, 0) + pram.get(c, 0) for c in {*cells, *pram}}
        released = columns_of(final)
        mv = list(self.cfg.missing_values)
        return describe(
            self.cfg,
            [(c, c in released) for c in self.columns],
            lambda col: (
                read.counts(str(col), mv),
                start.counts(str(col), mv),
                end.counts(str(col), mv),
            ),
            changed,
            lambda col, before, after: (
                None if str(col) in moved else self.made_missing.get(str(col), 0)
            ),
        )

    def input_figures(self, raw: Any, final: Any) -> dict[str, Any]:
        """The input's SHA-256 (:func:`sha256_input`), records and released columns."""
        assert self.start is not None
        return {
            "sha256": sha256_input(self.cfg),
            "n_records": self.start.n_records,
            "n_columns": len(columns_of(final)),
        }

    def not_computed(self) -> dict[str, Any]:
        """The audit's ``not_computed`` (:func:`engine_not_computed`)."""
        return {"not_computed": engine_not_computed(self.cfg) + self.uncounted}

    def write(self, final: Any, path: Path) -> None:
        """The release as Parquet, written by the engine (binned columns with the type
        pandas writes for them)."""
        from microsdc.io.engines import write_parquet

        write_parquet(final, str(path), self.categories, len(self.cfg.missing_values))
