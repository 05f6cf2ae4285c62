"""SUDA scores on integer codes: MSUs, score weights, DIS and DIS-SUDA.

:func:`suda_codes` runs the MSU search (:mod:`microsdc._kernels.suda`) on the
distinct patterns of one code matrix (one stratum) and turns the MSUs into the
per-record scores; :func:`msu_contributions` sums the MSU lists into variable and
level contributions. :func:`microsdc.risk.suda.suda` is the public front.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from math import prod

import numpy as np

from microsdc._kernels.patterns import distinct_patterns
from microsdc._kernels.suda import (
    BITS_BUDGET,
    covered_by_bits,
    drop_supersets,
    join_lists,
    msu_search,
    msu_tallies,
    pack_layout,
    pack_rows,
    record_msus,
)

__all__ = [
    "MISSING_RULES",
    "StratumSuda",
    "dis_suda_scores",
    "disclosure_index",
    "msu_contributions",
    "score_weights",
    "suda_codes",
]

#: the values of ``missing=`` that :func:`~microsdc.risk.suda.suda` accepts
MISSING_RULES: tuple[str, ...] = ("wildcard", "category", "sdcmicro")


def score_weights(n_keys: int, original: bool = True) -> np.ndarray:
    """Weight of an MSU by size: ``w[s]`` for s = 0..n_keys (``w[0]`` unused, 0).

    ``original``: ``w(s) = (M - s)! = prod_{j=s}^{M-1} (M - j)`` (Elliot et al.,
    sdcMicro ``original_scores=TRUE``); otherwise the IHSN weight
    ``(2^(M-s) - 1) s! (M-s)! / M!`` (sdcMicro ``original_scores=FALSE``).

    Examples
    --------
    >>> score_weights(3).tolist()
    [0.0, 2.0, 1.0, 1.0]
    >>> score_weights(3, original=False).round(4).tolist()
    [0.0, 1.0, 0.3333, 0.0]
    """
    m = n_keys
    w = np.zeros(m + 1, dtype=np.float64)
    for s in range(1, m + 1):
        if original:
            w[s] = float(prod(m - j for j in range(s, m)))
        else:
            fact_s = float(prod(range(2, s + 1)))
            fact_rest = float(prod(range(2, m - s + 1)))
            fact_m = float(prod(range(2, m + 1)))
            w[s] = (2.0 ** (m - s) - 1.0) * fact_s * fact_rest / fact_m
    return w


def disclosure_index(n_uniques: int, n_pairs: int, fraction: float) -> float:
    """DIS = U f / (U f + P (1 - f)) (Skinner & Elliot 2002); 0 when there is no unique.

    ``n_pairs`` is the number of records whose key is shared by exactly one other record.

    Examples
    --------
    >>> disclosure_index(10, 20, 0.5)
    0.3333333333333333
    >>> disclosure_index(0, 20, 0.5)
    0.0
    """
    if n_uniques == 0:
        return 0.0
    f = fraction
    return n_uniques * f / (n_uniques * f + n_pairs * (1.0 - f))


def dis_suda_scores(
    scores: np.ndarray, n_uniques: int, n_pairs: int, fraction: float, n_keys: int
) -> np.ndarray:
    """DIS-SUDA of every record from its SUDA score (Elliot, Skinner & Dale's adjustment).

    ``1 / (1 + (U/DIS - U) / (S_r^Q * sum_j S_j^-Q))`` over the records with
    ``S_r > 0``, ``Q = 1 + (8 - n_keys) / 20``; 0 for a score of 0. ``U/DIS - U``
    is computed as ``P (1 - f) / f`` (the same number, defined when DIS is 0).
    """
    out = np.zeros(len(scores), dtype=np.float64)
    pos = scores > 0
    if not pos.any() or n_uniques == 0:
        return out
    q = 1.0 + (8.0 - n_keys) / 20.0
    sq = scores[pos] ** q
    adj = float(np.sum(np.sort(1.0 / sq)))  # sorted: the same sum in any row order
    excess = n_pairs * (1.0 - fraction) / fraction
    out[pos] = 1.0 / (1.0 + excess / (sq * adj))
    return out


@dataclass(frozen=True)
class StratumSuda:
    """The SUDA search of one code matrix (one stratum).

    Attributes
    ----------
    score : float64 (n_rows,), SUDA score of each record
    dis_suda : float64 (n_rows,)
    msu_counts : int32 (n_rows, max_size), MSUs of each size (column s-1 for size s)
    by_level : int64 (m, n_levels, max_size + 1), MSUs by column, level code and size
    codes : int32 (n_rows, m), the codes searched (-1 = missing)
    wildcard : bool, whether a missing value matched every value
    max_size : int, largest MSU size searched
    n_uniques, n_pairs : int, records unique / in a pair on the full key
    dis : float
    """

    score: np.ndarray
    dis_suda: np.ndarray
    msu_counts: np.ndarray
    by_level: np.ndarray
    codes: np.ndarray
    wildcard: bool
    max_size: int
    n_uniques: int
    n_pairs: int
    dis: float

    def masks_of(self, row: int) -> np.ndarray:
        """The MSUs (column bit masks) of one row of the stratum, searched for that row
        alone (the search of every record keeps counts, not lists)."""
        return record_msus(np.ascontiguousarray(self.codes), row, self.wildcard, self.max_size)


def find_msus(
    packs: list[Packed],
    n_patterns: int,
    n_categories: np.ndarray,
    wildcard: bool,
    max_size: int,
    bits_budget: int = BITS_BUDGET,
) -> tuple[np.ndarray, np.ndarray]:
    """The MSUs of distinct patterns, counted: ``by_pattern`` (n_patterns, max_size) by
    size and ``by_level`` (m, n_levels, max_size + 1) by column, level and size
    (:func:`~microsdc._kernels.suda.msu_tallies`).

    ``packs`` holds the patterns packed by :func:`packed_patterns`, once per thread
    (each search writes in its rows). With two, one thread searches the sets whose
    first column is the first key variable (about half of the search tree) and keeps
    them as lists, while the other searches the rest and counts them (the kernel
    releases the GIL); the first thread's sets that hold an MSU of the second (a set
    marked in its superset bits, or found in its lists when the bits would take more
    than ``bits_budget`` bytes) are then dropped and the others counted."""
    m = len(n_categories)
    every = (1 << m) - 1
    like = np.zeros(0, dtype=np.int16 if m <= 15 else np.int32 if m <= 31 else np.int64)
    rows, *layout = packs[0]
    args = (tuple(layout), n_patterns, n_categories, wildcard, max_size)
    if len(packs) == 1:
        out = msu_search(rows, *args, every, like, bits_budget, False, True)
        return out[2], out[3]
    from concurrent.futures import ThreadPoolExecutor

    _trim_heap()
    with ThreadPoolExecutor(max_workers=2) as pool:
        # the first thread keeps lists (not counts), the second counts (no lists)
        first = pool.submit(msu_search, rows, *args, 1, like, bits_budget, True, False)
        rest_cols = every & ~1
        rest = pool.submit(
            msu_search, packs[1][0], *args, rest_cols, like, bits_budget, False, True
        )
        store_a, n_a = first.result()[:2]
        store_b, n_b, by_pattern, by_level, bits_b = rest.result()
        del first, rest  # the futures hold the results: free the other arrays now
    if bits_b.shape[1] > 0:
        keep = ~covered_by_bits(store_a, n_a, bits_b, 1)
    else:
        pat_a, mask_a = join_lists(store_a, n_a)
        pat_b, mask_b = join_lists(store_b, n_b)
        keep = drop_supersets(pat_a, mask_a, n_patterns, pat_b, mask_b)
        del pat_a, mask_a, pat_b, mask_b
    del store_b, bits_b
    msu_tallies(store_a, n_a, keep, packs[0], by_pattern, by_level)
    del store_a, keep
    _trim_heap()
    return by_pattern, by_level


#: packed patterns: the rows and the (word, shift, mask) of each field
Packed = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def packed_patterns(
    codes: np.ndarray, counts: np.ndarray, n_categories: np.ndarray, room: int = 4
) -> Packed:
    """The distinct patterns ``codes`` as rows of bit fields for the MSU search
    (:func:`~microsdc._kernels.suda.pack_layout`), with room for ``room`` times the
    patterns: the search writes the groups it splits after them. The rows are zeros
    from the system (calloc): the room the search does not reach takes no memory."""
    word, shift, fmask = pack_layout(np.asarray(n_categories, dtype=np.int64), len(codes))
    rows = np.zeros((max(room * len(codes), 16), int(word.max()) + 1), dtype=np.int64)
    pack_rows(codes, counts, rows, word, shift, fmask)
    return rows, word, shift, fmask


def resolve_threads(n_threads: int, n_patterns: int, n_keys: int) -> int:
    """The threads the search runs on: ``n_threads`` 0 picks two when
    :func:`two_threads_help`; one below 1,000 patterns or 3 keys."""
    if n_threads == 0:
        n_threads = 2 if two_threads_help(n_patterns, n_keys) else 1
    return 2 if n_threads >= 2 and n_keys >= 3 and n_patterns >= 1000 else 1


def _trim_heap() -> None:
    """Give the memory freed so far back to the system (glibc's ``malloc_trim``).

    Each search thread allocates from a heap (arena) of its own, which does not reuse
    what another thread has freed: without this, the memory the main thread freed
    before the search and the threads' memory after it stay resident and add up.
    Elsewhere than glibc, nothing is done."""
    try:
        libc = ctypes.CDLL(None)
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return
    trim.argtypes = [ctypes.c_size_t]
    trim(0)


def two_threads_help(n_patterns: int, n_keys: int) -> bool:
    """Whether a second thread shortens the search: at least 20,000 distinct patterns
    and 3 keys (below that the search takes milliseconds), two CPUs for this process,
    and one of them free (the load average over the last minute at most the CPUs less
    one; on a busy machine a second thread only competes with the other work)."""
    import os

    if n_patterns < 20_000 or n_keys < 3:
        return False
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if not cpus or cpus < 2:
        return False
    return os.getloadavg()[0] <= cpus - 1 if hasattr(os, "getloadavg") else True


def _wildcard_counts(codes: np.ndarray, n_categories: np.ndarray) -> np.ndarray:
    """fk of each row on the whole key with missing values as wildcards."""
    from microsdc._core.policy import Policy
    from microsdc.risk.frequencies import row_frequencies

    fk, _ = row_frequencies(codes, n_categories, policy=Policy("wildcard"))
    return np.asarray(fk, dtype=np.int64)


def suda_codes(
    codes: np.ndarray,
    n_categories: np.ndarray,
    *,
    rule: str,
    max_size: int,
    weights: np.ndarray,
    fraction: float,
    n_keys: int,
    n_threads: int = 1,
) -> StratumSuda:
    """MSUs and scores of the rows of ``codes`` (n_rows, m; -1 = missing).

    ``rule`` is one of :data:`MISSING_RULES`; under ``"category"`` the codes must
    already hold missing as a category of its own. ``weights`` is
    :func:`score_weights` for the M of the scores.
    """
    wildcard = rule == "wildcard"
    ncat = np.asarray(n_categories, dtype=np.int64)
    pt = distinct_patterns(codes, ncat, dense_limit=0)  # a hash table: memory of the rows
    count, inverse = pt.count, pt.inverse
    n_used = resolve_threads(n_threads, len(count), codes.shape[1])
    packs = [packed_patterns(pt.codes, count, ncat) for _ in range(n_used)]
    del pt  # the search reads the packed rows: the codes of the patterns can go
    by_pattern, by_level = find_msus(packs, len(count), ncat, wildcard, max_size)
    del packs
    # by counts per size, so that the score does not depend on the order of the MSUs
    per_pattern = by_pattern @ weights[1 : max(max_size, 1) + 1]
    score = per_pattern[inverse]
    fk = _wildcard_counts(codes, ncat) if wildcard else count[inverse]
    n_uniques = int(np.count_nonzero(fk == 1))
    n_pairs = int(np.count_nonzero(fk == 2))
    return StratumSuda(
        score=score,
        dis_suda=dis_suda_scores(score, n_uniques, n_pairs, fraction, n_keys),
        msu_counts=by_pattern[inverse].astype(np.int32),
        by_level=by_level,
        codes=codes,
        wildcard=wildcard,
        max_size=max_size,
        n_uniques=n_uniques,
        n_pairs=n_pairs,
        dis=disclosure_index(n_uniques, n_pairs, fraction),
    )


def msu_contributions(
    by_level: np.ndarray, weights: np.ndarray, n_categories: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple[np.ndarray, ...]]]:
    """Variable and level contributions from the MSUs counted by column, level and size.

    An MSU of size s gives its weight ``weights[s]`` split evenly, ``weights[s] / s``,
    to each of its variables (and to the level the record has there), so the
    contributions add up to the total score; ``in_msus`` sums the whole weight of
    the MSUs that hold the variable. The sums are taken over counts by MSU size,
    so they do not depend on the order of the rows.

    Parameters
    ----------
    by_level : int64 (m, n_levels, S + 1), MSUs of size s holding column j at a level
        (:func:`~microsdc._kernels.suda.msu_tallies`; missing is level ``n_categories[j]``)
    weights : float64 (S + 1,), the score of an MSU by size
    n_categories : int64 (m,)

    Returns
    -------
    share, in_msus, n_msus : arrays of shape (m,), sums (not yet percentages)
    levels : per variable, (codes, share, in_msus, n_msus) of the levels that occur;
        the code ``n_categories[j]`` stands for a missing value
    """
    m = by_level.shape[0]
    n_sizes = by_level.shape[2]
    w = np.asarray(weights[:n_sizes], dtype=np.float64)
    w_split = np.zeros(n_sizes)
    w_split[1:] = w[1:] / np.arange(1, n_sizes)
    share = np.zeros(m)
    in_msus = np.zeros(m)
    n_msus = np.zeros(m, dtype=np.int64)
    levels: list[tuple[np.ndarray, ...]] = []
    for j in range(m):
        t = by_level[j, : int(n_categories[j]) + 1].astype(np.float64)
        sh = t @ w_split
        im = t @ w
        nm = t.sum(axis=1).astype(np.int64)
        share[j] = float(sh.sum())
        in_msus[j] = float(im.sum())
        n_msus[j] = int(nm.sum())
        present = np.flatnonzero(nm)
        levels.append((present, sh[present], im[present], nm[present]))
    return share, in_msus, n_msus, levels
