"""The standard error for a parameter, in the one message shape of the library.

Messages read: ``The 'k' parameter of check_k_anonymity must be an int >= 1. Got 0 instead.``
"""

from __future__ import annotations

from typing import Any

from microsdc.exceptions import InvalidParameterError

__all__ = ["param_error"]


def param_error(name: str, func: str, requirement: str, value: Any) -> InvalidParameterError:
    """Build the standard error for parameter ``name`` of ``func``."""
    return InvalidParameterError(
        f"The '{name}' parameter of {func} must be {requirement}. Got {value!r} instead.",
        func=func,
        param=name,
        requirement=requirement,
        value=value,
    )
