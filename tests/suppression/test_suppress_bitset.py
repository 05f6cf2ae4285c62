"""The bit-set kernel of the wildcard greedy: same choices as the hash-table kernel, and the
restore pass never breaks k."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from microsdc._core.policy import Policy
from microsdc._kernels.greedy_bitset import greedy_bitset, restore_cells
from microsdc._kernels.greedy_wildcard import NO_BACKGROUND, greedy_suppress
from microsdc._kernels.masktables import key_layout
from microsdc.suppression import local_suppression
from microsdc.suppression._engine import (
    candidate_subsets,
    fk_of,
    processing_order,
    ranked_costs,
)
from oracles.kanon import fk_bruteforce, rows_of

WILDCARD = Policy("wildcard")


@st.composite
def code_matrices(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    n = draw(st.integers(1, 150))  # more than 64 records: several words per bit set
    m = draw(st.integers(1, 5))
    card = np.array([draw(st.integers(1, 4)) for _ in range(m)], dtype=np.int64)
    p_missing = draw(st.sampled_from([0.0, 0.1, 0.3]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, c, n) for c in card]).astype(np.int64)
    codes[rng.random((n, m)) < p_missing] = -1
    return np.ascontiguousarray(codes), card


def _inputs(codes: np.ndarray, card: np.ndarray, k: int):  # type: ignore[no-untyped-def]
    fk = fk_of(codes, card, WILDCARD)
    order = processing_order(codes, fk, fk < k)
    deficit = np.maximum(np.ceil(k - fk[order]), 1).astype(np.int64)
    rank = np.argsort(np.argsort(-card, kind="stable"), kind="stable")
    cand, klass = candidate_subsets(ranked_costs(rank))
    return order, deficit, cand, klass


@given(data=code_matrices(), k=st.integers(2, 5), select=st.sampled_from([0, 1]))
def test_bitset_kernel_makes_the_same_choices_as_the_hash_kernel(
    data: tuple[np.ndarray, np.ndarray], k: int, select: int
) -> None:
    codes, card = data
    order, deficit, cand, klass = _inputs(codes, card, k)
    a, b = codes.copy(), codes.copy()
    word_of, mult, n_words = key_layout(card)
    ones = np.ones(len(codes), dtype=np.int64)
    ba = greedy_suppress(
        a,
        card,
        order,
        cand,
        klass,
        float(k),
        0,
        1.0,
        word_of,
        mult,
        n_words,
        select,
        deficit,
        ones,
        *NO_BACKGROUND,
    )
    bb = greedy_bitset(b, card, order, cand, klass, float(k), select, deficit, ones)
    assert np.array_equal(ba, bb)
    assert np.array_equal(a, b)


@given(data=code_matrices(), k=st.integers(2, 5))
def test_restore_keeps_k_and_fk_exact(data: tuple[np.ndarray, np.ndarray], k: int) -> None:
    codes, card = data
    if len(codes) < k:
        return
    order, deficit, cand, klass = _inputs(codes, card, k)
    work = codes.copy()
    ones = np.ones(len(codes), dtype=np.int64)
    greedy_bitset(work, card, order, cand, klass, float(k), 1, deficit, ones)
    # repeat until nothing is at risk, as the engine does
    while (fk := fk_of(work, card, WILDCARD)).min() < k:
        o2, d2, _, _ = _inputs(work, card, k)
        greedy_bitset(work, card, o2, cand, klass, float(k), 1, d2, ones)
    blanked_before = int(np.count_nonzero((work < 0) & (codes >= 0)))
    fk_f = fk.astype(np.float64)
    n_restored = restore_cells(work, codes, card, float(k), fk_f, order, ones)
    after = fk_of(work, card, WILDCARD)
    assert after.min() >= k
    assert np.array_equal(after, fk_f.astype(np.int64))  # incremental counts stay exact
    assert int(np.count_nonzero((work < 0) & (codes >= 0))) == blanked_before - n_restored
    assert not ((work >= 0) & (work != codes)).any()  # only original values come back


def test_restore_gives_back_an_unneeded_cell_by_hand() -> None:
    # records (0,0) (0,0) (0,1); the third blanked to (NA,NA). k = 2 needs only its second
    # cell blanked: (0,NA) matches both (0,0); restoring that one too would leave (0,1) alone
    card = np.array([2, 2], dtype=np.int64)
    codes = np.array([[0, 0], [0, 0], [0, 1]], dtype=np.int64)
    work = np.array([[0, 0], [0, 0], [-1, -1]], dtype=np.int64)
    fk = fk_of(work, card, WILDCARD).astype(np.float64)
    assert fk.tolist() == [3.0, 3.0, 3.0]
    n = restore_cells(
        work, codes, card, 2.0, fk, np.array([2], dtype=np.int64), np.ones(3, np.int64)
    )
    assert n == 1
    assert work.tolist() == [[0, 0], [0, 0], [0, -1]]
    assert fk.tolist() == [3.0, 3.0, 3.0]


def test_processing_order_ascending_fk_then_missing_first() -> None:
    codes = np.array([[0, 0], [0, -1], [1, 1], [1, -1], [2, 2]], dtype=np.int64)
    fk = np.array([1, 2, 1, 2, 1])
    order = processing_order(codes, fk, fk < 3)
    assert order.tolist() == [0, 2, 4, 1, 3]
    codes2 = np.array([[0, 0], [-1, 0], [1, 1]], dtype=np.int64)
    assert processing_order(codes2, np.array([1, 1, 1]), np.ones(3, bool)).tolist() == [1, 0, 2]


@pytest.mark.parametrize("limit", [0, 10**9])
def test_both_kernels_reach_k_through_the_public_function(
    monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    import microsdc._kernels.greedy_bitset as bitset

    monkeypatch.setattr(bitset, "BITSET_MAX_ROWS", limit)
    rng = np.random.default_rng(3)
    df = pd.DataFrame({f"q{j}": rng.integers(0, 4, 120).astype(float) for j in range(4)})
    df.iloc[rng.random((120, 4)) < 0.1] = np.nan
    res = local_suppression(df, list(df.columns), 3)
    fk, _ = fk_bruteforce(rows_of(res.data, list(df.columns)))
    assert min(fk) >= 3
    assert res.n_cells > 0
