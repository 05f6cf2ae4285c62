"""Reading and writing CSV, Parquet, SPSS (.sav) and Stata (.dta) files.

Formats are chosen by file extension. Parquet goes through pyarrow, SPSS through
pyreadstat, Stata through pandas. Dtypes are preserved as far as each format
allows (nullable integers survive Parquet; CSV infers types on reading).

SPSS and Stata files keep their metadata through microsdc: the codes stay the
numbers stored in the file (1 = male stays 1, never renumbered), and the
variable labels, value labels and SPSS user-missing declarations are read with
pyreadstat into ``df.attrs["microsdc_metadata"]`` (see :func:`file_metadata`)
and written back by :func:`write_table` for the columns still present.
User-missing codes (say -99 "refused") are read as values, so they stay apart
from cells blanked by microsdc, which are written as the system missing value
(``sysmis`` in SPSS, ``.`` in Stata). In counts such a code is a category of
its own unless declared with ``missing_values=``. Stata's extended missing
values (``.a`` to ``.z``) are read as missing.

Parquet keeps every dtype. The other formats lose some: CSV stores text, so
types are inferred again on reading (a nullable ``Int64`` column with missing
values comes back as ``float64``, a categorical as plain values); SPSS stores
numbers as doubles and categoricals as strings; Stata stores a categorical as
integer codes with value labels, read back as the codes (labels in the
metadata). SPSS and Stata files have no missing value for strings: an
empty string is written for a missing string and read back as missing (so an
empty string in the data also comes back missing). Their column names are
restricted; a name those formats cannot hold is an error (never a silent
rename). Files are written to a temporary name and moved into place, so a
failed write leaves nothing behind. Any file that cannot be parsed raises
:class:`~microsdc.exceptions.DataValidationError` naming the file.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from microsdc._validation import check_path, param_error
from microsdc.data.metadata import METADATA, file_metadata
from microsdc.exceptions import ColumnNotFoundError, DataValidationError, InvalidParameterError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = [
    "FORMATS",
    "METADATA",
    "check_column_names",
    "check_csv_header",
    "check_output_path",
    "detect_separator",
    "file_metadata",
    "read_columns",
    "read_table",
    "write_table",
]

_FORMAT_NAMES = {
    "csv": "a CSV",
    "tsv": "a TSV",
    "parquet": "a Parquet",
    "spss": "an SPSS",
    "stata": "a Stata",
}
#: Column names each format can hold (checked before writing).
_NAME_RULES = {
    "spss": (
        re.compile(r"^(?:[^\W\d_]|@)[\w.@#$]{0,63}$"),
        "letters (any alphabet), digits and _.@#$, starting with a letter, at most 64 "
        "bytes in UTF-8",
    ),
    "stata": (
        re.compile(r"^[^\W\d]\w{0,31}$"),
        "letters (any alphabet), digits and _, not starting with a digit, at most 32 characters",
    ),
}

FORMATS = {
    ".csv": "csv",
    ".txt": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".sav": "spss",
    ".zsav": "spss",
    ".dta": "stata",
}


#: Suffixes of the compressed text files read here (pandas and the checks of this module
#: undo them).
COMPRESSED = (".gz", ".bz2", ".xz", ".zip")


def _format_of(path: str | Path) -> str:
    suffixes = [s.lower() for s in Path(path).suffixes]
    suffix = (
        suffixes[-2]
        if suffixes and suffixes[-1] in COMPRESSED
        else (suffixes[-1] if suffixes else "")
    )
    if suffix not in FORMATS:
        hint = ""
        if suffix in (".duckdb", ".db"):
            hint = " A DuckDB database is read with --engine duckdb --table NAME."
        raise InvalidParameterError(
            f"Cannot tell the format of {str(path)!r} from its extension {suffix or '(none)'!r}; "
            f"use one of {', '.join(sorted(FORMATS))}.{hint}"
        )
    return FORMATS[suffix]


def read_table(
    path: str | Path,
    columns: list[str] | None = None,
    *,
    sep: str | None = None,
    encoding: str | None = None,
    **kwargs: Any,
) -> pd.DataFrame:
    """Read a data file into a DataFrame.

    Parameters
    ----------
    path : str or pathlib.Path
        ``.csv``/``.txt`` (optionally compressed), ``.tsv``, ``.parquet``,
        ``.sav``/``.zsav`` (SPSS) or ``.dta`` (Stata).
    columns : list of str, optional
        Read only these columns (all by default).
    sep : str, optional
        Field separator of a CSV file. Default: detected from the header line
        among ``,``, ``;``, tab and ``|`` (``,`` when in doubt). A ``.tsv``
        file is always tab-separated.
    encoding : str, optional
        Text encoding of a CSV file, e.g. ``"latin-1"`` (default UTF-8).
    **kwargs
        Passed to the reader (``pandas.read_csv``, ``pandas.read_parquet``,
        ``pyreadstat.read_sav``, ``pandas.read_stata``).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    InvalidParameterError
        If the extension is not one of the supported formats, or ``encoding``
        is not a text encoding Python knows.
    ColumnNotFoundError
        If ``columns`` names columns that are not in the file (all are listed;
        a CSV read with the wrong separator is pointed out).
    DataValidationError
        If the file is empty, not in ``encoding``, or cannot be parsed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "semicolons.csv"
    >>> _ = path.write_text("age;sex\\n30;m\\n", encoding="latin-1")
    >>> read_table(path).columns.tolist()
    ['age', 'sex']
    """
    import pandas as pd

    func = "read_table"
    path = Path(check_path(path, "path", func))
    if columns is not None and not isinstance(columns, Iterable):
        raise param_error("columns", func, "a list of column names", columns)
    if sep is not None and not isinstance(sep, str):
        raise param_error("sep", func, "a str or None", sep)
    fmt = _format_of(path)
    if encoding is not None:
        import codecs

        try:
            codecs.lookup(encoding)
        except (LookupError, TypeError) as exc:
            raise InvalidParameterError(
                f"The 'encoding' parameter of read_table must be a text encoding known to "
                f"Python, such as 'utf-8' or 'latin-1'. Got {encoding!r} instead.",
                func="read_table",
                param="encoding",
            ) from exc
    if not path.exists():
        raise FileNotFoundError(2, "No such file", str(path))
    csv_kwargs: dict[str, Any] = {}
    if fmt in ("csv", "tsv"):
        if path.suffix.lower() in (".csv", ".tsv", ".txt"):  # not compressed
            check_utf16_text(path, encoding)
        if fmt == "tsv":
            sep = "\t"
        elif sep is None:
            sep = detect_separator(path, encoding=encoding)
        csv_kwargs = {"sep": sep, "encoding": encoding}
    elif encoding is not None and fmt == "spss":
        kwargs["encoding"] = encoding
    try:
        if columns is not None:
            present = read_columns(path, **csv_kwargs)
            missing = [c for c in columns if c not in present]
            if missing:
                raise ColumnNotFoundError(
                    f"{len(missing)} column(s) not in {path.name}: "
                    f"{', '.join(repr(c) for c in missing)}. Available columns: "
                    f"{', '.join(repr(c) for c in present[:30])}"
                    f"{' ...' if len(present) > 30 else ''}.{separator_hint(present)}"
                    f"{_close_hint(missing, present)}",
                    missing=missing,
                    func=func,
                    param="columns",
                )
        if fmt in ("csv", "tsv"):
            check_csv_header(path, csv_kwargs["sep"], encoding)
            # the text as written: an empty field is the only missing value ("NA" may
            # be Namibia), and a column becomes numbers only when no text is lost
            # ("01" and "1" are two codes), see _text_types
            text_kwargs: dict[str, Any] = {
                "dtype": str,
                "keep_default_na": False,
                "na_values": list(NA_TEXTS),
            }
            text_kwargs.update(kwargs)
            df = pd.read_csv(path, usecols=columns, low_memory=False, **csv_kwargs, **text_kwargs)
            return _text_types(df) if "dtype" not in kwargs else df
        if fmt == "parquet":
            return pd.read_parquet(path, columns=columns, **kwargs)
        if fmt == "spss":
            import pyreadstat

            kwargs.setdefault("user_missing", True)
            df, meta = pyreadstat.read_sav(str(path), usecols=columns, **kwargs)
            df = _with_metadata(df, meta, "spss")
        else:
            import pyreadstat

            df, meta = pyreadstat.read_dta(str(path), usecols=columns, **kwargs)
            df = _with_metadata(_numeric_objects(df), meta, "stata")
    except (FileNotFoundError, ColumnNotFoundError, DataValidationError):
        raise
    except pd.errors.EmptyDataError:
        raise DataValidationError(
            f"{path.name} is empty: it has no header line and no records."
        ) from None
    except UnicodeDecodeError as exc:
        guess = likely_encoding(path)
        # the reader decodes by blocks, so its position is within a block: find the
        # byte in the file
        where = first_undecodable(path, encoding or "utf-8")
        place = f" at byte offset {where[0]:,} (line {where[1]:,})" if where else ""
        raise DataValidationError(
            f"Cannot read {path.name}: the byte 0x{exc.object[exc.start]:02x}{place} "
            f"is not {encoding or 'UTF-8'}. Give its encoding (encoding={guess!r}; "
            "input.encoding in a job file) or save it as UTF-8.",
            param="encoding",
        ) from exc
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataValidationError(
            f"Cannot read {path.name} as {_FORMAT_NAMES[fmt]} file: {first}"
        ) from exc
    return _empty_strings_to_missing(df)


#: Separators tried when a CSV file's separator is not given.
SEPARATORS = (",", ";", "\t", "|")


def detect_separator(path: str | Path, *, encoding: str | None = None) -> str:
    """The field separator of a CSV file, guessed from its header line.

    The separator among ``,``, ``;``, tab and ``|`` that splits the first line
    into the most fields (quotes respected) wins; ``,`` wins ties and is the
    answer for an empty file or a one-column header.

    Parameters
    ----------
    path : str or pathlib.Path
        A CSV file, optionally compressed (``.gz``, ``.bz2``, ``.xz``, ``.zip``).
    encoding : str, optional
        Text encoding (default UTF-8; undecodable bytes are ignored here).

    Returns
    -------
    str
    """
    return _separator_of(_first_line(Path(path), encoding))


def _separator_of(line: str) -> str:
    """The separator of :data:`SEPARATORS` that splits a header ``line`` into the most
    fields (``,`` on ties and for an empty line)."""
    import csv

    if not line:
        return ","
    best, best_n = ",", 1
    for cand in SEPARATORS:
        try:
            n = len(next(csv.reader([line], delimiter=cand)))
        except (csv.Error, StopIteration):
            continue
        if n > best_n:
            best, best_n = cand, n
    return best


def _open_decompressed(path: Path) -> Any:
    """A binary file over the bytes of ``path``, undone by its suffix (:data:`COMPRESSED`;
    the first member of a zip archive, nothing for an empty one)."""
    import bz2
    import gzip
    import lzma
    import zipfile

    suffix = path.suffix.lower()
    if suffix == ".zip":
        with zipfile.ZipFile(path) as zf:  # the member keeps the archive's file open
            names = zf.namelist()
            return zf.open(names[0]) if names else open(os.devnull, "rb")
    openers: dict[str, Any] = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
    return openers.get(suffix, open)(path, "rb")


def number_records(
    df: pd.DataFrame, path: str | Path, sep: str | None = None, encoding: str | None = None
) -> pd.DataFrame:
    """``df`` read from ``path``, its rows labelled as a person finds them in the file:
    in a CSV file by spreadsheet row (the header is row 1, the first record row 2), in
    other formats by record number from 1. Messages that name rows then point at the
    file, not at a count from 0 (empty lines, which the reader skips, are counted; a
    record whose quoted cells span lines is one row).
    Writing drops the labels."""
    import pandas as pd

    path = Path(path)
    if _format_of(path) not in ("csv", "tsv"):
        df.index = pd.RangeIndex(1, 1 + len(df))
        return df
    lines = _record_lines(path, sep, encoding) if has_blank_lines(path, encoding) else None
    if lines is not None and len(lines) == len(df):  # blank lines skipped by the reader
        df.index = pd.Index(lines)
    else:
        df.index = pd.RangeIndex(2, 2 + len(df))
    return df


def has_blank_lines(path: str | Path, encoding: str | None = None) -> bool:
    """Whether a CSV file has an empty line, or one of spaces only (which the reader
    skips), in any line-end convention (LF, CR LF, CR) and text encoding."""
    import io as _io
    import re as _re

    blank = _re.compile(r"\n[ \t]*\n")
    tail = "\n"  # the start of the file is the start of a line
    errors: tuple[type[Exception], ...] = (LookupError, *_decompress_errors())
    try:
        with _open_decompressed(Path(path)) as raw:
            text = _io.TextIOWrapper(raw, encoding=encoding or "utf-8-sig", errors="replace")
            while chunk := text.read(1 << 20):
                block = tail + chunk
                if blank.search(block):
                    return True
                # the line the block ends in, from its line break (a long one holds text)
                rest = block[block.rfind("\n") :]
                tail = rest if len(rest) <= 64 else "x"
    except errors:
        return False
    return False


def _record_lines(path: Path, sep: str | None, encoding: str | None) -> list[int] | None:
    """The spreadsheet row of each record of a CSV file: the header is row 1, a record
    one row however many lines its quoted cells span, and an empty line (or one of
    spaces only), which the reader skips, one row too; None when the file cannot be
    read so."""
    import csv
    import io as _io

    errors: tuple[type[Exception], ...] = (csv.Error, UnicodeDecodeError, *_decompress_errors())
    try:
        with _open_decompressed(path) as raw:
            text = _io.TextIOWrapper(raw, encoding=encoding or "utf-8-sig", newline="")
            reader = csv.reader(text, delimiter=sep or detect_separator(path, encoding=encoding))
            rows = []
            for position, row in enumerate(reader, start=1):
                if row and not (len(row) == 1 and not row[0].strip()):
                    rows.append(position)
    except errors:
        return None
    return rows[1:]  # the header


def release_style(
    source: str | Path, sep: str | None = None, encoding: str | None = None
) -> dict[str, Any]:
    """How to write a CSV file released from ``source`` as the input came: the keyword
    arguments ``encoding``, ``sep`` and ``line_terminator`` of :func:`write_table`.

    - ``encoding`` is the input's, except for a UTF-8 text file that opens with a
      byte-order mark (as spreadsheet programs write it): "utf-8-sig", so that the
      mark, which those programs need to read the file as UTF-8, is written back.
    - ``sep`` is the one given to the reader, or the one it detects from the header
      line; ``line_terminator`` is the line break that ends the header line.

    A source that is not a CSV or TSV file gives ``encoding`` only. The file's first
    64 KiB are read once.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "semicolons.csv"
    >>> _ = path.write_bytes(b"\\xef\\xbb\\xbfage;sex\\r\\n30;m\\r\\n")
    >>> release_style(path)
    {'encoding': 'utf-8-sig', 'sep': ';', 'line_terminator': '\\r\\n'}
    """
    style: dict[str, Any] = {"encoding": encoding}
    errors: tuple[type[Exception], ...] = (
        *_decompress_errors(),
        LookupError,
        InvalidParameterError,
    )
    try:
        fmt = _format_of(source)
        with _open_decompressed(Path(source)) as fh:
            raw = fh.read(65536)
        head = raw.decode(encoding or "utf-8", errors="ignore")
    except errors:
        return style
    utf8 = encoding is None or encoding.lower().replace("_", "-") in ("utf-8", "utf8")
    if utf8 and raw.startswith(b"\xef\xbb\xbf"):
        style["encoding"] = "utf-8-sig"
    if fmt not in ("csv", "tsv"):
        return style
    first = head.lstrip("\ufeff").split("\n", 1)[0].split("\r", 1)[0]
    style["sep"] = sep or ("\t" if fmt == "tsv" else _separator_of(first))
    end = head.find("\n")
    if end > 0 and head[end - 1] == "\r":
        style["line_terminator"] = "\r\n"
    elif end < 0 and "\r" in head:
        style["line_terminator"] = "\r"
    return style


def _decompress_errors() -> tuple[type[Exception], ...]:
    """What opening or reading a damaged compressed file raises."""
    import lzma
    import zipfile

    return (OSError, EOFError, zipfile.BadZipFile, lzma.LZMAError)


def _first_line(path: Path, encoding: str | None) -> str:
    try:
        with _open_decompressed(path) as fh:
            raw = fh.readline(65536)
    except _decompress_errors():
        return ""
    text = raw.decode(encoding or "utf-8", errors="ignore").lstrip("\ufeff")
    return text.split("\n", 1)[0].split("\r", 1)[0]  # a lone CR ends a line too


def separator_hint(columns: list[str]) -> str:
    """A sentence saying which separator a CSV read as one column seems to use, or "".

    Examples
    --------
    >>> separator_hint(["age;workclass;sex"])
    " It looks ';'-separated: use sep=';' (--sep ';' on the command line, input.sep in a job file)."
    >>> separator_hint(["age", "sex"])
    ''
    """
    if len(columns) != 1:
        return ""
    name = str(columns[0])
    counts = {c: name.count(c) for c in SEPARATORS}
    cand = max(counts, key=lambda c: counts[c])
    if not counts[cand]:
        return ""
    shown = "'\\t'" if cand == "\t" else repr(cand)
    return (
        f" It looks {shown}-separated: use sep={shown} (--sep {shown} on the command line, "
        "input.sep in a job file)."
    )


def _close_hint(missing: list[str], present: list[str]) -> str:
    from microsdc._validation import close_matches_hint

    return close_matches_hint(missing, present)


def read_columns(path: str | Path, **kwargs: Any) -> list[str]:
    """Column names of a data file, read from its header or metadata only.

    Raises
    ------
    FileNotFoundError, InvalidParameterError
        As in :func:`read_table`.
    """
    import pandas as pd

    path = Path(path)
    fmt = _format_of(path)
    if not path.exists():
        raise FileNotFoundError(2, "No such file", str(path))
    if fmt in ("csv", "tsv"):
        encoding = kwargs.get("encoding")
        sep = (
            "\t" if fmt == "tsv" else kwargs.get("sep") or detect_separator(path, encoding=encoding)
        )
        try:
            header = pd.read_csv(path, sep=sep, nrows=0, encoding=encoding)
        except pd.errors.EmptyDataError:
            raise DataValidationError(
                f"{path.name} is empty: it has no header line and no records."
            ) from None
        return [str(c) for c in header.columns]
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return list(pq.read_schema(path).names)
    if fmt == "spss":
        import pyreadstat

        _, meta = pyreadstat.read_sav(str(path), metadataonly=True)
        return list(meta.column_names)
    import pyreadstat

    _, meta = pyreadstat.read_dta(str(path), metadataonly=True)
    return list(meta.column_names)


def check_output_path(path: str | Path, *inputs: str | Path) -> Path:
    """Check, before any work, that ``path`` can be written.

    Raises
    ------
    InvalidParameterError
        If the extension is unknown, or ``path`` is one of ``inputs`` (an
        output never replaces the original data).
    FileNotFoundError
        If the folder of ``path`` does not exist.
    """
    path = Path(path)
    _format_of(path)
    if not path.parent.exists():
        raise FileNotFoundError(2, "No such directory", str(path.parent))
    for src in inputs:
        if Path(src).exists() and path.exists() and os.path.samefile(src, path):
            raise InvalidParameterError(
                f"The output {str(path)!r} is the input file; write the anonymised data to a "
                "new file so that the original is kept."
            )
    return path


def write_table(
    df: pd.DataFrame,
    path: str | Path,
    *,
    encoding: str | None = None,
    sep: str | None = None,
    line_terminator: str | None = None,
) -> None:
    """Write ``df`` in the format given by the extension of ``path``.

    The file is written under a temporary name in the same folder and moved
    into place, so a failed write leaves nothing behind.

    Parameters
    ----------
    df : pandas.DataFrame
    path : str or pathlib.Path
    encoding : str, optional
        Text encoding of a CSV or TSV file (default UTF-8); give the input's, so
        that a file read as latin-1 is released as latin-1. Other formats
        ignore it.
    sep, line_terminator : str, optional
        Field separator (default ``,``) and line break (default ``\\n``) of a CSV
        file; :func:`release_style` gives the input's. A TSV file is always
        tab-separated; other formats ignore them.

    Raises
    ------
    InvalidParameterError
        If the extension is not one of the supported formats.
    DataValidationError
        If a column name cannot be stored in an SPSS or Stata file (all such
        names are listed), or a value or column name has no code in
        ``encoding`` (the first such is named).
    FileNotFoundError
        If the folder does not exist.
    """
    func = "write_table"
    path = Path(check_path(path, "path", func))
    for name, value in (("encoding", encoding), ("sep", sep), ("line_terminator", line_terminator)):
        if value is not None and not isinstance(value, str):
            raise param_error(name, func, "a str or None", value)
    fmt = _format_of(path)
    if not path.parent.exists():
        raise FileNotFoundError(2, "No such directory", str(path.parent))
    check_column_names(df.columns, path)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix="".join(path.suffixes), dir=path.parent
    )
    os.close(fd)
    try:
        if fmt in ("csv", "tsv"):
            sep = "\t" if fmt == "tsv" else (sep or ",")
            line = line_terminator or "\n"
            try:
                if path.suffix.lower() == ".gz":
                    import gzip

                    # the gzip header names the file it holds: the final name, not the
                    # temporary one
                    with open(tmp, "wb") as raw, gzip.GzipFile(path.name, "wb", fileobj=raw) as gz:
                        _as_written(df).to_csv(
                            gz,
                            index=False,
                            sep=sep,
                            lineterminator=line,
                            encoding=encoding or "utf-8",
                        )
                else:
                    _as_written(df).to_csv(
                        tmp, index=False, sep=sep, lineterminator=line, encoding=encoding
                    )
            except UnicodeEncodeError as exc:
                raise DataValidationError(
                    f"Cannot write {path.name} in {encoding}: "
                    f"{_unencodable(df, encoding or 'utf-8')} has no code in it. Write "
                    "UTF-8 (leave the encoding out) or Parquet."
                ) from exc
        elif fmt == "parquet":
            df.to_parquet(tmp, index=False)
        elif fmt == "spss":
            import pyreadstat

            pyreadstat.write_sav(
                df, tmp, compress=path.suffix.lower() == ".zsav", **_spss_metadata(df)
            )
        else:
            # format 118 (Stata 14+): UTF-8 texts and names, long texts as strL
            df.to_stata(tmp, write_index=False, version=118, **_stata_metadata(df))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def check_column_names(columns: Any, path: str | Path) -> None:
    """Raise unless every column name can be stored in the format of ``path``.

    Raises
    ------
    DataValidationError
        Listing the names an SPSS or Stata file cannot hold.
    """
    fmt = _format_of(path)
    if fmt not in _NAME_RULES:
        return
    pattern, rule = _NAME_RULES[fmt]
    bad = [
        c
        for c in columns
        if not (isinstance(c, str) and pattern.match(c))
        or (fmt == "spss" and len(str(c).encode("utf-8")) > 64)
    ]
    if bad:
        raise DataValidationError(
            f"{len(bad)} column name(s) cannot be stored in {_FORMAT_NAMES[fmt]} file "
            f"({rule}): {', '.join(repr(c) for c in bad[:10])}{' ...' if len(bad) > 10 else ''}"
            ". Rename them, or write .parquet or .csv.",
            failure_cases=bad,
        )


def _unencodable(df: pd.DataFrame, encoding: str) -> str:
    """The first column name or value of ``df`` that ``encoding`` cannot encode, described."""
    for name in df.columns:
        try:
            str(name).encode(encoding)
        except UnicodeEncodeError:
            return f"the column name {str(name)!r}"
    for name in df.columns:
        col = df[name]
        if col.dtype.kind not in "OSU" and str(col.dtype) not in ("string", "category"):
            continue
        for value in col.dropna().astype(str).unique():
            try:
                value.encode(encoding)
            except UnicodeEncodeError:
                return f"the value {value!r} of column {str(name)!r}"
    return "a value"


def first_undecodable(path: Path, encoding: str) -> tuple[int, int, int] | None:
    """Where a text file first breaks ``encoding``: (byte offset, line, byte), the
    offset counted from 0 (as ``xxd`` and ``grep -b`` count) and the line from 1, in
    the decompressed bytes; None if it does not.

    Readers decode by blocks and report a position within their block; this reads
    the file once, in blocks of 1 MiB, to give the position in the file.
    """
    import codecs

    try:
        decoder = codecs.getincrementaldecoder(encoding)()
    except LookupError:
        return None
    try:
        fh = _open_decompressed(path)
    except _decompress_errors():
        return None
    offset = 0
    lines = 1
    after_cr = False  # the previous block ended with CR (its LF may open this one)
    with fh:
        while True:
            chunk = fh.read(1 << 20)
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as exc:
                # the decoder may hold up to a few bytes of the previous chunk
                held = len(exc.object) - len(chunk)
                lines += _line_breaks(exc.object[held : exc.start], after_cr)
                return offset - held + exc.start, lines, exc.object[exc.start]
            if not chunk:
                return None
            lines += _line_breaks(chunk, after_cr)
            after_cr = chunk.endswith(b"\r")
            offset += len(chunk)


def _line_breaks(data: bytes, after_cr: bool) -> int:
    """Line breaks in ``data``: LF, CR LF and a lone CR (old Mac files) each count
    once; ``after_cr`` says that the bytes before ended with CR, so that a leading
    LF completes that break."""
    n = data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")
    return n - 1 if after_cr and data.startswith(b"\n") else n


def utf16_without_bom(path: Path) -> str | None:
    """'utf-16-le' or 'utf-16-be' for a file that reads as UTF-16 text without a
    byte-order mark (its first 4 KiB: at least a quarter of the bytes are zero,
    nine in ten of them on one side of each byte pair), else None."""
    with open(path, "rb") as fh:
        start = fh.read(4096)
    if len(start) < 4 or start[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return None
    even = start[0::2].count(0)
    odd = start[1::2].count(0)
    if even + odd < len(start) // 4:
        return None
    if even >= 9 * odd:
        return "utf-16-be"
    if odd >= 9 * even:
        return "utf-16-le"
    return None


def likely_encoding(path: Path) -> str:
    """'utf-16' for a file that starts with a UTF-16 byte-order mark, 'utf-16-le' or
    'utf-16-be' for one that reads as UTF-16 without it, else 'latin-1'."""
    with open(path, "rb") as fh:
        start = fh.read(2)
    if start in (b"\xff\xfe", b"\xfe\xff"):
        return "utf-16"
    return utf16_without_bom(path) or "latin-1"


def check_utf16_text(path: Path, encoding: str | None) -> None:
    """Refuse to read as UTF-8, latin-1 (or UTF-16 with a byte-order mark) a file
    that is UTF-16 without one: its zero bytes would become characters of the
    column names and values.

    Raises
    ------
    DataValidationError
        Naming the encoding to give.
    """
    import codecs

    found = utf16_without_bom(path)
    if found is None:
        return
    asked = codecs.lookup(encoding or "utf-8").name
    if asked in ("utf-16-le", "utf-16-be"):
        return
    side = "little" if found == "utf-16-le" else "big"
    raise DataValidationError(
        f"{path.name} looks like UTF-16 text ({side}-endian) without a byte-order mark, "
        f"not {encoding or 'UTF-8'}: give its encoding (encoding={found!r}; "
        "input.encoding in a job file) or save it as UTF-8.",
        param="encoding",
    )


def check_csv_header(path: Path, sep: str, encoding: str | None) -> None:
    """Refuse a CSV file whose header line repeats a column name.

    pandas, polars and DuckDB would rename the second column silently (``a.1``,
    ``a_duplicated_0``, ``a_1``), which would then leave the release unprotected.

    Parameters
    ----------
    path : pathlib.Path
    sep : str, the field separator
    encoding : str or None, the text encoding (None: UTF-8)

    Raises
    ------
    DataValidationError
        Naming the repeated column names.
    """
    import pandas as pd

    try:
        first = pd.read_csv(path, sep=sep, header=None, nrows=1, dtype=str, encoding=encoding)
    except pd.errors.EmptyDataError:
        return
    header = [str(c) for c in first.iloc[0].tolist()] if len(first) else []
    seen: set[str] = set()
    dups = [c for c in header if c in seen or seen.add(c)]  # type: ignore[func-returns-value]
    if dups:
        dup_list = list(dict.fromkeys(dups))
        raise DataValidationError(
            f"{path.name} has duplicate column names: {', '.join(repr(d) for d in dup_list)}. "
            "Rename them so each column can be named.",
            failure_cases=dup_list,
        )


#: The texts a CSV cell reads as missing: the empty field only. Codes such as "NA",
#: "NULL" or "-9" are values unless declared missing (``missing_values``,
#: ``--missing-values``): "NA" is also Namibia, and a value taken for a missing one
#: would match every record.
NA_TEXTS = ("",)

_INT_TEXT = r"-?(?:0|[1-9][0-9]{0,17})"
#: A decimal as Python writes a float in fixed notation: no trailing zero but ".0"
_DECIMAL_TEXT = r"-?(?:0|[1-9][0-9]*)\.(?:0|[0-9]*[1-9])"
#: A float in exponent form as Python writes it ("3.7e-05", "1e-05", "2.5e+20"): one
#: leading digit, no trailing zero, a signed exponent of two or three digits.
_EXPONENT_TEXT = r"-?[1-9](?:\.[0-9]{0,15}[1-9])?e[-+][0-9]{2,3}"


def _text_types(df: pd.DataFrame) -> pd.DataFrame:
    """Columns of CSV text as numbers where that loses nothing, else as text.

    A column becomes integers (``int64``, ``Int64`` with missing values) when every
    value is written as Python writes an integer (no leading zero or plus sign, not
    "-0"), and floats when every value is such an integer or a decimal as Python
    writes that float ("0.5", "2.0" or "3.7e-05", not "0.50", "5e-1", ".5" or
    "0.00001"): the float gives the same text back (at most 15 digits always do; 16
    or 17 when the text is the float's shortest form, as Python's ``repr`` and
    ``to_csv`` write it), and no two texts give the same number ("2" and "2.0").
    Anything else stays text, so that "01" and "1", or "1.1" and "1.10", remain two
    codes and are written back as they came. The checks are vectorised text
    operations.
    """
    import pandas as pd

    for col in df.columns:
        s = df[col]
        if not pd.api.types.is_string_dtype(s.dtype):
            continue
        present = s.notna().to_numpy()
        n_present = int(present.sum())
        if not n_present:
            df[col] = s.astype("float64")  # as an empty column reads by default
            continue

        whole = _holds(s.str.fullmatch(_INT_TEXT), present) & _holds(s != "-0", present)
        if whole.all():
            df[col] = _parsed(s, "int64", n_present < len(s))
            continue
        expo = _holds(s.str.fullmatch(_EXPONENT_TEXT), present) & present
        dec = _holds(s.str.fullmatch(_DECIMAL_TEXT), present) | expo
        if not (whole | dec).all():
            continue
        digits = s.str.len() - s.str.startswith("-").astype(float) - pd.Series(dec, index=s.index)
        not_tiny = _holds(~s.str.match(r"-?0\.0000"), present)  # below 0.0001: "1e-05"
        if not not_tiny.all():
            continue
        # up to 15 digits a float gives its text back; more (Python's to_csv writes up
        # to 17) only when the text is the float's shortest form, which is checked
        long = (~_holds(digits <= 15, present) & present) | expo
        if long.any() and not _shortest_forms(s[long]):
            continue
        # integers among decimals are written back as integers ("2", not "2.0"): the
        # column must then hold no decimal that is a whole number ("2.0")
        ints = whole & present
        mixed = bool(ints.any()) and bool((dec & ~ints & present).any())
        if mixed and _holds(s.str.endswith(".0"), present)[~ints & present].any():
            continue
        out = _parsed(s, "float64", False)
        if out.nunique() != s.nunique():  # "2" and "2.0": two codes, one number
            continue
        df[col] = out
        if mixed:
            df.attrs.setdefault(WHOLE_AS_INTEGERS, []).append(col)
    return df


#: Key of ``DataFrame.attrs`` listing the float columns of a CSV file whose whole
#: numbers were written as integers ("2" beside "2.5"): they are written back so.
WHOLE_AS_INTEGERS = "microsdc_whole_as_integers"


def _as_written(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with the columns of :data:`WHOLE_AS_INTEGERS` as text: whole numbers as
    integers ("2"), the others as Python writes them ("2.5"), missing as missing."""
    cols = [c for c in df.attrs.get(WHOLE_AS_INTEGERS, []) if c in df.columns]
    if not cols:
        return df
    import numpy as np
    import pandas as pd

    out = df.copy()
    for col in cols:
        s = out[col]
        if not pd.api.types.is_float_dtype(s.dtype):
            continue
        values = s.to_numpy(dtype=np.float64, na_value=np.nan)
        text = np.full(len(values), None, dtype=object)
        known = ~np.isnan(values)
        whole = known & (np.floor(values) == values)
        text[whole] = [str(int(v)) for v in values[whole]]
        text[known & ~whole] = [repr(float(v)) for v in values[known & ~whole]]
        out[col] = pd.Series(text, index=s.index, dtype=object)
    return out


def _shortest_forms(texts: pd.Series) -> bool:
    """Whether every text (a plain decimal) is its float's shortest form, as Python's
    ``repr`` writes it: Arrow's cast back to text decides most of them at once, Python
    the few it writes otherwise (an exponent from 1e13 on)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = pa.array(texts.to_numpy(dtype=object), type=pa.string())
    same = pc.equal(pc.cast(pc.cast(arr, pa.float64()), pa.string()), arr)
    rest = texts[~same.to_numpy(zero_copy_only=False)]
    return bool((rest.astype("float64").map(repr) == rest).all())


def _holds(test: pd.Series, present: np.ndarray) -> np.ndarray:
    """A text test per cell, True on the missing cells (``present`` False)."""
    import numpy as np

    return np.asarray(test.to_numpy(dtype=bool, na_value=True)) | ~present


def _parsed(s: pd.Series, kind: str, nullable: bool) -> pd.Series:
    """Text known to hold numbers of ``kind`` ("int64" or "float64") as such, parsed by
    Arrow (ten times faster than pandas' own parse); integers with missing values as
    ``Int64``, floats with NaN."""
    import numpy as np
    import pandas as pd

    parsed = s.astype("float64[pyarrow]" if kind == "float64" else "int64[pyarrow]")
    if kind == "float64":
        return pd.Series(
            parsed.to_numpy(dtype=np.float64, na_value=np.nan), index=s.index, name=s.name
        )
    if not nullable:
        return pd.Series(parsed.to_numpy(dtype=np.int64), index=s.index, name=s.name)
    missing = parsed.isna().to_numpy()
    values = np.asarray(parsed.to_numpy(dtype=np.int64, na_value=0), dtype=np.int64)
    return pd.Series(pd.arrays.IntegerArray(values, missing), index=s.index, name=s.name)


def _empty_strings_to_missing(df: pd.DataFrame) -> pd.DataFrame:
    """SPSS and Stata store a missing string as "": read it as missing."""
    import pandas as pd

    for col in df.columns:
        s = df[col]
        if s.dtype == object or pd.api.types.is_string_dtype(s.dtype):
            empty = s.eq("").fillna(False).to_numpy(dtype=bool)
            if empty.any():
                df[col] = s.mask(empty)
    return df


def _with_metadata(df: pd.DataFrame, meta: Any, fmt: str) -> pd.DataFrame:
    """Attach the labels and user-missing declarations read by pyreadstat."""
    labels = {
        str(k): str(v) for k, v in (meta.column_names_to_labels or {}).items() if v is not None
    }
    record: dict[str, Any] = {
        "format": fmt,
        "column_labels": labels,
        "value_labels": {
            str(k): dict(v) for k, v in (meta.variable_value_labels or {}).items() if v
        },
        "missing_ranges": {
            str(k): list(v) for k, v in (getattr(meta, "missing_ranges", None) or {}).items() if v
        },
        "variable_measure": {
            str(k): v
            for k, v in (getattr(meta, "variable_measure", None) or {}).items()
            if v in ("nominal", "ordinal", "scale")
        },
    }
    df.attrs[METADATA] = record
    return df


def _numeric_objects(df: pd.DataFrame) -> pd.DataFrame:
    """pyreadstat reads a Stata integer column with missing values as objects: make it numeric."""
    import pandas as pd

    for col in df.columns:
        s = df[col]
        if s.dtype == object:
            values = s.dropna()
            if len(values) and all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in values
            ):
                df[col] = pd.to_numeric(s)
    return df


def _labels_fit(series: pd.Series, labels: dict[Any, str]) -> bool:
    """Whether value labels still describe a column (numeric codes on a numeric column)."""
    import pandas as pd

    numeric = pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(
        series.dtype
    )
    codes_numeric = all(isinstance(k, int | float) for k in labels)
    return bool(labels) and numeric == codes_numeric and (numeric or series.dtype != object)


def _kept(df: pd.DataFrame, mapping: dict[str, Any]) -> dict[str, Any]:
    return {c: v for c, v in mapping.items() if c in set(df.columns)}


def _spss_metadata(df: pd.DataFrame) -> dict[str, Any]:
    meta = file_metadata(df)
    if not meta:
        return {}
    values = {
        c: v for c, v in _kept(df, meta.get("value_labels", {})).items() if _labels_fit(df[c], v)
    }
    missing = {
        c: v
        for c, v in _kept(df, meta.get("missing_ranges", {})).items()
        if _labels_fit(df[c], {(r["lo"] if isinstance(r, dict) else r): "" for r in v})
    }
    out: dict[str, Any] = {}
    if labels := _kept(df, meta.get("column_labels", {})):
        out["column_labels"] = labels
    if values:
        out["variable_value_labels"] = values
    if missing:
        out["missing_ranges"] = missing
    if measure := _kept(df, meta.get("variable_measure", {})):
        out["variable_measure"] = measure
    return out


def _stata_metadata(df: pd.DataFrame) -> dict[str, Any]:
    meta = file_metadata(df)
    if not meta:
        return {}
    out: dict[str, Any] = {}
    if labels := _kept(df, meta.get("column_labels", {})):
        out["variable_labels"] = {c: v[:80] for c, v in labels.items()}
    values = {}
    for c, v in _kept(df, meta.get("value_labels", {})).items():
        numeric = all(isinstance(k, int | float) and float(k).is_integer() for k in v)
        if numeric and _labels_fit(df[c], v):  # Stata labels integer codes only
            values[c] = {int(k): label for k, label in v.items()}
    if values:
        out["value_labels"] = values
    return out
