"""Prosecutor risk after protection: an intruder who knows a person's true QIs.

The intruder knows that a person is in the file and knows their true
quasi-identifier values t. Every released record s compatible with t is a
candidate. A candidate with a blank in column c could hide any value there, so
it is weighted by the share p_c(t_c) of the person's value among the observed
values of c in the released data; an exact match weighs 1 (spec section 2, the
prosecutor view). The risk of the person is the weight of their own released
record over the total weight of the candidates.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from microsdc._validation import check_columns, check_frame_pair
from microsdc.encode import MissingValues, encode_qis
from microsdc.exceptions import DataValidationError

__all__ = [
    "intruder_figures",
    "prosecutor_figures",
    "prosecutor_from_codes",
    "prosecutor_of_patterns",
    "prosecutor_risk",
    "released_codes",
]


def prosecutor_figures(
    risk: np.ndarray | pd.Series, k: int, records: np.ndarray | pd.Series | None = None
) -> dict[str, Any]:
    """The headline of a release: the records an intruder who knows their key values
    picks with probability above 1/k, the highest such probability, and the mean.

    Every surface that shows the figure (``SuppressionResult.summary``, the
    command line, a job's audit record and report) takes it from here.

    Parameters
    ----------
    risk : array of shape (n,), float in [0, 1]
        Prosecutor risk of each record (or of each distinct key combination),
        :func:`prosecutor_risk`.
    k : int >= 1
    records : array of shape (n,), optional
        Records behind each entry of ``risk`` (1 each by default).

    Returns
    -------
    dict
        ``n_above_1_over_k`` (records whose risk exceeds 1/k), ``max`` and
        ``mean`` (per record).

    Examples
    --------
    >>> prosecutor_figures(np.array([1.0, 0.5, 0.25, 0.25]), 3)
    {'max': 1.0, 'mean': 0.5, 'n_above_1_over_k': 2}
    """
    v = np.asarray(risk, dtype=np.float64)
    w = np.ones(len(v)) if records is None else np.asarray(records, dtype=np.float64)
    n = float(w.sum())
    above = v > 1.0 / k + 1e-12
    return {
        "max": float(v[w > 0].max()) if n > 0 else 0.0,
        "mean": float((v * w).sum() / n) if n > 0 else 0.0,
        "n_above_1_over_k": round(float(w[above].sum())),
    }


def prosecutor_from_codes(
    original: np.ndarray,
    released: np.ndarray,
    n_categories: np.ndarray,
    records: np.ndarray | None = None,
) -> np.ndarray:
    """Prosecutor risk of every record from code matrices.

    Parameters
    ----------
    original : ndarray of shape (n, m), integer, -1 = missing
        The true values (row i is the person behind released row i).
    released : ndarray of shape (n, m), integer, -1 = missing
        The released values, coded like ``original``.
    n_categories : ndarray of shape (m,)
    records : ndarray of shape (n,), optional
        Records behind each row (an engine's distinct patterns: each row is one
        original tuple and its released tuple); 1 each by default.

    Returns
    -------
    ndarray of shape (n,), float64 in [0, 1]
        The risk of each record (of each of a row's records).
    """
    from microsdc._kernels.dense import value_shares
    from microsdc.risk.kanonymity import share_weighted_support

    n, m = released.shape
    if n == 0:
        return np.zeros(0)
    orig = np.ascontiguousarray(original, dtype=np.int64)
    rel = np.ascontiguousarray(released, dtype=np.int64)
    base = np.asarray(n_categories, dtype=np.int64) + 1
    count = None if records is None else np.asarray(records, dtype=np.float64)
    probs = value_shares(rel, base, count)
    # a value that no longer appears can only hide behind blanks: every candidate has
    # the same factor for it, which then cancels; 1 keeps it out of the way
    probs[probs == 0] = 1.0
    # released records weigh 1, the true tuples are looked up with weight 0; a record
    # released as it was has its true tuple among the released ones already
    changed = np.flatnonzero((rel != orig).any(axis=1))
    both = np.concatenate([rel, orig[changed]]) if len(changed) else rel
    w = np.zeros(len(both))
    w[:n] = 1.0 if count is None else count
    support = share_weighted_support(both, w, n_categories, probs)
    total = support[:n]
    total[changed] = support[n:]
    del both, support
    own = np.ones(n)
    for j in range(m):
        blank = (rel[:, j] < 0) & (orig[:, j] >= 0)
        own[blank] *= probs[j, orig[blank, j] + 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        risk = np.where(total > 0, own / np.where(total > 0, total, 1.0), 0.0)
    return np.clip(risk, 0.0, 1.0)


def prosecutor_risk(
    original: pd.DataFrame,
    released: pd.DataFrame,
    quasi_identifiers: Sequence[Hashable],
    *,
    missing_values: MissingValues = None,
) -> pd.Series:
    """Probability that an intruder who knows a person's true QIs picks their released record.

    Parameters
    ----------
    original : pandas.DataFrame of shape (n_rows, n_columns)
        The data before protection. Never modified.
    released : pandas.DataFrame of shape (n_rows, n_columns)
        The same records after protection (e.g. ``local_suppression(...).data``),
        same index and row order.
    quasi_identifiers : list of column names
    missing_values : sequence or dict, optional
        Values meaning "missing" besides NaN/None/pd.NA/NaT.

    Returns
    -------
    pandas.Series of float in [0, 1], indexed like ``original``, name "prosecutor_risk"

    Raises
    ------
    InvalidParameterError
        If either frame is not a DataFrame or the QI list is empty or repeats a name.
    ColumnNotFoundError
        For QIs missing from either frame.
    DataValidationError
        If the two frames differ in length or index.

    Notes
    -----
    For a person with true values t and released record r, a released record s
    compatible with t weighs ``prod over the columns c where s is blank and t_c
    is known of p_c(t_c)``, p_c the share of each value among the observed
    values of c in ``released``; the risk is ``weight(r) / sum of weights``. An
    entirely blank record therefore adds only ``prod_c p_c(t_c)``, so blank
    records cannot fake protection; blanking a person's rare value lowers the
    risk only as much as that value's share. When a known value no longer
    appears in the released data at all, every candidate is blank there and
    the factor is the same for all of them, so it is left out. Without any
    missing value the risk is 1/fk.

    References
    ----------
    El Emam, K. & Dankar, F. K. (2008). Protecting privacy using k-anonymity.
    JAMIA 15(5) (the prosecutor scenario).

    Examples
    --------
    >>> import pandas as pd
    >>> original = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "u", "v", "w"]})
    >>> released = original.copy()
    >>> released.loc[3, "b"] = None  # "w" was unique: blanking it does not hide it
    >>> prosecutor_risk(original, released, ["a", "b"]).round(3).tolist()
    [0.5, 0.5, 0.75, 1.0]
    """
    func = "prosecutor_risk"
    cols = check_frame_pair(original, released, quasi_identifiers, "quasi_identifiers", func)
    if len(original) != len(released) or not original.index.equals(released.index):
        raise DataValidationError(
            f"The frames given to {func} must hold the same records in the same order: "
            f"original has {len(original)} rows, released {len(released)}"
            + ("" if len(original) != len(released) else ", and their indexes differ")
            + ".",
            func=func,
        )
    both = pd.concat(
        [original[cols].reset_index(drop=True), released[cols].reset_index(drop=True)],
        ignore_index=True,
    )
    enc = encode_qis(both, cols, missing_values=missing_values, func=func)
    n = len(original)
    risk = prosecutor_from_codes(enc.codes[:n], enc.codes[n:], enc.n_categories)
    return pd.Series(risk, index=original.index, name="prosecutor_risk")


def released_codes(
    original: pd.DataFrame, released: pd.DataFrame, quasi_identifiers: Sequence[Hashable]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Both frames' key variables coded alike, as the released file shows them: only an
    empty cell (NaN, None, NA) is missing; a declared missing code such as ``-7`` stays a
    value of its own, since the file shows it apart from a blanked cell.

    Returns the original codes, the released codes and the categories per column.
    """
    cols = list(quasi_identifiers)
    both = pd.concat(
        [original[cols].reset_index(drop=True), released[cols].reset_index(drop=True)],
        ignore_index=True,
    )
    enc = encode_qis(both, cols, func="prosecutor_risk", warn_cardinality=False)
    n = len(original)
    codes = np.ascontiguousarray(enc.codes, dtype=np.int64)
    return codes[:n], codes[n:], np.asarray(enc.n_categories, dtype=np.int64)


def prosecutor_of_patterns(
    patterns: pd.DataFrame,
    quasi_identifiers: Sequence[Hashable],
    records: np.ndarray | pd.Series,
    k: int,
) -> dict[str, Any]:
    """The headline of a file as it is (:func:`prosecutor_figures`), from its distinct
    key combinations: what ``microsdc risk`` prints for the records, where an engine
    has grouped them.

    Parameters
    ----------
    patterns : pandas.DataFrame
        One row per distinct combination of the key values as written (an empty cell
        is missing; a declared code such as ``-7`` is a value, as the file shows it).
    quasi_identifiers : list of column names
    records : array of shape (n_patterns,)
        Records behind each row.
    k : int >= 1

    Returns
    -------
    dict
        :func:`prosecutor_figures` over the records: the same figures as the
        prosecutor risk of the records themselves.

    Examples
    --------
    >>> p = pd.DataFrame({"a": ["x", "y"]})
    >>> prosecutor_of_patterns(p, ["a"], np.array([3, 1]), 2)  # 3 x 1/3, then 1
    {'max': 1.0, 'mean': 0.5, 'n_above_1_over_k': 1}
    """
    enc = encode_qis(patterns, list(quasi_identifiers), warn_cardinality=False)
    codes = np.ascontiguousarray(enc.codes, dtype=np.int64)
    counts = np.asarray(records, dtype=np.float64)
    risk = prosecutor_from_codes(codes, codes, enc.n_categories, counts)
    return prosecutor_figures(risk, k, counts)


def intruder_figures(
    original: pd.DataFrame,
    released: pd.DataFrame,
    quasi_identifiers: Sequence[Hashable],
    k: int,
    *,
    strata: Hashable | Sequence[Hashable] | None = None,
) -> dict[str, Any]:
    """The headline of a release, before and after: the records an intruder who knows
    their key values picks with probability above 1/k, and the highest probability.

    The prosecutor risk (:func:`prosecutor_risk`) of every record, counted on the
    values as released (an empty cell is missing; a declared code such as ``-7``
    is a value, as the file shows it), within each stratum when ``strata`` is
    given, summed up by :func:`prosecutor_figures`. ``microsdc run`` and the
    report's first card show this figure; ``SuppressionResult.intruder`` gives
    the same for a suppression.

    Parameters
    ----------
    original, released : pandas.DataFrame
        The data before protection and as released (same records, same order).
    quasi_identifiers : list of column names
    k : int >= 1
    strata : column name or list of column names, optional
        Columns whose groups were protected each on their own (taken from
        ``original``).

    Returns
    -------
    dict
        ``{"k": k, "before": {...}, "after": {...}}`` (:func:`prosecutor_figures`).

    Raises
    ------
    ColumnNotFoundError
        If a column of ``strata`` is not in ``original``.

    Examples
    --------
    >>> o = pd.DataFrame({"a": ["x", "x", "x", "y"]})
    >>> r = pd.DataFrame({"a": ["x", "x", "x", None]})
    >>> f = intruder_figures(o, r, ["a"], 2)
    >>> f["before"]["n_above_1_over_k"], f["after"]["n_above_1_over_k"], f["after"]["max"]
    (1, 1, 1.0)
    """
    orig, rel, ncat = released_codes(original, released, quasi_identifiers)
    by = check_columns(original, strata, "strata", "intruder_figures", allow_empty=True)
    if by and len(orig):
        keys = original[by].astype(object)
        group = pd.MultiIndex.from_frame(keys).factorize()[0]
        groups = [np.flatnonzero(group == g) for g in range(int(group.max()) + 1)]
    else:
        groups = [np.arange(len(orig))]
    before = np.zeros(len(orig))
    after = np.zeros(len(orig))
    for rows in groups:
        before[rows] = prosecutor_from_codes(orig[rows], orig[rows], ncat)
        after[rows] = prosecutor_from_codes(orig[rows], rel[rows], ncat)
    return {
        "k": int(k),
        "before": prosecutor_figures(before, k),
        "after": prosecutor_figures(after, k),
    }
