"""Noise addition for continuous variables: :func:`add_noise`."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.warn import warn
from microsdc._random import SeedLike, check_random_state
from microsdc._validation import (
    check_bool,
    check_columns,
    check_frame,
    check_keys,
    check_number,
    check_one_of,
    given_alone_error,
)
from microsdc.data.numeric import numeric_columns, positive_weights
from microsdc.data.rowkeys import key_normals, ordered_record_keys
from microsdc.exceptions import DataValidationError, DisclosureRiskWarning, InvalidParameterError
from microsdc.noise.result import NoiseResult, key_columns, noise_figures

__all__ = ["NOISE_METHODS", "OUTLIER_THRESHOLD", "add_noise"]

_FUNC = "add_noise"
#: ``method=`` options
NOISE_METHODS = ("additive", "correlated", "multiplicative", "outliers")
#: The robust z-score of ``method="outliers"`` when ``outlier_threshold`` is not given
OUTLIER_THRESHOLD = 3.0


def add_noise(
    df: pd.DataFrame,
    columns: Hashable | Sequence[Hashable],
    *,
    method: str = "additive",
    relative_sd: float = 0.1,
    keep_covariance: bool = False,
    outlier_threshold: float | None = None,
    lower: float | Mapping[Hashable, float] | None = None,
    upper: float | Mapping[Hashable, float] | None = None,
    totals: Mapping[Hashable, Sequence[Hashable]] | None = None,
    weights: Hashable | None = None,
    seed: SeedLike = None,
) -> NoiseResult:
    """Add random noise to continuous variables.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        Never modified.
    columns : column name or list of column names
        Numeric variables to perturb. Missing values stay missing.
    method : {"additive", "correlated", "multiplicative", "outliers"}, default "additive"
        ``"additive"``: independent normal noise of standard deviation ``relative_sd``
        times the column's (Brand 2002; sdcMicro ``addNoise(method="additive")`` with
        ``noise = 100 * relative_sd``). ``"correlated"``: normal noise with covariance
        ``relative_sd**2`` times the columns' covariance matrix, so correlations survive
        (Kim 1986; sdcMicro ``"correlated"`` with ``noise = 100 * relative_sd**2``: its
        noise is variance-scaled). ``"multiplicative"``: each value times
        ``exp(e - s**2 / 2)`` with ``e`` normal of sd ``s = relative_sd``: the expected
        value is kept and a non-negative amount stays non-negative (for skewed incomes).
        ``"outliers"``: noise only on values whose robust z-score ``|x - median| /
        (1.4826 MAD)`` exceeds ``outlier_threshold`` (when more than half the values are
        equal and the MAD is 0, ``1.2533`` times the mean absolute deviation from the
        median takes its place), with sd ``relative_sd`` times the column's sd times
        ``|z| / outlier_threshold`` (more for the more outlying).
    relative_sd : float >= 0, default 0.1
        The noise's standard deviation as a fraction of the column's standard deviation
        (additive, correlated, outliers), or the sd of the log factor (multiplicative).
        ``0.1`` is a tenth of a standard deviation. sdcMicro's ``noise`` is a percentage
        (``noise = 150`` is 1.5 sd), which the SDC Practice Guide misreads as a fraction.
    keep_covariance : bool, default False
        ``"correlated"`` only: transform the noisy values so that their mean vector and
        covariance matrix equal the original's exactly (to rounding), as Tendick &
        Matloff's or RegSDC's exact methods do. Exact over the records complete in every
        column (the others keep their drawn noise); not with ``lower``/``upper``; a
        singular covariance (a constant or collinear column) is warned and left as drawn.
    outlier_threshold : float > 0, optional
        Robust z-score above which a value is an outlier (``"outliers"``). Default
        (None): 3 (:data:`OUTLIER_THRESHOLD`). Only with ``method="outliers"``: given
        with another method, it is refused, since it would change nothing.
    lower, upper : float or dict {column: float}, optional
        Bounds of the released values (``lower=0`` keeps amounts non-negative): a value
        drawn outside is drawn again, up to 20 times, then set to the bound
        (``n_bounded`` counts those).
    totals : dict {aggregate column: [component columns]}, optional
        Aggregates recomputed as the sum of their noisy components (components must be
        in ``columns``; an aggregate must not be), so a release stays consistent.
    weights : column name, optional
        Sampling weights (finite numbers > 0) for the standard deviations and
        covariances the noise is scaled by.
    seed : int, numpy.random.Generator or None
        The same seed gives the same release whatever the order of the rows.

    Returns
    -------
    NoiseResult
        ``data``, the realised noise sd and relative sd per column, signal-to-noise
        ratios, means, variances and correlations before and after, the outliers
        perturbed and the values set to a bound.

    Raises
    ------
    InvalidParameterError
        For a parameter of the wrong type or range, naming it (``keep_covariance``
        without ``method="correlated"`` or with bounds, ``outlier_threshold`` without
        ``method="outliers"`` (the message names both), ``lower`` above ``upper``, a
        bound for a column not noised, an aggregate of ``totals`` that is also noised).
    ColumnNotFoundError
        For a column of ``columns``, ``totals`` or ``weights`` not in ``df``.
    DataValidationError
        For a column that is not numeric or holds an infinite value (or one beyond
        1e150), negative values under ``"multiplicative"``, a weight that is missing, not
        finite or not > 0, or noise that overflows.

    Warns
    -----
    DisclosureRiskWarning
        When ``keep_covariance`` meets a singular covariance matrix.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> df = pd.DataFrame({"income": np.random.default_rng(0).lognormal(8, 1, 1000)})
    >>> res = add_noise(df, "income", relative_sd=0.2, seed=1)
    >>> round(float(res.figures.loc["income", "relative_sd"]), 2)
    0.2
    """
    check_frame(df, "df", _FUNC)
    cols = check_columns(df, columns, "columns", _FUNC)
    method = check_one_of(method, "method", _FUNC, NOISE_METHODS)
    relative_sd = check_number(relative_sd, "relative_sd", _FUNC, low=0.0)
    keep_covariance = check_bool(keep_covariance, "keep_covariance", _FUNC)
    outlier_threshold = _outlier_threshold(outlier_threshold, method)
    if keep_covariance and method != "correlated":
        raise given_alone_error(
            _FUNC,
            "keep_covariance",
            keep_covariance,
            f"method is {method!r}, not 'correlated'",
            "only the correlated noise is transformed to keep the covariance",
            ("method", "method='correlated'"),
        )
    if keep_covariance and (lower is not None or upper is not None):
        raise InvalidParameterError(
            f"The 'keep_covariance' parameter of {_FUNC} keeps the covariance exactly, which "
            "bounds would break (values moved to a bound). Leave 'lower' and 'upper' out, or "
            "keep_covariance=False.",
            func=_FUNC,
            param="keep_covariance",
            related=("lower", "upper"),
        )
    bounds = _bounds(df, cols, lower, upper)
    aggregates = _totals(df, totals, cols)
    w = _weights(df, weights)
    rng = check_random_state(seed, func=_FUNC)
    # each record's numbers follow from its values, not its row; moments are summed in the
    # order of the keys (canon), so no rounding depends on the rows' order
    keys, canon = ordered_record_keys(df)
    x = _numeric(df, cols, method)
    z = key_normals(keys, rng, len(cols))
    xk = key_columns(x, canon)
    wk = None if weights is None else np.take(w, canon)
    sd = _wsds(xk, wk) if method in ("additive", "outliers") else np.zeros(len(cols))
    noisy, outliers = _draw(
        x, w, z, canon, method, relative_sd, outlier_threshold, keep_covariance, sd
    )
    _warn_unchanged(x, noisy, cols, relative_sd)
    noisy, clipped = _bound(x, noisy, bounds, keys, rng)
    _check_finite(x, noisy, cols)
    data = df.copy()
    for j, c in enumerate(cols):
        data[c] = noisy[:, j]
    for total, parts in aggregates.items():
        data[total] = data[list(parts)].sum(axis=1, min_count=1)
    figures, correlation = noise_figures(
        xk, key_columns(noisy, canon), cols, wk, log_factor=method == "multiplicative"
    )
    return NoiseResult(
        data=data,
        method=method,
        figures=figures,
        correlation_change=correlation,
        outliers=_outlier_frame(df, cols, outliers),
        n_bounded=pd.Series(clipped, index=pd.Index(cols, dtype=object), name="bounded"),
    )


def _outlier_threshold(value: Any, method: str) -> float:
    """``outlier_threshold`` checked (> 0), None read as :data:`OUTLIER_THRESHOLD`, and
    refused with a method other than ``"outliers"``, which does not use it."""
    if value is None:
        return OUTLIER_THRESHOLD
    threshold = check_number(value, "outlier_threshold", _FUNC, low=0.0, low_open=True)
    if method != "outliers":
        raise given_alone_error(
            _FUNC,
            "outlier_threshold",
            value,
            f"method is {method!r}, not 'outliers'",
            "only the outliers method picks values by their robust z-score",
            ("method", "method='outliers'"),
        )
    return threshold


def _numeric(df: pd.DataFrame, cols: list[Hashable], method: str) -> np.ndarray:
    out = numeric_columns(df, cols, _FUNC, "noise is added to numbers")
    for j, c in enumerate(cols):
        if method == "multiplicative" and (out[:, j] < 0).any():
            raise DataValidationError(
                f"Column {c!r} passed to {_FUNC} has negative values; multiplicative noise "
                "is for non-negative amounts. Use method='additive'.",
                func=_FUNC,
                param="method",
            )
    return out


def _weights(df: pd.DataFrame, weights: Hashable | None) -> np.ndarray:
    if weights is None:
        return np.ones(len(df))
    (col,) = check_columns(df, weights, "weights", _FUNC)
    return positive_weights(df, col, _FUNC)


def _totals(df: pd.DataFrame, totals: Any, cols: list[Hashable]) -> dict[Hashable, list[Hashable]]:
    if totals is None:
        return {}
    if not isinstance(totals, Mapping):
        raise InvalidParameterError(
            f"The 'totals' parameter of {_FUNC} must be a dict {{aggregate: [components]}}. "
            f"Got {totals!r} instead.",
            func=_FUNC,
            param="totals",
        )
    out = {}
    for total, parts in totals.items():
        check_columns(df, [total], "totals", _FUNC)
        names = check_columns(df, parts, "totals", _FUNC)
        if total in cols or any(p not in cols for p in names):
            raise InvalidParameterError(
                f"The 'totals' parameter of {_FUNC} sums {names!r} into {total!r}: the "
                "components must be noised (in 'columns') and the aggregate must not be.",
                func=_FUNC,
                param="totals",
            )
        out[total] = names
    return out


def _wcov(x: np.ndarray, w: np.ndarray, canon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted mean vector and population covariance over complete rows, summed in the
    order ``canon``."""
    xs, ws = np.take(x, canon, axis=0), w[canon]  # as x[canon], without its slower path
    ok = ~np.isnan(xs[:, 0])
    for j in range(1, xs.shape[1]):
        ok &= ~np.isnan(xs[:, j])
    if not ok.all():
        xs, ws = xs[ok], ws[ok]
    total = ws.sum()
    if total <= 0:
        return np.zeros(x.shape[1]), np.zeros((x.shape[1], x.shape[1]))
    mean = ws @ xs / total
    d = xs - mean
    return mean, (d * ws[:, None]).T @ d / total


def _wsds(xk: np.ndarray, wk: np.ndarray | None) -> np.ndarray:
    """Each column's weighted population sd over its observed values; ``xk`` holds the
    columns as rows, in key order (:func:`key_columns`), ``wk`` the weights in that order
    (None: weights of 1)."""
    every = np.ones(xk.shape[1]) if wk is None else wk
    sds = np.zeros(xk.shape[0])
    for j, col in enumerate(xk):
        ok = ~np.isnan(col)
        ws = every
        if not ok.all():
            col, ws = col[ok], ws[ok]
        if not len(col) or ws.sum() <= 0:
            continue
        mean = np.average(col, weights=ws)
        sds[j] = np.sqrt(np.average((col - mean) ** 2, weights=ws))
    return sds


def _draw(
    x: np.ndarray,
    w: np.ndarray,
    z: np.ndarray,
    canon: np.ndarray,
    method: str,
    rel: float,
    threshold: float,
    keep_cov: bool,
    sd: np.ndarray,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The noisy values from standard normals ``z`` (shape of ``x``); the outlier mask.
    ``sd``: the columns' weighted sds (additive and outliers)."""
    if method == "correlated":
        _, cov = _wcov(x, w, canon)
        vals, vecs = np.linalg.eigh(cov)
        root = vecs * np.sqrt(np.clip(vals, 0.0, None))  # root @ root.T == cov
        noisy = x + rel * (z @ root.T)
        return (_recolour(noisy, x, w, canon) if keep_cov else noisy), None
    if method == "multiplicative":
        return x * np.exp(rel * z - rel**2 / 2), None
    if method == "additive":
        return x + z * (rel * sd), None
    med = np.nanmedian(x, axis=0)
    dev = np.abs(x - med)
    mad = 1.4826 * np.nanmedian(dev, axis=0)
    # more than half the values equal (MAD 0): the mean absolute deviation, scaled alike
    mean_ad = 1.2533 * np.nanmean(dev, axis=0)
    scale = np.where(mad > 0, mad, np.where(mean_ad > 0, mean_ad, 1.0))
    robust = np.abs(x - med) / scale
    outlier = robust > threshold
    return np.where(outlier, x + z * rel * sd * robust / threshold, x), outlier


def _recolour(noisy: np.ndarray, x: np.ndarray, w: np.ndarray, canon: np.ndarray) -> np.ndarray:
    """``noisy`` transformed so that its weighted mean and covariance are ``x``'s exactly."""
    ok = ~np.isnan(noisy).any(axis=1)
    m_x, c_x = _wcov(x, w, canon)
    m_y, c_y = _wcov(noisy, w, canon)
    try:
        l_x, l_y = np.linalg.cholesky(c_x), np.linalg.cholesky(c_y)
    except np.linalg.LinAlgError:
        warn(
            f"{_FUNC} could not keep the covariance exactly: the columns' covariance matrix "
            "is singular (a constant column, collinear columns, or fewer complete records "
            "than columns). The noise was added as drawn.",
            DisclosureRiskWarning,
        )
        return noisy
    out = noisy.copy()
    # rows y -> (y - m_y) T + m_x with T = L_y^-T L_x^T: T' C_y T = L_x L_x' = C_x
    out[ok] = (noisy[ok] - m_y) @ np.linalg.solve(l_y.T, l_x.T) + m_x
    return out


def _bounds(
    df: pd.DataFrame, cols: list[Hashable], lower: Any, upper: Any
) -> list[tuple[float, float]]:
    """Each column's (lowest, highest) released value, checked."""
    problem = "{unknown!r}, which are not among the columns noised ({known!r})."
    for name, value in (("lower", lower), ("upper", upper)):
        check_keys(value, cols, name, _FUNC, problem)
    out = []
    for c in cols:
        lo = _bound_of(lower, c, "lower")
        hi = _bound_of(upper, c, "upper")
        lo_v = -np.inf if lo is None else lo
        hi_v = np.inf if hi is None else hi
        if lo_v > hi_v:
            raise InvalidParameterError(
                f"The 'lower' parameter of {_FUNC} is above 'upper' for {c!r}: {lo_v!r} > "
                f"{hi_v!r}.",
                func=_FUNC,
                param="lower",
                related=("upper",),
            )
        out.append((lo_v, hi_v))
    return out


def _bound(
    x: np.ndarray,
    noisy: np.ndarray,
    bounds: list[tuple[float, float]],
    keys: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, list[int]]:
    """Values outside their bounds get their noise flipped, then redrawn at its size
    (20 times at most); what is still outside is set to the bound."""
    clipped = []
    for j, (lo_v, hi_v) in enumerate(bounds):
        if lo_v == -np.inf and hi_v == np.inf:
            clipped.append(0)
            continue
        col = noisy[:, j]
        shift = col - x[:, j]
        for attempt in range(20):
            bad = (col < lo_v) | (col > hi_v)
            if not bad.any():
                break
            if attempt == 0:
                shift[bad] = -shift[bad]
            else:
                fresh = key_normals(keys, rng, 1)[:, 0]
                shift[bad] = np.abs(shift[bad]) * fresh[bad]
            col[bad] = x[bad, j] + shift[bad]
        bad = (col < lo_v) | (col > hi_v)
        clipped.append(int(bad.sum()))
        noisy[:, j] = np.clip(col, lo_v, hi_v)
        noisy[np.isnan(x[:, j]), j] = np.nan
    return noisy, clipped


def _warn_unchanged(x: np.ndarray, noisy: np.ndarray, cols: list[Hashable], rel: float) -> None:
    """Warn for a column whose observed values all came out unchanged (no spread to scale
    the noise by, or no outlier): its true values would be released as they are."""
    if rel == 0:
        return
    for j, c in enumerate(cols):
        missing = np.isnan(x[:, j])
        # NaN != NaN: a changed value is a difference where the value is observed
        if not missing.all() and not ((noisy[:, j] != x[:, j]) & ~missing).any():
            warn(
                f"{_FUNC} left every value of {c!r} unchanged (its values do not spread, or "
                "none is an outlier): they would be released as they are. Leave the column "
                "out of the release, or recode it.",
                DisclosureRiskWarning,
            )


def _check_finite(x: np.ndarray, noisy: np.ndarray, cols: list[Hashable]) -> None:
    """A value that was finite must stay finite (never a silent inf or NaN)."""
    bad = np.isfinite(x) & ~np.isfinite(noisy)
    if bad.any():
        j = int(np.flatnonzero(bad.any(axis=0))[0])
        raise DataValidationError(
            f"Adding noise to {cols[j]!r} overflowed (values up to "
            f"{float(np.nanmax(np.abs(x[:, j]))):g}): rescale the column (thousands, "
            "millions) first.",
            func=_FUNC,
            param="columns",
        )


def _bound_of(value: Any, column: Hashable, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        value = value.get(column)
        if value is None:
            return None
    return check_number(value, name, _FUNC)


def _outlier_frame(
    df: pd.DataFrame, cols: list[Hashable], outliers: np.ndarray | None
) -> pd.DataFrame:
    """Rows and columns of the values perturbed as outliers (empty unless method='outliers')."""
    if outliers is None:
        return pd.DataFrame({"row": [], "column": []})
    rows, js = np.nonzero(outliers)
    return pd.DataFrame({"row": df.index[rows], "column": [cols[j] for j in js]})
