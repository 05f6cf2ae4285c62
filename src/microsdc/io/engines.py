"""Files opened and written by a lazy engine (polars, DuckDB, Spark).

Shared by the command line (``--engine``) and job files (``[input] engine``): how
the engine opens an input lazily (:func:`scan`), after the checks the pandas reader
makes of a CSV file (encoding, header line, blank lines), with the same text types
(:func:`csv_text_types`), and how it writes Parquet (streaming,
:func:`write_parquet`). Which files an input reads and where the output may go are
in :mod:`microsdc.backends.files`.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from microsdc._validation import text_encoding_problem
from microsdc.backends import install_hint
from microsdc.backends.files import (
    COMPRESSIONS,
    NA_VALUES,
    check_parquet_schemas,
    csv_kind,
    database_tables,
    hive_columns,
    is_database,
    is_pattern,
    parquet_files,
    parquet_source,
)
from microsdc.exceptions import DataValidationError, InvalidParameterError
from microsdc.io.csv import (
    check_csv_header,
    file_separator,
    first_undecodable,
    has_blank_lines,
    likely_encoding,
    utf16_without_bom,
)
from microsdc.io.formats import COMPRESSED
from microsdc.io.text_types import _DECIMAL_TEXT, _EXPONENT_TEXT, _INT_TEXT

__all__ = [
    "DUCKDB_ENCODINGS",
    "check_csv_options",
    "check_records",
    "csv_text_types",
    "keep_partitions",
    "scan",
    "write_parquet",
]


#: The CSV encodings DuckDB's ``read_csv`` reads without an extension (its names), by
#: the name Python's :mod:`codecs` gives them. ``encodings``, DuckDB's extension for the
#: others, is downloaded on first use, which an engine here never does.
#: Compressions (by suffix) DuckDB's CSV reader undoes that microsdc's own checks of
#: the file (encoding, header) can read too.
DUCKDB_COMPRESSIONS = (".gz",)


DUCKDB_ENCODINGS = {
    "utf-8": "utf-8",
    "utf-8-sig": "utf-8",
    "iso8859-1": "latin-1",
    "utf-16": "utf-16",
    "utf-16-le": "utf-16",
}


_CONVERT = (
    "convert the file to Parquet or to UTF-8 first (e.g. with pandas: pd.read_csv(path, "
    "encoding={enc!r}).to_parquet('data.parquet')), or leave out the engine"
)


def check_csv_options(encoding: str | None, engine: str, what: str = "--encoding") -> str:
    """The encoding in which ``engine`` reads a CSV file, by DuckDB's name for it.

    polars reads UTF-8 only (its ``utf8-lossy`` replaces what is not UTF-8 by
    U+FFFD, which would merge distinct values and change fk); DuckDB reads
    UTF-8, latin-1 (ISO-8859-1) and UTF-16 little-endian. Names are compared
    as Python knows them (``latin1``, ``ISO-8859-1`` and ``l1`` are latin-1;
    ``utf-8-sig`` is UTF-8, whose byte-order mark both engines skip).

    Parameters
    ----------
    encoding : str or None
        The encoding given (None: UTF-8).
    engine : str
        ``"duckdb"``, ``"polars"`` or ``"spark"``.
    what : str, default "--encoding"
        How messages name the option.

    Returns
    -------
    str
        ``"utf-8"``, ``"latin-1"`` or ``"utf-16"``.

    Raises
    ------
    InvalidParameterError
        If ``encoding`` is unknown, or ``engine`` cannot read it (the message
        says which engine can, if one can).
    """
    import codecs

    if encoding is None:
        return "utf-8"
    problem = text_encoding_problem(encoding)
    if problem is not None:
        raise InvalidParameterError(f"{what} {encoding}: {problem}")
    name = codecs.lookup(encoding).name
    duck = DUCKDB_ENCODINGS.get(name)
    if duck == "utf-8" or (engine == "duckdb" and duck is not None):
        return str(duck)
    if duck is not None:
        raise InvalidParameterError(
            f"{what} {encoding}: the {engine} engine reads CSV as UTF-8 only (polars' "
            "'utf8-lossy' would replace every other character by one sign and merge distinct "
            f"values): use the duckdb engine, which reads {encoding}, or "
            + _CONVERT.format(enc=encoding)
        )
    raise InvalidParameterError(
        f"{what} {encoding}: the duckdb engine reads CSV in UTF-8, latin-1 (ISO-8859-1) and "
        "UTF-16 little-endian only, the polars engine in UTF-8 only; "
        + _CONVERT.format(enc=encoding)
    )


def check_utf16_side(path: str, charset: str, engine: str) -> None:
    """Refuse a CSV file that is UTF-16 without a byte-order mark when the engine
    would read it otherwise: as UTF-8 or latin-1 (its zero bytes would become
    characters of the names and values), or, big-endian, as UTF-16 (DuckDB reads
    little-endian only).

    Raises
    ------
    InvalidParameterError
        Saying what the file looks like and what to do.
    """
    found = utf16_without_bom(Path(path))
    if found is None or (charset == "utf-16" and found == "utf-16-le"):
        return
    side = "little" if found == "utf-16-le" else "big"
    if found == "utf-16-le" and engine == "duckdb":
        what = (
            "give --encoding utf-16-le (input.encoding in a job file), which the duckdb "
            "engine reads"
        )
    elif charset == "utf-16":
        what = "the duckdb engine reads UTF-16 little-endian only; " + _CONVERT.format(enc=found)
    else:
        what = _CONVERT.format(enc=found)
    raise InvalidParameterError(
        f"{path} looks like UTF-16 text ({side}-endian) without a byte-order mark, not "
        f"{charset}: {what}"
    )


def check_utf16(path: str) -> None:
    """A CSV file DuckDB reads as UTF-16 is little-endian (DuckDB reads a big-endian file
    as other characters, without an error).

    Raises
    ------
    InvalidParameterError
        If the file starts with the big-endian byte-order mark.
    """
    with open(path, "rb") as fh:
        if fh.read(2) == b"\xfe\xff":
            raise InvalidParameterError(
                f"{path} is UTF-16 big-endian (it starts with the byte-order mark FE FF): the "
                "duckdb engine reads UTF-16 little-endian only; " + _CONVERT.format(enc="utf-16")
            )


def check_utf8(path: str) -> None:
    """A CSV file an engine reads is UTF-8 (read once, in chunks of 1 MiB).

    Raises
    ------
    InvalidParameterError
        Naming the first byte that is not UTF-8 and its position.
    """
    where = first_undecodable(Path(path), "utf-8")
    if where is None:
        return
    guess = likely_encoding(Path(path))
    raise InvalidParameterError(
        f"{path} is not UTF-8 (the byte 0x{where[2]:02x} at byte offset {where[0]:,}, line "
        f"{where[1]:,}): give its encoding (--encoding {guess}, or input.encoding in a job "
        "file; the duckdb engine reads latin-1 and UTF-16, polars UTF-8 only), or "
        + _CONVERT.format(enc=guess)
    )


def check_not_blank(path: str) -> None:
    """A CSV file an engine reads has a header line (as the pandas reader requires).

    Raises
    ------
    DataValidationError
        If the file holds nothing but line breaks, with the message of
        :func:`microsdc.io.read_table` (the engines would invent a column or fail).
    """
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 16):
            if chunk.strip(b"\r\n"):
                return
    raise DataValidationError(
        f"{os.path.basename(path)} is empty: it has no header line and no records."
    )


def check_records(frame: Any, name: str, then: str = "nothing to do.") -> None:
    """An input with columns but no records is refused, as the pandas route refuses it.

    Only the first record is asked for (the engine stops there), so this costs
    no pass over the data. An empty input would otherwise give an empty output
    and a table of zeros, which reads like "no record at risk".

    Parameters
    ----------
    frame : polars LazyFrame, DuckDB relation or Spark DataFrame
    name : str
        How the message names the input (the path as given).
    then : str, default "nothing to do."
        The end of the message.

    Raises
    ------
    DataValidationError
        If ``frame`` has no rows: "<name> has a header (<n> column(s)) but no
        records; <then>".
    """
    import narwhals as nw

    lazy = nw.from_native(frame)
    if len(lazy.head(1).collect()) == 0:
        n = len(lazy.collect_schema())
        raise DataValidationError(f"{name} has a header ({n} column(s)) but no records; {then}")


def scan(
    path: str,
    engine: str,
    table: str | None,
    sep: str | None = None,
    encoding: str | None = None,
) -> Any:
    """A lazy frame over ``path``: a polars ``LazyFrame`` or a DuckDB relation.

    ``path`` exists (checked by the caller); a DuckDB database needs ``table``
    and ``engine="duckdb"`` (checked by the caller, who names its options). A
    CSV file is read with the separator ``sep`` (default: detected from the
    header line, as pandas does) and the missing-value texts of pandas
    (:data:`NA_VALUES`); a Parquet folder or glob is checked first
    (:func:`check_parquet_schemas`).

    Raises
    ------
    InvalidParameterError
        If the engine is not installed (the message gives the extra to
        install), the database holds no such table, the engine cannot read
        ``encoding``, the CSV file cannot be read, or the Parquet files hold nothing or
        differ in their columns.
    DataValidationError
        If the CSV file is empty (no header line).

    Notes
    -----
    ``encoding`` is honoured where the engine can (see :func:`check_csv_options`):
    DuckDB reads latin-1 and UTF-16 as well as UTF-8, polars UTF-8 only.
    """
    csv = csv_kind(path)[0]
    partitions: list[str] = []
    charset = "utf-8"
    if csv:
        sep, charset = _check_csv(path, engine, sep, encoding)
    elif not is_database(path):
        check_parquet_schemas(path)
        partitions = hive_columns(path)
    if engine == "duckdb":
        return _scan_duckdb(path, table, csv, str(sep), charset, partitions)
    return _scan_polars(path, csv, str(sep), encoding, partitions)


def _check_csv(path: str, engine: str, sep: str | None, encoding: str | None) -> tuple[str, str]:
    """Before an engine reads a CSV file: its compression, encoding, header line and
    separator, as the pandas reader checks them. Returns the separator and the
    charset the engine reads (DuckDB's name, :func:`check_csv_options`)."""
    _, tsv, compression = csv_kind(path)
    if compression is not None and (engine != "duckdb" or compression not in DUCKDB_COMPRESSIONS):
        can = "reads none" if engine != "duckdb" else "reads gzip only"
        raise InvalidParameterError(
            f"{path} is a {COMPRESSIONS[compression]}-compressed CSV file, and the "
            f"{engine} engine {can}: decompress it first"
            + (", or leave out the engine (pandas reads it)" if compression in COMPRESSED else "")
        )
    charset = check_csv_options(encoding, engine)
    check_utf16_side(path, charset, engine)
    check_not_blank(path)
    if charset == "utf-8":
        check_utf8(path)
    elif charset == "utf-16":
        check_utf16(path)
    sep = file_separator(path, sep, tsv=tsv, encoding=encoding)
    header_charset = charset
    if charset == "utf-16" and likely_encoding(Path(path)) != "utf-16":
        header_charset = "utf-16-le"  # no byte-order mark: DuckDB reads little-endian
    check_csv_header(Path(path), str(sep), header_charset)
    return str(sep), charset


def _scan_duckdb(
    path: str, table: str | None, csv: bool, sep: str, charset: str, partitions: list[str]
) -> Any:
    """A DuckDB relation over a database table, a CSV file (typed as the default reader
    types it) or Parquet files."""
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
            con.close()
            listed = database_tables(path)
            raise InvalidParameterError(
                f"no table {table!r} in {path}" + (f"; {listed}" if listed else "")
            ) from exc
    if csv:
        # in SQL: DuckDB 2.0's Python read_csv refuses its own 'encoding' option
        query = (
            "SELECT * FROM read_csv({}, sep = {}, encoding = {}, nullstr = [{}], "
            "all_varchar = true, header = true)"
        ).format(
            _sql_text(path),
            _sql_text(sep),
            _sql_text(charset),
            ", ".join(_sql_text(v) for v in NA_VALUES),
        )
        try:
            rel: Any = duckdb.sql(query)
            first_line: Any = duckdb.sql(
                query.replace("header = true", "header = false") + " LIMIT 1"
            )
            header = first_line.fetchall()
        except duckdb.Error as exc:
            first = str(exc).strip().splitlines()[0]
            raise InvalidParameterError(
                f"DuckDB cannot read {path} as CSV ({charset}, separator {sep!r}): {first}"
            ) from exc
        refuse_renamed_columns(
            path, ["" if h is None else str(h) for h in (header[0] if header else ())], rel.columns
        )
        return csv_text_types(rel)
    rel = duckdb.read_parquet(parquet_source(path), hive_partitioning=bool(partitions))
    import pyarrow.parquet as pq

    files = parquet_files(path) if os.path.isdir(path) or is_pattern(path) else [path]
    refuse_renamed_columns(path, list(pq.read_schema(files[0]).names), rel.columns)
    return keep_partitions(rel, path, partitions)


def refuse_renamed_columns(path: str, names: Sequence[str], renamed: Sequence[str]) -> None:
    """Refuse a file whose column ``names`` DuckDB has ``renamed``: names that differ only
    in case (DuckDB's column names are case-insensitive: ``Fk`` to ``Fk_1``), or a CSV
    header with spaces around a name (``'sex '`` to ``'sex'``). The release would carry
    the new names, and a name as written in the file could mean another column. An empty
    header, which every reader names itself, is not refused.

    Raises
    ------
    InvalidParameterError
        Naming the columns, DuckDB's new names and the fix.
    """
    from collections import Counter

    changed = [(a, b) for a, b in zip(names, renamed, strict=False) if a != b and a.strip()]
    if not changed:
        return
    count = Counter(n.lower() for n in names)
    if any(count[a.lower()] > 1 for a, _ in changed):
        lowered = {a.lower() for a, _ in changed}
        clashing = [n for n in names if n.lower() in lowered]
        why = (
            f"has columns whose names differ only in case: "
            f"{', '.join(repr(n) for n in clashing)}. DuckDB's column names are "
            "case-insensitive: it renames "
        )
        fix = "so that no two differ only in case"
    else:
        why = "has column names that DuckDB does not keep as written: it renames "
        fix = "without spaces around them"
    raise InvalidParameterError(
        f"{path} {why}"
        + ", ".join(f"{a!r} to {b!r}" for a, b in changed)
        + f", so a column named as in the file could be read as another one. Rename "
        f"them in the file {fix}, or use the polars engine (or leave out the engine: "
        "pandas reads them as they are)"
    )


def _scan_polars(
    path: str, csv: bool, sep: str, encoding: str | None, partitions: list[str]
) -> Any:
    """A polars ``LazyFrame`` over a CSV file (typed as the default reader types it) or
    Parquet files."""
    try:
        import polars as pl
    except ImportError as exc:
        raise InvalidParameterError(
            f"the polars engine needs polars: {install_hint('polars')}"
        ) from exc
    if csv:
        if has_blank_lines(path, encoding):
            raise InvalidParameterError(
                f"{path} has empty lines (or lines of spaces only), which the polars engine "
                "reads as records with every cell missing: such a record would match every "
                "record. Remove them, or use --engine duckdb, or leave out the engine (both "
                "skip them)"
            )
        return csv_text_types(
            pl.scan_csv(path, separator=sep, null_values=list(NA_VALUES), infer_schema=False)
        )
    lazy = pl.scan_parquet(parquet_source(path), hive_partitioning=bool(partitions))
    return keep_partitions(lazy, path, partitions)


def csv_text_types(frame: Any) -> Any:
    """The text columns of a CSV file read by an engine, as numbers where nothing is lost.

    As the default reader does (``microsdc.io.text_types._text_types``): a column becomes
    integers when every value is an integer written as Python writes it (no leading
    zero, no plus sign, not "-0"), floats when every value is such an integer of at
    most 15 digits, a plain decimal that the engine writes back as it came (the
    shortest form of its float, as Python writes it) or Python's exponent form, not
    below 0.0001, and no two texts give the same number; it stays text otherwise
    ("01" and "1" are two codes). One pass over the file computes the checks.
    """
    import narwhals as nw

    lf = nw.from_native(frame)
    names = lf.collect_schema().names()
    if not names:
        return frame
    whole_re = f"^{_INT_TEXT}$"
    dec_re = f"^{_DECIMAL_TEXT}$"
    exp_re = f"^{_EXPONENT_TEXT}$"
    checks = []
    for j, c in enumerate(names):
        col = nw.col(c)
        whole = col.str.contains(whole_re) & (col != "-0")
        dec = col.str.contains(dec_re)
        expo = col.str.contains(exp_re)  # as Python writes it: kept, its number is distinct
        as_float = nw.when(whole | dec | expo).then(col).otherwise(None).cast(nw.Float64)
        # as floats, not below 0.0001 (as the default reader); a decimal the engine
        # writes back otherwise is not a number here either
        digits = col.str.len_chars() - col.str.starts_with("-").cast(nw.Int64) - dec.cast(nw.Int64)
        tiny = col.str.contains(r"^-?0\.0000")
        # a decimal when it is its float's shortest form (as Python writes it); a whole
        # number beside decimals of up to 15 digits (a float holds no more exactly)
        same = (
            nw.when(dec)
            .then(as_float.cast(nw.String) == col)
            .otherwise(expo | (whole & (digits <= 15)))
        )
        same = same & ~tiny
        checks += [
            (col.is_null() | whole).all().alias(f"w{j}"),
            (col.is_null() | same).all().alias(f"f{j}"),
            col.is_null().all().alias(f"n{j}"),
            col.n_unique().alias(f"u{j}"),
            as_float.n_unique().alias(f"v{j}"),
        ]
    row = lf.select(checks).collect().rows(named=True)[0]
    casts = []
    for j, c in enumerate(names):
        if row[f"n{j}"]:
            continue
        if row[f"w{j}"]:
            casts.append(nw.col(c).cast(nw.Int64))
        elif row[f"f{j}"] and row[f"u{j}"] == row[f"v{j}"]:
            casts.append(nw.col(c).cast(nw.Float64))
    return lf.with_columns(casts).to_native() if casts else frame


def keep_partitions(frame: Any, path: str, partitions: list[str]) -> Any:
    """The files' columns and the partition columns below the base only: an engine reading
    partitions takes every ``key=value`` folder of the path (those of the base too)."""
    if not partitions:
        return frame
    import narwhals as nw
    import pyarrow.parquet as pq

    wanted = [*pq.read_schema(parquet_files(path)[0]).names, *partitions]
    lazy = nw.from_native(frame)
    if lazy.collect_schema().names() == wanted:
        return frame
    return lazy.select(wanted).to_native()


def _sql_text(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def write_parquet(
    frame: Any,
    out: str,
    categories: Mapping[str, Sequence[str]] | None = None,
    n_extra: int = 0,
) -> None:
    """Write a lazy frame to Parquet by its own engine (streaming), into a private
    folder next to ``out`` and renamed into place.

    The columns of ``categories`` (band labels, in order; up to ``n_extra`` other
    values such as declared codes) are then given the type pandas writes for a
    binned column (:func:`microsdc.io.parquet_categories.write_with_categories`).

    A failed polars sink can create its file after the error is raised; it then finds
    the private folder removed, so no partial file is left beside ``out``.
    """
    import tempfile

    from microsdc.exceptions import OutputError

    target = Path(out)
    folder = tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent)
    tmp = os.path.join(folder, target.name)
    engine = (
        "polars"
        if hasattr(frame, "sink_parquet")
        else ("DuckDB" if hasattr(frame, "write_parquet") else "Spark")
    )
    try:
        try:
            if engine == "polars":
                frame.sink_parquet(tmp)
            elif engine == "DuckDB":
                frame.write_parquet(tmp)
            else:
                _write_spark(frame, tmp)
            if categories:
                from microsdc.io.parquet_categories import write_with_categories

                typed = os.path.join(folder, "typed_" + target.name)
                write_with_categories(tmp, typed, categories, n_extra)
                tmp = typed
            os.replace(tmp, out)
        except Exception as exc:
            first = _cause(exc)
            if engine == "DuckDB" and "interrupted" in first.lower():
                raise KeyboardInterrupt from exc  # DuckDB turns Ctrl-C into an error
            raise OutputError(f"{engine} could not write {out}: {first}") from exc
        finally:
            _remove_folder(folder)
    except KeyboardInterrupt:
        # polars raises Ctrl-C once more as the first leaves its sink, which can cut
        # the removal above short
        _remove_folder(folder)
        raise


def _cause(exc: Exception) -> str:
    """One line that says why a write failed: the first line of the message, or for a
    Java error from Spark ("An error occurred while calling o96.parquet.") its deepest
    "Caused by:" line ("java.io.IOException: File too large")."""
    lines = str(exc).strip().splitlines() or [type(exc).__name__]
    causes = [line.strip()[len("Caused by:") :].strip() for line in lines if "Caused by:" in line]
    return causes[-1] if causes else lines[0]


def _remove_folder(folder: str) -> None:
    """Remove ``folder`` and what it holds, also when an interrupted engine still
    creates a file in it while it is being removed (a few tries)."""
    import shutil
    import time

    for _ in range(50):
        shutil.rmtree(folder, ignore_errors=True)
        if not os.path.exists(folder):
            return
        time.sleep(0.02)


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
