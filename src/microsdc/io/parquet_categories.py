"""Band columns an engine wrote as text, given the Parquet type pandas writes for them.

A column binned in memory is a pandas ordered categorical, which pyarrow writes as
``dictionary<values=string, indices=int8, ordered=1>`` (wider indices for more
categories). DuckDB and polars write the same labels as plain text; the file an
engine wrote is copied, row group by row group (streaming), with those columns as
that dictionary type, so that a reader gets the same column whichever engine ran.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["category_type", "write_with_categories"]

#: Rows of one batch of the copy: memory stays bounded whatever the file's size.
_BATCH_ROWS = 65_536


def category_type(n_categories: int) -> Any:
    """The Arrow type pyarrow gives a pandas ordered categorical of ``n_categories``
    text categories: its codes are int8 below 127 categories, int16 below 32,767,
    int32 below 2,147,483,647 (pandas' smallest signed integer that holds them)."""
    import pyarrow as pa

    index = pa.int64()
    for bits, kind in ((8, pa.int8()), (16, pa.int16()), (32, pa.int32())):
        if n_categories < 2 ** (bits - 1) - 1:
            index = kind
            break
    return pa.dictionary(index, pa.string(), ordered=True)


def write_with_categories(
    source: str, target: str, categories: Mapping[str, Sequence[str]], n_extra: int = 0
) -> None:
    """Copy the Parquet file ``source`` to ``target``, each column of ``categories`` as an
    ordered dictionary of its labels (in their order), as pandas writes it.

    Values of a column that are not among its labels (declared missing codes kept as
    written; at most ``n_extra`` of them) follow the labels in the dictionary, in
    sorted order, as :func:`~microsdc.recoding.bin_numeric` puts them after the bands.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    with pq.ParquetFile(source) as file:
        schema = file.schema_arrow
        types = {c: category_type(len(labels) + n_extra) for c, labels in categories.items()}
        fields = [pa.field(f.name, types.get(f.name, f.type), f.nullable) for f in schema]
        out_schema = pa.schema(fields)
        with pq.ParquetWriter(target, out_schema) as writer:
            for batch in file.iter_batches(batch_size=_BATCH_ROWS):
                columns = []
                for name, column in zip(batch.schema.names, batch.columns, strict=True):
                    if name in types:
                        column = _encoded(column.cast(pa.string()), categories[name], types[name])
                    columns.append(column)
                writer.write_batch(pa.RecordBatch.from_arrays(columns, schema=out_schema))


def _encoded(values: Any, labels: Sequence[str], kind: Any) -> Any:
    """``values`` (Arrow text) as a dictionary array of type ``kind`` over ``labels``
    and, after them, the other values it holds (sorted)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    known = pa.array(list(labels), pa.string())
    present = pc.unique(values.drop_null())
    extra = pc.filter(present, pc.invert(pc.is_in(present, value_set=known)))
    dictionary = pa.array([*labels, *sorted(extra.to_pylist())], pa.string())
    indices = pc.index_in(values, value_set=dictionary)  # null stays null
    return pa.DictionaryArray.from_arrays(indices.cast(kind.index_type), dictionary, ordered=True)
