"""The style of a CSV file: its separator, line breaks, text encoding and header.

What the reader needs to know before it reads (the separator from the header line,
an encoding that is not the one given), what a release writes back as the input came
(:func:`release_style`), and where a file breaks its encoding, for the messages.
Compressed files (:data:`~microsdc.io.formats.COMPRESSED`) are read through.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from microsdc.exceptions import DataValidationError, InvalidParameterError
from microsdc.io.formats import format_of

__all__ = [
    "SEPARATORS",
    "check_csv_header",
    "check_utf16_text",
    "detect_separator",
    "first_undecodable",
    "has_blank_lines",
    "likely_encoding",
    "release_style",
    "separator_hint",
    "utf16_without_bom",
]


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


def file_separator(
    path: str | Path, sep: str | None, *, tsv: bool, encoding: str | None = None
) -> str:
    """The separator a CSV file is read with: ``sep`` when given (it wins over the
    file's name), else tab for a ``.tsv`` file (``tsv``), else :func:`detect_separator`."""
    if sep is not None:
        return sep
    return "\t" if tsv else detect_separator(path, encoding=encoding)


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
        fmt = format_of(source)
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
