"""The job file: one TOML document that describes a whole anonymisation run.

A job names the input file and its roles (quasi-identifiers, weights,
household id, geography, sensitive variables), the recoding of numeric
variables, the risk settings, the protection steps and the output paths.
:func:`load_job` reads and checks it completely before anything runs: an
unknown key, a value of the wrong type or a missing input file is reported
with the key's dotted name and its line in the file.

Relative paths in a job file are relative to the folder of the job file.

Example::

    title = "Adult sample, public use file"
    steps = ["risk", "suppression"]

    [input]
    path = "../data/adult.csv"

    [variables]
    quasi_identifiers = ["age", "sex", "race", "marital-status"]
    weights = "fnlwgt"
    sensitive = ["Salary"]
    drop = ["education-num"]  # removed on reading: a code of a key variable

    [recode.age]
    width = 5

    [risk]
    k = 3
    missing = "wildcard"

    [suppression]
    importance = ["race", "sex", "marital-status", "age"]
    # blanked wherever their key variable is blanked (linked variables)
    linked = { sex = ["relationship"], marital-status = ["relationship"] }

    [output]
    directory = "output"
"""

from __future__ import annotations

import difflib
import itertools
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from microsdc.exceptions import JobFileError

__all__ = [
    "STEPS",
    "JobConfig",
    "JobFileError",
    "OutputPaths",
    "RecodeSpec",
    "load_job",
    "parse_job",
]

#: Protection steps a job can run, in the order they run. "risk" only measures.
STEPS = ("risk", "swapping", "suppression")

MISSING_POLICIES = ("wildcard", "category", "probabilistic", "conservative")
LDIV_KINDS = ("distinct", "entropy", "recursive")
SUPPRESSION_METHODS = ("greedy", "exact")
#: Engines that can hold the rows of an input too big for memory.
ENGINES = ("duckdb", "polars")


# --------------------------------------------------------------------------- locating keys

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r"\"(?:[^\"\\]|\\.)*\"|'[^']*'"
_PART = rf"(?:{_BARE}|{_QUOTED})"
_DOTTED = rf"{_PART}(?:\s*\.\s*{_PART})*"
_HEADER_RE = re.compile(rf"^\s*\[\[?\s*({_DOTTED})\s*\]\]?")
_KEY_RE = re.compile(rf"^\s*({_DOTTED})\s*=")


def _split_dotted(text: str) -> tuple[str, ...]:
    parts = re.findall(rf"\s*({_PART})\s*(?:\.|$)", text)
    return tuple(p[1:-1] if p[:1] in "\"'" else p for p in parts)


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Map each table header and key of a TOML document to its first line (1-based).

    A line scanner, not a parser: it follows ``[table]`` headers and
    ``key = value`` lines, which is all that is needed to point at a key. Keys
    inside inline tables or multi-line values are not listed; callers fall back
    to the enclosing key.
    """
    lines: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    in_multiline: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if in_multiline:
            if in_multiline in line:
                in_multiline = None
            continue
        header = _HEADER_RE.match(line)
        if header:
            table = _split_dotted(header.group(1))
            lines.setdefault(table, number)
            continue
        key = _KEY_RE.match(line)
        if key:
            path = table + _split_dotted(key.group(1))
            lines.setdefault(path, number)
            rest = line[key.end() :]
            for quote in ('"""', "'''"):
                if rest.count(quote) == 1:
                    in_multiline = quote
    return lines


# --------------------------------------------------------------------------- the schema


@dataclass(frozen=True)
class _Key:
    check: Callable[[Any], bool]
    wanted: str
    required: bool = False


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
    import codecs

    if not _is_str(v):
        return False
    try:
        codecs.lookup(v)
    except LookupError:
        return False
    return True


def _missing_values(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str | int | float) for x in v)


def _one_of(options: tuple[str, ...]) -> _Key:
    listed = ", ".join(f'"{o}"' for o in options)
    return _Key(lambda v: v in options, f"one of {listed}")


_STR = _Key(_is_str, "a non-empty string")
_STR_LIST = _Key(_str_list, "a non-empty list of distinct column names (strings)")
_STR_LIST0 = _Key(lambda v: _str_list(v, empty=True), "a list of distinct column names")

SCHEMA: dict[str, Any] = {
    "title": _STR,
    "steps": _Key(
        lambda v: _str_list(v) and all(s in STEPS for s in v),
        "a non-empty list of distinct steps from " + ", ".join(f'"{s}"' for s in STEPS),
        required=True,
    ),
    "input": {
        "path": _Key(_is_str, "a file name (string)", required=True),
        "missing_values": _Key(
            _missing_values, 'a list of strings or numbers that mean missing (e.g. ["?", -9])'
        ),
        "sep": _Key(
            lambda v: isinstance(v, str) and len(v) == 1,
            'a one-character string (e.g. ";"; default: detected from the header line)',
        ),
        "encoding": _Key(_is_encoding, 'a text encoding known to Python (e.g. "latin-1")'),
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
        },
    },
    "risk": {
        "k": _Key(lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
        "missing": _Key(
            lambda v: (
                v in MISSING_POLICIES
                or (isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1)
            ),
            "one of " + ", ".join(f'"{o}"' for o in MISSING_POLICIES) + " or a number alpha "
            "in [0, 1]",
        ),
        "l_diversity": _one_of(LDIV_KINDS),
        "l": _Key(lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
        "c": _Key(lambda v: _is_num(v) and v > 0, "a number > 0"),
        "risk_threshold": _Key(lambda v: _is_num(v) and 0 < v <= 1, "a number in (0, 1]"),
    },
    "suppression": {
        "importance": _Key(
            lambda v: (
                _str_list(v)
                or (
                    isinstance(v, dict)
                    and bool(v)
                    and all(_is_num(x) and x > 0 for x in v.values())
                )
            ),
            "a list of the quasi-identifiers, most important (blanked last) first, or a table "
            "of weights > 0 per quasi-identifier (the cost of blanking one cell)",
        ),
        "method": _one_of(SUPPRESSION_METHODS),
        "strata": _STR_LIST,
        "combs": _Key(
            lambda v: isinstance(v, list) and len(v) > 0 and all(_is_int(x) and x >= 1 for x in v),
            "a list of integers >= 1 (sizes of QI subsets)",
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
        "swaprate": _Key(lambda v: _is_num(v) and 0 <= v <= 1, "a number in [0, 1]"),
        "k_anonymity": _Key(lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
        "risk_variables": _STR_LIST,
        "risk_threshold": _Key(lambda v: _is_num(v) and v >= 0, "a number >= 0"),
        "carry_along": _STR_LIST0,
        "checked_columns": _STR_LIST0,
        "renumber_households": _Key(lambda v: isinstance(v, bool), "true or false"),
        "seed": _Key(lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    },
    "output": {
        "directory": _Key(_is_str, "a folder name (string)"),
        "data": _Key(_is_str, "a file name (string)"),
        "audit": _Key(lambda v: _is_str(v) and v.endswith(".json"), "a file name ending in .json"),
        "report": _Key(
            lambda v: _is_str(v) and v.endswith((".html", ".htm")),
            "a file name ending in .html",
        ),
    },
}

#: What each table and key of :data:`SCHEMA` means: dotted name -> (default, description).
#: The default is ``None`` for a required key and for a table. ``"*"`` stands for any
#: column name. The job-file reference of the documentation is generated from
#: SCHEMA and this table (:func:`microsdc.job.reference.job_reference_markdown`).
KEY_DOCS: dict[str, tuple[str | None, str]] = {
    "title": ("the input file's name", "Title of the report and the audit record."),
    "steps": (
        None,
        "Steps to run. They always run in the order risk, swapping, suppression, whatever "
        'the order in the list; "risk" only measures. The risk is measured before and '
        "after the protection steps in every job.",
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
        "Columns removed right after reading: never used, never released (e.g. a code that "
        "gives a key variable back, such as `education-num` for `education`).",
    ),
    "recode": (
        None,
        "Binning of numeric columns before anything is measured; one table per column.",
    ),
    "recode.*": (None, "The column to bin: exactly one of `width` or `breaks`."),
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
    "risk": ("", "How the risk is measured."),
    "risk.k": ("3", "k of k-anonymity: a record is at risk when fewer than k records match it."),
    "risk.missing": (
        '"wildcard"',
        "How a missing quasi-identifier value counts, and so the guarantee suppression "
        'gives: it matches any value (`"wildcard"`), matches a value with that value\'s '
        'share (`"probabilistic"`), or is one more category (`"category"`, every released '
        'record in a class of k identical records); `"conservative"` (the smallest count '
        "over the completions) is a measure only and refused with a suppression step; a "
        "number alpha in [0, 1] weighs matches with missing values as sdcMicro's freqCalc.",
    ),
    "risk.l_diversity": ('"distinct"', "Kind of l-diversity measured on the sensitive variables."),
    "risk.l": ("2", "A record fails l-diversity when its class has fewer than l values."),
    "risk.c": ("none", 'Constant of recursive (c, l)-diversity; required by "recursive".'),
    "risk.risk_threshold": (
        "0.1",
        "The report counts the records whose individual risk is above this value.",
    ),
    "suppression": ("", 'Local suppression; needs "suppression" in `steps`.'),
    "suppression.importance": (
        "QIs with more categories are blanked first",
        "Which cells to keep. A list ranks every quasi-identifier; a table such as "
        "`{ age = 3, sex = 1 }` gives the cost of each blanked cell.",
    ),
    "suppression.method": (
        '"greedy"',
        '"exact" solves an integer program (small files only) for the fewest cells.',
    ),
    "suppression.strata": ("none", "Columns whose groups are anonymised each on its own."),
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
        "0.05",
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
        "false",
        "Give the released households new random ids, so that ids numbered area by area "
        "do not give the original area back.",
    ),
    "swapping.seed": (
        "none (fresh randomness)",
        "Seed of the random choices. It is never written into the outputs; keep it secret.",
    ),
    "output": ("", "Where the job writes."),
    "output.directory": ('"."', "Folder of the outputs, relative to the job file's folder."),
    "output.data": (
        "`<input>_anonymised.<ext>`",
        "The anonymised data; the format follows the extension (a CSV file in the "
        "input's `encoding`).",
    ),
    "output.audit": ("`<input>_audit.json`", "The audit record (JSON)."),
    "output.report": ("`<input>_report.html`", "The HTML report."),
}

#: Sections required by a step.
_SECTION_OF_STEP = {"suppression": "suppression", "swapping": "swapping"}


# --------------------------------------------------------------------------- the parsed job


@dataclass(frozen=True)
class RecodeSpec:
    """Binning of one numeric column: equal ``width`` from ``start``, or explicit ``breaks``."""

    column: str
    width: float | None = None
    start: float | None = None
    breaks: tuple[float, ...] | None = None
    labels: tuple[str, ...] | None = None


@dataclass(frozen=True)
class OutputPaths:
    """Where a job writes (absolute paths)."""

    directory: Path
    data: Path
    audit: Path
    report: Path


@dataclass(frozen=True)
class JobConfig:
    """A checked job file.

    Attributes mirror the sections of the file; see the module docstring.
    ``source`` is the job file, ``lines`` maps dotted keys to their lines (for
    messages about columns found missing once the data are read).
    """

    source: Path
    title: str
    steps: tuple[str, ...]
    input_path: Path
    missing_values: tuple[Any, ...]
    sep: str | None
    quasi_identifiers: tuple[str, ...]
    weights: str | None
    household_id: str | None
    hierarchy: tuple[str, ...]
    sensitive: tuple[str, ...]
    recode: tuple[RecodeSpec, ...]
    k: int
    missing: str | float
    l_diversity: str
    l: int  # noqa: E741 - the name used in the literature
    c: float | None
    risk_threshold: float
    suppression: dict[str, Any]
    swapping: dict[str, Any]
    output: OutputPaths
    raw: dict[str, Any] = field(repr=False, default_factory=dict)
    lines: dict[tuple[str, ...], int] = field(repr=False, default_factory=dict)
    encoding: str | None = None
    #: Columns removed right after reading: never used, never released.
    drop: tuple[str, ...] = ()
    #: "duckdb" or "polars" when an engine holds the rows (None: pandas, in memory).
    engine: str | None = None
    #: Table of a DuckDB database file (with ``engine = "duckdb"``).
    table: str | None = None

    def line_of(self, dotted: str) -> int | None:
        """Line of a dotted key, or of its closest enclosing key or table."""
        return _line_of(self.lines, tuple(dotted.split(".")))

    def error(self, dotted: str, message: str) -> JobFileError:
        """A :class:`JobFileError` about key ``dotted`` of this job."""
        return JobFileError(
            f"key '{dotted}' {message}", path=self.source, key=dotted, line=self.line_of(dotted)
        )

    def parameters(self) -> dict[str, Any]:
        """The settings as a JSON-ready dict, without the seed (only whether one was given)."""
        swapping = {k: v for k, v in self.swapping.items() if k != "seed"}
        if "swapping" in self.steps:
            swapping["seed_given"] = "seed" in self.swapping
        out = {
            "title": self.title,
            "steps": list(self.steps),
            "quasi_identifiers": list(self.quasi_identifiers),
            "weights": self.weights,
            "household_id": self.household_id,
            "hierarchy": list(self.hierarchy),
            "sensitive": list(self.sensitive),
            "drop": list(self.drop),
            "missing_values": [v if isinstance(v, str) else float(v) for v in self.missing_values],
            "recode": [
                {k: (list(v) if isinstance(v, tuple) else v) for k, v in r.__dict__.items()}
                for r in self.recode
            ],
            "k": self.k,
            "missing": self.missing,
            "l_diversity": {"kind": self.l_diversity, "l": self.l, "c": self.c},
            "risk_threshold": self.risk_threshold,
            "suppression": dict(self.suppression) if "suppression" in self.steps else None,
            "swapping": swapping if "swapping" in self.steps else None,
        }
        if self.engine is not None:
            out["engine"] = {"name": self.engine, "table": self.table}
        return out


def _line_of(lines: Mapping[tuple[str, ...], int], path: tuple[str, ...]) -> int | None:
    while path:
        if path in lines:
            return lines[path]
        path = path[:-1]
    return None


def _type_name(v: Any) -> str:
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "a table"
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


def _check_table(
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
            _check_table(value, spec, path, fail)
        elif not spec.check(value):
            raise fail(path, f"key '{dotted}' must be {spec.wanted}, got {_show(value)}.")
    for name, spec in schema.items():
        if isinstance(spec, _Key) and spec.required and name not in data:
            path = (*prefix, name)
            section = f" in [{'.'.join(prefix)}]" if prefix else ""
            raise fail(prefix or path, f"missing required key '{'.'.join(path)}'{section}.")


def parse_job(text: str, source: str | Path = "job.toml", *, check_files: bool = True) -> JobConfig:
    """Parse and check the text of a job file.

    Parameters
    ----------
    text : str
        TOML document.
    source : str or pathlib.Path, default "job.toml"
        Path of the job file: named in messages, and relative paths in the
        job are relative to its folder.
    check_files : bool, default True
        Whether to check that the input file exists.

    Returns
    -------
    JobConfig

    Raises
    ------
    JobFileError
        For invalid TOML, an unknown key, a value of the wrong type, a missing
        required key or section, inconsistent settings, or a missing input
        file; the message names the key and its line.

    Examples
    --------
    >>> job = parse_job('''
    ... steps = ["risk"]
    ... [input]
    ... path = "data.csv"
    ... [variables]
    ... quasi_identifiers = ["sex", "age"]
    ... ''', "/tmp/job.toml", check_files=False)
    >>> job.k, job.missing, job.output.report.name
    (3, 'wildcard', 'data_report.html')
    >>> try:
    ...     parse_job('steps = ["risk"]\\nswaprate = 0.1', check_files=False)
    ... except JobFileError as exc:
    ...     print(exc)  # doctest: +ELLIPSIS
    job.toml, line 2: Unknown key 'swaprate'. Keys allowed in the top level: input, ...
    """
    import tomllib

    source = Path(source)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise JobFileError(
            f"not a valid TOML file: {exc}", path=source, line=int(m.group(1)) if m else None
        ) from None
    lines = key_lines(text)

    def fail(path: tuple[str, ...], message: str) -> JobFileError:
        return JobFileError(
            message, path=source, key=".".join(path) or None, line=_line_of(lines, path)
        )

    _check_table(data, SCHEMA, (), fail)
    for name in ("input", "variables"):
        if name not in data:
            raise fail((), f"missing required section [{name}].")
    steps = tuple(s for s in STEPS if s in data["steps"])
    for step, section in _SECTION_OF_STEP.items():
        if section in data and step not in steps:
            raise fail(
                (section,),
                f"section [{section}] is given but \"{step}\" is not in 'steps'; add it to "
                "'steps' or remove the section.",
            )
    variables = data["variables"]
    qi = variables["quasi_identifiers"]
    risk = data.get("risk", {})
    swapping = dict(data.get("swapping", {}))
    suppression = dict(data.get("suppression", {}))

    def need(cond: bool, path: tuple[str, ...], message: str) -> None:
        if not cond:
            raise fail(path, message)

    if "swapping" in steps:
        need(
            "household_id" in variables,
            ("variables",),
            "swapping needs 'variables.household_id' (households are swapped as a whole).",
        )
        need(
            "hierarchy" in variables,
            ("variables",),
            "swapping needs 'variables.hierarchy' (the geography, coarsest level first).",
        )
        swapping.setdefault("risk_variables", [c for c in qi if c not in variables["hierarchy"]])
        need(
            bool(swapping["risk_variables"]),
            ("swapping", "risk_variables"),
            "key 'swapping.risk_variables' is needed when every quasi-identifier is a "
            "hierarchy level.",
        )
    if "suppression" in steps:
        need(
            risk.get("missing", "wildcard") != "conservative",
            ("risk", "missing"),
            "key 'risk.missing' cannot be \"conservative\" with a suppression step: k - 1 "
            'entirely blank records satisfy it, so it guarantees nothing. Use "category" '
            '(classes of k identical records) or "probabilistic".',
        )
        if "importance" in suppression:
            named = list(suppression["importance"])
            stray = [c for c in named if c not in qi]
            left = [c for c in qi if c not in named]
            need(
                not stray,
                ("suppression", "importance"),
                "key 'suppression.importance' names columns that are not quasi-identifiers: "
                + ", ".join(repr(c) for c in stray)
                + "."
                + (
                    " variables.quasi_identifiers lists "
                    + ", ".join(repr(c) for c in left)
                    + " instead, which importance does not rank: is one of the two misspelt?"
                    if left
                    else ""
                ),
            )
            need(
                not left,
                ("suppression", "importance"),
                "key 'suppression.importance' must rank every quasi-identifier; it leaves out "
                + ", ".join(repr(c) for c in left)
                + ".",
            )
        if "linked" in suppression:
            stray = [c for c in suppression["linked"] if c not in qi]
            need(
                not stray,
                ("suppression", "linked"),
                "key 'suppression.linked' is keyed by quasi-identifiers; "
                + ", ".join(repr(c) for c in stray)
                + " is not one.",
            )
            inner = [c for cols in suppression["linked"].values() for c in cols if c in qi]
            need(
                not inner,
                ("suppression", "linked"),
                "key 'suppression.linked' links quasi-identifiers to each other: "
                + ", ".join(repr(c) for c in inner)
                + "; list only other columns.",
            )
        if "combs" in suppression:
            big = [c for c in suppression["combs"] if c > len(qi)]
            need(
                not big,
                ("suppression", "combs"),
                f"key 'suppression.combs' asks for subsets larger than the {len(qi)} "
                "quasi-identifiers.",
            )
    for role in ("weights", "household_id"):
        if role in variables:
            need(
                variables[role] not in qi,
                ("variables", role),
                f"key 'variables.{role}' names a quasi-identifier ({variables[role]!r}).",
            )
    used = [*qi, *variables.get("sensitive", []), *variables.get("hierarchy", [])]
    used += [variables[r] for r in ("weights", "household_id") if r in variables]
    used += list(data.get("recode", {}))
    dropped_used = [c for c in variables.get("drop", []) if c in used]
    need(
        not dropped_used,
        ("variables", "drop"),
        "key 'variables.drop' names columns the job uses: "
        + ", ".join(repr(c) for c in dict.fromkeys(dropped_used))
        + ".",
    )
    overlap = [c for c in variables.get("sensitive", []) if c in qi]
    need(
        not overlap,
        ("variables", "sensitive"),
        "key 'variables.sensitive' names quasi-identifiers: "
        + ", ".join(repr(c) for c in overlap)
        + ".",
    )
    kind = risk.get("l_diversity", "distinct")
    need(
        kind != "recursive" or "c" in risk,
        ("risk", "l_diversity"),
        "l_diversity = \"recursive\" needs key 'risk.c'.",
    )
    recodes = []
    for col, spec in data.get("recode", {}).items():
        path = ("recode", col)
        need(
            ("width" in spec) != ("breaks" in spec),
            path,
            f"[recode.{col}] needs exactly one of 'width' or 'breaks'.",
        )
        need(
            "start" not in spec or "width" in spec,
            (*path, "start"),
            f"key 'recode.{col}.start' goes with 'width', not 'breaks'.",
        )
        if "labels" in spec:
            need(
                "breaks" in spec and len(spec["labels"]) == len(spec["breaks"]) - 1,
                (*path, "labels"),
                f"key 'recode.{col}.labels' needs 'breaks' and one label per bin "
                f"({len(spec.get('breaks', [])) - 1 if 'breaks' in spec else '?'} bins).",
            )
        recodes.append(
            RecodeSpec(
                column=col,
                width=float(spec["width"]) if "width" in spec else None,
                start=float(spec["start"]) if "start" in spec else None,
                breaks=tuple(float(b) for b in spec["breaks"]) if "breaks" in spec else None,
                labels=tuple(spec["labels"]) if "labels" in spec else None,
            )
        )

    base = source.resolve().parent
    inp = data["input"]
    input_path = (base / inp["path"]).resolve()
    engine = inp.get("engine")
    if engine is not None or "table" in inp:
        _check_engine(data, steps, input_path, check_files, fail)
    elif check_files and not input_path.is_file():
        raise fail(
            ("input", "path"),
            f"key 'input.path' names a file that does not exist: {input_path}",
        )
    out = data.get("output", {})
    directory = (base / out.get("directory", ".")).resolve()
    stem = _engine_stem(input_path, inp.get("table")) if engine else input_path.name.split(".")[0]
    suffix = ".parquet" if engine else _data_suffix(input_path)
    output = OutputPaths(
        directory=directory,
        data=directory / out.get("data", f"{stem}_anonymised{suffix}"),
        audit=directory / out.get("audit", f"{stem}_audit.json"),
        report=directory / out.get("report", f"{stem}_report.html"),
    )
    if "data" in out:
        from microsdc.io import FORMATS

        suffix = Path(out["data"]).suffix.lower()
        need(
            suffix in FORMATS,
            ("output", "data"),
            f"key 'output.data' must end in one of {', '.join(sorted(FORMATS))}, "
            f"got {out['data']!r}.",
        )
    for target in (output.data, output.audit, output.report):
        blocking = next((q for q in target.parents if q.exists() and not q.is_dir()), None)
        need(
            blocking is None,
            ("output", "directory") if blocking == directory else ("output",),
            f"the outputs go to the folder {blocking}, which is a file.",
        )
    targets = [output.data, output.audit, output.report]
    need(
        len(set(targets)) == 3 and input_path not in targets,
        ("output",),
        "the output files must differ from each other and from the input file.",
    )
    if engine is not None:
        from microsdc.backends.files import check_output_location
        from microsdc.exceptions import InvalidParameterError

        where = ("output", "data") if "data" in out else ("output",)
        try:
            check_output_location(
                str(output.data), str(input_path), f"the output data file {output.data}"
            )
        except InvalidParameterError as exc:
            raise fail(where, f"{exc}.") from None
        default_title = inp["path"] + (f", table {inp['table']}" if "table" in inp else "")
    else:
        default_title = input_path.name
    return JobConfig(
        source=source,
        title=data.get("title", default_title),
        steps=steps,
        input_path=input_path,
        missing_values=tuple(inp.get("missing_values", ())),
        sep=inp.get("sep"),
        encoding=inp.get("encoding"),
        quasi_identifiers=tuple(qi),
        weights=variables.get("weights"),
        household_id=variables.get("household_id"),
        hierarchy=tuple(variables.get("hierarchy", ())),
        sensitive=tuple(variables.get("sensitive", ())),
        recode=tuple(recodes),
        k=risk.get("k", 3),
        missing=risk.get("missing", "wildcard"),
        l_diversity=kind,
        l=risk.get("l", 2),
        c=float(risk["c"]) if "c" in risk else None,
        risk_threshold=float(risk.get("risk_threshold", 0.1)),
        suppression=suppression,
        swapping=swapping,
        output=output,
        raw=data,
        lines=lines,
        drop=tuple(variables.get("drop", ())),
        engine=engine,
        table=inp.get("table"),
    )


def _engine_stem(input_path: Path, table: str | None) -> str:
    """Name of the default outputs of an engine input: the table, the folder, or the
    folder of a glob."""
    from microsdc.backends.files import is_pattern

    if table:
        return table
    path = input_path
    while is_pattern(path.name) and path.parent != path:
        path = path.parent
    return path.name.split(".")[0] or "data"


def _check_engine(
    data: Mapping[str, Any],
    steps: tuple[str, ...],
    input_path: Path,
    check_files: bool,
    fail: Callable[[tuple[str, ...], str], JobFileError],
) -> None:
    """The settings an engine input (``input.engine``) can run, before any row is read."""
    import glob

    from microsdc.backends.files import is_database, is_pattern

    inp = data["input"]
    engine = inp.get("engine")
    path = str(input_path)
    if engine is None:
        raise fail(
            ("input", "table"),
            "key 'input.table' names a table of a DuckDB database file; it goes with "
            'input.engine = "duckdb".',
        )
    if is_database(path):
        if engine != "duckdb":
            raise fail(
                ("input", "engine"),
                f"key 'input.path' is a DuckDB database file: it needs input.engine = \"duckdb\", "
                f'not "{engine}".',
            )
        if "table" not in inp:
            from microsdc.backends.files import database_tables

            listed = database_tables(str(input_path)) if input_path.exists() else ""
            raise fail(
                ("input", "path"),
                "key 'input.path' is a DuckDB database file: name the table to read with "
                "'input.table'" + (f" ({listed})." if listed else "."),
            )
    elif "table" in inp:
        raise fail(
            ("input", "table"),
            "key 'input.table' is for a DuckDB database file (.duckdb or .db); "
            f"input.path is {input_path.name}.",
        )
    if check_files:
        if is_pattern(input_path.name) or is_pattern(path):
            if not glob.glob(path, recursive=True):
                raise fail(("input", "path"), f"key 'input.path' matches no file: {path}")
        elif not input_path.exists():
            raise fail(
                ("input", "path"),
                f"key 'input.path' names a file or folder that does not exist: {input_path}",
            )
    from microsdc.backends.files import csv_kind

    is_csv = csv_kind(path)[0]
    for key in ("sep", "encoding"):
        if key in inp and not is_csv:
            raise fail(
                ("input", key),
                f"key 'input.{key}' is for CSV files; input.path is {input_path.name}, "
                "which the engine reads without it (leave the key out).",
            )
    if "encoding" in inp:
        from microsdc.backends.files import check_csv_options
        from microsdc.exceptions import InvalidParameterError

        try:
            check_csv_options(inp["encoding"], engine, "key 'input.encoding' =")
        except InvalidParameterError as exc:
            raise fail(("input", "encoding"), f"{exc}.") from None
    rows = "needs the records in memory; with 'input.engine' the rows stay in the engine"
    if "swapping" in steps:
        raise fail(
            ("steps",),
            f"the swapping step {rows}. Run the job on a pandas input instead: leave "
            "'input.engine' out and give a single file, e.g. written with "
            "pyarrow.parquet.read_table(folder).to_pandas().to_parquet(path) or DuckDB's "
            "COPY table TO 'file.parquet' (10 million households fit in memory).",
        )
    for col, spec in data.get("recode", {}).items():
        if isinstance(spec, dict) and "breaks" in spec:
            raise fail(
                ("recode", col, "breaks"),
                f"key 'recode.{col}.breaks' {rows}; bands of one 'width' run in the engine "
                "(or leave 'input.engine' out).",
            )
    suppression = data.get("suppression", {})
    if "suppression" in steps:
        if suppression.get("method", "greedy") != "greedy":
            raise fail(
                ("suppression", "method"),
                f"key 'suppression.method' = \"{suppression['method']}\" {rows}; the greedy "
                "works on the distinct key combinations (leave the key out).",
            )
        if "linked" in suppression:
            raise fail(
                ("suppression", "linked"),
                f"key 'suppression.linked' {rows} (the linked columns are blanked record by "
                "record); leave the linked columns out with variables.drop instead.",
            )
        missing = data.get("risk", {}).get("missing", "wildcard")
        if missing in ("category", "probabilistic"):
            raise fail(
                ("risk", "missing"),
                f"key 'risk.missing' = \"{missing}\" with a suppression step {rows} "
                '(identical records can get different blanks); "wildcard" works on the '
                "distinct key combinations.",
            )


def _data_suffix(input_path: Path) -> str:
    from microsdc.io import FORMATS

    suffix = input_path.suffix.lower()
    return suffix if suffix in FORMATS else ".csv"


def load_job(path: str | Path, *, check_files: bool = True) -> JobConfig:
    """Read and check a job file.

    Parameters
    ----------
    path : str or pathlib.Path
        The TOML job file.
    check_files : bool, default True
        Whether to check that the input file exists.

    Returns
    -------
    JobConfig

    Raises
    ------
    JobFileError
        If the file cannot be read (missing, a folder, not UTF-8) or its content
        is invalid; see :func:`parse_job`.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise JobFileError("the job file does not exist.", path=path) from None
    except IsADirectoryError:
        raise JobFileError("the job file is a folder, not a file.", path=path) from None
    except UnicodeDecodeError as exc:
        raise JobFileError(f"the job file is not UTF-8 text ({exc.reason}).", path=path) from None
    return parse_job(text, path, check_files=check_files)
