"""Reading a data file: CSV, Parquet, SPSS or Stata, chosen by extension."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from microsdc._core.warn import warn
from microsdc._validation import (
    check_path,
    not_pandas,
    param_error,
    separator_problem,
    text_encoding_problem,
)
from microsdc.exceptions import ColumnNotFoundError, DataValidationError, InvalidParameterError
from microsdc.io.csv import (
    _record_lines,
    check_csv_header,
    check_utf16_text,
    file_separator,
    first_undecodable,
    has_blank_lines,
    likely_encoding,
    separator_hint,
)
from microsdc.io.formats import FORMAT_NAMES, format_of
from microsdc.io.metadata import _empty_strings_to_missing, _with_metadata
from microsdc.io.text_types import NA_TEXTS, _text_types

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["number_records", "read_columns", "read_table"]


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
        among ``,``, ``;``, tab and ``|`` (``,`` when in doubt); tab for a ``.tsv``
        file.
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
        If the extension is not one of the supported formats (the message says
        which are, and how to convert an Excel, SAS or R file), ``sep`` is not
        one character or is the quote or a line break, or ``encoding`` is not a
        text encoding Python knows (a codec such as ``"rot13"`` is not one); for
        a ``sep`` given with a file that is not CSV or TSV, or an ``encoding``
        with a Parquet or Stata file (either would change nothing).
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
    if sep is not None and separator_problem(sep) is not None:
        raise param_error("sep", func, "one character other than the quote and a line break", sep)
    fmt = format_of(path)
    if encoding is not None:
        _check_encoding(encoding)
    _check_text_options(path, fmt, sep, encoding, func)
    if not path.exists():
        raise FileNotFoundError(2, "No such file", str(path))
    csv_kwargs = _csv_kwargs(path, fmt, sep, encoding, kwargs)
    try:
        if columns is not None:
            _check_columns(path, columns, csv_kwargs)
        if fmt in ("csv", "tsv"):
            return _read_csv(path, columns, csv_kwargs, kwargs)
        if fmt == "parquet":  # a float NaN noted apart from a null (io.parquet_nan)
            from microsdc.io.parquet_nan import read_parquet

            return read_parquet(path, columns, kwargs)
        df = _read_labelled(path, fmt, columns, kwargs)
    except (FileNotFoundError, ColumnNotFoundError, DataValidationError):
        raise
    except pd.errors.EmptyDataError:
        raise DataValidationError(
            f"{path.name} is empty: it has no header line and no records."
        ) from None
    except UnicodeDecodeError as exc:
        raise _undecodable(path, encoding, exc) from exc
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataValidationError(
            f"Cannot read {path.name} as {FORMAT_NAMES[fmt]} file: {first}"
        ) from exc
    return _empty_strings_to_missing(df)


def _check_text_options(
    path: Path, fmt: str, sep: str | None, encoding: str | None, func: str
) -> None:
    """Refuse a separator for a file that is not text, and an encoding for one that
    holds its own (Parquet, Stata): either would be taken and change nothing."""
    for name, value, formats, what in (
        ("sep", sep, ("csv", "tsv"), "a CSV file"),
        ("encoding", encoding, ("csv", "tsv", "spss"), "a CSV or SPSS file"),
    ):
        if value is not None and fmt not in formats:
            raise InvalidParameterError(
                f"The '{name}' parameter of {func} is {value!r}, but {path.name} is "
                f"{FORMAT_NAMES[fmt]} file, which is read without it: it would change "
                f"nothing. Leave it out (it is for {what}).",
                func=func,
                param=name,
                requirement=f"None for a file that is not {what}",
                value=value,
            )


def _check_encoding(encoding: Any, func: str = "read_table") -> None:
    """Refuse an ``encoding`` that is not a text encoding Python knows (a codec such as
    ``"rot13"`` is found by name but encodes no text)."""
    problem = text_encoding_problem(encoding)
    if problem is not None:
        raise InvalidParameterError(
            f"The 'encoding' parameter of {func} must be a text encoding known to "
            f"Python, such as 'utf-8' or 'latin-1'; {encoding!r} is {problem}.",
            func=func,
            param="encoding",
            requirement="a text encoding known to Python",
            value=encoding,
        )


def _csv_kwargs(
    path: Path, fmt: str, sep: str | None, encoding: str | None, kwargs: dict[str, Any]
) -> dict[str, Any]:
    """The separator and encoding a CSV or TSV file is read with (its separator
    detected when not given; an uncompressed file that is UTF-16 without a byte-order
    mark refused); for an SPSS file, ``encoding`` goes into ``kwargs``."""
    if fmt in ("csv", "tsv"):
        if path.suffix.lower() in (".csv", ".tsv", ".txt"):  # not compressed
            check_utf16_text(path, encoding)
        sep = file_separator(path, sep, tsv=fmt == "tsv", encoding=encoding)
        return {"sep": sep, "encoding": encoding}
    if encoding is not None and fmt == "spss":
        kwargs["encoding"] = encoding
    return {}


def _check_columns(path: Path, columns: list[str], csv_kwargs: dict[str, Any]) -> None:
    """Refuse ``columns`` that are not in the file, all of them named."""
    check_file_columns(path.name, columns, read_columns(path, **csv_kwargs))


def check_file_columns(name: str, columns: list[Any], present: list[Any]) -> None:
    """Refuse ``columns`` not among ``present`` (the columns of the file called ``name``),
    all of them named, with the file's columns, a separator hint and the close matches.

    Raises
    ------
    ColumnNotFoundError
        With ``missing`` the columns not in the file.
    """
    missing = [c for c in columns if c not in present]
    if missing:
        raise ColumnNotFoundError(
            f"{len(missing)} column(s) not in {name}: "
            f"{', '.join(repr(c) for c in missing)}. Available columns: "
            f"{', '.join(repr(c) for c in present[:30])}"
            f"{' ...' if len(present) > 30 else ''}.{separator_hint(present)}"
            f"{_close_hint(missing, present, [c for c in columns if c in present])}",
            missing=missing,
            func="read_table",
            param="columns",
        )


def _read_csv(
    path: Path, columns: list[str] | None, csv_kwargs: dict[str, Any], kwargs: dict[str, Any]
) -> pd.DataFrame:
    """A CSV or TSV file, its header checked, its text typed (:func:`_text_types`)."""
    import pandas as pd

    check_csv_header(path, csv_kwargs["sep"], csv_kwargs["encoding"])
    # the text as written: an empty field is the only missing value ("NA" may
    # be Namibia), and a column becomes numbers only when no text is lost
    # ("01" and "1" are two codes), see _text_types
    text_kwargs: dict[str, Any] = {
        "dtype": str,
        "keep_default_na": False,
        "na_values": list(NA_TEXTS),
    }
    text_kwargs.update(kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = pd.read_csv(path, usecols=columns, low_memory=False, **csv_kwargs, **text_kwargs)
    for w in caught:  # pandas' warnings, at the caller's line rather than inside microsdc
        warn(str(w.message), w.category)
    return _text_types(df) if "dtype" not in kwargs else df


def _read_labelled(
    path: Path, fmt: str, columns: list[str] | None, kwargs: dict[str, Any]
) -> pd.DataFrame:
    """An SPSS or Stata file with its metadata (user-missing codes read as values)."""
    import pyreadstat

    if fmt == "spss":
        kwargs.setdefault("user_missing", True)
        df, meta = pyreadstat.read_sav(str(path), usecols=columns, **kwargs)
        return _with_metadata(df, meta, "spss")
    from microsdc.io.stata_missing import read_stata

    return read_stata(path, columns, kwargs)


def _undecodable(path: Path, encoding: str | None, exc: UnicodeDecodeError) -> Exception:
    """The error for a file that is not in ``encoding``: where it breaks it, and the
    encoding to give."""
    guess = likely_encoding(path)
    # the reader decodes by blocks, so its position is within a block: find the
    # byte in the file
    where = first_undecodable(path, encoding or "utf-8")
    place = f" at byte offset {where[0]:,} (line {where[1]:,})" if where else ""
    return DataValidationError(
        f"Cannot read {path.name}: the byte 0x{exc.object[exc.start]:02x}{place} "
        f"is not {encoding or 'UTF-8'}. Give its encoding (encoding={guess!r}; "
        "input.encoding in a job file) or save it as UTF-8.",
        param="encoding",
    )


def number_records(
    df: pd.DataFrame, path: str | Path, sep: str | None = None, encoding: str | None = None
) -> pd.DataFrame:
    """``df`` read from ``path``, its rows labelled as a person finds them in the file:
    in a CSV file by spreadsheet row (the header is row 1, the first record row 2), in
    other formats by record number from 1. Messages that name rows then point at the
    file, not at a count from 0 (empty lines, which the reader skips, are counted; a
    record whose quoted cells span lines is one row).
    Writing drops the labels.

    Raises
    ------
    InvalidParameterError
        If ``df`` is not a pandas DataFrame: row labels are pandas' (a polars or
        pyarrow frame has none; the message says how to convert it).
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise not_pandas(df, "df", "number_records")
    path = Path(path)
    if format_of(path) not in ("csv", "tsv"):
        from microsdc.io.stata_missing import relabel_rows

        return relabel_rows(df, pd.RangeIndex(1, 1 + len(df)))
    lines = _record_lines(path, sep, encoding) if has_blank_lines(path, encoding) else None
    if lines is not None and len(lines) == len(df):  # blank lines skipped by the reader
        df.index = pd.Index(lines)
    else:
        df.index = pd.RangeIndex(2, 2 + len(df))
    return df


def _close_hint(missing: list[str], present: list[str], taken: list[str]) -> str:
    from microsdc._validation import close_matches_hint

    return close_matches_hint(missing, present, taken=taken)


def read_columns(path: str | Path, **kwargs: Any) -> list[str]:
    """Column names of a data file, read from its header or metadata only.

    Raises
    ------
    FileNotFoundError, InvalidParameterError
        As in :func:`read_table`.
    """
    import pandas as pd

    path = Path(path)
    fmt = format_of(path)
    if not path.exists():
        raise FileNotFoundError(2, "No such file", str(path))
    if fmt in ("csv", "tsv"):
        encoding = kwargs.get("encoding")
        sep = file_separator(path, kwargs.get("sep") or None, tsv=fmt == "tsv", encoding=encoding)
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
