"""The MSU search kernel: its layouts of the patterns and its minimality tests agree."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microsdc._kernels.patterns import distinct_patterns
from microsdc._kernels.suda import (
    BITS_BUDGET,
    join_lists,
    msu_search,
    msu_tallies,
    record_msus,
)
from microsdc.risk.suda_core import find_msus, packed_patterns
from oracles.suda import msus_bruteforce


def _search(codes: np.ndarray, ncat: np.ndarray, wildcard: bool, **kw: int) -> set[tuple[int, int]]:
    pt = distinct_patterns(codes, ncat, dense_limit=0)
    m = codes.shape[1]
    rows, *layout = packed_patterns(pt.codes, pt.count, ncat)
    every = (1 << m) - 1
    args = (rows, tuple(layout), len(pt.count), ncat, wildcard, m, every, np.zeros(0, np.int64))
    pat, mask = join_lists(*msu_search(*args, **kw)[:2])
    assert len(set(zip(pat.tolist(), mask.tolist(), strict=True))) == len(pat)  # no repeats
    # as (first row of the pattern, mask): independent of the pattern numbers
    first = np.full(len(pt.count), -1)
    for row, p in enumerate(pt.inverse):
        if first[p] < 0:
            first[p] = row
    return {(int(first[p]), int(mk)) for p, mk in zip(pat, mask, strict=True)}


def _oracle(codes: np.ndarray, rule: str) -> set[tuple[int, int]]:
    df = pd.DataFrame(codes.astype(float)).mask(codes < 0)
    cols = list(df.columns)
    found = msus_bruteforce(df, cols, rule)
    return {(i, sum(1 << cols.index(c) for c in u)) for i, e in enumerate(found) for u in e}


@pytest.mark.parametrize("rule", ["wildcard", "sdcmicro"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_wide_rows_and_walked_lists_find_the_oracle_msus(rule: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = 150, 6
    codes = rng.integers(0, 3, (n, m)).astype(np.int32)
    codes[rng.random((n, m)) < 0.08] = -1
    ncat = np.full(m, 3, dtype=np.int64)
    # more categories than occur: fields of 21 bits, the rows take three words
    wide = np.full(m, (1 << 21) - 1, dtype=np.int64)
    wildcard = rule == "wildcard"
    expected = _oracle(codes, rule)
    assert len(expected) > 50
    assert _search(codes, ncat, wildcard) == expected  # superset bits
    assert _search(codes, ncat, wildcard, bits_budget=0) == expected  # walked lists
    assert _search(codes, wide, wildcard) == expected
    assert _search(codes, wide, wildcard, bits_budget=0) == expected


def test_second_thread_only_for_large_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from microsdc.risk.suda_core import two_threads_help

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.5, 0.5, 0.5), raising=False)
    assert two_threads_help(50_000, 9)
    assert not two_threads_help(19_999, 9)  # a short search
    assert not two_threads_help(50_000, 2)  # too few keys to split
    monkeypatch.setattr(os, "getloadavg", lambda: (1.5, 0.5, 0.5), raising=False)
    assert not two_threads_help(50_000, 9)  # no free CPU
    monkeypatch.setattr(os, "getloadavg", lambda: (0.5, 0.5, 0.5), raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert not two_threads_help(50_000, 9)  # one CPU


@pytest.mark.parametrize("rule", ["wildcard", "sdcmicro"])
@pytest.mark.parametrize("bits_budget", [BITS_BUDGET, 0])
def test_counts_kept_by_the_search_equal_the_counts_of_its_lists(
    rule: str, bits_budget: int
) -> None:
    """The search counts each MSU as it finds it (no lists); with two threads the first
    thread's lists are filtered by the second's superset bits, or by its lists when the
    bits are over budget. All give the counts of the MSU lists, which equal the oracle."""
    rng = np.random.default_rng(5)
    n, m = 3000, 6
    codes = rng.integers(0, 4, (n, m)).astype(np.int32)
    codes[rng.random((n, m)) < 0.05] = -1
    ncat = np.full(m, 4, dtype=np.int64)
    wildcard = rule == "wildcard"
    pt = distinct_patterns(codes, ncat, dense_limit=0)
    n_pat = len(pt.count)
    assert n_pat >= 1000  # large enough for the two-thread route
    pack = packed_patterns(pt.codes, pt.count, ncat)
    like = np.zeros(0, np.int16)
    store, n_msus = msu_search(pack[0].copy(), pack[1:], n_pat, ncat, wildcard, m, 63, like)[:2]
    mask = join_lists(store, n_msus)[1]
    assert n_msus > 300
    want_pattern = np.zeros((n_pat, m), dtype=np.int16)
    want_level = np.zeros((m, 5, m + 1), dtype=np.int64)
    msu_tallies(store, n_msus, np.ones(n_msus, bool), pack, want_pattern, want_level)
    sizes = np.array([bin(int(x)).count("1") for x in mask])
    np.testing.assert_array_equal(want_pattern.sum(axis=0), np.bincount(sizes, minlength=m + 1)[1:])
    for threads in (1, 2):
        packs = [packed_patterns(pt.codes, pt.count, ncat) for _ in range(threads)]
        by_pattern, by_level = find_msus(packs, n_pat, ncat, wildcard, m, bits_budget)
        np.testing.assert_array_equal(by_pattern, want_pattern)
        np.testing.assert_array_equal(by_level, want_level)


@pytest.mark.parametrize("rule", ["wildcard", "sdcmicro"])
def test_one_record_search_finds_each_records_msus(rule: str) -> None:
    rng = np.random.default_rng(9)
    n, m = 120, 5
    codes = rng.integers(0, 3, (n, m)).astype(np.int32)
    codes[rng.random((n, m)) < 0.1] = -1
    expected = _oracle(codes, rule)
    assert len(expected) > 30
    got = {(r, int(mk)) for r in range(n) for mk in record_msus(codes, r, rule == "wildcard", m)}
    assert got == expected
    # with a largest size: those of the oracle up to it
    got2 = {(r, int(mk)) for r in range(n) for mk in record_msus(codes, r, rule == "wildcard", 2)}
    assert got2 == {(r, mk) for r, mk in expected if bin(mk).count("1") <= 2}
