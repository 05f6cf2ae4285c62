"""The risk and utility of the continuous variables of a job, for its audit record.

After microaggregation and/or noise, the job compares the values those steps started
from with the released ones, through the library's measures only
(:mod:`microsdc.utility.continuous`): record linkage, interval disclosure, IL1s, the
eigenvalue measure, SSE/SST, means, variances, Gini coefficients and correlations before
and after (per group of ``variables.compare_by`` when given), the percentiles and the
Lorenz curves the report draws. Every figure is an aggregate: no record, no value of one.
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import numpy as np
import pandas as pd

from microsdc.job.config import JobConfig
from microsdc.utility.continuous import (
    continuous_utility,
    interval_risk,
    linkage_risk,
    lorenz_curve,
)

__all__ = ["CONTINUOUS_STEPS", "LORENZ_POINTS", "PERCENTILES", "continuous_measures"]

#: The steps that change continuous variables.
CONTINUOUS_STEPS = ("microaggregation", "noise")

#: Percentiles of each variable kept for the report (1 % to 99 %: never a minimum or
#: maximum, which would be one record's value; fewer in a small file, see _percentiles).
PERCENTILES = tuple(range(1, 100))

#: The figures of :func:`continuous_utility` per variable (and group).
MOMENTS = ("mean_before", "var_before", "gini_before", "mean_after", "var_after", "gini_after")

#: Population shares (0 %, 1 %, ..., 100 %) at which the Lorenz curves are kept.
LORENZ_POINTS = 101


def continuous_variables(cfg: JobConfig) -> list[str]:
    """The variables of the job's microaggregation and noise steps, each once, in order."""
    out: list[str] = []
    for step in CONTINUOUS_STEPS:
        if step in cfg.steps:
            out += [c for c in cfg.methods[step]["variables"] if c not in out]
    return out


def _number(value: Any) -> float | None:
    """A float for JSON: None for NaN or infinity."""
    v = float(value)
    return v if math.isfinite(v) else None


def _label(value: Any) -> str:
    """A group's value as text: 2.0 (a column made float by a blank) as "2"."""
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    return str(value)


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    rows = []
    for row in table.to_dict(orient="records"):
        out: dict[str, Any] = {}
        for key, value in row.items():
            if key == "group":
                out[key] = _label(value)
            elif key == "column":
                out[key] = str(value)
            else:
                out[str(key)] = _number(value)
        rows.append(out)
    return rows


def _matrix(table: pd.DataFrame) -> list[list[float | None]]:
    return [[_number(v) for v in row] for row in table.to_numpy()]


def _percentiles(before: pd.DataFrame, after: pd.DataFrame, column: str, k: int) -> dict[str, Any]:
    """The percentiles with at least ``k`` records below and above them on both sides
    (1 % to 99 % from 100 k records on): an outer percentile of a small file is close
    to one record's value."""
    values = {}
    for name, frame in (("before", before), ("after", after)):
        v = pd.to_numeric(frame[column], errors="coerce").to_numpy(float, na_value=np.nan)
        values[name] = v[~np.isnan(v)]
    n = min(len(v) for v in values.values())
    kept = [p for p in PERCENTILES if min(p, 100 - p) / 100 * n >= k]
    out: dict[str, Any] = {"column": column, "levels": kept}
    for name, v in values.items():
        qs = np.quantile(v, np.array(kept) / 100) if kept else []
        out[name] = [_number(q) for q in qs]
    return out


def _lorenz(
    before: pd.DataFrame, after: pd.DataFrame, column: str, weights: pd.Series | None
) -> dict[str, Any]:
    """Both Lorenz curves at :data:`LORENZ_POINTS` population shares, or why not drawn."""
    shares = np.linspace(0.0, 1.0, LORENZ_POINTS)
    out: dict[str, Any] = {"column": column, "population_share": [float(s) for s in shares]}
    for name, frame in (("before", before), ("after", after)):
        values = pd.to_numeric(frame[column], errors="coerce")
        if (values < 0).any():
            return {"column": column, "not_drawn": "the amounts include negative values"}
        if not (values > 0).any():
            return {"column": column, "not_drawn": "the amounts add up to 0"}
        curve = lorenz_curve(values, weights)
        # the curve at evenly spaced population shares (linear between its points)
        out[name] = [
            float(v) for v in np.interp(shares, curve["population_share"], curve["amount_share"])
        ]
    return out


def _small_groups_withheld(
    rows: list[dict[str, Any]], groups: pd.Series, k: int
) -> list[dict[str, Any]]:
    """Each row with its group's ``records``; the figures of a group of fewer than ``k``
    records left out (None): the mean of one record is its amount."""
    sizes = {_label(key): int(n) for key, n in groups.value_counts().items()}
    sizes["(missing)"] = int(groups.isna().sum())
    for row in rows:
        row["records"] = sizes.get(row["group"], 0)
        if row["records"] < k:
            for key in MOMENTS:
                row[key] = None
    return rows


def continuous_measures(
    cfg: JobConfig, before: pd.DataFrame, after: pd.DataFrame
) -> dict[str, Any]:
    """The ``continuous`` entry of the audit record.

    Parameters
    ----------
    cfg : JobConfig
    before : pandas.DataFrame
        The data the release-method steps started from.
    after : pandas.DataFrame
        The data they released: the same records in the same order.

    Returns
    -------
    dict
        ``variables``, ``steps``, ``compare_by``, ``weights``, ``records_compared``
        (records with every variable observed before and after), ``linked_share``
        (mean of :func:`~microsdc.utility.continuous.linkage_risk`), ``interval_share``
        and its ``interval_fraction_of_sd`` (:func:`interval_risk`), ``il1s``,
        ``il1s_per_cell``, ``eigen``, ``sse_sst`` (:func:`continuous_utility`),
        ``per_variable`` (mean, variance and Gini before and after, the share of values
        within the interval; no Gini for a variable with amounts below 0), ``by_group``
        (the same per group of ``compare_by`` with its ``records``, left out (None) for a
        group of fewer than ``risk.k`` records; empty without it), ``correlations``
        (``before``/``after`` matrices over ``variables``), ``percentiles`` and
        ``lorenz`` per variable.
    """
    columns = continuous_variables(cfg)
    before = before.reset_index(drop=True)
    after = after.reset_index(drop=True)
    by = cfg.compare_by
    utility = continuous_utility(before, after, columns, weights=cfg.weights)
    linked = linkage_risk(before, after, columns)
    fraction = inspect.signature(interval_risk).parameters["fraction_of_sd"].default
    per_variable = _records(utility.columns)
    for row in per_variable:
        share = interval_risk(before, after, [row["column"]]).mean()
        row["interval_share"] = _number(share)
    by_group: list[dict[str, Any]] = []
    if by is not None:
        grouped = continuous_utility(before, after, columns, by=by, weights=cfg.weights)
        by_group = _small_groups_withheld(_records(grouped.columns), before[by], cfg.k)
    weights = before[cfg.weights] if cfg.weights else None
    lorenz = [_lorenz(before, after, c, weights) for c in columns]
    undefined = {curve["column"] for curve in lorenz if "not_drawn" in curve}
    for row in (*per_variable, *by_group):  # a Gini of amounts below 0 means nothing
        if row["column"] in undefined:
            row["gini_before"] = row["gini_after"] = None
    return {
        "variables": columns,
        "steps": [s for s in CONTINUOUS_STEPS if s in cfg.steps],
        "compare_by": by,
        "weights": cfg.weights,
        "records_compared": int(linked.notna().sum()),
        "linked_share": _number(linked.mean()) if linked.notna().any() else None,
        "interval_share": _number(interval_risk(before, after, columns).mean()),
        "interval_fraction_of_sd": float(fraction),
        "il1s": _number(utility.il1s),
        "il1s_per_cell": _number(utility.il1s_per_cell),
        "eigen": _number(utility.eigen),
        "sse_sst": _number(utility.sse_sst),
        "per_variable": per_variable,
        "by_group": by_group,
        "correlations": {
            "before": _matrix(utility.correlation_before),
            "after": _matrix(utility.correlation_after),
        },
        "percentiles": [_percentiles(before, after, c, cfg.k) for c in columns],
        "lorenz": lorenz,
    }
