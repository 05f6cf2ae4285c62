"""What the job runner asks of its input: :class:`JobInput`.

One runner (:func:`microsdc.job.run_job`) takes every job through the same steps:
read, recode, the risk as read and after recoding, swapping, suppression, the
release-method steps, the risk after, the description of the variables, the audit
record and the files. What differs with the way the rows are held sits behind this
interface: :class:`microsdc.job.pandas_input.PandasInput` holds them in memory,
:class:`microsdc.job.engine.EngineInput` leaves them in a DuckDB or polars engine.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

__all__ = ["METHOD_LABELS", "JobInput", "Timed"]

#: ``timed(name, description, fn)``: one step of the job under the progress display
#: (:func:`microsdc.job.steps.step_timer`).
Timed = Callable[[str, str, Callable[[], Any]], Any]

#: what the progress display says while a release-method step runs
METHOD_LABELS = {
    "pram": "PRAM of categorical variables",
    "microaggregation": "microaggregation",
    "noise": "adding noise",
}


class JobInput(Protocol):
    """The data of one job run, held one way (in memory, or in an engine).

    ``data`` below is whatever the input holds the rows in (a pandas DataFrame, a lazy
    frame); the runner only passes it from one step to the next. An input keeps what
    it learns on the way (the columns as read, the patterns measured) for the
    description of the variables at the end.
    """

    #: progress steps the recoding adds to the display's count
    recode_steps: int

    def check(self) -> None:
        """Checks before anything is read (the places the outputs go)."""

    def label(self, step: str) -> str:
        """What the progress display says while ``step`` runs (``read``, ``recode``,
        ``swapping``, ``risk_swapped``, ``suppression``, a release-method step,
        ``continuous``, ``risk_after``, ``write``): only the steps this input can run."""

    def read(self) -> Any:
        """The input, checked, without the columns never used (``variables.drop``)."""

    def recode(self, raw: Any) -> tuple[Any, list[dict[str, Any]]]:
        """``[recode]`` applied to ``raw``, and the audit's notes of it."""

    def first_risks(
        self, raw: Any, data: Any, timed: Timed
    ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The risk of the file as read and, with ``[recode]``, after recoding (else
        None), each measured as a step under ``timed``."""

    def measure(self, data: Any) -> dict[str, Any]:
        """The risk figures of ``data`` under the job's settings."""

    def swap(
        self, data: Any, on_progress: Callable[[int, float], None] | None
    ) -> tuple[Any, dict[str, Any], np.ndarray | None]:
        """Record swapping: the data, the figures and the position as read of each row
        (None: the rows kept their order)."""

    def suppress(
        self, data: Any, progress: Callable[[int, int], None] | None
    ) -> tuple[Any, dict[str, Any]]:
        """Local suppression: the data and the figures."""

    def pram_risk(self, before: Any, after: Any) -> dict[str, Any] | None:
        """The risk of the key variables just before and after PRAM (None: not measured)."""

    def release(self, final: Any, origin: np.ndarray | None) -> tuple[Any, np.ndarray | None]:
        """The data as released (columns dropped at output, rows reordered) and the
        position as read of each released row."""

    def intruder(
        self, data: Any, final: Any, origin: np.ndarray | None, suppression: Any
    ) -> dict[str, Any]:
        """``{"intruder": ...}`` of the audit, or nothing when it cannot be told."""

    def describe(
        self, data: Any, final: Any, origin: np.ndarray | None, methods: dict[str, Any]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The audit's ``variables`` and ``key_variables``; ``methods`` holds the audit
        figures of the release-method steps that ran (an engine counts the cells PRAM
        changed from them)."""

    def input_figures(self, raw: Any, final: Any) -> dict[str, Any]:
        """The audit's ``sha256``, ``n_records`` and ``n_columns`` of the input."""

    def not_computed(self) -> dict[str, Any]:
        """Audit entries of what this input cannot compute (nothing when none)."""

    def write(self, final: Any, path: Path) -> None:
        """Write the released data to ``path``."""
