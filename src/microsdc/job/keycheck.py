"""Checking a job file's tables against the schema: unknown keys (with what to use
instead, for the keys an sdcMicro user writes), tables and values of the wrong kind,
missing required keys; each error names the key."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from typing import Any

from microsdc.exceptions import JobFileError

__all__ = ["SDCMICRO_KEYS", "check_table"]


#: How a job file's value types are named in messages; bool before int (a bool is an int).
_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (bool, "a boolean"),
    (int, "an integer"),
    (float, "a number"),
    (str, "a string"),
    (list, "a list"),
    (dict, "a table"),
)


def _type_name(v: Any) -> str:
    for kind, name in _TYPE_NAMES:
        if isinstance(v, kind):
            return name
    return type(v).__name__


def _show(v: Any) -> str:
    """A value as the job file wrote it (``true``, ``{sex = 0}``), cut to 60 characters."""
    if isinstance(v, bool):
        text = "true" if v else "false"
    elif isinstance(v, dict):
        text = "{" + ", ".join(f"{k} = {_show(x)}" for k, x in v.items()) + "}"
    else:
        text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _misspelt(value: Any, choices: tuple[str, ...]) -> str:
    """ " Did you mean 'suppression'?" for the first text of the list ``value`` that is
    not among ``choices`` and is close to one of them; else ""."""
    if not choices or not isinstance(value, list):
        return ""
    for item in value:
        if isinstance(item, str) and item not in choices:
            close = difflib.get_close_matches(item, choices, n=1)
            if close:
                return f" Did you mean '{close[0]}' for '{item}'?"
    return ""


def check_table(
    data: Mapping[str, Any],
    schema: Mapping[str, Any],
    prefix: tuple[str, ...],
    fail: Callable[[tuple[str, ...], str], JobFileError],
) -> None:
    for name, value in data.items():
        path = (*prefix, name)
        dotted = ".".join(path)
        spec = schema.get(name, schema.get("*"))
        if spec is None:
            allowed = sorted(k for k in schema if k != "*")
            close = difflib.get_close_matches(name, allowed, n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            if dotted in SDCMICRO_KEYS:
                hint = f" {SDCMICRO_KEYS[dotted]}"
            where = f"[{'.'.join(prefix)}]" if prefix else "the top level"
            raise fail(
                path,
                f"Unknown key '{dotted}'.{hint} Keys allowed in {where}: {', '.join(allowed)}.",
            )
        if isinstance(spec, dict):
            if not isinstance(value, dict):
                raise fail(
                    path, f"key '{dotted}' must be a table ([{dotted}]), got {_type_name(value)}."
                )
            check_table(value, spec, path, fail)
        elif not spec.check(value):
            hint = _misspelt(value, spec.choices)
            raise fail(path, f"key '{dotted}' must be {spec.wanted}, got {_show(value)}.{hint}")
    for name, spec in schema.items():
        if not isinstance(spec, dict) and spec.required and name not in data:
            path = (*prefix, name)
            section = f" in [{'.'.join(prefix)}]" if prefix else ""
            raise fail(prefix or path, f"missing required key '{'.'.join(path)}'{section}.")


#: Keys an sdcMicro user writes, and what microsdc offers instead (``createSdcObj``'s
#: arguments and sdcMicro's method names).
SDCMICRO_KEYS: dict[str, str] = {
    "variables.numeric": (
        "sdcMicro's numVars are the variables of a [microaggregation] or [noise] step: "
        'steps = [..., "microaggregation"] and [microaggregation] variables = [...].'
    ),
    "variables.numVars": (
        "sdcMicro's numVars are the variables of a [microaggregation] or [noise] step."
    ),
    "variables.keyVars": "sdcMicro's keyVars are 'variables.quasi_identifiers'.",
    "variables.key": "sdcMicro's keyVars are 'variables.quasi_identifiers'.",
    "variables.pram": (
        "sdcMicro's pramVars are the variables of a [pram] step: "
        'steps = [..., "pram"] and [pram] variables = [...].'
    ),
    "variables.pramVars": "sdcMicro's pramVars are the variables of a [pram] step.",
    "variables.weightVar": "sdcMicro's weightVar is 'variables.weights'.",
    "variables.hhId": "sdcMicro's hhId is 'variables.household_id'.",
    "variables.strataVar": (
        "sdcMicro's strataVar is 'suppression.strata' (and 'strata' of [pram] and "
        "[microaggregation])."
    ),
    "variables.ghostVars": "sdcMicro's ghostVars are 'suppression.linked'.",
    "variables.sensibleVar": "sdcMicro's sensibleVar is 'variables.sensitive'.",
    "variables.excludeVars": "sdcMicro's excludeVars are 'variables.drop'.",
    "localSuppression": 'sdcMicro\'s localSuppression is the step "suppression" ([suppression]).',
    "microaggregation.aggr": "sdcMicro's aggr is 'microaggregation.k'.",
    "noise.noise": (
        "sdcMicro's noise is a percentage of the sd: use 'noise.relative_sd' as a fraction "
        "(noise = 150 is relative_sd = 1.5)."
    ),
    "pram.strata_variables": "sdcMicro's strata_variables is 'pram.strata'.",
    "pram.pramVars": "sdcMicro's pramVars are 'pram.variables'.",
    "addNoise": 'sdcMicro\'s addNoise is the step "noise" ([noise]).',
    "recordSwap": 'sdcMicro\'s recordSwap is the step "swapping" ([swapping]).',
}
