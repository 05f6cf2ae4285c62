"""The settings a step of :class:`microsdc.Release` records, as a job file's section
holds them: job key names, and every setting that names columns as a list of column
names, however the library call was given it (one name or a list; for swapping, a
0-based position too). The audit's builders read the sections as they read a job's, so
a step given ``strata="region"`` gives the same audit as one given ``strata=["region"]``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

from microsdc.job.methods import KEYS

__all__ = ["as_names", "section"]

#: library parameter -> job key, for the sections of the release-method steps
_JOB_KEYS = {step: {param: key for key, param in keys.items()} for step, keys in KEYS.items()}

#: step -> the library parameters that take one column name or a list of them
COLUMN_LISTS: dict[str, tuple[str, ...]] = {
    "suppression": ("strata",),
    "swapping": ("risk_variables", "carry_along", "checked_columns"),
    "pram": ("columns", "strata"),
    "microaggregation": ("columns", "strata"),
    "noise": ("columns",),
}

#: step -> the library parameters that map a column to one column name or a list of them
COLUMN_MAPS: dict[str, tuple[str, ...]] = {
    "suppression": ("linked",),
    "pram": ("linked",),
    "noise": ("totals",),
}


def as_names(value: Any, columns: Sequence[Hashable] | None = None) -> list[Any]:
    """``value``, one column name or an iterable of them, as a list (a str is one name,
    never its characters). With ``columns`` (the frame's, for record swapping), an int
    that is not a column name is the 0-based position of a column, as
    :func:`microsdc.record_swap_result` reads it."""
    if value is None:
        return []
    names = [value] if isinstance(value, str | bytes) or not isinstance(value, Iterable) else value
    if columns is None:
        return list(names)
    present = set(columns)

    def named(v: Any) -> Any:
        position = isinstance(v, int) and not isinstance(v, bool) and v not in present
        return columns[v] if position and 0 <= v < len(columns) else v

    return [named(v) for v in names]


def _profiles(similar: Any, columns: Sequence[Hashable]) -> list[Any]:
    """``similar`` of record swapping as a job holds it: a list of columns (one profile)
    or of lists of columns (several)."""
    items = as_names(similar, columns)
    if not any(isinstance(it, list | tuple) for it in items):
        return items
    return [as_names(it, columns) if isinstance(it, list | tuple) else it for it in items]


def _json_ready(value: Any) -> bool:
    if value is None or isinstance(value, str | bool | int | float):
        return True
    if isinstance(value, list | tuple):
        return all(_json_ready(v) for v in value)
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and _json_ready(v) for k, v in value.items())
    return False


def _named(step: str, param: str, value: Any, columns: Sequence[Hashable]) -> Any:
    """A setting's value with the columns it names as lists (other values as given)."""
    positions = columns if step == "swapping" else None
    if param in COLUMN_LISTS.get(step, ()):
        return as_names(value, positions)
    if param in COLUMN_MAPS.get(step, ()) and isinstance(value, Mapping):
        return {key: as_names(cols) for key, cols in value.items()}
    if step == "swapping" and param == "similar":
        return _profiles(value, columns)
    return value


def section(
    step: str, parameters: Mapping[str, Any], columns: Sequence[Hashable]
) -> dict[str, Any]:
    """A step's settings (library parameter names) as the job file's section holds them:
    job key names; the columns a setting names as a list (``columns``: the frame's, in
    order, for the positions record swapping accepts); a value that is not plain JSON (a
    matrix, a mask, a Generator as seed) recorded as given."""
    names = _JOB_KEYS.get(step, {})
    out: dict[str, Any] = {}
    for param, given in parameters.items():
        key = names.get(param, param)
        value = _named(step, param, given, list(columns))
        if key == "seed":
            out["seed"] = "given"  # never kept: parameters() records only that it was given
        elif _json_ready(value):
            out[key] = list(value) if isinstance(value, tuple) else value
        else:
            out[key] = f"given ({type(value).__name__})"
    return out
