"""Columns that give the geography back after a swap.

A swap gives a household another household's hierarchy values. A column left
in place that is a function of the geography (an area name, a finer geography
such as a municipality below the finest level, a code embedding the area) still
tells the original area of every swapped household. Three tests find them, the
first two in linear time on integer codes (no pair table), the third with one
sort of the households per id-like column:

* **function of the geography**: the column takes one value inside every area
  of the finest level that holds at least two households, and differs between
  such areas (area names, codes of coarser levels, region-level figures);
* **determines a level**: every value shared by at least two households lies
  in a single area of the coarsest level (finer geography, codes of areas
  below the finest level). The finest level it determines is reported;
* **order follows the geography** (id-like columns, distinct for half the
  households or more, and the household ids): sorted by the column,
  households visit the areas in at most half the runs a random order gives
  (codes such as ``"<area>-<serial>"``, households numbered area by area).

Each test needs evidence: at least :data:`MIN_EVIDENCE` households beyond the
first in the groups it relies on, so that a household-level column of a small
frame (one household per area) is not taken for geography by chance.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from microsdc.swapping._prepare import Households

__all__ = [
    "MIN_EVIDENCE",
    "PERSON_LEVEL_SHARE",
    "NestedColumn",
    "nested_columns",
    "order_follows_geography",
]

#: Households beyond the first per group needed before a column is called geography.
MIN_EVIDENCE = 10

#: A column differing inside more than this share of households is person-level (not tested).
PERSON_LEVEL_SHARE = 0.01

#: An id whose order gives at most this share of the runs of areas a random order
#: gives (and a random order would give at least ``MIN_RUNS``) follows the geography.
RUNS_SHARE = 0.5
MIN_RUNS = 20

#: Columns with at least this share of distinct values among households are ids.
ID_SHARE = 0.5


@dataclass(frozen=True)
class NestedColumn:
    """A column that gives back (part of) the geography of swapped households."""

    column: Hashable
    reason: str


def _codes(series: pd.Series, order: np.ndarray | None) -> tuple[np.ndarray, int, int]:
    """Integer codes 0 .. n - 1 of a column in hid order, n, and the code of missing (or -1).

    Missing values are one more code: constant inside an area they count as a
    value, but they never count as a value shared by households (they tell
    nothing about the area).
    """
    na_code = -1
    plain = isinstance(series.dtype, np.dtype) and series.dtype.kind in "iub"
    values = series.to_numpy() if plain else None
    if values is not None and len(values):
        lo, hi = int(values.min()), int(values.max())
        if hi - lo < max(1 << 16, 4 * len(values)):
            codes = values.astype(np.int64) - lo
            n = hi - lo + 1
        else:
            raw, uniq = pd.factorize(values)
            codes, n = np.asarray(raw, dtype=np.int64), len(uniq)
    else:
        from microsdc.data.hashable import factorize_any

        codes, n = factorize_any(series)  # lists and dicts by their contents
        if (codes < 0).any():
            codes = np.where(codes < 0, n, codes)
            na_code = n
            n += 1
    if order is not None:
        codes = codes[order]
    return codes, max(n, 1), na_code


def _function_of_finest(codes: np.ndarray, hh: Households) -> bool:
    """One value in every finest area with >= 2 households, and not the same value in all.

    ``codes`` holds one code per household.
    """
    area = hh.area[-1]
    n_areas = hh.n_areas[-1]
    hh_per_area = np.bincount(area, minlength=n_areas)
    multi = hh_per_area >= 2
    if int((hh_per_area[multi] - 1).sum()) < MIN_EVIDENCE:
        return False
    rep = np.full(n_areas, -1, dtype=np.int64)
    rep[area] = codes
    bad = np.zeros(n_areas, dtype=bool)
    bad[area[codes != rep[area]]] = True
    if (bad & multi).any():
        return False
    values = rep[multi]
    return bool(values.min() != values.max())


def _finest_level_determined(codes: np.ndarray, n_codes: int, na_code: int, hh: Households) -> int:
    """Finest hierarchy level whose area is fixed by every value shared by >= 2 households.

    ``codes`` holds one code per household. -1 if the column determines no level
    (or the evidence is too thin).
    """
    hh_per_value = np.bincount(codes, minlength=n_codes)
    shared = hh_per_value >= 2
    if na_code >= 0:
        shared[na_code] = False
    if not shared.any() or int((hh_per_value[shared] - 1).sum()) < MIN_EVIDENCE:
        return -1
    found = -1
    for h, area in enumerate(hh.area):
        rep = np.full(n_codes, -1, dtype=np.int64)
        rep[codes] = area
        bad = np.zeros(n_codes, dtype=bool)
        bad[codes[area != rep[codes]]] = True
        if (bad & shared).any():
            break
        areas = rep[shared]
        if areas.min() == areas.max():
            break  # every shared value in one area: no information about the level
        found = h
    return found


def order_follows_geography(order: np.ndarray, hh: Households) -> tuple[int, int, float]:
    """Finest level whose areas form few runs when households are sorted by an id.

    Households ordered by ``order`` (positions into the household arrays) are
    read as a sequence of areas; a random order of ``n`` households gives about
    ``1 + (n - 1) (1 - sum p_a^2)`` runs. Returns (level, runs, expected runs)
    of the finest level with at most :data:`RUNS_SHARE` of the expected runs,
    or (-1, 0, 0.0).
    """
    n = len(order)
    found = (-1, 0, 0.0)
    if n < 2:
        return found
    for h, area in enumerate(hh.area):
        seq = area[order]
        runs = 1 + int(np.count_nonzero(seq[1:] != seq[:-1]))
        p = np.bincount(area, minlength=hh.n_areas[h]) / n
        expected = 1.0 + (n - 1) * (1.0 - float((p * p).sum()))
        if expected - 1.0 < MIN_RUNS or runs > RUNS_SHARE * expected:
            break
        found = (h, runs, expected)
    return found


def _id_order(series: pd.Series, rows: np.ndarray) -> np.ndarray | None:
    """Household order by an id-like column (first members' values), or None if not id-like."""
    values = series.iloc[rows]
    if values.isna().any() or values.nunique() < ID_SHARE * len(values):
        return None
    arr = values.to_numpy()
    try:
        return np.argsort(arr, kind="stable")
    except TypeError:  # values that cannot be ordered
        return None


def nested_columns(
    data: pd.DataFrame,
    hh: Households,
    hierarchy: list[Hashable],
    skip: list[Hashable],
) -> list[NestedColumn]:
    """Columns of ``data`` (other than ``skip``) that give back the geography of ``hierarchy``.

    Household-level columns are tested on one value per household (its first
    member's). A column that differs between the members of more than
    :data:`PERSON_LEVEL_SHARE` of households is a person-level column and is not
    tested: a swap leaves persons with their own values.
    """
    out: list[NestedColumn] = []
    if hh.n_households < 2:
        return out
    skipped = set(skip)
    for col in data.columns:
        if col in skipped:
            continue
        codes, n_codes, na_code = _codes(data[col], hh.order)
        per_hh = codes[hh.first]
        differs = codes != per_hh[hh.hh_of_row]
        if differs.any():
            varying = np.zeros(hh.n_households, dtype=bool)
            varying[hh.hh_of_row[differs]] = True
            if np.count_nonzero(varying) > PERSON_LEVEL_SHARE * hh.n_households:
                continue
        level = _finest_level_determined(per_hh, n_codes, na_code, hh)
        if level >= 0:
            out.append(
                NestedColumn(col, f"each of its values lies in one {hierarchy[level]!s} area")
            )
        elif _function_of_finest(per_hh, hh):
            out.append(NestedColumn(col, f"it takes one value in each {hierarchy[-1]!s} area"))
        else:
            rows = hh.first if hh.order is None else hh.order[hh.first]
            order = _id_order(data[col], rows)
            if order is not None:
                lv, runs, expected = order_follows_geography(order, hh)
                if lv >= 0:
                    out.append(
                        NestedColumn(
                            col,
                            f"sorted by it, households form {runs:,} runs of {hierarchy[lv]!s} "
                            f"areas where a random order gives about {expected:,.0f}",
                        )
                    )
    return out
