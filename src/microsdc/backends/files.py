"""Files an engine reads and writes: a Parquet folder or glob, a CSV, a DuckDB table.

Shared by the command line (``--engine``) and job files (``[input] engine``):
which files an input reads, where the output may go (never over or into the
input), the partition columns and schemas of Parquet files. How the engine opens
the input and writes Parquet is :mod:`microsdc.io.engines`.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from typing import Any

from microsdc.exceptions import InvalidParameterError

__all__ = [
    "ENGINES",
    "NA_VALUES",
    "check_output_location",
    "check_parquet_schemas",
    "hive_columns",
    "input_files",
    "is_database",
    "is_pattern",
]


#: Engines that can hold the rows of an input too big for memory
#: (:func:`microsdc.io.engines.scan`).
ENGINES = ("duckdb", "polars")


#: The texts a CSV cell reads as missing, on every engine: the empty field only, as
#: the default reader (:data:`microsdc.io.NA_TEXTS`), so that an engine counts the same
#: fk. "NA" or "NULL" are values unless declared missing.
NA_VALUES = ("",)


def is_pattern(path: str) -> bool:
    """Whether ``path`` is a glob pattern (``*``, ``?`` or ``[``)."""
    return any(ch in path for ch in "*?[")


def is_database(path: str) -> bool:
    """Whether ``path`` names a DuckDB database file (``.duckdb`` or ``.db``)."""
    return path.lower().endswith((".duckdb", ".db"))


#: Suffixes of compressed files, and the name of their compression.
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zip": "zip", ".zst": "zstd"}


def csv_kind(path: str) -> tuple[bool, bool, str | None]:
    """Whether ``path`` names a CSV file (``.csv``, ``.txt`` or ``.tsv``, optionally
    compressed), whether it is tab-separated (``.tsv``), and the suffix of its
    compression (a key of :data:`COMPRESSIONS`; None)."""
    lower = path.lower()
    compression = next((s for s in COMPRESSIONS if lower.endswith(s)), None)
    if compression is not None:
        lower = lower[: -len(compression)]
    return lower.endswith((".csv", ".txt", ".tsv")), lower.endswith(".tsv"), compression


def database_tables(path: str) -> str:
    """The tables of a DuckDB database file, as a phrase for a message ("its tables:
    'a', 'b'", "it holds no table", or "" when the file cannot be opened)."""
    try:
        import duckdb

        con = duckdb.connect(path, read_only=True)
    except Exception:  # DuckDB missing, or not a database: the caller says what is wrong
        return ""
    try:
        names = sorted(
            str(name) if schema == "main" else f"{schema}.{name}"
            for schema, name in con.execute(
                "SELECT table_schema, table_name FROM information_schema.tables "
                "WHERE table_catalog = current_database()"
            ).fetchall()
        )
    except Exception:
        return ""
    finally:
        con.close()
    if not names:
        return "it holds no table"
    shown = ", ".join(repr(n) for n in names[:20])
    return f"its tables: {shown}{' ...' if len(names) > 20 else ''}"


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
    if is_pattern(source):
        base, rest = _split_pattern(source)
        root = os.path.realpath(base)
        if os.path.commonpath([root, target]) == root and (
            "**" in rest or _matches(os.path.relpath(target, root), rest)
        ):
            raise InvalidParameterError(
                f"{what} would be read by the input pattern {source} (it lies in "
                f"{base or '.'}): write it elsewhere, so that it does not join the data set "
                "the next time the pattern is read"
            )


def _split_pattern(pattern: str) -> tuple[str, str]:
    """The folder a glob starts from (its leading parts without wildcards) and the rest."""
    parts = pattern.split(os.sep)
    i = next(j for j, part in enumerate(parts) if is_pattern(part))
    base = os.sep.join(parts[:i]) or (os.sep if pattern.startswith(os.sep) else "")
    return base, os.sep.join(parts[i:])


def _matches(relative: str, pattern: str) -> bool:
    """Whether a path matches a glob without ``**``, part by part (as :func:`glob.glob`)."""
    names, parts = relative.split(os.sep), pattern.split(os.sep)
    return len(names) == len(parts) and all(
        fnmatch.fnmatchcase(n, p) for n, p in zip(names, parts, strict=True)
    )


def parquet_files(path: str) -> list[str]:
    """The Parquet files a folder or glob argument reads (the engines read ``*.parquet``
    below a folder), in name order."""
    if os.path.isdir(path):
        found = [f for f in input_files(path) if f.lower().endswith(".parquet")]
    else:
        found = [f for f in input_files(path) if os.path.isfile(f)]
    return sorted(found)


def hive_base(path: str) -> str | None:
    """The folder below which ``key=value`` folders are partition columns: the folder
    given, or the leading part of a glob without wildcards; None for a single file."""
    if os.path.isdir(path):
        return path
    if is_pattern(path):
        return _split_pattern(path)[0] or os.curdir
    return None


def _hive_parts(file: str, base: str) -> list[tuple[str, str]]:
    """The ``(key, value)`` folders between ``base`` and ``file``, outermost first."""
    rel = os.path.relpath(os.path.dirname(file), base)
    parts = [] if rel == os.curdir else rel.split(os.sep)
    pairs = [p.partition("=") for p in parts if "=" in p and not p.startswith("=")]
    return [(key, value) for key, _, value in pairs]


def hive_columns(path: str) -> list[str]:
    """The partition columns of a Parquet folder or glob (Hive layout, ``year=2020/``).

    They are columns of the data, as :func:`pandas.read_parquet` (pyarrow) shows
    them when it reads the folder: the ``key=value`` folders between
    :func:`hive_base` and each file, outermost first, after the files' columns
    (a value ``__HIVE_DEFAULT_PARTITION__`` is missing). A folder such as
    ``year=2020`` given itself, or in the fixed part of a glob, is not one (as
    pandas reads ``year=2020/``). A single file has none.

    Raises
    ------
    InvalidParameterError
        If two files lie below different partition folders (``year=`` and
        ``year=/month=``, or one not partitioned), or a partition column is also a
        column of the files (both named).
    """
    base = hive_base(path)
    if base is None:
        return []
    files = parquet_files(path)
    if not files:
        return []
    first = [k for k, _ in _hive_parts(files[0], base)]
    for f in files[1:]:
        keys = [k for k, _ in _hive_parts(f, base)]
        if keys != first:
            shown = [
                " / ".join(f"{k}=" for k in ks) or "no partition folder" for ks in (first, keys)
            ]
            raise InvalidParameterError(
                f"the Parquet files lie below different partition folders: {files[0]} below "
                f"{shown[0]}, {f} below {shown[1]}; give files with the same partition folders"
            )
    if first:
        import pyarrow.parquet as pq

        both = [k for k in first if k in set(pq.read_schema(files[0]).names)]
        if both:
            raise InvalidParameterError(
                f"the partition folder {both[0]}= of {files[0]} names a column the file also "
                "holds; rename the folder or the column"
            )
    return first


def check_parquet_schemas(path: str) -> None:
    """Before any row is read: a Parquet folder or glob holds files, all with the same
    columns of the same types (read from the files' metadata only).

    Raises
    ------
    InvalidParameterError
        If the folder or glob holds no Parquet file, a file is not Parquet (a
        single file too), or two files differ in a column or its type (both
        files and the column are named).
    """
    if os.path.isdir(path) or is_pattern(path):
        files = parquet_files(path)
        if not files:
            where = f"the folder {path}" if os.path.isdir(path) else f"the pattern {path}"
            raise InvalidParameterError(f"{where} holds no Parquet file (*.parquet)")
    else:
        files = [path]
    import pyarrow.parquet as pq

    def schema(f: str) -> Any:
        try:
            return pq.read_schema(f)
        except Exception as exc:
            raise InvalidParameterError(
                f"{f} is not a Parquet file that can be read ({type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''})"
            ) from exc

    first = schema(files[0])
    if len(files) == 1:
        return
    types = {name: first.field(name).type for name in first.names}
    for f in files[1:]:
        other = schema(f)
        if other.names == first.names and other.equals(first, check_metadata=False):
            continue
        for name in first.names:
            if name not in other.names:
                raise InvalidParameterError(
                    f"the Parquet files differ in their columns: {files[0]} has the column "
                    f"{name!r}, {f} has not; give files with the same columns"
                )
        for name in other.names:
            if name not in types:
                raise InvalidParameterError(
                    f"the Parquet files differ in their columns: {f} has the column {name!r}, "
                    f"{files[0]} has not; give files with the same columns"
                )
            if other.field(name).type != types[name]:
                raise InvalidParameterError(
                    f"the Parquet files differ in the type of the column {name!r}: "
                    f"{types[name]} in {files[0]}, {other.field(name).type} in {f}; give "
                    "files with the same column types"
                )
