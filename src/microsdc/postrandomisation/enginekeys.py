"""The record keys and uniform numbers of :mod:`microsdc.data.rowkeys`, computed inside a
lazy engine (polars ``LazyFrame``, DuckDB relation, Spark DataFrame), row by row.

A record's key hashes its values column by column as pandas does
(``pandas.util.hash_pandas_object``): integers and booleans without missing values by
the same 64-bit arithmetic in the engine; the other columns (text, numbers with a
decimal point, dates, columns with missing values) by a table of each distinct value's
pandas hash, computed on the engine's own pandas conversion of the distinct values and
joined back. A column with more than :data:`MAX_MAPPED` distinct values of such a kind
is hashed by the engine's own hash function instead: the key is then another function
of the record's values, which keeps each record's draw independent of the row order and
of the other records, but no longer equal to the pandas one.

64-bit arithmetic wraps around in polars (``UInt64``); DuckDB raises on overflow, so
products are taken in ``UHUGEINT`` modulo 2^64; Spark computes on the bits of a signed
``long``, products split into 32-bit halves in ``DECIMAL(38, 0)``, so ANSI mode does
not matter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["MAX_MAPPED", "EngineKeys", "column_plan"]

#: distinct values of a text, decimal or date column hashed as pandas does, at most
MAX_MAPPED = 200_000

_START = 0x243F6A8885A308D3
_GOLDEN = 0x9E3779B97F4A7C15
_C1 = 0xBF58476D1CE4E5B9
_C2 = 0x94D049BB133111EB
_MUL = 1_000_003
_OCC = 0xD1B54A32D192ED03
_MASK = (1 << 64) - 1
_U8MAX = _MASK

KEY = "__microsdc_key"
_H = "__microsdc_h"
_ROW = "__microsdc_rowpos"


@dataclass(frozen=True)
class ColumnHash:
    """How one column enters the key: ``kind`` is ``"int"`` (its bits, ``bits`` wide),
    ``"bool"``, ``"mapped"`` (``table``: distinct values and their pandas hash) or
    ``"native"`` (the engine's hash)."""

    name: str
    kind: str
    bits: int = 64
    table: Any = None


# --------------------------------------------------------------------------- u64 steps
# A step is (operation, argument): ("add", c), ("mul", c), ("xor", c), ("xorshift", k),
# ("xorcol", name). Each becomes one projection, so no expression is repeated inside
# another.


def _finaliser() -> list[tuple[str, Any]]:
    """pandas' hash finaliser (SplitMix64's, without the increment)."""
    return [("xorshift", 30), ("mul", _C1), ("xorshift", 27), ("mul", _C2), ("xorshift", 31)]


def _mix64() -> list[tuple[str, Any]]:
    return [("add", _GOLDEN), *_finaliser()]


# --------------------------------------------------------------------------- the plan


def _int_bits(dtype: str) -> int | None:
    text = dtype.lower()
    for bits in (8, 16, 32, 64):
        if text in (f"int{bits}", f"uint{bits}"):
            return bits
    return {
        "tinyint": 8, "smallint": 16, "integer": 32, "bigint": 64, "utinyint": 8,
        "usmallint": 16, "uinteger": 32, "ubigint": 64, "bytetype()": 8, "shorttype()": 16,
        "integertype()": 32, "longtype()": 64, "byte": 8, "short": 16, "int": 32, "long": 64,
    }.get(text)  # fmt: skip


def _is_bool(dtype: str) -> bool:
    return dtype.lower() in ("boolean", "bool", "booleantype()")


def column_plan(
    dtypes: dict[str, str], null_counts: dict[str, int], distinct: Any
) -> list[ColumnHash]:
    """How each column is hashed. ``distinct(name)`` returns the column's distinct values
    as a pandas Series converted as the engine converts to pandas, with the native
    distinct frame, or None when they number more than :data:`MAX_MAPPED`."""
    plan = []
    for name, dtype in dtypes.items():
        bits = _int_bits(dtype)
        if null_counts.get(name, 0) == 0 and bits is not None:
            plan.append(ColumnHash(name, "int", bits))
        elif null_counts.get(name, 0) == 0 and _is_bool(dtype):
            plan.append(ColumnHash(name, "bool"))
        else:
            got = distinct(name)
            if got is None:
                plan.append(ColumnHash(name, "native"))
            else:
                series, native = got
                try:
                    hashed = pd.util.hash_pandas_object(series, index=False).to_numpy(np.uint64)
                except TypeError:  # values pandas cannot hash: left out as pandas does
                    continue
                plan.append(ColumnHash(name, "mapped", table=(native, hashed)))
    return plan


class EngineKeys:
    """The key arithmetic of one engine; subclasses say how each step is written.

    ``frame`` is the engine's native frame; the methods return new native frames.
    """

    def __init__(self, frame: Any) -> None:
        self.frame = frame

    # engine specific -------------------------------------------------------------
    def set_const(self, name: str, value: int) -> None:
        raise NotImplementedError

    def step(self, name: str, op: str, arg: Any) -> None:
        raise NotImplementedError

    def column_bits(self, target: str, col: ColumnHash) -> None:
        """``target`` := the column's 64-bit value before the finaliser (int, bool), its
        pandas hash (mapped) or the engine's hash (native)."""
        raise NotImplementedError

    def set_where(self, name: str, where: str | None) -> None:
        """``name`` ^= GOLDEN where the record is chosen (every record for None)."""
        raise NotImplementedError

    def occurrence(self, name: str) -> bool:
        """Add each record's number among equal keys (times a constant) when any key
        repeats; whether one did."""
        raise NotImplementedError

    def uniform(self, name: str, out: str) -> None:
        """``out`` := (``name`` >> 11) * 2^-53 as a double."""
        raise NotImplementedError

    def drop(self, names: Sequence[str]) -> None:
        raise NotImplementedError

    # shared -------------------------------------------------------------------------
    def steps(self, name: str, ops: list[tuple[str, Any]]) -> None:
        for op, arg in ops:
            self.step(name, op, arg)

    def record_keys(self, columns: list[ColumnHash], where: str | None) -> None:
        """Column :data:`KEY` := :func:`microsdc.data.rowkeys.record_keys` of the rows."""
        self.set_const(KEY, _START)
        for col in columns:
            self.column_bits(_H, col)
            if col.kind in ("int", "bool"):
                self.steps(_H, _finaliser())
            self.step(KEY, "mul", _MUL)
            self.step(KEY, "xorcol", _H)
            self.steps(KEY, _mix64())
        if columns:
            self.drop([_H])
        self.set_where(KEY, where)
        if self.occurrence(KEY):
            self.steps(KEY, _mix64())

    def key_uniform(self, salt: int, out: str) -> None:
        """Column ``out`` := :func:`microsdc.data.rowkeys.key_uniforms` of :data:`KEY`
        under ``salt`` (the draw from the Generator)."""
        tmp = out + "_z"
        self.step_copy(tmp, KEY)
        self.step(tmp, "xor", (2 * salt + 1) & _MASK)
        self.steps(tmp, _mix64())
        self.uniform(tmp, out)
        self.drop([tmp])

    def step_copy(self, target: str, source: str) -> None:
        raise NotImplementedError


__all__ += ["KEY", "ColumnHash"]
