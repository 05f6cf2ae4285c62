"""Utility figures after record swapping: who moved, and how much the tables changed."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from microsdc.backends.dispatch import accepts_frames
from microsdc.exceptions import DataValidationError

__all__ = ["SwapUtility", "swap_utility"]


def _in_household_order(frame: pd.DataFrame, hid: Hashable, name: str) -> tuple[pd.DataFrame, Any]:
    """``frame`` in the household order of the swap (see ``household_order``), and its keys."""
    from microsdc.swapping._prepare import household_order

    blank = frame[hid].isna().to_numpy()
    n_missing = int(blank.sum())
    if n_missing:
        raise DataValidationError(
            f"Column {hid!r} of the '{name}' frame of swap_utility has missing household ids "
            f"in {n_missing} row(s) (first rows: {list(frame.index[blank][:5])}).",
            func="swap_utility",
        )
    order, keys = household_order(frame[hid])
    return (frame if order is None else frame.take(order)), keys


def _same_hids(a: pd.Series, b: pd.Series) -> bool:
    """Same household ids row by row (categoricals compared by value, not by code)."""
    va = np.asarray(a.astype(object)) if isinstance(a.dtype, pd.CategoricalDtype) else a.to_numpy()
    vb = np.asarray(b.astype(object)) if isinstance(b.dtype, pd.CategoricalDtype) else b.to_numpy()
    return bool(np.array_equal(va, vb))


@dataclass(frozen=True)
class SwapUtility:
    """What a swap changed, per hierarchy level.

    Attributes
    ----------
    share_per_area : pandas.DataFrame
        One row per (level, area): ``level``, ``hierarchy`` (column name), ``area``
        (tuple of the hierarchy prefix, original geography), ``households``,
        ``households_swapped``, ``share_households``, ``persons``,
        ``persons_swapped``, ``share_persons``.
    share_per_level : pandas.DataFrame
        The same totals per level, with the mean and maximum share over areas.
    tables : dict
        Hierarchy column name -> frequency table of (hierarchy prefix x risk
        variables) with ``before``, ``after``, ``abs_diff`` (after - before) and
        ``rel_diff`` (abs_diff / before; NaN where before is 0).
    hellinger : pandas.DataFrame
        ``level``, ``hierarchy``, ``hellinger``: Hellinger distance between the
        before and after tables of that level,
        ``sqrt(sum((sqrt(p) - sqrt(q)) ** 2) / 2)`` with p, q the relative frequencies.
    """

    share_per_area: pd.DataFrame
    share_per_level: pd.DataFrame
    tables: dict[Hashable, pd.DataFrame]
    hellinger: pd.DataFrame


@accepts_frames(frames=("original", "swapped"))
def swap_utility(
    original: pd.DataFrame,
    swapped: pd.DataFrame,
    hid: Hashable,
    hierarchy: Any,
    risk_variables: Any,
) -> SwapUtility:
    """Compare data before and after :func:`~microsdc.swapping.record_swap`.

    Parameters
    ----------
    original : pandas.DataFrame of shape (n_rows, n_columns)
        The data given to the swap (any row order, any index).
    swapped : pandas.DataFrame of shape (n_rows, n_columns [+ 1])
        What the swap returned (any row order). Both frames are put in the
        swap's household order (hid order; categories in category order), so
        households line up for every hid type.
    hid : column name
    hierarchy : list of column names, coarsest first
    risk_variables : list of column names
        Variables crossed with each level in the frequency tables.

    Returns
    -------
    SwapUtility

    Raises
    ------
    ColumnNotFoundError
        If a column is missing from either frame.
    DataValidationError
        If the frames do not hold the same households in the same sizes, or a
        hid is missing.

    Notes
    -----
    A household counts as swapped when its geography (the hierarchy of its first
    member) changed; it is attributed to its original area. Missing values in
    the risk variables form their own category.

    Examples
    --------
    >>> from microsdc.datasets import synthetic_census
    >>> from microsdc.swapping import record_swap
    >>> df = synthetic_census(1000, seed=3)
    >>> out = record_swap(df, "hid", ["nuts1", "nuts2"], "hsize", swaprate=0.2,
    ...                   k_anonymity=0, risk_variables=["ageGroup"],
    ...                   carry_along=["nuts3", "lau2"], seed=3)
    >>> u = swap_utility(df, out, "hid", ["nuts1", "nuts2"], ["ageGroup"])
    >>> u.share_per_level["households_swapped"].tolist()
    [200, 200]
    """
    from microsdc.swapping._checks import resolve_columns

    func = "swap_utility"
    hid = resolve_columns(original, hid, "hid", single=True, func=func)[0]
    hier = resolve_columns(original, hierarchy, "hierarchy", func=func)
    rvars = resolve_columns(original, risk_variables, "risk_variables", allow_empty=True, func=func)
    resolve_columns(swapped, [hid, *hier, *rvars], "swapped", func=func)
    before, keys = _in_household_order(original, hid, "original")
    after, _ = _in_household_order(swapped, hid, "swapped")
    if len(before) != len(after) or not _same_hids(before[hid], after[hid]):
        raise DataValidationError(
            "The 'original' and 'swapped' frames of swap_utility do not hold the same "
            f"households: after sorting both by {hid!r}, the household ids differ "
            f"({len(before)} and {len(after)} rows).",
            func="swap_utility",
        )
    swapped = after
    first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    size = np.diff(np.r_[first, len(keys)])
    hid_vals = keys
    geo_b = before[hier].iloc[first].reset_index(drop=True)
    geo_a = swapped[hier].iloc[first].reset_index(drop=True)
    moved = (geo_b != geo_a).any(axis=1).to_numpy()

    per_area, per_level, tables, hell = [], [], {}, []
    for h, col in enumerate(hier):
        prefix = hier[: h + 1]
        g = geo_b[prefix].assign(_hh=1, _sw=moved.astype(int), _p=size, _ps=size * moved)
        agg = g.groupby(prefix, dropna=False, sort=True)[["_hh", "_sw", "_p", "_ps"]].sum()
        areas = pd.DataFrame(
            {
                "level": h,
                "hierarchy": col,
                "area": list(agg.index) if h else [(v,) for v in agg.index],
                "households": agg["_hh"].to_numpy(),
                "households_swapped": agg["_sw"].to_numpy(),
                "persons": agg["_p"].to_numpy(),
                "persons_swapped": agg["_ps"].to_numpy(),
            }
        )
        areas["share_households"] = areas["households_swapped"] / areas["households"]
        areas["share_persons"] = areas["persons_swapped"] / areas["persons"]
        per_area.append(areas)
        per_level.append(
            {
                "level": h,
                "hierarchy": col,
                "areas": len(areas),
                "households_swapped": int(moved.sum()),
                "share_households": float(moved.mean()) if len(moved) else 0.0,
                "persons_swapped": int((size * moved).sum()),
                "share_persons": float((size * moved).sum() / max(len(hid_vals), 1)),
                "mean_area_share_households": float(areas["share_households"].mean()),
                "max_area_share_households": float(areas["share_households"].max()),
            }
        )
        keys = [*prefix, *rvars]
        cnt_b = before.groupby(keys, dropna=False, observed=True).size().rename("before")
        cnt_a = swapped.groupby(keys, dropna=False, observed=True).size().rename("after")
        tab = pd.concat([cnt_b, cnt_a], axis=1).fillna(0).astype(np.int64).reset_index()
        tab["abs_diff"] = tab["after"] - tab["before"]
        with np.errstate(divide="ignore", invalid="ignore"):
            tab["rel_diff"] = np.where(
                tab["before"] > 0, tab["abs_diff"] / tab["before"].where(tab["before"] > 0), np.nan
            )
        tables[col] = tab
        n = max(len(before), 1)
        dist = np.sqrt(0.5 * np.sum((np.sqrt(tab["before"] / n) - np.sqrt(tab["after"] / n)) ** 2))
        hell.append({"level": h, "hierarchy": col, "hellinger": float(dist)})
    return SwapUtility(
        share_per_area=pd.concat(per_area, ignore_index=True),
        share_per_level=pd.DataFrame(per_level),
        tables=tables,
        hellinger=pd.DataFrame(hell),
    )
