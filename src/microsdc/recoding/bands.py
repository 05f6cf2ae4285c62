"""Bands of numbers and their labels: the arithmetic shared by
:func:`~microsdc.recoding.recode.bin_numeric` (pandas) and
:func:`~microsdc.recoding.lazy.bin_width_lazy` (an engine), so that both give the same
bands to the same values."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["bin_labels", "edge_decimals", "number_text", "width_edges", "width_labels"]


def edge_decimals(width: float) -> int:
    """Decimals the edges ``origin + i * width`` are rounded to, so that 3 x 0.1 is the
    edge 0.3 (a value 0.3 then lies in the band [0.3, 0.4) its label names)."""
    return int(min(15, max(0, 12 - math.floor(math.log10(width)))))


def width_edges(low: float | None, high: float | None, width: float, origin: float) -> np.ndarray:
    """Edges ``origin + i * width`` (rounded to :func:`edge_decimals`) of the bands from
    the one holding ``low`` to the one holding ``high`` (``None``: no value, one band
    from ``origin``)."""
    d = edge_decimals(width)

    def edge(i: int) -> float:
        return float(np.round(origin + width * float(i), d))

    def band(x: float) -> int:  # i with edge(i) <= x < edge(i + 1)
        i = math.floor((x - origin) / width)
        while edge(i) > x:
            i -= 1
        while edge(i + 1) <= x:
            i += 1
        return i

    if low is None or high is None:
        lo, hi = 0, 1
    else:
        lo, hi = band(low), band(high) + 1
    return np.round(origin + width * np.arange(lo, hi + 1, dtype=np.float64), d)


def width_labels(edges: np.ndarray, integer: bool) -> list[str]:
    """The "auto" labels of :func:`bin_numeric` for the bands of :func:`width_edges`
    ("20-24" when the values and edges are integers, else "[20.5, 25)")."""
    return bin_labels(np.append(edges, 2 * edges[-1] - edges[-2]), integer)[:-1]


def number_text(x: float) -> str:
    """An edge as a label writes it: "20", "20.5", "inf" (6 significant digits)."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.6g}"


def bin_labels(edges: np.ndarray, integer: bool) -> list[str]:
    """Readable labels of [e0, e1), [e1, e2), ..., [e_{n-1}, e_n] (last closed)."""
    out = []
    last = len(edges) - 2
    for i in range(len(edges) - 1):
        lo, hi = float(edges[i]), float(edges[i + 1])
        if integer:
            top = hi if i == last else hi - 1
            if math.isinf(lo) and math.isinf(top):
                out.append("all")
            elif math.isinf(lo):
                out.append(f"<={number_text(top)}")
            elif math.isinf(top):
                out.append(f"{number_text(lo)}+")
            elif top <= lo:
                out.append(number_text(lo))
            else:
                out.append(f"{number_text(lo)}-{number_text(top)}")
        else:
            close = "]" if i == last else ")"
            out.append(f"[{number_text(lo)}, {number_text(hi)}{close}")
    return out
