"""Number of swaps (pairs) each finest-level area must reach.

The total number of pairs is ``n_households * swaprate / 2``, rounded down or up
with probability 1/2 each (as sdcMicro does). It is spread over the finest
areas in proportion to their number of households: area ``g`` gets
``floor(x_g)`` or ``floor(x_g) + 1`` pairs with ``x_g = n_g * T / n_households``,
the extra pairs chosen by systematic sampling over a random order of the areas,
so each area's expected target is exactly ``x_g`` and the targets add up to
``T``. Integer arithmetic throughout: no rounding drift.

Unlike sdcMicro (defect B1), an extra pair is never handed out when there is
nothing left to distribute, so ``swaprate = 0`` gives targets of 0.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["distribute_targets", "total_pairs"]


def total_pairs(n_households: int, swaprate: float, rng: np.random.Generator) -> int:
    """Total number of pairs: ``n_households * swaprate / 2`` rounded down or up at random.

    Parameters
    ----------
    n_households : int
    swaprate : float in [0, 1], fraction of households
    rng : numpy.random.Generator

    Returns
    -------
    int
    """
    x = n_households * swaprate / 2.0
    nearest = round(x)
    if abs(x - nearest) < 1e-9 * max(1.0, x):
        return int(nearest)
    return math.floor(x) + int(rng.integers(0, 2))


def distribute_targets(
    households_per_area: np.ndarray, n_pairs: int, rng: np.random.Generator
) -> np.ndarray:
    """Spread ``n_pairs`` over areas in proportion to their number of households.

    Parameters
    ----------
    households_per_area : ndarray of shape (n_areas,), int
    n_pairs : int >= 0
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_areas,), int64
        Targets summing to ``n_pairs``; each is ``floor(x_g)`` or ``ceil(x_g)``
        with ``x_g = households_per_area[g] * n_pairs / sum(households_per_area)``
        and expectation ``x_g``.

    Examples
    --------
    >>> import numpy as np
    >>> t = distribute_targets(np.array([10, 10, 10]), 4, np.random.default_rng(0))
    >>> int(t.sum()), sorted(t.tolist())
    (4, [1, 1, 2])
    """
    n_g = np.asarray(households_per_area, dtype=np.int64)
    total = int(n_g.sum())
    if total == 0 or n_pairs == 0:
        return np.zeros(len(n_g), dtype=np.int64)
    num = n_g * np.int64(n_pairs)
    base = num // total
    remainder = num - base * total  # fractional part x_g - base_g, in units of 1/total
    extra = n_pairs - int(base.sum())
    if extra > 0:
        perm = rng.permutation(len(n_g))
        cum = np.cumsum(remainder[perm])  # ends at extra * total exactly
        u = int(rng.integers(0, total))
        hits = (cum + u) // total - (np.concatenate(([0], cum[:-1])) + u) // total
        base[perm] += hits
    return base
