"""Figures of a released file against the input: the prosecutor risk before and after,
per stratum and on the values as released, and ``true_fk`` by record."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd

from microsdc.encode import MissingValues, encode_qis

__all__ = ["prosecutor_per_stratum", "prosecutor_released", "true_fk_series"]

_FUNC = "local_suppression"


def prosecutor_per_stratum(
    codes0: np.ndarray,
    codes: np.ndarray,
    groups: list[np.ndarray],
    ncat: np.ndarray,
    changed: bool,
    records: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Prosecutor risk before and after, per stratum (``records``: the records behind
    each row, for an engine's distinct patterns; 1 each by default)."""
    from microsdc.risk.prosecutor import prosecutor_from_codes

    n = len(codes0)
    if len(groups) == 1 and np.array_equal(groups[0], np.arange(n)):  # no copies of the codes
        before = prosecutor_from_codes(codes0, codes0, ncat, records)
        return before, (prosecutor_from_codes(codes0, codes, ncat, records) if changed else before)
    before = np.zeros(n)
    after = np.zeros(n)
    for rows in groups:
        if len(rows) == 0:
            continue
        w = None if records is None else records[rows]
        before[rows] = prosecutor_from_codes(codes0[rows], codes0[rows], ncat, w)
        after[rows] = (
            prosecutor_from_codes(codes0[rows], codes[rows], ncat, w) if changed else before[rows]
        )
    return before, after


def prosecutor_released(
    df: pd.DataFrame,
    cols: list[Hashable],
    codes0: np.ndarray,
    codes: np.ndarray,
    ncat: np.ndarray,
    groups: list[np.ndarray],
    missing_values: MissingValues,
    changed: bool,
    records: np.ndarray | None = None,
) -> tuple[pd.Series, pd.Series]:
    """Prosecutor risk before and after, counted on the values as released (a declared
    missing code stays a value there); ``codes0`` and ``codes`` are encoded with
    ``missing_values``, -1 = missing. ``df`` holds the records, or an engine's
    distinct patterns with ``records`` behind each."""
    if missing_values is None:
        shown, shown_after, shown_ncat = codes0, codes, ncat
    else:
        lit = encode_qis(df, cols, func=_FUNC, warn_cardinality=False)
        shown = np.ascontiguousarray(lit.codes, dtype=np.int64)
        shown_after = np.where((codes < 0) & (codes0 >= 0), -1, shown)
        shown_ncat = lit.n_categories
    pros = prosecutor_per_stratum(shown, shown_after, groups, shown_ncat, changed, records)
    return (
        pd.Series(pros[0], index=df.index, name="prosecutor_risk"),
        pd.Series(pros[1], index=df.index, name="prosecutor_risk"),
    )


def true_fk_series(true_fk: np.ndarray, blank: np.ndarray, index: pd.Index) -> pd.Series:
    """``true_fk`` of the records with a blanked cell, by their index."""
    sel = np.flatnonzero(blank.any(axis=1))
    return pd.Series(true_fk[sel], index=index[sel], name="true_fk", dtype="int64")
