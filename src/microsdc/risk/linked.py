"""Columns that give back a key variable: linked ("ghost") variables.

A column that is not a key variable can still tell its value: ``education-num``
is a one-to-one code of ``education``, ``relationship = "Husband"`` says
``sex = "Male"``. Blanking ``education`` while releasing ``education-num``
protects nothing. sdcMicro calls such columns *ghost variables* and suppresses
them wherever their key variable is suppressed; :func:`local_suppression`
does the same with ``linked=``. The two functions here find such columns:
:func:`linked_columns` before suppression, :func:`recoverable_cells` after it.

The rule, for a key variable K and another column C: the value v of K of a
record can be *read from C* when the n other records that share the record's
value of C and show K agree with it (at least ``share`` of them show v), and
were C unrelated to K they would not: ``n * (1 - p_v) >= min_count``, p_v the
share of all records showing v. The second condition keeps chance agreement
of a few records on a common value (or an identifier) from counting.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from microsdc._validation import check_columns, check_frame, check_int, check_number
from microsdc.encode import MissingValues, encode_column
from microsdc.exceptions import InvalidParameterError

__all__ = ["linked_columns", "recoverable_cells"]

#: Default share of agreeing records above which a value counts as read back.
SHARE = 0.99
#: Default number of other records with the same value of the column needed.
MIN_COUNT = 10


def _missing_for(missing_values: MissingValues, column: Hashable) -> list[Any]:
    from microsdc.encode import _missing_values_for

    return _missing_values_for(missing_values, column)


def _readable(
    ref_c: np.ndarray,
    ref_k: np.ndarray,
    c: np.ndarray,
    k: np.ndarray,
    *,
    share: float,
    min_count: int,
    self_included: bool,
) -> np.ndarray:
    """For each target (value c, true value k) of a column C and a key K: readable from C?

    ``ref_c``/``ref_k`` are the codes of the records an intruder sees with
    both observed. ``self_included``: the targets are among those records and
    must not count themselves.
    """
    ok = (ref_c >= 0) & (ref_k >= 0)
    ref_c, ref_k = ref_c[ok].astype(np.int64), ref_k[ok].astype(np.int64)
    out = np.zeros(len(c), dtype=bool)
    if not len(ref_c) or not len(c):
        return out
    n_k = int(max(ref_k.max(), k.max(initial=0))) + 1
    per_c_vals, per_c = np.unique(ref_c, return_counts=True)
    pair_vals, pair = np.unique(ref_c * n_k + ref_k, return_counts=True)
    valid = (c >= 0) & (k >= 0)
    cc, kk = c[valid].astype(np.int64), k[valid].astype(np.int64)

    def lookup(keys: np.ndarray, values: np.ndarray, counts: np.ndarray) -> np.ndarray:
        pos = np.searchsorted(values, keys)
        pos = np.minimum(pos, len(values) - 1)
        return np.where(values[pos] == keys, counts[pos], 0)

    n = lookup(cc, per_c_vals, per_c)
    agree = lookup(cc * n_k + kk, pair_vals, pair)
    if self_included:
        n, agree = n - 1, agree - 1
    # were C unrelated to K, at least min_count of the n records would show another value:
    # a group that agrees by chance on a common value (base rate p) is not a read-back
    p = np.bincount(ref_k, minlength=n_k)[kk] / len(ref_k)
    enough = (n >= min_count) & (n * (1.0 - p) >= min_count)
    out[np.flatnonzero(valid)] = enough & (agree >= share * np.maximum(n, 1))
    return out


def _check(share: Any, min_count: Any, func: str) -> tuple[float, int]:
    s = check_number(share, "share", func, low=0.0, high=1.0, low_open=True)
    m = check_int(min_count, "min_count", func, min_value=1)
    return float(s), int(m)


def _others(df: pd.DataFrame, keys: list[Hashable], columns: Any, func: str) -> list[Hashable]:
    if columns is None:
        return [c for c in df.columns if c not in set(keys)]
    cols = check_columns(df, columns, "columns", func, allow_empty=True)
    both = [c for c in cols if c in set(keys)]
    if both:
        raise InvalidParameterError(
            f"The 'columns' parameter of {func} names key variables: "
            f"{', '.join(repr(c) for c in both)}."
        )
    return cols


def linked_columns(
    df: pd.DataFrame,
    key_variables: Sequence[Hashable],
    *,
    columns: Sequence[Hashable] | None = None,
    share: float = SHARE,
    min_count: int = MIN_COUNT,
    missing_values: MissingValues = None,
) -> pd.DataFrame:
    """Non-key columns from which the value of a key variable can be read.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        The data to be released. Never modified.
    key_variables : list of column names
        The key variables (quasi-identifiers).
    columns : list of column names, optional
        The columns to examine; default every column that is not a key
        variable.
    share : float in (0, 1], default 0.99
        Share of the other records with the same value of the column that
        must show the record's value of the key variable.
    min_count : int >= 1, default 10
        How many of the other records with the same value of the column would
        show another value of the key variable if the two were unrelated,
        at least, before agreement counts (see the module docstring); it keeps
        an identifier, a continuous column or a common value from counting.
    missing_values : sequence or dict, optional
        Codes that mean "missing" besides NaN/None/pd.NA/NaT.

    Returns
    -------
    pandas.DataFrame
        One row per (key variable, column) pair through which at least one
        record's value can be read, with columns ``key_variable``, ``column``,
        ``n_records`` (records whose key value can be read from the column,
        each judged against the other records) and ``share`` (of the records
        with both observed); sorted by decreasing ``n_records``.

    Raises
    ------
    InvalidParameterError
        For a bad ``share`` or ``min_count``, or ``columns`` naming a key
        variable.
    ColumnNotFoundError
        For unknown columns.

    Notes
    -----
    Such a column undoes local suppression: pass it to
    :func:`microsdc.local_suppression` as ``linked={key: [column]}`` (it is
    then blanked wherever the key variable is), recode it, or leave it out of
    the release.

    References
    ----------
    sdcMicro ``localSuppression`` and ``createSdcObj`` (``ghostVars``).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"educ": ["BA"] * 12 + ["MA"] * 12, "years": [16] * 12 + [18] * 12})
    >>> linked_columns(df, ["educ"]).values.tolist()
    [['educ', 'years', 24, 1.0]]
    """
    func = "linked_columns"
    check_frame(df, "df", func)
    keys = check_columns(df, key_variables, "key_variables", func)
    share, min_count = _check(share, min_count, func)
    others = _others(df, keys, columns, func)
    rows = []
    coded = {c: encode_column(df[c], _missing_for(missing_values, c))[0] for c in others}
    for key in keys:
        k = encode_column(df[key], _missing_for(missing_values, key))[0]
        for col in others:
            c = coded[col]
            both = (c >= 0) & (k >= 0)
            hit = _readable(c, k, c, k, share=share, min_count=min_count, self_included=True).sum()
            if hit:
                rows.append((key, col, int(hit), float(hit / both.sum())))
    out = pd.DataFrame(rows, columns=["key_variable", "column", "n_records", "share"])
    return out.sort_values("n_records", ascending=False, kind="stable").reset_index(drop=True)


def recoverable_cells(
    original: pd.DataFrame,
    released: pd.DataFrame,
    key_variables: Sequence[Hashable],
    *,
    columns: Sequence[Hashable] | None = None,
    share: float = SHARE,
    min_count: int = MIN_COUNT,
    missing_values: MissingValues = None,
) -> pd.DataFrame:
    """Blanked key-variable cells whose original value other released columns give back.

    Parameters
    ----------
    original, released : pandas.DataFrame
        The data before and after suppression: same index and row order.
        Never modified.
    key_variables : list of column names
        The key variables that were suppressed.
    columns : list of column names, optional
        Released columns to examine; default every released column that is
        not a key variable.
    share, min_count, missing_values
        As in :func:`linked_columns`, applied to the released data: a blanked
        cell is recoverable from a column when the released records that share
        its value of the column and show the key variable agree on its
        original value (the rule of the module docstring).

    Returns
    -------
    pandas.DataFrame
        One row per (key variable, column) pair with a recoverable cell:
        ``key_variable``, ``column``, ``n_blanked`` (cells of the key variable
        blanked) and ``n_recoverable``; sorted by decreasing ``n_recoverable``.

    Raises
    ------
    InvalidParameterError
        For frames of different lengths, a bad ``share`` or ``min_count``.
    ColumnNotFoundError
        For unknown columns.

    Examples
    --------
    >>> import pandas as pd
    >>> before = pd.DataFrame({"educ": ["BA"] * 12 + ["MA"] * 12, "years": [16] * 12 + [18] * 12})
    >>> after = before.assign(educ=[None] + ["BA"] * 11 + ["MA"] * 12)
    >>> recoverable_cells(before, after, ["educ"]).values.tolist()
    [['educ', 'years', 1, 1]]
    """
    func = "recoverable_cells"
    check_frame(original, "original", func)
    check_frame(released, "released", func)
    if len(original) != len(released):
        raise InvalidParameterError(
            f"The frames of {func} must have the same records: {len(original)} rows in "
            f"'original', {len(released)} in 'released'."
        )
    keys = check_columns(released, key_variables, "key_variables", func)
    check_columns(original, keys, "key_variables", func)
    share, min_count = _check(share, min_count, func)
    others = _others(released, keys, columns, func)
    rows = []
    coded: dict[Hashable, np.ndarray] = {}
    for key in keys:
        n = len(original)
        both = pd.concat(
            [original[key].reset_index(drop=True), released[key].reset_index(drop=True)],
            ignore_index=True,
        )
        codes = encode_column(both, _missing_for(missing_values, key))[0]
        before, after = codes[:n], codes[n:]
        blanked = np.flatnonzero((before >= 0) & (after < 0))
        if not len(blanked):
            continue
        for col in others:
            if col not in coded:
                coded[col] = encode_column(released[col], _missing_for(missing_values, col))[0]
            c = coded[col]
            hit = _readable(
                c,
                after,
                c[blanked],
                before[blanked],
                share=share,
                min_count=min_count,
                self_included=False,
            ).sum()
            if hit:
                rows.append((key, col, len(blanked), int(hit)))
    out = pd.DataFrame(rows, columns=["key_variable", "column", "n_blanked", "n_recoverable"])
    return out.sort_values("n_recoverable", ascending=False, kind="stable").reset_index(drop=True)
