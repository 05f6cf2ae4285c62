"""Reading and writing CSV, Parquet, SPSS (.sav) and Stata (.dta) files.

Formats are chosen by file extension. Parquet goes through pyarrow, SPSS through
pyreadstat, Stata through pandas. Dtypes are preserved as far as each format
allows (nullable integers survive Parquet; CSV infers types on reading).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from microsdc.exceptions import ColumnNotFoundError, InvalidParameterError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMATS", "read_columns", "read_table", "write_table"]

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


def _format_of(path: str | Path) -> str:
    suffixes = [s.lower() for s in Path(path).suffixes]
    suffix = (
        suffixes[-2]
        if suffixes and suffixes[-1] in (".gz", ".bz2", ".zip", ".xz")
        else (suffixes[-1] if suffixes else "")
    )
    if suffix not in FORMATS:
        raise InvalidParameterError(
            f"Cannot tell the format of {str(path)!r} from its extension {suffix or '(none)'!r}; "
            f"use one of {', '.join(sorted(FORMATS))}."
        )
    return FORMATS[suffix]


def read_table(path: str | Path, columns: list[str] | None = None, **kwargs: Any) -> pd.DataFrame:
    """Read a data file into a DataFrame.

    Parameters
    ----------
    path : str or pathlib.Path
        ``.csv``/``.txt`` (comma separated, optionally compressed), ``.tsv``,
        ``.parquet``, ``.sav``/``.zsav`` (SPSS) or ``.dta`` (Stata).
    columns : list of str, optional
        Read only these columns (all by default).
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
        If the extension is not one of the supported formats.
    ColumnNotFoundError
        If ``columns`` names columns that are not in the file (all are listed).
    """
    import pandas as pd

    path = Path(path)
    fmt = _format_of(path)
    if not path.exists():
        raise FileNotFoundError(2, "No such file", str(path))
    if columns is not None:
        present = read_columns(path, **({"sep": kwargs["sep"]} if "sep" in kwargs else {}))
        missing = [c for c in columns if c not in present]
        if missing:
            raise ColumnNotFoundError(
                f"{len(missing)} column(s) not in {path.name}: "
                f"{', '.join(repr(c) for c in missing)}. Available columns: "
                f"{', '.join(repr(c) for c in present[:30])}{' ...' if len(present) > 30 else ''}.",
                missing=missing,
            )
    if fmt in ("csv", "tsv"):
        sep = "\t" if fmt == "tsv" else kwargs.pop("sep", ",")
        return pd.read_csv(path, sep=sep, usecols=columns, low_memory=False, **kwargs)
    if fmt == "parquet":
        return pd.read_parquet(path, columns=columns, **kwargs)
    if fmt == "spss":
        import pyreadstat

        df, _meta = pyreadstat.read_sav(str(path), usecols=columns, **kwargs)
        return df
    return pd.read_stata(path, columns=columns, **kwargs)


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
        sep = "\t" if fmt == "tsv" else kwargs.get("sep", ",")
        return [str(c) for c in pd.read_csv(path, sep=sep, nrows=0).columns]
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


def write_table(df: pd.DataFrame, path: str | Path) -> None:
    """Write ``df`` in the format given by the extension of ``path``.

    Raises
    ------
    InvalidParameterError
        If the extension is not one of the supported formats.
    """
    path = Path(path)
    fmt = _format_of(path)
    if path.parent and not path.parent.exists():
        raise FileNotFoundError(2, "No such directory", str(path.parent))
    if fmt == "csv":
        df.to_csv(path, index=False)
    elif fmt == "tsv":
        df.to_csv(path, index=False, sep="\t")
    elif fmt == "parquet":
        df.to_parquet(path, index=False)
    elif fmt == "spss":
        import pyreadstat

        pyreadstat.write_sav(df, str(path))
    else:
        df.to_stata(path, write_index=False)
