"""numba kernels of the swapping loop (imported only when a swap runs)."""

from __future__ import annotations

import numba

__all__ = ["find_alive", "kill", "swap_areas"]


@numba.njit(cache=True, nogil=True)
def find_alive(pos, end, order, nxt, used, failed):
    j = pos
    while j < end:
        k = nxt[j]
        if k != j:
            j = k
            continue
        hh = order[j]
        if used[hh] != 0 or failed[hh] != 0:
            nxt[j] = j + 1
            j += 1
            continue
        break
    i = pos
    while i < j:
        k = nxt[i]
        nxt[i] = j
        i = k if k > i else i + 1
    return j


@numba.njit(cache=True, nogil=True)
def kill(hh, prof_cell, pair_code, cell_alive, cell_off, pair_alive, pair_off):
    for p in range(prof_cell.shape[0]):
        cell_alive[cell_off[p] + prof_cell[p, hh]] -= 1
        pair_alive[pair_off[p] + pair_code[p, hh]] -= 1


@numba.njit(cache=True, nogil=True)
def swap_areas(
    a_lo,
    a_hi,
    area_ptr,
    members,
    area_of,
    level,
    h,
    finest,
    targets,
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
):
    n_prof = prof_cell.shape[0]
    for a in range(a_lo, a_hi):
        lo = area_ptr[a]
        hi = area_ptr[a + 1]
        ns = 0
        if finest:
            n_must = 0
            for i in range(lo, hi):
                hh = members[i]
                if used[hh] == 0 and failed[hh] == 0 and level[hh] == h:
                    n_must += 1
            extra = targets[a] - charged[a] - n_must
            for i in range(lo, hi):
                hh = members[i]
                if used[hh] != 0 or failed[hh] != 0:
                    continue
                if level[hh] == h:
                    buf[ns] = hh
                    ns += 1
                elif extra > 0:
                    buf[ns] = hh
                    ns += 1
                    extra -= 1
        else:
            for i in range(lo, hi):
                hh = members[i]
                if used[hh] == 0 and failed[hh] == 0:
                    buf[ns] = hh
                    ns += 1
        for t in range(ns):
            s = buf[t]
            d = -1
            for p in range(n_prof):
                c = prof_cell[p, s]
                others = cell_alive[cell_off[p] + c] - pair_alive[pair_off[p] + pair_code[p, s]]
                if others <= 0:
                    continue
                start = cell_ptr[cptr_off[p] + c]
                end = cell_ptr[cptr_off[p] + c + 1]
                j = find_alive(start, end, prof_order[p], nxt[p], used, failed)
                while j < end:
                    cand = prof_order[p, j]
                    if area_of[cand] != a:
                        d = cand
                        break
                    j = find_alive(j + 1, end, prof_order[p], nxt[p], used, failed)
                if d >= 0:
                    break
            if d >= 0:
                used[s] = 1
                used[d] = 1
                kill(s, prof_cell, pair_code, cell_alive, cell_off, pair_alive, pair_off)
                kill(d, prof_cell, pair_code, cell_alive, cell_off, pair_alive, pair_off)
                partner[s] = d
                partner[d] = s
                plevel[s] = h
                plevel[d] = h
                sampled[s] = 1
            else:
                failed[s] = 1
                flevel[s] = h
                kill(s, prof_cell, pair_code, cell_alive, cell_off, pair_alive, pair_off)
