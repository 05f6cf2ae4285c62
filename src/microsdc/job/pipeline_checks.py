"""The checks of :class:`microsdc.Release`: its arguments and the results it records."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

from microsdc._validation import (
    check_bool,
    check_columns,
    check_int,
    check_number,
    check_one_of,
    param_error,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FUNC",
    "check_compare_by",
    "check_drop",
    "check_settings",
    "refuse_release_settings",
    "step_of",
]

FUNC = "Release"

#: the Release method of each release-method step
_METHODS = {"microaggregation": "microaggregate", "noise": "add_noise"}


def refuse_release_settings(method: str, given: Any, settings: dict[str, str]) -> None:
    """Refuse an argument of ``method`` (a Release method, or the step it records) that
    the release itself passes on (``settings``:
    the library parameter and where the release takes it from), which Python would
    otherwise refuse with a bare ``TypeError``."""
    from microsdc.exceptions import InvalidParameterError

    method = _METHODS.get(method, method)
    for param, source in settings.items():
        if param in given:
            raise InvalidParameterError(
                f"The {param!r} parameter of {FUNC}.{method} is the release's own ({source}); "
                f"it cannot be given to one step. Build the Release with the value you want.",
                func=f"{FUNC}.{method}",
                param=param,
            )


def check_drop(used: list[Hashable], drop: Sequence[Hashable]) -> None:
    """No column the release uses is dropped (a job's ``variables.drop`` refusal)."""
    dropped_used = [c for c in dict.fromkeys(drop) if c in used]
    if dropped_used:
        raise param_error(
            "drop", FUNC, "columns the release does not use (it uses these)", dropped_used
        )


def check_settings(
    missing: Any,
    missing_values: Any,
    l_diversity: Any,
    l: Any,  # noqa: E741 - the name used in the literature
    c: Any,
    risk_threshold: Any,
    title: Any,
    name: Any,
    random_order: Any,
) -> None:
    """The settings of a release, checked when it is made (not when the risk is first
    measured, under another function's name)."""
    from collections.abc import Iterable

    from microsdc._core.policy import parse_policy
    from microsdc.risk.ldiversity import KINDS

    parse_policy(missing, FUNC)
    if isinstance(missing_values, str | bytes) or not isinstance(missing_values, Iterable):
        raise param_error("missing_values", FUNC, "a list of values", missing_values)
    check_one_of(l_diversity, "l_diversity", FUNC, sorted(KINDS))
    check_int(l, "l", FUNC, min_value=1)
    if c is not None:
        check_number(c, "c", FUNC, low=0, low_open=True)
    check_number(risk_threshold, "risk_threshold", FUNC, low=0, high=1, low_open=True)
    for key, value in (("title", title), ("name", name)):
        if not isinstance(value, str):
            raise param_error(key, FUNC, "a str", value)
    check_bool(random_order, "random_order", FUNC)


def check_compare_by(df: pd.DataFrame, compare_by: Hashable | None) -> str | None:
    """``compare_by`` checked: one column of ``df`` (a job's ``variables.compare_by``)."""
    if compare_by is None:
        return None
    if isinstance(compare_by, list | tuple | set | frozenset | dict):
        raise param_error("compare_by", FUNC, "one column name", compare_by)
    check_columns(df, [compare_by], "compare_by", FUNC)
    return str(compare_by)


def step_of(result: Any) -> str:
    """The step a library result records (``result`` of another kind refused)."""
    from microsdc.microaggregation import MicroaggregationResult
    from microsdc.noise import NoiseResult
    from microsdc.postrandomisation import PramResult
    from microsdc.suppression import SuppressionResult
    from microsdc.swapping import SwapResult

    kinds = {
        SuppressionResult: "suppression",
        SwapResult: "swapping",
        PramResult: "pram",
        MicroaggregationResult: "microaggregation",
        NoiseResult: "noise",
    }
    for kind, step in kinds.items():
        if isinstance(result, kind):
            return step
    raise param_error(
        "result",
        "Release.add",
        "the result of local_suppression, record_swap_result, pram, microaggregate or add_noise",
        type(result).__name__,
    )
