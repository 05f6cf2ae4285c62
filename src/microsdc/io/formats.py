"""File formats by extension, and the column names each format can hold."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from microsdc.exceptions import DataValidationError, InvalidParameterError

__all__ = ["COMPRESSED", "FORMATS", "check_column_names"]


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
