"""Warnings that point at the user's line, however deep in microsdc they are raised."""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["user_stacklevel", "warn"]

#: The folder of the microsdc package: frames in it are microsdc's own.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside microsdc, counted from the caller
    of this function (as pandas' ``find_stack_level``)."""
    frame = sys._getframe(1)
    level = 0
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return max(level, 1)


def warn(message: str, category: type[Warning]) -> None:
    """:func:`warnings.warn` at the first line outside microsdc that led here.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("careful", UserWarning)
    >>> caught[0].filename == __file__ or not caught[0].filename.startswith(_PACKAGE)
    True
    """
    warnings.warn(message, category, stacklevel=user_stacklevel() + 1)
