"""The job-file schema: what each key accepts, its default and its meaning.

Each key is a :class:`_Key` with a check and the words of what it wants. A key
passed on to a library function names that function's parameter
(``param``): its default is read from the function's signature, and the
option lists come from the library module that owns them, so the job accepts
what the library accepts and says the same default. The job-file reference of
the documentation is generated from :data:`SCHEMA` and :data:`KEY_DOCS`
(:mod:`microsdc.job.reference`).
"""

from __future__ import annotations

import inspect
import itertools
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from microsdc._core.policy import POLICIES
from microsdc.backends.files import ENGINES
from microsdc.job.keycheck import SDCMICRO_KEYS, check_table
from microsdc.job.keydocs import DERIVED, KEY_MEANINGS
from microsdc.microaggregation import microaggregate
from microsdc.microaggregation.core import MEASURES
from microsdc.microaggregation.groups import METHODS as AGGREGATION_METHODS
from microsdc.noise import add_noise
from microsdc.noise.core import NOISE_METHODS
from microsdc.postrandomisation import pram
from microsdc.postrandomisation.params import MISSING as PRAM_MISSING
from microsdc.recoding import bottom_code, group_categories, merge_rare_categories, top_code
from microsdc.risk import check_k_anonymity, l_diversity, suda
from microsdc.risk.kanonymity import DEFAULT_K
from microsdc.risk.ldiversity import KINDS
from microsdc.suppression.local import local_suppression
from microsdc.suppression.params import DIS_FRACTION, DIS_SUDA_THRESHOLD, METHODS
from microsdc.swapping import record_swap_result

__all__ = [
    "KEY_DOCS",
    "SCHEMA",
    "SDCMICRO_KEYS",
    "STEPS",
    "check_table",
    "default_of",
    "library_keys",
]

#: Protection steps a job can run, in the order they run. "risk" only measures.
STEPS = ("risk", "swapping", "suppression", "pram", "microaggregation", "noise")

#: ``method = "random"`` of :func:`~microsdc.local_suppression` is the kanonymity
#: baseline, for comparisons: a job does not release it.
JOB_METHODS = tuple(m for m in METHODS if m != "random")

_NONE = inspect.Parameter.empty


@dataclass(frozen=True)
class _Key:
    check: Callable[[Any], bool]
    wanted: str
    required: bool = False
    #: The library function and parameter the key is passed to.
    param: tuple[Callable[..., Any], str] | None = None
    #: The job's own default, for a key that is not a library parameter.
    default: Any = _NONE
    #: Values the library parameter takes that the job refuses on purpose.
    refused: tuple[Any, ...] = ()
    #: Values the job takes that the library parameter refuses, for a reason of the job's
    #: ("conservative" measures a risk-only job; a suppression step refuses it).
    extra: tuple[Any, ...] = ()
    #: Another key whose value is the default of this one.
    follows: str | None = None
    #: The names a list value draws from, for a "did you mean" on a misspelt one.
    choices: tuple[str, ...] = ()

    def resolved_default(self) -> Any:
        """The default: the library signature's for a library parameter, else the job's."""
        if self.follows is not None:
            return default_of(self.follows)
        if self.param is not None and self.default is _NONE:
            func, name = self.param
            return inspect.signature(func).parameters[name].default
        return self.default


def _is_str(v: Any) -> bool:
    return isinstance(v, str) and v != ""


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _int_at_least(minimum: int, **kwargs: Any) -> _Key:
    """A key that takes an integer of at least ``minimum``, worded from the same bound."""
    return _Key(lambda v: _is_int(v) and v >= minimum, f"an integer >= {minimum}", **kwargs)


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _str_list(v: Any, *, empty: bool = False) -> bool:
    return (
        isinstance(v, list)
        and (empty or len(v) > 0)
        and all(_is_str(x) for x in v)
        and len(set(v)) == len(v)
    )


def _similar(v: Any) -> bool:
    if isinstance(v, list) and all(_is_str(x) for x in v):
        return True
    return isinstance(v, list) and all(_str_list(x) for x in v)


def _is_encoding(v: Any) -> bool:
    from microsdc._validation import text_encoding_problem

    return text_encoding_problem(v) is None


def _is_separator(v: Any) -> bool:
    from microsdc._validation import separator_problem

    return separator_problem(v) is None


def _missing_values(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str | int | float) for x in v)


def _listed(options: tuple[str, ...]) -> str:
    return ", ".join(f'"{o}"' for o in options)


def _one_of(options: tuple[str, ...], **kw: Any) -> _Key:
    return _Key(lambda v: v in options, f"one of {_listed(options)}", **kw)


def _is_policy(v: Any) -> bool:
    """A value ``missing=`` of the library takes (a policy name or alpha in [0, 1])."""
    from microsdc._core.policy import parse_policy
    from microsdc.exceptions import InvalidParameterError

    if isinstance(v, bool):
        return False
    try:
        parse_policy(v, "job")
    except InvalidParameterError:
        return False
    return True


def _groups(v: Any) -> bool:
    """``recode.<column>.groups``: labels to non-empty lists of strings or numbers, each
    category in one group only."""
    if not isinstance(v, dict) or not v:
        return False
    members = [x for group in v.values() if isinstance(group, list) for x in group]
    return (
        all(isinstance(g, list) and g for g in v.values())
        and all(_is_str(x) or _is_num(x) for x in members)
        and len({(type(x) is str, x) for x in members}) == len(members)
    )


_STR = _Key(_is_str, "a non-empty string")
_STR_LIST = _Key(_str_list, "a non-empty list of distinct column names (strings)")
_STR_LIST0 = _Key(lambda v: _str_list(v, empty=True), "a list of distinct column names")


SCHEMA: dict[str, Any] = {
    "title": _STR,
    "steps": _Key(
        lambda v: _str_list(v) and all(s in STEPS for s in v),
        "a non-empty list of distinct steps from " + _listed(STEPS),
        required=True,
        choices=STEPS,
    ),
    "input": {
        "path": _Key(_is_str, "a file name (string)", required=True),
        "missing_values": _Key(
            _missing_values, 'a list of strings or numbers that mean missing (e.g. ["?", -9])'
        ),
        "sep": _Key(
            _is_separator,
            'a one-character string other than the quote and a line break (e.g. ";"; '
            "default: detected from the header line)",
        ),
        "encoding": _Key(
            _is_encoding,
            'a text encoding known to Python (e.g. "latin-1"; a codec such as "rot13" is not one)',
        ),
        "engine": _one_of(ENGINES),
        "table": _Key(_is_str, "a table name (string)"),
    },
    "variables": {
        "quasi_identifiers": _Key(_str_list, _STR_LIST.wanted, required=True),
        "weights": _STR,
        "household_id": _STR,
        "hierarchy": _STR_LIST,
        "sensitive": _STR_LIST0,
        "drop": _STR_LIST0,
        "compare_by": _STR,
    },
    "recode": {
        "*": {
            "width": _Key(lambda v: _is_num(v) and v > 0, "a number > 0"),
            "start": _Key(_is_num, "a number"),
            "breaks": _Key(
                lambda v: (
                    isinstance(v, list)
                    and len(v) >= 2
                    and all(_is_num(x) for x in v)
                    and all(a < b for a, b in itertools.pairwise(v))
                ),
                "an increasing list of at least two numbers",
            ),
            "labels": _Key(lambda v: _str_list(v), "a list of distinct strings, one per bin"),
            "groups": _Key(
                _groups,
                "a table {new label = [categories]}, each category (a string or a number) "
                "in one group only",
                param=(group_categories, "groups"),
                default=None,
            ),
            "min_count": _int_at_least(
                1,
                param=(merge_rare_categories, "min_count"),
                default=None,
            ),
            "other_label": _Key(
                lambda v: _is_str(v) or _is_num(v), "a string or a number", default=None
            ),
            "top": _Key(_is_num, "a number", param=(top_code, "threshold"), default=None),
            "top_value": _Key(_is_num, "a number", param=(top_code, "value")),
            "bottom": _Key(_is_num, "a number", param=(bottom_code, "threshold"), default=None),
            "bottom_value": _Key(_is_num, "a number", param=(bottom_code, "value")),
        },
    },
    "risk": {
        "k": _int_at_least(
            1,
            param=(check_k_anonymity, "k"),
            default=DEFAULT_K,
        ),
        "missing": _Key(
            _is_policy,
            f"one of {_listed(POLICIES)} or a number alpha in [0, 1]",
            # the guarantee a job releases to: its default is suppression's
            param=(local_suppression, "missing"),
            extra=("conservative",),
        ),
        "l_diversity": _one_of(KINDS, param=(l_diversity, "kind")),
        # a threshold for every kind, not only the 'l' of recursive diversity
        "l": _int_at_least(1, default=2),
        "c": _Key(lambda v: _is_num(v) and v > 0, "a number > 0", param=(l_diversity, "c")),
        "risk_threshold": _Key(
            lambda v: _is_num(v) and 0 < v <= 1, "a number in (0, 1]", default=0.1
        ),
        "suda": _Key(lambda v: isinstance(v, bool), "true or false", default=False),
        "max_msu": _int_at_least(1, param=(suda, "max_msu")),
    },
    "suppression": {
        "importance": _Key(
            lambda v: (
                _str_list(v)
                or (isinstance(v, list) and bool(v) and all(_is_int(x) for x in v))
                or (
                    isinstance(v, dict)
                    and bool(v)
                    and all(_is_num(x) and x > 0 for x in v.values())
                )
            ),
            "a list of the quasi-identifiers, most important (blanked last) first, a table "
            "of weights > 0 per quasi-identifier (the cost of blanking one cell), or "
            "sdcMicro's importance vector (1 to n, one per quasi-identifier in their order, "
            "1 = blanked last)",
        ),
        "method": _one_of(JOB_METHODS, param=(local_suppression, "method"), refused=("random",)),
        "strata": _STR_LIST,
        "combs": _Key(
            lambda v: isinstance(v, list) and len(v) > 0 and all(_is_int(x) and x >= 1 for x in v),
            "a list of integers >= 1 (sizes of QI subsets)",
        ),
        "accept_rare_values": _Key(
            lambda v: isinstance(v, bool),
            "true or false",
            param=(local_suppression, "accept_rare_values"),
        ),
        DIS_SUDA_THRESHOLD.name: _Key(
            DIS_SUDA_THRESHOLD.accepts,
            DIS_SUDA_THRESHOLD.wanted,
            param=(local_suppression, DIS_SUDA_THRESHOLD.name),
        ),
        DIS_FRACTION.name: _Key(
            DIS_FRACTION.accepts,
            DIS_FRACTION.wanted,
            param=(local_suppression, DIS_FRACTION.name),
        ),
        "linked": _Key(
            lambda v: isinstance(v, dict) and all(_str_list(x) for x in v.values()),
            "a table {key variable = [linked columns]} (columns blanked wherever their key "
            "variable is)",
        ),
    },
    "swapping": {
        "similar": _Key(
            _similar, "a list of column names, or a list of such lists (similarity profiles)"
        ),
        "swaprate": _Key(
            lambda v: _is_num(v) and 0 <= v <= 1,
            "a number in [0, 1]",
            param=(record_swap_result, "swaprate"),
        ),
        "k_anonymity": _int_at_least(
            0,
            param=(record_swap_result, "k_anonymity"),
            follows="risk.k",
        ),
        "risk_variables": _STR_LIST,
        # below 1: the job's risk is 1 / the persons sharing the risk variables, at most 1
        "risk_threshold": _Key(
            lambda v: _is_num(v) and 0 <= v < 1,
            "a number in [0, 1)",
            param=(record_swap_result, "risk_threshold"),
        ),
        "carry_along": _STR_LIST0,
        "checked_columns": _STR_LIST0,
        "renumber_households": _Key(lambda v: isinstance(v, bool), "true or false", default=False),
        "seed": _int_at_least(0, param=(record_swap_result, "seed")),
    },
    "pram": {
        "variables": _Key(_str_list, _STR_LIST.wanted, required=True),
        "strata": _STR_LIST,
        "household_id": _STR,
        "pd": _Key(lambda v: _is_num(v) and 0 <= v <= 1, "a number in [0, 1]", param=(pram, "pd")),
        "alpha": _Key(
            lambda v: _is_num(v) and 0 <= v <= 1, "a number in [0, 1]", param=(pram, "alpha")
        ),
        "missing": _one_of(PRAM_MISSING, param=(pram, "missing")),
        "together": _Key(
            lambda v: (
                isinstance(v, list) and len(v) > 0 and all(_str_list(g) and len(g) >= 2 for g in v)
            ),
            "a list of lists of two or more column names",
        ),
        "neighbours": _STR_LIST,
        "seed": _int_at_least(0, param=(pram, "seed")),
    },
    "microaggregation": {
        "variables": _Key(_str_list, _STR_LIST.wanted, required=True),
        "k": _int_at_least(1, param=(microaggregate, "k")),
        "method": _one_of(AGGREGATION_METHODS, param=(microaggregate, "method")),
        "measure": _one_of(MEASURES, param=(microaggregate, "measure")),
        "strata": _STR_LIST,
        "n_groups": _int_at_least(1, param=(microaggregate, "n_groups")),
    },
    "noise": {
        "variables": _Key(_str_list, _STR_LIST.wanted, required=True),
        "method": _one_of(NOISE_METHODS, param=(add_noise, "method")),
        "relative_sd": _Key(
            lambda v: _is_num(v) and v >= 0, "a number >= 0", param=(add_noise, "relative_sd")
        ),
        "keep_covariance": _Key(
            lambda v: isinstance(v, bool), "true or false", param=(add_noise, "keep_covariance")
        ),
        "lower": _Key(_is_num, "a number"),
        "upper": _Key(_is_num, "a number"),
        "totals": _Key(
            lambda v: isinstance(v, dict) and bool(v) and all(_str_list(x) for x in v.values()),
            "a table {aggregate = [components]}",
        ),
        "seed": _int_at_least(0, param=(add_noise, "seed")),
    },
    "output": {
        "random_order": _Key(lambda v: isinstance(v, bool), "true or false", default=False),
        "directory": _Key(_is_str, "a folder name (string)"),
        "data": _Key(_is_str, "a file name (string)"),
        "audit": _Key(lambda v: _is_str(v) and v.endswith(".json"), "a file name ending in .json"),
        "report": _Key(
            lambda v: _is_str(v) and v.endswith((".html", ".htm")),
            "a file name ending in .html",
        ),
        "release": _Key(
            lambda v: _is_str(v) and v.endswith(".json"), "a file name ending in .json"
        ),
    },
}


def _key(dotted: str) -> _Key:
    spec: Any = SCHEMA
    for part in dotted.split("."):
        spec = spec[part]
    assert isinstance(spec, _Key), dotted
    return spec


def default_of(dotted: str) -> Any:
    """The default of a job key: its library parameter's (from the signature), else the job's.

    Examples
    --------
    >>> default_of("swapping.swaprate"), default_of("risk.missing"), default_of("risk.k")
    (0.05, 'category', 3)
    """
    return _key(dotted).resolved_default()


def library_keys(
    schema: Mapping[str, Any] = SCHEMA, prefix: str = ""
) -> list[tuple[str, Callable[..., Any], str]]:
    """The keys passed on to a library parameter: (dotted key, function, parameter name)."""
    out: list[tuple[str, Callable[..., Any], str]] = []
    for name, spec in schema.items():
        if isinstance(spec, dict):
            out.extend(library_keys(spec, f"{prefix}{name}."))
        elif spec.param is not None:
            out.append((f"{prefix}{name}", *spec.param))
    return out


def _shown(value: Any) -> str:
    """A default as the reference shows it: TOML for a value, the prose of a text default."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value) if isinstance(value, str) else str(value)


#: What each table and key of :data:`SCHEMA` means: dotted name -> (default, description).
KEY_DOCS: dict[str, tuple[str | None, str]] = {
    dotted: (_shown(default_of(dotted)) if shown == DERIVED else shown, meaning)
    for dotted, (shown, meaning) in KEY_MEANINGS.items()
}


#: Sections required by a step.
_SECTION_OF_STEP = {
    "suppression": "suppression",
    "swapping": "swapping",
    "pram": "pram",
    "microaggregation": "microaggregation",
    "noise": "noise",
}
