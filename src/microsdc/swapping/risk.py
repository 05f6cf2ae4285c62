"""Default household risk of record swapping: k-anonymity counts per hierarchy level.

For each level ``h`` every person is counted with the persons sharing its values
of the risk variables and its geography down to level ``h`` (the hierarchy
prefix). A person's risk is ``1 / count``; a household's risk is the maximum over
its members, i.e. ``1 / (smallest count among its members)``.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from microsdc.backends.dispatch import accepts_frames
from microsdc.swapping._prepare import DENSE_LIMIT, Households, prepare_households, row_codes

__all__ = ["household_min_counts", "level_risk"]


def household_min_counts(rv_code: np.ndarray, n_rv: int, hh: Households) -> np.ndarray:
    """Smallest person count of each household at each level.

    Parameters
    ----------
    rv_code : ndarray of shape (n_rows,), int64
        Combined code of the risk variables of each hid-sorted row.
    n_rv : int
        Number of possible values of ``rv_code``.
    hh : Households
        Household structure and area codes from :func:`prepare_households`.

    Returns
    -------
    ndarray of shape (n_households, n_levels), int64
        ``out[i, h]`` = min over members of household ``i`` of the number of persons
        sharing the member's risk variables and level-``h`` area.
    """
    n_levels = len(hh.area)
    out = np.empty((hh.n_households, n_levels), dtype=np.int64)
    if hh.n_households == 0:
        return out
    for h in range(n_levels):
        key = rv_code * hh.n_areas[h] + hh.area[h][hh.hh_of_row]
        n_cells = n_rv * hh.n_areas[h]
        if n_cells <= DENSE_LIMIT and n_cells <= 8 * len(key) + 1024:
            counts = np.bincount(key, minlength=n_cells)
            per_row = counts[key]
        else:
            codes, uniques = pd.factorize(key)
            per_row = np.bincount(codes, minlength=len(uniques))[codes]
        out[:, h] = np.minimum.reduceat(per_row, hh.first)
    return out


@accepts_frames()
def level_risk(
    data: pd.DataFrame,
    hid: Hashable,
    hierarchy: Any,
    risk_variables: Any,
) -> pd.DataFrame:
    """Household risk per hierarchy level, as :func:`record_swap` computes it by default.

    Parameters
    ----------
    data : pandas.DataFrame of shape (n_rows, n_columns)
        One row per person.
    hid : column name
        Household id.
    hierarchy : list of column names, coarsest first
    risk_variables : list of column names
        Variables an intruder may know (age band, sex, ...).

    Returns
    -------
    pandas.DataFrame of shape (n_rows, n_levels), float64
        Row-aligned with ``data`` (same index, same order); column ``h`` is named
        after ``hierarchy[h]`` and holds the household maximum of
        ``1 / count`` at level ``h``. Usable as the ``risk`` argument of
        :func:`record_swap` (with ``risk_threshold = 1 / k``), which then gives the
        same result as the default k-anonymity risk.

    Raises
    ------
    ColumnNotFoundError
        If a column is not in ``data``.
    DataValidationError
        If a used column holds missing values, or a household spans several areas.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"hid": [1, 1, 2], "region": [1, 1, 2], "sex": [1, 2, 1]})
    >>> level_risk(df, "hid", ["region"], ["sex"])["region"].tolist()
    [1.0, 1.0, 1.0]
    """
    from microsdc.swapping._checks import check_missing, resolve_columns

    func = "level_risk"
    hid_col = resolve_columns(data, hid, "hid", single=True, func=func)[0]
    hier = resolve_columns(data, hierarchy, "hierarchy", func=func)
    rvars = resolve_columns(data, risk_variables, "risk_variables", func=func)
    check_missing(data, {c: "a key column" for c in [hid_col, *hier, *rvars]})
    hh = prepare_households(data, hid_col, hier)
    rv_code, n_rv = row_codes(data, rvars, hh)
    risk_sorted = 1.0 / household_min_counts(rv_code, n_rv, hh)[hh.hh_of_row]
    if hh.order is None:
        values = risk_sorted
    else:
        values = np.empty_like(risk_sorted)
        values[hh.order] = risk_sorted
    return pd.DataFrame(values, index=data.index, columns=pd.Index(hier))
