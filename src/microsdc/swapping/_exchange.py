"""More pairs by exchanging partners, when the households left lie in one area.

After the swap loop has drawn again in every area with households left, the
households still unpaired may all lie in one area (per similarity cell), so no
two of them can be paired. A pair ``(s, d)`` formed at the finest level whose
households both lie outside that area can then give way to two pairs ``(a1, s)``
and ``(a2, d)`` with two of those households: every household swapped before
stays swapped (with another partner outside its area, equal on a similarity
profile) and one pair more is formed. Pairs formed above the finest level are
never touched (their households must leave a coarser area).
"""

from __future__ import annotations

import numpy as np

__all__ = ["add_pairs_by_exchange"]


def _left_by_cell(prof_cell: np.ndarray, left: np.ndarray) -> list[dict[int, list[int]]]:
    """For each profile, the households left per cell (lists, riskiest order kept)."""
    out: list[dict[int, list[int]]] = []
    for p in range(prof_cell.shape[0]):
        cells: dict[int, list[int]] = {}
        for hh, c in zip(left.tolist(), prof_cell[p, left].tolist(), strict=True):
            cells.setdefault(c, []).append(hh)
        out.append(cells)
    return out


def add_pairs_by_exchange(
    partner: np.ndarray,
    plevel: np.ndarray,
    sampled: np.ndarray,
    used: np.ndarray,
    failed: np.ndarray,
    area_of: np.ndarray,
    prof_cell: np.ndarray,
    h: int,
    missing: int,
) -> int:
    """Form up to ``missing`` more pairs by exchanging partners (updates the arrays).

    Parameters
    ----------
    partner, plevel : ndarray of int64, shape (n_households,)
        The loop's pairs and their levels (-1 where none).
    sampled, used, failed : ndarray of uint8, shape (n_households,)
    area_of : ndarray of int64
        Finest-level area of each household.
    prof_cell : ndarray of int64, shape (n_profiles, n_households)
        Similarity cell of each household per profile.
    h : int
        The finest level.
    missing : int
        Pairs still missing.

    Returns
    -------
    int
        Pairs added.
    """
    left = np.flatnonzero((used == 0) & (failed == 0))
    if missing <= 0 or len(left) < 2:
        return 0
    stacks = _left_by_cell(prof_cell, left)
    taken: set[int] = set()

    def partner_for(x: int, exclude: int) -> int:
        """A household left, outside x's area, equal to x on a profile (profiles in order)."""
        for p, cells in enumerate(stacks):
            stack = cells.get(int(prof_cell[p, x]))
            if not stack:
                continue
            while stack and stack[-1] in taken:
                stack.pop()
            i = len(stack) - 1
            while i >= 0 and (stack[i] in taken or stack[i] == exclude):
                i -= 1
            if i >= 0 and area_of[stack[i]] != area_of[x]:
                return stack[i]
        return -1

    added = 0
    for s in np.flatnonzero((sampled == 1) & (plevel == h)).tolist():
        if added >= missing:
            break
        d = int(partner[s])
        a1 = partner_for(s, -1)
        a2 = partner_for(d, a1) if a1 >= 0 else -1
        if a2 < 0:
            continue
        taken.update((a1, a2))
        partner[[a1, s, a2, d]] = [s, a1, d, a2]
        used[[a1, a2]] = 1
        plevel[[a1, a2]] = h
        sampled[[s, d]] = 0
        sampled[[a1, a2]] = 1
        added += 1
    return added
