"""The label of merged categories, and one type per recoded column.

A column that holds numbers and texts together (codes ``1``, ``2`` and the label
``"other"``) cannot be written to Parquet, SPSS or Stata, and a CSV file would
write it as text anyway. A recoding therefore gives one type: the label of the
column's kind keeps its dtype; a label of another kind turns the codes into text.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["as_text", "default_other_label", "fits"]


def _numeric(series: pd.Series) -> bool:
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return _numeric(pd.Series(dtype.categories))
    return bool(pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype))


def default_other_label(series: pd.Series) -> Any:
    """``"other"``, or for numeric codes the next integer above the largest observed
    (categories, for a categorical)."""
    if not _numeric(series):
        return "other"
    values = (
        pd.Series(series.dtype.categories)
        if isinstance(series.dtype, pd.CategoricalDtype)
        else series
    )
    top = pd.to_numeric(values, errors="coerce").max()
    if pd.isna(top) or not math.isfinite(float(top)):
        return "other"
    return math.floor(float(top)) + 1


def fits(series: pd.Series, label: Any) -> bool:
    """Whether ``label`` is of the kind of the values of ``series``: a number for
    numeric codes (an integer for integer codes), a text for text, a boolean for
    booleans."""
    dtype = series.dtype
    if isinstance(label, bool | np.bool_):
        return bool(pd.api.types.is_bool_dtype(dtype))
    if _numeric(series):
        if not isinstance(label, numbers.Real):
            return False
        if pd.api.types.is_integer_dtype(dtype):
            return float(label).is_integer()
        return True
    if isinstance(label, str):
        if pd.api.types.is_string_dtype(dtype) and dtype is not np.dtype(object):
            return True
        kind = pd.api.types.infer_dtype(series, skipna=True)
        return kind in ("string", "empty")
    return False


def _text(value: Any) -> str:
    """A value as a file writes it, integral floats without ``.0`` (codes read as floats
    because of a missing value stay ``1``, not ``1.0``)."""
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    return str(value)


def as_text(series: pd.Series) -> pd.Series:
    """``series`` as text, missing values kept missing (object dtype)."""
    missing = series.isna().to_numpy(dtype=bool)
    out = pd.Series(
        [None if m else _text(v) for v, m in zip(series.astype(object), missing, strict=True)],
        index=series.index,
        name=series.name,
        dtype=object,
    )
    out[missing] = np.nan
    return out
