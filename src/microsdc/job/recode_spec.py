"""``[recode.<column>]`` of a job file: what each table asks, checked when the job is read.

A table recodes numbers (bottom and top coding, then bands of ``width`` or between
``breaks``) or merges categories (``groups``, then ``min_count``), not both; the keys
that need another key are refused without it. :mod:`microsdc.job.recode` applies them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["RecodeSpec", "check_recode"]

#: Raises the error about a key unless the condition holds.
_Need = Callable[[bool, tuple[str, ...], str], None]


@dataclass(frozen=True)
class RecodeSpec:
    """The recoding of one column: bottom and top coding, then binning (equal ``width``
    from ``start``, or explicit ``breaks``); or merging of categories (``groups``, then
    the categories with fewer than ``min_count`` records into ``other_label``)."""

    column: str
    width: float | None = None
    start: float | None = None
    breaks: tuple[float, ...] | None = None
    labels: tuple[str, ...] | None = None
    groups: dict[str, list[Any]] | None = None
    min_count: int | None = None
    other_label: str | float | None = None
    top: float | None = None
    top_value: float | None = None
    bottom: float | None = None
    bottom_value: float | None = None

    def parameters(self) -> dict[str, Any]:
        """JSON-ready: the column and the binning keys always, the others when given."""
        out: dict[str, Any] = {}
        for name, value in self.__dict__.items():
            if name in ("column", "width", "start", "breaks", "labels") or value is not None:
                out[name] = list(value) if isinstance(value, tuple) else value
        return out

    @property
    def bins(self) -> bool:
        """Whether the column is grouped into bands (``width`` or ``breaks``)."""
        return self.width is not None or self.breaks is not None


#: The keys of ``[recode.<column>]`` that recode numbers, and those that merge categories.
_NUMBER_KEYS = ("width", "start", "breaks", "labels", "top", "top_value", "bottom", "bottom_value")
_CATEGORY_KEYS = ("groups", "min_count", "other_label")


def check_recode(
    recode: Mapping[str, Any], need: _Need, engine: str | None = None
) -> tuple[RecodeSpec, ...]:
    """Each ``[recode.<column>]``: numbers (coding, then at most one of width or breaks)
    or categories (groups, then min_count), and what goes with each key."""
    recodes = []
    for col, spec in recode.items():
        path = ("recode", col)
        numbers = [k for k in _NUMBER_KEYS if k in spec]
        categories = [k for k in _CATEGORY_KEYS if k in spec]
        need(
            not (numbers and categories),
            path,
            f"[recode.{col}] either recodes numbers ({', '.join(numbers)}) or merges "
            f"categories ({', '.join(categories)}), not both; a column is one or the other.",
        )
        _goes_with(spec, path, need)
        need(
            any(k in spec for k in ("width", "breaks", "top", "bottom", "groups", "min_count")),
            path,
            f"[recode.{col}] needs 'width' or 'breaks' (bands), 'top' or 'bottom' (coding), "
            "or 'groups' or 'min_count' (merging of categories).",
        )
        need(
            not ("width" in spec and "breaks" in spec),
            path,
            f"[recode.{col}] needs exactly one of 'width' or 'breaks'.",
        )
        if engine is not None:
            extra = [k for k in ("top", "bottom", "groups", "min_count") if k in spec]
            need(
                not extra,
                (*path, extra[0]) if extra else path,
                f"key 'recode.{col}.{extra[0] if extra else ''}' needs the records in memory: "
                "with 'input.engine' the rows stay in the engine, which bins by `width` only "
                "(leave 'input.engine' out).",
            )
        recodes.append(_recode_spec(col, spec))
    return tuple(recodes)


def _goes_with(spec: Mapping[str, Any], path: tuple[str, ...], need: _Need) -> None:
    """The keys of one ``[recode.<column>]`` that need another: start, labels, the
    replacements of top and bottom coding, other_label."""
    col = path[-1]
    for key, needs in (
        ("start", "width"),
        ("top_value", "top"),
        ("bottom_value", "bottom"),
        ("other_label", "min_count"),
    ):
        need(
            key not in spec or needs in spec,
            (*path, key),
            f"key 'recode.{col}.{key}' goes with '{needs}'"
            + (", not 'breaks'." if key == "start" and "breaks" in spec else "."),
        )
    if "labels" in spec:
        need(
            "breaks" in spec and len(spec["labels"]) == len(spec["breaks"]) - 1,
            (*path, "labels"),
            f"key 'recode.{col}.labels' needs 'breaks' and one label per bin "
            f"({len(spec.get('breaks', [])) - 1 if 'breaks' in spec else '?'} bins).",
        )
    if "top" in spec and "bottom" in spec:
        need(
            spec["bottom"] <= spec["top"],
            (*path, "bottom"),
            f"key 'recode.{col}.bottom' ({spec['bottom']}) is above 'top' ({spec['top']}).",
        )


def _recode_spec(col: str, spec: Mapping[str, Any]) -> RecodeSpec:
    """The checked ``[recode.<column>]`` table as a :class:`RecodeSpec`."""

    def number(key: str) -> float | None:
        return float(spec[key]) if key in spec else None

    return RecodeSpec(
        column=col,
        width=number("width"),
        start=number("start"),
        breaks=tuple(float(b) for b in spec["breaks"]) if "breaks" in spec else None,
        labels=tuple(spec["labels"]) if "labels" in spec else None,
        groups={str(k): list(v) for k, v in spec["groups"].items()} if "groups" in spec else None,
        min_count=spec.get("min_count"),
        other_label=spec.get("other_label"),
        top=spec.get("top"),
        top_value=spec.get("top_value"),
        bottom=spec.get("bottom"),
        bottom_value=spec.get("bottom_value"),
    )
