"""``[recode]`` of a job: global recoding of columns before anything is measured.

Numbers are bottom- and top-coded (:func:`microsdc.recoding.bottom_code`,
:func:`~microsdc.recoding.top_code`), then binned (:func:`~microsdc.recoding.bin_numeric`);
categories are merged by group (:func:`~microsdc.recoding.group_categories`), then the
rare ones (:func:`~microsdc.recoding.merge_rare_categories`). The codes declared missing
in ``input.missing_values`` are never recoded: they stay as they are, to be counted as
missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from microsdc.exceptions import SDCError
from microsdc.job.config import JobConfig
from microsdc.job.recode_spec import RecodeSpec

__all__ = ["applied", "band_keys", "recode", "recode_columns"]


def recode(cfg: JobConfig, df: pd.DataFrame) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """``df`` with every ``[recode.<column>]`` applied (a new frame), and one audit note
    per column: ``column``, ``distinct_before`` and what was done (``bins``,
    ``top_coded``, ``bottom_coded``, ``categories_merged``, ``categories_after``)."""
    from microsdc.encode import missing_mask

    def column(out: pd.DataFrame, spec: RecodeSpec) -> tuple[pd.DataFrame, dict[str, Any]]:
        col = df[spec.column]
        miss = np.asarray(missing_mask(col, list(cfg.missing_values)), dtype=bool)
        if spec.groups is not None or spec.min_count is not None:
            new, note = _merge(cfg, spec, col, miss)
        else:
            new, note = _numbers(cfg, spec, col, miss)
        out[spec.column] = new
        return out, note

    return recode_columns(cfg, df.copy(), column)


def recode_columns(
    cfg: JobConfig, data: Any, column: Callable[[Any, RecodeSpec], tuple[Any, dict[str, Any]]]
) -> tuple[Any, list[dict[str, Any]]]:
    """Every ``[recode.<column>]`` applied in turn, ``column(data, spec)`` giving the data
    with one column recoded and what was done; the data and one audit note per column
    (``column`` first). However the input holds its rows."""
    notes = []
    for spec in cfg.recode:
        data, note = column(data, spec)
        notes.append({"column": spec.column, **note})
    return data, notes


def applied(cfg: JobConfig, key: str, names: dict[str, str], call: Callable[[], Any]) -> Any:
    """``call()``, its error reworded as one about job key ``key`` (``names``: library
    parameter -> the job key that gave it)."""
    try:
        return call()
    except SDCError as exc:
        from microsdc._core.messages import render

        message = render(exc, {p: f"'{k}'" for p, k in names.items()}, "Key")
        raise cfg.error(key, f"cannot be applied: {message}") from None


def _numbers(
    cfg: JobConfig, spec: RecodeSpec, col: pd.Series, miss: np.ndarray
) -> tuple[pd.Series, dict[str, Any]]:
    """Bottom and top coding, then bands, of a numeric column."""
    key = f"recode.{spec.column}"
    values = pd.to_numeric(col.where(~miss), errors="coerce")
    bad = values.isna().to_numpy() & ~miss
    if bad.any():
        example = col[bad].iloc[0]
        raise cfg.error(
            key,
            f"{'bins' if spec.bins else 'codes'} column {spec.column!r}, which holds "
            f"{int(bad.sum()):,} non-numeric value(s) such as {example!r}.",
        )
    note: dict[str, Any] = {"distinct_before": int(values.nunique())}
    codes = miss & col.notna().to_numpy()
    new = col
    for bound in ("bottom", "top"):
        threshold = getattr(spec, bound)
        if threshold is not None:
            hit = (values < threshold) if bound == "bottom" else (values > threshold)
            note[f"{bound}_coded"] = int(hit.sum())
            new = _on_values(new, codes, _coding(cfg, spec, bound))
            values = pd.to_numeric(new.where(~miss), errors="coerce")
    if spec.bins:
        new = _bands(cfg, spec, new, miss)
        note["bins"] = len(new.cat.categories) - len(pd.unique(col[miss & col.notna()]))
    return new, note


def _coding(cfg: JobConfig, spec: RecodeSpec, bound: str) -> Callable[[pd.Series], Any]:
    """The ``bottom`` or ``top`` coding of ``spec``, as a function of the values."""
    from microsdc.recoding import bottom_code, top_code

    code = bottom_code if bound == "bottom" else top_code
    key = f"recode.{spec.column}.{bound}"
    names = {"threshold": key, "value": f"{key}_value"}
    threshold, value = getattr(spec, bound), getattr(spec, f"{bound}_value")

    def coded(values: pd.Series) -> Any:
        return applied(cfg, key, names, lambda: code(values, threshold=threshold, value=value))

    return coded


def _bands(cfg: JobConfig, spec: RecodeSpec, col: pd.Series, miss: np.ndarray) -> pd.Series:
    """``col`` in bands of ``width`` or between ``breaks`` (declared codes kept)."""
    from microsdc.recoding import bin_numeric

    key = f"recode.{spec.column}"
    kwargs: dict[str, Any]
    if spec.breaks is not None:
        kwargs = {"method": "edges", "bins": list(spec.breaks)}
        if spec.labels:
            kwargs["labels"] = list(spec.labels)
    else:
        kwargs = {"method": "width", "width": spec.width, "origin": spec.start or 0.0}
    names = band_keys(spec.column)
    where = f"{key}.breaks" if spec.breaks is not None else key
    # declared codes stay as they are: apart from the cells blanked later
    mv = list(cfg.missing_values)
    return applied(cfg, where, names, lambda: bin_numeric(col, missing_values=mv, **kwargs))


def band_keys(column: str) -> dict[str, str]:
    """The job keys behind the parameters of :func:`~microsdc.recoding.bin_numeric` for
    ``[recode.<column>]`` (library parameter -> dotted key), for its errors."""
    key = f"recode.{column}"
    return {
        "bins": f"{key}.breaks",
        "labels": f"{key}.labels",
        "width": f"{key}.width",
        "origin": f"{key}.start",
        "missing_values": "input.missing_values",
    }


def _merge(
    cfg: JobConfig, spec: RecodeSpec, col: pd.Series, miss: np.ndarray
) -> tuple[pd.Series, dict[str, Any]]:
    """Groups of categories into their labels, then the rare ones into ``other_label``."""
    from microsdc.recoding import group_categories, merge_rare_categories

    key = f"recode.{spec.column}"
    before = int(col[~miss].nunique())
    codes = miss & col.notna().to_numpy()
    new = col
    if spec.groups is not None:
        groups = _labels(col[~miss], spec.groups)
        new = _on_values(
            new,
            codes,
            lambda s: applied(cfg, f"{key}.groups", {}, lambda: group_categories(s, groups=groups)),
        )
    if spec.min_count is not None:
        n, label = spec.min_count, spec.other_label
        names = {"min_count": f"{key}.min_count", "other_label": f"{key}.other_label"}
        new = _on_values(
            new,
            codes,
            lambda s: applied(
                cfg,
                f"{key}.min_count",
                names,
                lambda: merge_rare_categories(s, min_count=n, other_label=label),
            ),
        )
    after = int(new[~miss].nunique())
    return new, {"distinct_before": before, "categories_after": after}


def _labels(values: pd.Series, groups: dict[str, list[Any]]) -> dict[Any, list[Any]]:
    """The labels of ``groups`` (TOML keys are texts) as numbers on a numeric column
    when they are numbers ("1" -> 1, "2.5" -> 2.5); otherwise as written."""
    numeric = pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(
        values.dtype
    )
    out: dict[Any, list[Any]] = {}
    for label, members in groups.items():
        new: Any = label
        if numeric:
            try:
                number = float(label)
            except ValueError:
                number = None
            if number is not None and np.isfinite(number):
                new = int(number) if number.is_integer() else number
        out[new] = members
    return out


def _on_values(col: pd.Series, codes: np.ndarray, recode_values: Callable[[pd.Series], Any]) -> Any:
    """``recode_values`` applied to the cells of ``col`` that are not declared missing
    codes (``codes``); those stay as they are, where they are."""
    if not codes.any():
        return recode_values(col)
    done = recode_values(col[~codes])
    out = col.astype(object).copy()
    out[~codes] = done.astype(object).to_numpy()
    return out.infer_objects()
