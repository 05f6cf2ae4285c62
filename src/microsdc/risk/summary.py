"""The risk figures of a file, before and after protection, as a job's audit record,
its report and ``microsdc run`` show them.

:func:`risk_summary` measures a frame: a pandas frame record by record, a lazy frame
(polars ``LazyFrame``, DuckDB relation, Spark ``DataFrame``) from the distinct key
combinations its engine reports and their numbers of records, through the same count
(:mod:`microsdc.risk.counting`). :func:`pattern_risk_summary` gives those figures from
combinations a caller already holds.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import MissingPolicy, Policy, parse_policy
from microsdc._validation import (
    check_columns,
    check_frame,
    check_int,
    check_missing_values,
    check_number,
    check_one_of,
    param_error,
)
from microsdc.backends.adapters import FrameAdapter, adapt
from microsdc.backends.dispatch import accepts_frames
from microsdc.backends.frequencies import column_frame
from microsdc.risk.counting import KeyRows, key_rows
from microsdc.risk.frequencies import PatternFrequencies
from microsdc.risk.individual import (
    _household_codes,
    _household_from_risk,
    risk_from_frequencies,
    whole_matches,
)
from microsdc.risk.ldiversity import KINDS, l_diversity

__all__ = [
    "FK_BARS",
    "RISK_BANDS",
    "count_bands",
    "engine_risk_figures",
    "fk_bands",
    "pattern_risk_summary",
    "risk_summary",
]

#: Upper edges of the individual-risk bands counted for the figures (the first band starts at 0).
RISK_BANDS = (0.00001, 0.0001, 0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0)


#: Most bars below k of the fk chart: up to this many, one per whole fk value 1, ..., k - 1;
#: beyond, bands of growing width (see :func:`fk_bands`).
FK_BARS = 11


def _nice_edges(k: int) -> list[int]:
    """1, 2, 3, 4, 5, then 10, 20, 50, 100, ... (or, when those are too many, 10, 100,
    1000, ...) below ``k``: at most about 20 edges whatever ``k``."""
    edges = [e for e in (1, 2, 3, 4, 5) if e < k]
    steps: tuple[int, ...] = (1, 2, 5)
    if k > 10_000:  # decades only: 1e14 gives 18 bars, not 42
        steps = (1,)
    power = 10
    while power < k:
        edges += [power * s for s in steps if power * s < k]
        power *= 10
    return edges


def fk_bands(k: int, fractional: bool, n_records: int | None = None) -> tuple[list[int], list[str]]:
    """The bars of the fk chart below k: their lower edges and their labels, and the
    label of the last bar, fk >= k.

    Up to :data:`FK_BARS` bars below k there is one per whole value 1, ..., k - 1;
    beyond, the bars are bands 1, 2, 3, 4, 5-9, 10-19, 20-49, ... (decades beyond
    k = 10,000), the last one ending at k - 1, so the number of bars grows with the
    logarithm of k and never with k.

    Parameters
    ----------
    k : int >= 1
        The k of k-anonymity.
    fractional : bool
        Whether fk can take fractional values (a missing-value policy "probabilistic"
        or alpha strictly between 0 and 1). Then each bar holds the fk from its
        lower edge up to, not including, the next (the first bar everything below
        the second edge), and says so in its label: "< 2", "2 to < 3", ...
    n_records : int, optional
        Records of the file: no record has an fk above it, so the bands that start
        above it are left out (the last band kept ends at k - 1).

    Returns
    -------
    lower_edges : list of int
        The lower edge of each bar below k (empty for k = 1).
    labels : list of str
        One label per bar, the last ">= k".

    Examples
    --------
    >>> fk_bands(1, False)
    ([], ['>= 1'])
    >>> fk_bands(3, False)
    ([1, 2], ['1', '2', '>= 3'])
    >>> fk_bands(3, True)
    ([1, 2], ['< 2', '2 to < 3', '>= 3'])
    >>> fk_bands(25, False)[1]
    ['1', '2', '3', '4', '5-9', '10-19', '20-24', '>= 25']
    >>> fk_bands(10**9, False, n_records=30)[1]
    ['1', '2', '3', '4', '5-9', '10-999,999,999', '>= 1,000,000,000']
    """
    lows = list(range(1, k)) if k - 1 <= FK_BARS else _nice_edges(k)
    if n_records is not None:
        lows = [lo for i, lo in enumerate(lows) if i == 0 or lo <= n_records]
    highs = [*lows[1:], k] if lows else []
    labels = []
    for i, (lo, hi) in enumerate(zip(lows, highs, strict=True)):
        if fractional:
            labels.append(f"< {hi:,}" if i == 0 else f"{lo:,} to < {hi:,}")
        else:
            labels.append(f"{lo:,}" if hi - 1 == lo else f"{lo:,}-{hi - 1:,}")
    return lows, [*labels, f">= {k:,}"]


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
    fractional: bool,
) -> dict[str, Any]:
    """The figures from fk and the risk of each record (``records`` None) or combination."""
    count = np.ones(len(fk), dtype=np.int64) if records is None else records
    n = int(count.sum())
    lows, labels = fk_bands(k, fractional, n)
    below = fk < k
    # bar of each record: the last lower edge at or under its fk (the first bar takes
    # everything under the second edge), the bar fk >= k after them
    bar = np.where(below, np.clip(np.searchsorted(lows, fk, side="right") - 1, 0, None), len(lows))
    counts = [int(c) for c in np.bincount(bar, minlength=len(lows) + 1)]
    if records is not None:
        counts = [int(c) for c in np.rint(np.bincount(bar, weights=count, minlength=len(lows) + 1))]
    at_risk = int(count[below].sum())
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
    missing: MissingPolicy | None = None,
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
    missing : str or float, optional
        The missing-value policy ``fk`` was counted under; it tells whether fk can be
        fractional, which the labels of ``fk_counts`` say (:func:`fk_bands`).
        Default: fractional when any ``fk`` is.

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
    if missing is None:  # the fk values say
        fractional = bool(np.any(fk != np.floor(fk)))
    else:
        fractional = _fractional(parse_policy(missing, func))
    return _pattern_figures(fk, Fk, records, k, risk_threshold, missing_qi_cells, fractional)


def _pattern_figures(
    fk: np.ndarray,
    Fk: np.ndarray | None,
    records: np.ndarray,
    k: int,
    risk_threshold: float,
    missing_qi_cells: int,
    fractional: bool,
) -> dict[str, Any]:
    """The figures from distinct key combinations (fk and Fk as floats, records as
    integers, as :func:`pattern_risk_summary` takes them)."""
    fk = np.asarray(fk, dtype=np.float64)
    Fk = None if Fk is None else np.asarray(Fk, dtype=np.float64)
    records = np.asarray(records, dtype=np.float64).astype(np.int64)
    risk = np.asarray(risk_from_frequencies(whole_matches(fk), Fk), dtype=np.float64)
    return _figures(fk, risk, records, k, risk_threshold, missing_qi_cells, fractional)


def _fractional(policy: Policy) -> bool:
    """Whether fk can take fractional values under ``policy`` (alpha 0 cannot)."""
    return policy.kind == "probabilistic" or (policy.kind == "alpha" and policy.alpha > 0)


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


@accepts_frames(lazy=True)
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
        Never modified. A polars ``DataFrame`` or pyarrow ``Table`` is measured as
        pandas; a polars ``LazyFrame``, DuckDB relation or Spark ``DataFrame`` from
        its distinct key combinations, which its engine counts (no row enters
        Python): the same figures, without the household risk and l-diversity.
    quasi_identifiers : list of column names
        Key variables.
    k : int >= 1
        The k of k-anonymity.
    weights : column name, optional
        Sampling weights (the individual risk is then estimated for the population).
    hid : column name, optional
        Household identifier; adds the household risk. Not on a lazy frame.
    sensitive : list of column names, optional
        Sensitive variables whose l-diversity is measured. Not on a lazy frame.
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
        ``n_unique`` (fk = 1), ``fk_counts`` (records per bar of the fk chart,
        labelled: fk = 1, 2, ..., k - 1 and >= k, or bands of fk for a larger k, see
        :func:`fk_bands`; a fractional fk is counted in the bar its value falls in,
        so the bars below k add up to ``n_at_risk``), ``missing_qi_cells``,
        ``expected_reidentifications``,
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
    InvalidParameterError
        Also when ``hid`` or ``sensitive`` is given with a lazy frame: the household
        risk and l-diversity need the records (the message names the parameter and
        how to collect the frame), after the other parameters are checked and before
        any row is read.

    Notes
    -----
    On a lazy frame the figures are summed over the distinct key combinations, each
    weighing its records: the same numbers as on the records, up to the last bits
    of the sums of risks.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["m", "m", "f"], "age": [1, 1, 2]})
    >>> s = risk_summary(df, ["sex", "age"], 2)
    >>> s["n_at_risk"], s["expected_reidentifications"]
    (1, 2.0)
    """
    func = "risk_summary"
    frame = adapt(df, func)
    names = df if frame.name == "pandas" else column_frame(frame.native)
    check_frame(names, "df", func)
    qi = check_columns(names, quasi_identifiers, "quasi_identifiers", func)
    k = check_int(k, "k", func, min_value=1)
    risk_threshold = check_number(
        risk_threshold, "risk_threshold", func, low=0, high=1, low_open=True
    )
    for name, column in (("weights", weights), ("hid", hid)):
        if column is not None:
            check_columns(names, [column], name, func)
    sensitive = check_columns(names, sensitive, "sensitive", func, allow_empty=True)
    check_one_of(kind, "kind", func, KINDS)
    check_int(l, "l", func, min_value=1)
    if c is not None:
        check_number(c, "c", func, low=0, low_open=True)
    fractional = _fractional(parse_policy(missing, func))
    check_missing_values(missing_values, "missing_values", func)
    if frame.lazy:
        _refuse_record_measures(frame, hid, sensitive)
    # the errors of the count name risk_summary, the function called
    keys = key_rows(frame, qi, missing, weights, missing_values, func)
    out, risk = key_figures(keys, k, risk_threshold, fractional, missing_values)
    if hid is not None:
        out["household"] = _household(df, hid, risk, func)
    if sensitive:
        out["l_diversity"] = _l_diversity(df, qi, sensitive, kind, l, c, missing, missing_values)
    return out


#: risk_summary's parameters that need the records, by their entry in the table of what
#: a lazy engine cannot do (:data:`microsdc.backends.capabilities.NEEDS_RECORDS`).
_RECORD_MEASURES = {"hid": "risk_hid", "sensitive": "risk_sensitive"}


def _refuse_record_measures(frame: FrameAdapter, hid: Any, sensitive: Any) -> None:
    """Refuse the household risk and l-diversity on a lazy frame, with the capability
    table's reason and how to collect the frame."""
    from microsdc._validation import lazy_refusal
    from microsdc.backends.capabilities import first_refusal
    from microsdc.backends.dispatch import COLLECT

    given = {"hid": hid, "sensitive": sensitive}
    refused = first_refusal({_RECORD_MEASURES[p]: v for p, v in given.items()})
    if refused is not None:
        entry, value = refused
        param = next(p for p, key in _RECORD_MEASURES.items() if key == entry.param)
        collect = COLLECT.get(frame.name, COLLECT["polars"])
        raise lazy_refusal(param, "risk_summary", entry.reason(value), value, collect)


def key_figures(
    keys: KeyRows,
    k: int,
    risk_threshold: float,
    fractional: bool,
    missing_values: Any,
    res: PatternFrequencies | None = None,
) -> tuple[dict[str, Any], np.ndarray | None]:
    """The figures of :func:`risk_summary` (household risk and l-diversity left empty)
    from the key rows of a frame (:func:`~microsdc.risk.counting.key_rows`), and the
    individual risk of each record (None when the rows are an engine's combinations).

    Records in memory are counted one by one; an engine's combinations are counted as
    distinct patterns with their records (:func:`pattern_risk_summary`'s figures), ``res``
    their frequencies (and the records' fk and Fk) when already counted
    (:meth:`KeyRows.frequencies`)."""
    if keys.records is None:
        fk, big_fk = keys.row_frequencies() if res is None else (res.row_fk, res.row_Fk)
        risk = risk_from_frequencies(whole_matches(fk), big_fk)
        n_missing = keys.missing_cells(missing_values)
        return _figures(fk, risk, None, k, risk_threshold, n_missing, fractional), risk
    res = keys.frequencies() if res is None else res
    n_missing = keys.missing_cells(missing_values)
    out = _pattern_figures(res.fk, res.Fk, res.count, k, risk_threshold, n_missing, fractional)
    return out, None


def engine_risk_figures(
    keys: KeyRows, k: int, risk_threshold: float, missing_values: Any
) -> dict[str, Any]:
    """The figures of :func:`risk_summary` from key rows already counted
    (:func:`~microsdc.risk.counting.key_rows`, under their policy), the
    parameters already checked: what a job on an engine input measures, without a
    second group-by (household risk and l-diversity left empty)."""
    fractional = _fractional(keys.policy)
    return key_figures(keys, k, risk_threshold, fractional, missing_values)[0]


def _household(df: pd.DataFrame, hid: Hashable, risk: Any, func: str) -> dict[str, Any]:
    """The ``household`` entry of :func:`risk_summary`."""
    n = len(df)
    codes = _household_codes(df, hid, func)
    hh = _household_from_risk(risk, codes)
    her = float(hh.sum())
    return {
        "n_households": int(codes.max()) + 1 if n else 0,
        "expected_reidentifications": her,
        "global_risk": her / n if n else 0.0,
        "max_risk": float(hh.max()) if n else 0.0,
    }


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
