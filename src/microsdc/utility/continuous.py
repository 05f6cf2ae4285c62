"""Risk and utility of continuous variables after microaggregation or noise.

Risk: distance-based record linkage (:func:`linkage_risk`) and interval disclosure
(:func:`interval_risk`). Utility: :func:`continuous_utility` (IL1s, the eigenvalue
measure, SSE/SST, moments and correlations before and after, Gini coefficients) and
:func:`lorenz_curve`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from microsdc._validation import check_columns, check_frame_pair, check_number
from microsdc.data.numeric import numeric_columns
from microsdc.data.quality import refuse_text_weights
from microsdc.exceptions import DataValidationError, InvalidParameterError

__all__ = [
    "ContinuousUtility",
    "continuous_utility",
    "interval_risk",
    "linkage_risk",
    "lorenz_curve",
]


def _pair(
    original: pd.DataFrame, released: pd.DataFrame, columns: object, func: str
) -> tuple[np.ndarray, np.ndarray, list[Hashable]]:
    """The columns of both frames as float arrays (rows = records), checked to match."""
    cols = check_frame_pair(original, released, columns, "columns", func)
    if len(original) != len(released) or not original.index.equals(released.index):
        raise InvalidParameterError(
            f"The 'released' parameter of {func} must hold the records of 'original' in the "
            "same order (the same index): each released record is compared with its own "
            "original. Reorder it with released.loc[original.index].",
            func=func,
            param="released",
        )
    why = "these measures are for numbers"
    x = numeric_columns(original, cols, func, why)
    y = numeric_columns(released, cols, func, why)
    return x, y, cols


def _scale(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    center = np.nanmean(x, axis=0)
    sd = np.nanstd(x, axis=0)
    return center, np.where(sd > 0, sd, 1.0)


def linkage_risk(
    original: pd.DataFrame, released: pd.DataFrame, columns: Hashable | Sequence[Hashable]
) -> pd.Series:
    """Distance-based record linkage: the chance that an intruder holding the original
    values links each released record to its own original by nearest neighbour.

    Variables are standardised by the original's mean and standard deviation; the
    distance is Euclidean. A released record whose own original is at the least
    distance, with ``t`` originals tied there, is linked with probability ``1 / t``;
    otherwise 0. Records with a missing value in ``columns`` are left out (NaN).
    The mean of the result is the share of records linked (sdcMicro's
    ``recordLinkage``-style measure; Domingo-Ferrer & Torra 2001).

    Parameters
    ----------
    original, released : pandas.DataFrame
        The same records in the same order (the same index).
    columns : column name or list of column names
        Numeric variables.

    Returns
    -------
    pandas.Series of float in [0, 1], indexed like ``original``.

    Raises
    ------
    InvalidParameterError
        If the frames do not hold the same records in the same order.
    ColumnNotFoundError
        For a column missing from either frame.
    DataValidationError
        For a column that is not numeric.

    Examples
    --------
    >>> import pandas as pd
    >>> o = pd.DataFrame({"x": [1.0, 2.0, 10.0, 11.0]})
    >>> r = pd.DataFrame({"x": [1.5, 1.5, 10.5, 10.9]})
    >>> linkage_risk(o, r, "x").tolist()
    [0.5, 0.5, 0.5, 1.0]
    """
    from scipy.spatial import cKDTree

    x, y, _ = _pair(original, released, columns, "linkage_risk")
    center, scale = _scale(x)
    xs, ys = (x - center) / scale, (y - center) / scale
    ok = ~(np.isnan(xs).any(axis=1) | np.isnan(ys).any(axis=1))
    out = np.full(len(x), np.nan)
    if not ok.any():
        return pd.Series(out, index=original.index, name="linkage_risk")
    rows = np.flatnonzero(ok)
    own = np.sqrt(((xs[rows] - ys[rows]) ** 2).sum(axis=1))
    # identical points give identical answers: the originals are counted with their
    # multiplicity and each distinct released point is queried once, so files with many
    # tied records (rounded amounts, zeros, group means) take no longer than the others
    points, count = np.unique(xs[rows], axis=0, return_counts=True)
    queries, which = np.unique(ys[rows], axis=0, return_inverse=True)
    which = which.reshape(-1)
    tree = cKDTree(points)
    nearest_q, _ = tree.query(queries, k=1)
    nearest = nearest_q[which]
    hit = own <= nearest + 1e-9 * (1.0 + nearest)
    risk = np.zeros(len(rows))
    if hit.any():
        asked = np.unique(which[hit])
        radius = nearest_q[asked] + 1e-9 * (1.0 + nearest_q[asked])
        tied = np.zeros(len(queries))
        tied[asked] = _count_within(tree, queries[asked], radius, count)
        risk[hit] = 1.0 / np.maximum(tied[which[hit]], 1.0)
    out[rows] = risk
    return pd.Series(out, index=original.index, name="linkage_risk")


def _count_within(
    tree: Any, points: np.ndarray, radius: np.ndarray, count: np.ndarray
) -> np.ndarray:
    """The records within ``radius`` of each point: the tree's points weighted by ``count``."""
    if (count == 1).all():
        return np.asarray(tree.query_ball_point(points, radius, return_length=True), float)
    found = tree.query_ball_point(points, radius)
    sizes = np.fromiter((len(f) for f in found), dtype=np.int64, count=len(found))
    flat = np.fromiter((i for f in found for i in f), dtype=np.int64, count=int(sizes.sum()))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    totals = np.zeros(len(found))
    filled = sizes > 0
    totals[filled] = np.add.reduceat(count[flat].astype(float), starts[filled])
    return totals


def interval_risk(
    original: pd.DataFrame,
    released: pd.DataFrame,
    columns: Hashable | Sequence[Hashable],
    *,
    fraction_of_sd: float = 0.05,
) -> pd.Series:
    """Interval disclosure: whether every original value of a record lies within
    ``fraction_of_sd`` released standard deviations of its released value.

    An intruder who knows the released values learns each original to within that
    interval; a record is at risk when it holds for all ``columns`` (missing values
    skipped). The mean is sdcMicro's ``dRisk`` with ``k = fraction_of_sd`` (its code
    uses the released column's standard deviation, not a rank interval as its
    documentation says).

    Parameters
    ----------
    original, released : pandas.DataFrame
        The same records in the same order (the same index).
    columns : column name or list of column names
    fraction_of_sd : float > 0, default 0.05
        Half-width of the interval, as a fraction of the released column's sd.

    Returns
    -------
    pandas.Series of bool, indexed like ``original``.

    Raises
    ------
    InvalidParameterError, ColumnNotFoundError, DataValidationError
        As :func:`linkage_risk`, and for ``fraction_of_sd`` <= 0.
    """
    fraction = check_number(
        fraction_of_sd, "fraction_of_sd", "interval_risk", low=0.0, low_open=True
    )
    x, y, _ = _pair(original, released, columns, "interval_risk")
    sd = np.nanstd(y, axis=0, ddof=1) if len(y) > 1 else np.zeros(y.shape[1])
    outside = np.abs(x - y) > fraction * sd
    at_risk = ~np.where(np.isnan(x) | np.isnan(y), False, outside).any(axis=1)
    return pd.Series(at_risk, index=original.index, name="interval_risk")


def _gini(values: np.ndarray, weights: np.ndarray) -> float:
    ok = ~np.isnan(values)
    v, w = values[ok], weights[ok]
    if not len(v) or v.sum() <= 0:
        return float("nan")
    order = np.argsort(v, kind="stable")
    v, w = v[order], w[order]
    cw = np.cumsum(w)
    cv = np.cumsum(v * w)
    total_w, total_v = cw[-1], cv[-1]
    # area under the Lorenz curve by trapezoids
    prev = np.concatenate([[0.0], cv[:-1]])
    area = float(np.sum(w / total_w * (prev + cv) / (2 * total_v)))
    return 1.0 - 2.0 * area


def lorenz_curve(values: pd.Series, weights: pd.Series | None = None) -> pd.DataFrame:
    """The Lorenz curve of non-negative amounts: the share of the total held by the
    poorest share of the population.

    Parameters
    ----------
    values : pandas.Series of numbers >= 0 (missing values left out)
    weights : pandas.Series, optional
        Population weights (finite, >= 0, not all 0), aligned with ``values`` by index.

    Returns
    -------
    pandas.DataFrame
        Columns ``population_share`` and ``amount_share``, from (0, 0) to (1, 1).

    Raises
    ------
    DataValidationError
        For values that are not numbers, negative or infinite, for weights that are
        missing, negative, infinite or all 0, or for a total of 0.
    """
    func = "lorenz_curve"
    frame = pd.DataFrame({"v": values})
    x = numeric_columns(frame, ["v"], func, "a Lorenz curve is of amounts")[:, 0]
    if weights is None:
        w = np.ones(len(x))
    else:
        aligned = pd.Series(weights).reindex(pd.Series(values).index)
        refuse_text_weights(aligned, "weights", None, func, words_too=True)
        w = pd.to_numeric(aligned, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    ok = ~np.isnan(x)
    v, ww = x[ok], w[ok]
    if (v < 0).any():
        raise DataValidationError(
            f"{func} is of non-negative amounts; the values include {float(v.min())!r}.",
            func=func,
            param="values",
        )
    if not np.isfinite(ww).all() or (ww < 0).any() or ww.sum() <= 0:
        raise DataValidationError(
            f"The weights of {func} must be finite numbers >= 0, not all 0, one per value "
            "(aligned by index).",
            func=func,
            param="weights",
        )
    order = np.argsort(v, kind="stable")
    cw = np.concatenate([[0.0], np.cumsum(ww[order])])
    cv = np.concatenate([[0.0], np.cumsum(v[order] * ww[order])])
    if cv[-1] <= 0:
        raise DataValidationError(
            f"{func}: the amounts add up to 0, so no share can be computed.",
            func=func,
            param="values",
        )
    return pd.DataFrame({"population_share": cw / cw[-1], "amount_share": cv / cv[-1]})


@dataclass(frozen=True)
class ContinuousUtility:
    """Utility measures of :func:`continuous_utility`.

    Attributes
    ----------
    il1s : float
        sdcMicro's ``dUtility(method="IL1s")``: the sum over cells of
        ``|x - x'| / (sqrt(2) sd(x))`` (a sum, so it grows with the file).
    il1s_per_cell : float
        The same divided by the number of cells compared.
    eigen : float
        sdcMicro's eigenvalue measure: ``sum |e - e'| / e`` over the eigenvalues of the
        correlation matrices before and after.
    sse_sst : float
        Squared differences of the standardised values over their total sum of squares.
    columns : pandas.DataFrame
        Per column (and per group with ``by``): mean, variance, Gini before and after.
    correlation_change : pandas.DataFrame
        Correlations after minus before.
    correlation_before, correlation_after : pandas.DataFrame
        Pearson correlations of the records complete in both frames, before and after.
    """

    il1s: float
    il1s_per_cell: float
    eigen: float
    sse_sst: float
    columns: pd.DataFrame
    correlation_change: pd.DataFrame
    correlation_before: pd.DataFrame
    correlation_after: pd.DataFrame


def continuous_utility(
    original: pd.DataFrame,
    released: pd.DataFrame,
    columns: Hashable | Sequence[Hashable],
    *,
    by: Hashable | None = None,
    weights: Hashable | None = None,
) -> ContinuousUtility:
    """How much continuous variables changed: IL1s, eigenvalues, SSE/SST, moments, Gini.

    Parameters
    ----------
    original, released : pandas.DataFrame
        The same records in the same order (the same index).
    columns : column name or list of column names
    by : column name, optional
        A grouping variable of ``original`` (a region, say): moments and Gini per group
        (records without a value form the group ``"(missing)"``).
    weights : column name, optional
        Weights of ``original`` for the moments and Gini coefficients.

    Returns
    -------
    ContinuousUtility

    Raises
    ------
    InvalidParameterError, ColumnNotFoundError, DataValidationError
        As :func:`linkage_risk`; also for ``by`` or ``weights`` not in ``original``.
    """
    func = "continuous_utility"
    x, y, cols = _pair(original, released, columns, func)
    w = np.ones(len(x))
    if weights is not None:
        (wc,) = check_columns(original, weights, "weights", func)
        refuse_text_weights(original[wc], repr(wc), wc, func, words_too=True)
        w = pd.to_numeric(original[wc], errors="coerce").to_numpy(dtype=np.float64, na_value=0.0)
    both = ~(np.isnan(x) | np.isnan(y))
    sd = np.nanstd(x, axis=0, ddof=1) if len(x) > 1 else np.ones(x.shape[1])
    sd = np.where(sd > 0, sd, 1.0)
    cells = np.where(both, np.abs(x - y) / (np.sqrt(2) * sd), 0.0)
    il1s = float(cells.sum())
    center, scale = _scale(x)
    zx, zy = (x - center) / scale, (y - center) / scale
    sse = float(np.where(both, (zx - zy) ** 2, 0.0).sum())
    sst = float(np.where(both, (zx - np.nanmean(zx, axis=0)) ** 2, 0.0).sum())
    complete = both.all(axis=1)
    eigen, before, after = _correlations(x[complete], y[complete], cols)
    groups = original[check_columns(original, by, "by", func)[0]] if by is not None else None
    return ContinuousUtility(
        il1s=il1s,
        il1s_per_cell=il1s / max(int(both.sum()), 1),
        eigen=eigen,
        sse_sst=sse / sst if sst else 0.0,
        columns=_moments_table(x, y, w, cols, groups),
        correlation_change=after - before,
        correlation_before=before,
        correlation_after=after,
    )


def _correlations(
    x: np.ndarray, y: np.ndarray, cols: list[Hashable]
) -> tuple[float, pd.DataFrame, pd.DataFrame]:
    index = pd.Index(cols, dtype=object)
    if len(cols) < 2 or len(x) < 3:
        eye = pd.DataFrame(np.eye(len(cols)), index=index, columns=index)
        return 0.0, eye, eye.copy()
    cx, cy = np.corrcoef(x.T), np.corrcoef(y.T)
    ex = np.sort(np.linalg.eigvalsh(cx))[::-1]
    ey = np.sort(np.linalg.eigvalsh(cy))[::-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        eigen = float(np.nansum(np.abs(ex - ey) / ex))
    before = pd.DataFrame(cx, index=index, columns=index)
    return eigen, before, pd.DataFrame(cy, index=index, columns=index)


def _moments_table(
    x: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    cols: list[Hashable],
    groups: pd.Series | None,
) -> pd.DataFrame:
    keys: list[object] = [None] if groups is None else list(pd.unique(groups.dropna()))
    if groups is not None and groups.isna().any():
        keys.append("(missing)")  # records without a group are a group of their own
    rows = []
    for key in keys:
        if key is None:
            inside = np.ones(len(x), bool)
        elif key == "(missing)" and groups is not None:
            inside = groups.isna().to_numpy()
        else:
            inside = np.asarray(groups == key, dtype=bool)
        for j, c in enumerate(cols):
            a, b, ww = x[inside, j], y[inside, j], w[inside]
            row = {"column": c} if key is None else {"group": key, "column": c}
            for name, v in (("before", a), ("after", b)):
                ok = ~np.isnan(v) & (ww > 0)
                mean = float(np.average(v[ok], weights=ww[ok])) if ok.any() else np.nan
                var = float(np.average((v[ok] - mean) ** 2, weights=ww[ok])) if ok.any() else np.nan
                row[f"mean_{name}"] = mean
                row[f"var_{name}"] = var
                row[f"gini_{name}"] = _gini(v, np.where(ok, ww, 0.0))
            rows.append(row)
    return pd.DataFrame(rows)
