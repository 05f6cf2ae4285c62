"""What :func:`microsdc.noise.add_noise` returns, and the figures of the noise it added."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["NoiseResult", "key_columns", "noise_figures"]


@dataclass(frozen=True)
class NoiseResult:
    """The result of :func:`microsdc.add_noise`.

    Attributes
    ----------
    data : pandas.DataFrame
        The release: the input's rows, index and columns, the noised columns (and the
        aggregates of ``totals``) replaced, as floats.
    method : str
    figures : pandas.DataFrame
        One row per noised column: ``noise_sd`` (the realised standard deviation of the
        noise), ``relative_sd`` (it over the column's sd), ``signal_to_noise`` (the
        column's variance over the noise's), ``mean_before``, ``mean_after``,
        ``var_before``, ``var_after``; with ``method="multiplicative"`` also
        ``log_factor_sd``, the realised sd of the log factor (what ``relative_sd`` asks
        for there; ``relative_sd`` in this table is always the noise's sd over the
        column's).
    correlation_change : pandas.DataFrame
        Correlations after minus before, between the noised columns.
    outliers : pandas.DataFrame
        ``row`` (label) and ``column`` of each value perturbed as an outlier
        (``method="outliers"``); never release it.
    n_bounded : pandas.Series
        Per column, the values set to a bound after 20 draws.
    """

    data: pd.DataFrame
    method: str
    figures: pd.DataFrame
    correlation_change: pd.DataFrame
    outliers: pd.DataFrame
    n_bounded: pd.Series


def key_columns(v: np.ndarray, canon: np.ndarray) -> np.ndarray:
    """The columns of ``v`` (n, p) as the rows of a (p, n) array, each in the order
    ``canon``: contiguous columns whose sums do not depend on the order of the rows."""
    return np.take(v.T, canon, axis=1)  # C-contiguous (p, n)


def noise_figures(
    xk: np.ndarray,
    nk: np.ndarray,
    cols: list[Hashable],
    wk: np.ndarray | None,
    *,
    log_factor: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Realised noise and the change of the moments, weighted by ``wk``, on observed values.

    ``xk`` and ``nk`` are the original and noisy columns from :func:`key_columns` (rows in
    the records' key order), ``wk`` the weights in that order (None: weights of 1). Every
    sum is numpy's pairwise summation in that order, never BLAS: the figures depend neither
    on the order of the rows nor on the number of BLAS threads. ``log_factor`` adds
    ``log_factor_sd``, the (unweighted) sd of ``log(noisy / x)`` where it is finite.
    """
    rows = []
    n = xk.shape[1]
    buf, noise = np.empty(n), np.empty(n)
    observed = ~np.isnan(xk)
    for j in range(len(cols)):
        a, b, ww = _observed(xk, nk, wk, observed[j], j)
        total = float(len(a)) if ww is None else float(np.add.reduce(ww))
        if not len(a) or total <= 0:
            rows.append(dict.fromkeys(_FIGURES, np.nan))
            continue
        mean_a, var_a = _moments(a, ww, total, buf)
        mean_b, var_b = _moments(b, ww, total, buf)
        var_e = _moments(np.subtract(b, a, out=noise[: len(a)]), ww, total, buf)[1]
        rows.append(
            {
                "noise_sd": float(np.sqrt(var_e)),
                "relative_sd": float(np.sqrt(var_e / var_a)) if var_a > 0 else np.nan,
                "signal_to_noise": float(var_a / var_e) if var_e > 0 else np.inf,
                "mean_before": mean_a,
                "mean_after": mean_b,
                "var_before": var_a,
                "var_after": var_b,
            }
        )
    index = pd.Index(cols, dtype=object)
    figures = pd.DataFrame(rows, index=index, columns=_FIGURES)
    if log_factor:
        figures["log_factor_sd"] = _log_factor_sds(xk, nk)
    ok = np.logical_and.reduce(observed, axis=0)  # records complete in every column
    if len(cols) > 1 and ok.sum() > 2:
        complete = ok.all()
        change = _correlation(nk if complete else nk[:, ok]) - _correlation(
            xk if complete else xk[:, ok]
        )
    else:
        change = np.zeros((len(cols), len(cols)))
    return figures, pd.DataFrame(change, index=index, columns=index)


def _observed(
    xk: np.ndarray, nk: np.ndarray, wk: np.ndarray | None, ok: np.ndarray, j: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Column ``j`` of ``xk`` and ``nk`` and the weights where ``ok`` (``xk`` observed)."""
    if ok.all():
        return xk[j], nk[j], wk
    return xk[j, ok], nk[j, ok], None if wk is None else wk[ok]


def _correlation(v: np.ndarray) -> np.ndarray:
    """Pearson correlations of the rows of ``v`` (p, n) (values in a fixed order), as
    ``np.corrcoef(v)`` but summed pairwise without BLAS; 1 on the diagonal, NaN for a
    variable that does not vary."""
    p, n = v.shape
    d = np.empty((p, n))
    for j in range(p):
        np.subtract(v[j], np.add.reduce(v[j]) / n, out=d[j])
    buf = np.empty(n)
    c = np.empty((p, p))
    for j in range(p):
        for k in range(j + 1):
            c[j, k] = c[k, j] = np.add.reduce(np.multiply(d[j], d[k], out=buf))
    sd = np.sqrt(np.diag(c))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.clip(c / sd[:, None] / sd[None, :], -1.0, 1.0)
    np.fill_diagonal(r, np.where(sd > 0, 1.0, np.nan))
    return r


def _log_factor_sds(xk: np.ndarray, nk: np.ndarray) -> list[float]:
    """Per column, the sd of ``log(noisy / x)`` where it is finite (rows in key order)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(nk / xk)
    out = []
    for col in logs:
        fin = np.isfinite(col)
        out.append(float(np.std(col[fin])) if fin.any() else np.nan)
    return out


_FIGURES = [
    "noise_sd",
    "relative_sd",
    "signal_to_noise",
    "mean_before",
    "mean_after",
    "var_before",
    "var_after",
]


def _moments(
    v: np.ndarray, w: np.ndarray | None, total: float, buf: np.ndarray
) -> tuple[float, float]:
    """Weighted mean and population variance (``total`` is the sum of ``w``; ``w`` None:
    weights of 1), summed pairwise in the order of ``v``; ``buf`` is scratch at least as long."""
    buf = buf[: len(v)]
    wv = v if w is None else np.multiply(w, v, out=buf)
    mean = float(np.add.reduce(wv)) / total
    d = np.subtract(v, mean, out=buf)
    d *= d
    if w is not None:
        d *= w
    return mean, float(np.add.reduce(d)) / total
