"""The frames of a result computed in pandas, back as the caller's polars or pyarrow kind.

Local suppression, record swapping and the record-level risk measures work on
a pandas frame; a polars ``DataFrame`` or pyarrow ``Table`` is converted to pandas
for them (:mod:`microsdc.backends.dispatch`). :func:`as_kind_of` turns the frames of
the result (a returned frame, frames in a returned tuple, the ``data`` of a result
object) back into the caller's kind, with the caller's column types where the
values allow (an integer column with blanked cells stays an integer column with
nulls).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pandas as pd

__all__ = ["as_kind_of"]


def as_kind_of(value: Any, native: Any, given: pd.DataFrame) -> Any:
    """Convert pandas frames inside ``value`` to the kind of ``native`` (``given`` is
    the pandas form of ``native`` the function was called with)."""
    if isinstance(value, pd.DataFrame):
        return _frame_back(value, native, given)
    if isinstance(value, tuple):
        return tuple(as_kind_of(v, native, given) for v in value)
    if (
        dataclasses.is_dataclass(value)
        and not isinstance(value, type)
        and isinstance(getattr(value, "data", None), pd.DataFrame)
    ):  # a result object: its released data come back as the caller's kind
        data = _frame_back(value.data, native, given)  # type: ignore[attr-defined]
        return dataclasses.replace(value, data=data)
    return value


def _unchanged(out: pd.Series, given: pd.Series) -> bool:
    """Whether a result column holds the values it was given, in the same rows (NaN
    equal to NaN; values that cannot be compared, such as arrays, by identity)."""
    if len(out) != len(given) or out.dtype != given.dtype:
        return False
    try:
        return bool(out.reset_index(drop=True).equals(given.reset_index(drop=True)))
    except (TypeError, ValueError):
        return all(a is b for a, b in zip(out, given, strict=True))


def _frame_back(df: pd.DataFrame, native: Any, given: pd.DataFrame) -> Any:
    """``df`` as a frame of the kind of ``native``. A column the function left as it was
    is taken from ``native`` itself, so it comes back untouched: the way through pandas
    would turn a polars or pyarrow NaN into a null and cannot carry every type (lists,
    structs, large integers) back.

    A frame that holds every column of the input is the caller's data (cells blanked,
    swapped or PRAMmed): its other columns take the caller's types where the values
    allow, except that numbers the function put in place of texts (new household ids)
    stay numbers: cast to text, they would sort as texts. Any other frame holds
    figures about the data (the l-diversity of each sensitive column, under that
    column's name) and keeps the types of its figures: cast to the described column's
    type, an entropy of 2.99 would become the integer 2 or the text "2.99"."""
    import narwhals as nw

    nwf = nw.from_native(native, eager_only=True)
    out = df.reset_index(drop=True)
    out.columns = pd.Index([str(c) for c in out.columns], dtype=object)
    names = set(nwf.columns)
    same = [
        c for c in out.columns if c in names and c in given.columns and _unchanged(out[c], given[c])
    ]
    released = {str(c) for c in given.columns} <= set(out.columns)
    if nwf.implementation is nw.Implementation.POLARS:
        import polars as pl

        text_types = (pl.String, pl.Categorical, pl.Enum)
        frame = pl.from_pandas(out.drop(columns=same))
        schema = native.schema if released else {}
        casts = {
            c: schema[c]
            for c in frame.columns
            if c in schema
            and frame[c].dtype != schema[c]
            and not (frame[c].dtype.is_numeric() and schema[c] in text_types)
        }
        if casts:
            try:
                frame = frame.cast(casts)  # type: ignore[arg-type]
            except Exception:
                pass
        frame = frame.with_columns(native.select(same)) if same else frame
        return frame.select([str(c) for c in out.columns])
    import pyarrow as pa

    table = pa.Table.from_pandas(out.drop(columns=same), preserve_index=False)
    fields = []
    for field in table.schema:
        idx = native.schema.get_field_index(field.name) if released else -1
        kept = idx < 0 or (_numeric(field.type) and _textual(native.schema.field(idx).type))
        fields.append(field if kept else native.schema.field(idx))
    try:
        table = table.cast(pa.schema(fields))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    columns = {name: table.column(name) for name in table.column_names}
    columns.update({c: native.column(c) for c in same})
    return pa.table([columns[c] for c in out.columns], names=list(out.columns))


def _numeric(kind: Any) -> bool:
    """Whether the pyarrow type ``kind`` holds numbers."""
    import pyarrow as pa

    return bool(pa.types.is_integer(kind) or pa.types.is_floating(kind))


def _textual(kind: Any) -> bool:
    """Whether the pyarrow type ``kind`` holds texts (or text categories)."""
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))
