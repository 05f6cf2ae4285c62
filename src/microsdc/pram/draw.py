"""Drawing released categories, and the uniform numbers behind them, which depend on each
record's values (:func:`microsdc.data.rowkeys.record_keys`) and not on the order of the rows."""

from __future__ import annotations

import numpy as np

from microsdc.data.rowkeys import mix64
from microsdc.pram.matrices import cumulative_rows

__all__ = ["draw_codes", "uniforms"]


def uniforms(keys: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniform number in [0, 1) per record, from its key and a key drawn from ``rng``."""
    salt = rng.integers(0, 2**63, dtype=np.uint64, endpoint=False)
    with np.errstate(over="ignore"):
        z = keys ^ (salt * np.uint64(2) + np.uint64(1))
        mix64(z)
        z >>= np.uint64(11)
    return z.astype(np.float64) * 2.0**-53


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
        codes,
        strata,
        selected,
        uniform,
        cum,
    )
