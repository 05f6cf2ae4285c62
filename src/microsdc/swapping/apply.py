"""Apply the pairs: whole households exchange their geography and carry-along values."""

from __future__ import annotations

import warnings
from collections.abc import Hashable

import numpy as np
import pandas as pd

from microsdc.exceptions import HouseholdLevelWarning
from microsdc.swapping._prepare import Households, column_codes

__all__ = ["apply_pairs", "person_level_columns", "sorted_copy", "warn_person_level_similar"]


def sorted_copy(data: pd.DataFrame, hh: Households) -> pd.DataFrame:
    """The rows of ``data`` in hid order (stable) as a new frame; index labels follow their rows."""
    if hh.order is not None:
        return data.take(hh.order)
    if int(pd.__version__.split(".")[0]) >= 3:
        return data.copy(deep=False)  # copy-on-write: the caller's frame cannot change
    return data.copy()


def _varies(data: pd.DataFrame, col: Hashable, hh: Households) -> np.ndarray:
    """Boolean per household: does ``col`` take more than one value among its members?"""
    codes, _ = column_codes(data[col])
    if hh.order is not None:
        codes = codes[hh.order]
    differs = codes != codes[hh.first][hh.hh_of_row]
    out = np.zeros(hh.n_households, dtype=bool)
    out[hh.hh_of_row[differs]] = True
    return out


def person_level_columns(
    data: pd.DataFrame, columns: list[Hashable], hh: Households
) -> list[Hashable]:
    """The columns among ``columns`` whose values differ between members of some household."""
    return [col for col in columns if _varies(data, col, hh).any()]


def warn_person_level_similar(
    data: pd.DataFrame, profiles: list[list[Hashable]], hh: Households
) -> None:
    """Warn for each similarity column whose values differ inside some household."""
    seen: list[Hashable] = []
    for prof in profiles:
        for col in prof:
            if col in seen:
                continue
            seen.append(col)
            n_hh = int(_varies(data, col, hh).sum())
            if n_hh:
                warnings.warn(
                    f"Column {col!r} (similar) differs between members of {n_hh} household(s); "
                    "a similarity profile compares households by their first member's value. "
                    "Use household-level columns (for example the household size or type).",
                    HouseholdLevelWarning,
                    stacklevel=4,
                )


def apply_pairs(
    out: pd.DataFrame,
    hh: Households,
    partner: np.ndarray,
    columns: list[Hashable],
    swapped_id: Hashable | None,
    hid: Hashable,
    person_columns: list[Hashable] | None = None,
) -> pd.DataFrame:
    """Exchange ``columns`` between paired households in the hid-sorted frame ``out``.

    Every member of a swapped household gets the value of the partner household's
    first member; households not swapped are left as they are. Columns in
    ``person_columns`` are exchanged member by member instead (the i-th member of
    one household gets the value of the i-th member of its partner), which needs
    paired households of equal size. With ``swapped_id``, a column of that name is
    appended holding the partner's hid (own hid for households not swapped).
    """
    person = set(person_columns or [])
    own = hh.hh_of_row
    swapped_rows = partner[own] >= 0
    source = np.arange(len(out), dtype=np.int64)
    other = partner[own[swapped_rows]]
    source[swapped_rows] = hh.first[other]
    by_member = source
    if person:
        if (hh.size[other] != hh.size[own[swapped_rows]]).any():  # pragma: no cover - invariant
            raise AssertionError("paired households of different sizes with a person-level column")
        by_member = np.arange(len(out), dtype=np.int64)
        rows = np.flatnonzero(swapped_rows)
        by_member[rows] = hh.first[other] + (rows - hh.first[own[rows]])
    if swapped_rows.any():
        for col in columns:
            out[col] = out[col].array.take(by_member if col in person else source)
    if swapped_id is not None:
        out[swapped_id] = out[hid].array.take(source)
    return out
