"""Brute-force minimal sample uniques: every subset of every record's key values."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from itertools import combinations
from math import factorial

import pandas as pd


def _match(a: object, b: object, rule: str) -> bool:
    """Whether another record's value ``a`` matches the record's value ``b``."""
    a_na, b_na = pd.isna(a), pd.isna(b)
    if rule == "category":
        return (a_na and b_na) or (not a_na and not b_na and a == b)
    if rule == "wildcard":
        return a_na or (not b_na and a == b)
    return not a_na and not b_na and a == b  # sdcmicro: a missing value matches nothing


def msus_bruteforce(
    df: pd.DataFrame, qis: Sequence[Hashable], rule: str, max_size: int | None = None
) -> list[set[frozenset[Hashable]]]:
    """The MSUs of each record (sets of column names), by trying every subset."""
    rows = df[list(qis)].to_dict("records")
    out = []
    for i, r in enumerate(rows):
        own = [c for c in qis if rule == "category" or not pd.isna(r[c])]
        found: list[frozenset[Hashable]] = []
        top = len(own) if max_size is None else min(max_size, len(own))
        for size in range(1, top + 1):
            for cols in combinations(own, size):
                fs = frozenset(cols)
                if any(f <= fs for f in found):
                    continue
                others = [s for j, s in enumerate(rows) if j != i]
                if not any(all(_match(s[c], r[c], rule) for c in cols) for s in others):
                    found.append(fs)
        out.append(set(found))
    return out


def weight(size: int, m: int, original: bool = True) -> float:
    """Score of an MSU of ``size`` among ``m`` key variables, from the factorial formulas."""
    if original:
        return float(factorial(m - size))
    return (2 ** (m - size) - 1) * factorial(size) * factorial(m - size) / factorial(m)
