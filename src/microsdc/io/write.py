"""Writing a data file, under a temporary name moved into place."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from microsdc._validation import check_path, param_error, separator_problem, text_encoding_problem
from microsdc.backends.dispatch import accepts_frames
from microsdc.exceptions import DataValidationError, InvalidParameterError
from microsdc.io.formats import check_column_names, format_of
from microsdc.io.metadata import METADATA, _engine_metadata, _spss_metadata
from microsdc.io.parquet_nan import NAN_CELLS, write_parquet
from microsdc.io.stata_missing import warn_letters_lost, write_stata
from microsdc.io.text_types import _as_written
from microsdc.io.write_errors import write_failure

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["check_output_path", "write_table"]


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether ``a`` and ``b`` name one file: the same path once resolved (``..``,
    links), or, for files that exist, the same file on disk (another spelling on a
    case-insensitive file system, a hard link)."""
    first, second = Path(a).resolve(), Path(b).resolve()
    try:
        return first == second or (
            first.exists() and second.exists() and os.path.samefile(first, second)
        )
    except OSError:
        return False


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
    format_of(path, writing=True)
    if not path.parent.exists():
        raise FileNotFoundError(2, "No such directory", str(path.parent))
    for src in inputs:
        if same_file(src, path):
            raise InvalidParameterError(
                f"The output {str(path)!r} is the input file; write the anonymised data to a "
                "new file so that the original is kept."
            )
    return path


def _as_pandas(df: Any) -> pd.DataFrame:
    """An eager polars ``DataFrame`` or pyarrow ``Table`` as the pandas frame
    :func:`write_table` writes, through Arrow: integer and boolean columns with nulls
    as pandas' nullable ``Int``/``boolean`` types (not floats, which would write
    ``3.0``, nor objects), a float column's NaN cells noted apart from its nulls (as
    :func:`~microsdc.io.read_table` notes them, so Parquet keeps both), and the
    labels a pyarrow table made from a labelled pandas frame carries."""
    import narwhals as nw
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    from microsdc.backends import refuse_unreadable_integers

    nwf = nw.from_native(df, eager_only=True)
    refuse_unreadable_integers(nwf, nwf.columns, "write_table")
    table = nwf.to_arrow()
    out = table.to_pandas()
    nullable = {
        **{getattr(pa, t)(): pd.api.types.pandas_dtype(_INTS[t]) for t in _INTS},
        pa.bool_(): pd.BooleanDtype(),
    }
    nan: dict[str, list[int]] = {}
    for i, (name, column) in enumerate(zip(table.column_names, table.columns, strict=True)):
        if column.null_count and column.type in nullable:
            out.isetitem(i, column.to_pandas(types_mapper=nullable.get))
        elif pa.types.is_floating(column.type):
            cells = pc.fill_null(pc.is_nan(column), False).to_numpy(zero_copy_only=False)
            if cells.any():
                nan[name] = out.index[cells].tolist()
    if nan:
        out.attrs[NAN_CELLS] = nan
    if meta := _engine_metadata(df):  # the codes as numbers, where JSON made them texts
        out.attrs[METADATA] = meta
    return out


#: pyarrow's integer types -> pandas' nullable ones.
_INTS = {
    f"{sign}int{bits}": f"{sign.upper()}Int{bits}" for sign in ("", "u") for bits in (8, 16, 32, 64)
}


def _write_engine_frame(df: Any, path: str | Path, **options: str | None) -> None:
    """Write an eager polars or pyarrow frame (see :func:`_as_pandas`)."""
    write_table(_as_pandas(df), path, **options)


@accepts_frames(eager=_write_engine_frame)
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
    df : pandas.DataFrame, polars.DataFrame or pyarrow.Table
        A polars or pyarrow frame is written as the same rows in pandas would be
        (an integer column with nulls stays integers; a float NaN stays apart from
        a null in Parquet). SPSS/Stata labels travel in a pandas frame's ``attrs``
        (:func:`file_metadata`): a pyarrow table made from a labelled pandas frame
        keeps them, a polars frame has none (write the labelled pandas frame to keep
        them). A lazy frame is refused with how to collect it.
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
        If ``df`` is not a data frame or is a lazy one (polars ``LazyFrame``, DuckDB,
        Spark; the message says how to collect it), the extension is not one of the
        supported formats, ``encoding`` is not
        a text encoding (``"rot13"`` is a codec, not one), ``sep`` is not one
        character or is the quote or a line break, or ``line_terminator`` is not
        a line break.
    DataValidationError
        If a column name cannot be stored in an SPSS or Stata file (all such
        names are listed), a value or column name has no code in ``encoding``
        (the first such is named), or the writer library refuses a column that
        mixes kinds of values, such as numbers and text (each such column is
        named with a value of each kind).
    OutputError
        If the writer library refuses the data for another reason (its message
        is kept).
    FileNotFoundError
        If the folder does not exist.
    """
    func = "write_table"
    path = Path(check_path(path, "path", func))
    for name, value in (("encoding", encoding), ("sep", sep), ("line_terminator", line_terminator)):
        if value is not None and not isinstance(value, str):
            raise param_error(name, func, "a str or None", value)
    if encoding is not None and (problem := text_encoding_problem(encoding)) is not None:
        raise param_error(
            "encoding", func, f"a text encoding ({encoding!r} is {problem})", encoding
        )
    if sep is not None and separator_problem(sep) is not None:
        raise param_error("sep", func, "one character other than the quote and a line break", sep)
    if line_terminator is not None and line_terminator not in ("\n", "\r\n", "\r"):
        raise param_error("line_terminator", func, "'\\n', '\\r\\n' or '\\r'", line_terminator)
    fmt = format_of(path, writing=True)
    if not path.parent.exists():
        raise FileNotFoundError(2, "No such directory", str(path.parent))
    check_column_names(df.columns, path)
    if fmt != "stata":
        warn_letters_lost(df, f"{path.name} ({fmt})")
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
            write_parquet(df, tmp)
        elif fmt == "spss":
            import pyreadstat

            pyreadstat.write_sav(
                df, tmp, compress=path.suffix.lower() == ".zsav", **_spss_metadata(df)
            )
        else:
            # format 118 (Stata 14+): UTF-8 texts and names, long texts as strL; with
            # extended missing values (.a to .z) to keep, through pyreadstat
            write_stata(df, tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except Exception as exc:  # a writer library's own error: name the column and the fix
        error = write_failure(df, path.name, fmt, exc)
        if error is exc:
            raise
        raise error from exc
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


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
