"""Functions that need the rows in memory, on polars and pyarrow frames.

Local suppression, record swapping and the record-level risk measures work on
a pandas frame. :func:`in_memory` lets them take a polars ``DataFrame`` or a
pyarrow ``Table`` as well: the frame is converted to pandas, the function runs,
and the frames of the result (a returned frame, frames in a returned tuple, the
``data`` of a result object) come back as the caller's kind, with the
caller's column types where the values allow (an integer column with blanked
cells stays an integer column with nulls).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, TypeVar

import pandas as pd

from microsdc.backends import detect_backend
from microsdc.exceptions import InvalidParameterError

__all__ = ["in_memory"]

F = TypeVar("F", bound=Callable[..., Any])


def _back(value: Any, native: Any) -> Any:
    """Convert pandas frames inside ``value`` to the kind of ``native``."""
    if isinstance(value, pd.DataFrame):
        return _frame_back(value, native)
    if isinstance(value, tuple):
        return tuple(_back(v, native) for v in value)
    if (
        dataclasses.is_dataclass(value)
        and not isinstance(value, type)
        and isinstance(getattr(value, "data", None), pd.DataFrame)
    ):  # a result object: its released data come back as the caller's kind
        return dataclasses.replace(value, data=_frame_back(value.data, native))  # type: ignore[attr-defined]
    return value


def _frame_back(df: pd.DataFrame, native: Any) -> Any:
    import narwhals as nw

    nwf = nw.from_native(native, eager_only=True)
    out = df.reset_index(drop=True)
    out.columns = pd.Index([str(c) for c in out.columns], dtype=object)
    if nwf.implementation is nw.Implementation.POLARS:
        import polars as pl

        frame = pl.from_pandas(out)
        schema = native.schema
        casts = {c: schema[c] for c in frame.columns if c in schema and frame[c].dtype != schema[c]}
        if casts:
            try:
                frame = frame.cast(casts)  # type: ignore[arg-type]
            except Exception:
                pass
        return frame
    import pyarrow as pa

    table = pa.Table.from_pandas(out, preserve_index=False)
    fields = []
    for field in table.schema:
        idx = native.schema.get_field_index(field.name)
        fields.append(native.schema.field(idx) if idx >= 0 else field)
    try:
        return table.cast(pa.schema(fields))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return table


def in_memory(func: F) -> F:
    """Let ``func(df, ...)`` take a polars DataFrame or pyarrow Table as ``df``.

    Lazy frames (polars ``LazyFrame``, DuckDB relations) are refused with a
    message that says how to materialise them.
    """

    import inspect

    param = next(iter(inspect.signature(func).parameters))

    @functools.wraps(func)
    def wrapper(df: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(df, pd.DataFrame):
            return func(df, *args, **kwargs)
        backend = detect_backend(df, func.__name__, param)
        if backend.lazy:
            raise InvalidParameterError(
                f"{func.__name__} needs the rows in memory; got a lazy {backend.name} frame. "
                "Collect it first (polars: .collect(); DuckDB: .pl() or .df())."
            )
        import narwhals as nw

        pdf = nw.from_native(df, eager_only=True).to_pandas()
        return _back(func(pdf, *args, **kwargs), df)

    return wrapper  # type: ignore[return-value]
