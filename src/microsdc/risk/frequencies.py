"""Sample frequencies on integer codes: the counting core behind k-anonymity.

:func:`frequencies_from_codes` counts on distinct patterns (each with its number
of records), :func:`row_frequencies` gives them per record, and
:func:`pattern_summary` is the summary frame of :func:`~microsdc.risk.check_k_anonymity`.
Every frame is counted here, through :mod:`microsdc.risk.counting`: a pandas
frame's records, or a lazy frame's key combinations with their records.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from microsdc._core.policy import Policy
from microsdc.encode import EncodedQIs
from microsdc.exceptions import InvalidParameterError

__all__ = [
    "SUMMARY_COLUMNS",
    "PatternFrequencies",
    "frequencies_from_codes",
    "pattern_summary",
    "row_frequencies",
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


#: Patterns grouped by mask, as :func:`_mask_blocks` returns them.
_Blocks = tuple[np.ndarray | None, np.ndarray, np.ndarray]


class _Rows(NamedTuple):
    """Patterns as the support kernels read them: codes, masks, records (float) and weights."""

    codes: np.ndarray
    mask: np.ndarray
    cnt: np.ndarray
    weight: np.ndarray

    def take(self, rows: Any) -> _Rows:
        """The patterns of ``rows`` (indices or a slice)."""
        return _Rows(self.codes[rows], self.mask[rows], self.cnt[rows], self.weight[rows])


class _Terms(NamedTuple):
    """What the patterns add besides their records: categories per column, weights
    (``weighted``), and for "probabilistic" (``use_colw``) the shares by code (``colw``)."""

    card: np.ndarray
    weighted: bool
    colw: np.ndarray
    use_colw: bool


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
    rows = _Rows(pat.codes, pat.mask, pat.count.astype(np.float64), pat.weight)
    use_colw = policy.kind == "probabilistic"
    if not use_colw:
        colw = np.zeros((1, 1))
    elif colw is None:  # share of each category among the observed values, by code
        from microsdc._kernels.dense import value_shares

        colw = np.ascontiguousarray(value_shares(pat.codes, card + 1, pat.count)[:, 1:])
    terms = _Terms(card, weighted, colw, use_colw)
    conservative = policy.kind == "conservative"
    observed = observed_categories(pat.codes) if conservative else None
    p_total = len(pat.count)
    if route == "bitset":
        every = np.arange(p_total)
        support, cons = _bitsets(rows, terms, observed, every, np.zeros(p_total, dtype=np.bool_))
        return support, (cons if conservative else None)
    if route == "split":  # wildcard or alpha: the callers check it (_check_route)
        return _split_route(pat, card, rows.cnt, policy.kind == "alpha", weighted), None
    if route != "pairs":
        raise ValueError(f"unknown counting route {route!r}")
    blocks = _mask_blocks(pat.mask, len(card))
    support = _pairs_support(rows, terms, blocks, conservative)
    if not conservative:
        return support, None
    return support, _conservative_minima(rows, card, blocks, observed)


def _bitsets(
    rows: _Rows, terms: _Terms, observed: np.ndarray | None, on: np.ndarray, push: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Support (n, 4) of the patterns ``on`` by bit sets (what they add to those ``push``
    marks), and with ``observed`` their conservative minima."""
    from microsdc._kernels.bitcount import bitset_support

    card, weighted, colw, use_colw = terms
    codes, mask, cnt, weight = rows
    return bitset_support(
        codes, mask, card, cnt, weight, weighted, colw, use_colw, observed, on, push
    )


def _split_route(
    pat: Any, card: np.ndarray, cnt: np.ndarray, alpha: bool, weighted: bool
) -> np.ndarray:
    """Support (n_patterns, 4) of the wildcard or alpha policy by splits on the columns."""
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
    if alpha:
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
    if alpha:  # from complete, from incomplete patterns
        support[:, : sums.shape[1]] = sums
    else:  # the wildcard count needs the sums only
        support[:, 0] = sums[:, 0]
        if weighted:
            support[:, 2] = sums[:, 1]
    return support


def _pairs_support(rows: _Rows, terms: _Terms, blocks: _Blocks, conservative: bool) -> np.ndarray:
    """Support (n_patterns, 4) by mask pairs, the patterns of rare masks on bit sets."""
    _, mask_vals, mask_start = blocks
    mask_count = np.diff(mask_start)
    p_total = len(rows.cnt)
    full = (1 << len(terms.card)) - 1
    rare_masks = mask_vals[_rare_masks(mask_vals, mask_count, p_total, terms.card)]
    rare = np.isin(rows.mask, rare_masks) if len(rare_masks) else np.zeros(p_total, dtype=bool)
    n_complete = int(mask_count[-1]) if mask_vals[-1] == full else 0
    if not rare.any() or conservative:
        return _pair_route(rows, terms, blocks)
    if terms.weighted or terms.use_colw or 0 < n_complete < _CROSS_MIN_COMPLETE:
        # patterns of rare masks through bit sets (their whole support, and what they
        # add to the others); mask pairs among the other masks only. (Below, the sums
        # of complete patterns would add the same terms in another order: exact for
        # counts, not for weights or shares; and the complete patterns must meet the
        # incomplete ones in complete_cross.)
        common = np.flatnonzero(~rare)
        support, _ = _bitsets(rows, terms, None, np.flatnonzero(rare), ~rare)
        if len(common):  # every mask may be rare
            support[common] += _pair_route(rows.take(common), terms)
        return support
    # patterns of rare masks meet the other incomplete patterns on bit sets of the
    # incomplete patterns (their support from them, and what they add to them); the
    # complete patterns meet every incomplete mask in complete_cross; the other
    # incomplete masks meet each other by pairs
    inc = np.flatnonzero(rows.mask != full)
    rare_i = rare[inc]
    support = np.zeros((p_total, 4))
    support[inc], _ = _bitsets(rows.take(inc), terms, None, np.flatnonzero(rare_i), ~rare_i)
    support += _pair_route(rows, terms, blocks, skip=np.isin(mask_vals, rare_masks))
    return support


def _conservative_minima(
    rows: _Rows, card: np.ndarray, blocks: _Blocks, observed: np.ndarray | None
) -> np.ndarray:
    """fk's completion per pattern under "conservative", and the weights of the records
    it counts (Fk); (n_patterns, 2), NaN for complete patterns."""
    from microsdc._kernels.maskpairs import DIRECT_LIMIT, pair_conservative

    order, mask_vals, mask_start = blocks
    p_total = len(rows.cnt)
    direct = np.full(min(DIRECT_LIMIT, max(4096, 1 << int(4 * p_total).bit_length())), -1)
    ident = np.arange(p_total) if order is None else order
    args = (rows.codes, rows.mask, ident, mask_vals, mask_start, card)
    return pair_conservative(*args, observed, rows.cnt, rows.weight, direct)


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
    rows: _Rows, terms: _Terms, blocks: _Blocks | None = None, skip: np.ndarray | None = None
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
    from microsdc._kernels.maskpairs import DIRECT_LIMIT

    n, m = rows.codes.shape
    order, mask_vals, mask_start = blocks if blocks is not None else _mask_blocks(rows.mask, m)
    # None: in mask order already (frequencies_from_codes sorts for this route), no copy
    sel = slice(None) if order is None else order
    by_mask = _Rows(
        np.ascontiguousarray(rows.codes[sel], dtype=np.int32),
        rows.mask[sel],
        np.ascontiguousarray(rows.cnt[sel], dtype=np.float64),
        np.ascontiguousarray(rows.weight[sel], dtype=np.float64),
    )
    full = (1 << m) - 1
    cross = len(mask_vals) > 1 and mask_vals[-1] == full
    n_inc = int(mask_start[-2]) if cross else n
    cross = cross and n - n_inc >= _CROSS_MIN_COMPLETE
    if not cross:
        n_inc = n
    # a direct-lookup scratch table a few times the number of patterns (filled once)
    direct = np.full(min(DIRECT_LIMIT, max(4096, 1 << int(4 * n_inc).bit_length())), -1)
    n_mv = len(mask_vals) - 1 if cross else len(mask_vals)
    # the generic grouping compiled only if needed
    wide = None if log2_span(terms.card) < 60.0 else True
    inc_blocks = (mask_vals[:n_mv], mask_start[: n_mv + 1])
    support_s = _incomplete_pairs(
        by_mask.take(slice(None, n_inc)), terms, inc_blocks, skip, direct, wide
    )
    if cross:
        support_s = _complete_cross(by_mask, n_inc, terms, inc_blocks, support_s, wide)
    del by_mask  # before the (n, 4) copy below
    if order is None:
        return support_s
    support = np.empty_like(support_s)
    support[order] = support_s
    return support


def _incomplete_pairs(
    inc: _Rows,
    terms: _Terms,
    blocks: tuple[np.ndarray, np.ndarray],
    skip: np.ndarray | None,
    direct: np.ndarray,
    wide: bool | None,
) -> np.ndarray:
    """Support (n_inc, 4) of incomplete patterns in mask order from each other, by pairs of
    masks (``blocks``: distinct masks, their starts); the masks ``skip`` marks stay out."""
    from microsdc._kernels.maskpairs import pair_support

    mask_vals, mask_start = blocks
    card, weighted, colw, use_colw = terms
    tail = (weighted, colw, use_colw, direct, wide)
    if skip is None or not skip[: len(mask_vals)].any():
        codes, mask, cnt, weight = inc
        return pair_support(codes, mask, mask_vals, mask_start, card, cnt, weight, *tail)
    # the kept masks' blocks, contiguous
    keep = np.flatnonzero(~skip[: len(mask_vals)])
    size = np.diff(mask_start)[keep]
    rows = np.repeat(mask_start[keep] - np.concatenate([[0], np.cumsum(size)[:-1]]), size)
    rows += np.arange(len(rows))
    codes, mask, cnt, weight = inc.take(rows)
    start = np.concatenate([[0], np.cumsum(size)]).astype(np.int64)
    support = np.zeros((len(inc.cnt), 4))
    support[rows] = pair_support(codes, mask, mask_vals[keep], start, card, cnt, weight, *tail)
    return support


def _complete_cross(
    by_mask: _Rows,
    n_inc: int,
    terms: _Terms,
    blocks: tuple[np.ndarray, np.ndarray],
    support_i: np.ndarray,
    wide: bool | None,
) -> np.ndarray:
    """Support (n, 4) of patterns in mask order, the complete ones (from ``n_inc`` on) met
    with the incomplete ones, whose support from each other is ``support_i``."""
    from microsdc._kernels.maskpairs import DIRECT_LIMIT, complete_cross

    codes, _, cnt, weight = by_mask
    support_s = np.empty((len(cnt), 4))
    support_s[:n_inc] = support_i
    out_c = support_s[n_inc:]
    out_c[:, 0] = cnt[n_inc:]
    out_c[:, 1] = 0.0
    out_c[:, 2] = weight[n_inc:]
    out_c[:, 3] = 0.0
    mask_vals, mask_start = blocks
    complete_cross(
        codes[n_inc:],
        codes[:n_inc],
        mask_vals,
        mask_start,
        terms.card,
        cnt[n_inc:],
        weight[n_inc:],
        cnt[:n_inc],
        weight[:n_inc],
        terms.colw,
        terms.use_colw,
        DIRECT_LIMIT,
        out_c,
        support_s[:n_inc],
        wide,
    )
    return support_s


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


#: Columns that check_k_anonymity adds to the quasi-identifiers in its summary.
SUMMARY_COLUMNS = ("count", "fk", "Fk", "at_risk")


def pattern_summary(
    enc: EncodedQIs, res: PatternFrequencies, k: int, *, func: str = "check_k_anonymity"
) -> pd.DataFrame:
    """The summary of :func:`check_k_anonymity`: one row per distinct pattern (the QIs,
    ``count``, ``fk``, ``Fk`` when weighted, ``at_risk``), by ascending fk, descending
    count, then the key values (:func:`~microsdc.risk.pattern_order.summary_order`: the
    same rows in the same order on every engine)."""
    from microsdc.risk.pattern_order import summary_order

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
    order = summary_order(res.codes, enc.categories, res.fk, res.count)
    return summary.iloc[order].reset_index(drop=True)
