"""Linked columns: a column that goes with a PRAMmed one takes the value of its new category."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd

from microsdc.encode import encode_column
from microsdc.exceptions import DataValidationError
from microsdc.postrandomisation.params import FUNC
from microsdc.postrandomisation.units import decode_column

__all__ = ["follow_key"]


def follow_key(
    df: pd.DataFrame,
    key: Hashable,
    key_codes: np.ndarray,
    new_key_codes: np.ndarray,
    link: Hashable,
) -> tuple[pd.Series, np.ndarray]:
    """Column ``link`` of ``df`` with the value that goes with each record's new ``key``.

    ``key_codes`` and ``new_key_codes`` are the key's codes before and after (-1 =
    missing). Each key category (missing included) must go with one value of ``link``
    (a missing value being one); a record whose key did not change keeps its value.

    Returns
    -------
    series : pandas.Series
        The released ``link`` column.
    changed : numpy.ndarray of bool
        Records whose ``link`` value changed.

    Raises
    ------
    DataValidationError
        If a key category goes with two values of ``link``, naming both.
    """
    link_codes, link_cats = encode_column(df[link])
    n_key = int(max(key_codes.max(initial=-1), new_key_codes.max(initial=-1))) + 2
    slot = key_codes.astype(np.int64) + 1  # 0 = missing key
    value = np.full(n_key, -2, dtype=np.int64)  # -2: no record has this key category
    value[slot] = link_codes  # one of the values of each key category
    clash = value[slot] != link_codes
    if clash.any():
        i = int(np.flatnonzero(clash)[0])
        other = int(np.flatnonzero((slot == slot[i]) & ~clash)[0])
        shown = [_shown(link_cats, link_codes[r]) for r in (other, i)]
        raise DataValidationError(
            f"The 'linked' column {link!r} of {FUNC} does not follow {key!r}: "
            f"{key!r} = {_shown_key(df, key, i)} goes with {shown[0]} and {shown[1]}. "
            f"PRAM the two together (together=[[{key!r}, {link!r}]]) or drop {link!r}.",
            func=FUNC,
            param="linked",
        )
    moved = new_key_codes != key_codes
    released = link_codes.astype(np.int64)
    target = value[new_key_codes[moved].astype(np.int64) + 1]
    released[moved] = np.where(target == -2, -1, target)
    changed = released != link_codes
    return decode_column(df[link], link_codes, released, link_cats), changed


def _shown(cats: pd.Index, code: int) -> str:
    return "a missing value" if code < 0 else repr(cats[code])


def _shown_key(df: pd.DataFrame, key: Hashable, row: int) -> str:
    value = df[key].iloc[row]
    return "a missing value" if pd.isna(value) else repr(value)
