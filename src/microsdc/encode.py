"""Quasi-identifier columns to small integer codes, with one missing code (-1).

Every counting routine of microsdc works on the output of :func:`encode_qis`:
an ``(n_rows, n_qis)`` int32 matrix of category codes where -1 marks a missing
value, plus the categories needed to decode them. Missing values are normalised
here, once: ``NaN``, ``None``, ``pd.NA``, ``NaT`` and any user-declared missing
codes (such as ``-999``, ``""`` or ``"NA"``).
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.warn import warn
from microsdc._kernels.keys import combine_codes
from microsdc._validation import (
    check_bool,
    check_columns,
    check_frame,
    check_missing_values,
    check_missing_values_columns,
    param_error,
)
from microsdc.data.spellings import warn_mixed_spellings
from microsdc.data.written import split_written
from microsdc.exceptions import (
    DataValidationError,
    DisclosureRiskWarning,
    HighCardinalityWarning,
)

__all__ = [
    "HIGH_CARDINALITY",
    "EncodedQIs",
    "MissingValues",
    "combine_codes",
    "encode_column",
    "encode_qis",
    "missing_mask",
    "warn_all_missing",
]

#: Number of distinct values from which a quasi-identifier is reported as looking continuous.
HIGH_CARDINALITY = 1000

MissingValues = Sequence[Any] | Mapping[Hashable, Sequence[Any]] | None


@dataclass(frozen=True)
class EncodedQIs:
    """Quasi-identifiers as integer codes.

    Attributes
    ----------
    codes : numpy.ndarray of shape (n_rows, n_qis), dtype int32
        Category code of each cell; -1 marks a missing value. Fortran-ordered so
        that one column is contiguous.
    columns : list
        The quasi-identifier names, in the order of ``codes``' columns.
    categories : list of pandas.Index
        ``categories[j][c]`` is the original value behind code ``c`` of column ``j``.
        Values that are equal but written differently in a file (``-0.0`` and
        ``0.0``; ``1``, ``1.0`` and ``True`` in an object column) are separate
        categories, so an index may hold values equal to each other.
    index : pandas.Index
        Row labels of the encoded frame.
    """

    codes: np.ndarray
    columns: list[Hashable]
    categories: list[pd.Index]
    index: pd.Index

    @property
    def n_rows(self) -> int:
        return int(self.codes.shape[0])

    @property
    def n_categories(self) -> np.ndarray:
        """Number of categories of each column (missing not included), int64 array."""
        return np.array([len(c) for c in self.categories], dtype=np.int64)

    @property
    def missing(self) -> np.ndarray:
        """Boolean matrix of shape (n_rows, n_qis), True where a value is missing."""
        return self.codes < 0

    def decode(self) -> pd.DataFrame:
        """The encoded columns as a frame of original values (missing as ``NaN``)."""
        out: dict[int, Any] = {}
        for j in range(len(self.columns)):
            cats = self.categories[j]
            if cats.is_unique:
                out[j] = pd.Categorical.from_codes(self.codes[:, j], categories=cats)
            else:  # values equal but written apart (-0.0 and 0.0): each as it is
                codes = self.codes[:, j]
                values = np.full(len(codes), np.nan, dtype=object)
                values[codes >= 0] = np.asarray(cats.astype(object))[codes[codes >= 0]]
                out[j] = values
        frame = pd.DataFrame(out, index=self.index)
        frame.columns = pd.Index(self.columns, dtype=object)
        return frame


def warn_all_missing(column: Hashable) -> None:
    """Warn (:class:`DisclosureRiskWarning`) that the key variable ``column`` is missing in
    every record.

    Such a column tells no record apart (it matches every record as a wildcard, or
    puts all in one category), which is seldom what was meant: a wrong column,
    separator or missing-value code is the usual cause, and the risk is then
    measured without a key variable the release may hold. The warning points at the
    first line outside microsdc that led here.
    """
    warn(
        f"key variable {column!r} is missing in every record, so it tells no record apart; "
        "check the column name, the separator and the missing-value codes.",
        DisclosureRiskWarning,
    )


def missing_values_for(missing_values: MissingValues, column: Hashable) -> list[Any]:
    """The extra missing-value codes of ``column``: those listed for it when
    ``missing_values`` is a mapping, else ``missing_values`` itself (a scalar as a list)."""
    if missing_values is None:
        return []
    if isinstance(missing_values, Mapping):
        vals = missing_values.get(column, [])
    else:
        vals = missing_values
    if isinstance(vals, str | bytes) or not isinstance(vals, Iterable):
        return [vals]
    return list(vals)


def missing_mask(series: pd.Series, missing_values: Sequence[Any] = ()) -> np.ndarray:
    """Boolean array, True where ``series`` holds a missing value.

    Parameters
    ----------
    series : pandas.Series of length n
    missing_values : sequence, default ()
        Extra values that mean "missing" (e.g. ``-999``, ``""``, ``"NA"``).

    Returns
    -------
    numpy.ndarray of shape (n,), dtype bool

    Notes
    -----
    Declared codes are compared by value, not by type: a number matches the
    same number written as text (``-999`` matches ``"-999"`` and
    ``"-999.0"``, ``99`` matches ``99.0``) and a code given as text that reads
    as a number matches that number. Text with leading zeros (``"099"``) is a
    code, not a number, and matches only itself. Other text matches exactly but for
    spaces around it (``"?"`` matches ``" ?"`` of the UCI adult file; ``"NA"`` does
    not match ``"na"``); booleans match booleans only.

    Examples
    --------
    >>> import pandas as pd
    >>> missing_mask(pd.Series(["1", "-999", None, "-999.0"]), [-999]).tolist()
    [False, True, True, True]
    >>> missing_mask(pd.Series([1.0, 99.0, 3.0]), ["99"]).tolist()
    [False, True, False]
    """
    mask = np.asarray(series.isna(), dtype=bool)
    targets = {_canon(v) for v in missing_values if not is_na_scalar(v)}
    targets.discard(None)
    if targets and len(series):
        values = series.astype(object) if isinstance(series.dtype, pd.CategoricalDtype) else series
        if values.dtype == object:  # by value and type (factorize would merge True and 1)
            seen: dict[Any, bool] = {}
            hits = []
            for v in values:
                try:
                    key = (type(v), v)
                    hit = seen.get(key)
                    if hit is None:
                        hit = seen[key] = _canon(v) in targets
                except TypeError:  # unhashable value
                    hit = False
                hits.append(hit)
            mask = mask | np.array(hits, dtype=bool)
        else:
            codes, uniques = pd.factorize(values, use_na_sentinel=True)
            found = np.array([_canon(u) in targets for u in uniques] + [False], dtype=bool)
            mask = mask | found[np.asarray(codes)]
    return mask


#: Text that reads as a number: no sign other than "-", no leading zeros ("007" stays text).
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?")


def _canon(v: Any) -> Any:
    """A comparison key under which 99, 99.0, "99" and "99.0" are equal (None if unusable)."""
    if isinstance(v, bool | np.bool_):
        return ("b", bool(v))
    if isinstance(v, numbers.Real):
        f = float(v)
        return None if f != f else ("n", f)
    if isinstance(v, str):
        text = v.strip()
        if _NUMBER.fullmatch(text):
            return ("n", float(text))
        return ("s", text)
    try:
        hash(v)
    except TypeError:
        return None
    return ("o", v)


def is_na_scalar(v: Any) -> bool:
    """Whether ``v`` is one missing value (``None``, NaN, ``NaT``, ``pd.NA``); False for a
    list or any value ``pandas.isna`` cannot judge as one."""
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def encode_column(
    series: pd.Series, missing_values: Sequence[Any] = ()
) -> tuple[np.ndarray, pd.Index]:
    """Encode one column as int32 codes with -1 for missing values.

    Parameters
    ----------
    series : pandas.Series of length n
        Any dtype: numbers, strings, booleans, nullable extension types,
        categoricals (unused categories are kept in the dictionary but never
        counted), datetimes, or mixed objects.
    missing_values : sequence, default ()
        Extra values treated as missing, besides NaN, None, pd.NA and NaT.

    Returns
    -------
    codes : numpy.ndarray of shape (n,), dtype int32
    categories : pandas.Index
        The value of each code. Sorted when the values can be ordered,
        otherwise in order of first appearance.

    Raises
    ------
    DataValidationError
        If the column holds values that cannot be compared (lists, dicts).
    """
    extra = [v for v in missing_values if not is_na_scalar(v)]
    if isinstance(series.dtype, pd.CategoricalDtype):
        codes = np.asarray(series.cat.codes, dtype=np.int32).copy()
        cats = pd.Index(series.cat.categories)
    else:
        try:
            codes_raw, cats = pd.factorize(series, sort=True, use_na_sentinel=True)
        except TypeError:  # values that cannot be ordered (mixed types)
            try:
                codes_raw, cats = pd.factorize(series, sort=False, use_na_sentinel=True)
            except TypeError as exc:  # values that cannot be compared at all (lists, dicts)
                bad = next((v for v in series if not _hashable(v)), None)
                raise DataValidationError(
                    f"Column {series.name!r} holds values that cannot be compared, such as "
                    f"{bad!r} ({type(bad).__name__}): a key variable holds one category per "
                    "record (a number, a text, a date)."
                ) from exc
        codes = np.asarray(codes_raw, dtype=np.int32)
        cats = pd.Index(cats)
        # values equal to each other but written differently (-0.0 and 0.0; 1, 1.0
        # and True in an object column) are apart in a released file: count them apart
        codes, cats = split_written(series, codes, cats)
        if series.dtype == object:
            warn_mixed_spellings(series.name, list(cats))
    if extra:
        drop = np.asarray(missing_mask(pd.Series(cats, dtype=cats.dtype), extra), dtype=bool)
        if drop.any():
            remap = np.full(len(cats) + 1, -1, dtype=np.int32)
            keep = np.flatnonzero(~drop)
            remap[keep] = np.arange(len(keep), dtype=np.int32)
            codes = remap[codes]  # -1 indexes the last slot, which is -1
            cats = cats[keep]
    return codes, cats


def encode_qis(
    df: pd.DataFrame,
    qi: Any,
    *,
    missing_values: MissingValues = None,
    func: str = "encode_qis",
    warn_cardinality: bool = True,
) -> EncodedQIs:
    """Encode the quasi-identifiers of ``df`` as an integer code matrix.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        Never modified.
    qi : list of column names
        The quasi-identifiers (key variables). A single name is accepted.
    missing_values : sequence or dict, optional
        Values that mean "missing" besides NaN, None, pd.NA and NaT: one
        sequence for every QI, or a dict ``{column: sequence}``.
    func : str, default "encode_qis"
        Name of the public function, used in error messages.
    warn_cardinality : bool, default True
        Warn (``HighCardinalityWarning``) for a QI with ``HIGH_CARDINALITY`` or
        more distinct values.

    Returns
    -------
    EncodedQIs

    Warns
    -----
    DisclosureRiskWarning
        For each QI missing in every record (of a frame with records), naming
        it (:func:`warn_all_missing`).
    HighCardinalityWarning
        See ``warn_cardinality``.

    Raises
    ------
    InvalidParameterError
        If ``df`` is not a DataFrame, ``qi`` is empty or names a column twice.
    DataValidationError
        If ``df`` has duplicate column names, or a QI holds values that cannot
        be compared (lists, dicts), naming the column and one such value.
    ColumnNotFoundError
        Naming every QI that is not a column of ``df``.

    Examples
    --------
    >>> import pandas as pd
    >>> enc = encode_qis(pd.DataFrame({"a": ["x", None, "y", -999]}), ["a"], missing_values=[-999])
    >>> enc.codes[:, 0].tolist(), list(enc.categories[0])
    ([0, -1, 1, -1], ['x', 'y'])
    """
    if not isinstance(func, str):
        raise param_error("func", "encode_qis", "a str", func)
    check_frame(df, "df", func)
    cols = check_columns(df, qi, "quasi_identifiers", func)
    check_missing_values(missing_values, "missing_values", func)
    check_bool(warn_cardinality, "warn_cardinality", func)
    check_missing_values_columns(missing_values, df.columns, func)
    n = len(df)
    codes = np.empty((n, len(cols)), dtype=np.int32, order="F")
    categories = []
    for j, c in enumerate(cols):
        col_codes, cats = encode_column(df[c], missing_values_for(missing_values, c))
        codes[:, j] = col_codes
        categories.append(cats)
        if n and not (col_codes >= 0).any():
            warn_all_missing(c)
        if warn_cardinality and len(cats) >= HIGH_CARDINALITY:
            warn(
                f"Quasi-identifier {c!r} has {len(cats):,} distinct values; it looks continuous "
                "and makes almost every record unique. Bin it first "
                "(microsdc.bin_numeric, or --bin on the command line).",
                HighCardinalityWarning,
            )
    return EncodedQIs(codes=codes, columns=cols, categories=categories, index=df.index)
