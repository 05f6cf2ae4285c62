"""The parameters of :func:`microsdc.pram`, checked once, into one plan per PRAM unit.

A *unit* is what gets one transition matrix per stratum: a single column, or a group of
columns PRAMmed together (``together=``).
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from microsdc._validation import check_columns, check_keys, check_one_of, param_error
from microsdc.exceptions import DataValidationError, InvalidParameterError

__all__ = ["FUNC", "MISSING", "Unit", "check_where", "plan_units"]

FUNC = "pram"
#: ``missing=`` options: keep missing values out of PRAM, or PRAM them as a category
MISSING = ("keep", "state")


@dataclass(frozen=True)
class Unit:
    """One column or group of columns, with its settings."""

    columns: tuple[Hashable, ...]
    diagonal_min: float  # sdcMicro's pd
    alpha: float
    transition: pd.DataFrame | None
    allowed: Any
    linked: tuple[tuple[Hashable, Hashable], ...]  # (PRAMmed column, linked column)

    @property
    def name(self) -> Hashable:
        return self.columns[0]


def _number(value: Any, name: str, low: float, high: float) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not ok or not low <= float(value) <= high:
        raise param_error(name, FUNC, f"a number in [{low:g}, {high:g}]", value)
    return float(value)


def _per_unit(value: Any, name: str, unit: tuple[Hashable, ...], default: Any = None) -> Any:
    """The setting of ``unit`` in a per-column parameter (a scalar or a dict)."""
    if not isinstance(value, Mapping):
        return value
    for key in (unit, *unit):
        try:
            if key in value:
                return value[key]
        except TypeError:
            continue
    return default


def _check_keys(value: Any, name: str, units: list[tuple[Hashable, ...]]) -> None:
    known = sorted({c for u in units for c in u} | {u for u in units}, key=repr)
    problem = (
        "{unknown!r}, which are not PRAMmed columns (or groups of together=). "
        "Its keys are among {known!r}."
    )
    check_keys(value, known, name, FUNC, problem)


def _groups(df: pd.DataFrame, cols: list[Hashable], together: Any) -> list[tuple[Hashable, ...]]:
    if together is None:
        return [(c,) for c in cols]
    if isinstance(together, str | bytes) or not isinstance(together, Iterable):
        raise param_error("together", FUNC, "a list of lists of column names", together)
    grouped: dict[Hashable, tuple[Hashable, ...]] = {}
    for group in together:
        members = tuple(check_columns(df, group, "together", FUNC, allow_single=False))
        if len(members) < 2:
            raise param_error("together", FUNC, "a list of groups of 2 or more columns", together)
        for c in members:
            if c not in cols:
                raise InvalidParameterError(
                    f"The 'together' parameter of {FUNC} groups {c!r}, which is not in "
                    f"'columns'. List every column of a group in 'columns' too.",
                    func=FUNC,
                    param="together",
                )
            if c in grouped:
                raise InvalidParameterError(
                    f"The 'together' parameter of {FUNC} puts {c!r} in two groups.",
                    func=FUNC,
                    param="together",
                )
            grouped[c] = members
    units: list[tuple[Hashable, ...]] = []
    for c in cols:
        unit = grouped.get(c, (c,))
        if unit not in units:
            units.append(unit)
    return units


def _linked(
    df: pd.DataFrame, linked: Any, units: list[tuple[Hashable, ...]], strata: list[Hashable]
) -> dict[Hashable, tuple[Hashable, ...]]:
    if linked is None:
        return {}
    if not isinstance(linked, Mapping):
        raise param_error("linked", FUNC, "a dict {PRAMmed column: [linked columns]}", linked)
    pramed = {c for u in units for c in u}
    out: dict[Hashable, tuple[Hashable, ...]] = {}
    taken: set[Hashable] = set()
    for key, cols in linked.items():
        if key not in pramed:
            raise InvalidParameterError(
                f"The 'linked' parameter of {FUNC} has the key {key!r}, which is not a "
                "PRAMmed column; a linked column follows the new value of a PRAMmed one.",
                func=FUNC,
                param="linked",
            )
        names = check_columns(df, cols, "linked", FUNC)
        for c in names:
            if c in pramed or c in strata or c in taken:
                role = "PRAMmed" if c in pramed else "a stratum" if c in strata else "linked twice"
                raise InvalidParameterError(
                    f"The 'linked' parameter of {FUNC} links {c!r}, which is {role}. "
                    "A linked column follows exactly one PRAMmed column and is not PRAMmed "
                    "itself.",
                    func=FUNC,
                    param="linked",
                )
            taken.add(c)
        out[key] = tuple(names)
    return out


#: What ``transition`` accepts, as its errors say it.
_TRANSITION = "a dict {column: pandas.DataFrame of probabilities}"


def _not_a_matrix(value: Any) -> InvalidParameterError:
    """The refusal of ``value`` as ``transition`` (or one of its matrices): a polars or
    pyarrow frame is named by its kind, with why and how to convert it."""
    kind = type(value)
    library = kind.__module__.split(".")[0]
    if library in ("polars", "pyarrow") or (library != "pandas" and hasattr(value, "to_pandas")):
        convert = ".to_pandas()" if hasattr(value, "to_pandas") else ".collect().to_pandas()"
        return InvalidParameterError(
            f"The 'transition' parameter of {FUNC} must be {_TRANSITION}. Got a {library} "
            f"{kind.__name__} instead: a matrix's rows are named by the categories, which "
            f"only a pandas DataFrame can hold; convert it with {convert} and set its "
            "index to the categories (.set_index(...)).",
            func=FUNC,
            param="transition",
        )
    return param_error("transition", FUNC, _TRANSITION, value)


def _transition(value: Any, unit: tuple[Hashable, ...]) -> pd.DataFrame | None:
    if value is None:
        return None
    if not isinstance(value, pd.DataFrame):
        raise _not_a_matrix(value)
    return value


def plan_units(
    df: pd.DataFrame,
    cols: list[Hashable],
    *,
    pd_: Any,
    alpha: Any,
    strata: list[Hashable],
    transition: Any,
    allowed: Any,
    together: Any,
    linked: Any,
) -> list[Unit]:
    """Check the per-column parameters and return one :class:`Unit` per matrix variable.

    Raises
    ------
    InvalidParameterError
        Naming the parameter, for a value of the wrong type or range, a dict key that is
        not a PRAMmed column, a column in two groups, or a stratum that is PRAMmed.
    ColumnNotFoundError
        For a column of ``together=`` or ``linked=`` that ``df`` lacks.
    """
    overlap = [c for c in cols if c in strata]
    if overlap:
        raise InvalidParameterError(
            f"The 'strata' parameter of {FUNC} names {overlap!r}, which are also PRAMmed. "
            "Records never move across strata, so a stratum cannot be PRAMmed.",
            func=FUNC,
            param="strata",
        )
    units = _groups(df, cols, together)
    for name, value in (("pd", pd_), ("alpha", alpha), ("allowed", allowed)):
        _check_keys(value, name, units)
    if transition is not None and not isinstance(transition, Mapping):
        raise _not_a_matrix(transition)
    _check_keys(transition, "transition", units)
    links = _linked(df, linked, units, strata)
    plans = []
    for unit in units:
        plans.append(
            Unit(
                columns=unit,
                diagonal_min=_number(_per_unit(pd_, "pd", unit, 0.8), "pd", 0.0, 1.0),
                alpha=_number(_per_unit(alpha, "alpha", unit, 0.5), "alpha", 0.0, 1.0),
                transition=_transition(_per_unit(transition, "transition", unit), unit),
                allowed=_per_unit(allowed, "allowed", unit),
                linked=tuple((key, c) for key in unit for c in links.get(key, ())),
            )
        )
    return plans


def check_where(df: pd.DataFrame, where: Any) -> np.ndarray:
    """``where=`` as a boolean array of length ``len(df)`` (all True for None).

    Raises
    ------
    InvalidParameterError
        For a value that is not a column name, a boolean array of the frame's length, or
        a boolean Series with the frame's index.
    DataValidationError
        For a ``where`` column or Series with missing or non-boolean values.
    """
    n = len(df)
    if where is None:
        return np.ones(n, dtype=bool)
    if isinstance(where, Hashable) and not isinstance(where, tuple) and where in df.columns:
        series = df[where]
    elif isinstance(where, pd.Series):
        if not where.index.equals(df.index):
            raise InvalidParameterError(
                f"The 'where' parameter of {FUNC} is a Series whose index differs from the "
                "data's; align it first (where.reindex(df.index)).",
                func=FUNC,
                param="where",
            )
        series = where
    elif isinstance(where, np.ndarray | list) and len(where) == n:
        series = pd.Series(where, index=df.index)
    else:
        raise param_error(
            "where", FUNC, "a boolean column name, Series or array of the data's length", where
        )
    if series.isna().any() or not pd.api.types.is_bool_dtype(series.dtype):
        raise DataValidationError(
            f"The 'where' parameter of {FUNC} must hold True or False for every record; it "
            f"holds {series.dtype} values{' and missing values' if series.isna().any() else ''}.",
            func=FUNC,
            param="where",
        )
    return series.to_numpy(dtype=bool)


def check_missing(missing: Any) -> str:
    """``missing=`` checked against :data:`MISSING`."""
    return str(check_one_of(missing, "missing", FUNC, MISSING))
