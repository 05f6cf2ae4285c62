"""Stata's extended missing values (``.a`` to ``.z``) kept from reading to writing.

A Stata numeric variable can hold, besides ``.``, the missing values ``.a`` to
``.z``, usually labelled ("refused", "don't know"). microsdc reads them as missing
(NaN: every count treats them as missing, as Stata does) and notes in the
frame's metadata which record held which letter. Writing a Stata file puts the
letter back in every cell that is still missing, with the value labels of the
letters; a cell blanked by suppression is written as plain ``.``. Frames read with
``user_missing=True`` hold the letters as texts and are written the same way.

The notes are keyed by the row labels of the frame, so records may be filtered
or reordered in between; a frame whose row labels repeat cannot place them and
is refused on writing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from microsdc.data.metadata import METADATA, file_metadata
from microsdc.exceptions import DataValidationError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_stata", "relabel_rows", "write_stata"]

_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")


def _is_letter(value: Any) -> bool:
    return isinstance(value, str) and value in _LETTERS


def read_stata(path: Path, columns: list[str] | None, kwargs: dict[str, Any]) -> pd.DataFrame:
    """A Stata file with its metadata; extended missing values read as missing (unless
    ``user_missing=True`` is given) and noted by row label."""
    import pyreadstat

    from microsdc.io.metadata import _numeric_objects, _with_metadata

    keep = bool(kwargs.get("user_missing"))
    df, meta = pyreadstat.read_dta(str(path), usecols=columns, **{**kwargs, "user_missing": True})
    declared = {str(c): list(v) for c, v in (meta.missing_user_values or {}).items() if v}
    types = meta.readstat_variable_types or {}
    noted: dict[str, dict[Any, str]] = {}
    for col in declared:
        if col not in df.columns or types.get(col) == "string":
            continue
        s = df[col]
        hit = s.map(_is_letter).to_numpy(dtype=bool)
        if hit.any():
            noted[col] = dict(zip(s.index[hit], s[hit], strict=True))
            if not keep:
                df[col] = s.mask(hit)
    df = _with_metadata(_numeric_objects(df), meta, "stata")
    df.attrs[METADATA]["missing_user_values"] = declared
    df.attrs[METADATA]["extended_missing"] = {} if keep else noted
    return df


def relabel_rows(df: pd.DataFrame, index: pd.Index) -> pd.DataFrame:
    """``df`` with the row labels ``index`` (same length), its notes of Stata extended
    missing values and of Parquet NaN cells moved to the new labels."""
    from microsdc.io.parquet_nan import NAN_CELLS

    noted = file_metadata(df).get("extended_missing")
    nan_cells = df.attrs.get(NAN_CELLS)
    if noted:
        position = {label: i for i, label in enumerate(df.index)}
        df.attrs[METADATA]["extended_missing"] = {
            col: {index[position[label]]: letter for label, letter in cells.items()}
            for col, cells in noted.items()
        }
    if nan_cells:  # a Parquet float column's NaN cells (io.parquet_nan)
        df.attrs[NAN_CELLS] = {
            col: index[df.index.get_indexer(labels)].tolist() for col, labels in nan_cells.items()
        }
    df.index = index
    return df


def _with_letters(df: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """``df`` with the noted extended missing values put back in the cells still missing,
    and the letters of each column that holds some."""
    import pandas as pd

    meta = file_metadata(df)
    noted = meta.get("extended_missing", {}) if meta.get("format") == "stata" else {}
    declared = meta.get("missing_user_values", {}) if meta.get("format") == "stata" else {}
    out = df
    letters: dict[str, list[str]] = {}
    for col in df.columns:
        if col not in declared and col not in noted:
            continue
        s = df[col]
        if noted.get(col):
            if not df.index.is_unique:
                raise DataValidationError(
                    f"Cannot write the Stata extended missing values (.a to .z) of column "
                    f"{col!r}: the row labels of the frame repeat, so the records they belong "
                    "to cannot be found. Keep the row labels of the frame as read (or reset "
                    "them before the extended missing values are read).",
                    func="write_table",
                )
            codes = pd.Series(noted[col], dtype=object).reindex(s.index)
            put = (s.isna() & codes.notna()).to_numpy(dtype=bool)
            if put.any():
                s = s.astype(object).mask(put, codes)
        found = sorted({v for v in s if _is_letter(v)})
        if found:
            if out is df:
                out = df.copy()
            out[col] = s
            letters[col] = found
    return out, letters


def write_stata(df: pd.DataFrame, tmp: str) -> None:
    """Write ``df`` as a Stata file at ``tmp``: with pandas (format 118), or with
    pyreadstat when extended missing values are to be written."""
    from microsdc.io.metadata import _kept, _stata_metadata

    out, letters = _with_letters(df)
    if not letters:
        df.to_stata(tmp, write_index=False, version=118, **_stata_metadata(df))
        return
    import pyreadstat

    meta = file_metadata(df)
    plain = _stata_metadata(df)
    labels = dict(plain.get("value_labels", {}))
    for col, mapping in _kept(df, meta.get("value_labels", {})).items():
        if col in letters:
            kept = {k: v for k, v in mapping.items() if _is_letter(k) or _integral(k)}
            labels[col] = {(k if _is_letter(k) else int(k)): v for k, v in kept.items()}
    pyreadstat.write_dta(
        out,
        tmp,
        version=15,
        column_labels=plain.get("variable_labels") or None,
        variable_value_labels=labels or None,
        missing_user_values=letters,
    )


def _integral(value: Any) -> bool:
    return (
        isinstance(value, int | float) and not isinstance(value, bool) and float(value).is_integer()
    )


def warn_letters_lost(df: pd.DataFrame, target: str) -> None:
    """Warn that the Stata extended missing values (.a to .z) of ``df`` become plain
    missing values in ``target`` (a format other than Stata's), naming the columns."""
    from microsdc._core.warn import warn
    from microsdc.exceptions import SDCWarning

    _, letters = _with_letters(df)
    if not letters:
        return
    listed = "; ".join(f"{col!r}: {', '.join(found)}" for col, found in letters.items())
    warn(
        f"{target} cannot hold Stata's extended missing values, which become plain missing "
        f"values there ({listed}), their labels lost. Write a .dta file to keep them.",
        SDCWarning,
    )
