"""Drawing released categories, and the uniform numbers behind them, which depend on each
record's values (:func:`microsdc.data.rowkeys.record_keys`) and not on the order of the rows."""

from __future__ import annotations

import numpy as np

from microsdc.postrandomisation.matrices import cumulative_rows

__all__ = ["draw_codes"]


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
    :func:`~microsdc.postrandomisation.matrices.cumulative_rows`).
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
