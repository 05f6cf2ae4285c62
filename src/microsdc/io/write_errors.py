"""A writer library's refusal turned into an error that names the column and the fix.

pyarrow, pandas' Stata writer and pyreadstat refuse values they cannot store with
their own exceptions (``ArrowInvalid: Could not convert 'other' with type str``,
``ValueError: Column `x` cannot be exported``). :func:`write_failure` finds the
column behind it (an object column mixing kinds of values, such as numbers and
text) and says what to do; anything else becomes an
:class:`~microsdc.exceptions.OutputError` carrying the library's message.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

from microsdc.exceptions import DataValidationError, OutputError, SDCError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["mixed_columns", "write_failure"]

_MIXED = frozenset({"mixed", "mixed-integer", "mixed-integer-float"})
_FORMAT_NAMES = {"parquet": "Parquet", "spss": "SPSS", "stata": "Stata"}


def mixed_columns(df: pd.DataFrame) -> list[tuple[Hashable, str]]:
    """Object columns whose values are of more than one kind (numbers and text, say),
    each with one value of each kind: ``[("x", "int 1, str 'other'")]``."""
    import pandas as pd

    out: list[tuple[Hashable, str]] = []
    for name in df.columns:
        col = df[name]
        if col.dtype != object:
            continue
        kind = pd.api.types.infer_dtype(col, skipna=True)
        if kind not in _MIXED and not (kind == "string" and col.map(type).nunique() > 1):
            continue
        examples: dict[str, object] = {}
        for v in col.dropna():
            examples.setdefault(type(v).__name__, v)
            if len(examples) == 3:
                break
        if len(examples) > 1:
            shown = ", ".join(f"{t} {v!r}" for t, v in examples.items())
            out.append((name, shown))
    return out


def write_failure(df: pd.DataFrame, name: str, fmt: str, exc: Exception) -> Exception:
    """The error to raise for ``exc``, raised by the library writing ``df`` as ``fmt``
    to the file ``name``: our own errors and OS errors as they are, a column of mixed
    kinds as a :class:`DataValidationError` naming it, else an :class:`OutputError`."""
    if isinstance(exc, SDCError | OSError | MemoryError):
        return exc
    label = _FORMAT_NAMES.get(fmt, fmt)
    mixed = mixed_columns(df)
    if mixed:
        cols = "; ".join(f"column {c!r} mixes {shown}" for c, shown in mixed)
        first = mixed[0][0]
        return DataValidationError(
            f"Cannot write {name} as {label}: {cols}. A {label} column holds values of one "
            f"type. Make the column one type first: text (df[{first!r}] = "
            f"df[{first!r}].astype(str)) or numbers (merge_rare_categories with a numeric "
            "other_label, the default for numeric codes).",
            failure_cases=[c for c, _ in mixed],
            func="write_table",
        )
    return OutputError(f"Cannot write {name} as {label}: {exc}", func="write_table")
