"""k-anonymity with missing values: per-record sample frequencies and the kanonymity API.

A missing quasi-identifier value is a wildcard that matches any category, on
either side (policy ``"wildcard"``, the default). Other policies are offered
for comparison with other tools; see :func:`sample_frequencies`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from microsdc._validation import check_columns, check_frame, check_int, param_error
from microsdc.encode import EncodedQIs, MissingValues, encode_qis
from microsdc.exceptions import DataValidationError, InvalidParameterError
from microsdc.risk._policy import MissingPolicy, Policy, parse_policy

__all__ = [
    "PatternFrequencies",
    "check_k_anonymity",
    "frequencies_for",
    "frequencies_from_codes",
    "row_frequencies",
    "sample_frequencies",
    "share_weighted_support",
]


@dataclass(frozen=True)
class PatternFrequencies:
    """Frequencies computed once per distinct key pattern.

    Attributes
    ----------
    codes : ndarray of shape (n_patterns, n_qis), int32, -1 = missing
    count : ndarray of shape (n_patterns,), int64, records with exactly this pattern
    fk : ndarray of shape (n_patterns,), sample frequency (int64, float64 for alpha < 1)
    Fk : ndarray of shape (n_patterns,), float64 or None, estimated population frequency
    inverse : ndarray of shape (n_rows,), int64, pattern of each record
    """

    codes: np.ndarray
    count: np.ndarray
    fk: np.ndarray
    Fk: np.ndarray | None
    inverse: np.ndarray

    @property
    def row_fk(self) -> np.ndarray:
        """fk of each record, shape (n_rows,)."""
        return self.fk[self.inverse]

    @property
    def row_Fk(self) -> np.ndarray | None:
        """Fk of each record, shape (n_rows,), or None without weights."""
        return None if self.Fk is None else self.Fk[self.inverse]


def frequencies_from_codes(
    codes: np.ndarray,
    n_categories: np.ndarray,
    *,
    policy: Policy | None = None,
    weights: np.ndarray | None = None,
    route: str | None = None,
    counts: np.ndarray | None = None,
) -> PatternFrequencies:
    """Sample (and weighted) frequencies from an integer code matrix.

    The fast core behind :func:`sample_frequencies`, for callers that already
    hold codes (e.g. suppression loops).

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_qis), integer, -1 = missing
    n_categories : ndarray of shape (n_qis,), codes of column j lie in [0, n_categories[j])
    policy : Policy, default wildcard
    weights : ndarray of shape (n_rows,), float, optional
        Sampling weights (non-negative, no missing values; not re-checked here).
    route : {"dense", "pairs", "bitset", "split"}, optional
        Force a counting route (for tests and benchmarks); by default the cost
        model of :func:`microsdc._kernels.route.choose_route` picks it. Data
        without missing values (and the category policy) are always counted by
        group. "split" counts the wildcard and alpha policies only.
    counts : ndarray of shape (n_rows,), integer >= 0, optional
        How many records each row stands for (rows that are already key
        patterns with their numbers of records, as an engine's group-by gives
        them); by default 1 each. fk, the shares of the ``"probabilistic"``
        policy and alpha's exact-pattern matches count records.

    Returns
    -------
    PatternFrequencies

    Raises
    ------
    ValueError
        For an unknown ``route``, or "split" with another policy.

    Notes
    -----
    The rows are reduced to distinct patterns (missingness mask and values) with
    their counts and weight sums; then one of the routes of
    :mod:`microsdc._kernels.route`:

    - ``"dense"``: one array over every key combination, transformed axis by axis;
    - ``"pairs"`` (spec section 3): the complete patterns are looked up, in one pass
      per incomplete mask, in a table of that mask's patterns (a distinct
      incomplete pattern is the only one of its mask a complete pattern can match);
      the incomplete patterns meet each other by pairs of missingness masks,
      grouped on the columns observed in both. Tables are direct arrays,
      int64-keyed hashes, or hashes that compare the codes once the key span
      passes 62 bits, so that a combined key never overflows. Patterns of rare
      masks take bit sets instead;
    - ``"bitset"``: for each pattern, the intersection of the bit sets of patterns
      compatible with each of its values;
    - ``"split"`` (wildcard and alpha): the patterns split on one column at a time,
      a blank going with every value of its column, until the members of a node
      are all compatible (:mod:`microsdc._kernels.colsplit`); its cost follows
      the patterns and the share of blanks, not the number of masks.

    Every route gives the same numbers for every policy. Conservative minima are
    searched over the compatible patterns of each incomplete pattern
    (:mod:`microsdc._kernels.conservative`).
    """
    from microsdc._kernels.patterns import distinct_patterns
    from microsdc._kernels.route import choose_route

    policy = policy or Policy("wildcard")
    _check_route(route, policy.kind)
    weighted = weights is not None
    pat = distinct_patterns(codes, n_categories, weights)
    if counts is not None:
        records = np.bincount(pat.inverse, weights=counts, minlength=len(pat.count))
        pat = replace(pat, count=np.rint(records).astype(np.int64))
        if not weighted:
            pat = replace(pat, weight=pat.count.astype(np.float64))
    m = pat.codes.shape[1]
    full = (1 << m) - 1
    has_missing = bool(np.any(pat.mask != full))
    if policy.kind == "category" or not has_missing:
        fk = pat.count.astype(np.float64) if policy.fractional else pat.count.copy()
        big_fk = pat.weight.copy() if weighted else None
        return PatternFrequencies(pat.codes, pat.count, fk, big_fk, pat.inverse)
    n_masks = _n_masks(pat.mask, m)
    if route is None:
        n_complete = int(np.count_nonzero(pat.mask == full))
        route = choose_route(
            len(pat.count),
            len(pat.count),
            n_masks,
            n_categories,
            kind=policy.kind,
            n_complete=n_complete,
            # (on at most 200,000 patterns: the share is for the cost model only)
            blank_share=(pat.codes[:: max(1, len(pat.count) // 200_000)] < 0).mean(axis=0),
        )
    if route == "dense":
        from microsdc._kernels import dense

        fk_d, big_d = dense.frequencies(
            pat.codes,
            n_categories,
            policy.kind,
            policy.alpha,
            count=pat.count,
            weights=pat.weight if weighted else None,
        )
        return PatternFrequencies(pat.codes, pat.count, fk_d, big_d, pat.inverse)
    if route == "pairs":
        # the route reads the patterns by mask: number them so once, rather than
        # reorder the codes into mask order and the (n, 4) support back (1M patterns:
        # about 50 ms less)
        pat = _by_mask(pat)
    support, cons = _support(pat, n_categories, policy, weighted, route)
    fk_out, big_out = _combine(pat, support, cons, policy, weighted)
    return PatternFrequencies(pat.codes, pat.count, fk_out, big_out, pat.inverse)


def _by_mask(pat: Any) -> Any:
    """``pat`` with its patterns renumbered in a stable order of their masks."""
    m = pat.codes.shape[1]
    order = _mask_blocks(pat.mask, m)[0]
    if order is None:
        return pat
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return replace(
        pat,
        codes=np.ascontiguousarray(pat.codes[order]),
        count=pat.count[order],
        weight=pat.weight[order],
        mask=pat.mask[order],
        inverse=rank[pat.inverse],
    )


def _check_route(route: str | None, kind: str) -> None:
    """Refuse an unknown forced route, or "split" with a policy it does not count,
    whatever the data (before any counting)."""
    if route is not None and route not in ("dense", "pairs", "bitset", "split"):
        raise ValueError(f"unknown counting route {route!r}")
    if route == "split" and kind not in ("wildcard", "alpha"):
        raise ValueError(f"the split route counts the wildcard and alpha policies, not {kind!r}")


def share_weighted_support(
    codes: np.ndarray,
    weights: np.ndarray,
    n_categories: np.ndarray,
    shares: np.ndarray,
    *,
    route: str | None = None,
) -> np.ndarray:
    """Per row, the weights of the rows compatible with it, a blank weighing a value's share.

    A row s adds ``weights[s]`` times the product, over the columns where s is
    missing and the row is observed, of ``shares[j, value + 1]``: the
    ``"probabilistic"`` count with shares given from outside (for instance
    those of the released records only, while looking up other tuples with
    weight 0, as the prosecutor risk does).

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_qis), integer, -1 = missing
    weights : ndarray of shape (n_rows,), float
    n_categories : ndarray of shape (n_qis,)
    shares : ndarray of shape (n_qis, max categories + 1)
        As returned by :func:`microsdc._kernels.dense.value_shares` (column 0,
        "missing", unused).
    route : {"dense", "pairs", "bitset"}, optional
        Force a route (tests); by default the cost model picks it.

    Returns
    -------
    ndarray of shape (n_rows,), float64

    Raises
    ------
    ValueError
        For an unknown ``route``, or "split" (which does not weigh blanks by shares).
    """
    from microsdc._kernels.patterns import distinct_patterns
    from microsdc._kernels.route import choose_route

    _check_route(route, "probabilistic")
    pat = distinct_patterns(codes, n_categories, weights)
    m = pat.codes.shape[1]
    if not np.any(pat.mask != (1 << m) - 1):  # no blank anywhere: identical rows only
        return pat.weight[pat.inverse]
    if route is None:
        n_masks = _n_masks(pat.mask, m)
        n_complete = int(np.count_nonzero(pat.mask == (1 << m) - 1))
        route = choose_route(
            len(pat.count), len(pat.count), n_masks, n_categories, n_complete=n_complete
        )
    if route == "dense":
        from microsdc._kernels import dense

        base = np.asarray(n_categories, dtype=np.int64) + 1
        key = dense.dense_keys(pat.codes, base)
        total = dense.probabilistic_sums(pat.weight, key, base, shares)[key]
    else:
        colw = np.ascontiguousarray(shares[:, 1:], dtype=np.float64)
        support, _ = _support(pat, n_categories, Policy("probabilistic"), True, route, colw)
        total = support[:, 2] + support[:, 3]
    return total[pat.inverse]


def _support(
    pat: Any,
    n_categories: np.ndarray,
    policy: Policy,
    weighted: bool,
    route: str,
    colw: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Support split (n_patterns, 4) and, for "conservative", the per-pattern minima
    (n_patterns, 2; NaN for complete patterns). ``colw`` (n_qis, max categories),
    for "probabilistic", gives the shares by code instead of those of ``pat``."""
    from microsdc._kernels.conservative import observed_categories

    card = np.asarray(n_categories, dtype=np.int64)
    cnt = pat.count.astype(np.float64)
    use_colw = policy.kind == "probabilistic"
    if not use_colw:
        colw = np.zeros((1, 1))
    elif colw is None:  # share of each category among the observed values, by code
        from microsdc._kernels.dense import value_shares

        colw = np.ascontiguousarray(value_shares(pat.codes, card + 1, pat.count)[:, 1:])
    conservative = policy.kind == "conservative"
    observed = observed_categories(pat.codes) if conservative else None
    p_total = len(pat.count)
    if route == "bitset":
        from microsdc._kernels.bitcount import bitset_support

        support, cons = bitset_support(
            pat.codes,
            pat.mask,
            card,
            cnt,
            pat.weight,
            weighted,
            colw,
            use_colw,
            observed,
            np.arange(p_total),
            np.zeros(p_total, dtype=np.bool_),
        )
        return support, (cons if conservative else None)
    if route == "split":  # wildcard or alpha: the callers check it (_check_route)
        from microsdc._kernels.colsplit import split_support

        # the codes in use (a category declared but never observed needs no bucket);
        # codes far sparser than the patterns are replaced by their ranks
        codes_u = pat.codes
        used = np.maximum(codes_u.max(axis=0).astype(np.int64) + 1, 1)
        sparse = np.flatnonzero(used > max(1 << 16, 2 * len(cnt)))
        if len(sparse):
            codes_u = codes_u.copy()
            for j in sparse:
                col = codes_u[:, j]
                obs = col >= 0
                ranks, col[obs] = np.unique(col[obs], return_inverse=True)
                used[j] = max(len(ranks), 1)
        by_categories = np.argsort(-used, kind="stable")  # the most selective splits first
        incomplete = pat.mask != (1 << len(card)) - 1
        # what each pattern adds: its count (and weight); for alpha, apart for complete
        # and incomplete patterns (no difference of sums: a large weight would swamp
        # a small one)
        parts = [cnt] + ([pat.weight] if weighted else [])
        if policy.kind == "alpha":
            parts = [q for p in parts for q in (p * ~incomplete, p * incomplete)]
        # the narrowest codes that hold the categories: the kernel reads the codes of
        # its nodes at random, and narrow codes keep more of them in cache (1M patterns
        # of 8 key variables: 0.88 s in 32 bits, 0.58 s in 8)
        top = int(used.max())
        narrow = next(t for t in (np.int8, np.int16, np.int32, np.int64) if top < np.iinfo(t).max)
        sums = split_support(
            np.ascontiguousarray(codes_u.astype(narrow)[:, by_categories]),  # narrowed first
            np.ascontiguousarray(used[by_categories]),
            np.ascontiguousarray(np.column_stack(parts), dtype=np.float64),
        )
        support = np.zeros((len(cnt), 4))
        if policy.kind == "alpha":  # from complete, from incomplete patterns
            support[:, : sums.shape[1]] = sums
        else:  # the wildcard count needs the sums only
            support[:, 0] = sums[:, 0]
            if weighted:
                support[:, 2] = sums[:, 1]
        return support, None
    if route != "pairs":
        raise ValueError(f"unknown counting route {route!r}")
    from microsdc._kernels.maskpairs import DIRECT_LIMIT, pair_conservative

    blocks = _mask_blocks(pat.mask, len(card))
    order, mask_vals, mask_start = blocks
    mask_count = np.diff(mask_start)
    rare_masks = mask_vals[_rare_masks(mask_vals, mask_count, p_total, card)]
    rare = np.isin(pat.mask, rare_masks) if len(rare_masks) else np.zeros(p_total, dtype=bool)
    n_complete = int(mask_count[-1]) if mask_vals[-1] == (1 << len(card)) - 1 else 0
    if not rare.any() or conservative:
        support = _pair_route(
            pat.codes, pat.mask, card, cnt, pat.weight, weighted, colw, use_colw, blocks
        )
    elif weighted or use_colw or 0 < n_complete < _CROSS_MIN_COMPLETE:
        # patterns of rare masks through bit sets (their whole support, and what they
        # add to the others); mask pairs among the other masks only. (Below, the sums
        # of complete patterns would add the same terms in another order: exact for
        # counts, not for weights or shares; and the complete patterns must meet the
        # incomplete ones in complete_cross.)
        from microsdc._kernels.bitcount import bitset_support

        common = np.flatnonzero(~rare)
        support, _ = bitset_support(
            pat.codes,
            pat.mask,
            card,
            cnt,
            pat.weight,
            weighted,
            colw,
            use_colw,
            None,
            np.flatnonzero(rare),
            ~rare,
        )
        if len(common):  # every mask may be rare
            support[common] += _pair_route(
                pat.codes[common],
                pat.mask[common],
                card,
                cnt[common],
                pat.weight[common],
                weighted,
                colw,
                use_colw,
            )
    else:
        # patterns of rare masks meet the other incomplete patterns on bit sets of the
        # incomplete patterns (their support from them, and what they add to them); the
        # complete patterns meet every incomplete mask in complete_cross; the other
        # incomplete masks meet each other by pairs
        from microsdc._kernels.bitcount import bitset_support

        inc = np.flatnonzero(pat.mask != (1 << len(card)) - 1)
        rare_i = rare[inc]
        support = np.zeros((p_total, 4))
        support[inc], _ = bitset_support(
            pat.codes[inc],
            pat.mask[inc],
            card,
            cnt[inc],
            pat.weight[inc],
            weighted,
            colw,
            use_colw,
            None,
            np.flatnonzero(rare_i),
            ~rare_i,
        )
        support += _pair_route(
            pat.codes,
            pat.mask,
            card,
            cnt,
            pat.weight,
            weighted,
            colw,
            use_colw,
            blocks,
            skip=np.isin(mask_vals, rare_masks),
        )
    if not conservative:
        return support, None
    direct = np.full(min(DIRECT_LIMIT, max(4096, 1 << int(4 * p_total).bit_length())), -1)
    ident = np.arange(p_total) if order is None else order
    args = (pat.codes, pat.mask, ident, mask_vals, mask_start, card)
    # fk's completion, and the weights of the records it counts (Fk)
    cons = pair_conservative(*args, observed, cnt, pat.weight, direct)
    return support, cons


def _rare_masks(
    mask_vals: np.ndarray, mask_count: np.ndarray, n_patterns: int, card: np.ndarray
) -> np.ndarray:
    """Masks whose patterns are cheaper on bit sets than in mask pairs.

    In mask pairs an incomplete mask costs at most one pass over the complete
    patterns (:func:`~microsdc._kernels.maskpairs.complete_cross`; a mask with few
    patterns looks them up through an index instead, so this overestimates) and
    about one over the incomplete ones (each pair of masks is met once). On bit
    sets each of its patterns intersects the sets of its observed values, n_patterns
    / 64 words each while words stay nonzero, plus one scattered update
    per compatible pattern (about n_patterns / prod(categories observed)); building
    the bit sets costs a pass over every pattern and every set, paid once, so masks
    go to bit sets only when together they save more than that. The bit sets must
    also fit in memory.
    """
    from microsdc._kernels.bitcount import bitset_bytes
    from microsdc._kernels.route import BITSET_MAX_BYTES

    none = np.zeros(len(mask_count), dtype=bool)
    if bitset_bytes(n_patterns, card) > BITSET_MAX_BYTES:
        return none
    m = len(card)
    full = (1 << m) - 1
    n_complete = int(mask_count[mask_vals == full].sum())
    words = (n_patterns + 63) // 64
    observed = (mask_vals[:, None] >> np.arange(m)[None, :]) & 1
    # a pattern matches a value of column j when it has that value or a blank there
    blank = 1.0 - (observed * mask_count[:, None]).sum(axis=0) / max(n_patterns, 1)
    p_match = (1.0 - blank) / np.maximum(card, 1) + blank
    matches = n_patterns * np.exp2((observed * np.log2(p_match)[None, :]).sum(axis=1))
    # the sets a pattern intersects, smallest first: the first is copied whole, each
    # further one visits the words still nonzero (a word of 64 patterns stays nonzero
    # while 64 x the density of the intersection so far is above 1)
    dens = np.sort(np.where(observed == 1, p_match[None, :], np.inf), axis=1)
    prefix = np.cumprod(np.where(np.isinf(dens), 1.0, dens), axis=1)[:, :-1]
    later = np.where(np.isinf(dens[:, 1:]), 0.0, np.minimum(1.0, 64.0 * prefix))
    set_words = words * (1.0 + later.sum(axis=1))
    # measured on one core at 1M patterns: ~5 ns per complete pattern and mask in
    # complete_cross, ~6 ns per pattern in pairs (each pair of masks is met once);
    # ~0.4 ns per set word visited, ~50 ns per scattered update and ~8 ns per
    # pattern and column or set word to build the bit sets
    pair_cost = 5.0 * n_complete + 6.0 * (n_patterns - n_complete)
    bit_cost = mask_count * (0.4 * set_words + 50.0 * matches)
    saving = np.where(mask_vals == full, 0.0, pair_cost - bit_cost)
    rare = saving > 0
    build = 8.0 * (n_patterns * m + float(np.sum(card)) * words)
    if saving[rare].sum() <= build:
        return none
    return np.asarray(rare)


#: Fewest complete patterns for which they meet the incomplete ones in one pass per mask.
_CROSS_MIN_COMPLETE = 1


def _mask_blocks(mask: np.ndarray, m: int) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """Patterns grouped by mask: (stable order by mask, None when the masks are in
    order already; distinct masks ascending; start of each mask's block in that order
    plus the total), int64.

    A radix sort when the masks fit in 16 or 32 bits; no second sort for the blocks.
    """
    small = np.uint16 if m <= 16 else np.uint32 if m <= 32 else np.int64
    if len(mask) < 2 or bool(np.all(mask[1:] >= mask[:-1])):  # in order already
        order = None
        mask_s = mask
    else:
        order = np.argsort(mask.astype(small, copy=False), kind="stable")
        mask_s = mask[order]
    edge = np.flatnonzero(mask_s[1:] != mask_s[:-1]) + 1
    mask_start = np.concatenate([[0], edge, [len(mask)]]).astype(np.int64)
    mask_vals = mask_s[mask_start[:-1]].astype(np.int64)
    return order, mask_vals, mask_start


def _n_masks(mask: np.ndarray, m: int) -> int:
    """Number of distinct masks (a bincount when there are at most 2^20 possible)."""
    if m <= 20:
        return int(np.count_nonzero(np.bincount(mask, minlength=1)))
    return len(np.unique(mask))


def _pair_route(
    codes: np.ndarray,
    mask: np.ndarray,
    card: np.ndarray,
    cnt: np.ndarray,
    weight: np.ndarray,
    weighted: bool,
    colw: np.ndarray,
    use_colw: bool,
    blocks: tuple[np.ndarray | None, np.ndarray, np.ndarray] | None = None,
    skip: np.ndarray | None = None,
) -> np.ndarray:
    """Support (n, 4) of patterns by mask pairs (rows in the given order).

    ``skip`` (bool per distinct mask of ``blocks``) leaves the incomplete masks it
    marks out of the pairs of incomplete masks: their patterns meet only the
    complete ones here (their rows get that support alone, the rest of theirs is
    counted elsewhere).

    The patterns are sorted by mask once, so that every mask is a contiguous
    block and the complete patterns (the largest mask) come last. When there are
    at least ``_CROSS_MIN_COMPLETE`` of them, they meet the incomplete ones in one
    pass per incomplete mask, both ways
    (:func:`~microsdc._kernels.maskpairs.complete_cross`), and each matches only
    itself among the complete ones; the incomplete patterns meet each other by
    mask pairs (:func:`~microsdc._kernels.maskpairs.pair_support`).
    """
    from microsdc._kernels.hashing import log2_span
    from microsdc._kernels.maskpairs import DIRECT_LIMIT, complete_cross, pair_support

    n, m = codes.shape
    order, mask_vals, mask_start = blocks if blocks is not None else _mask_blocks(mask, m)
    # None: in mask order already (frequencies_from_codes sorts for this route), no copy
    sel = slice(None) if order is None else order
    mask_s = mask[sel]
    codes_s = np.ascontiguousarray(codes[sel], dtype=np.int32)
    cnt_s = np.ascontiguousarray(cnt[sel], dtype=np.float64)
    weight_s = np.ascontiguousarray(weight[sel], dtype=np.float64)
    full = (1 << m) - 1
    cross = len(mask_vals) > 1 and mask_vals[-1] == full
    n_inc = int(mask_start[-2]) if cross else n
    cross = cross and n - n_inc >= _CROSS_MIN_COMPLETE
    if not cross:
        n_inc = n
    # a direct-lookup scratch table a few times the number of patterns (filled once)
    direct = np.full(min(DIRECT_LIMIT, max(4096, 1 << int(4 * n_inc).bit_length())), -1)
    n_mv = len(mask_vals) - 1 if cross else len(mask_vals)
    wide = None if log2_span(card) < 60.0 else True  # generic grouping compiled only if needed
    if skip is None or not skip[:n_mv].any():
        support_i = pair_support(
            codes_s[:n_inc],
            mask_s[:n_inc],
            mask_vals[:n_mv],
            mask_start[: n_mv + 1],
            card,
            cnt_s[:n_inc],
            weight_s[:n_inc],
            weighted,
            colw,
            use_colw,
            direct,
            wide,
        )
    else:  # the kept masks' blocks, contiguous
        keep = np.flatnonzero(~skip[:n_mv])
        size = np.diff(mask_start[: n_mv + 1])[keep]
        rows = np.repeat(mask_start[keep] - np.concatenate([[0], np.cumsum(size)[:-1]]), size)
        rows += np.arange(len(rows))
        support_i = np.zeros((n_inc, 4))
        support_i[rows] = pair_support(
            codes_s[rows],
            mask_s[rows],
            mask_vals[keep],
            np.concatenate([[0], np.cumsum(size)]).astype(np.int64),
            card,
            cnt_s[rows],
            weight_s[rows],
            weighted,
            colw,
            use_colw,
            direct,
            wide,
        )
    if cross:
        support_s = np.empty((n, 4))
        support_s[:n_inc] = support_i
        out_c = support_s[n_inc:]
        out_c[:, 0] = cnt_s[n_inc:]
        out_c[:, 1] = 0.0
        out_c[:, 2] = weight_s[n_inc:]
        out_c[:, 3] = 0.0
        complete_cross(
            codes_s[n_inc:],
            codes_s[:n_inc],
            mask_vals[:n_mv],
            mask_start[: n_mv + 1],
            card,
            cnt_s[n_inc:],
            weight_s[n_inc:],
            cnt_s[:n_inc],
            weight_s[:n_inc],
            colw,
            use_colw,
            DIRECT_LIMIT,
            out_c,
            support_s[:n_inc],
            wide,
        )
    else:
        support_s = support_i
    del support_i, codes_s, cnt_s, weight_s, mask_s  # before the (n, 4) copy below
    if order is None:
        return support_s
    support = np.empty_like(support_s)
    support[order] = support_s
    return support


def _combine(
    pat: Any, support: np.ndarray, cons: np.ndarray | None, policy: Policy, weighted: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    """fk and Fk per pattern from the support split of any route."""
    m = pat.codes.shape[1]
    if policy.kind == "probabilistic":
        # rounded so that a count of exactly k is not taken for k - 1e-16
        fk_p = np.round(support[:, 0] + support[:, 1], 9)
        return fk_p, (support[:, 2] + support[:, 3]) if weighted else None
    if policy.kind == "alpha":
        a = policy.alpha
        complete = pat.mask == (1 << m) - 1
        # sdcMicro freqCalc: records with a missing value add alpha unless they are of
        # the target's exact pattern; complete records and the own pattern add 1
        own = np.where(complete, 0.0, pat.count.astype(np.float64))
        w_own = np.where(complete, 0.0, pat.weight)
        fk_f = support[:, 0] + own + a * (support[:, 1] - own)
        big = support[:, 2] + w_own + a * (support[:, 3] - w_own)
        return fk_f, (big if weighted else None)
    fk_w = support[:, 0] + support[:, 1]
    big_w = support[:, 2] + support[:, 3] if weighted else None
    if cons is not None:
        complete = pat.mask == (1 << m) - 1
        fk_w = np.where(complete, fk_w, cons[:, 0])
        if big_w is not None:
            big_w = np.where(complete, big_w, cons[:, 1])
    fk = np.rint(fk_w, out=fk_w).astype(np.int64)
    return fk, big_w


def row_frequencies(
    codes: np.ndarray,
    n_categories: np.ndarray,
    *,
    policy: Policy | None = None,
    weights: np.ndarray | None = None,
    route: str | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-row fk and Fk (None without weights) from a code matrix.

    Same numbers as ``frequencies_from_codes(...).row_fk``. Without missing
    values (or with the category policy) this is a group-by count of the rows;
    otherwise the dense route (one array over all key combinations) is taken
    when it is cheaper than reducing the rows to distinct patterns.

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_qis), integer, -1 = missing
    n_categories : ndarray of shape (n_qis,)
    policy : Policy, default wildcard
    weights : ndarray of shape (n_rows,), optional
    route : {"dense", "pairs", "bitset", "split"}, optional
        Force a route, as in :func:`frequencies_from_codes` (which raises
        ValueError for an unknown one).

    Returns
    -------
    fk : ndarray of shape (n_rows,), int64 (float64 for alpha < 1)
    Fk : ndarray of shape (n_rows,), float64, or None
    """
    from microsdc._kernels import dense
    from microsdc._kernels.hashing import group_count
    from microsdc._kernels.route import DENSE_MAX_CELLS

    policy = policy or Policy("wildcard")
    n = codes.shape[0]
    has_missing = bool((codes < 0).any()) if n else False
    if policy.kind == "category" or not has_missing:
        fk_g, big_g = group_count(codes, n_categories, weights)
        if policy.fractional:
            return fk_g.astype(np.float64), big_g
        return fk_g, big_g
    if route is None:
        # the dense route reads every row once and costs about n_qis passes over its
        # array; the other routes first reduce the rows to distinct patterns
        size = dense.dense_size(n_categories)
        if size <= DENSE_MAX_CELLS and size <= max(64.0 * n, 4096.0):
            route = "dense"
    if route == "dense":
        return dense.frequencies(codes, n_categories, policy.kind, policy.alpha, weights=weights)
    res = frequencies_from_codes(codes, n_categories, policy=policy, weights=weights, route=route)
    return res.row_fk, res.row_Fk


def _weights(df: pd.DataFrame, weights: Any, func: str) -> np.ndarray | None:
    """Validate sampling weights given as a column name or an array of length n_rows."""
    if weights is None:
        return None
    if isinstance(weights, pd.Series | np.ndarray | list):
        name = "weights"
        if isinstance(weights, pd.Series) and not weights.index.equals(df.index):
            weights = _aligned_weights(df, weights, func)
        values = pd.Series(np.asarray(weights), index=None if len(weights) != len(df) else df.index)
        if len(values) != len(df):
            raise param_error(
                "weights",
                func,
                f"a column name or an array of length {len(df)}",
                f"an array of length {len(values)}",
            )
    else:
        check_columns(df, [weights], "weights", func)
        name = repr(weights)
        values = df[weights]
    try:
        numeric = pd.to_numeric(values, errors="raise")
    except (TypeError, ValueError) as exc:
        # the rows of the text, by label (pandas names a position from 0)
        parsed = pd.to_numeric(values, errors="coerce")
        text = np.asarray(pd.Series(parsed).isna().to_numpy() & values.notna().to_numpy())
        shown = ", ".join(
            f"{r!r}: {v!r}"
            for r, v in zip(df.index[text][:5], values[text].iloc[:5].tolist(), strict=True)
        )
        from microsdc.data.quality import decimal_comma_hint

        hint = decimal_comma_hint(values[text].astype(str).tolist())
        raise DataValidationError(
            f"The weight column {name} of {func} must be numeric: it holds {int(text.sum())} "
            f"value(s) that are not numbers (first rows: {shown}).{hint}",
            func=func,
        ) from exc
    w = pd.Series(numeric).astype("float64").to_numpy(na_value=np.nan)
    bad = ~np.isfinite(w)
    if bad.any():
        raise DataValidationError(
            f"The weight column {name} of {func} has {int(bad.sum())} missing or infinite "
            f"value(s) (first rows: {list(df.index[bad][:5])}). Weights must be known for "
            "every record.",
            failure_cases=list(df.index[bad]),
            func=func,
        )
    neg = w < 0
    if neg.any():
        shown = ", ".join(
            f"{r!r}: {v:g}" for r, v in zip(df.index[neg][:5], w[neg][:5], strict=True)
        )
        raise DataValidationError(
            f"The weight column {name} of {func} has {int(neg.sum())} negative value(s) "
            f"(first rows: {shown}). Sampling weights must be >= 0.",
            failure_cases=list(df.index[neg]),
            func=func,
        )
    if len(w) and not w.any():
        raise DataValidationError(
            f"The weight column {name} of {func} is 0 for every record: Fk would be 0 for every "
            "key. Sampling weights say how many people a record stands for (usually >= 1).",
            func=func,
        )
    return w


def _aligned_weights(df: pd.DataFrame, weights: pd.Series, func: str) -> pd.Series:
    """A weight Series whose index holds the labels of ``df`` in another order, put in
    the order of ``df`` (by label, as pandas aligns); any other index is refused, since
    taking it by position would give records the weights of others."""
    if (
        len(weights) == len(df)
        and weights.index.is_unique
        and df.index.is_unique
        and weights.index.isin(df.index).all()
    ):
        return weights.reindex(df.index)
    absent = list(weights.index[~weights.index.isin(df.index)][:5])
    raise DataValidationError(
        f"The weights Series of {func} is indexed otherwise than the data"
        + (f" (labels not in the data: {absent})" if absent else "")
        + ": give one weight per record with the data's index, or pass "
        "weights.to_numpy() to take them in the order of the records.",
        func=func,
    )


def _prepare(
    df: Any,
    quasi_identifiers: Any,
    *,
    missing: Any,
    weights: Any,
    missing_values: MissingValues,
    func: str,
) -> tuple[EncodedQIs, Policy, np.ndarray | None]:
    check_frame(df, "df", func)
    policy = parse_policy(missing, func)
    enc = encode_qis(df, quasi_identifiers, missing_values=missing_values, func=func)
    w = _weights(df, weights, func)
    return enc, policy, w


def frequencies_for(
    df: pd.DataFrame,
    quasi_identifiers: Any,
    missing: Any,
    weights: Any,
    missing_values: MissingValues,
    func: str,
) -> tuple[np.ndarray, np.ndarray | None]:
    """``fk`` and ``Fk`` (None without weights) per record, the errors naming ``func``."""
    enc, policy, w = _prepare(
        df,
        quasi_identifiers,
        missing=missing,
        weights=weights,
        missing_values=missing_values,
        func=func,
    )
    return row_frequencies(enc.codes, enc.n_categories, policy=policy, weights=w)


def sample_frequencies(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[Hashable],
    *,
    k: int | None = None,
    missing: MissingPolicy = "wildcard",
    weights: Hashable | Sequence[float] | np.ndarray | None = None,
    missing_values: MissingValues = None,
) -> pd.DataFrame:
    """Sample frequency ``fk`` (and population frequency ``Fk``) of every record.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        The microdata. Never modified.
    quasi_identifiers : list of column names
        Key variables, categorical (bin numeric ones first).
    k : int >= 1, optional
        When given, a boolean column ``at_risk`` (``fk < k``) is added.
    missing : {"wildcard", "probabilistic", "category", "conservative"} or float in [0, 1], \
default "wildcard"
        How a missing value is counted:

        - ``"wildcard"``: a missing value matches any value, on either side;
          ``fk(r)`` is the number of records compatible with ``r``. A record
          with every QI missing counts for every record, so k - 1 blank records
          make every record look safe.
        - alpha in [0, 1]: as wildcard, but a compatible record s with a
          missing QI that is not of r's exact pattern adds ``alpha``; complete
          records and r's own pattern (r included) add 1 (sdcMicro
          ``freqCalc(alpha=)``). 1 is the wildcard; 0 is *not* "missing as a
          category" (a record keeps its own pattern and the compatible complete
          records, so nothing is at risk for k = 1).
        - ``"probabilistic"``: a missing cell of *another* record s matches
          value v of r with weight p_c(v), the share of v among the observed
          values of that QI in ``df``; r's own missing cells match anything
          with weight 1; s adds the product of its weights (identical patterns
          add 1). An entirely blank record adds only ``prod_c p_c(r_c)``.
          ``fk`` is fractional.
        - ``"category"``: missing is one more category; exact matches only.
          The guarantee that holds against an intruder who knows every QI.
        - ``"conservative"``: complete records as wildcard; a record with
          missing values gets the smallest count over the completions of its
          missing cells by categories observed in the data (``Fk`` sums the
          weights of the records of that completion; of equal counts, the
          lightest). A measure only:
          k - 1 entirely blank records satisfy it for every record, so
          :func:`~microsdc.suppression.local_suppression` refuses it.
    weights : column name or array-like of shape (n_rows,), optional
        Sampling weights (>= 0, none missing). ``Fk`` is the sum of the weights
        of the records counted in ``fk``. A Series is matched to the records by
        its index (the labels of ``df``, in any order); an array or list by position.
    missing_values : sequence or dict, optional
        Codes that mean "missing" besides NaN/None/pd.NA/NaT, e.g. ``[-999, ""]``
        for every QI or ``{"age": [-1]}`` per column.

    Returns
    -------
    pandas.DataFrame
        Indexed like ``df``, with column ``fk`` (int64; float64 for alpha < 1 and
        ``"probabilistic"``),
        ``Fk`` (float64) when weighted, and ``at_risk`` (bool) when ``k`` is given.

    Raises
    ------
    InvalidParameterError
        If ``df`` is not a DataFrame, the QI list is empty or repeats a name,
        ``k`` is not an int >= 1, or ``missing`` is unknown.
    ColumnNotFoundError
        Listing every QI (or weight column) not in ``df``.
    DataValidationError
        If ``df`` has duplicate column names, the weights have missing or
        negative values, or a weights Series is indexed otherwise than ``df``.

    Warns
    -----
    HighCardinalityWarning
        For a QI with 1,000 or more distinct values.

    Notes
    -----
    Records r and s are compatible when, for every QI, one of them is missing
    or both are equal. ``fk(r) = #{s : s ~ r}``, ``Fk(r) = sum(w_s : s ~ r)``.
    Under ``"probabilistic"``, ``fk(r) = sum over s ~ r of prod over the QIs c
    where s is missing and r is not of p_c(r_c)``, and ``Fk`` weights the same
    terms by ``w_s``; the dense route transforms each axis with
    ``T[v] += p(v) T[missing]``, ``T[missing] = sum``.
    Computed on distinct patterns of missingness and values, never pairwise
    (cost O(n_masks x n_patterns)).

    References
    ----------
    sdcMicro ``freqCalc``; kanonymity 0.1.0 ``check_k_anonymity``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"A": [0, 0, 1, 1, None, 0, None], "B": [1, 1, 2, 1, 2, None, None]})
    >>> sample_frequencies(df, ["A", "B"])["fk"].tolist()
    [4, 4, 3, 2, 4, 5, 7]
    >>> sample_frequencies(df, ["A", "B"], missing="probabilistic")["fk"].round(2).tolist()
    [2.96, 2.96, 1.56, 1.24, 2.8, 4.2, 7.0]
    """
    if not isinstance(df, pd.DataFrame):
        from microsdc.backends import detect_backend
        from microsdc.backends.frequencies import sample_frequencies_frame

        backend = detect_backend(df, "sample_frequencies")
        return sample_frequencies_frame(
            df,
            backend,
            quasi_identifiers,
            k=k,
            missing=missing,
            weights=weights,
            missing_values=missing_values,
        )
    func = "sample_frequencies"
    if k is not None:
        k = check_int(k, "k", func, min_value=1)
    fk, big_fk = frequencies_for(df, quasi_identifiers, missing, weights, missing_values, func)
    out = pd.DataFrame({"fk": fk}, index=df.index)
    if big_fk is not None:
        out["Fk"] = big_fk
    if k is not None:
        out["at_risk"] = out["fk"] < k
    return out


def check_k_anonymity(
    df: pd.DataFrame,
    quasi_identifier_cols: Sequence[Hashable],
    k: int,
    *,
    missing: MissingPolicy = "wildcard",
    weights: Hashable | Sequence[float] | np.ndarray | None = None,
    missing_values: MissingValues = None,
) -> tuple[int, pd.DataFrame]:
    """Number of records at risk (``fk < k``) and a summary of the key combinations present.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        Never modified.
    quasi_identifier_cols : list of column names
        The quasi-identifiers.
    k : int >= 1
        Minimum size of an equivalence class (records compatible with a record,
        itself included).
    missing, weights, missing_values
        As in :func:`sample_frequencies`.

    Returns
    -------
    n_at_risk : int
        Number of records with ``fk < k``. 0 for an empty frame.
    summary : pandas.DataFrame
        One row per distinct key combination present (missing values shown as
        missing), with columns: the QIs, ``count`` (records with exactly this
        combination), ``fk``, ``Fk`` (when weighted) and ``at_risk``; sorted by
        ascending ``fk`` then descending ``count``.

    Raises
    ------
    InvalidParameterError, ColumnNotFoundError, DataValidationError
        As in :func:`sample_frequencies`. Also ``InvalidParameterError`` when a
        quasi-identifier is named ``count``, ``fk``, ``Fk`` or ``at_risk``:
        its values and the counts would share a column name (rename it first).

    References
    ----------
    kanonymity 0.1.0 ``check_k_anonymity`` (same name and return shape).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["m", "m", "f", "f", "f"], "age": ["20", "20", "30", None, "40"]})
    >>> n, summary = check_k_anonymity(df, ["sex", "age"], k=3)
    >>> n  # the woman of unknown age matches all three women; everyone else has fk = 2
    4
    >>> summary[["sex", "age", "count", "fk"]].values.tolist()
    [['m', '20', 2, 2], ['f', '30', 1, 2], ['f', '40', 1, 2], ['f', nan, 1, 3]]
    """
    if not isinstance(df, pd.DataFrame):
        from microsdc.backends import detect_backend
        from microsdc.backends.frequencies import check_k_anonymity_frame

        backend = detect_backend(df, "check_k_anonymity")
        return check_k_anonymity_frame(
            df,
            backend,
            quasi_identifier_cols,
            k,
            missing=missing,
            weights=weights,
            missing_values=missing_values,
        )
    func = "check_k_anonymity"
    k = check_int(k, "k", func, min_value=1)
    enc, policy, w = _prepare(
        df,
        quasi_identifier_cols,
        missing=missing,
        weights=weights,
        missing_values=missing_values,
        func=func,
    )
    res = frequencies_from_codes(enc.codes, enc.n_categories, policy=policy, weights=w)
    row_fk = res.row_fk
    n_at_risk = int(np.count_nonzero(row_fk < k))
    summary = _summary(enc, res, k, func=func)
    return n_at_risk, summary


#: Columns that check_k_anonymity adds to the quasi-identifiers in its summary.
SUMMARY_COLUMNS = ("count", "fk", "Fk", "at_risk")


def _summary(
    enc: EncodedQIs, res: PatternFrequencies, k: int, *, func: str = "check_k_anonymity"
) -> pd.DataFrame:
    clash = [c for c in enc.columns if c in SUMMARY_COLUMNS]
    if clash:
        raise InvalidParameterError(
            f"The quasi-identifier(s) {', '.join(repr(c) for c in clash)} of {func} have the "
            f"name of an output column of the summary ({', '.join(SUMMARY_COLUMNS)}); "
            "rename them (e.g. df.rename(columns={...})) so that values and counts stay apart.",
            func=func,
        )
    data: dict[Any, Any] = {}
    for j, _name in enumerate(enc.columns):
        cats = enc.categories[j]
        codes = res.codes[:, j]
        values = np.empty(len(codes), dtype=object)
        values[:] = np.nan
        ok = codes >= 0
        if len(cats):
            values[ok] = np.asarray(cats.astype(object))[codes[ok]]
        data[j] = values
    summary = pd.DataFrame(data)
    summary.columns = pd.Index(list(enc.columns), dtype=object)
    summary["count"] = res.count
    summary["fk"] = res.fk
    if res.Fk is not None:
        summary["Fk"] = res.Fk
    summary["at_risk"] = res.fk < k
    order = np.lexsort((-res.count, res.fk)) if len(res.fk) else np.zeros(0, dtype=np.int64)
    return summary.iloc[order].reset_index(drop=True)
