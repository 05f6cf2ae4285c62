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

When the pairs of all levels fall short of the total the swap rate asks for
(areas whose households were taken as donors by other areas cannot reach their
targets), the finest level is visited again: the households it left without a
donor take part once more, the missing pairs are spread over the areas with
households that could still be paired, and finally finest-level pairs give way
to two pairs each with households left in one area (``_exchange``).

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
from microsdc.swapping.targets import distribute_targets

__all__ = ["SwapState", "run_levels"]

#: Number of area chunks per level (progress is reported after each).
N_CHUNKS = 20

#: Most rounds of drawing again to meet the swap rate (each pairs or rules out at
#: least one household; a round is one pass over the areas).
MAX_TOP_UP_ROUNDS = 50


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


@dataclass
class _Level:
    """What the kernel reads while it pairs the households of one level: the
    sampled households by area and the donor index (see :func:`_donor_index`)."""

    h: int
    finest: bool
    area_of: np.ndarray
    n_areas: int
    members: np.ndarray
    area_ptr: np.ndarray
    donors: tuple[np.ndarray, ...]
    nxt: np.ndarray


class _Loop:
    """The state of the swap loop, shared by the levels: who is used, failed, paired."""

    def __init__(
        self, n_hh: int, level: np.ndarray, profiles: list[tuple[np.ndarray, int]]
    ) -> None:
        self.level = level
        self.used = np.zeros(n_hh, dtype=np.uint8)
        self.failed = np.zeros(n_hh, dtype=np.uint8)
        self.sampled = np.zeros(n_hh, dtype=np.uint8)
        self.partner = np.full(n_hh, -1, dtype=np.int64)
        self.plevel = np.full(n_hh, -1, dtype=np.int64)
        self.flevel = np.full(n_hh, -1, dtype=np.int64)
        self.prof_cell = np.ascontiguousarray(np.stack([c for c, _ in profiles]).astype(np.int64))
        n_cells = [n for _, n in profiles]
        self.cell_off = np.concatenate(([0], np.cumsum(n_cells)[:-1])).astype(np.int64)
        self.cptr_off = self.cell_off + np.arange(len(profiles), dtype=np.int64)

    def sweep(
        self,
        lv: _Level,
        targets: np.ndarray,
        charged: np.ndarray,
        on_progress: Callable[[int, float], None] | None = None,
    ) -> None:
        """Visit every area of the level once, in chunks (progress after each)."""
        from microsdc.swapping import _kernels as k

        prof_order, cell_ptr, pair_code, pair_off, pair_alive, cell_alive = lv.donors
        buf = np.empty(max(int(np.diff(lv.area_ptr).max(initial=0)), 1), dtype=np.int64)
        bounds = np.linspace(0, lv.n_areas, min(N_CHUNKS, lv.n_areas) + 1).astype(np.int64)
        for c in range(len(bounds) - 1):
            k.swap_areas(
                bounds[c],
                bounds[c + 1],
                lv.area_ptr,
                lv.members,
                lv.area_of,
                self.level,
                lv.h,
                lv.finest,
                targets,
                charged,
                self.prof_cell,
                prof_order,
                lv.nxt,
                cell_ptr,
                self.cptr_off,
                cell_alive,
                self.cell_off,
                pair_code,
                pair_alive,
                pair_off,
                self.used,
                self.failed,
                self.partner,
                self.plevel,
                self.flevel,
                self.sampled,
                buf,
            )
            if on_progress is not None:
                on_progress(lv.h, (c + 1) / (len(bounds) - 1))

    def with_partner(self, lv: _Level) -> np.ndarray:
        """Households left (unused, not failed) that some household left in another area
        equals on a similarity profile: those that could still be paired."""
        _, _, pair_code, pair_off, pair_alive, cell_alive = lv.donors
        left = (self.used == 0) & (self.failed == 0)
        ok = np.zeros(len(left), dtype=bool)
        for p in range(self.prof_cell.shape[0]):
            same_cell = cell_alive[self.cell_off[p] + self.prof_cell[p]]
            same_area = pair_alive[pair_off[p] + pair_code[p]]
            ok |= same_cell > same_area
        return left & ok

    def revive(self, lv: _Level, households: np.ndarray) -> None:
        """Let households recorded without a donor at this level take part again: they
        count as live donors once more, and the skip lists are rebuilt."""
        if not len(households):
            return
        _, _, pair_code, pair_off, pair_alive, cell_alive = lv.donors
        self.failed[households] = 0
        for p in range(self.prof_cell.shape[0]):
            np.add.at(cell_alive, self.cell_off[p] + self.prof_cell[p, households], 1)
            np.add.at(pair_alive, pair_off[p] + pair_code[p, households], 1)
        lv.nxt[:] = np.arange(lv.nxt.shape[1], dtype=np.int64)

    def meet_rate(self, lv: _Level, n_pairs: int, rng: np.random.Generator) -> None:
        """Draw again where households are left until the pairs reach ``n_pairs``.

        An area's target can be out of reach when other areas took its households
        as donors. The households of this level without a donor take part again
        (a partner may now be found for them), the pairs still missing are spread
        over the finest areas in proportion to their households that could still
        be paired, and those areas are visited again, until the rate is met or no
        household left has a partner in another area (at most
        :data:`MAX_TOP_UP_ROUNDS` rounds). Then pairs of the finest level give way
        to two pairs each with households left (see ``_exchange``). A household
        that finds no partner in these rounds is recorded as without a donor only
        if it was before.
        """
        if n_pairs - int(self.sampled.sum()) <= 0:
            return
        retry = np.flatnonzero(self.flevel == lv.h)
        self.revive(lv, retry)
        tried = np.zeros(len(self.used), dtype=bool)
        for _ in range(MAX_TOP_UP_ROUNDS):
            missing = n_pairs - int(self.sampled.sum())
            can = np.flatnonzero(self.with_partner(lv))
            if missing <= 0 or len(can) == 0:
                break
            per_area = np.bincount(lv.area_of[can], minlength=lv.n_areas)
            targets = distribute_targets(per_area, min(missing, len(can)), rng)
            before = self.failed.copy()
            self.sweep(lv, targets, np.zeros(lv.n_areas, dtype=np.int64))
            tried |= (self.failed == 1) & (before == 0)
        self.failed[tried] = 0
        self.flevel[tried] = -1
        missing = n_pairs - int(self.sampled.sum())
        if missing > 0:
            from microsdc.swapping._exchange import add_pairs_by_exchange

            add_pairs_by_exchange(
                self.partner,
                self.plevel,
                self.sampled,
                self.used,
                self.failed,
                lv.area_of,
                self.prof_cell,
                lv.h,
                missing,
            )
        paired = self.used[retry] == 1
        self.flevel[retry[paired]] = -1
        self.failed[retry[~paired]] = 1
        self.flevel[retry[~paired]] = lv.h


def _level_index(
    loop: _Loop,
    h: int,
    finest: bool,
    hh: Households,
    risk: np.ndarray,
    profiles: list[tuple[np.ndarray, int]],
    rngs: list[np.random.Generator],
) -> _Level | None:
    """The sampled households and donors of level ``h``; None above the finest level when
    nobody is at risk there."""
    lrng_donor, lrng_sample, lrng_order = rngs
    area_of, n_areas = hh.area[h], hh.n_areas[h]
    alive = (loop.used == 0) & (loop.failed == 0)
    if finest:
        members, area_ptr = _finest_members(risk[:, h], lrng_sample, area_of, n_areas)
    else:
        must = np.flatnonzero((loop.level == h) & alive)
        if len(must) == 0:
            return None
        must = must[lrng_order.permutation(len(must))]
        members, area_ptr = _bucket(must, area_of, n_areas)
    donors = _donor_index(risk[:, h], lrng_donor, profiles, area_of, n_areas, alive)
    nxt = np.tile(np.arange(hh.n_households, dtype=np.int64), (len(profiles), 1))
    return _Level(h, finest, area_of, n_areas, members, area_ptr, donors, nxt)


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
        Pairs each finest area must reach; when areas cannot reach theirs, the
        pairs still missing of ``targets.sum()`` are drawn again where households
        are left (see ``_Loop.meet_rate``).
    rng : numpy.random.Generator
    on_progress : callable (level, fraction done), optional
    """
    n_levels = len(hh.area)
    loop = _Loop(hh.n_households, level, profiles)
    level_rngs = rng.spawn(n_levels)
    for h in range(n_levels):
        # a fourth stream, for the rounds that meet the rate, leaves the others as they were
        *rngs, lrng_more = level_rngs[h].spawn(4)
        finest = h == n_levels - 1
        lv = _level_index(loop, h, finest, hh, risk, profiles, rngs)
        if lv is None:
            if on_progress is not None:
                on_progress(h, 1.0)
            continue
        if finest:
            area_of = hh.area[h]
            charged = np.bincount(area_of[loop.sampled == 1], minlength=lv.n_areas)
            loop.sweep(lv, targets.astype(np.int64), charged.astype(np.int64), on_progress)
            loop.meet_rate(lv, int(targets.sum()), lrng_more)
        else:
            zeros = np.zeros(lv.n_areas, dtype=np.int64)
            loop.sweep(lv, zeros, zeros, on_progress)
    return SwapState(
        partner=loop.partner, pair_level=loop.plevel, fail_level=loop.flevel, sampled=loop.sampled
    )
