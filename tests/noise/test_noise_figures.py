"""The figures of add_noise (realised noise sd, signal-to-noise, means, variances and
correlations before and after) do not depend on the order of the rows, and they are the
exact moments to within rounding."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from microsdc import add_noise
from microsdc.noise.result import key_columns, noise_figures
from noise_frames import weighted_frame_and_order

COLS = ["a", "b", "c"]


def data(n: int, seed: int = 0, missing: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.column_stack([rng.lognormal(8, 1, n), rng.normal(3, 50, n), rng.gamma(2, 3, n)])
    if missing:
        x[rng.random((n, 3)) < 0.1] = np.nan
    return x


def fsum_moments(v: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """Weighted mean and population variance in extended precision with exact sums."""
    vl, wl = v.astype(np.longdouble), w.astype(np.longdouble)
    total = math.fsum(w)
    mean = np.longdouble(math.fsum(wl * vl)) / np.longdouble(total)
    d = vl - mean
    return float(mean), math.fsum(wl * d * d) / total


def reference(x: np.ndarray, noisy: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rows = []
    for j in range(x.shape[1]):
        ok = ~np.isnan(x[:, j])
        a, b, ww = x[ok, j], noisy[ok, j], w[ok]
        mean_a, var_a = fsum_moments(a, ww)
        mean_b, var_b = fsum_moments(b, ww)
        e = b.astype(np.longdouble) - a.astype(np.longdouble)
        var_e = fsum_moments(e, ww)[1]
        sd_e = math.sqrt(var_e)
        rows.append([sd_e, math.sqrt(var_e / var_a), var_a / var_e, mean_a, mean_b, var_a, var_b])
    ok = ~np.isnan(x).any(axis=1)

    def corr(v: np.ndarray) -> np.ndarray:
        d = v.astype(np.longdouble) - np.array(
            [math.fsum(c) / len(c) for c in v.T], dtype=np.longdouble
        )
        c = np.array([[math.fsum(d[:, j] * d[:, k]) for k in range(3)] for j in range(3)])
        sd = np.sqrt(np.diag(c))
        return c / np.outer(sd, sd)

    return np.array(rows), corr(noisy[ok]) - corr(x[ok])


@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_figures_are_the_exact_moments_and_the_same_whatever_the_row_order(
    missing: bool, weighted: bool
) -> None:
    n = 30_000
    x = data(n, missing=missing)
    rng = np.random.default_rng(2)
    w = rng.uniform(0.5, 3, n) if weighted else np.ones(n)
    noisy = x + rng.normal(size=x.shape) * np.array([300.0, 5.0, 0.5])
    canon = rng.permutation(n)  # the records' key order
    wk = w[canon] if weighted else None
    figures, change = noise_figures(key_columns(x, canon), key_columns(noisy, canon), COLS, wk)
    rows, change_ref = reference(x, noisy, w)
    np.testing.assert_allclose(figures.to_numpy(), rows, rtol=1e-12, atol=0)
    np.testing.assert_allclose(change.to_numpy(), change_ref, rtol=0, atol=1e-13)
    # the same records in another row order (their key order follows them): the same bits
    perm = rng.permutation(n)
    inverse = np.empty(n, dtype=np.intp)
    inverse[perm] = np.arange(n)
    canon2 = inverse[canon]
    wk2 = w[perm][canon2] if weighted else None
    f2, c2 = noise_figures(
        key_columns(x[perm], canon2), key_columns(noisy[perm], canon2), COLS, wk2
    )
    pd.testing.assert_frame_equal(f2, figures, check_exact=True)
    pd.testing.assert_frame_equal(c2, change, check_exact=True)


def test_correlation_of_a_constant_column_is_missing_and_the_diagonal_is_one() -> None:
    x = data(1000)
    x[:, 1] = 7.0
    noisy = x + np.random.default_rng(1).normal(size=x.shape)
    order = np.arange(1000)
    _, change = noise_figures(key_columns(x, order), key_columns(noisy, order), COLS, None)
    c = change.to_numpy()
    assert c[0, 0] == 0.0 and c[2, 2] == 0.0
    assert np.isnan(c[1]).all() and np.isnan(c[:, 1]).all()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"method": "additive", "weights": "w", "lower": 0.0, "totals": {"t": ["a", "b"]}},
        {"method": "additive"},
        {"method": "correlated", "weights": "w"},
        {"method": "correlated", "keep_covariance": True},
        {"method": "multiplicative", "upper": 5e4},
        {"method": "outliers", "relative_sd": 2.0, "lower": 0.0},
    ],
)
def test_add_noise_figures_are_the_same_whatever_the_row_order(kwargs: dict) -> None:
    rng = np.random.default_rng(8)
    n = 40_000
    df, perm = weighted_frame_and_order(data(n, missing=True), rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = add_noise(df, ["a", "b", "c"], seed=5, **kwargs)
        b = add_noise(df.iloc[perm], ["a", "b", "c"], seed=5, **kwargs)
    pd.testing.assert_frame_equal(b.figures, a.figures, check_exact=True)
    pd.testing.assert_frame_equal(b.correlation_change, a.correlation_change, check_exact=True)
    pd.testing.assert_frame_equal(b.data.loc[df.index], a.data, check_exact=True)
