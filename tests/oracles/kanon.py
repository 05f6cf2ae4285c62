"""Brute-force references, straight from the definitions (O(n^2) and worse): test oracles only."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import pandas as pd


def rows_of(df: pd.DataFrame, qi: Sequence[Any]) -> list[tuple[Any, ...]]:
    """QI values per row, with every missing value as None."""
    out = []
    for values in df[list(qi)].itertuples(index=False, name=None):
        out.append(tuple(None if pd.isna(v) else v for v in values))
    return out


def compatible(r: tuple[Any, ...], s: tuple[Any, ...]) -> bool:
    return all(a is None or b is None or a == b for a, b in zip(r, s, strict=True))


def value_shares(rows: list[tuple[Any, ...]]) -> list[dict[Any, float]]:
    """Per column, the share of each value among the observed values."""
    m = len(rows[0]) if rows else 0
    out = []
    for j in range(m):
        seen = [r[j] for r in rows if r[j] is not None]
        out.append({v: seen.count(v) / len(seen) for v in set(seen)})
    return out


def pair_weight(r: tuple[Any, ...], s: tuple[Any, ...], shares: list[dict[Any, float]]) -> float:
    """Weight of s for r under "probabilistic": s's blanks match r's values with their shares."""
    weight = 1.0
    for j, (a, b) in enumerate(zip(r, s, strict=True)):
        if b is None and a is not None:
            weight *= shares[j][a]
    return weight


def prosecutor_bruteforce(
    original: list[tuple[Any, ...]], released: list[tuple[Any, ...]]
) -> list[float]:
    """Per record: weight of its own released record / total weight of the released
    records compatible with its true values; a blank of s in column c where the
    true value t_c is known weighs the share of t_c among the released values
    (1 when it no longer appears: then every candidate is blank there)."""
    shares = value_shares(released)
    out = []
    for t, own in zip(original, released, strict=True):

        def weight(s: tuple[Any, ...], t: tuple[Any, ...] = t) -> float:
            wgt = 1.0
            for j, (a, b) in enumerate(zip(t, s, strict=True)):
                if b is None and a is not None:
                    wgt *= shares[j].get(a, 1.0)
            return wgt

        total = sum(weight(s) for s in released if compatible(t, s))
        out.append(weight(own) / total if total > 0 else 0.0)
    return out


def fk_bruteforce(
    rows: list[tuple[Any, ...]], policy: Any = "wildcard", weights: Sequence[float] | None = None
) -> tuple[list[float], list[float]]:
    """(fk, Fk) for each row under a policy, by comparing every pair of rows."""
    w = [1.0] * len(rows) if weights is None else [float(x) for x in weights]
    fk, big = [], []
    if policy == "conservative":
        m = len(rows[0]) if rows else 0
        cats = [sorted({r[j] for r in rows if r[j] is not None}, key=repr) for j in range(m)]
        for r in rows:
            miss = [j for j in range(m) if r[j] is None]
            if not miss:
                fk.append(float(sum(1 for s in rows if compatible(r, s))))
                big.append(sum(ws for s, ws in zip(rows, w, strict=True) if compatible(r, s)))
                continue
            # the completion of least count (of least weight among those): Fk sums the
            # weights of the records counted in fk
            best = (float("inf"), float("inf"))
            choices = [cats[j] if cats[j] else [None] for j in miss]
            for combo in itertools.product(*choices):
                c = list(r)
                for j, v in zip(miss, combo, strict=True):
                    c[j] = v
                ct = tuple(c)
                f = float(sum(1 for s in rows if compatible(ct, s)))
                fw = sum(ws for s, ws in zip(rows, w, strict=True) if compatible(ct, s))
                best = min(best, (f, fw))
            fk.append(best[0])
            big.append(best[1])
        return fk, big
    shares = value_shares(rows) if policy == "probabilistic" else []
    for r in rows:
        f = 0.0
        b = 0.0
        for s, ws in zip(rows, w, strict=True):
            if policy == "category":
                ok = r == s
                weight = 1.0
            elif policy == "probabilistic":
                ok = compatible(r, s)
                weight = pair_weight(r, s, shares)
            else:
                ok = compatible(r, s)
                alpha = 1.0 if policy == "wildcard" else float(policy)
                # sdcMicro freqCalc: alpha for a record with a missing value, unless
                # it is of r's exact pattern; complete records count 1
                weight = 1.0 if (None not in s or s == r) else alpha
            if ok:
                f += weight
                b += weight * ws
        fk.append(f)
        big.append(b)
    return fk, big


def safe_combinations_bruteforce(
    df: pd.DataFrame, qi: Sequence[Any], k: int, min_size: int, max_size: int
) -> list[list[Any]]:
    """Every subset checked, no pruning."""
    out = []
    for size in range(min_size, max_size + 1):
        for combo in itertools.combinations(qi, size):
            fk, _ = fk_bruteforce(rows_of(df, combo))
            if all(f >= k for f in fk):
                out.append(list(combo))
    return out
