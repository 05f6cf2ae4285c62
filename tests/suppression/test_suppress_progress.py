"""Progress of local suppression: the kernels count the records handled, a helper thread
reports them, and the result does not depend on whether anyone listens."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from microsdc._core.policy import Policy
from microsdc._kernels.greedy_bitset import greedy_bitset
from microsdc._kernels.greedy_wildcard import NO_BACKGROUND, greedy_suppress
from microsdc._kernels.masktables import key_layout
from microsdc.suppression import local_suppression
from microsdc.suppression._engine import (
    _with_progress,
    candidate_subsets,
    fk_of,
    processing_order,
    ranked_costs,
)

WILDCARD = Policy("wildcard")


def _codes(n: int = 200, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    card = np.array([3, 4, 5], dtype=np.int64)
    codes = np.column_stack([rng.integers(0, c, n) for c in card]).astype(np.int64)
    return np.ascontiguousarray(codes), card


def _inputs(codes: np.ndarray, card: np.ndarray, k: int):  # type: ignore[no-untyped-def]
    fk = fk_of(codes, card, WILDCARD)
    order = processing_order(codes, fk, fk < k)
    deficit = np.maximum(np.ceil(k - fk[order]), 1).astype(np.int64)
    cand, klass = candidate_subsets(ranked_costs(np.arange(len(card))))
    return order, deficit, cand, klass


@pytest.mark.parametrize("kernel", ["bitset", "hash"])
def test_kernels_count_the_records_handled(kernel: str) -> None:
    codes, card = _codes()
    k = 4
    order, deficit, cand, klass = _inputs(codes, card, k)
    assert len(order) > 10
    a, b = codes.copy(), codes.copy()
    counter = np.full(1, -1, dtype=np.int64)
    if kernel == "bitset":
        ones = np.ones(len(a), dtype=np.int64)
        ba = greedy_bitset(a, card, order, cand, klass, float(k), 1, deficit, ones)
        bb = greedy_bitset(b, card, order, cand, klass, float(k), 1, deficit, ones, counter)
    else:
        word_of, mult, n_words = key_layout(card)
        ones = np.ones(len(a), dtype=np.int64)
        args = (
            cand,
            klass,
            float(k),
            0,
            1.0,
            word_of,
            mult,
            n_words,
            1,
            deficit,
            ones,
            *NO_BACKGROUND,
        )
        ba = greedy_suppress(a, card, order, *args)
        bb = greedy_suppress(b, card, order, *args, counter)
    assert counter[0] == len(order) - 1  # index of the last record handled
    assert np.array_equal(ba, bb) and np.array_equal(a, b)


def test_helper_thread_reports_while_the_kernel_runs() -> None:
    calls: list[tuple[int, int]] = []

    def slow_kernel(steps: int, counter: np.ndarray) -> None:
        for i in range(steps):
            counter[0] = i
            time.sleep(0.1)

    _with_progress(slow_kernel, (6,), 6, lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 6) and calls[-1] == (6, 6)
    done = [d for d, _ in calls]
    assert done == sorted(done) and all(t == 6 for _, t in calls)
    assert all(0 <= d <= 6 for d in done)


def test_helper_thread_stops_when_the_kernel_fails() -> None:
    calls: list[tuple[int, int]] = []

    def failing(counter: np.ndarray) -> None:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        _with_progress(failing, (), 3, lambda done, total: calls.append((done, total)))
    assert calls == [(0, 3)]


def test_local_suppression_reports_and_gives_the_same_result() -> None:
    codes, _ = _codes(300, seed=8)
    df = pd.DataFrame(codes, columns=["a", "b", "c"]).astype(str)
    calls: list[tuple[int, int]] = []
    res = local_suppression(
        df, ["a", "b", "c"], 4, progress=lambda d, t: calls.append((d, t)), missing="wildcard"
    )
    plain = local_suppression(df, ["a", "b", "c"], 4, missing="wildcard")
    pd.testing.assert_frame_equal(res.data, plain.data)
    assert calls[0] == (0, res.n_at_risk_before)
    assert calls[-1][0] == calls[-1][1]
    assert res.n_at_risk_before > 0


def test_progress_is_optional_for_records_already_safe() -> None:
    df = pd.DataFrame({"a": ["x"] * 5, "b": ["y"] * 5})
    calls: list[tuple[int, int]] = []
    res = local_suppression(
        df, ["a", "b"], 3, progress=lambda d, t: calls.append((d, t)), missing="wildcard"
    )
    assert res.n_cells == 0 and calls == []
