"""Longitudinal data: several records per subject, one row per subject for anonymisation, and back.

k-anonymity counts subjects, not records: a subject with three visits is still
one person. :func:`collapse_subjects` keeps one row per subject,
:func:`restore_subjects` carries every cell blanked in that row back to all the
subject's records, and ``local_suppression(..., subject_id=...)`` does both
around the suppression.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from microsdc._validation import (
    check_columns,
    check_frame,
    check_instance,
    check_one_of,
    incomplete_column_error,
)
from microsdc.encode import MissingValues, combine_codes, encode_qis
from microsdc.exceptions import DataValidationError, InvalidParameterError

__all__ = ["RULES", "Collapsed", "collapse_subjects", "restore_subjects"]

RULES = ("mode", "missing_if_differs")


@dataclass(frozen=True)
class Collapsed:
    """One row per subject, and the way back to the records.

    Attributes
    ----------
    data : pandas.DataFrame of shape (n_subjects, 1 + n_qis + n_keep)
        The subject id, the QIs and the ``keep`` columns, one row per subject in
        order of first appearance, with a default RangeIndex. Values and dtypes
        come from the original records.
    subject_id : hashable
    qi : list
    keep : list
    rule : str
    row_subject : numpy.ndarray of shape (n_records,), int64
        Position in ``data`` of each original record's subject.
    differing : numpy.ndarray of shape (n_subjects, n_qis), bool
        True where a subject's records hold two or more different non-missing
        values of a QI.
    """

    data: pd.DataFrame
    subject_id: Hashable
    qi: list[Hashable]
    keep: list[Hashable]
    rule: str
    row_subject: np.ndarray
    differing: np.ndarray

    @property
    def n_subjects(self) -> int:
        return len(self.data)


def collapse_subjects(
    df: pd.DataFrame,
    subject_id: Hashable,
    qi: Sequence[Hashable],
    *,
    rule: str = "mode",
    keep: Sequence[Hashable] | None = None,
    missing_values: MissingValues = None,
) -> Collapsed:
    """One row per subject.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_records, n_columns)
        Never modified.
    subject_id : column name
        Identifies the subject of each record; no missing values allowed.
    qi : list of column names
        The quasi-identifiers.
    rule : {"mode", "missing_if_differs"}, default "mode"
        ``"mode"``: the subject's most common combination of QI values (missing
        counts as a value; ties go to the combination seen first).
        ``"missing_if_differs"``: each QI keeps the subject's value when all its
        non-missing answers agree, and is missing where they differ.
    keep : list of column names, optional
        Further columns to carry (e.g. strata); each must be constant within a
        subject.
    missing_values : sequence or dict, optional
        Values meaning "missing" besides NaN/None/pd.NA/NaT.

    Returns
    -------
    Collapsed

    Raises
    ------
    InvalidParameterError
        For an unknown ``rule``, or a subject id among the QIs.
    ColumnNotFoundError
        For unknown columns.
    DataValidationError
        If the subject id has missing values, or a ``keep`` column varies within
        a subject.

    Notes
    -----
    With ``"mode"`` the released records of a subject may hold values other
    than the mode; k-anonymity is assessed on the mode only, so an intruder who
    knows a subject's other answers gets more than was assessed. With
    ``"missing_if_differs"`` those cells are blanked on every record (see
    :func:`restore_subjects`), which keeps the release consistent with what was
    assessed.

    References
    ----------
    kanonymity 0.1.0, section on longitudinal data (most common answer per
    subject, or missing where answers differ).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"id": [1, 1, 1, 2, 2], "sex": ["f", "f", "f", "m", "m"],
    ...                    "town": ["A", "B", "A", "C", "C"]})
    >>> collapse_subjects(df, "id", ["sex", "town"]).data.to_dict("list")
    {'id': [1, 2], 'sex': ['f', 'm'], 'town': ['A', 'C']}
    >>> out = collapse_subjects(df, "id", ["sex", "town"], rule="missing_if_differs")
    >>> out.data["town"].tolist()
    [nan, 'C']
    """
    func = "collapse_subjects"
    check_frame(df, "df", func)
    rule = check_one_of(rule, "rule", func, RULES)
    sid, cols, keep_cols = _check_subject_columns(df, subject_id, qi, keep, func)
    n = len(df)
    subj, _uniques = pd.factorize(df[sid], sort=False)
    subj = np.asarray(subj, dtype=np.int64)
    n_subj = int(subj.max()) + 1 if n else 0
    enc = encode_qis(df, cols, missing_values=missing_values, func=func)
    codes = np.asarray(enc.codes, dtype=np.int64)
    _check_keep_constant(df, keep_cols, subj, _uniques, func)
    rep = _representatives(codes, enc.n_categories, subj, n_subj, rule)
    differing = _differing(codes, subj, n_subj)
    data = df.iloc[rep][[sid, *cols, *keep_cols]].reset_index(drop=True)
    if rule == "missing_if_differs":
        from microsdc.data.blank import blank_cells

        # a subject whose first record is missing may hold a value elsewhere
        filled = _first_observed(codes, subj, n_subj)
        for j, c in enumerate(cols):
            src = filled[:, j]
            ok = src >= 0
            if ok.any():
                values = cast(pd.Series, df[c]).iloc[src[ok]]
                column = cast(pd.Series, data[c]).copy()
                column.iloc[np.flatnonzero(ok)] = values.to_numpy()
                data[c] = column
        data = blank_cells(data, cols, differing)
    return Collapsed(
        data=data,
        subject_id=sid,
        qi=list(cols),
        keep=list(keep_cols),
        rule=rule,
        row_subject=subj,
        differing=differing,
    )


def _check_subject_columns(
    df: pd.DataFrame,
    subject_id: Hashable,
    qi: Sequence[Hashable],
    keep: Sequence[Hashable] | None,
    func: str,
) -> tuple[Hashable, list[Hashable], list[Hashable]]:
    """The subject id (one column, not a QI or kept column, never missing), QIs and kept columns."""
    if isinstance(subject_id, list | set | pd.Index | np.ndarray) or (
        isinstance(subject_id, tuple) and subject_id not in df.columns
    ):
        raise InvalidParameterError(
            f"The 'subject_id' parameter of {func} must be one column name. Got "
            f"{list(subject_id)!r}: the arguments are (df, subject_id, qi), the "
            "quasi-identifiers third.",
            func=func,
            param="subject_id",
        )
    (sid,) = check_columns(df, [subject_id], "subject_id", func)
    cols = check_columns(df, qi, "quasi_identifiers", func)
    keep_cols = check_columns(df, keep, "keep", func, allow_empty=True)
    if sid in set(cols) or sid in set(keep_cols):
        raise InvalidParameterError(
            f"The 'subject_id' parameter of {func} must not be a quasi-identifier or a kept "
            f"column. Got {sid!r}.",
            func=func,
            param="subject_id",
        )
    bad = df[sid].isna().to_numpy()
    if bad.any():
        where = f"The subject id column {sid!r} of {func}"
        raise incomplete_column_error(where, bad, df.index, func, "Every record needs a subject.")
    return sid, cols, keep_cols


def _check_keep_constant(
    df: pd.DataFrame, keep_cols: Sequence[Hashable], subj: np.ndarray, uniques: Any, func: str
) -> None:
    """Refuse a ``keep`` column that varies within a subject."""
    for c in keep_cols:
        per = pd.DataFrame({"s": subj, "v": pd.factorize(df[c], use_na_sentinel=True)[0]})
        varies = per.groupby("s")["v"].nunique(dropna=False) > 1
        if varies.any():
            raise DataValidationError(
                f"The column {c!r} passed to {func} as 'keep' varies within "
                f"{int(varies.sum())} subject(s); it must be constant per subject.",
                failure_cases=list(uniques[np.flatnonzero(varies.to_numpy())][:20]),
                func=func,
            )


def _representatives(
    codes: np.ndarray, n_categories: np.ndarray, subj: np.ndarray, n_subj: int, rule: str
) -> np.ndarray:
    """Position of each subject's row: first record of its most common pattern ("mode"),
    or its first record."""
    n = len(subj)
    pos = np.arange(n, dtype=np.int64)
    if rule == "mode":
        key = combine_codes(codes, n_categories) if n else np.zeros(0, dtype=np.int64)
        tab = pd.DataFrame({"s": subj, "key": key, "pos": pos})
        agg = tab.groupby(["s", "key"], sort=False).agg(size=("pos", "size"), first=("pos", "min"))
        agg = agg.reset_index().sort_values(["s", "size", "first"], ascending=[True, False, True])
        return agg.drop_duplicates("s")["first"].to_numpy(dtype=np.int64)
    rep = np.full(n_subj, n, dtype=np.int64)
    np.minimum.at(rep, subj, pos)
    return rep


def _differing(codes: np.ndarray, subj: np.ndarray, n_subj: int) -> np.ndarray:
    m = codes.shape[1]
    out = np.zeros((n_subj, m), dtype=bool)
    for j in range(m):
        c = codes[:, j]
        ok = c >= 0
        if not ok.any():
            continue
        pairs = pd.DataFrame({"s": subj[ok], "v": c[ok]}).drop_duplicates()
        counts = np.bincount(pairs["s"].to_numpy(), minlength=n_subj)
        out[:, j] = counts > 1
    return out


def _first_observed(codes: np.ndarray, subj: np.ndarray, n_subj: int) -> np.ndarray:
    """Position of the first record of each subject with a non-missing value, per QI (-1: none)."""
    n, m = codes.shape
    out = np.full((n_subj, m), -1, dtype=np.int64)
    pos = np.arange(n, dtype=np.int64)
    for j in range(m):
        ok = codes[:, j] >= 0
        first = np.full(n_subj, n, dtype=np.int64)
        np.minimum.at(first, subj[ok], pos[ok])
        out[:, j] = np.where(first < n, first, -1)
    return out


def restore_subjects(
    original_df: pd.DataFrame, collapsed: Collapsed, anonymised: pd.DataFrame
) -> pd.DataFrame:
    """Carry the cells blanked in the one-row-per-subject frame back to every record.

    Parameters
    ----------
    original_df : pandas.DataFrame of shape (n_records, n_columns)
        The frame given to :func:`collapse_subjects`. Never modified.
    collapsed : Collapsed
        Its output.
    anonymised : pandas.DataFrame of shape (n_subjects, ...)
        ``collapsed.data`` after anonymisation (same rows in the same order,
        QI cells blanked).

    Returns
    -------
    pandas.DataFrame
        A copy of ``original_df`` where every QI cell blanked in a subject's
        anonymised row is missing on all the subject's records (and, with rule
        ``"missing_if_differs"``, every QI whose answers differ within the
        subject). Index, row order, other columns and dtypes are kept (integer
        columns that receive a missing value become nullable).

    Raises
    ------
    InvalidParameterError
        If ``anonymised`` does not have one row per subject or lacks a QI, or
        ``original_df`` does not have the records ``collapsed`` was made from.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"id": [1, 1, 2], "town": ["A", "A", "B"], "visit": [1, 2, 1]})
    >>> col = collapse_subjects(df, "id", ["town"])
    >>> anon = col.data.assign(town=[None, "B"])
    >>> restore_subjects(df, col, anon)["town"].tolist()
    [nan, nan, 'B']
    """
    func = "restore_subjects"
    check_frame(original_df, "original_df", func)
    check_frame(anonymised, "anonymised", func)
    check_instance(collapsed, Collapsed, "collapsed", func, "the result of collapse_subjects")
    if len(anonymised) != collapsed.n_subjects:
        raise InvalidParameterError(
            f"The 'anonymised' frame passed to {func} must have one row per subject "
            f"({collapsed.n_subjects}). Got {len(anonymised)} rows instead.",
            func=func,
        )
    if len(original_df) != len(collapsed.row_subject):
        raise InvalidParameterError(
            f"The 'original_df' passed to {func} has {len(original_df)} records; the "
            f"collapsed data were made from {len(collapsed.row_subject)}.",
            func=func,
        )
    check_columns(anonymised, collapsed.qi, "anonymised", func)
    check_columns(original_df, collapsed.qi, "original_df", func)
    before = collapsed.data[collapsed.qi].isna().to_numpy()
    after = anonymised[collapsed.qi].isna().to_numpy()
    blanked = after & ~before
    if collapsed.rule == "missing_if_differs":
        blanked = blanked | collapsed.differing
    from microsdc.data.blank import blank_cells

    per_record = blanked[collapsed.row_subject]
    return blank_cells(original_df, collapsed.qi, per_record)
