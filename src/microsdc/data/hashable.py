"""Codes for columns whose values may be lists, dicts or arrays.

Methods that look at columns they do not change (the check that blanked cells can
be read back from another column, the check that a column gives back the swapped
geography) compare values. A column of lists or dicts (a Parquet or polars list or
struct column) cannot be factorised as it is; its values are compared by their
contents instead, so such a column is looked at like any other and never refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["factorize_any", "hashable_form"]


def hashable_form(value: Any) -> Any:
    """``value`` itself when it is hashable, else a hashable stand-in equal for equal
    contents: lists, tuples and arrays as tuples, sets as frozensets, dicts as sorted
    (key, value) tuples, anything else by its ``repr``."""
    try:
        hash(value)
        return value
    except TypeError:
        pass
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, list | tuple):
        return ("list", tuple(hashable_form(v) for v in value))
    if isinstance(value, Set):
        return ("set", frozenset(hashable_form(v) for v in value))
    if isinstance(value, Mapping):
        items = [(hashable_form(k), hashable_form(v)) for k, v in value.items()]
        try:
            items.sort()
        except TypeError:
            items.sort(key=repr)
        return ("dict", tuple(items))
    return ("repr", type(value).__name__, repr(value))


def factorize_any(series: pd.Series) -> tuple[np.ndarray, int]:
    """``pandas.factorize`` codes of ``series`` (-1 for missing) and the number of
    distinct values; unhashable values are compared by :func:`hashable_form`."""
    try:
        codes, uniques = pd.factorize(series, sort=False, use_na_sentinel=True)
    except TypeError:
        codes, uniques = pd.factorize(
            series.map(hashable_form, na_action="ignore"), sort=False, use_na_sentinel=True
        )
    return np.asarray(codes, dtype=np.int64), len(uniques)
