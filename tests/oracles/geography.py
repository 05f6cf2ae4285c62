"""Brute-force oracle: columns that give back the geography (groupby, one rule at a time)."""

from __future__ import annotations

import math
from collections.abc import Hashable

import pandas as pd

MIN_EVIDENCE = 10
PERSON_LEVEL_SHARE = 0.01


def nested_columns(df: pd.DataFrame, hid: Hashable, hierarchy: list[Hashable]) -> list[Hashable]:
    """Columns (not hid or hierarchy) giving back a level or a function of the finest area."""
    found = []
    first = df.groupby(hid, sort=False).first()  # household-level view (first member)
    areas = [
        first[hierarchy[: h + 1]].astype(str).agg("|".join, axis=1) for h in range(len(hierarchy))
    ]
    for col in df.columns:
        if col == hid or col in hierarchy:
            continue
        values = df[col].astype(object).where(df[col].notna(), "<NA>")
        varying = values.groupby(df[hid], sort=False).nunique() > 1
        if varying.sum() > PERSON_LEVEL_SHARE * len(first):
            continue
        v = values.groupby(df[hid], sort=False).first().loc[first.index]
        # gives back a level: the area of >= half the households read from the column
        if _gives_back_a_level(v, areas):
            found.append(col)
            continue
        # function of the finest area: one value in every area with >= 2 households
        hh_per_area = areas[-1].value_counts()
        multi = hh_per_area[hh_per_area >= 2]
        if len(multi) and (multi - 1).sum() >= MIN_EVIDENCE:
            in_multi = areas[-1].isin(multi.index)
            per_area = v[in_multi].groupby(areas[-1][in_multi]).nunique()
            firsts = v[in_multi].groupby(areas[-1][in_multi]).first()
            if (per_area == 1).all() and firsts.nunique() >= 2:
                found.append(col)
    return found


def _tail(n: int, a: int, p: float) -> float:
    return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(a, n + 1))


def _gives_back_a_level(v: pd.Series, areas: list[pd.Series]) -> bool:
    """Household by household: the others with its value lie in its area so often that the
    guess is wrong at most a quarter as often as a blind one (p = share of its area among the
    other households), with a binomial tail <= 5 %; at some level for >= half of them."""
    values = v.tolist()
    n_hh = len(values)
    for area in areas:
        where = area.tolist()
        hits = 0
        for i in range(n_hh):
            if values[i] == "<NA>" or n_hh < 2:
                continue
            others = [where[j] for j in range(n_hh) if j != i and values[j] == values[i]]
            n, a = len(others), others.count(where[i])
            p = (where.count(where[i]) - 1) / (n_hh - 1)
            if n >= 1 and a >= 1 and 4 * a >= n * (3 + p) and _tail(n, a, p) <= 0.05 + 1e-12:
                hits += 1
        if n_hh and hits >= 0.5 * n_hh:
            return True
    return False
