"""PRAM of household-level variables: one draw per household, given to every member.

A household-level variable (roof, walls, electricity) holds one value per household.
PRAMmed person by person, the members of a household get different values: the release
says something impossible, and whoever can group the members (by the household id, or by
other household-level columns) takes the majority within the household and gets much of
the original value back. Here each household is one unit: the household file (one row per
household) is PRAMmed and its new values are given to every member, as the SDC Practice
Guide's household case study does with sdcMicro (``selectHouseholdData``, ``pram`` on the
household file, merge back).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from microsdc._validation import check_columns, param_error
from microsdc.encode import encode_column
from microsdc.exceptions import DataValidationError, InvalidParameterError
from microsdc.postrandomisation.params import FUNC, check_where
from microsdc.postrandomisation.result import PramResult

__all__ = ["check_hid", "household_codes", "pram_by_household", "varying_households"]

#: how many household ids an error shows
SHOWN = 3


def check_hid(df: pd.DataFrame, hid: Any, cols: list[Hashable], strata: list[Hashable]) -> Hashable:
    """``hid=`` checked: one column of ``df`` that is neither PRAMmed nor a stratum.

    Raises
    ------
    InvalidParameterError
        For a list of names, or a column that is PRAMmed or a stratum.
    ColumnNotFoundError
        For a column ``df`` lacks.
    """
    if isinstance(hid, list | set | dict) or not isinstance(hid, Hashable):
        raise param_error("hid", FUNC, "one column name (the household id)", hid)
    name = check_columns(df, [hid], "hid", FUNC)[0]
    role = "PRAMmed" if name in cols else "a stratum" if name in strata else None
    if role:
        raise InvalidParameterError(
            f"The 'hid' parameter of {FUNC} names {name!r}, which is {role}. The household "
            "id tells the households apart; it is neither PRAMmed nor a stratum.",
            func=FUNC,
            param="hid",
            value=name,
        )
    return name


def household_codes(df: pd.DataFrame, hid: Hashable) -> np.ndarray:
    """Household number of each record, ``0 .. n_households - 1`` in order of first appearance.

    Raises
    ------
    DataValidationError
        If the household id column has missing values (every person needs a household).
    """
    codes, _ = encode_column(df[hid])
    missing = codes < 0
    if missing.any():
        raise DataValidationError(
            f"The 'hid' parameter of {FUNC} names the household id column {hid!r}, which has "
            f"{int(missing.sum()):,} missing value(s) (first rows: {list(df.index[missing][:5])}). "
            "Every person needs a household: fill them in, or PRAM those records apart.",
            failure_cases=list(df.index[missing][:SHOWN]),
            func=FUNC,
            param="hid",
        )
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse.ravel()]


def varying_households(column: pd.Series, households: np.ndarray, n_households: int) -> np.ndarray:
    """Boolean per household: does ``column`` take more than one value among its members?

    A missing value is a value of its own: a blank next to a value is a disagreement.
    """
    codes, _ = encode_column(column)
    codes = codes.astype(np.int64)
    first = np.full(n_households, -2, dtype=np.int64)
    first[households[::-1]] = codes[::-1]
    out = np.zeros(n_households, dtype=bool)
    out[households[codes != first[households]]] = True
    return out


def check_household_level(
    df: pd.DataFrame,
    hid: Hashable,
    households: np.ndarray,
    roles: Sequence[tuple[str, Sequence[Hashable]]],
) -> None:
    """Refuse a column of ``roles`` whose value differs between the members of a household.

    ``roles`` pairs a parameter name (``columns``, ``strata``, ``linked``) with its
    columns. The first parameter with such a column is named in the error.

    Raises
    ------
    DataValidationError
        Naming each such column, the number of households in which it varies and a few
        of their ids.
    """
    n_hh = int(households.max(initial=-1)) + 1
    first_row = np.full(n_hh, -1, dtype=np.int64)
    first_row[households[::-1]] = np.arange(len(households))[::-1]
    seen: set[Hashable] = set()
    for param, columns in roles:
        found, failing = [], []
        for col in columns:
            if col in seen:
                continue
            seen.add(col)
            varies = varying_households(df[col], households, n_hh)
            n_bad = int(varies.sum())
            if n_bad:
                ids = df[hid].iloc[first_row[np.flatnonzero(varies)[:SHOWN]]].tolist()
                shown = ", ".join(repr(h) for h in ids) + (", ..." if n_bad > SHOWN else "")
                found.append(f"{col!r} (in {n_bad:,} of {n_hh:,} households, {hid!s} {shown})")
                failing.append(col)
        if found:
            what = {
                "strata": "A stratum must hold one value per household (a household is "
                "PRAMmed as a whole within its stratum)",
                "linked": "A linked column follows its household's new value, so it must "
                "hold one value per household",
            }.get(
                param,
                "PRAMmed by household, every member gets the household's new value, so each "
                "variable must hold one value per household: PRAM person-level variables "
                "separately, without the household id",
            )
            raise DataValidationError(
                f"The '{param}' parameter of {FUNC} names {len(found)} column(s) whose values "
                f"differ between the members of a household: {'; '.join(found)}. {what}. "
                "Nothing was PRAMmed.",
                failure_cases=failing,
                func=FUNC,
                param=param,
            )


def pram_by_household(
    pram: Callable[..., Any],
    df: pd.DataFrame,
    cols: list[Hashable],
    hid: Hashable,
    *,
    strata: list[Hashable],
    linked: Any,
    where: Any,
    kwargs: dict[str, Any],
) -> PramResult:
    """:func:`~microsdc.postrandomisation.pram` with each household one unit.

    The household file (the first member's values of ``hid``, the strata, the PRAMmed and
    the linked columns) is PRAMmed by ``pram`` (without ``hid``), and each member gets
    their household's released values. A household is PRAMmed when ``where`` holds for
    any of its members. ``kwargs`` are the other parameters of ``pram``.
    """
    households = household_codes(df, hid)
    links = _linked_columns(df, linked)
    check_household_level(
        df, hid, households, [("strata", strata), ("columns", cols), ("linked", links)]
    )
    chosen = check_where(df, where)
    n_hh = int(households.max(initial=-1)) + 1
    any_member = np.zeros(n_hh, dtype=bool)
    any_member[households[chosen]] = True
    first_row = np.full(n_hh, -1, dtype=np.int64)
    first_row[households[::-1]] = np.arange(len(df))[::-1]
    keep = list(dict.fromkeys([hid, *strata, *cols, *links]))
    frame = df.iloc[first_row][keep]
    frame.index = pd.RangeIndex(n_hh)  # the household id tells households apart
    result = pram(frame, cols, strata=strata or None, linked=linked, where=any_member, **kwargs)
    return _to_persons(df, result, households, hid)


def _linked_columns(df: pd.DataFrame, linked: Any) -> list[Hashable]:
    """The columns of ``linked=``, checked against ``df`` (the household call checks the
    rest of the parameter).

    Raises
    ------
    ColumnNotFoundError
        For a linked column ``df`` lacks.
    """
    if not isinstance(linked, Mapping):
        return []
    out: list[Hashable] = []
    for value in linked.values():
        out += check_columns(df, value, "linked", FUNC)
    return out


def _to_persons(
    df: pd.DataFrame, result: PramResult, households: np.ndarray, hid: Hashable
) -> PramResult:
    """The household result given to the members: each gets their household's values."""
    out = {c: df[c] for c in df.columns}
    changed = result.changed.to_numpy()[households]
    for j, c in enumerate(result.changed.columns):
        if changed[:, j].any():
            taken = result.data[c].take(households)
            taken.index = df.index
            out[c] = taken
    data = pd.DataFrame(out, index=df.index, copy=False)
    data.columns = df.columns
    matrices = tuple(
        replace(m, counts=m.counts.rename("households"), released=m.released.rename("households"))
        for m in result.matrices
    )
    return PramResult(
        data=data,
        matrices=matrices,
        changed=pd.DataFrame(changed, index=df.index, columns=result.changed.columns),
        pramed=pd.DataFrame(
            result.pramed.to_numpy()[households], index=df.index, columns=result.pramed.columns
        ),
        strata=result.strata,
        hid=hid,
    )
