"""The swapping loop: levels from coarse to fine, households at risk first, donors by priority.

At level ``h`` every area (hierarchy prefix of length ``h + 1``) is visited in
code order. Its sampled households are

* above the finest level: the unused households at risk at level ``h``;
* at the finest level: the unused households at risk there, topped up to the
  area's target (minus the pairs already charged to it) by weighted sampling
  without replacement, weights = finest-level risk.

Each sampled household takes the first donor, in descending priority
``risk[d, h] / Exp(1)`` (weighted sampling in proportion to level-``h`` risk),
that is unused, has not failed before, lies outside the sampled household's
level-``h`` area and equals it on the first similarity profile that offers such
a donor. A household without a donor is recorded as failed and is neither
sampled nor used as a donor afterwards (sdcMicro defect B2 fixed).

Donors are kept per (profile, cell) in priority order; a skip list with path
compression jumps over households that were used meanwhile, and counts of live
households per cell and per (cell, area) tell at once when a cell only holds
households of the sampled household's own area.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from microsdc.swapping._prepare import Households, combine_codes

__all__ = ["SwapState", "run_levels"]

#: Number of area chunks per level (progress is reported after each).
N_CHUNKS = 20


@dataclass
class SwapState:
    """Outcome of the loop, one entry per household (hid order).

    Attributes
    ----------
    partner : ndarray of int64
        The other household of the pair, or -1.
    pair_level : ndarray of int64
        Level at which the household was swapped, or -1.
    fail_level : ndarray of int64
        Level at which the household was sampled and found no donor, or -1.
    sampled : ndarray of uint8
        1 for the sampled side of a pair, 0 for donors and households not swapped.
    """

    partner: np.ndarray
    pair_level: np.ndarray
    fail_level: np.ndarray
    sampled: np.ndarray


def _priority(weight: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Exponential-race keys: descending order = weighted sampling without replacement.

    Households of weight 0 come after all others, in random order (no ties collapse).
    """
    e = rng.standard_exponential(len(weight))
    with np.errstate(divide="ignore"):
        return np.where(weight > 0, weight / e, -e)


def _bucket(order: np.ndarray, cells: np.ndarray, n_cells: int) -> tuple[np.ndarray, np.ndarray]:
    """Stable sort of ``order`` by ``cells[order]``; returns (sorted, pointers of each cell).

    numpy's stable sort is a radix sort on keys of 16 bits or fewer, as cell codes
    usually are; no kernel to compile.
    """
    key = cells[order]
    if n_cells <= 1 << 16:
        key = key.astype(np.uint16)
    ptr = np.zeros(n_cells + 1, dtype=np.int64)
    np.cumsum(np.bincount(key, minlength=n_cells), out=ptr[1:])
    return order[np.argsort(key, kind="stable")].astype(np.int64, copy=False), ptr


def _finest_members(
    risk: np.ndarray, rng: np.random.Generator, area_of: np.ndarray, n_areas: int
) -> tuple[np.ndarray, np.ndarray]:
    """At the finest level every household may be sampled: all, riskiest first (ties
    at random), bucketed by area."""
    skey = _priority(risk, rng)
    return _bucket(np.argsort(-skey, kind="stable"), area_of, n_areas)


def _donor_index(
    risk: np.ndarray,
    rng: np.random.Generator,
    profiles: list[tuple[np.ndarray, int]],
    area_of: np.ndarray,
    n_areas: int,
    alive: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """The donors of one level, riskiest first (ties at random), per similarity profile:
    their order by profile cell, the cell pointers, the (cell, area) pair codes with the
    live donors per pair and per cell, flattened over the profiles as the kernel reads them."""
    dkey = _priority(risk, rng)
    by_key = np.argsort(-dkey, kind="stable")
    orders, ptrs, pcodes, palive, calive = [], [], [], [], []
    for cells, ncell in profiles:
        o, ptr = _bucket(by_key, cells, ncell)
        orders.append(o)
        ptrs.append(ptr)
        pc, npc = combine_codes(cells, ncell, area_of, n_areas)
        pcodes.append(pc)
        palive.append(np.bincount(pc[alive], minlength=npc).astype(np.int64))
        calive.append(np.bincount(cells[alive], minlength=ncell).astype(np.int64))
    pair_off = np.concatenate(([0], np.cumsum([len(x) for x in palive])[:-1])).astype(np.int64)
    return (
        np.ascontiguousarray(np.stack(orders)),
        np.concatenate(ptrs),
        np.ascontiguousarray(np.stack(pcodes)),
        pair_off,
        np.concatenate(palive),
        np.concatenate(calive),
    )


def run_levels(
    hh: Households,
    level: np.ndarray,
    risk: np.ndarray,
    profiles: list[tuple[np.ndarray, int]],
    targets: np.ndarray,
    rng: np.random.Generator,
    on_progress: Callable[[int, float], None] | None = None,
) -> SwapState:
    """Run the swap over all levels.

    Parameters
    ----------
    hh : Households
    level : ndarray of shape (n_households,), int64
        Coarsest level at which the household is at risk; ``n_levels`` if never.
    risk : ndarray of shape (n_households, n_levels), float64
        Household risk per level (donor priority at level h, sampling weight at the
        finest level).
    profiles : list of (codes, n_codes)
        Similarity profiles as household codes; at least one (a constant code
        means "no constraint").
    targets : ndarray of shape (n_finest_areas,), int64
        Pairs each finest area must reach.
    rng : numpy.random.Generator
    on_progress : callable (level, fraction done), optional
    """
    from microsdc.swapping import _kernels as k

    n_hh = hh.n_households
    n_levels = len(hh.area)
    used = np.zeros(n_hh, dtype=np.uint8)
    failed = np.zeros(n_hh, dtype=np.uint8)
    sampled = np.zeros(n_hh, dtype=np.uint8)
    partner = np.full(n_hh, -1, dtype=np.int64)
    plevel = np.full(n_hh, -1, dtype=np.int64)
    flevel = np.full(n_hh, -1, dtype=np.int64)
    level_rngs = rng.spawn(n_levels)
    prof_cell = np.ascontiguousarray(np.stack([c for c, _ in profiles]).astype(np.int64))
    n_cells = [n for _, n in profiles]
    cell_off = np.concatenate(([0], np.cumsum(n_cells)[:-1])).astype(np.int64)
    cptr_off = cell_off + np.arange(len(profiles), dtype=np.int64)

    for h in range(n_levels):
        lrng_donor, lrng_sample, lrng_order = level_rngs[h].spawn(3)
        finest = h == n_levels - 1
        area_of = hh.area[h]
        n_areas = hh.n_areas[h]
        alive = (used == 0) & (failed == 0)
        if finest:
            members, area_ptr = _finest_members(risk[:, h], lrng_sample, area_of, n_areas)
            charged = np.bincount(area_of[sampled == 1], minlength=n_areas).astype(np.int64)
            lvl_targets = targets.astype(np.int64)
        else:
            must = np.flatnonzero((level == h) & alive)
            if len(must) == 0:
                if on_progress is not None:
                    on_progress(h, 1.0)
                continue
            must = must[lrng_order.permutation(len(must))]
            members, area_ptr = _bucket(must, area_of, n_areas)
            charged = lvl_targets = np.zeros(n_areas, dtype=np.int64)
        donors = _donor_index(risk[:, h], lrng_donor, profiles, area_of, n_areas, alive)
        prof_order, cell_ptr, pair_code, pair_off, pair_alive, cell_alive = donors
        nxt = np.tile(np.arange(n_hh, dtype=np.int64), (len(profiles), 1))
        buf = np.empty(max(int(np.diff(area_ptr).max(initial=0)), 1), dtype=np.int64)
        bounds = np.linspace(0, n_areas, min(N_CHUNKS, n_areas) + 1).astype(np.int64)
        for c in range(len(bounds) - 1):
            k.swap_areas(
                bounds[c],
                bounds[c + 1],
                area_ptr,
                members,
                area_of,
                level,
                h,
                finest,
                lvl_targets,
                charged,
                prof_cell,
                prof_order,
                nxt,
                cell_ptr,
                cptr_off,
                cell_alive,
                cell_off,
                pair_code,
                pair_alive,
                pair_off,
                used,
                failed,
                partner,
                plevel,
                flevel,
                sampled,
                buf,
            )
            if on_progress is not None:
                on_progress(h, (c + 1) / (len(bounds) - 1))
    return SwapState(partner=partner, pair_level=plevel, fail_level=flevel, sampled=sampled)
