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

from microsdc._core.warn import warn
from microsdc._validation import (
    check_columns,
    check_frame,
    check_int,
    check_missing_values,
    check_number,
)
from microsdc.encode import MissingValues, missing_values_for
from microsdc.exceptions import InvalidParameterError

__all__ = ["linked_columns", "recoverable_cells"]

#: Default share of agreeing records above which a value counts as read back.
SHARE = 0.99
#: Default number of other records with the same value of the column needed.
MIN_COUNT = 10


def _codes(series: pd.Series, missing: list[Any]) -> np.ndarray:
    """Dense integer codes of a column in order of appearance, -1 for missing (unsorted: fast)."""
    from microsdc.data.hashable import factorize_any
    from microsdc.encode import missing_mask

    values = series.astype(object) if isinstance(series.dtype, pd.CategoricalDtype) else series
    codes, _ = factorize_any(values)  # lists and dicts by their contents
    if missing:
        codes = np.where(missing_mask(series, missing), -1, codes)
    return codes


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
    out = np.zeros(len(c), dtype=bool)
    shown = ref_k[ref_k >= 0].astype(np.int64)  # every record showing K: the base rates
    ok = (ref_c >= 0) & (ref_k >= 0)
    ref_c, ref_k = ref_c[ok].astype(np.int64), ref_k[ok].astype(np.int64)
    if not len(ref_c) or not len(c):
        return out
    # codes are dense (0 .. n - 1), so counting is a bincount
    n_c = int(max(ref_c.max(), c.max(initial=0))) + 1
    n_k = int(max(ref_k.max(), k.max(initial=0))) + 1
    per_c = np.bincount(ref_c, minlength=n_c)
    base = np.bincount(shown, minlength=n_k) / len(shown)
    valid = np.flatnonzero((c >= 0) & (k >= 0))
    cc, kk = c[valid].astype(np.int64), k[valid].astype(np.int64)
    n = per_c[cc] - (1 if self_included else 0)
    # were C unrelated to K, at least min_count of the n records would show another value:
    # a group that agrees by chance on a common value (base rate p) is not a read-back
    enough = (n >= min_count) & (n * (1.0 - base[kk]) >= min_count)
    if not enough.any():
        return out
    valid, cc, kk, n = valid[enough], cc[enough], kk[enough], n[enough]
    big = per_c[ref_c] > min_count - (0 if self_included else 1)  # the groups that can count
    pairs = ref_c[big] * n_k + ref_k[big]
    wanted = cc * n_k + kk
    if n_c * n_k <= 4 * len(ref_c) + 1024:
        agree = np.bincount(pairs, minlength=n_c * n_k)[wanted]
    else:
        values, counts = np.unique(pairs, return_counts=True)
        pos = np.minimum(np.searchsorted(values, wanted), max(len(values) - 1, 0))
        agree = np.where(values[pos] == wanted, counts[pos], 0) if len(values) else 0 * wanted
    if self_included:
        agree = agree - 1
    out[valid] = agree >= share * n
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
            f"{', '.join(repr(c) for c in both)}.",
            func=func,
            param="columns",
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
    >>> df = pd.DataFrame({"educ": ["BA"] * 30 + ["MA"] * 30, "years": [16] * 30 + [18] * 30})
    >>> linked_columns(df, ["educ"]).values.tolist()
    [['educ', 'years', 60, 1.0]]
    """
    func = "linked_columns"
    check_frame(df, "df", func)
    keys = check_columns(df, key_variables, "key_variables", func)
    share, min_count = _check(share, min_count, func)
    check_missing_values(missing_values, "missing_values", func)
    others = _others(df, keys, columns, func)
    rows = []
    coded = {c: _codes(df[c], missing_values_for(missing_values, c)) for c in others}
    for key in keys:
        k = _codes(df[key], missing_values_for(missing_values, key))
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
    >>> before = pd.DataFrame({"educ": ["BA"] * 30 + ["MA"] * 30, "years": [16] * 30 + [18] * 30})
    >>> after = before.assign(educ=[None] + ["BA"] * 29 + ["MA"] * 30)
    >>> recoverable_cells(before, after, ["educ"]).values.tolist()
    [['educ', 'years', 1, 1]]
    """
    func = "recoverable_cells"
    check_frame(original, "original", func)
    check_frame(released, "released", func)
    if len(original) != len(released):
        raise InvalidParameterError(
            f"The frames of {func} must have the same records: {len(original)} rows in "
            f"'original', {len(released)} in 'released'.",
            func=func,
            param="released",
            related=("original",),
        )
    keys = check_columns(released, key_variables, "key_variables", func)
    check_columns(original, keys, "key_variables", func)
    share, min_count = _check(share, min_count, func)
    check_missing_values(missing_values, "missing_values", func)
    others = _others(released, keys, columns, func)
    rows = []
    coded: dict[Hashable, np.ndarray] = {}
    for key in keys:
        before, after = _before_after(original[key], released[key], missing_values, key)
        blanked = np.flatnonzero((before >= 0) & (after < 0))
        if not len(blanked):
            continue
        for col in others:
            if col not in coded:
                coded[col] = _codes(released[col], missing_values_for(missing_values, col))
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


def _before_after(
    before: pd.Series, after: pd.Series, missing_values: MissingValues, key: Hashable
) -> tuple[np.ndarray, np.ndarray]:
    """Codes of a key variable before and after, in one code space."""
    from microsdc.encode import missing_mask

    missing = missing_values_for(missing_values, key)
    codes = _codes(before, missing)
    gone = missing_mask(after, missing)
    kept = ~gone & (codes >= 0)
    try:
        a, b = np.asarray(before)[kept], np.asarray(after)[kept]
        same = bool(np.all(a == b))
    except (TypeError, ValueError):
        same = False
    if same and not (~gone & (codes < 0)).any():  # only blanked: the codes carry over
        return codes, np.where(gone, -1, codes)
    n = len(before)
    both = pd.concat(
        [before.reset_index(drop=True), after.reset_index(drop=True)], ignore_index=True
    )
    codes = _codes(both, missing)
    return codes[:n], codes[n:]


def warn_recoverable(
    original: pd.DataFrame,
    released: pd.DataFrame,
    key_variables: Sequence[Hashable],
    *,
    missing_values: MissingValues = None,
) -> pd.DataFrame:
    """:func:`recoverable_cells`, with a ``DisclosureRiskWarning`` naming every pair found."""

    from microsdc.exceptions import DisclosureRiskWarning

    found = recoverable_cells(original, released, key_variables, missing_values=missing_values)
    if len(found):
        pairs = "; ".join(
            f"{r.key_variable!r} from {r.column!r} ({r.n_recoverable:,} of {r.n_blanked:,})"
            for r in found.itertuples()
        )
        warn(
            f"Blanked cells can be read back from other columns: {pairs}. Blank those columns "
            "with their key variable (linked={key: columns}; job file: suppression.linked; "
            "command line: --linked KEY=COLUMN), recode them, or drop them from the release.",
            DisclosureRiskWarning,
        )
    return found
