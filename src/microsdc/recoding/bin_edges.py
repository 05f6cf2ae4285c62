"""The edges and labels of :func:`~microsdc.recoding.recode.bin_numeric`'s bins, per
method: bands of a width from an origin, equal bins, quantiles, and the labels of each
bin (the "auto" labels or those given, checked)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from microsdc._validation import check_int, given_alone_error, param_error
from microsdc.exceptions import InvalidParameterError
from microsdc.recoding.bands import MAX_BANDS, bin_labels, width_edges, width_labels

__all__ = ["bin_names", "checked_origin", "quantile_edges", "width_method_edges"]


def checked_origin(method: str, width: Any, origin: Any, func: str) -> float:
    """``width`` and ``origin`` checked (``origin`` None: 0); ``width`` refused with a
    method other than ``"width"``, ``origin`` without ``width``: alone each would
    change nothing."""
    if width is not None and (
        isinstance(width, bool)
        or not isinstance(width, numbers.Real)
        or not math.isfinite(width)
        or width <= 0
    ):
        raise param_error("width", func, "a real number > 0", width)
    if origin is not None and (
        isinstance(origin, bool)
        or not isinstance(origin, numbers.Real)
        or not math.isfinite(origin)
    ):
        raise param_error("origin", func, "a finite real number", origin)
    if width is not None and method != "width":
        raise given_alone_error(
            func, "width", width, f"method is {method!r}, not 'width'",
            "only method='width' cuts bands of a width", ("method", "method='width'"),
        )  # fmt: skip
    if origin is not None and width is None:
        raise given_alone_error(
            func, "origin", origin, "no 'width' is given",
            "it only anchors the bands of a width", ("width", "'width'"),
        )  # fmt: skip
    return 0.0 if origin is None else float(origin)


def width_method_edges(
    vals: np.ndarray, bins: Any, width: Any, origin: Any, func: str, column: Hashable | None
) -> tuple[np.ndarray, bool]:
    """The edges of ``method="width"``: bands of ``width`` from ``origin`` (the last one
    open beyond the maximum), or ``bins`` equal bins from the minimum to the maximum;
    ``column`` is named in the errors."""
    if width is not None:
        if bins is not None:
            raise InvalidParameterError(
                f"Give either 'bins' or 'width' to {func} with method='width', not both.",
                func=func,
                param="method",
            )
        edges = width_edges(
            float(vals.min()) if len(vals) else None,
            float(vals.max()) if len(vals) else None,
            float(width),
            float(origin),
            func,
            column,
        )
        return edges, True  # the top edge lies beyond the maximum
    n_bins = check_int(bins, "bins", func, min_value=1, max_value=MAX_BANDS)
    a, b = (float(vals.min()), float(vals.max())) if len(vals) else (0.0, 1.0)
    if a == b:
        a, b = a - 0.5, b + 0.5
    return np.linspace(a, b, n_bins + 1), False


def quantile_edges(vals: np.ndarray, bins: Any, func: str) -> np.ndarray:
    """The edges of ``method="quantile"`` (coinciding quantiles merged)."""
    n_bins = check_int(bins, "bins", func, min_value=1, max_value=MAX_BANDS)
    edges = (
        np.unique(np.quantile(vals, np.linspace(0, 1, n_bins + 1)))
        if len(vals)
        else np.array([0.0, 1.0])
    )
    if len(edges) == 1:
        edges = np.array([edges[0], edges[0] + 1.0])
    return edges


def bin_names(
    labels: str | Sequence[str] | bool,
    edges: np.ndarray,
    vals: np.ndarray,
    last_open: bool,
    func: str,
) -> list[str]:
    """One label per bin: the "auto" labels, or the list given (checked)."""
    if isinstance(labels, str):
        if labels != "auto":
            raise param_error("labels", func, "'auto', False or a list of labels", labels)
        finite = edges[np.isfinite(edges)]
        integer = (
            bool(np.all(np.mod(vals, 1) == 0) and np.all(np.mod(finite, 1) == 0)) and len(vals) > 0
        )
        if last_open:
            # width bands: the last band is half-open like the others
            return width_labels(edges, integer)
        return bin_labels(edges, integer)
    names = [str(s) for s in labels]  # type: ignore[union-attr]
    n_bins_out = len(edges) - 1
    if len(names) != n_bins_out or len(set(names)) != len(names):
        raise InvalidParameterError(
            f"The 'labels' parameter of {func} must give {n_bins_out} distinct labels "
            f"(one per bin). Got {len(names)}.",
            func=func,
            param="labels",
        )
    return names
