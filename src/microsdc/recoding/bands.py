"""Bands of numbers and their labels: the arithmetic shared by
:func:`~microsdc.recoding.recode.bin_numeric` (pandas) and
:func:`~microsdc.recoding.lazy.bin_width_lazy` (an engine), so that both give the same
bands to the same values."""

from __future__ import annotations

import math
from collections.abc import Hashable

import numpy as np

from microsdc.exceptions import InvalidParameterError

__all__ = [
    "MAX_BANDS",
    "bin_labels",
    "edge_decimals",
    "number_text",
    "width_edges",
    "width_labels",
]

#: The most bands a recoding builds: a key variable with more categories than this is
#: no longer coarsened (nearly every record stays unique on it), and building them
#: would take memory and time that grow with the count, not with the data.
MAX_BANDS = 100_000


def edge_decimals(width: float) -> int:
    """Decimals the edges ``origin + i * width`` are rounded to, so that 3 x 0.1 is the
    edge 0.3 (a value 0.3 then lies in the band [0.3, 0.4) its label names)."""
    return int(min(15, max(0, 12 - math.floor(math.log10(width)))))


def _exact(x: float) -> str:
    """A number in a message, in full but readable: 100000.1, not 100000; 1e+300, not
    the 301 digits of the integer it is."""
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e16 else repr(x)


def _holds(column: Hashable | None) -> str:
    """How a message names the values: ``column 'age' holds`` (the column, when known)."""
    return "the values" if column is None else f"column {column!r} holds values"


def _round_up(x: float) -> float:
    """``x`` rounded up to two significant digits (1.500015 -> 1.6), as it is written."""
    step = 10.0 ** (math.floor(math.log10(x)) - 1)
    up = math.ceil(x / step)
    while float(f"{up * step:.2g}") < x:  # the decimal written may fall below it
        up += 1
    return float(f"{up * step:.2g}")


def _too_many(
    what: str, func: str, width: float, fix: str, column: Hashable | None
) -> InvalidParameterError:
    return InvalidParameterError(
        f"The 'width' parameter of {func} is {_exact(width)}: {what}. {fix}",
        func=func,
        param="width",
        requirement=f"a width that gives at most {MAX_BANDS:,} bands",
        value=width,
        related=() if column is None else ("missing_values",),
    )


def _least_width(low: float, high: float, size: float) -> float:
    """The least width, rounded up to two significant digits, whose edges still differ
    at values as large as ``size`` and that cuts ``low`` to ``high`` into at most
    :data:`MAX_BANDS` bands."""
    fine = max(float(np.spacing(size)) * 1024, 1e-13)
    return _round_up(max(fine, high / (MAX_BANDS - 2) - low / (MAX_BANDS - 2)))


def check_band_count(
    low: float | None,
    high: float | None,
    width: float,
    origin: float,
    func: str,
    column: Hashable | None = None,
) -> int:
    """The number of bands of ``width`` from the one holding ``low`` to the one holding
    ``high``, counted before any is built; ``column`` (when given) is named in the
    messages.

    Raises
    ------
    InvalidParameterError
        If there are more than :data:`MAX_BANDS` (the message gives the count and the
        smallest width that fits), or ``width`` is too fine for the edges to differ at
        the size of the values (below about 1e-13 of them, or below 1e-13; the message
        gives the largest value, the least width and, for a column, the missing-value
        codes as the other fix).
    DataValidationError
        If ``low`` or ``high`` is infinite.
    """
    if low is None or high is None:
        return 1
    where = "" if column is None else f" of column {column!r}"
    if not (math.isfinite(low) and math.isfinite(high)):
        from microsdc.exceptions import DataValidationError

        raise DataValidationError(
            f"{func} cannot cut bands of {_exact(width)} from {_exact(low)} to {_exact(high)}"
            f"{where}: the values include an infinite one. Set infinite values to missing "
            "(or give edges with method='edges', whose last one may be inf).",
            func=func,
        )
    size = max(abs(low), abs(high), abs(origin))
    if width * 10.0 ** edge_decimals(width) < 100 or width < float(np.spacing(size)) * 1024:
        code = (
            ""
            if column is None
            else f", or, if {_exact(high if abs(high) >= abs(low) else low)} stands for a "
            "missing or unknown value, declare it in 'missing_values'"
        )
        raise _too_many(
            f"{_holds(column)} as large as {_exact(size)}, where bands that fine cannot be "
            "told apart",
            func,
            width,
            f"Give a width of at least {_exact(_least_width(low, high, size))}{code}.",
            column,
        )
    n = math.floor((high - origin) / width) - math.floor((low - origin) / width) + 1
    if n > MAX_BANDS:
        raise _too_many(
            f"the values{where} from {_exact(low)} to {_exact(high)} would fall in "
            f"{n:,} bands, more than the {MAX_BANDS:,} a recoding builds",
            func,
            width,
            f"Give a width of at least {_exact(_round_up((high - low) / (MAX_BANDS - 2)))}.",
            None,
        )
    return n


def width_edges(
    low: float | None,
    high: float | None,
    width: float,
    origin: float,
    func: str = "bin_numeric",
    column: Hashable | None = None,
) -> np.ndarray:
    """Edges ``origin + i * width`` (rounded to :func:`edge_decimals`) of the bands from
    the one holding ``low`` to the one holding ``high`` (``None``: no value, one band
    from ``origin``); ``column`` is named in the errors.

    Raises
    ------
    InvalidParameterError
        As :func:`check_band_count`, before any band is built.
    """
    check_band_count(low, high, width, origin, func, column)
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


def number_text(x: float, digits: int = 6) -> str:
    """An edge as a label writes it: "20", "20.5", "inf" (``digits`` significant
    digits; an integer in full)."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.{digits}g}"


def bin_labels(edges: np.ndarray, integer: bool) -> list[str]:
    """Readable labels of [e0, e1), [e1, e2), ..., [e_{n-1}, e_n] (last closed), one
    per band and all different: the edges are written with 6 significant digits, or
    as many more as it takes to tell neighbouring edges apart (100000.25 and 100000.5
    are not both "100000")."""
    finite = edges[np.isfinite(edges)]
    # an edge written may be off by at most a thousandth of the narrowest band
    tol = 1e-3 * float(np.diff(finite).min()) if len(finite) > 1 else 0.0
    for digits in range(6, 18):
        out = _labels(edges, integer, digits)
        close = all(abs(float(number_text(e, digits)) - e) <= tol for e in finite.tolist())
        if close and len(set(out)) == len(out):
            return out
    raise InvalidParameterError(  # pragma: no cover - distinct floats differ in 17 digits
        f"The bands from {edges[0]!r} to {edges[-1]!r} cannot be labelled apart.",
        func="bin_numeric",
    )


def _labels(edges: np.ndarray, integer: bool, digits: int) -> list[str]:
    """The labels of :func:`bin_labels`, the edges written with ``digits`` digits."""
    out = []
    last = len(edges) - 2
    for i in range(len(edges) - 1):
        lo, hi = float(edges[i]), float(edges[i + 1])
        if integer:
            top = hi if i == last else hi - 1
            if math.isinf(lo) and math.isinf(top):
                out.append("all")
            elif math.isinf(lo):
                out.append(f"<={number_text(top, digits)}")
            elif math.isinf(top):
                out.append(f"{number_text(lo, digits)}+")
            elif top <= lo:
                out.append(number_text(lo, digits))
            else:
                out.append(f"{number_text(lo, digits)}-{number_text(top, digits)}")
        else:
            close = "]" if i == last else ")"
            out.append(f"[{number_text(lo, digits)}, {number_text(hi, digits)}{close}")
    return out
