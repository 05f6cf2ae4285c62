"""Integer coding of the columns a swap uses, done once.

Rows are put in hid order (stable), households become the integers
``0 .. n_households - 1`` and every geography, similarity or risk column becomes
small integer codes, so the swap itself never sees the original values: hids of
any type (64-bit, strings, categoricals) come back unchanged.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from microsdc.exceptions import DataValidationError

__all__ = [
    "Households",
    "column_codes",
    "combine_codes",
    "household_order",
    "prepare_households",
]

#: Largest number of cells for which a combined key is counted with a dense bincount.
DENSE_LIMIT = 1 << 26


def column_codes(series: pd.Series) -> tuple[np.ndarray, int]:
    """Codes of one column: int64 array and the number of possible codes.

    Codes keep the order of the values where the values can be ordered (numbers,
    strings, categories in category order), so areas are visited in a stable,
    readable order. Missing values get code -1 (only ``carry_along`` columns may
    hold them).
    """
    plain = series.dtype.kind in "iub" and not series.hasnans
    values = series.to_numpy() if plain else None
    if values is not None and len(values):
        lo, hi = int(values.min()), int(values.max())
        if -(1 << 62) < lo and hi < (1 << 62) and hi - lo < max(1 << 16, 4 * len(values)):
            return values.astype(np.int64) - lo, hi - lo + 1
    try:
        codes, uniques = pd.factorize(series, sort=True)
    except TypeError:  # values of mixed types that cannot be ordered
        codes, uniques = pd.factorize(series, sort=False)
    return codes.astype(np.int64, copy=False), max(len(uniques), 1)


def combine_codes(a: np.ndarray, na: int, b: np.ndarray, nb: int) -> tuple[np.ndarray, int]:
    """Codes of the pairs (a, b), lexicographic in (a, b), compacted to 0 .. m - 1."""
    key = a.astype(np.int64) * nb + b
    if na * nb <= DENSE_LIMIT and na * nb <= 8 * len(key) + 1024:
        present = np.zeros(na * nb, dtype=bool)
        present[key] = True
        remap = np.cumsum(present) - 1
        return remap[key], int(present.sum())
    codes, uniques = pd.factorize(key, sort=True)
    return codes.astype(np.int64, copy=False), len(uniques)


@dataclass
class Households:
    """Household structure of the hid-sorted rows.

    Attributes
    ----------
    order : ndarray of int64 or None
        Positions of the input rows in hid order, or None if already sorted.
    first : ndarray of shape (n_households,), int64
        Position (in sorted rows) of each household's first member.
    size : ndarray of shape (n_households,), int64
        Number of members of each household.
    hh_of_row : ndarray of shape (n_rows,), int64
        Household number of each sorted row.
    area : list of ndarray of shape (n_households,), int64
        ``area[h]`` is the code of the household's level-h area (hierarchy prefix).
    n_areas : list of int
    """

    order: np.ndarray | None
    first: np.ndarray
    size: np.ndarray
    hh_of_row: np.ndarray
    area: list[np.ndarray]
    n_areas: list[int]

    @property
    def n_households(self) -> int:
        return len(self.first)


def household_order(hid: pd.Series) -> tuple[np.ndarray | None, np.ndarray]:
    """The one household order of microsdc: stable hid order of the rows, and the sorted keys.

    Every function that lines households up (the swap, :func:`swap_utility`, the
    job's swapping step) uses this order, so that they agree for every hid type:
    numbers by value, strings in lexical order, categoricals in **category
    order** (not value order). Rows of one household are consecutive after the
    sort and keep their input order.

    Returns
    -------
    order : ndarray of int64 or None
        Positions of the rows in hid order, or None if the rows are already in it.
    keys : ndarray of shape (n_rows,)
        Sort keys in that order; equal keys mean the same household.

    Raises
    ------
    DataValidationError
        If the ids mix types that cannot be ordered (numbers and strings).
    """
    if hid.dtype.kind in "iuf":
        keys = hid.to_numpy()
    else:
        try:
            codes, _ = pd.factorize(hid, sort=True)
        except TypeError as exc:
            raise DataValidationError(
                f"The household ids in column {hid.name!r} mix types that cannot be sorted "
                "(for example numbers and strings); give them one type."
            ) from exc
        keys = codes
    if len(keys) < 2 or bool(np.all(keys[1:] >= keys[:-1])):
        return None, keys
    order = np.argsort(keys, kind="stable")
    return order, keys[order]


def prepare_households(data: pd.DataFrame, hid: Hashable, hierarchy: list[Hashable]) -> Households:
    """Sort by hid, find households and code the hierarchy prefixes.

    Raises
    ------
    DataValidationError
        If the members of a household (or two households with the same id) lie in
        different finest-level areas; the message lists the offending hids.
    """
    order, keys = household_order(data[hid])
    n = len(keys)
    if n:
        starts = np.flatnonzero(keys[1:] != keys[:-1]) + 1
        first = np.concatenate(([0], starts)).astype(np.int64)
    else:
        first = np.zeros(0, dtype=np.int64)
    size = np.diff(np.append(first, n)).astype(np.int64)
    hh_of_row = np.repeat(np.arange(len(first), dtype=np.int64), size)

    bad = np.zeros(len(first), dtype=bool)
    area: list[np.ndarray] = []
    n_areas: list[int] = []
    prev: np.ndarray | None = None
    n_prev = 1
    for col in hierarchy:
        codes, ncodes = column_codes(data[col])
        if order is not None:
            codes = codes[order]
        hh_codes = codes[first]
        differs = codes != hh_codes[hh_of_row]
        if differs.any():
            bad[hh_of_row[differs]] = True
        if prev is None:
            prev = np.zeros_like(hh_codes)
        cur, n_cur = combine_codes(prev, n_prev, hh_codes, ncodes)
        area.append(cur)
        n_areas.append(n_cur)
        prev, n_prev = cur, n_cur
    if bad.any():
        rows = first[bad] if order is None else order[first[bad]]
        hids = list(data[hid].iloc[rows])
        shown = ", ".join(repr(h) for h in hids[:20]) + (" ..." if len(hids) > 20 else "")
        raise DataValidationError(
            f"{len(hids)} household id(s) in column {hid!r} have members in different areas of "
            f"the hierarchy {list(hierarchy)!r}: {shown}. A household must lie in one area; "
            "give households in different areas different ids. Nothing was swapped.",
            failure_cases=hids,
        )
    return Households(
        order=order, first=first, size=size, hh_of_row=hh_of_row, area=area, n_areas=n_areas
    )


def household_codes(
    data: pd.DataFrame, columns: list[Hashable], hh: Households
) -> tuple[np.ndarray, int]:
    """Combined code of ``columns`` read from each household's first member."""
    rows = hh.first if hh.order is None else hh.order[hh.first]
    code = np.zeros(hh.n_households, dtype=np.int64)
    ncode = 1
    for col in columns:
        c, nc = column_codes(data[col].iloc[rows])
        code, ncode = combine_codes(code, ncode, c, nc)
    return code, ncode


def row_codes(
    data: pd.DataFrame, columns: list[Hashable], hh: Households
) -> tuple[np.ndarray, int]:
    """Combined code of ``columns`` for every row, in sorted row order."""
    code = np.zeros(len(hh.hh_of_row), dtype=np.int64)
    ncode = 1
    for col in columns:
        c, nc = column_codes(data[col])
        if hh.order is not None:
            c = c[hh.order]
        code, ncode = combine_codes(code, ncode, c, nc)
    return code, ncode
