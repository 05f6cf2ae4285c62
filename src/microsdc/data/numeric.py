"""Numeric columns and weights of the continuous methods, checked once: numbers, finite,
and small enough that their squares and sums do not overflow."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd

from microsdc.exceptions import DataValidationError

__all__ = ["LARGEST", "numeric_columns", "positive_weights"]

#: The largest magnitude accepted: sums of squares of a million such values stay finite.
LARGEST = 1e150


def numeric_columns(df: pd.DataFrame, cols: list[Hashable], func: str, why: str) -> np.ndarray:
    """``df[cols]`` as a float array of shape (n_rows, n_columns), NaN for missing.

    Raises
    ------
    DataValidationError
        For a column that is not numeric (``why`` says what the method does with
        numbers), or that holds an infinite value or one beyond ``LARGEST``, naming the
        column, the row and the fix.
    """
    out = np.empty((len(df), len(cols)))
    for j, c in enumerate(cols):
        series = _as_numbers(df[c])
        if pd.api.types.is_bool_dtype(series.dtype) or not pd.api.types.is_numeric_dtype(
            series.dtype
        ):
            sample = series.dropna().iloc[:1].tolist()
            raise DataValidationError(
                f"Column {c!r} passed to {func} holds {series.dtype} values such as "
                f"{sample[0] if sample else None!r}; {why}. Leave it out, or make every value "
                "a number (or missing).",
                func=func,
                param="columns",
            )
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        bad = np.isinf(values) | (np.abs(np.nan_to_num(values)) > LARGEST)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DataValidationError(
                f"Column {c!r} passed to {func} holds {float(values[i])!r} in row {df.index[i]!r}: "
                f"values must be finite and at most {LARGEST:g} in size. Set infinite values "
                "to missing, or rescale the column (thousands, millions).",
                func=func,
                param="columns",
            )
        out[:, j] = values
    return out


def _as_numbers(series: pd.Series) -> pd.Series:
    """A text column whose every value reads as a number ("12.50", "1e+05": numbers kept as
    text so that they are written as read) as those numbers; any other column as it is."""
    if pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype):
        return series
    if isinstance(series.dtype, pd.CategoricalDtype):
        return series
    values = pd.to_numeric(series, errors="coerce")
    if (values.isna() & series.notna()).any():
        return series
    return values


def positive_weights(df: pd.DataFrame, col: Hashable, func: str) -> np.ndarray:
    """The weight column as floats, every weight a finite number > 0.

    A weight of 0 would let one record's value stand for its group (a weighted mean of
    one), and sampling weights are positive.

    Raises
    ------
    DataValidationError
        Naming the column and the first row with a missing, non-finite, zero or negative
        weight, or naming a weight column held as texts that read as numbers.
    """
    from microsdc.data.quality import refuse_text_weights

    refuse_text_weights(df[col], repr(col), col, func)
    w = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(w) | (w <= 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataValidationError(
            f"The weight column {col!r} of {func} must hold a finite number > 0 in every "
            f"record; row {df.index[i]!r} holds {df[col].iloc[i]!r}.",
            func=func,
            param="weights",
        )
    return w
