"""Brute-force oracle: columns that give back the geography (groupby, one rule at a time)."""

from __future__ import annotations

from collections.abc import Hashable

import pandas as pd

MIN_EVIDENCE = 10
PERSON_LEVEL_SHARE = 0.01


def nested_columns(df: pd.DataFrame, hid: Hashable, hierarchy: list[Hashable]) -> list[Hashable]:
    """Columns (not hid or hierarchy) determining a level or a function of the finest area."""
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
        # determines the coarsest level: every value of >= 2 households in one level-0 area
        counts = v[v != "<NA>"].value_counts()
        shared = counts[counts >= 2]
        if len(shared) and (shared - 1).sum() >= MIN_EVIDENCE:
            in_shared = v.isin(shared.index)
            per_value = areas[0][in_shared].groupby(v[in_shared]).nunique()
            if (per_value == 1).all() and areas[0][in_shared].nunique() >= 2:
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
