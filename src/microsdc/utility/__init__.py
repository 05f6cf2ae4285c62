"""Information loss: what anonymisation cost the data.

Two kinds of change are measured here:

- **suppression** blanks quasi-identifier cells: :func:`suppressed_cells`
  counts the cells that were observed before and are missing after, per
  variable and per record;
- **record swapping** moves households between areas: the frequency tables
  before and after, their differences and Hellinger distances come from
  :func:`microsdc.swapping.utility.swap_utility`; :func:`swap_utility_summary`
  reduces them to aggregate figures per hierarchy level that are safe to put
  in a report (no cell of a table, no household id).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from microsdc._validation import (
    check_columns,
    check_frame,
    check_int,
    check_missing_values,
    param_error,
)
from microsdc.encode import MissingValues, missing_mask, missing_values_for
from microsdc.exceptions import DataValidationError

if TYPE_CHECKING:
    import pandas as pd

    from microsdc.swapping.utility import SwapUtility

__all__ = ["SuppressedCells", "suppressed_cells", "swap_utility_summary"]


@dataclass(frozen=True)
class SuppressedCells:
    """Cells blanked by anonymisation.

    Attributes
    ----------
    per_variable : pandas.Series of shape (n_variables,), int64
        Cells observed in the original and missing in the anonymised frame,
        indexed by variable, in the order given.
    per_record : pandas.Series of shape (n_rows,), int64
        The same count per record, indexed like the original frame.
    observed_before : pandas.Series of shape (n_variables,), int64
        Observed (non-missing) cells per variable in the original frame.
    """

    per_variable: pd.Series
    per_record: pd.Series
    observed_before: pd.Series

    @property
    def total(self) -> int:
        """Number of suppressed cells."""
        return int(self.per_variable.sum())

    @property
    def n_records(self) -> int:
        """Records with at least one suppressed cell."""
        return int((self.per_record > 0).sum())

    @property
    def share(self) -> float:
        """Suppressed cells / cells observed before (0 when none were observed)."""
        observed = int(self.observed_before.sum())
        return self.total / observed if observed else 0.0

    def records_by_count(self) -> dict[str, int]:
        """Number of records with 0, 1, 2, ... suppressed cells (keys are strings)."""
        counts = self.per_record.value_counts().sort_index()
        return {str(k): int(v) for k, v in counts.items()}

    def to_dict(self) -> dict[str, Any]:
        """Aggregate figures as a JSON-ready dict."""
        return {
            "total": self.total,
            "share": self.share,
            "records_with_suppression": self.n_records,
            "per_variable": {str(k): int(v) for k, v in self.per_variable.items()},
            "observed_before": {str(k): int(v) for k, v in self.observed_before.items()},
            "records_by_count": self.records_by_count(),
        }


def suppressed_cells(
    original: pd.DataFrame,
    anonymised: pd.DataFrame,
    columns: Sequence[Hashable] | None = None,
    *,
    missing_values: MissingValues = None,
) -> SuppressedCells:
    """Count the cells that anonymisation blanked, per variable and per record.

    Parameters
    ----------
    original : pandas.DataFrame of shape (n_rows, n_columns)
        The data before suppression. Never modified.
    anonymised : pandas.DataFrame of shape (n_rows, n_columns')
        The data after suppression, with the same index labels as
        ``original`` (in any order).
    columns : list of column names, optional
        Variables to compare (default: the columns of ``original`` that are
        also in ``anonymised``).
    missing_values : sequence or dict, optional
        Codes that mean "missing" besides NaN/None/pd.NA/NaT (one sequence for
        every column or ``{column: sequence}``).

    Returns
    -------
    SuppressedCells

    Raises
    ------
    InvalidParameterError
        If an argument is not a DataFrame or ``columns`` repeats a name.
    ColumnNotFoundError
        If a column is missing from either frame.
    DataValidationError
        If the two frames do not hold the same row labels, or labels repeat.

    Notes
    -----
    A cell counts when it is observed in ``original`` and missing in
    ``anonymised``. Cells that were missing already, or that changed value
    (recoding, swapping), do not count.

    Examples
    --------
    >>> import pandas as pd
    >>> before = pd.DataFrame({"a": [1, 2, 3], "b": ["x", None, "z"]})
    >>> after = pd.DataFrame({"a": [1, None, None], "b": [None, None, "z"]})
    >>> res = suppressed_cells(before, after)
    >>> res.per_variable.to_dict(), res.per_record.tolist(), res.total
    ({'a': 2, 'b': 1}, [1, 1, 1], 3)
    """
    import numpy as np
    import pandas as pd

    func = "suppressed_cells"
    check_frame(original, "original", func)
    check_frame(anonymised, "anonymised", func)
    if columns is None:
        present = set(anonymised.columns)
        cols: list[Hashable] = [c for c in original.columns if c in present]
    else:
        cols = check_columns(original, columns, "columns", func, allow_empty=True)
    check_columns(anonymised, cols, "columns", func, allow_empty=True)
    check_missing_values(missing_values, "missing_values", func)
    if not original.index.is_unique or not anonymised.index.is_unique:
        raise DataValidationError(
            f"The frames passed to {func} need unique row labels to be compared.",
            func=func,
        )
    if len(original) != len(anonymised) or not original.index.isin(anonymised.index).all():
        raise DataValidationError(
            f"The frames passed to {func} do not hold the same records "
            f"({len(original)} and {len(anonymised)} rows; compare their index labels).",
            func=func,
        )
    after = (
        anonymised.loc[original.index]
        if not original.index.equals(anonymised.index)
        else (anonymised)
    )
    per_var: dict[Hashable, int] = {}
    observed: dict[Hashable, int] = {}
    per_row = np.zeros(len(original), dtype=np.int64)
    for c in cols:
        extra = missing_values_for(missing_values, c)
        was = ~missing_mask(original[c], extra)
        now = missing_mask(after[c], extra)
        blanked = was & now
        per_var[c] = int(blanked.sum())
        observed[c] = int(was.sum())
        per_row += blanked
    index = pd.Index(cols, dtype=object)
    return SuppressedCells(
        per_variable=pd.Series(list(per_var.values()), index=index, dtype=np.int64),
        per_record=pd.Series(per_row, index=original.index, name="suppressed"),
        observed_before=pd.Series(list(observed.values()), index=index, dtype=np.int64),
    )


def swap_utility_summary(utility: SwapUtility, *, max_areas: int = 50) -> dict[str, Any]:
    """Aggregate, report-safe figures from a :class:`~microsdc.swapping.utility.SwapUtility`.

    Parameters
    ----------
    utility : SwapUtility
        What :func:`microsdc.swapping.utility.swap_utility` returned.
    max_areas : int, default 50
        Per-area swap shares are listed only for levels with at most this many
        areas; finer levels are summarised by the distribution of their area
        shares.

    Returns
    -------
    dict
        ``levels``: one dict per hierarchy level with ``level``, ``hierarchy``,
        ``areas``, ``households_swapped``, ``share_households``,
        ``persons_swapped``, ``share_persons``, the minimum, median and maximum
        share of households swapped over areas, ``hellinger`` and the table
        figures ``cells`` (cells of the (level x risk variables) table),
        ``cells_changed``, ``sum_abs_diff`` (sum of |after - before|),
        ``mean_abs_rel_diff`` and ``max_abs_rel_diff`` (over cells with
        before > 0); ``areas``: per-area rows (``level``, ``hierarchy``,
        ``area`` as text, households and persons, swapped and shares) for the
        levels with at most ``max_areas`` areas.

    Notes
    -----
    No cell of a frequency table is returned (a cell of 1 would point at a
    unique person), and no household id.

    Examples
    --------
    >>> from microsdc.datasets import synthetic_census
    >>> from microsdc.swapping import record_swap, swap_utility
    >>> df = synthetic_census(500, seed=1)
    >>> out = record_swap(df, "hid", ["nuts1", "nuts2"], "hsize", swaprate=0.1,
    ...                   risk_variables=["ageGroup"], carry_along=["nuts3", "lau2"], seed=2)
    >>> s = swap_utility_summary(swap_utility(df, out, "hid", ["nuts1", "nuts2"], ["ageGroup"]))
    >>> [lv["hierarchy"] for lv in s["levels"]], len(s["areas"])
    (['nuts1', 'nuts2'], 18)
    """
    import numpy as np

    func = "swap_utility_summary"
    if not all(hasattr(utility, a) for a in ("share_per_area", "share_per_level", "hellinger")):
        raise param_error("utility", func, "a SwapUtility (what swap_utility returned)", utility)
    max_areas = check_int(max_areas, "max_areas", func, min_value=0)
    per_area = utility.share_per_area
    hell = dict(zip(utility.hellinger["hierarchy"], utility.hellinger["hellinger"], strict=True))
    levels = []
    area_rows: list[dict[str, Any]] = []
    for row in utility.share_per_level.to_dict("records"):
        col = row["hierarchy"]
        areas = per_area[per_area["level"] == row["level"]]
        shares = areas["share_households"].to_numpy(dtype=np.float64)
        table = utility.tables[col]
        before = table["before"].to_numpy(dtype=np.float64)
        diff = table["abs_diff"].to_numpy(dtype=np.float64)
        seen = before > 0
        rel = np.abs(diff[seen] / before[seen])
        levels.append(
            {
                "level": int(row["level"]),
                "hierarchy": str(col),
                "areas": int(row["areas"]),
                "households_swapped": int(row["households_swapped"]),
                "share_households": float(row["share_households"]),
                "persons_swapped": int(row["persons_swapped"]),
                "share_persons": float(row["share_persons"]),
                "area_share_min": float(shares.min()) if len(shares) else 0.0,
                "area_share_median": float(np.median(shares)) if len(shares) else 0.0,
                "area_share_max": float(shares.max()) if len(shares) else 0.0,
                "hellinger": float(hell.get(col, 0.0)),
                "cells": len(table),
                "cells_changed": int(np.count_nonzero(diff)),
                "sum_abs_diff": int(np.abs(diff).sum()),
                "mean_abs_rel_diff": float(rel.mean()) if len(rel) else 0.0,
                "max_abs_rel_diff": float(rel.max()) if len(rel) else 0.0,
            }
        )
        if len(areas) <= max_areas:
            for a in areas.to_dict("records"):
                area = a["area"]
                label = " / ".join(str(v) for v in area) if isinstance(area, tuple) else str(area)
                area_rows.append(
                    {
                        "level": int(a["level"]),
                        "hierarchy": str(a["hierarchy"]),
                        "area": label,
                        "households": int(a["households"]),
                        "households_swapped": int(a["households_swapped"]),
                        "share_households": float(a["share_households"]),
                        "persons": int(a["persons"]),
                        "persons_swapped": int(a["persons_swapped"]),
                        "share_persons": float(a["share_persons"]),
                    }
                )
    return {"levels": levels, "areas": area_rows}
