"""SPSS and Stata metadata: labels and user-missing declarations read with pyreadstat
into ``df.attrs`` and written back for the columns still present."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from microsdc.backends.dispatch import accepts_frames
from microsdc.data import metadata as _pandas_metadata
from microsdc.data.metadata import METADATA

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["METADATA", "file_metadata"]


def _engine_metadata(df: Any) -> dict[str, Any]:
    """The metadata an engine frame carries: a pyarrow table made from a labelled
    pandas frame holds its ``attrs`` in the schema's pandas metadata (which
    ``Table.to_pandas`` restores); polars, DuckDB and Spark frames carry none."""
    if type(df).__module__.split(".", 1)[0] != "pyarrow":
        return {}
    metadata = df.schema.metadata
    raw = metadata.get(b"pandas") if isinstance(metadata, dict) else None
    if raw is None:
        return {}
    try:
        meta = json.loads(raw).get("attributes", {}).get(METADATA)
    except (ValueError, AttributeError):
        return {}
    return _json_keys_back(meta, df.schema) if isinstance(meta, dict) else {}


def _json_keys_back(meta: dict[str, Any], schema: Any) -> dict[str, Any]:
    """``meta`` with the keys JSON turned into texts made numbers again: the codes of
    the value labels of a numeric column (1 and 1.5, not "1" and "1.5") and the row
    labels of the Stata extended-missing notes."""
    import pyarrow as pa

    def number(key: str) -> Any:
        try:
            return int(key)
        except ValueError:
            try:
                return float(key)
            except ValueError:
                return key

    out = dict(meta)
    numeric = {
        field.name
        for field in schema
        if pa.types.is_integer(field.type) or pa.types.is_floating(field.type)
    }
    labels = meta.get("value_labels")
    if isinstance(labels, dict):
        out["value_labels"] = {
            col: {number(k): v for k, v in codes.items()} if col in numeric else codes
            for col, codes in labels.items()
        }
    notes = meta.get("extended_missing")
    if isinstance(notes, dict):
        out["extended_missing"] = {
            col: {number(k): letter for k, letter in cells.items()} for col, cells in notes.items()
        }
    return out


#: :func:`microsdc.data.metadata.file_metadata` for every kind of frame.
file_metadata = accepts_frames(lazy=_engine_metadata, eager=_engine_metadata)(
    _pandas_metadata.file_metadata
)


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
        # Stata labels integer codes; the labels of extended missing values (.a to .z)
        # are written with them by io.stata_missing, and never drop the others
        codes = {
            k: label
            for k, label in v.items()
            if isinstance(k, int | float) and not isinstance(k, bool) and float(k).is_integer()
        }
        if codes and _labels_fit(df[c], codes):
            values[c] = {int(k): label for k, label in codes.items()}
    if values:
        out["value_labels"] = values
    return out
