"""Data-quality warnings about key variables: what a value looks like it means.

A column missing in every record, SPSS user-missing codes read as values, texts
that usually stand for "missing" ("NA", "?") or carry spaces at their ends, and
weights written with decimal commas. Each warning names the column, the values,
their records and how to declare or fix them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from microsdc._core.warn import warn
from microsdc.exceptions import DataValidationError, SDCWarning

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "MISSING_LIKE_TEXTS",
    "decimal_comma_hint",
    "refuse_text_weights",
    "text_weights_error",
    "warn_all_missing",
    "warn_suspect_key_texts",
    "warn_user_missing_codes",
]


def decimal_comma_hint(texts: Sequence[str]) -> str:
    """A sentence for weights that are not numbers, when they all look like decimal
    commas ("2,5"); else "".

    Examples
    --------
    >>> decimal_comma_hint(["2,5", "1,0"])[:37]
    ' They look like decimal commas: write'
    >>> decimal_comma_hint(["heavy"])
    ''
    """
    import re

    if texts and all(re.fullmatch(r"\s*-?\d*,\d+\s*", str(t)) for t in texts):
        return (
            " They look like decimal commas: write the weights with a decimal point (a "
            "spreadsheet does so when saved with '.' as its decimal separator)."
        )
    return ""


def text_weights_error(
    name: str, func: str, kind: str, texts: Sequence[str], fix: str
) -> DataValidationError:
    """The refusal of a weight column held as text (``kind``: its type, as the frame
    names it), with a few of its ``texts`` (the non-numbers first) and how to convert
    it (``fix``), in the same words on every engine.

    Examples
    --------
    >>> str(text_weights_error("'w'", "f", "String", ["2,5"], "Cast it."))[:58]
    "The weight column 'w' of f must be numeric: it is String, "
    """
    shown = ", ".join(repr(str(v)) for v in texts)
    return DataValidationError(
        f"The weight column {name} of {func} must be numeric: it is {kind}"
        + (f", with values such as {shown}." if shown else ".")
        + decimal_comma_hint([str(v) for v in texts])
        + f" {fix}",
        func=func,
    )


def refuse_text_weights(
    values: pd.Series, name: str, column: Any, func: str, *, words_too: bool = False
) -> None:
    """Raise for pandas weights held as text (a string dtype, or an object column with
    a text in it) that all read as numbers, as the engines refuse a String weight
    column: converting them silently would take a mistyped column for numbers.
    Texts that are not numbers are left to the caller's own error, which names their
    rows, unless ``words_too`` (a caller that would read them as 0 or missing).

    ``name`` is how the message names the weights (``"'w'"`` for a column,
    ``"weights"`` for an array), ``column`` the column's label (None for an array).

    Raises
    ------
    DataValidationError
        Naming the column, its dtype, a few of its texts and the fix
        (``df[col].astype(float)``).
    """
    import pandas as pd

    dtype = values.dtype
    if isinstance(dtype, pd.CategoricalDtype) or not pd.api.types.is_string_dtype(dtype):
        return
    texts = values[[isinstance(v, str) for v in values.tolist()]]
    if not len(texts):
        return  # numbers (or missing values) in an object column
    words = texts[pd.to_numeric(texts, errors="coerce").isna().to_numpy()]
    if len(words) and not words_too:
        return
    shown = list(dict.fromkeys((words if len(words) else texts).tolist()))[:5]
    fix = (
        f"Convert it to numbers first, e.g. df[{column!r}].astype(float)."
        if column is not None
        else "Pass numbers, e.g. np.asarray(weights, dtype=float)."
    )
    raise text_weights_error(name, func, f"text (dtype {dtype})", shown, fix)


def warn_all_missing(df: pd.DataFrame, columns: Sequence[Any], missing_values: Any = None) -> None:
    """Warn (:class:`DisclosureRiskWarning`) about each key variable missing in every record.

    Such a column tells no record apart, which is seldom what was meant: a wrong
    column, separator or missing-value code is the usual cause.
    """
    from microsdc.encode import missing_mask
    from microsdc.encode import warn_all_missing as warn_column

    if len(df) == 0:
        return
    for col in columns:
        if bool(missing_mask(df[col], missing_values or []).all()):
            warn_column(col)  # the message of the encode step


#: Texts that often stand for a missing value in exported files (R, SAS, Stata, SQL,
#: spreadsheets, the UCI adult file); read as values unless declared missing.
MISSING_LIKE_TEXTS = (
    "NA",
    "N/A",
    "n/a",
    "NaN",
    "nan",
    "NULL",
    "null",
    "None",
    "#N/A",
    "<NA>",
    ".",
    "?",
)
_MISSING_LIKE = frozenset(MISSING_LIKE_TEXTS)


def warn_user_missing_codes(
    df: pd.DataFrame, columns: Sequence[Any], missing_values: Any = None, option: str = ""
) -> None:
    """Warn (:class:`~microsdc.exceptions.SDCWarning`) about key variables whose SPSS
    user-missing codes (declared in the file, ``missing_ranges`` of
    :func:`microsdc.io.file_metadata`) occur and are not declared missing here.

    They are read as values (a "refused" ``99`` is a category of its own), as the file
    keeps them; the warning names the codes found, their records, and how to declare
    them (``option`` as for :func:`warn_suspect_key_texts`).
    """

    import numpy as np
    import pandas as pd

    from microsdc.data.metadata import file_metadata
    from microsdc.encode import missing_mask, missing_values_for

    ranges = file_metadata(df).get("missing_ranges", {})
    for col in columns:
        spans = ranges.get(str(col))
        if not spans or not pd.api.types.is_numeric_dtype(df[col].dtype):
            continue
        x = df[col].astype("float64").to_numpy(na_value=np.nan)
        inside = np.zeros(len(x), dtype=bool)
        for span in spans:
            lo, hi = (span["lo"], span["hi"]) if isinstance(span, dict) else (span, span)
            inside |= (x >= float(lo)) & (x <= float(hi))
        inside &= ~missing_mask(df[col], missing_values_for(missing_values, col))
        if not inside.any():
            continue
        codes, counts = np.unique(x[inside], return_counts=True)
        texts = [str(int(c)) if float(c).is_integer() else repr(float(c)) for c in codes[:10]]
        shown = ", ".join(f"{t} ({n:,} record(s))" for t, n in zip(texts, counts, strict=False))
        how = _declaring(option, texts, ", ".join(texts))  # numbers, unquoted
        warn(
            f"key variable {col!r} holds codes the file declares user-missing: {shown}. "
            f"They are read as values, not as missing. If they mean missing, declare them: "
            f"{how}.",
            SDCWarning,
        )


def _declaring(option: str, texts: list[str], listed: str) -> str:
    """How to declare ``texts`` missing: ``option`` with ``{0}`` the texts joined by
    commas and ``{1}`` ``listed`` (as a job file's list holds them), or the Python
    parameter ``missing_values=``."""
    return option.format(",".join(texts), listed) if option else f"missing_values={texts!r}"


def _tally(values: list[Any], counts: Any, flags: list[bool]) -> list[tuple[str, int]]:
    """The flagged texts with their records, most records first (then by text)."""
    found = [(str(v), int(n)) for v, n, f in zip(values, counts, flags, strict=True) if f]
    return sorted(found, key=lambda item: (-item[1], item[0]))


def warn_suspect_key_texts(
    df: pd.DataFrame,
    columns: Sequence[Any],
    missing_values: Any = None,
    option: str = "",
    records: Any = None,
) -> None:
    """Warn (:class:`~microsdc.exceptions.SDCWarning`) about key-variable texts that are
    likely not what they seem.

    - A text that often means "missing" (:data:`MISSING_LIKE_TEXTS`, spaces around it
      allowed: ``" ?"`` in the UCI adult file) and is not declared so. Such a text is a
      value: "NA" is also Namibia, and a value taken for a missing one would match
      every record. The warning names the column, the texts and their records, and
      how to declare them: ``option`` is a template whose ``{0}`` gets the texts
      joined by commas and ``{1}`` the texts quoted (default: the Python parameter
      ``missing_values=``).
    - Texts with spaces at the start or end (``" Male"``): another value than the
      same text without them, though a table shows both alike.

    ``records`` (one count per row of ``df``) makes each row stand for that many
    records: the distinct key combinations an engine reports.
    """

    import numpy as np
    import pandas as pd

    from microsdc.encode import missing_values_for

    weight = None if records is None else np.asarray(records, dtype=np.int64)
    for col in columns:
        s = df[col]
        if not (s.dtype == object or pd.api.types.is_string_dtype(s.dtype)):
            continue
        # each distinct value once: a column of a million records has few of them
        codes, uniques = pd.factorize(s)
        present = codes >= 0
        counts = np.bincount(
            codes[present],
            weights=None if weight is None else weight[present],
            minlength=len(uniques),
        ).astype(np.int64)
        values = [v if isinstance(v, str) else "" for v in uniques]  # "" flags nothing
        # declared codes match with the spaces around them left out (as missing_mask)
        declared = {str(v).strip() for v in missing_values_for(missing_values, col)}
        bare = [v.strip() for v in values]
        like = [b in _MISSING_LIKE and b not in declared for b in bare]
        padded = [
            not hit and b != v and b not in declared
            for hit, b, v in zip(like, bare, values, strict=True)
        ]
        if any(like):
            found = _tally(values, counts, like)
            shown = ", ".join(f"{t!r} ({n:,} record(s))" for t, n in found)
            texts = list(dict.fromkeys(t.strip() for t, _ in found))
            how = _declaring(option, texts, ", ".join(f'"{t}"' for t in texts))
            warn(
                f"key variable {col!r} holds {shown}: read as a value, not as missing. If it "
                f"means missing, declare it: {how}.",
                SDCWarning,
            )
        if any(padded):
            found = _tally(values, counts, padded)
            n = sum(c for _, c in found)
            shown = ", ".join(repr(t) for t, _ in found[:3]) + (", ..." if len(found) > 3 else "")
            warn(
                f"key variable {col!r} holds {n:,} record(s) with spaces at the start or end "
                f"of the text ({shown}): each is another value than the text without them. "
                "Strip them first if they mean the same.",
                SDCWarning,
            )
