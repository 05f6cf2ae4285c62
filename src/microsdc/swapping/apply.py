"""Apply the pairs: whole households exchange their geography and carry-along values."""

from __future__ import annotations

import warnings
from collections.abc import Hashable

import numpy as np
import pandas as pd

from microsdc.exceptions import HouseholdLevelWarning
from microsdc.swapping._prepare import Households

__all__ = ["apply_pairs", "sorted_copy", "warn_person_level"]


def sorted_copy(data: pd.DataFrame, hh: Households) -> pd.DataFrame:
    """The rows of ``data`` in hid order (stable) as a new frame; index labels follow their rows."""
    if hh.order is not None:
        return data.take(hh.order)
    if int(pd.__version__.split(".")[0]) >= 3:
        return data.copy(deep=False)  # copy-on-write: the caller's frame cannot change
    return data.copy()


def warn_person_level(data: pd.DataFrame, columns: list[Hashable], hh: Households) -> None:
    """Warn for each carry-along column whose values differ inside some household."""
    from microsdc.swapping._prepare import column_codes

    for col in columns:
        codes, _ = column_codes(data[col])
        if hh.order is not None:
            codes = codes[hh.order]
        differs = codes != codes[hh.first][hh.hh_of_row]
        if differs.any():
            n_hh = len(np.unique(hh.hh_of_row[differs]))
            warnings.warn(
                f"Column {col!r} (carry_along) differs between members of {n_hh} household(s); "
                "swapped households receive the value of the partner household's first member "
                "for every member.",
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
) -> pd.DataFrame:
    """Exchange ``columns`` between paired households in the hid-sorted frame ``out``.

    Every member of a swapped household gets the value of the partner household's
    first member; households not swapped are left as they are. With
    ``swapped_id``, a column of that name is appended holding the partner's hid
    (own hid for households not swapped).
    """
    swapped_rows = partner[hh.hh_of_row] >= 0
    source = np.arange(len(out), dtype=np.int64)
    source[swapped_rows] = hh.first[partner[hh.hh_of_row[swapped_rows]]]
    if swapped_rows.any():
        for col in columns:
            out[col] = out[col].array.take(source)
    if swapped_id is not None:
        out[swapped_id] = out[hid].array.take(source)
    return out
