"""Kernel structure that keeps the first run's compilation short, with unchanged results."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microsdc._kernels.bitcount import bitset_support
from microsdc._kernels.order import stable_order


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=0, max_value=62),
    st.lists(st.integers(min_value=0, max_value=2**62), max_size=300),
)
def test_stable_order_is_a_stable_argsort(n_bits: int, raw: list[int]) -> None:
    keys = np.array(raw, dtype=np.int64) & ((1 << n_bits) - 1)
    got = stable_order(keys, n_bits)
    assert np.array_equal(got, np.argsort(keys, kind="stable"))


def test_stable_order_keeps_ties_in_input_order() -> None:
    keys = np.array([5, 1, 5, 0, 1, 5, 256, 0], dtype=np.int64)
    assert stable_order(keys, 9).tolist() == [3, 7, 1, 4, 0, 2, 5, 6]


def _bitset_args(codes: np.ndarray, card: np.ndarray) -> tuple[object, ...]:
    m = codes.shape[1]
    mask = ((codes >= 0) << np.arange(m)).sum(axis=1).astype(np.int64)
    p = len(codes)
    return (
        np.ascontiguousarray(codes, dtype=np.int32),
        mask,
        card,
        np.ones(p),
        np.ones(p),
        False,
        np.zeros((1, 1)),
        False,
    )


def test_bitset_support_without_observed_card_skips_the_conservative_count() -> None:
    # patterns: (0, 0), (0, -), (1, -), (-, -); all compatible with the last
    codes = np.array([[0, 0], [0, -1], [1, -1], [-1, -1]])
    card = np.array([2, 1], dtype=np.int64)
    targets = np.arange(4)
    push = np.zeros(4, dtype=np.bool_)
    out, cons = bitset_support(*_bitset_args(codes, card), None, targets, push)
    assert cons.shape == (0, 2)
    # counts from complete (column 0) and from incomplete (column 1) patterns
    assert out[:, 0].tolist() == [1, 1, 0, 1]
    assert out[:, 1].tolist() == [2, 2, 2, 3]
    out2, cons2 = bitset_support(
        *_bitset_args(codes, card), np.array([2, 1], dtype=np.int64), targets, push
    )
    assert np.array_equal(out, out2)
    # conservative: (0, -) completes to (0, 0): itself, (0, 0) and (-, -) -> 3
    # (1, -): itself and (-, -) -> 2; (-, -) completes to (1, 0): (1, -) and itself -> 2
    assert cons2[:, 0].tolist()[1:] == [3.0, 2.0, 2.0]
    assert np.isnan(cons2[0, 0])


def test_bitset_support_complete_targets_on_the_incomplete_patterns_alone() -> None:
    # four complete patterns and one incomplete: complete targets are intersected on
    # the bit sets of (0, -) alone, and meet themselves
    codes = np.array([[0, 0], [0, 1], [1, 1], [1, 0], [0, -1]], dtype=np.int32)
    mask = np.array([3, 3, 3, 3, 1], dtype=np.int64)
    card = np.array([2, 2], dtype=np.int64)
    cnt = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    wsum = 10.0 * cnt
    out, cons = bitset_support(
        codes,
        mask,
        card,
        cnt,
        wsum,
        True,
        np.zeros((1, 1)),
        False,
        np.array([2, 2], dtype=np.int64),
        np.arange(5),
        np.zeros(5, dtype=np.bool_),
    )
    # columns: count from complete, from incomplete; weight from complete, from incomplete
    assert out.tolist() == [
        [1.0, 5.0, 10.0, 50.0],
        [2.0, 5.0, 20.0, 50.0],
        [3.0, 0.0, 30.0, 0.0],
        [4.0, 0.0, 40.0, 0.0],
        [3.0, 5.0, 30.0, 50.0],
    ]
    # conservative, (0, -): completed as (0, 0) it meets (0, 0) and itself: 6 (weight 60)
    assert cons[4].tolist() == [6.0, 60.0]
    assert np.isnan(cons[:4]).all()


def test_pair_support_without_wide_refuses_a_span_beyond_62_bits() -> None:
    from microsdc._kernels.maskpairs import pair_support

    # two masks sharing 4 columns of 2^16 categories: a 64-bit key span
    codes = np.array([[1, 2, 3, 4, 5], [1, 2, 3, 4, -1]], dtype=np.int32)
    card = np.array([2**16] * 4 + [6], dtype=np.int64)
    mask = np.array([31, 15], dtype=np.int64)
    order = np.argsort(mask, kind="stable")
    args = (
        codes[order],
        mask[order],
        np.array([15, 31], dtype=np.int64),
        np.array([0, 1, 2], dtype=np.int64),
        card,
        np.ones(2),
        np.ones(2),
        False,
        np.zeros((1, 1)),
        False,
        np.full(4096, -1),
    )
    with pytest.raises(ValueError, match="62 bits"):
        pair_support(*args, None)
    out = pair_support(*args, True)
    # each pattern sees the complete one and the incomplete one
    assert out[:, :2].tolist() == [[1.0, 1.0], [1.0, 1.0]]
