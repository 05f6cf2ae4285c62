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
values (``.a`` to ``.z``) are read as missing (every count treats them so) and
written back as the same letters, with their value labels, in the cells still
missing (:mod:`~microsdc.io.stata_missing`; such a file is written through
pyreadstat); a frame read with ``user_missing=True`` holds the letters as texts
and is written the same way.

Parquet keeps every dtype, and a float column's NaN stays apart from its nulls
(pandas holds both as NaN; :mod:`~microsdc.io.parquet_nan` notes which were NaN and
writes them back). The other formats lose some: CSV stores text, so
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

The package is split by concern: :mod:`~microsdc.io.formats` (extensions, column
names), :mod:`~microsdc.io.csv` (separator, encoding, header),
:mod:`~microsdc.io.text_types` (CSV text as numbers), :mod:`~microsdc.io.metadata`
(SPSS and Stata labels), :mod:`~microsdc.io.stata_missing` (Stata's ``.a`` to ``.z``),
:mod:`~microsdc.io.read`, :mod:`~microsdc.io.write` (:mod:`~microsdc.io.write_errors`:
a writer library's refusal named), and
:mod:`~microsdc.io.engines` (files opened and written by a lazy engine).
"""

from __future__ import annotations

from microsdc.io.csv import (
    SEPARATORS,
    check_csv_header,
    check_utf16_text,
    detect_separator,
    first_undecodable,
    has_blank_lines,
    likely_encoding,
    release_style,
    separator_hint,
    utf16_without_bom,
)
from microsdc.io.formats import COMPRESSED, FORMATS, check_column_names
from microsdc.io.metadata import METADATA, file_metadata
from microsdc.io.read import number_records, read_columns, read_table
from microsdc.io.text_types import NA_TEXTS, WHOLE_AS_INTEGERS
from microsdc.io.write import check_output_path, write_table

__all__ = [
    "COMPRESSED",
    "FORMATS",
    "METADATA",
    "NA_TEXTS",
    "SEPARATORS",
    "WHOLE_AS_INTEGERS",
    "check_column_names",
    "check_csv_header",
    "check_output_path",
    "check_utf16_text",
    "detect_separator",
    "file_metadata",
    "first_undecodable",
    "has_blank_lines",
    "likely_encoding",
    "number_records",
    "read_columns",
    "read_table",
    "release_style",
    "separator_hint",
    "utf16_without_bom",
    "write_table",
]
