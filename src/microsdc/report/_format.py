"""How the report writes numbers, shares and lists: the summary, the HTML page and the console."""

from __future__ import annotations

from typing import Any

__all__ = ["format_percent"]


def _n(x: float) -> str:
    return f"{x:,.0f}"


def _x(x: float) -> str:
    """A measured quantity: whole above 100, two decimals above 1, two significant digits below."""
    if x == 0:
        return "0"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 1:
        return f"{x:.2f}"
    return f"{x:.2g}"


def _p(x: float, digits: int = 1) -> str:
    """Percent with ``digits`` decimals, more for small non-zero values.

    A non-zero value never prints as zero: below 0.0001 % it prints as
    "< 0.0001 %".

    Examples
    --------
    >>> _p(0.25), _p(0.0004), _p(0.00000123, 2), _p(1e-9, 3), _p(0.0)
    ('25.0 %', '0.040 %', '0.00012 %', '< 0.0001 %', '0.0 %')
    """
    v = 100 * x
    if 0 < abs(v) < 1e-4:
        return "< 0.0001 %"
    while 0 < abs(v) < 10 ** (1 - digits) and digits < 6:
        digits += 1
    return f"{v:.{digits}f} %"


def _listing(value: Any, sep: str = ", ") -> str:
    """A list (or table) as text: ``["a", "b"]`` -> "a, b"; profiles ``[["a", "b"], ["a"]]``
    -> "a, b; else a"; weights ``{"a": 3, "b": 1}`` -> "a 3, b 1".

    Examples
    --------
    >>> _listing(["age", "sex"]), _listing([["hsize", "htype"], ["hsize"]])
    ('age, sex', 'hsize, htype; else hsize')
    >>> _listing({"age": 3, "sex": 1.5}), _listing([10.0, 20.5]), _listing("x")
    ('age 3, sex 1.5', '10, 20.5', 'x')
    """
    if isinstance(value, dict):
        return sep.join(f"{k} {_listing(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        if value and all(isinstance(v, list | tuple) for v in value):
            return "; else ".join(_listing(v) for v in value)
        return sep.join(_listing(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def format_percent(x: float, digits: int = 1) -> str:
    """A share as a percentage that never shows a non-zero value as zero.

    Parameters
    ----------
    x : float
        A share in [0, 1].
    digits : int, default 1
        Decimals; more are used for small values so that two significant
        digits show, and anything below 0.0001 % prints as "< 0.0001 %".

    Returns
    -------
    str

    Examples
    --------
    >>> format_percent(0.0123), format_percent(0.0000042, 2), format_percent(1e-12)
    ('1.2 %', '0.00042 %', '< 0.0001 %')
    """
    return _p(x, digits)
