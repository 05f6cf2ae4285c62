"""The risk figures of a file, before and after protection, as a job's audit record,
its report and ``microsdc run`` show them.

:func:`risk_summary` measures a pandas frame; :func:`pattern_risk_summary` gives the
same figures from the distinct key combinations of a file and their numbers of
records, which is all a lazy engine reports.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import MissingPolicy, parse_policy
from microsdc._validation import (
    check_columns,
    check_frame,
    check_int,
    check_missing_values,
    check_number,
    check_one_of,
    param_error,
)
from microsdc.encode import missing_mask
from microsdc.risk.individual import (
    _household_codes,
    _household_from_risk,
    risk_from_frequencies,
    whole_matches,
)
from microsdc.risk.kanonymity import frequencies_for
from microsdc.risk.ldiversity import KINDS, l_diversity

__all__ = ["RISK_BANDS", "count_bands", "pattern_risk_summary", "risk_summary"]

#: Upper edges of the individual-risk bands counted for the figures (the first band starts at 0).
RISK_BANDS = (0.00001, 0.0001, 0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0)


def count_bands(risk: np.ndarray, records: np.ndarray | None = None) -> list[int]:
    """Records per band of individual risk (:data:`RISK_BANDS`, each band closed above).

    Parameters
    ----------
    risk : ndarray of shape (n,)
        Individual risk of each record, or of each key combination.
    records : ndarray of shape (n,), optional
        Records of each key combination (default: one each).

    Returns
    -------
    list of int
        One count per band.
    """
    edges = np.r_[0.0, RISK_BANDS]
    idx = np.clip(np.searchsorted(edges, risk, side="left") - 1, 0, len(RISK_BANDS) - 1)
    if records is None:
        return [int(x) for x in np.bincount(idx, minlength=len(RISK_BANDS))]
    bands = np.rint(np.bincount(idx, weights=records, minlength=len(RISK_BANDS)))
    return [int(b) for b in bands]


def _figures(
    fk: np.ndarray,
    risk: np.ndarray,
    records: np.ndarray | None,
    k: int,
    risk_threshold: float,
    missing_qi_cells: int,
) -> dict[str, Any]:
    """The figures from fk and the risk of each record (``records`` None) or combination."""
    count = np.ones(len(fk), dtype=np.int64) if records is None else records
    n = int(count.sum())
    labels = [str(i) for i in range(1, k)] + [f">= {k}"]
    counts = [int(count[fk == i].sum()) for i in range(1, k)]
    counts.append(int(count[fk >= k].sum()))
    at_risk = int(count[fk < k].sum())
    er = float((risk * count).sum())
    return {
        "n_records": n,
        "k": k,
        "n_at_risk": at_risk,
        "share_at_risk": at_risk / n if n else 0.0,
        "n_unique": int(count[fk == 1].sum()),
        "fk_counts": {"labels": labels, "counts": counts},
        "missing_qi_cells": missing_qi_cells,
        "expected_reidentifications": er,
        "global_risk": er / n if n else 0.0,
        "max_risk": float(risk.max()) if n else 0.0,
        "risk_threshold": risk_threshold,
        "n_high_risk": int(count[risk > risk_threshold].sum()),
        "risk_bands": {"upper_edges": list(RISK_BANDS), "counts": count_bands(risk, records)},
        "household": None,
        "l_diversity": {},
    }


def pattern_risk_summary(
    fk: np.ndarray,
    Fk: np.ndarray | None,
    records: np.ndarray,
    k: int,
    *,
    risk_threshold: float = 0.1,
    missing_qi_cells: int = 0,
) -> dict[str, Any]:
    """The figures of :func:`risk_summary` from the distinct key combinations of a file.

    Every figure that depends on a record only through its key combination (and
    the weight sum of the combination) is the one :func:`risk_summary` gives; the
    household risk and l-diversity need the records and are left empty.

    Parameters
    ----------
    fk : ndarray of shape (n_patterns,)
        Sample frequency of each combination under the missing-value policy.
    Fk : ndarray of shape (n_patterns,), optional
        Estimated population frequency of each combination (with weights).
    records : ndarray of int of shape (n_patterns,)
        Records of each combination.
    k : int >= 1
        The k of k-anonymity.
    risk_threshold : float in (0, 1], default 0.1
        Records whose individual risk is above it are counted as high-risk.
    missing_qi_cells : int, default 0
        Missing cells in the key variables.

    Returns
    -------
    dict
        As :func:`risk_summary`, with ``household`` None and ``l_diversity`` ``{}``.
    """
    func = "pattern_risk_summary"
    k = check_int(k, "k", func, min_value=1)
    risk_threshold = check_number(
        risk_threshold, "risk_threshold", func, low=0, high=1, low_open=True
    )
    fk = _numbers(fk, "fk", func, None)
    Fk = None if Fk is None else _numbers(Fk, "Fk", func, len(fk))
    records = _numbers(records, "records", func, len(fk)).astype(np.int64)
    missing_qi_cells = check_int(missing_qi_cells, "missing_qi_cells", func, min_value=0)
    risk = np.asarray(risk_from_frequencies(whole_matches(fk), Fk), dtype=np.float64)
    return _figures(fk, risk, records, k, risk_threshold, missing_qi_cells)


def _numbers(value: Any, name: str, func: str, length: int | None) -> np.ndarray:
    """``value`` as a 1-d float array (of ``length`` entries when given), else raise."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.ndim != 1 or (length is not None and len(arr) != length):
        what = "a 1-d array of numbers" + ("" if length is None else f" of length {length}")
        raise param_error(name, func, what, type(value).__name__)
    return arr


def risk_summary(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[Hashable],
    k: int,
    *,
    weights: Hashable | None = None,
    hid: Hashable | None = None,
    sensitive: Sequence[Hashable] = (),
    kind: str = "distinct",
    l: int = 2,  # noqa: E741 - the name of the parameter in the literature
    c: float | None = None,
    risk_threshold: float = 0.1,
    missing: MissingPolicy = "wildcard",
    missing_values: Sequence[Any] | None = None,
) -> dict[str, Any]:
    """Risk figures of a file (aggregates only): k-anonymity, individual, household
    and l-diversity.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        Never modified.
    quasi_identifiers : list of column names
        Key variables.
    k : int >= 1
        The k of k-anonymity.
    weights : column name, optional
        Sampling weights (the individual risk is then estimated for the population).
    hid : column name, optional
        Household identifier; adds the household risk.
    sensitive : list of column names, optional
        Sensitive variables whose l-diversity is measured.
    kind : {"distinct", "entropy", "recursive"}, default "distinct"
        Kind of l-diversity (:func:`microsdc.risk.ldiversity.l_diversity`).
    l : int >= 1, default 2
        Records whose group has fewer than ``l`` (distinct or entropy) sensitive
        values fail l-diversity; with ``kind="recursive"``, the ``l`` of (c, l)-diversity.
    c : float, optional
        The ``c`` of recursive (c, l)-diversity.
    risk_threshold : float in (0, 1], default 0.1
        Records whose individual risk is above it are counted as high-risk.
    missing : str or float, default "wildcard"
        Missing-value policy of the frequencies
        (:func:`microsdc.risk.kanonymity.sample_frequencies`); l-diversity counts
        under it when it is "wildcard" or "category", else as wildcards.
    missing_values : list, optional
        Values that mean missing in every key variable, besides NaN and None.

    Returns
    -------
    dict
        ``n_records``, ``k``, ``n_at_risk`` (fk < k), ``share_at_risk``,
        ``n_unique`` (fk = 1), ``fk_counts`` (records with fk = 1, 2, ..., k - 1
        and >= k, labelled), ``missing_qi_cells``, ``expected_reidentifications``,
        ``global_risk``, ``max_risk``, ``risk_threshold``, ``n_high_risk`` (risk
        above the threshold), ``risk_bands`` (records per band of individual risk,
        :data:`RISK_BANDS`), ``household`` (None without ``hid``) and
        ``l_diversity`` (per sensitive variable: ``n_failing``, and
        ``n_not_applicable``, records whose group has no observed sensitive value
        and so cannot fail).

    Raises
    ------
    InvalidParameterError, ColumnNotFoundError, DataValidationError
        As :func:`microsdc.risk.kanonymity.sample_frequencies`,
        :func:`microsdc.risk.individual.household_risk` and
        :func:`microsdc.risk.ldiversity.l_diversity`.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["m", "m", "f"], "age": [1, 1, 2]})
    >>> s = risk_summary(df, ["sex", "age"], 2)
    >>> s["n_at_risk"], s["expected_reidentifications"]
    (1, 2.0)
    """
    func = "risk_summary"
    check_frame(df, "df", func)
    qi = check_columns(df, quasi_identifiers, "quasi_identifiers", func)
    k = check_int(k, "k", func, min_value=1)
    risk_threshold = check_number(
        risk_threshold, "risk_threshold", func, low=0, high=1, low_open=True
    )
    for name, column in (("weights", weights), ("hid", hid)):
        if column is not None:
            check_columns(df, [column], name, func)
    sensitive = check_columns(df, sensitive, "sensitive", func, allow_empty=True)
    check_one_of(kind, "kind", func, KINDS)
    check_int(l, "l", func, min_value=1)
    if c is not None:
        check_number(c, "c", func, low=0, low_open=True)
    parse_policy(missing, func)
    check_missing_values(missing_values, "missing_values", func)
    # the errors of the count name risk_summary, the function called
    fk, big_fk = frequencies_for(df, qi, missing, weights, missing_values, func)
    risk = risk_from_frequencies(whole_matches(fk), big_fk)
    n = len(df)
    n_missing = sum(int(missing_mask(df[col], missing_values or []).sum()) for col in qi)
    out = _figures(fk, risk, None, k, risk_threshold, n_missing)
    if hid is not None:
        codes = _household_codes(df, hid, func)
        hh = _household_from_risk(risk, codes)
        her = float(hh.sum())
        out["household"] = {
            "n_households": int(codes.max()) + 1 if n else 0,
            "expected_reidentifications": her,
            "global_risk": her / n if n else 0.0,
            "max_risk": float(hh.max()) if n else 0.0,
        }
    if sensitive:
        out["l_diversity"] = _l_diversity(df, qi, sensitive, kind, l, c, missing, missing_values)
    return out


def _l_diversity(
    df: pd.DataFrame,
    qi: list[Hashable],
    sensitive: Sequence[Hashable],
    kind: str,
    l: int,  # noqa: E741
    c: float | None,
    missing: MissingPolicy,
    missing_values: Sequence[Any] | None,
) -> dict[str, dict[str, Any]]:
    """The ``l_diversity`` entry of :func:`risk_summary`."""
    policy = missing if missing in ("wildcard", "category") else "wildcard"
    recursive = kind == "recursive"
    res = l_diversity(
        df,
        qi,
        list(sensitive),
        kind=kind,
        c=c if recursive else None,
        l=l if recursive else None,
        missing=policy,
        missing_values=missing_values,
    )
    n = len(df)
    out: dict[str, dict[str, Any]] = {}
    for s in sensitive:
        col = res[s]
        # a class without any observed sensitive value is not applicable, not failing
        na = col.isna().to_numpy(dtype=bool)
        if recursive:
            failing = ~col.fillna(True).to_numpy(dtype=bool)
        else:
            failing = (col.astype("float64").fillna(np.inf) < l).to_numpy(dtype=bool)
        entry: dict[str, Any] = {
            "kind": kind,
            "l": l,
            "c": c if recursive else None,
            "policy": policy,
            "n_failing": int(np.count_nonzero(failing)),
            "share_failing": float(np.count_nonzero(failing) / n) if n else 0.0,
            "n_not_applicable": int(np.count_nonzero(na)),
        }
        if not recursive:
            entry["min"] = float(col.min()) if n and not na.all() else 0.0
        out[str(s)] = entry
    return out
