"""A Parquet float column's NaN kept apart from its nulls, from reading to writing.

Parquet (Arrow) tells a float NaN from a null; a pandas float column holds both as
NaN, and writing it back makes every NaN a null. :func:`read_parquet` notes, per
float column, the row labels of the cells that were NaN (not null), and
:func:`write_parquet` writes NaN again in those cells that are still missing, so a
column microsdc does not change comes back as it was. Counting is not affected:
both are missing there.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["NAN_CELLS", "read_parquet", "write_parquet"]

#: Key of ``DataFrame.attrs``: {column: row labels of the cells read as NaN, not null}.
NAN_CELLS = "microsdc_parquet_nan"


def read_parquet(path: Path, columns: list[str] | None, kwargs: dict[str, Any]) -> pd.DataFrame:
    """``pandas.read_parquet``, with the NaN cells of float columns noted by row label
    (when no reader options could change the rows)."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    df = pd.read_parquet(path, columns=columns, **kwargs)
    if kwargs:
        return df
    schema = pq.read_schema(path)
    floats = [
        f.name
        for f in schema
        if pa.types.is_floating(f.type) and (columns is None or f.name in columns)
    ]
    if not floats:
        return df
    table = pq.read_table(path, columns=floats)
    notes = {}
    for name in floats:
        nan = pc.fill_null(pc.is_nan(table.column(name)), False).to_numpy(zero_copy_only=False)
        if nan.any() and name in df.columns:
            notes[name] = df.index[nan].tolist()
    if notes:
        df.attrs[NAN_CELLS] = notes
    return df


def write_parquet(df: pd.DataFrame, tmp: str) -> None:
    """``df.to_parquet``; the noted NaN cells still missing are written as NaN."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    notes = df.attrs.get(NAN_CELLS) or {}
    notes = {c: labels for c, labels in notes.items() if c in df.columns}
    if NAN_CELLS in df.attrs:  # the notes are not data: not into the file's metadata
        df = df.copy(deep=False)
        df.attrs = {k: v for k, v in df.attrs.items() if k != NAN_CELLS}
    if not notes or not df.index.is_unique:
        df.to_parquet(tmp, index=False)
        return
    table = pa.Table.from_pandas(df, preserve_index=False)
    for name, labels in notes.items():
        col = table.column(name)
        if not pa.types.is_floating(col.type):
            continue
        rows = df.index.get_indexer(labels)
        mark = np.zeros(len(df), dtype=bool)
        mark[rows[rows >= 0]] = True
        put = pa.array(mark) if len(df) else pa.array([], type=pa.bool_())
        fixed = pc.if_else(pc.and_(put, pc.is_null(col)), pa.scalar(float("nan"), col.type), col)
        table = table.set_column(table.schema.get_field_index(name), name, fixed)
    pq.write_table(table, tmp)
