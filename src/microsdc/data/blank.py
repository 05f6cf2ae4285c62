"""Write blanked cells back into a copy of the caller's frame, keeping dtypes."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["blank_cells", "nullable"]

_NULLABLE_INT: dict[str, Any] = {
    "int8": "Int8",
    "int16": "Int16",
    "int32": "Int32",
    "int64": "Int64",
    "uint8": "UInt8",
    "uint16": "UInt16",
    "uint32": "UInt32",
    "uint64": "UInt64",
}


def nullable(series: pd.Series) -> pd.Series:
    """``series`` in a dtype that can hold a missing value without changing its values.

    NumPy integers become the matching nullable integer (``int64`` -> ``Int64``),
    NumPy booleans become ``boolean``; every other dtype is returned as it is
    (floats, strings, objects, categoricals, datetimes and nullable types hold
    missing values already).
    """
    name = str(series.dtype)
    if name in _NULLABLE_INT:
        return series.astype(_NULLABLE_INT[name])
    if name == "bool":
        boolean: Any = "boolean"
        return series.astype(boolean)
    return series


def blank_cells(df: pd.DataFrame, columns: Sequence[Hashable], blank: np.ndarray) -> pd.DataFrame:
    """A copy of ``df`` with the cells ``blank[i, j]`` of ``columns[j]`` set to missing.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n, p)
        Never modified.
    columns : sequence of column names, length m
    blank : ndarray of shape (n, m), bool

    Returns
    -------
    pandas.DataFrame
        Same index, columns and column order. A column with at least one
        blanked cell changes dtype only if it could not hold a missing value
        (see :func:`nullable`); other columns keep their dtype and values.
    """
    out = df.copy()
    for j, col in enumerate(columns):
        cells = np.asarray(blank[:, j], dtype=bool)
        if not cells.any():
            continue
        pos = int(out.columns.get_indexer(pd.Index([col], dtype=object))[0])
        series = nullable(out.iloc[:, pos])
        out.isetitem(pos, series.mask(cells))  # type: ignore[arg-type]
    return out
