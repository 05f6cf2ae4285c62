"""Exceptions and warnings raised by microsdc.

Every error raised on purpose derives from :class:`SDCError`; each also inherits
the built-in exception a Python user would expect (``ValueError``, ``KeyError``,
``TypeError``) so that ``except ValueError`` keeps working.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

__all__ = [
    "ColumnNotFoundError",
    "DataValidationError",
    "DisclosureRiskWarning",
    "HighCardinalityWarning",
    "HouseholdLevelWarning",
    "InvalidParameterError",
    "JobFileError",
    "OutputError",
    "PerformanceWarning",
    "SDCError",
    "SDCWarning",
]


class SDCError(Exception):
    """Base class of every error microsdc raises on purpose.

    Besides its message, an error carries what it is about as fields, so that a
    caller (the command line, a job file) can word it in its own names without
    parsing the text.

    Attributes
    ----------
    func : str or None
        The library function whose call failed (``"local_suppression"``), as the
        message names it.
    param : str or None
        The parameter at fault, as the message names it (``"k"``).
    requirement : str or None
        What ``param`` must be (``"an int >= 1"``), for errors of the standard shape.
    value : object
        The value given, for errors of the standard shape (else ``None``).
    related : tuple of str
        Other parameters the message names (``("missing",)`` in "method='exact' of
        local_suppression needs missing='wildcard'").
    """

    def __init__(
        self,
        *args: Any,
        func: str | None = None,
        param: str | None = None,
        requirement: str | None = None,
        value: Any = None,
        related: Sequence[str] = (),
    ) -> None:
        super().__init__(*args)
        self.func = func
        self.param = param
        self.requirement = requirement
        self.value = value
        self.related = tuple(related)

    def __reduce__(self) -> Any:  # the fields survive pickling (process pools, Spark)
        return (_rebuild, (type(self), self.args, self.__dict__))


def _rebuild(cls: type[SDCError], args: tuple[Any, ...], state: dict[str, Any]) -> SDCError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class InvalidParameterError(SDCError, ValueError, TypeError):
    """A parameter has the wrong type or a value outside its allowed range."""


class ColumnNotFoundError(SDCError, KeyError):
    """One or more column names are not in the data frame.

    Attributes
    ----------
    missing : list
        The names that were not found, in the order they were given.
    """

    def __init__(self, message: str, missing: Sequence[Any] = (), **fields: Any) -> None:
        super().__init__(message, **fields)
        self.missing = list(missing)

    def __str__(self) -> str:  # KeyError would print the repr of the message
        return str(self.args[0])


class DataValidationError(SDCError, ValueError):
    """The data themselves violate a requirement (missing weights, duplicate columns, ...).

    Attributes
    ----------
    failure_cases : object
        The offending values or row labels, when they are known.
    """

    def __init__(self, message: str, failure_cases: Any = None, **fields: Any) -> None:
        super().__init__(message, **fields)
        self.failure_cases = failure_cases


class OutputError(SDCError, OSError):
    """An engine could not write an output file (disk full, file too large, a value the
    engine cannot convert while streaming); nothing is left at the output's path."""


class JobFileError(SDCError, ValueError):
    """A job file is malformed, or names something that does not exist.

    Attributes
    ----------
    path : str
        The job file.
    key : str or None
        Dotted name of the key at fault (``"swapping.swaprate"``).
    line : int or None
        1-based line of that key in the job file, when it is there.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | os.PathLike[str],
        key: str | None = None,
        line: int | None = None,
    ) -> None:
        self.path = os.fspath(path)
        self.key = key
        self.line = line
        where = os.path.basename(os.fspath(path)) + (f", line {line}" if line else "")
        super().__init__(f"{where}: {message}")


class SDCWarning(UserWarning):
    """Base class of microsdc's warnings."""


class DisclosureRiskWarning(SDCWarning):
    """A setting or a result leaves more disclosure risk than the user may expect."""


class PerformanceWarning(SDCWarning):
    """The input looks like it will make a computation slow or meaningless.

    Raised, for example, for a quasi-identifier with thousands of distinct values
    that should be binned first.
    """


class HighCardinalityWarning(DisclosureRiskWarning):
    """A quasi-identifier has so many distinct values that it looks continuous.

    Almost every record is then unique on it; bin it first (global recoding, see
    :mod:`microsdc.recoding`).
    """


class HouseholdLevelWarning(SDCWarning):
    """A variable expected to be constant within each household is not.

    Household methods (record swapping) then read the value of the household's
    first member, so person-level differences are flattened.
    """
