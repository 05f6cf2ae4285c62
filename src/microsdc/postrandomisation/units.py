"""Encoding a PRAM unit (a column or a group) to category codes, and writing codes back."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from microsdc.encode import combine_codes, encode_column

__all__ = ["EncodedUnit", "decode_column", "encode_unit", "is_ordered"]


@dataclass(frozen=True)
class EncodedUnit:
    """Codes of one unit: ``codes[i]`` in ``0 .. L-1``, or -1 when the record is not PRAMmed
    for a missing value (``missing="keep"``)."""

    codes: np.ndarray
    labels: pd.Index  # the L categories (tuples for a group; NaN for the missing state)
    members: np.ndarray  # shape (L, n_columns): each category's code in each column
    column_codes: list[np.ndarray]  # the columns' own codes, -1 = missing
    column_categories: list[pd.Index]


def encode_unit(df: pd.DataFrame, columns: tuple[Hashable, ...], state: bool) -> EncodedUnit:
    """Encode ``columns`` of ``df`` as one categorical unit.

    A group's categories are the combinations of values that occur. Under ``state`` a
    missing value is a category of its own (the last for a single column; a combination
    may hold it in some columns); otherwise a record with a missing value gets -1.
    """
    col_codes, col_cats = [], []
    for c in columns:
        codes, cats = encode_column(df[c])
        col_codes.append(codes)
        col_cats.append(cats)
    stack = np.column_stack(col_codes) if col_codes else np.empty((len(df), 0), np.int32)
    any_missing = (stack < 0).any(axis=1)
    if len(columns) == 1 and not state:
        members = np.arange(len(col_cats[0]), dtype=np.int64)[:, None]
        return EncodedUnit(col_codes[0], col_cats[0], members, col_codes, col_cats)
    key = combine_codes(stack, np.array([len(c) for c in col_cats], dtype=np.int64))
    use = np.ones(len(df), dtype=bool) if state else ~any_missing
    uniq, inverse = np.unique(key[use], return_inverse=True)
    codes = np.full(len(df), -1, dtype=np.int64)
    codes[use] = inverse
    first = np.zeros(len(uniq), dtype=np.int64)
    first[inverse[::-1]] = np.flatnonzero(use)[::-1]
    members = stack[first].astype(np.int64)
    labels = _labels(members, col_cats)
    return EncodedUnit(codes, labels, members, col_codes, col_cats)


def _labels(members: np.ndarray, cats: list[pd.Index]) -> pd.Index:
    values = [[cats[j][c] if c >= 0 else np.nan for c in members[:, j]] for j in range(len(cats))]
    if len(cats) == 1:
        return pd.Index(values[0], dtype=object if (members < 0).any() else cats[0].dtype)
    return pd.MultiIndex.from_arrays(values) if len(members) else pd.Index([], dtype=object)


def decode_column(
    original: pd.Series, codes: np.ndarray, new_codes: np.ndarray, categories: pd.Index
) -> pd.Series:
    """``original`` with the records whose code changed set to their new category.

    ``codes`` are the column's own codes (-1 = missing); ``new_codes`` the released ones.
    A categorical column stays categorical with the same categories; any other column
    keeps its values where nothing changed (a new missing value is the column's NA).
    """
    changed = codes != new_codes
    if not changed.any():
        return original.copy()
    if isinstance(original.dtype, pd.CategoricalDtype):
        cat = pd.Categorical.from_codes(new_codes, dtype=original.dtype)
        return pd.Series(cat, index=original.index, name=original.name)
    pos = np.flatnonzero(changed)
    if (new_codes[pos] >= 0).all():
        values = categories.take(new_codes[pos])
        if not isinstance(original.dtype, pd.api.extensions.ExtensionDtype):
            arr = original.to_numpy(copy=True)
            try:
                arr[pos] = np.asarray(values, dtype=arr.dtype)
                return pd.Series(arr, index=original.index, name=original.name)
            except (TypeError, ValueError):
                pass
        else:
            out = original.copy()
            try:
                out.iloc[pos] = np.asarray(values, dtype=object)
                return out
            except (TypeError, ValueError):
                pass
    taken = categories.take(np.where(changed, new_codes, 0), allow_fill=True, fill_value=None)
    fill = pd.Series(np.asarray(taken, dtype=object), index=original.index)
    fill[changed & (new_codes < 0)] = None
    obj = original.astype(object).mask(changed, fill)
    try:
        return obj.astype(original.dtype)
    except (TypeError, ValueError):
        return obj.infer_objects()


def is_ordered(column: pd.Series) -> bool:
    """Whether the values have an order to take neighbours in."""
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return bool(dtype.ordered)
    api = pd.api.types
    return bool(
        (api.is_numeric_dtype(dtype) and not api.is_bool_dtype(dtype))
        or api.is_datetime64_any_dtype(dtype)
    )
