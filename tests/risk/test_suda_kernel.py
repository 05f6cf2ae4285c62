"""The MSU search kernel: its layouts of the patterns and its minimality tests agree."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microsdc._kernels.patterns import distinct_patterns
from microsdc._kernels.suda import msu_search
from oracles.suda import msus_bruteforce


def _search(codes: np.ndarray, ncat: np.ndarray, wildcard: bool, **kw: int) -> set[tuple[int, int]]:
    pt = distinct_patterns(codes, ncat, dense_limit=0)
    m = codes.shape[1]
    args = (pt.codes, pt.count, ncat, wildcard, m, (1 << m) - 1, np.zeros(0, np.int64))
    pat, mask = msu_search(*args, **kw)
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
