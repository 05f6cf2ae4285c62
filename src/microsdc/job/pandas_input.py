"""The input of a job held in memory, as a pandas DataFrame: :class:`PandasInput`, the
:class:`microsdc.job.inputs.JobInput` of a job without ``input.engine``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from microsdc.job.audit import sha256_file
from microsdc.job.columns import check_columns, warn_suspect_keys
from microsdc.job.config import JobConfig
from microsdc.job.inputs import METHOD_LABELS, Timed
from microsdc.job.measures import (
    describe_variables,
    intruder_of,
    measure_risk,
    missing_values_of,
    pram_risk,
)
from microsdc.job.recode import recode
from microsdc.job.schema import default_of
from microsdc.job.stepfigures import swap_figures
from microsdc.job.steps import as_read
from microsdc.job.suppress import suppression_step

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["PandasInput", "in_random_order", "read_input", "warn_row_order"]


def read_input(cfg: JobConfig) -> pd.DataFrame:
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
    from microsdc.data.quality import warn_all_missing, warn_user_missing_codes
    from microsdc.io.text_types import weights_as_numbers

    df = read_input(cfg)
    check_columns(cfg, df)
    df = weights_as_numbers(df, cfg.weights)
    warn_all_missing(df, list(cfg.quasi_identifiers), missing_values_of(cfg))
    warn_suspect_keys(cfg, df)
    warn_user_missing_codes(
        df, list(cfg.quasi_identifiers), missing_values_of(cfg), "missing_values = [{1}] in [input]"
    )
    return df


def _suppress(
    cfg: JobConfig, df: pd.DataFrame, progress: Callable[[int, int], None] | None = None
) -> tuple[pd.DataFrame, dict[str, Any]]:
    # a household id that is not released cannot give a blanked cell back: left out
    kept = [c for c in cfg.dropped_at_output if c in df.columns]
    full, df = df, df.drop(columns=kept)
    res, figures = suppression_step(cfg, df, progress)
    if not cfg.output.random_order:  # else the rows leave their order as read
        warn_row_order(cfg, df, res.data)
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

    warn_order(before, after, list(cfg.quasi_identifiers), missing_values=missing_values_of(cfg))


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


class PandasInput:
    """:class:`microsdc.job.inputs.JobInput` of a job whose rows are read into memory."""

    #: the recoding, and the risk measured after it
    recode_steps = 2

    def __init__(self, cfg: JobConfig) -> None:
        self.cfg = cfg
        self.as_read: pd.DataFrame | None = None  # every column, as read

    def check(self) -> None:
        """Nothing to check before reading."""

    def label(self, step: str) -> str:
        """What the progress display says while ``step`` runs."""
        labels = {
            "read": f"reading {self.cfg.input_path.name}",
            "recode": "recoding",
            "risk_swapped": "measuring risk (after swapping)",
            "suppression": "local suppression",
            "swapping": "swapping households",
            "continuous": "measuring the continuous variables",
            "risk_after": "measuring risk (after)",
            "write": "writing files",
            **METHOD_LABELS,
        }
        return labels[step]

    def read(self) -> pd.DataFrame:
        """The input, checked; the columns of ``variables.drop`` left out (never released,
        never used but for the household ids)."""
        cfg = self.cfg
        self.as_read = raw = _read_checked(cfg)
        if cfg.drop:
            raw = raw.drop(columns=[c for c in cfg.drop if c not in cfg.dropped_at_output])
        return raw

    def recode(self, raw: pd.DataFrame) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
        """:func:`microsdc.job.recode.recode`."""
        return recode(self.cfg, raw)

    def first_risks(
        self, raw: pd.DataFrame, data: pd.DataFrame, timed: Timed
    ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The risk as read, then after recoding (None without ``[recode]``)."""
        cfg = self.cfg
        before = timed(
            "risk_before",
            "measuring risk (as read)",
            lambda: as_read(cfg, lambda: measure_risk(raw, cfg)),
        )
        if not cfg.recode:
            return before, None
        recoded = timed(
            "risk_recoded", "measuring risk (after recoding)", lambda: measure_risk(data, cfg)
        )
        return before, recoded

    def measure(self, data: pd.DataFrame) -> dict[str, Any]:
        """:func:`microsdc.job.measures.measure_risk`."""
        return measure_risk(data, self.cfg)

    def swap(
        self, data: pd.DataFrame, on_progress: Callable[[int, float], None] | None
    ) -> tuple[pd.DataFrame, dict[str, Any], np.ndarray | None]:
        """Record swapping, households renumbered when the job asks."""
        return _swap(self.cfg, data, on_progress)

    def suppress(
        self, data: pd.DataFrame, progress: Callable[[int, int], None] | None
    ) -> tuple[pd.DataFrame, dict[str, Any]]:
        """Local suppression."""
        return _suppress(self.cfg, data, progress)

    def pram_risk(self, before: pd.DataFrame, after: pd.DataFrame) -> dict[str, Any]:
        """:func:`microsdc.job.measures.pram_risk`."""
        return pram_risk(self.cfg, before, after)

    def release(
        self, final: pd.DataFrame, origin: np.ndarray | None
    ) -> tuple[pd.DataFrame, np.ndarray | None]:
        """Without the columns kept only until the output; in random order when asked."""
        final = final.drop(columns=list(self.cfg.dropped_at_output))
        if self.cfg.output.random_order:
            return in_random_order(final, origin)
        return final, origin

    def intruder(
        self, data: pd.DataFrame, final: pd.DataFrame, origin: np.ndarray | None, suppression: Any
    ) -> dict[str, Any]:
        """The headline, each released record beside itself before protection."""
        start = data if origin is None else data.iloc[origin]
        return {"intruder": intruder_of(self.cfg, start, final)}

    def describe(
        self,
        data: pd.DataFrame,
        final: pd.DataFrame,
        origin: np.ndarray | None,
        methods: dict[str, Any],
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """:func:`microsdc.job.measures.describe_variables` (cell by cell: ``methods`` is
        not needed)."""
        assert self.as_read is not None  # read first
        return describe_variables(self.cfg, self.as_read, data, final, origin=origin)

    def input_figures(self, raw: pd.DataFrame, final: pd.DataFrame) -> dict[str, Any]:
        """The input file's SHA-256, its records and its columns (without those dropped)."""
        return {
            "sha256": sha256_file(self.cfg.input_path),
            "n_records": len(raw),
            "n_columns": raw.shape[1] - len(self.cfg.dropped_at_output),
        }

    def not_computed(self) -> dict[str, Any]:
        """Every figure is computed."""
        return {}

    def write(self, final: pd.DataFrame, path: Path) -> None:
        """The release in the input's format, separator and encoding."""
        from microsdc.io import release_style, write_table

        cfg = self.cfg
        write_table(final, path, **release_style(cfg.input_path, cfg.sep, cfg.encoding))
