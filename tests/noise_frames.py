"""A frame for the row-order tests of add_noise (for the tests)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def weighted_frame_and_order(
    x: np.ndarray, rng: np.random.Generator
) -> tuple[pd.DataFrame, np.ndarray]:
    """The columns of ``x`` as ``a``, ``b`` (made positive) and ``c``, a weight ``w`` and a
    total ``t = a + b``, with the first 300 records repeated (identical records too);
    and a random order of its rows."""
    n = len(x)
    df = pd.DataFrame(x, columns=["a", "b", "c"])
    df["b"] = df["b"].abs()
    df["w"] = rng.uniform(0.5, 3, n)
    df["t"] = df["a"] + df["b"]
    df = pd.concat([df, df.iloc[:300]], ignore_index=True)
    return df, rng.permutation(len(df))
