"""Strata: dense ids of the combinations of values of strata columns, in sorted order."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd

from microsdc.encode import combine_codes, encode_column

__all__ = ["stratum_ids"]


def _dense(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)``, by counting when the keys are small."""
    top = int(key.max(initial=0)) + 1
    if top <= 4 * len(key) + 1024:
        present = np.bincount(key, minlength=top) > 0
        ids = np.cumsum(present) - 1
        return np.flatnonzero(present), ids[key]
    return np.unique(key, return_inverse=True)


def _plain(value: object) -> object:
    """A numpy scalar as the Python value it holds (messages show 1, not np.int64(1))."""
    item = getattr(value, "item", None)
    return item() if callable(item) and getattr(value, "shape", None) == () else value


def stratum_ids(df: pd.DataFrame, strata: list[Hashable]) -> tuple[np.ndarray, list[tuple]]:
    """Dense stratum ids of the records (missing is a value of its own) and each id's values.

    Ids follow the sorted values of the strata columns, so they do not depend on row order.
    """
    n = len(df)
    if not strata:
        return np.zeros(n, dtype=np.int64), [()]
    codes, cats = [], []
    for c in strata:
        cc, cat = encode_column(df[c])
        codes.append(cc)
        cats.append(cat)
    key = combine_codes(np.column_stack(codes), np.array([len(c) for c in cats], np.int64))
    uniq, inverse = _dense(key)
    first = np.zeros(len(uniq), dtype=np.int64)
    first[inverse[::-1]] = np.arange(n)[::-1]
    values = [
        tuple(
            _plain(cats[j][codes[j][i]]) if codes[j][i] >= 0 else None for j in range(len(strata))
        )
        for i in first
    ]
    return inverse.astype(np.int64), values
