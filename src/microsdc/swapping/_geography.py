"""Columns that give the geography back after a swap.

A swap gives a household another household's hierarchy values. A column left
in place that is a function of the geography (an area name, a finer geography
such as a municipality below the finest level, a code embedding the area) still
tells the original area of every swapped household. Three tests find them, the
first in linear time on integer codes, the second with one sort of (value, area)
pairs per level, the third with one sort of the households per id-like column:

* **function of the geography**: the column takes one value inside every area
  of the finest level that holds at least two households, and differs between
  such areas (area names, codes of coarser levels, region-level figures);
* **gives back a level**: read from the column, the area of at least
  :data:`SHARE` of the households (half) is right, by the rule of
  :mod:`microsdc.risk.readback` (the other households with the same value lie
  in its area so often that the guess is wrong at most a quarter as often as a
  blind one, and not by accident; rare values count, so one name shared by two
  towns in different regions, or a postcode that is wrong for 1 % of
  households, does not hide the others). The finest such level is reported;
* **order follows the geography** (id-like columns, distinct for half the
  households or more, and the household ids): sorted by the column,
  households visit the areas in at most half the runs a random order gives
  (codes such as ``"<area>-<serial>"``, households numbered area by area).

The first test needs evidence: at least :data:`MIN_EVIDENCE` households beyond
the first in the areas it relies on, so that a household-level column of a
small frame (one household per area) is not taken for geography by chance; the
second has its own chance test.
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
    "SHARE",
    "NestedColumn",
    "levels_given_back",
    "nested_columns",
    "order_follows_geography",
]

#: Households beyond the first per group needed before a column is called geography.
MIN_EVIDENCE = 10

#: A column that gives back the area of this share of households stops the swap: a
#: geography (names, codes, postcodes) gives back nearly all; a household variable that
#: merely varies with the area (roof, electricity by urban/rural) less, and is what the
#: similarity profiles are for.
SHARE = 0.5

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


def levels_given_back(codes: np.ndarray, na_code: int, hh: Households) -> tuple[int, float]:
    """Finest hierarchy level whose area the column gives back for :data:`SHARE` of households.

    ``codes`` holds one code per household. Each household is judged as if it
    were swapped, by the rule of :mod:`microsdc.risk.readback`: the other
    households with its value of the column lie in its area so often that
    reading the area from the column is wrong at most a quarter as often as a blind
    guess of that area, and the agreement is no accident. Returns (level,
    share of households) or (-1, 0.0).
    """
    from microsdc.risk.readback import given_back

    c = np.where(codes == na_code, -1, codes) if na_code >= 0 else codes
    seen = c >= 0
    found = (-1, 0.0)
    n = len(c)
    if not n:
        return found
    for h, area in enumerate(hh.area):
        got = given_back(c[seen], area[seen], area, c, area, seen)
        share = float(np.count_nonzero(got)) / n
        if share >= SHARE:
            found = (h, share)
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
        codes, _, na_code = _codes(data[col], hh.order)
        per_hh = codes[hh.first]
        differs = codes != per_hh[hh.hh_of_row]
        if differs.any():
            varying = np.zeros(hh.n_households, dtype=bool)
            varying[hh.hh_of_row[differs]] = True
            if np.count_nonzero(varying) > PERSON_LEVEL_SHARE * hh.n_households:
                continue
        level, share = levels_given_back(per_hh, na_code, hh)
        if level >= 0:
            out.append(
                NestedColumn(
                    col,
                    f"it gives back the {hierarchy[level]!s} area of {share:.1%} of households",
                )
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
