"""What :func:`microsdc.noise.add_noise` returns, and the figures of the noise it added."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["NoiseResult", "noise_figures"]


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


def noise_figures(
    x: np.ndarray, noisy: np.ndarray, cols: list[Hashable], w: np.ndarray
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Realised noise and the change of the moments, weighted by ``w``, on observed values."""
    rows = []
    for j in range(len(cols)):
        a, b, ww = _observed(x, noisy, w, j)
        total = float(ww.sum())
        if not len(a) or total <= 0:
            rows.append(dict.fromkeys(_FIGURES, np.nan))
            continue
        mean_a, var_a = _moments(a, ww, total)
        mean_b, var_b = _moments(b, ww, total)
        b -= a  # the noise
        var_e = _moments(b, ww, total)[1]
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
    ok = ~np.isnan(x[:, 0])  # complete rows (column by column: faster than any(axis=1))
    for j in range(1, x.shape[1]):
        ok &= ~np.isnan(x[:, j])
    if len(cols) > 1 and ok.sum() > 2:
        complete = ok.all()  # then x and noisy stand for their complete rows, uncopied
        before = np.corrcoef(_rows(x, ok, complete).T)
        after = np.corrcoef(_rows(noisy, ok, complete).T)
        change = pd.DataFrame(after - before, index=index, columns=index)
    else:
        change = pd.DataFrame(np.zeros((len(cols), len(cols))), index=index, columns=index)
    return figures, change


def _observed(
    x: np.ndarray, noisy: np.ndarray, w: np.ndarray, j: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column ``j`` of ``x`` and ``noisy`` and the weights where ``x`` is observed, the
    first two as new contiguous arrays (one boolean selection fewer when none is missing)."""
    ok = ~np.isnan(x[:, j])
    if ok.all():
        return np.array(x[:, j]), np.array(noisy[:, j]), w
    return x[ok, j], noisy[ok, j], w[ok]


def _rows(v: np.ndarray, ok: np.ndarray, complete: bool) -> np.ndarray:
    """``v[ok]``: ``v`` itself when every row is in and it is C-contiguous as that copy is."""
    return v if complete and v.flags.c_contiguous else v[ok]


_FIGURES = [
    "noise_sd",
    "relative_sd",
    "signal_to_noise",
    "mean_before",
    "mean_after",
    "var_before",
    "var_after",
]


def _moments(v: np.ndarray, w: np.ndarray, total: float) -> tuple[float, float]:
    """Weighted mean and population variance (``total`` is ``float(w.sum())``)."""
    mean = float(w @ v) / total
    d = v - mean
    d *= d
    return mean, float(w @ d) / total
