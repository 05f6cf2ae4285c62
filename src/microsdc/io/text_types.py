"""The columns of a CSV file as numbers where no text is lost, and back as written.

A CSV file stores text: a column is read as numbers only when every value is written
as Python writes that number ("01" and "1" stay two codes), and float columns whose
whole numbers came as integers are written back so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["NA_TEXTS", "WHOLE_AS_INTEGERS", "weights_as_numbers"]


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


def weights_as_numbers(df: pd.DataFrame, column: Any) -> pd.DataFrame:
    """``df`` with its weight column ``column`` as floats when the file held it as
    texts that all read as numbers ("12.50", "0012", ".5": a CSV column stays text
    unless every value is written as Python writes its number), else ``df`` as it is
    (the library's check of the weights then names the texts that are not numbers).

    The library refuses weights held as text, since converting them silently would
    take a mistyped column for numbers; a weight column named by a job or a command
    is numeric by declaration, and the file was read as text only to keep codes."""
    import pandas as pd

    if column is None or column not in df.columns:
        return df
    s = df[column]
    if not pd.api.types.is_string_dtype(s.dtype) or isinstance(s.dtype, pd.CategoricalDtype):
        return df
    values = pd.to_numeric(s, errors="coerce")
    if (values.isna() & s.notna()).any():
        return df
    out = df.copy(deep=False)
    out[column] = values.astype("float64")
    return out
