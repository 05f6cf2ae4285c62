"""Counting kernels: route choice, group-by counts, grouping beyond int64 keys, many masks."""

from __future__ import annotations

import numpy as np
import pytest

from microsdc._core.policy import Policy
from microsdc._kernels.hashing import group_count, hash_groups
from microsdc._kernels.maskpairs import group_ids
from microsdc._kernels.route import SMALL_NS, choose_route, route_costs
from microsdc.risk.kanonymity import frequencies_from_codes, row_frequencies
from oracles.kanon import fk_bruteforce


def _rows(codes: np.ndarray) -> list[tuple[object, ...]]:
    return [tuple(None if v < 0 else int(v) for v in row) for row in codes]


# --- the cost model ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        # (items, patterns, masks, categories): 1M rows, 6 QIs, 5 % missing: key space 3.9e8
        ((10**6, 5 * 10**5, 64, [100, 2, 400, 6, 8, 50]), "pairs"),
        # many masks: 20 QIs of 3 categories at 30 % missing
        ((20_000, 20_000, 19_000, [3] * 20), "bitset"),
        ((200_000, 200_000, 150_000, [3] * 20), "bitset"),
        # small key space, many rows: one dense array
        ((10**6, 10**5, 64, [18, 2, 7, 16, 41, 14]), "dense"),
        ((5_000, 3_000, 8, [2, 3, 4]), "dense"),
        # many patterns in a huge key space, few masks
        ((30_000, 30_000, 4, [5000] * 8), "pairs"),
        # small inputs: the bit sets, one kernel to compile for every policy
        ((300, 300, 4, [5000] * 8), "bitset"),
        ((10_000, 5_600, 5, [15, 2, 5, 7, 16, 40, 8, 13]), "bitset"),
    ],
)
def test_choose_route_on_representative_shapes(
    shape: tuple[int, int, int, list[int]], expected: str
) -> None:
    n, p, masks, cards = shape
    assert choose_route(n, p, masks, np.array(cards)) == expected


def test_small_inputs_take_the_bitset_route_unless_dense_is_cheaper() -> None:
    # the Adult sample shipped with microsdc: mask pairs would be cheaper, but the
    # whole count is milliseconds and the bit sets are one kernel to compile
    cards = np.array([15, 2, 5, 7, 16, 40, 8, 13])
    costs = route_costs(5_600, 5_600, 5, cards, n_complete=5_100)
    assert costs["pairs"] < costs["bitset"] <= SMALL_NS
    assert choose_route(5_600, 5_600, 5, cards, n_complete=5_100) == "bitset"
    # ten times the patterns: beyond the small budget, the cheapest route again
    costs = route_costs(56_000, 56_000, 5, cards, n_complete=51_000)
    assert costs["bitset"] > SMALL_NS
    assert choose_route(56_000, 56_000, 5, cards, n_complete=51_000) == "pairs"
    # a small key space: the dense array is cheaper still
    costs = route_costs(5_000, 3_000, 8, np.array([2, 3, 4]))
    assert costs["dense"] < costs["bitset"] <= SMALL_NS
    assert choose_route(5_000, 3_000, 8, np.array([2, 3, 4])) == "dense"


def test_no_missing_and_category_are_group_counts() -> None:
    cards = np.array([100, 2, 400])
    assert choose_route(10, 10, 1, cards, has_missing=False) == "groupby"
    assert choose_route(10, 10, 5, cards, kind="category") == "groupby"


def test_bitset_not_allowed_beyond_its_memory() -> None:
    costs = route_costs(10**7, 10**7, 2, np.array([400, 400, 400]))
    assert costs["bitset"] == np.inf and costs["dense"] == np.inf
    assert choose_route(10**7, 10**7, 2, np.array([400, 400, 400])) == "pairs"


def test_every_route_within_the_bitset_bound() -> None:
    # the chosen route never costs more than the n^2 m / 64 bound (when bit sets fit)
    for masks in (1, 10, 100, 1000, 5000):
        costs = route_costs(5000, 5000, masks, np.full(12, 4))
        chosen = choose_route(5000, 5000, masks, np.full(12, 4))
        assert costs[chosen] <= costs["bitset"]


# --- group-by counts and hashing ----------------------------------------------------------


def test_group_count_by_hand() -> None:
    codes = np.array([[0, 1], [0, 1], [1, 0], [0, 1], [-1, 0]], dtype=np.int32)
    fk, big = group_count(codes, np.array([2, 2]), np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert fk.tolist() == [3, 3, 1, 3, 1]
    assert big is not None and big.tolist() == [7.0, 7.0, 3.0, 7.0, 5.0]
    # a key span far beyond the rows takes the hash table: same answer
    fk2, none = group_count(codes, np.array([10**6, 10**6]))
    assert fk2.tolist() == [3, 3, 1, 3, 1] and none is None
    fk3, big3 = group_count(codes, np.array([10**6, 10**6]), np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert fk3.tolist() == [3, 3, 1, 3, 1]
    assert big3 is not None and big3.tolist() == [7.0, 7.0, 3.0, 7.0, 5.0]


def test_hash_groups_first_appearance_order() -> None:
    inverse, first = hash_groups(np.array([7, -3, 7, 2**62, -3, 5], dtype=np.int64))
    assert inverse.tolist() == [0, 1, 0, 2, 1, 3]
    assert first.tolist() == [0, 1, 3, 5]


def test_group_ids_beyond_int64_compare_codes() -> None:
    # 10 columns of 10^6 categories: 10^60 keys, no int64 key can hold them
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 2, size=(40, 10)).astype(np.int32) * 999_999
    card = np.full(10, 10**6)
    cols = np.arange(10)
    build = np.arange(20)
    probe = np.arange(20, 40)
    gb, gp, ng = group_ids(codes, build, probe, cols, card, np.full(4096, -1))
    tuples = [tuple(r) for r in codes]
    for i in range(20):
        for k in range(20):
            assert (gb[i] == gb[k]) == (tuples[i] == tuples[k])
    for t in range(20):
        match = [i for i in range(20) if tuples[i] == tuples[20 + t]]
        assert (gp[t] == -1) if not match else (gp[t] == gb[match[0]])
    assert ng == len(set(tuples[:20]))


def test_no_missing_fast_path_matches_oracle() -> None:
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, size=(200, 4)).astype(np.int32)
    fk, _ = row_frequencies(codes, np.full(4, 3))
    assert fk.dtype == np.int64
    assert fk.tolist() == [int(f) for f in fk_bruteforce(_rows(codes))[0]]
    fk_a, _ = row_frequencies(codes, np.full(4, 3), policy=Policy("alpha", 0.5))
    assert fk_a.dtype == np.float64 and fk_a.tolist() == fk.tolist()


# --- many masks through every route --------------------------------------------------------


def _many_masks() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 3, size=(100, 8)).astype(np.int32)
    codes[rng.random(codes.shape) < 0.3] = -1
    codes = np.concatenate([codes, codes[:20]])
    return codes, rng.uniform(0.5, 3.0, size=len(codes))


_ORACLE: dict[object, tuple[list[float], list[float]]] = {}


@pytest.mark.parametrize("route", ["pairs", "pairs split", "bitset", "dense", "split"])
@pytest.mark.parametrize("policy", ["wildcard", "conservative", "probabilistic", 0.4])
def test_many_masks_every_route(
    route: str, policy: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    import microsdc.risk.frequencies as kan

    codes, weights = _many_masks()
    pol = Policy("alpha", 0.4) if isinstance(policy, float) else Policy(str(policy))
    if route == "split" and pol.kind not in ("wildcard", "alpha"):  # not its policies
        with pytest.raises(ValueError, match="split route counts the wildcard and alpha"):
            frequencies_from_codes(codes, np.full(8, 3), policy=pol, route="split")
        return
    if route == "pairs":  # every mask in mask pairs
        monkeypatch.setattr(kan, "_rare_masks", lambda masks, count, *a: np.zeros(len(count), bool))
    if route == "pairs split":  # masks with fewer than 3 patterns on bit sets
        monkeypatch.setattr(kan, "_rare_masks", lambda masks, count, *a: count < 3)
    forced = "pairs" if route == "pairs split" else route
    res = frequencies_from_codes(codes, np.full(8, 3), policy=pol, weights=weights, route=forced)
    assert len(np.unique(res.codes >= 0, axis=0)) > 50  # many masks
    if policy not in _ORACLE:
        _ORACLE[policy] = fk_bruteforce(_rows(codes), policy, weights.tolist())
    fk, big = _ORACLE[policy]
    np.testing.assert_allclose(res.row_fk, fk, atol=1e-9)
    np.testing.assert_allclose(res.row_Fk, big, rtol=1e-9)
    # without weights, counts take another split of the work (every rare mask's
    # patterns meet the complete ones in complete_cross)
    res = frequencies_from_codes(codes, np.full(8, 3), policy=pol, route=forced)
    np.testing.assert_allclose(res.row_fk, fk, atol=1e-9)


# --- complete patterns against each incomplete mask -----------------------------------------


@pytest.mark.parametrize(
    ("cards", "direct_limit"),
    [
        ([3, 4, 2, 5], 1 << 22),  # small spans: direct tables
        ([3, 4, 2, 5], 1),  # the same through int64-keyed hash tables
        ([60, 70, 80, 90], 1 << 22),  # spans beyond 16 entries per pattern: hashed
        ([5000] * 6, 1 << 22),  # 5000^6 > 2^63: hash of the codes, codes compared
    ],
)
@pytest.mark.parametrize("policy", ["wildcard", "probabilistic", "conservative", 0.3])
def test_complete_patterns_against_incomplete_masks(
    cards: list[int], direct_limit: int, policy: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    import microsdc._kernels.maskpairs as maskpairs
    import microsdc.risk.frequencies as kan

    rng = np.random.default_rng(len(cards) * 31 + direct_limit % 7 + cards[0])
    n = 150
    # few values in use, so that rows meet; most rows complete
    used = [rng.choice(c, size=min(c, 3), replace=False) for c in cards]
    codes = np.column_stack([rng.choice(u, size=n) for u in used]).astype(np.int32)
    codes[rng.random(codes.shape) < 0.12] = -1
    codes = np.concatenate([codes, codes[:15]])  # repeated patterns
    weights = rng.uniform(0.5, 3.0, size=len(codes))
    pol = Policy("alpha", 0.3) if isinstance(policy, float) else Policy(str(policy))
    monkeypatch.setattr(maskpairs, "DIRECT_LIMIT", direct_limit)
    monkeypatch.setattr(kan, "_rare_masks", lambda masks, count, *a: np.zeros(len(count), bool))
    res = frequencies_from_codes(codes, np.array(cards), policy=pol, weights=weights, route="pairs")
    assert (res.codes >= 0).all(axis=1).sum() > 10  # the cross kernel has work
    fk, big = fk_bruteforce(_rows(codes), policy, weights.tolist())
    np.testing.assert_allclose(res.row_fk, fk, atol=1e-9)
    np.testing.assert_allclose(res.row_Fk, big, rtol=1e-9)


def test_complete_cross_direct_by_hand() -> None:
    from microsdc._kernels.maskpairs import complete_cross

    # complete (0, 1), (1, 1); incomplete (0, -) [mask 1], (-, 1) [mask 2]
    comp = np.array([[0, 1], [1, 1]], dtype=np.int32)
    inc = np.array([[0, -1], [-1, 1]], dtype=np.int32)
    out_c = np.zeros((2, 4))
    out_i = np.zeros((2, 4))
    complete_cross(
        comp,
        inc,
        np.array([1, 2], dtype=np.int64),
        np.array([0, 1, 2], dtype=np.int64),
        np.array([2, 2], dtype=np.int64),
        np.array([2.0, 3.0]),
        np.array([20.0, 30.0]),
        np.array([5.0, 7.0]),
        np.array([50.0, 70.0]),
        np.zeros((1, 1)),
        False,
        1 << 22,
        out_c,
        out_i,
        None,
    )
    # (0, 1) meets both incomplete patterns; (1, 1) only (-, 1)
    assert out_c[:, 1].tolist() == [12.0, 7.0]
    assert out_c[:, 3].tolist() == [120.0, 70.0]
    # (0, -) meets (0, 1); (-, 1) meets both complete patterns
    assert out_i[:, 0].tolist() == [2.0, 5.0]
    assert out_i[:, 2].tolist() == [20.0, 50.0]


@pytest.mark.parametrize("kind", ["wildcard", "probabilistic"])
def test_complete_cross_through_row_indexes_equals_bit_sets(kind: str) -> None:
    from microsdc._kernels.maskpairs import _prefix_plan
    from microsdc._kernels.patterns import distinct_patterns
    from microsdc.risk.frequencies import _mask_blocks

    # enough complete patterns for row indexes; masks with few patterns each
    rng = np.random.default_rng(7)
    card = np.array([60, 50, 3, 4, 5], dtype=np.int64)
    codes = np.stack([rng.integers(0, c, 20_000) for c in card], axis=1).astype(np.int32)
    codes[rng.random(codes.shape) < 0.08] = -1
    weights = rng.uniform(0.5, 3.0, len(codes))
    pat = distinct_patterns(codes, card)
    _, mask_vals, mask_start = _mask_blocks(pat.mask, len(card))
    n_c = int(mask_start[-1] - mask_start[-2])
    index_of, idx_bits, _ = _prefix_plan(mask_vals[:-1], mask_start[:-1], card, n_c, len(card))
    assert len(idx_bits) >= 1 and (index_of >= 0).sum() >= 3
    assert (index_of < 0).any()  # and some masks still take a pass
    policy = Policy(kind)
    got = frequencies_from_codes(codes, card, policy=policy, weights=weights, route="pairs")
    ref = frequencies_from_codes(codes, card, policy=policy, weights=weights, route="bitset")
    if kind == "wildcard":
        assert np.array_equal(got.row_fk, ref.row_fk)
    np.testing.assert_allclose(got.row_fk, ref.row_fk, rtol=1e-12)
    np.testing.assert_allclose(got.row_Fk, ref.row_Fk, rtol=1e-12)


@pytest.mark.parametrize("which", ["every incomplete mask", "every other mask"])
@pytest.mark.parametrize("with_complete", [True, False])
def test_rare_masks_without_weights(
    which: str, with_complete: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import microsdc.risk.frequencies as kan

    rng = np.random.default_rng(3)
    codes = rng.integers(0, 3, size=(300, 5)).astype(np.int32)
    codes[rng.random(codes.shape) < 0.2] = -1
    if not with_complete:
        codes[rng.random(300) < 0.5, 0] = -1
        codes[codes[:, 0] >= 0, 1] = -1
    full = (1 << 5) - 1
    if which == "every incomplete mask":
        monkeypatch.setattr(kan, "_rare_masks", lambda masks, count, *a: masks != full)
    else:
        monkeypatch.setattr(
            kan, "_rare_masks", lambda masks, count, *a: np.arange(len(masks)) % 2 == 1
        )
    res = frequencies_from_codes(codes, np.full(5, 3), policy=Policy("wildcard"), route="pairs")
    assert ((codes >= 0).all(axis=1).sum() > 0) == with_complete
    fk, _ = fk_bruteforce(_rows(codes))
    assert res.row_fk.tolist() == fk


@pytest.mark.parametrize("kind", ["wildcard", "probabilistic", "conservative"])
def test_presence_filters_on_hashed_pairs_equal_bit_sets(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import microsdc.risk.frequencies as kan

    # key spans far above the patterns (hash tables, whose build side is summarised in
    # a presence table over the leading columns): values drawn from a few hundred per
    # column so that many probes pass the filter and many do not
    rng = np.random.default_rng(19)
    card = np.array([900, 700, 40, 6, 3], dtype=np.int64)
    used = [rng.choice(c, size=min(c, 25), replace=False) for c in card]
    codes = np.column_stack([rng.choice(u, size=12_000) for u in used]).astype(np.int32)
    codes[rng.random(codes.shape) < 0.15] = -1
    weights = rng.uniform(0.5, 3.0, len(codes))
    monkeypatch.setattr(kan, "_rare_masks", lambda masks, count, *a: np.zeros(len(count), bool))
    policy = Policy(kind)
    got = frequencies_from_codes(codes, card, policy=policy, weights=weights, route="pairs")
    ref = frequencies_from_codes(codes, card, policy=policy, weights=weights, route="bitset")
    assert got.row_fk.min() <= 5 and got.row_fk.max() > 15  # rare and common patterns
    np.testing.assert_allclose(got.row_fk, ref.row_fk, rtol=1e-12)
    np.testing.assert_allclose(got.row_Fk, ref.row_Fk, rtol=1e-12)


# --- splitting on one column at a time ------------------------------------------------------


def test_split_support_by_hand() -> None:
    from microsdc._kernels.colsplit import split_support

    # (0, 1), (0, -), (1, 1), (-, -): (0, -) meets (0, 1); (-, -) meets everything;
    # (1, 1) meets (-, -) only; each pattern meets itself
    codes = np.array([[0, 1], [0, -1], [1, 1], [-1, -1]], dtype=np.int32)
    values = np.array([[1.0, 10.0], [2.0, 20.0], [4.0, 40.0], [8.0, 80.0]])
    sums = split_support(codes, np.array([2, 2], dtype=np.int64), values)
    assert sums[:, 0].tolist() == [11.0, 11.0, 12.0, 15.0]
    assert sums[:, 1].tolist() == [110.0, 110.0, 120.0, 150.0]


@pytest.mark.parametrize("policy", ["wildcard", 0.25])
@pytest.mark.parametrize(
    "shape", ["wide categories", "many blanks", "one column", "a column beyond 2^16"]
)
def test_split_route_equals_bit_sets(policy: object, shape: str) -> None:
    # larger than the hypothesis frames: nodes split by counting sort and by insertion
    # sort, pairs compared directly, the stack grown
    rng = np.random.default_rng(23)
    card = {
        "wide categories": np.array([700, 300, 40, 5, 2]),
        "many blanks": np.array([3, 4, 2, 3, 5, 2, 3, 4]),
        "one column": np.array([9]),
        "a column beyond 2^16": np.array([100_000, 3, 2]),
    }[shape]
    n = 6000
    used = [rng.choice(c, size=min(c, 20), replace=False) for c in card]
    codes = np.column_stack([rng.choice(u, size=n) for u in used]).astype(np.int32)
    codes[rng.random(codes.shape) < (0.4 if shape == "many blanks" else 0.1)] = -1
    weights = rng.uniform(0.5, 3.0, n)
    pol = Policy("alpha", policy) if isinstance(policy, float) else Policy(str(policy))
    got = frequencies_from_codes(codes, card, policy=pol, weights=weights, route="split")
    ref = frequencies_from_codes(codes, card, policy=pol, weights=weights, route="bitset")
    if pol.kind == "wildcard":
        assert np.array_equal(got.row_fk, ref.row_fk)
    np.testing.assert_allclose(got.row_fk, ref.row_fk, rtol=1e-12)
    np.testing.assert_allclose(got.row_Fk, ref.row_Fk, rtol=1e-9)
    assert 2 * got.row_fk.min() < got.row_fk.max()  # not every pattern alike


def test_choose_route_takes_split_where_masks_are_many() -> None:
    cards = np.array([2, 3, 4, 6, 8, 10, 12, 16, 20, 30, 45, 60])
    # 1M patterns, 12 QIs at 20 % missing: thousands of masks
    shape = (10**6, 10**6, 3686, cards)
    assert choose_route(*shape, n_complete=68_000, blank_share=np.full(12, 0.2)) == "split"
    # the same without the shares (the probabilistic and conservative policies)
    assert choose_route(*shape, n_complete=68_000) == "pairs"
    assert choose_route(*shape, kind="conservative", blank_share=np.full(12, 0.2)) == "pairs"
    # 6 QIs at 5 % missing: few masks, mask pairs are cheaper
    six = (10**6, 10**6, 59, np.array([100, 2, 400, 6, 8, 50]))
    assert choose_route(*six, n_complete=733_000, blank_share=np.full(6, 0.05)) == "pairs"


@pytest.mark.parametrize("policy", ["probabilistic", "conservative"])
def test_split_route_refuses_other_policies(policy: str) -> None:
    codes = np.array([[0, -1], [0, 1], [1, 1]], dtype=np.int32)
    with pytest.raises(ValueError, match="split route counts the wildcard and alpha"):
        frequencies_from_codes(codes, np.array([2, 2]), policy=Policy(policy), route="split")


def test_split_support_kernel_on_a_column_beyond_2_16() -> None:
    from microsdc._kernels.colsplit import split_support

    # the kernel's radix presort must bucket one column of more than 2^16 codes
    rng = np.random.default_rng(29)
    codes = np.column_stack(
        [rng.integers(0, 70_000, 3000), rng.integers(0, 3, 3000), rng.integers(0, 2, 3000)]
    ).astype(np.int32)
    codes[:1500, 0] = rng.integers(0, 40, 1500)  # some values shared
    codes[rng.random(codes.shape) < 0.3] = -1
    codes = np.unique(codes, axis=0)  # the kernel takes distinct patterns
    values = rng.uniform(0.5, 2.0, (len(codes), 1))
    sums = split_support(codes, np.array([70_000, 3, 2], dtype=np.int64), values)
    obs = codes >= 0
    for r in rng.choice(len(codes), 200, replace=False):
        ok = ((codes == codes[r]) | ~obs | ~obs[r]).all(axis=1)
        assert sums[r, 0] == pytest.approx(values[ok, 0].sum(), rel=1e-12)


def test_split_route_ranks_sparse_codes() -> None:
    # categories declared by the billion but few in use: the route counts on their ranks
    rng = np.random.default_rng(31)
    codes = rng.integers(0, 5, (2000, 3)).astype(np.int32) * 100_000_000
    codes[rng.random(codes.shape) < 0.2] = -1
    card = np.full(3, 2**31 - 1)
    got = frequencies_from_codes(codes, card, route="split")
    ref = frequencies_from_codes(codes, card, route="pairs")
    assert np.array_equal(got.row_fk, ref.row_fk)
    assert got.row_fk.min() < got.row_fk.max()


@pytest.mark.parametrize("route", ["split", "pairs", "bitset"])
def test_alpha_weights_of_complete_and_incomplete_records_kept_apart(route: str) -> None:
    # alpha = 0: the incomplete record adds nothing to the complete one, however heavy;
    # a difference of sums would lose the complete record's own weight of 1
    codes = np.array([[0, 0], [0, -1]], dtype=np.int32)
    res = frequencies_from_codes(
        codes,
        np.array([1, 1]),
        policy=Policy("alpha", 0.0),
        weights=np.array([1.0, 1e17]),
        route=route,
    )
    assert res.row_fk.tolist() == [1.0, 2.0]
    assert res.row_Fk is not None and res.row_Fk.tolist() == [1.0, 1e17 + 1.0]


def test_every_mask_rare_with_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    import microsdc.risk.frequencies as kan

    # no complete pattern, every mask on bit sets: nothing left for mask pairs
    rng = np.random.default_rng(37)
    codes = rng.integers(0, 3, size=(40, 10)).astype(np.int32)
    codes[rng.random(codes.shape) < 0.3] = -1
    codes[:, 0] = -1
    weights = rng.uniform(0.5, 2.0, 40)
    monkeypatch.setattr(kan, "_rare_masks", lambda masks, count, *a: np.ones(len(count), bool))
    got = frequencies_from_codes(codes, np.full(10, 3), weights=weights, route="pairs")
    fk, big = fk_bruteforce(_rows(codes), "wildcard", weights.tolist())
    assert got.row_fk.tolist() == fk
    np.testing.assert_allclose(got.row_Fk, big, rtol=1e-12)


@pytest.mark.parametrize(
    ("route", "policy", "message"),
    [
        ("nope", "wildcard", "unknown counting route 'nope'"),
        ("split", "category", "split route counts the wildcard and alpha"),
        ("split", "conservative", "split route counts the wildcard and alpha"),
    ],
)
def test_forced_route_checked_whatever_the_data(route: str, policy: str, message: str) -> None:
    complete = np.array([[0, 1], [0, 1], [1, 0]], dtype=np.int32)  # no blank: group counts
    with pytest.raises(ValueError, match=message):
        frequencies_from_codes(complete, np.array([2, 2]), policy=Policy(policy), route=route)


def test_split_support_same_for_every_code_width() -> None:
    from microsdc._kernels.colsplit import split_support

    # the route passes the narrowest codes that hold the categories
    rng = np.random.default_rng(37)
    card = np.array([120, 7, 3, 2], dtype=np.int64)
    codes = np.column_stack([rng.integers(0, c, 4000) for c in card])
    codes[rng.random(codes.shape) < 0.2] = -1
    codes = np.unique(codes, axis=0)
    values = rng.uniform(0.5, 2.0, (len(codes), 1))
    sums = [split_support(codes.astype(t), card, values) for t in (np.int8, np.int16, np.int32)]
    assert np.array_equal(sums[0], sums[1]) and np.array_equal(sums[0], sums[2])
    assert sums[0].min() < sums[0].max()
