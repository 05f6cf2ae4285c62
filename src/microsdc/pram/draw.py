"""Drawing released categories, and the uniform numbers behind them, which depend on each
record's values and not on the order of the rows."""

from __future__ import annotations

import numpy as np
import pandas as pd

from microsdc.pram.matrices import cumulative_rows

__all__ = ["draw_codes", "record_keys", "uniforms"]


def record_keys(df: pd.DataFrame, where: np.ndarray) -> np.ndarray:
    """A 64-bit key per record fixed by its values (and its ``where`` flag), not its position.

    Identical records are told apart by their number among themselves, in the order of
    their row labels; they are interchangeable, so which gets which number changes no
    count of the release.
    Drawing each record's uniform number from its key (:func:`uniforms`) makes the
    release the same whatever order the rows came in, and needs no sort: an engine can
    compute the same keys row by row.
    """
    n = len(df)
    h = np.full(n, np.uint64(0x243F6A8885A308D3), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for c in df.columns:
            try:
                hc = pd.util.hash_pandas_object(df[c], index=False).to_numpy(np.uint64)
            except TypeError:  # values that cannot be hashed (lists): left out of the key
                continue
            h = _mix(h * np.uint64(1_000_003) ^ hc)
        h ^= where.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        series = pd.Series(h)
        if series.duplicated().any():
            h = _mix(h + _occurrence(series, df.index) * np.uint64(0xD1B54A32D192ED03))
    return h


def _occurrence(keys: pd.Series, index: pd.Index) -> np.ndarray:
    """Each record's number among the records of the same key, in the order of their row
    labels (so that reordering the rows of a frame keeps each label's draw)."""
    try:
        order = np.asarray(index.argsort(), dtype=np.int64)
    except TypeError:  # labels that cannot be ordered: the rows' order
        order = np.arange(len(index), dtype=np.int64)
    ordered = pd.Series(keys.to_numpy()[order])
    counts = ordered.groupby(ordered, sort=False).cumcount().to_numpy(np.uint64)
    out = np.empty(len(order), dtype=np.uint64)
    out[order] = counts
    return out


def uniforms(keys: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniform number in [0, 1) per record, from its key and a key drawn from ``rng``."""
    salt = rng.integers(0, 2**63, dtype=np.uint64, endpoint=False)
    with np.errstate(over="ignore"):
        z = _mix(keys ^ (salt * np.uint64(2) + np.uint64(1)))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0**-53


def _mix(z: np.ndarray) -> np.ndarray:
    """The SplitMix64 finaliser (Steele, Lea & Flood 2014): a bijection of 64-bit words
    whose output bits each depend on every input bit."""
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def draw_codes(
    codes: np.ndarray,
    strata: np.ndarray,
    selected: np.ndarray,
    uniform: np.ndarray,
    matrices: list[np.ndarray],
) -> np.ndarray:
    """Released codes: record ``i`` (if ``selected``) draws from row ``codes[i]`` of
    ``matrices[strata[i]]`` with the number ``uniform[i]`` in [0, 1).

    A transition of probability 0 is never drawn (see
    :func:`~microsdc.pram.matrices.cumulative_rows`).
    """
    from microsdc._kernels.pram import draw_categories

    cum = np.stack([cumulative_rows(m) for m in matrices])
    return draw_categories(
        codes.astype(np.int64, copy=False),
        strata.astype(np.int64, copy=False),
        selected,
        uniform,
        cum,
    )
