"""Record swapping on the synthetic census, for ``microsdc demo`` and the documentation."""

from __future__ import annotations

from microsdc.datasets.census import synthetic_census
from microsdc.swapping.core import SwapResult, record_swap_result
from microsdc.swapping.demo import DEMO_SETTINGS

__all__ = ["demo_swap"]


def demo_swap(n_households: int = 20000, seed: int = 2021) -> SwapResult:
    """Swap households of a synthetic census with typical settings.

    The census has ``n_households`` households (about 3.5 persons each) in a
    nuts1 > nuts2 > nuts3 geography, with the municipality (``lau2``) carried
    along with the geography; households whose combination of age group
    and nationality is shared by fewer than 3 persons of their area are
    swapped first (similar households: same size and type, else same size), then
    more at random up to 5 % of households.

    Parameters
    ----------
    n_households : int >= 1, default 20000
    seed : int >= 0, default 2021
        Seeds both the census and the swap.

    Returns
    -------
    SwapResult

    Examples
    --------
    >>> res = demo_swap()
    >>> res.n_swapped_households >= 1000, res.n_no_donor
    (True, 0)
    """
    data = synthetic_census(n_households, seed=seed)
    return record_swap_result(data, seed=seed + 1, **DEMO_SETTINGS)
