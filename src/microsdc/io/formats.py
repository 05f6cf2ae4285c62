"""File formats by extension, and the column names each format can hold."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from microsdc.exceptions import DataValidationError, InvalidParameterError

__all__ = ["COMPRESSED", "FORMATS", "FORMAT_NAMES", "check_column_names", "format_of"]


#: Each format's name with its article, as messages say it ("an SPSS file").
FORMAT_NAMES = {
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


def format_of(path: str | Path, writing: bool = False) -> str:
    """The format of ``path`` by its extension (``writing``: an output's, for the message).

    Raises
    ------
    InvalidParameterError
        For an extension of no format read here: the message lists those that are
        and, for a known other format (Excel, SAS, R, ...), says how to convert it.
    """
    suffixes = [s.lower() for s in Path(path).suffixes]
    suffix = (
        suffixes[-2]
        if suffixes and suffixes[-1] in COMPRESSED
        else (suffixes[-1] if suffixes else "")
    )
    if suffix in FORMATS:
        return FORMATS[suffix]
    does = "writes" if writing else "reads"
    formats = (
        f"microsdc {does} CSV (.csv, .txt, .tsv; also compressed, .csv.gz), Parquet "
        "(.parquet, .pq), SPSS (.sav, .zsav) and Stata (.dta) files"
    )
    known = _OTHER_FORMATS.get(suffix)
    if known is None:
        message = (
            f"Cannot tell the format of {str(path)!r} from its extension "
            f"{suffix or '(none)'!r}: {formats}. Give the file one of these extensions."
        )
    elif writing:
        message = (
            f"{str(path)!r} would be {known[0]}, which microsdc does not write: {formats}. "
            "Write .csv (spreadsheets open it) or .parquet, and convert that if you need to."
        )
    else:
        convert = known[1].format(stem=Path(path).stem, path=str(path))
        message = f"{str(path)!r} is {known[0]}, which microsdc does not read: {formats}. {convert}"
    raise InvalidParameterError(message)


_SPREADSHEET = (
    "Save the sheet as CSV (Excel: File > Save As > CSV UTF-8), or convert it in Python: "
    "pandas.read_excel({path!r}).to_parquet('{stem}.parquet')."
)
_R_DATA = (
    "Write it from R as Parquet (arrow::write_parquet(df, '{stem}.parquet')), as Stata "
    "(haven::write_dta(df, '{stem}.dta'), which keeps value labels) or as CSV "
    "(write.csv(df, '{stem}.csv', row.names = FALSE))."
)

#: Formats a statistician may have, not read here, and how to convert each.
_OTHER_FORMATS = {
    ".xlsx": ("an Excel workbook", _SPREADSHEET),
    ".xlsm": ("an Excel workbook", _SPREADSHEET),
    ".xls": ("an Excel workbook", _SPREADSHEET),
    ".ods": ("an OpenDocument spreadsheet", _SPREADSHEET),
    ".sas7bdat": (
        "a SAS data set",
        "Convert it in Python: pandas.read_sas({path!r}).to_parquet('{stem}.parquet'), or "
        "export it from SAS as CSV (PROC EXPORT) or Stata (DBMS=DTA).",
    ),
    ".xpt": (
        "a SAS transport file",
        "Convert it in Python: pandas.read_sas({path!r}).to_parquet('{stem}.parquet').",
    ),
    ".rds": ("an R data file", _R_DATA),
    ".rdata": ("an R data file", _R_DATA),
    ".rda": ("an R data file", _R_DATA),
    ".json": (
        "a JSON file",
        "Convert it in Python: pandas.read_json({path!r}).to_parquet('{stem}.parquet').",
    ),
    ".feather": (
        "a Feather (Arrow) file",
        "Convert it in Python: pandas.read_feather({path!r}).to_parquet('{stem}.parquet').",
    ),
    ".arrow": (
        "an Arrow file",
        "Convert it in Python: pandas.read_feather({path!r}).to_parquet('{stem}.parquet').",
    ),
    ".duckdb": (
        "a DuckDB database",
        'Read a table of it with --engine duckdb --table NAME (input.engine = "duckdb" and '
        "input.table in a job file).",
    ),
    ".db": (
        "a database file",
        "A DuckDB database is read with --engine duckdb --table NAME (input.engine = "
        '"duckdb" and input.table in a job file).',
    ),
}


def check_column_names(columns: Any, path: str | Path) -> None:
    """Raise unless every column name can be stored in the format of ``path``.

    Raises
    ------
    DataValidationError
        Listing the names an SPSS or Stata file cannot hold.
    """
    fmt = format_of(path, writing=True)
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
            f"{len(bad)} column name(s) cannot be stored in {FORMAT_NAMES[fmt]} file "
            f"({rule}): {', '.join(repr(c) for c in bad[:10])}{' ...' if len(bad) > 10 else ''}"
            ". Rename them, or write .parquet or .csv.",
            failure_cases=bad,
        )
