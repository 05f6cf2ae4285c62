"""Values a count would merge but a file writes apart.

pandas (and every engine) compare values by equality: ``-0.0 == 0.0`` and, in an
object column, ``1 == 1.0 == True`` and ``Decimal("1") == Decimal("1.0")``. A
released file writes each as it is: ``-0.0`` and ``0.0``, ``1``, ``1.0`` and
``True`` are different texts (and different values in Parquet), so an intruder
tells them apart. Counting them as one category would report a record unique in
the file as having fk = 3. The counts therefore follow what is written: such
values are separate categories.

:func:`split_written` takes the codes of a column encoded by equality and splits
every category that merges values written differently. It looks only at columns
where that can happen (floats holding ``-0.0``; object columns mixing kinds of
numbers), so text and plain numeric columns cost nothing.
"""

from __future__ import annotations

import numbers
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["split_written", "written_key"]

#: object columns whose values cannot be equal yet written differently
_SAFE_KINDS = frozenset(
    {"string", "empty", "bytes", "integer", "boolean", "datetime", "date", "timedelta",
     "period", "interval", "categorical", "time"}
)  # fmt: skip


def written_key(value: Any) -> tuple[str, str]:
    """The kind of ``value`` and its text, as a writer keeps them apart: ``1``,
    ``1.0`` and ``True`` give three keys, ``1.0`` and ``numpy.float64(1.0)`` one."""
    if isinstance(value, bool | np.bool_):
        kind = "bool"
    elif isinstance(value, numbers.Integral):
        kind = "int"
    elif isinstance(value, Decimal):
        kind = "decimal"
    elif isinstance(value, numbers.Real):
        kind = "float"
    elif isinstance(value, str):
        kind = "str"
    else:
        kind = type(value).__name__
    return kind, str(value)


def _keys(series: pd.Series) -> np.ndarray | None:
    """A code per record that tells written forms apart (None when no two values of
    the column can be equal yet written differently)."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return None
    if dtype is np.dtype(object):
        kind = pd.api.types.infer_dtype(series, skipna=True)
        if kind in _SAFE_KINDS:
            return None
        if kind == "floating":  # only -0.0 can collide
            values = series.to_numpy(dtype=np.float64, na_value=np.nan)
            return _negative_zero(values)
        keys = series.map(written_key, na_action="ignore")
        return np.asarray(pd.factorize(keys, use_na_sentinel=True)[0], dtype=np.int64)
    if pd.api.types.is_float_dtype(dtype):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        return _negative_zero(values)
    return None


def _negative_zero(values: np.ndarray) -> np.ndarray | None:
    neg = (values == 0) & np.signbit(values)
    return neg.astype(np.int64) if neg.any() and (values[~neg] == 0).any() else None


def split_written(
    series: pd.Series, codes: np.ndarray, cats: pd.Index
) -> tuple[np.ndarray, pd.Index]:
    """``codes`` and ``cats`` of ``series`` (encoded by equality, -1 = missing) with
    every category that merges values written differently split into one category
    per written form.

    Each form is labelled by its own value (``-0.0`` and ``0.0``; ``1``, ``1.0`` and
    ``True``), so the categories can hold values equal to each other. Categories
    keep their order, the new ones right after the category they came from.
    """
    keys = _keys(series)
    if keys is None:
        return codes, cats
    valid = codes >= 0
    n_keys = int(keys.max()) + 1 if len(keys) else 1
    pairs = codes.astype(np.int64) * n_keys + np.where(keys >= 0, keys, 0)
    uniq, first, inverse = np.unique(pairs[valid], return_index=True, return_inverse=True)
    if len(uniq) == len(cats):
        return codes, cats
    rows = np.flatnonzero(valid)[first]
    labels = [series.iloc[int(r)] for r in rows]  # each form by its own first value
    out = np.full(len(codes), -1, dtype=np.int32)
    out[valid] = inverse.reshape(-1).astype(np.int32)
    kept = cats.dtype if pd.api.types.is_float_dtype(cats.dtype) else object
    return out, pd.Index(labels, dtype=kept)
