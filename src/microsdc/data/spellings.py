"""A warning about an object key variable that writes one number in several types.

30, "30" and 30.0 in one object column are three values to microsdc (they are
written apart in a released file), though a table prints them alike: their records
are counted apart, and may be suppressed where together they would be safe. The
check runs on the distinct values only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from microsdc._core.warn import warn
from microsdc.exceptions import SDCWarning

__all__ = ["warn_mixed_spellings"]


#: A text that reads as a number: "30", "-2.5", " 30 " (spaces around it allowed).
_NUMBER_TEXT = r"\s*-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?\s*"


def _spelling_groups(values: Sequence[Any]) -> list[list[Any]]:
    """The groups of ``values`` (distinct values of an object column) that stand for
    one number in more than one type: 30, "30" and 30.0. Texts alone ("01" and "1")
    are codes, and booleans are not numbers here."""
    import numbers
    import re

    groups: dict[float, list[Any]] = {}
    for v in values:
        if isinstance(v, bool) or type(v).__name__ == "bool_":
            continue
        if isinstance(v, str):
            if not re.fullmatch(_NUMBER_TEXT, v):
                continue
            key = float(v)
        elif isinstance(v, numbers.Real):
            key = float(v)
            if key != key:
                continue
        else:
            continue
        groups.setdefault(key, []).append(v)

    def kind(v: Any) -> str:
        if isinstance(v, str):
            return "str"
        return "int" if isinstance(v, numbers.Integral) else "float"

    return [g for g in groups.values() if len({kind(v) for v in g}) > 1]


def warn_mixed_spellings(column: Any, values: Sequence[Any]) -> None:
    """Warn (:class:`~microsdc.exceptions.SDCWarning`) when the distinct ``values`` of
    the object key variable ``column`` write one number in more than one type (30,
    "30" and 30.0): each is a category of its own, so the records of one age are
    counted apart (at risk, and suppressed, where together they would be safe),
    though a table prints them alike. Costs one pass over the distinct values."""
    groups = _spelling_groups(values)
    if not groups:
        return
    shown = "; ".join(" / ".join(repr(v) for v in g) for g in groups[:3])
    more = f" and {len(groups) - 3} more" if len(groups) > 3 else ""
    warn(
        f"key variable {column!r} mixes numbers and texts that print alike ({shown}{more}): "
        "each spelling is a value of its own, so their records are counted apart. If they "
        f"mean the same, make the column one type first, e.g. df[{column!r}] = "
        f"pd.to_numeric(df[{column!r}]).",
        SDCWarning,
    )
