"""Files read and written by an engine: a Parquet folder or glob, a CSV, a DuckDB table.

Shared by the command line (``--engine``) and job files (``[input] engine``):
which files an input reads, where the output may go (never over or into the
input), how the engine opens the input lazily and writes Parquet (streaming).
"""

from __future__ import annotations

import glob
import os
from typing import Any

from microsdc.exceptions import InvalidParameterError

__all__ = [
    "check_output_location",
    "input_files",
    "is_database",
    "is_pattern",
    "scan",
    "write_parquet",
]


def is_pattern(path: str) -> bool:
    """Whether ``path`` is a glob pattern (``*``, ``?`` or ``[``)."""
    return any(ch in path for ch in "*?[")


def is_database(path: str) -> bool:
    """Whether ``path`` names a DuckDB database file (``.duckdb`` or ``.db``)."""
    return path.lower().endswith((".duckdb", ".db"))


def parquet_source(path: str) -> str:
    """What the engine scans for ``path``: every Parquet file below a folder, else ``path``."""
    if os.path.isdir(path):
        return os.path.join(path, "**", "*.parquet")
    return path


def input_files(path: str) -> list[str]:
    """The files a folder, glob or file argument reads."""
    if os.path.isdir(path):
        return [os.path.join(root, f) for root, _, files in os.walk(path) for f in files]
    if is_pattern(path):
        return glob.glob(path, recursive=True)
    return [path]


def check_output_location(out: str, source: str, what: str) -> None:
    """Refuse an output file that is not Parquet, is one of the input files, or lies inside
    the input folder (it would join the data set the next time the folder is read).

    Parameters
    ----------
    out : str
        The output file.
    source : str
        The input: a file, a folder or a glob.
    what : str
        How messages name the output (e.g. ``"--out safe.parquet"``).

    Raises
    ------
    InvalidParameterError
        With a message that starts with ``what``.
    """
    if not out.lower().endswith(".parquet"):
        raise InvalidParameterError(f"{what} must be a .parquet file (an engine writes Parquet)")
    target = os.path.realpath(out)
    if os.path.isdir(source):
        folder = os.path.realpath(source)
        if os.path.commonpath([folder, target]) == folder:
            raise InvalidParameterError(
                f"{what} is inside the input folder {source}: write it elsewhere, so that "
                "the original data are kept and the output does not join them"
            )
    for f in input_files(source):
        if os.path.realpath(f) == target:
            raise InvalidParameterError(
                f"{what} is one of the input files: write the result to a new file, so "
                "that the original is kept"
            )


def scan(path: str, engine: str, table: str | None) -> Any:
    """A lazy frame over ``path``: a polars ``LazyFrame`` or a DuckDB relation.

    ``path`` exists (checked by the caller); a DuckDB database needs ``table``
    and ``engine="duckdb"`` (checked by the caller, who names its options).

    Raises
    ------
    InvalidParameterError
        If the engine is not installed (the message gives the extra to
        install) or the database holds no such table.
    """
    from microsdc.backends import install_hint

    lower = path.lower()
    if engine == "duckdb":
        try:
            import duckdb
        except ImportError as exc:
            raise InvalidParameterError(
                f"the duckdb engine needs DuckDB: {install_hint('duckdb')}"
            ) from exc
        if is_database(path):
            con = duckdb.connect(path, read_only=True)
            try:
                return con.table(str(table))
            except duckdb.Error as exc:
                raise InvalidParameterError(f"no table {table!r} in {path}") from exc
        if lower.endswith(".csv"):
            return duckdb.read_csv(path)
        return duckdb.read_parquet(parquet_source(path), hive_partitioning=os.path.isdir(path))
    try:
        import polars as pl
    except ImportError as exc:
        raise InvalidParameterError(
            f"the polars engine needs polars: {install_hint('polars')}"
        ) from exc
    if lower.endswith(".csv"):
        return pl.scan_csv(path)
    return pl.scan_parquet(parquet_source(path))


def write_parquet(frame: Any, out: str) -> None:
    """Write a lazy frame to Parquet by its own engine (streaming), through ``out.partial``
    renamed into place."""
    tmp = out + ".partial"
    if hasattr(frame, "sink_parquet"):
        frame.sink_parquet(tmp)
    elif hasattr(frame, "write_parquet"):
        frame.write_parquet(tmp)
    else:
        _write_spark(frame, tmp)
    os.replace(tmp, out)


def _write_spark(frame: Any, path: str) -> None:
    """Spark writes a folder of part files, in parallel; they are copied into the one
    file ``path`` row group by row group (streaming), as the other engines write it."""
    import shutil

    import pyarrow.parquet as pq

    folder = path + ".parts"
    frame.write.mode("overwrite").parquet(folder)
    try:
        parts = sorted(glob.glob(os.path.join(folder, "part-*.parquet")))
        schema = pq.read_schema(parts[0])
        with pq.ParquetWriter(path, schema) as writer:
            for part in parts:
                with pq.ParquetFile(part) as source:
                    for i in range(source.num_row_groups):
                        writer.write_table(source.read_row_group(i))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
