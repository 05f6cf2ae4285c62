"""Which counting route to take: a cost model over rows, patterns, masks and key volume.

Routes (all exact, all policies):

- ``"groupby"``: no missing value (or the category policy): fk is the size of
  the group of identical rows, one pass over a combined key (bincount or hash).
- ``"dense"``: one array over every key combination (missing as one more value
  per column), transformed axis by axis; cost about ``cells x n_qis``.
- ``"pairs"``: pairs of missingness masks on distinct patterns; cost about
  ``n_masks x n_patterns`` key computations: one lookup per complete pattern and
  incomplete mask (each incomplete mask keeps a table of its patterns), two key
  computations per incomplete pattern and mask (patterns of rare masks are
  counted on bit sets inside this route, see
  ``microsdc.risk.kanonymity._rare_masks``).
- ``"bitset"``: bit sets of patterns per (column, value); cost at most
  ``n_patterns x n_observed x n_patterns / 64`` word operations, usually far
  less (intersections shrink fast); memory ``sum(categories) x n_patterns / 8`` bytes.
- ``"split"`` (wildcard and alpha policies): the patterns split on one column at
  a time (:mod:`microsdc._kernels.colsplit`); a blank travels with every value
  of its column, so the cost grows as ``n_patterns x prod(1 + blank share of
  column j)``, whatever the number of masks (measured: 0.35 to 0.45 us per pattern
  and unit of that product on one core, 1M patterns, codes of 8 bits; more with
  wider codes).

Small inputs (the bit-set route estimated at ``SMALL_NS`` or less, a few thousand
patterns) take the bit-set route even where mask pairs would be a few
milliseconds faster: it counts every policy in one kernel, where mask pairs use
three (``pair_support``, ``complete_cross`` and, for the patterns of rare masks,
``bitset_support`` itself), so a first call in a new installation compiles one
kernel instead of three (seconds, against milliseconds of counting).

The constants are rough nanoseconds per unit of work measured on one core; only
their ratios matter.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["BITSET_MAX_BYTES", "DENSE_MAX_CELLS", "SMALL_NS", "choose_route", "route_costs"]

#: Largest dense array (cells) any route allocates.
DENSE_MAX_CELLS = 1 << 24
#: Largest bit-set memory (bytes) the bitset route allocates.
BITSET_MAX_BYTES = float(1 << 29)
#: Estimated bit-set work (ns) up to which that route is taken unless the dense one is cheaper.
SMALL_NS = 2e7

_NS_DENSE_CELL = 1.5  # per cell and axis of the dense transform
_NS_DENSE_ROW = 15.0  # per row (or pattern) of the dense route: key + bincount + lookup
_NS_PAIR = 6.0  # per (mask, incomplete pattern) key computation and probe
_NS_CROSS = 5.0  # per (incomplete mask, complete pattern) lookup; an upper bound: masks
# with few patterns use an index of the complete patterns instead of a pass
_NS_WORD = 1.5  # per word AND of the bit sets and column (measured, shared machine)
_NS_SPLIT = 400.0  # per pattern and unit of prod(1 + blank share) in the split route


def route_costs(
    n_items: int,
    n_patterns: int,
    n_masks: int,
    n_categories: np.ndarray,
    *,
    n_complete: int = 0,
    blank_share: np.ndarray | None = None,
) -> dict[str, float]:
    """Estimated cost of each route with missing values (``inf`` when not allowed).

    Parameters
    ----------
    n_items : number of rows the dense route would read (rows or distinct patterns)
    n_patterns : distinct (mask, values) patterns
    n_masks : distinct missingness masks
    n_categories : ndarray of shape (n_qis,)
    n_complete : distinct patterns without a missing value (among ``n_patterns``)
    blank_share : ndarray of shape (n_qis,), optional
        Share of the distinct patterns that are blank in each column; the split
        route is costed only when it is given (it counts the wildcard and alpha
        policies only).
    """
    card = np.asarray(n_categories, dtype=np.float64)
    m = len(card)
    log_cells = float(np.sum(np.log2(card + 1.0))) if m else 0.0
    costs: dict[str, float] = {}
    if log_cells <= math.log2(DENSE_MAX_CELLS):
        cells = 2.0**log_cells
        costs["dense"] = _NS_DENSE_CELL * cells * max(m, 1) + _NS_DENSE_ROW * n_items
    else:
        costs["dense"] = math.inf
    n_inc = max(n_patterns - n_complete, 0)
    costs["pairs"] = (
        _NS_PAIR * n_masks * n_inc * (1.0 + m / 8.0)
        + _NS_CROSS * n_masks * n_complete
        + 20.0 * n_patterns
    )
    words = (n_patterns + 63) // 64
    bit_bytes = float(np.sum(card)) * words * 8.0
    if bit_bytes <= BITSET_MAX_BYTES:
        costs["bitset"] = _NS_WORD * n_patterns * words * max(m, 1) + 10.0 * bit_bytes / 8.0
    else:
        costs["bitset"] = math.inf
    if blank_share is not None:
        blow = float(np.prod(1.0 + np.asarray(blank_share, dtype=np.float64)))
        costs["split"] = _NS_SPLIT * n_patterns * blow
    else:
        costs["split"] = math.inf
    return costs


def choose_route(
    n_items: int,
    n_patterns: int,
    n_masks: int,
    n_categories: np.ndarray,
    *,
    has_missing: bool = True,
    kind: str = "wildcard",
    n_complete: int = 0,
    blank_share: np.ndarray | None = None,
) -> str:
    """The cheapest exact route: "groupby", "dense", "pairs", "bitset" or "split"
    (the last for the wildcard and alpha policies, when ``blank_share`` is given).

    >>> import numpy as np
    >>> choose_route(10**6, 5 * 10**5, 64, np.array([100, 2, 400, 6, 8, 50]), n_complete=3 * 10**5)
    'pairs'
    >>> choose_route(20_000, 20_000, 19_000, np.full(20, 3))
    'bitset'
    >>> choose_route(10**6, 10**5, 64, np.array([18, 2, 7, 16, 41, 14]))
    'dense'
    """
    if not has_missing or kind == "category":
        return "groupby"
    share = blank_share if kind in ("wildcard", "alpha") else None
    costs = route_costs(
        n_items, n_patterns, n_masks, n_categories, n_complete=n_complete, blank_share=share
    )
    if costs["bitset"] <= SMALL_NS and costs["bitset"] <= costs["dense"]:
        return "bitset"  # one kernel to compile (module docstring)
    return min(("dense", "pairs", "bitset", "split"), key=lambda r: costs[r])
