"""The faster paths of add_noise and the record keys give bit for bit the numbers of the plain
numpy computations they replace (kept here as oracles), and the release still does not depend
on the order of the rows."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from microsdc import add_noise
from microsdc.data import rowkeys
from microsdc.data.rowkeys import key_normals, key_uniforms, mix64, ordered_record_keys
from microsdc.exceptions import DisclosureRiskWarning
from microsdc.noise import core
from microsdc.noise.result import key_columns
from noise_frames import weighted_frame_and_order


def bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


# --- oracles: the numpy code the kernels replace ------------------------------------------


def record_keys_oracle(df: pd.DataFrame, where: np.ndarray | None = None) -> np.ndarray:
    h = np.full(len(df), np.uint64(0x243F6A8885A308D3), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for c in df.columns:
            try:
                hc = pd.util.hash_pandas_object(df[c], index=False).to_numpy(np.uint64)
            except TypeError:
                continue
            h *= np.uint64(1_000_003)
            h ^= hc
            mix64(h)
        if where is not None:
            h ^= where.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        occurrence = rowkeys._occurrence(h, df.index)
        if occurrence is not None:
            occurrence *= np.uint64(0xD1B54A32D192ED03)
            h += occurrence
            mix64(h)
    return h


def key_normals_oracle(keys: np.ndarray, rng: np.random.Generator, m: int) -> np.ndarray:
    out = np.empty((len(keys), m))
    for j in range(m):
        u1 = 1.0 - key_uniforms(keys, rng)
        u2 = key_uniforms(keys, rng)
        out[:, j] = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
    return out


def wsd_oracle(col: np.ndarray, w: np.ndarray) -> float:
    ok = ~np.isnan(col)
    if not ok.any() or w[ok].sum() <= 0:
        return 0.0
    mean = np.average(col[ok], weights=w[ok])
    return float(np.sqrt(np.average((col[ok] - mean) ** 2, weights=w[ok])))


def wcov_oracle(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ok = ~np.isnan(x).any(axis=1)
    xs, ws = x[ok], w[ok]
    total = ws.sum()
    mean = ws @ xs / total
    d = xs - mean
    return mean, (d * ws[:, None]).T @ d / total


def data(n: int, seed: int = 0, missing: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.column_stack([rng.lognormal(8, 1, n), rng.normal(0, 50, n), rng.gamma(2, 3, n)])
    if missing:
        x[rng.random((n, 3)) < 0.1] = np.nan
    return x


# --- draws from the keys, and the check for a column left unchanged ------------------------


def key_uniforms_oracle(keys: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    salt = rng.integers(0, 2**63, dtype=np.uint64, endpoint=False)
    with np.errstate(over="ignore"):
        z = keys ^ (salt * np.uint64(2) + np.uint64(1))
        mix64(z)
        z >>= np.uint64(11)
    return z.astype(np.float64) * 2.0**-53


@pytest.mark.parametrize("n", [0, 1, 7, 1001, 100_003])
def test_key_uniforms_and_normals_are_the_numpy_ones(n: int) -> None:
    keys = np.random.default_rng(n).integers(0, 2**64 - 1, n, np.uint64, True)
    got = key_uniforms(keys, np.random.default_rng(4))
    np.testing.assert_array_equal(
        bits(got), bits(key_uniforms_oracle(keys, np.random.default_rng(4)))
    )
    got = key_normals(keys, np.random.default_rng(9), 3)
    expected = key_normals_oracle(keys, np.random.default_rng(9), 3)
    np.testing.assert_array_equal(bits(got), bits(expected))
    assert got.flags.c_contiguous


@given(
    arrays(
        np.float64,
        st.tuples(st.integers(0, 30), st.integers(1, 4)),
        elements=st.sampled_from([np.nan, 0.0, 1.0, -2.5]),
    ),
    st.integers(0, 2**32),
)
def test_unchanged_column_warned_as_the_numpy_check_says(x: np.ndarray, seed: int) -> None:
    rng = np.random.default_rng(seed)
    noisy = np.where(rng.random(x.shape) < 0.2, x + 1.0, x)
    noisy[rng.random(x.shape) < 0.05] = np.nan  # also where x is observed
    cols = [f"c{j}" for j in range(x.shape[1])]
    expected = []
    for j in range(x.shape[1]):
        seen = ~np.isnan(x[:, j])
        if seen.any() and (noisy[seen, j] == x[seen, j]).all():
            expected.append(cols[j])
    with warnings.catch_warnings(record=True) as seen_warnings:
        warnings.simplefilter("always")
        core._warn_unchanged(x, noisy, cols, 0.1)
    warned = [c for c in cols for w in seen_warnings if f"{c!r}" in str(w.message)]
    assert warned == expected
    assert all(w.category is DisclosureRiskWarning for w in seen_warnings)


# --- record keys and their order -------------------------------------------------------------


def frames() -> list[tuple[pd.DataFrame, np.ndarray | None]]:
    rng = np.random.default_rng(1)
    n = 5000
    df = pd.DataFrame(
        {
            "x": rng.normal(size=n).round(1),
            "g": rng.choice(["a", "b", None], n),
            "k": pd.Categorical(rng.choice(["u", "v"], n)),
        }
    )
    dup = pd.concat([df, df.iloc[:1000], df.iloc[:10]], ignore_index=True)
    odd = pd.DataFrame({"a": [[1], [2], [1]], "b": [1, 1, 1]}, index=["q", 3, "q"])
    return [
        (df, None),
        (df, (df["x"] > 0).to_numpy()),
        (dup, None),
        (dup.iloc[::-1], (dup["g"] == "a").to_numpy()[::-1]),
        (odd, None),
        (df.iloc[:0], None),
        (pd.DataFrame(index=range(4)), None),
        (pd.DataFrame({"u": rng.random(n)}), None),  # every key distinct: one sort
    ]


@pytest.mark.parametrize("case", range(8))
def test_record_keys_and_their_order_are_the_numpy_ones(case: int) -> None:
    df, where = frames()[case]
    expected = record_keys_oracle(df, where)
    np.testing.assert_array_equal(rowkeys.record_keys(df, where), expected)
    keys, order = ordered_record_keys(df, where)
    np.testing.assert_array_equal(keys, expected)
    np.testing.assert_array_equal(order, np.argsort(expected, kind="stable"))


# --- the moments add_noise scales its noise by, and its figures -----------------------------


@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_moments_in_key_order_are_the_numpy_ones(missing: bool, weighted: bool) -> None:
    x = data(20_000, missing=missing)
    rng = np.random.default_rng(2)
    w = rng.uniform(0.5, 3, len(x)) if weighted else np.ones(len(x))
    canon = rng.permutation(len(x))
    expected = [wsd_oracle(x[canon][:, j], w[canon]) for j in range(3)]
    wk = None if not weighted else w[canon]
    sds = core._wsds(key_columns(x, canon), wk)
    np.testing.assert_array_equal(bits(sds), bits(expected))
    mean, cov = core._wcov(x, w, canon)
    m_o, c_o = wcov_oracle(x[canon], w[canon])
    np.testing.assert_array_equal(bits(mean), bits(m_o))
    np.testing.assert_array_equal(bits(cov), bits(c_o))


# --- the release: the same whatever the order of the rows ----------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"method": "additive", "weights": "w", "lower": 0.0, "totals": {"t": ["a", "b"]}},
        {"method": "correlated", "weights": "w"},
        {"method": "correlated", "keep_covariance": True},
        {"method": "multiplicative", "upper": 5e4},
        {"method": "outliers", "relative_sd": 2.0, "lower": 0.0},
    ],
)
def test_release_is_the_same_whatever_the_row_order(kwargs: dict) -> None:
    rng = np.random.default_rng(8)
    n = 3000
    df, perm = weighted_frame_and_order(data(n, missing=True), rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = add_noise(df, ["a", "b"], seed=5, **kwargs)
        b = add_noise(df.iloc[perm], ["a", "b"], seed=5, **kwargs)
    pd.testing.assert_frame_equal(b.data.loc[df.index], a.data, check_exact=True)
    pd.testing.assert_series_equal(b.n_bounded, a.n_bounded)
