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
from microsdc.microaggregation import microaggregate
from microsdc.microaggregation.core import MEASURES
from microsdc.microaggregation.groups import METHODS as AGGREGATION_METHODS
from microsdc.noise import add_noise
from microsdc.noise.core import NOISE_METHODS
from microsdc.postrandomisation import pram
from microsdc.postrandomisation.params import MISSING as PRAM_MISSING
from microsdc.recoding import bottom_code, group_categories, merge_rare_categories, top_code
from microsdc.risk import check_k_anonymity, l_diversity, suda
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
            "min_count": _Key(
                lambda v: _is_int(v) and v >= 1,
                "an integer >= 1",
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
        "k": _Key(
            lambda v: _is_int(v) and v >= 1,
            "an integer >= 1",
            param=(check_k_anonymity, "k"),
            default=3,
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
        "l": _Key(lambda v: _is_int(v) and v >= 1, "an integer >= 1", default=2),
        "c": _Key(lambda v: _is_num(v) and v > 0, "a number > 0", param=(l_diversity, "c")),
        "risk_threshold": _Key(
            lambda v: _is_num(v) and 0 < v <= 1, "a number in (0, 1]", default=0.1
        ),
        "suda": _Key(lambda v: isinstance(v, bool), "true or false", default=False),
        "max_msu": _Key(
            lambda v: _is_int(v) and v >= 1, "an integer >= 1", param=(suda, "max_msu")
        ),
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
        "k_anonymity": _Key(
            lambda v: _is_int(v) and v >= 0,
            "an integer >= 0",
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
        "seed": _Key(
            lambda v: _is_int(v) and v >= 0, "an integer >= 0", param=(record_swap_result, "seed")
        ),
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
        "seed": _Key(lambda v: _is_int(v) and v >= 0, "an integer >= 0", param=(pram, "seed")),
    },
    "microaggregation": {
        "variables": _Key(_str_list, _STR_LIST.wanted, required=True),
        "k": _Key(lambda v: _is_int(v) and v >= 1, "an integer >= 1", param=(microaggregate, "k")),
        "method": _one_of(AGGREGATION_METHODS, param=(microaggregate, "method")),
        "measure": _one_of(MEASURES, param=(microaggregate, "measure")),
        "strata": _STR_LIST,
        "n_groups": _Key(
            lambda v: _is_int(v) and v >= 1, "an integer >= 1", param=(microaggregate, "n_groups")
        ),
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
        "seed": _Key(lambda v: _is_int(v) and v >= 0, "an integer >= 0", param=(add_noise, "seed")),
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


#: The default of this key is shown from :func:`default_of` (the library's, or the job's).
_DERIVED = "derived"

#: What each table and key of :data:`SCHEMA` means: dotted name -> (default, description).
#: The default is ``None`` for a required key and for a table. ``"*"`` stands for any
#: column name. The job-file reference of the documentation is generated from
#: SCHEMA and this table (:func:`microsdc.job.reference.job_reference_markdown`).
_KEY_DOCS: dict[str, tuple[str | None, str]] = {
    "title": ("the input file's name", "Title of the report and the audit record."),
    "steps": (
        None,
        "Steps to run. They always run in the order risk, swapping, suppression, pram, "
        'microaggregation, noise, whatever the order in the list; "risk" only measures. The '
        "risk is measured before and after the protection steps in every job. pram, "
        "microaggregation and noise need their section.",
    ),
    "input": (None, "The file to anonymise. Required."),
    "input.path": (
        None,
        "CSV, Parquet, SPSS (`.sav`) or Stata (`.dta`) file, relative to the job file's folder; "
        "with `engine`, also a folder or glob of Parquet files, or a DuckDB database file.",
    ),
    "input.missing_values": (
        "none",
        "Codes that mean missing in every column, besides empty cells and NaN; such "
        "cells count as missing in the quasi-identifiers.",
    ),
    "input.sep": (
        "detected",
        "Field separator of a CSV file (`.csv` or `.txt`); when absent, the one among "
        "`,` `;` tab and `|` that splits the header into the most fields.",
    ),
    "input.encoding": (
        "utf-8",
        'Text encoding of a CSV file, any name Python knows (e.g. `"latin-1"`).',
    ),
    "input.engine": (
        "none (pandas, in memory)",
        'Who holds the rows: `"duckdb"` or `"polars"` read `path` lazily (a Parquet file, '
        "a folder or glob of Parquet files, a CSV file (UTF-8, or latin-1 and UTF-16 with "
        '`encoding` on `"duckdb"`; read as pandas reads it: an empty cell is missing, '
        "`NA` or `NULL` only when declared in `missing_values`), or with `table` a DuckDB "
        "database "
        "file), group "
        "the records by the key variables and write the anonymised data as Parquet "
        "(streaming); rows never enter Python. For the steps risk and suppression (greedy, "
        '`risk.missing = "wildcard"`) and `[recode]` bands of one `width` (binned in the '
        "engine); swapping, `[recode]` with `breaks`, `suppression.linked` and "
        '`suppression.method = "exact"` need the records in memory and are refused. The '
        "report leaves out what needs the records: the household risk, l-diversity and the "
        "prosecutor risk.",
    ),
    "input.table": (
        "none",
        'Table of the DuckDB database file `path` to read; with `engine = "duckdb"`.',
    ),
    "variables": (None, "The roles of the columns. Required."),
    "variables.quasi_identifiers": (
        None,
        "Key variables: the columns an intruder may know. Categorical; bin numeric ones "
        "in `[recode]`.",
    ),
    "variables.weights": (
        "none (the sample is the population)",
        "Sampling weight column; gives the population frequency Fk and the individual risk.",
    ),
    "variables.household_id": (
        "none",
        "Household id column. Required by swapping; adds the household risk.",
    ),
    "variables.hierarchy": (
        "none",
        "Geographic levels, coarsest first (e.g. region, district). Required by swapping.",
    ),
    "variables.sensitive": (
        "[]",
        "Sensitive variables whose l-diversity is measured. None may be a quasi-identifier.",
    ),
    "variables.drop": (
        "[]",
        "Columns not released (e.g. a code that gives a key variable back, such as "
        "`education-num` for `education`): removed right after reading, never used. A "
        "household id (`variables.household_id`, `pram.household_id`) may be listed: the "
        "steps use it and it is removed before the release is written.",
    ),
    "variables.compare_by": (
        "none",
        "A column (a region): the report compares continuous variables within its groups.",
    ),
    "recode": (
        None,
        "Global recoding before anything is measured, one table per column: binning of "
        "numbers (`width` or `breaks`), top and bottom coding (`top`, `bottom`), merging "
        "of categories (`groups`, `min_count`).",
    ),
    "recode.*": (
        None,
        "The column to recode. Numbers: `bottom` and `top` coding first, then at most one "
        "of `width` or `breaks`. Categories: `groups` first, then `min_count`. A table "
        "either bins numbers or merges categories, not both.",
    ),
    "recode.*.width": ("", "Equal-width bins: `width = 5` gives 20-24, 25-29, ..."),
    "recode.*.start": ("0", "Left edge of one bin of width `width` (the bins are anchored there)."),
    "recode.*.breaks": (
        "",
        "Bin edges, ascending; values outside them are an error.",
    ),
    "recode.*.labels": (
        "made from the edges (18-64, 65+)",
        "One label per bin; only with `breaks`.",
    ),
    "recode.*.groups": (
        "none",
        "Categories merged into a new label, sdcMicro's `groupAndRename` "
        "(`microsdc.group_categories`): `groups = { piped = [1, 2], other = [5, 6, 7] }`. "
        'Each category is written as the column holds it (`1` for a numeric code, `"1"` '
        "for a text); a category the column lacks, or a label that is another category "
        "of the column, is an error. On a numeric column a label that is a number "
        '(`"1" = [1, 2]`) stays a number; another label makes the column text.',
    ),
    "recode.*.min_count": (
        "none",
        "Categories with fewer records are merged into `other_label` "
        "(`microsdc.merge_rare_categories`), after `groups`.",
    ),
    "recode.*.other_label": (
        '`"other"`, or the next code above the largest for numeric codes',
        "The category the rare ones of `min_count` are merged into.",
    ),
    "recode.*.top": (
        "none",
        "Top coding, sdcMicro's `topBotCoding` (`microsdc.top_code`): values above it are "
        "replaced by `top_value`.",
    ),
    "recode.*.top_value": ("`top`", "The value that replaces those above `top`."),
    "recode.*.bottom": (
        "none",
        "Bottom coding (`microsdc.bottom_code`): values below it are replaced by `bottom_value`.",
    ),
    "recode.*.bottom_value": ("`bottom`", "The value that replaces those below `bottom`."),
    "risk": ("", "How the risk is measured."),
    "risk.k": (
        _DERIVED,
        "k of k-anonymity: a record is at risk when fewer than k records match it.",
    ),
    "risk.missing": (
        _DERIVED,
        "How a missing quasi-identifier value counts, and so the guarantee suppression "
        'gives. The default, `"category"`, resists an intruder who knows every key value '
        "of a person: a blank is one more category, every released record is in a class "
        "of k identical records, so none is picked with probability above 1/k. The "
        'measures: a blank matches any value (`"wildcard"`, sdcMicro\'s count), or a '
        'value with that value\'s share (`"probabilistic"`); suppressing to them leaves '
        "records such an intruder picks, and the job warns with their number. "
        '`"conservative"` (the smallest count over the completions) is a measure only and '
        "refused with a suppression step; a number alpha in [0, 1] weighs matches with "
        "missing values as sdcMicro's freqCalc.",
    ),
    "risk.l_diversity": (_DERIVED, "Kind of l-diversity measured on the sensitive variables."),
    "risk.l": (_DERIVED, "A record fails l-diversity when its class has fewer than l values."),
    "risk.c": ("none", 'Constant of recursive (c, l)-diversity; required by "recursive".'),
    "risk.risk_threshold": (
        _DERIVED,
        "The report counts the records whose individual risk is above this value.",
    ),
    "risk.suda": (
        _DERIVED,
        "Also find the special uniques (SUDA2): records unique on a few of their key "
        "values. The report shows how many records have one, the DIS-SUDA scores and which "
        "variables and values contribute most. Missing values count as `risk.missing` says "
        '(`"probabilistic"` and alpha as `"wildcard"`; not with `"conservative"`).',
    ),
    "risk.max_msu": (
        "all the quasi-identifiers",
        "With `risk.suda`: the largest number of key values in a special unique searched "
        "(4-6 keeps 10-15 quasi-identifiers fast).",
    ),
    "suppression": ("", 'Local suppression; needs "suppression" in `steps`.'),
    "suppression.importance": (
        "QIs with more categories are blanked first",
        "Which cells to keep. A list ranks every quasi-identifier; a table such as "
        "`{ age = 3, sex = 1 }` gives the cost of each blanked cell; numbers such as "
        "`[3, 1, 2]` are sdcMicro's importance vector (one per quasi-identifier, in their "
        "order, 1 = blanked last).",
    ),
    "suppression.method": (
        _DERIVED,
        '"exact" solves an integer program (small files only) for the fewest cells.',
    ),
    "suppression.strata": ("none", "Columns whose groups are anonymised each on its own."),
    "suppression.accept_rare_values": (
        _DERIVED,
        "Suppress although a key variable has so many rare values that suppression cannot "
        "protect it (100 or more distinct values, more than 5 % of the records in values "
        "fewer than k records hold); without it such a variable stops the job, to be "
        "binned (`[recode]`), recoded or dropped.",
    ),
    f"suppression.{DIS_SUDA_THRESHOLD.name}": (
        "none (only k)",
        DIS_SUDA_THRESHOLD.meaning
        + ' The special uniques are counted as `risk.missing` says (`"category"`: a blank '
        "is a value; the others: a blank matches any value). Not with `input.engine`.",
    ),
    f"suppression.{DIS_FRACTION.name}": (_DERIVED, DIS_FRACTION.meaning),
    "suppression.linked": (
        "{}",
        "Linked (ghost) variables, `{key variable = [columns]}`: each column is blanked "
        "wherever its key variable was blanked, so that it cannot give the value back.",
    ),
    "suppression.combs": (
        "the full set of quasi-identifiers",
        "Sizes of quasi-identifier subsets that must each become k-anonymous.",
    ),
    "swapping": (
        "",
        'Targeted record swapping of households; needs "swapping" in `steps`, '
        "`variables.household_id` and `variables.hierarchy`.",
    ),
    "swapping.similar": (
        "no constraint",
        "Similarity profiles: a donor household must have the same values in these "
        "columns; with a list of lists, the profiles are tried in turn.",
    ),
    "swapping.swaprate": (
        _DERIVED,
        "Share of households swapped at least (both households of a pair count). Every "
        "household at risk that finds a donor is swapped, so more may be swapped.",
    ),
    "swapping.k_anonymity": (
        "`risk.k`",
        "A household is at risk when a member shares its risk variables and area with "
        "fewer than this many persons; 0 or 1: nobody is at risk.",
    ),
    "swapping.risk_variables": (
        "the quasi-identifiers that are not hierarchy levels",
        "Person variables of the swapping risk.",
    ),
    "swapping.risk_threshold": (
        "1 / `k_anonymity`",
        "A household is at risk when its risk is above this value.",
    ),
    "swapping.carry_along": (
        "[]",
        "Columns exchanged together with the geography; a column that varies within "
        "households moves member by member between households of one size.",
    ),
    "swapping.checked_columns": (
        "[]",
        "Columns left in place although they look like geography (constant within areas, "
        "or determining an area). Without it such a column stops the job with its name.",
    ),
    "swapping.renumber_households": (
        _DERIVED,
        "Give the released households new random ids, so that ids numbered area by area "
        "do not give the original area back.",
    ),
    "swapping.seed": (
        "none (fresh randomness)",
        "Seed of the random choices. It is never written into the outputs; keep it secret.",
    ),
    "pram": (
        None,
        "PRAM of categorical variables (usually not key variables), after suppression: each "
        "value is released as a draw from an invariant transition matrix (`microsdc.pram`).",
    ),
    "pram.variables": (None, "The categorical columns to PRAM."),
    "pram.strata": ("[]", "Strata columns: each gets its own matrices; records never move across."),
    "pram.household_id": (
        "none (each person on their own)",
        "Household id column: PRAM household-level variables (roof, walls) by household, one "
        "draw per household given to every member, matrices from household counts. Each "
        "variable and stratum must hold one value per household. It may be in "
        "`variables.drop`.",
    ),
    "pram.pd": (_DERIVED, "Lowest probability of keeping a category before the invariance step."),
    "pram.alpha": (_DERIVED, "Weight of the invariant matrix against no change."),
    "pram.missing": (_DERIVED, '`"keep"`: missing values stay missing; `"state"`: PRAMmed.'),
    "pram.together": (
        "[]",
        "Groups of variables PRAMmed through one matrix of their combinations.",
    ),
    "pram.neighbours": (
        "[]",
        "Ordered variables (numbers, dates) that move only to the next category up or down.",
    ),
    "pram.seed": ("none (fresh)", "Seed of the draws; kept out of the audit record and report."),
    "microaggregation": (
        None,
        "Microaggregation of numeric variables (`microsdc.microaggregate`); weighted by "
        "`variables.weights` when given.",
    ),
    "microaggregation.variables": (None, "The numeric columns to microaggregate."),
    "microaggregation.k": (_DERIVED, "Least number of records behind each released value."),
    "microaggregation.method": (
        _DERIVED,
        '`"mdav"` (multivariate), `"individual"`, `"optimal"` or `"quantile"` (per column).',
    ),
    "microaggregation.measure": (_DERIVED, "What replaces a group's values."),
    "microaggregation.strata": ("[]", "Strata columns: groups never mix strata."),
    "microaggregation.n_groups": (_DERIVED, 'Number of groups of `method = "quantile"`.'),
    "noise": (None, "Noise added to numeric variables (`microsdc.add_noise`)."),
    "noise.variables": (None, "The numeric columns to perturb."),
    "noise.method": (
        _DERIVED,
        '`"additive"`, `"correlated"`, `"multiplicative"` or `"outliers"`.',
    ),
    "noise.relative_sd": (
        _DERIVED,
        "The noise's standard deviation as a fraction of the column's (0.1 = a tenth of an "
        "sd; sdcMicro's `noise = 150` is 1.5).",
    ),
    "noise.keep_covariance": (_DERIVED, 'With `method = "correlated"`: covariance kept exactly.'),
    "noise.lower": ("none", "Lowest released value (0 keeps amounts non-negative)."),
    "noise.upper": ("none", "Highest released value."),
    "noise.totals": (
        "none",
        'Aggregates recomputed from their noisy components: `income = ["wage", "pension"]`.',
    ),
    "noise.seed": ("none (fresh)", "Seed of the draws; kept out of the audit record and report."),
    "output": ("", "Where the job writes."),
    "output.random_order": (
        _DERIVED,
        "Release the rows in an order drawn from their released values (a hash of each "
        "row), not the input's: an input sorted by a key variable would otherwise let the "
        "records around a blanked cell tell its value. Needs no seed: the order follows "
        "from what is released and says nothing more.",
    ),
    "output.directory": ('"."', "Folder of the outputs, relative to the job file's folder."),
    "output.data": (
        "`<input>_anonymised.<ext>`",
        "The anonymised data; the format follows the extension (a CSV file in the "
        "input's `encoding`).",
    ),
    "output.audit": (
        "`<input>_audit.json`",
        "The internal audit record (JSON): the input's SHA-256, the figures before and "
        "after. Keep it; never publish it with the data.",
    ),
    "output.report": (
        "`<input>_report.html`",
        "The internal HTML report (figures of the input, before and after). Keep it; "
        "never publish it with the data.",
    ),
    "output.release": (
        "`<input>_release.json`",
        "The external release record (JSON), published with the data: what was done and "
        "the risk of the released file, computed from the released file and parameters "
        "that do not help an intruder (no hash of the input, no seed, no figure before).",
    ),
}

#: What each table and key of :data:`SCHEMA` means: dotted name -> (default, description).
KEY_DOCS: dict[str, tuple[str | None, str]] = {
    dotted: (_shown(default_of(dotted)) if shown == _DERIVED else shown, meaning)
    for dotted, (shown, meaning) in _KEY_DOCS.items()
}


#: Sections required by a step.
_SECTION_OF_STEP = {
    "suppression": "suppression",
    "swapping": "swapping",
    "pram": "pram",
    "microaggregation": "microaggregation",
    "noise": "noise",
}
