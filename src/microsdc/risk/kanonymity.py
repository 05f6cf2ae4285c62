"""k-anonymity with missing values: per-record sample frequencies and the kanonymity API.

A missing quasi-identifier value is a wildcard that matches any category, on
either side (policy ``"wildcard"``, the default). Other policies are offered
for comparison with other tools; see :func:`sample_frequencies`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import MissingPolicy, parse_policy
from microsdc._validation import check_int
from microsdc.backends.adapters import adapt
from microsdc.backends.dispatch import accepts_frames
from microsdc.encode import MissingValues
from microsdc.risk.counting import (
    append_fk,
    frequencies_for,
    key_rows,
    summary_of,
)
from microsdc.risk.frequencies import (
    PatternFrequencies,
    frequencies_from_codes,
    row_frequencies,
    share_weighted_support,
)

__all__ = [
    "DEFAULT_K",
    "PatternFrequencies",
    "check_k_anonymity",
    "frequencies_for",
    "frequencies_from_codes",
    "row_frequencies",
    "sample_frequencies",
    "share_weighted_support",
]


#: The k that the command line (``-k``) and a job (``risk.k``) protect to when none is
#: given. The library's functions take k without a default.
DEFAULT_K = 3


def _in_memory(
    func: Callable[..., Any], df: Any, quasi_identifiers: Any, k: Any, options: dict[str, Any]
) -> Any:
    """``func`` (:func:`sample_frequencies` or :func:`check_k_anonymity`) on a polars or
    pyarrow frame in memory, ``options`` its ``missing``, ``weights`` and
    ``missing_values``: the QI and weight columns take the pandas route, and the
    frames of the result come back as the frame's kind."""
    from microsdc.backends import detect_backend
    from microsdc.backends.frequencies import eager_input, eager_output

    name = func.__name__
    backend = detect_backend(df, name)
    if k is not None or func is check_k_anonymity:  # k is optional to sample_frequencies only
        k = check_int(k, "k", name, min_value=1)
    parse_policy(options["missing"], name)
    pdf, cols, w = eager_input(df, backend, quasi_identifiers, options["weights"], name)
    out = func(pdf, cols, k=k, **{**options, "weights": w})
    if isinstance(out, tuple):  # check_k_anonymity: (n_at_risk, summary)
        return out[0], eager_output(out[1], df)
    return eager_output(out, df)


def _frequencies_in_memory(
    df: Any, quasi_identifiers: Any, *, k: Any, missing: Any, weights: Any, missing_values: Any
) -> Any:
    options = {"missing": missing, "weights": weights, "missing_values": missing_values}
    return _in_memory(sample_frequencies, df, quasi_identifiers, k, options)


def _k_anonymity_in_memory(
    df: Any,
    quasi_identifier_cols: Any,
    k: Any,
    *,
    missing: Any,
    weights: Any,
    missing_values: Any,
) -> Any:
    options = {"missing": missing, "weights": weights, "missing_values": missing_values}
    return _in_memory(check_k_anonymity, df, quasi_identifier_cols, k, options)


@accepts_frames(lazy=True, eager=_frequencies_in_memory)
def sample_frequencies(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[Hashable],
    *,
    k: int | None = None,
    missing: MissingPolicy = "wildcard",
    weights: Hashable | Sequence[float] | np.ndarray | None = None,
    missing_values: MissingValues = None,
) -> pd.DataFrame:
    """Sample frequency ``fk`` (and population frequency ``Fk``) of every record.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        The microdata. Never modified.
    quasi_identifiers : list of column names
        Key variables, categorical (bin numeric ones first).
    k : int >= 1, optional
        When given, a boolean column ``at_risk`` (``fk < k``) is added.
    missing : {"wildcard", "probabilistic", "category", "conservative"} or float in [0, 1], \
default "wildcard"
        How a missing value is counted:

        - ``"wildcard"``: a missing value matches any value, on either side;
          ``fk(r)`` is the number of records compatible with ``r``. A record
          with every QI missing counts for every record, so k - 1 blank records
          make every record look safe.
        - alpha in [0, 1]: as wildcard, but a compatible record s with a
          missing QI that is not of r's exact pattern adds ``alpha``; complete
          records and r's own pattern (r included) add 1 (sdcMicro
          ``freqCalc(alpha=)``). 1 is the wildcard; 0 is *not* "missing as a
          category" (a record keeps its own pattern and the compatible complete
          records, so nothing is at risk for k = 1).
        - ``"probabilistic"``: a missing cell of *another* record s matches
          value v of r with weight p_c(v), the share of v among the observed
          values of that QI in ``df``; r's own missing cells match anything
          with weight 1; s adds the product of its weights (identical patterns
          add 1). An entirely blank record adds only ``prod_c p_c(r_c)``.
          ``fk`` is fractional.
        - ``"category"``: missing is one more category; exact matches only.
          The guarantee that holds against an intruder who knows every QI.
        - ``"conservative"``: complete records as wildcard; a record with
          missing values gets the smallest count over the completions of its
          missing cells by categories observed in the data (``Fk`` sums the
          weights of the records of that completion; of equal counts, the
          lightest). A measure only:
          k - 1 entirely blank records satisfy it for every record, so
          :func:`~microsdc.suppression.local_suppression` refuses it.
    weights : column name or array-like of shape (n_rows,), optional
        Sampling weights (>= 0, none missing). ``Fk`` is the sum of the weights
        of the records counted in ``fk``. A Series is matched to the records by
        its index (the labels of ``df``, in any order); an array or list by position.
    missing_values : sequence or dict, optional
        Codes that mean "missing" besides NaN/None/pd.NA/NaT, e.g. ``[-999, ""]``
        for every QI or ``{"age": [-1]}`` per column.

    Returns
    -------
    pandas.DataFrame
        Indexed like ``df``, with column ``fk`` (int64; float64 for alpha < 1 and
        ``"probabilistic"``),
        ``Fk`` (float64) when weighted, and ``at_risk`` (bool) when ``k`` is given.

    Raises
    ------
    InvalidParameterError
        If ``df`` is not a DataFrame, the QI list is empty or repeats a name,
        ``k`` is not an int >= 1, ``missing`` is unknown, or ``weights`` names
        a quasi-identifier.
    ColumnNotFoundError
        Listing every QI (or weight column) not in ``df``.
    DataValidationError
        If ``df`` has duplicate column names, the weights have missing or
        negative values, or a weights Series is indexed otherwise than ``df``.

    Warns
    -----
    HighCardinalityWarning
        For a QI with 1,000 or more distinct values.

    Notes
    -----
    Records r and s are compatible when, for every QI, one of them is missing
    or both are equal. ``fk(r) = #{s : s ~ r}``, ``Fk(r) = sum(w_s : s ~ r)``.
    Under ``"probabilistic"``, ``fk(r) = sum over s ~ r of prod over the QIs c
    where s is missing and r is not of p_c(r_c)``, and ``Fk`` weights the same
    terms by ``w_s``; the dense route transforms each axis with
    ``T[v] += p(v) T[missing]``, ``T[missing] = sum``.
    Computed on distinct patterns of missingness and values, never pairwise
    (cost O(n_masks x n_patterns)).

    References
    ----------
    sdcMicro ``freqCalc``; kanonymity 0.1.0 ``check_k_anonymity``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"A": [0, 0, 1, 1, None, 0, None], "B": [1, 1, 2, 1, 2, None, None]})
    >>> sample_frequencies(df, ["A", "B"])["fk"].tolist()
    [4, 4, 3, 2, 4, 5, 7]
    >>> sample_frequencies(df, ["A", "B"], missing="probabilistic")["fk"].round(2).tolist()
    [2.96, 2.96, 1.56, 1.24, 2.8, 4.2, 7.0]
    """
    func = "sample_frequencies"
    frame = adapt(df, func)
    if k is not None:
        k = check_int(k, "k", func, min_value=1)
    keys = key_rows(
        frame, quasi_identifiers, missing, weights, missing_values, func, appends=True, keyed=True
    )
    if keys.plan is not None:  # DuckDB counted on one combined key
        from microsdc.backends.patterns import keyed_frequencies

        return keyed_frequencies(df, frame.backend, keys.columns, keys.plan, keys.policy, k, func)
    fk, big_fk = keys.row_frequencies()
    return append_fk(keys, fk, big_fk, k, func)


@accepts_frames(lazy=True, eager=_k_anonymity_in_memory)
def check_k_anonymity(
    df: pd.DataFrame,
    quasi_identifier_cols: Sequence[Hashable],
    k: int,
    *,
    missing: MissingPolicy = "wildcard",
    weights: Hashable | Sequence[float] | np.ndarray | None = None,
    missing_values: MissingValues = None,
) -> tuple[int, pd.DataFrame]:
    """Number of records at risk (``fk < k``) and a summary of the key combinations present.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        Never modified.
    quasi_identifier_cols : list of column names
        The quasi-identifiers.
    k : int >= 1
        Minimum size of an equivalence class (records compatible with a record,
        itself included).
    missing, weights, missing_values
        As in :func:`sample_frequencies`.

    Returns
    -------
    n_at_risk : int
        Number of records with ``fk < k``. 0 for an empty frame.
    summary : pandas.DataFrame
        One row per distinct key combination present (missing values shown as
        missing), with columns: the QIs, ``count`` (records with exactly this
        combination), ``fk``, ``Fk`` (when weighted) and ``at_risk``; sorted by
        ascending ``fk``, then descending ``count``, then the key values column by
        column in the order of ``quasi_identifier_cols`` (ascending, a missing value
        last; a column mixing numbers and texts puts numbers first), so the same
        data give the same rows in the same order on pandas, polars, DuckDB and
        Spark (:func:`microsdc.risk.pattern_order.summary_order`).

    Raises
    ------
    InvalidParameterError, ColumnNotFoundError, DataValidationError
        As in :func:`sample_frequencies`. Also ``InvalidParameterError`` when a
        quasi-identifier is named ``count``, ``fk``, ``Fk`` or ``at_risk``:
        its values and the counts would share a column name (rename it first).

    References
    ----------
    kanonymity 0.1.0 ``check_k_anonymity`` (same name and return shape).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["m", "m", "f", "f", "f"], "age": ["20", "20", "30", None, "40"]})
    >>> n, summary = check_k_anonymity(df, ["sex", "age"], k=3)
    >>> n  # the woman of unknown age matches all three women; everyone else has fk = 2
    4
    >>> summary[["sex", "age", "count", "fk"]].values.tolist()
    [['m', '20', 2, 2], ['f', '30', 1, 2], ['f', '40', 1, 2], ['f', nan, 1, 3]]
    """
    func = "check_k_anonymity"
    frame = adapt(df, func)
    k = check_int(k, "k", func, min_value=1)
    keys = key_rows(frame, quasi_identifier_cols, missing, weights, missing_values, func)
    res = keys.frequencies()
    n_at_risk = int(res.count[res.fk < k].sum())
    return n_at_risk, summary_of(keys, res, k, func)
