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
    missing = "category"  # the default: no record above 1/k for whoever knows its keys

    [suppression]
    importance = ["race", "sex", "marital-status", "age"]
    # blanked wherever their key variable is blanked (linked variables)
    linked = { sex = ["relationship"], marital-status = ["relationship"] }

    [output]
    directory = "output"
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from microsdc._validation import check_bool, check_callable, check_instance, check_path
from microsdc.exceptions import JobFileError
from microsdc.job.engine_checks import check_engine, check_text_keys
from microsdc.job.recode_spec import RecodeSpec, check_recode
from microsdc.job.schema import _SECTION_OF_STEP, SCHEMA, STEPS, check_table, default_of
from microsdc.job.tomltext import key_lines, load_toml

__all__ = [
    "STEPS",
    "JobConfig",
    "JobFileError",
    "OutputPaths",
    "RecodeSpec",
    "check_run_arguments",
    "load_job",
    "parse_job",
]


# --------------------------------------------------------------------------- the parsed job


@dataclass(frozen=True)
class OutputPaths:
    """Where a job writes (absolute paths).

    ``data`` and ``release`` (the external release record) are published;
    ``audit`` and ``report`` are internal: they hold figures of the confidential
    input (its SHA-256, the risk before protection) and stay with the
    statistician.
    """

    directory: Path
    data: Path
    audit: Path
    report: Path
    release: Path
    #: Whether the released rows are put in an order drawn from their released values.
    random_order: bool = False


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
    #: Columns not released: removed right after reading, but for the household ids
    #: (:attr:`dropped_at_output`), which the steps use and the release goes without.
    drop: tuple[str, ...] = ()
    #: "duckdb" or "polars" when an engine holds the rows (None: pandas, in memory).
    engine: str | None = None
    #: Table of a DuckDB database file (with ``engine = "duckdb"``).
    table: str | None = None
    #: The sections of the release-method steps (pram, microaggregation, noise) that run.
    methods: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Whether the risk step also finds the special uniques (SUDA2), and their largest size.
    suda: bool = False
    max_msu: int | None = None
    #: A column whose groups the continuous variables are compared within (None: overall).
    compare_by: str | None = None

    @property
    def dropped_at_output(self) -> tuple[str, ...]:
        """The columns of ``drop`` a step uses (the household ids of ``variables`` and
        ``[pram]``): kept through the steps, removed before the release is written."""
        used = {self.household_id, self.methods.get("pram", {}).get("household_id")}
        return tuple(c for c in self.drop if c in used)

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
            "compare_by": self.compare_by,
            "missing_values": [v if isinstance(v, str) else float(v) for v in self.missing_values],
            "recode": [r.parameters() for r in self.recode],
            "k": self.k,
            "missing": self.missing,
            "l_diversity": {"kind": self.l_diversity, "l": self.l, "c": self.c},
            "risk_threshold": self.risk_threshold,
            "suppression": dict(self.suppression) if "suppression" in self.steps else None,
            "swapping": swapping if "swapping" in self.steps else None,
            **{
                step: {k: v for k, v in section.items() if k != "seed"}
                | {"seed_given": "seed" in section}
                for step, section in self.methods.items()
            },
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


def _check_compare_by(variables: dict[str, Any], steps: tuple[str, ...], need: Any) -> None:
    """``variables.compare_by`` needs a step that changes continuous variables."""
    need(
        "compare_by" not in variables or "microaggregation" in steps or "noise" in steps,
        ("variables", "compare_by"),
        "key 'variables.compare_by' compares continuous variables by group: it needs the "
        'step "microaggregation" or "noise" (or leave the key out).',
    )


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
    InvalidParameterError
        If ``text`` is not a str, ``source`` not a file path (str or os.PathLike)
        or ``check_files`` not a bool.
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
    (3, 'category', 'data_report.html')
    >>> try:
    ...     parse_job('steps = ["risk"]\\nswaprate = 0.1', check_files=False)
    ... except JobFileError as exc:
    ...     print(exc)  # doctest: +ELLIPSIS
    job.toml, line 2: Unknown key 'swaprate'. Keys allowed in the top level: input, ...
    """
    _check_parse_arguments(text, source, check_files)
    source = Path(source)
    data = load_toml(text, source)
    lines = key_lines(text)

    def fail(path: tuple[str, ...], message: str) -> JobFileError:
        return JobFileError(
            message, path=source, key=".".join(path) or None, line=_line_of(lines, path)
        )

    def need(cond: bool, path: tuple[str, ...], message: str) -> None:
        if not cond:
            raise fail(path, message)

    check_table(data, SCHEMA, (), fail)
    steps = _steps(data, fail)
    variables = data["variables"]
    qi = variables["quasi_identifiers"]
    risk = data.get("risk", {})
    swapping = dict(data.get("swapping", {}))
    suppression = dict(data.get("suppression", {}))
    if "swapping" in steps:
        _check_swapping(variables, swapping, need)
    if "suppression" in steps:
        _check_suppression(qi, risk, suppression, need)
    _check_roles(data, need)
    _check_compare_by(variables, steps, need)
    kind = risk.get("l_diversity", default_of("risk.l_diversity"))
    need(
        kind != "recursive" or "c" in risk,
        ("risk", "l_diversity"),
        "l_diversity = \"recursive\" needs key 'risk.c'.",
    )
    _check_suda(risk, data["input"], need)
    _check_groups(data.get("microaggregation", {}), need)
    recodes = check_recode(data.get("recode", {}), need, data["input"].get("engine"))
    inp = data["input"]
    input_path = (source.resolve().parent / inp["path"]).resolve()
    engine = inp.get("engine")
    _check_input(data, steps, input_path, check_files, fail)
    output = _outputs(data, source, input_path, need, fail)
    return JobConfig(
        source=source,
        title=data.get("title", _default_title(inp, input_path)),
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
        recode=recodes,
        k=risk.get("k", default_of("risk.k")),
        missing=_policy_value(risk.get("missing", default_of("risk.missing"))),
        l_diversity=kind,
        l=risk.get("l", default_of("risk.l")),
        c=float(risk["c"]) if "c" in risk else None,
        risk_threshold=float(risk.get("risk_threshold", default_of("risk.risk_threshold"))),
        suppression=suppression,
        swapping=swapping,
        output=output,
        raw=data,
        lines=lines,
        drop=tuple(variables.get("drop", ())),
        methods={
            step: dict(data[step])
            for step in ("pram", "microaggregation", "noise")
            if step in steps and step in data
        },
        engine=engine,
        table=inp.get("table"),
        suda=risk.get("suda", default_of("risk.suda")),
        max_msu=risk.get("max_msu"),
        compare_by=variables.get("compare_by"),
    )


def _check_parse_arguments(text: Any, source: Any, check_files: Any) -> None:
    """The arguments of :func:`parse_job`, checked before the text is read."""
    from microsdc._validation import param_error

    func = "parse_job"
    if not isinstance(text, str):
        if isinstance(text, bytes | bytearray):  # the type only: the value is a whole file
            requirement = "a str (the TOML text of a job; decode the bytes first)"
            check_instance(text, str, "text", func, requirement)
        raise param_error(
            "text", func, "a str (the TOML text of a job; load_job reads a file)", text
        )
    check_path(source, "source", func)
    check_bool(check_files, "check_files", func)


def _check_suda(risk: Mapping[str, Any], inp: Mapping[str, Any], need: _Need) -> None:
    """Special uniques need the records in memory and a missing rule with an MSU meaning."""
    if not risk.get("suda", default_of("risk.suda")):
        need(
            "max_msu" not in risk,
            ("risk", "max_msu"),
            "Key 'risk.max_msu' goes with risk.suda = true.",
        )
        return
    need(
        inp.get("engine") is None,
        ("risk", "suda"),
        "Key 'risk.suda' needs the records in memory: leave 'input.engine' out to find "
        "special uniques.",
    )
    missing = risk.get("missing", default_of("risk.missing"))
    need(
        missing != "conservative" and missing != 0 and missing != "alpha=0",
        ("risk", "suda"),
        f"Key 'risk.suda' cannot count missing values as {missing!r} (it has no meaning "
        'for special uniques): use risk.missing = "wildcard" or "category".',
    )


#: Builds the error about a key (its dotted path) of the job being read.
_Fail = Callable[[tuple[str, ...], str], JobFileError]
#: Raises the error about a key unless the condition holds.
_Need = Callable[[bool, tuple[str, ...], str], None]


def _check_groups(aggregation: Mapping[str, Any], need: _Need) -> None:
    """A number of groups goes with the quantile method, the only one that uses it."""
    need(
        "n_groups" not in aggregation
        or aggregation.get("method", default_of("microaggregation.method")) == "quantile",
        ("microaggregation", "n_groups"),
        "key 'microaggregation.n_groups' goes with microaggregation.method = \"quantile\" "
        "(the only method that forms groups by number), so alone it changes nothing. Set "
        "the method to \"quantile\" or remove 'microaggregation.n_groups'.",
    )


def _policy_value(missing: Any) -> Any:
    """``missing`` as the job stores it: ``"alpha=0.5"`` as the number 0.5."""
    if isinstance(missing, str) and missing.startswith("alpha="):
        return float(missing.split("=", 1)[1])
    return missing


def _steps(data: Mapping[str, Any], fail: _Fail) -> tuple[str, ...]:
    """The steps in the order they run, once the sections they need (and only those) are given."""
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
    for step in ("pram", "microaggregation", "noise"):
        if step in steps and step not in data:
            raise fail(
                ("steps",),
                f'step "{step}" needs a section [{step}] naming its variables '
                f'(variables = ["..."]).',
            )
    return steps


def _check_swapping(variables: Mapping[str, Any], swapping: dict[str, Any], need: _Need) -> None:
    """The roles swapping needs; fills in ``risk_variables`` (the QIs that are not levels)."""
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
    qi = variables["quasi_identifiers"]
    swapping.setdefault("risk_variables", [c for c in qi if c not in variables["hierarchy"]])
    need(
        bool(swapping["risk_variables"]),
        ("swapping", "risk_variables"),
        "key 'swapping.risk_variables' is needed when every quasi-identifier is a hierarchy level.",
    )


def _check_suppression(
    qi: list[str], risk: Mapping[str, Any], suppression: dict[str, Any], need: _Need
) -> None:
    """The guarantee, and the keys of [suppression] that name quasi-identifiers."""
    need(
        risk.get("missing", default_of("risk.missing")) != "conservative",
        ("risk", "missing"),
        "key 'risk.missing' cannot be \"conservative\" with a suppression step: k - 1 "
        'entirely blank records satisfy it, so it guarantees nothing. Use "category" '
        '(classes of k identical records) or "probabilistic".',
    )
    need(
        "dis_fraction" not in suppression or "dis_suda_threshold" in suppression,
        ("suppression", "dis_fraction"),
        "key 'suppression.dis_fraction' goes with 'suppression.dis_suda_threshold': the "
        "sampling fraction only sets the DIS-SUDA scores that the threshold compares, so "
        "alone it changes nothing. Add 'suppression.dis_suda_threshold' or remove "
        "'suppression.dis_fraction'.",
    )
    if "importance" in suppression:
        ranked = _check_importance(qi, list(suppression["importance"]), need)
        if ranked is not None:  # sdcMicro's vector, as the names it ranks
            suppression["importance"] = ranked
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


def _check_importance(qi: list[str], named: list[Any], need: _Need) -> list[str] | None:
    """``suppression.importance`` ranks every quasi-identifier and nothing else (names,
    or sdcMicro's vector: each of 1 to n once, in the order of the quasi-identifiers,
    returned as the names most important first)."""
    if named and all(isinstance(v, int) and not isinstance(v, bool) for v in named):
        n = len(qi)
        need(
            sorted(named) == list(range(1, n + 1)),
            ("suppression", "importance"),
            f"key 'suppression.importance' = {named} is read as sdcMicro's importance vector "
            "(one priority per quasi-identifier, in the order of variables.quasi_identifiers, "
            f"1 = blanked last), but it does not give each of 1 to {n} once. Give each of 1 to "
            f"{n} once, or name the quasi-identifiers, most important first.",
        )
        return [qi[i] for i in sorted(range(n), key=lambda i: named[i])]
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
    return None


def _check_roles(data: Mapping[str, Any], need: _Need) -> None:
    """No column has two roles: weights and households are not QIs, nothing used is dropped,
    no sensitive variable is a QI."""
    variables = data["variables"]
    qi = variables["quasi_identifiers"]
    for role in ("weights", "household_id"):
        if role in variables:
            need(
                variables[role] not in qi,
                ("variables", role),
                f"key 'variables.{role}' names a quasi-identifier ({variables[role]!r}).",
            )
    used = [*qi, *variables.get("sensitive", []), *variables.get("hierarchy", [])]
    used += [variables[r] for r in ("weights", "compare_by") if r in variables]
    used += list(data.get("recode", {}))
    # a household id may be dropped: the steps use it, the release goes without it
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


def _check_input(
    data: Mapping[str, Any],
    steps: tuple[str, ...],
    input_path: Path,
    check_files: bool,
    fail: _Fail,
) -> None:
    """The input exists; an engine input can run the job's settings."""
    inp = data["input"]
    if inp.get("engine") is not None or "table" in inp:
        check_engine(data, steps, input_path, check_files, fail)
    elif check_files and not input_path.is_file():
        raise fail(
            ("input", "path"),
            f"key 'input.path' names a file that does not exist: {input_path}",
        )
    else:
        check_text_keys(inp, input_path, fail)


#: What :func:`outputs_apart` asks, as a job file's error says it.
OUTPUTS_APART = "the output files must differ from each other and from the input file."


def outputs_apart(output: OutputPaths, input_path: Path) -> bool:
    """Whether the four outputs are four files, none of them the input
    (:func:`microsdc.io.write.same_file`: resolved, and as files on disk)."""
    from microsdc.io.write import same_file

    targets = [output.data, output.audit, output.report, output.release]
    pairs = [(a, b) for i, a in enumerate(targets) for b in targets[i + 1 :]]
    return not any(same_file(a, b) for a, b in pairs) and not any(
        same_file(t, input_path) for t in targets
    )


def _outputs(
    data: Mapping[str, Any], source: Path, input_path: Path, need: _Need, fail: _Fail
) -> OutputPaths:
    """Where the job writes: named after the input unless given, apart from each other and
    from the input, in a folder that is not a file."""
    inp = data["input"]
    engine = inp.get("engine")
    out = data.get("output", {})
    directory = (source.resolve().parent / out.get("directory", ".")).resolve()
    stem = _engine_stem(input_path, inp.get("table")) if engine else input_path.name.split(".")[0]
    suffix = ".parquet" if engine else _data_suffix(input_path)
    output = OutputPaths(  # resolved: "../in.csv" and "sub/../in.csv" are the input itself
        directory=directory,
        data=(directory / out.get("data", f"{stem}_anonymised{suffix}")).resolve(),
        audit=(directory / out.get("audit", f"{stem}_audit.json")).resolve(),
        report=(directory / out.get("report", f"{stem}_report.html")).resolve(),
        release=(directory / out.get("release", f"{stem}_release.json")).resolve(),
        random_order=bool(out.get("random_order", False)),
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
    for target in (output.data, output.audit, output.report, output.release):
        blocking = next((q for q in target.parents if q.exists() and not q.is_dir()), None)
        need(
            blocking is None,
            ("output", "directory") if blocking == directory else ("output",),
            f"the outputs go to the folder {blocking}, which is a file.",
        )
    need(outputs_apart(output, input_path), ("output",), OUTPUTS_APART)
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
    return output


def _default_title(inp: Mapping[str, Any], input_path: Path) -> str:
    """The input file's name; for an engine input the path as given (and the table)."""
    if inp.get("engine") is not None:
        return str(inp["path"]) + (f", table {inp['table']}" if "table" in inp else "")
    return input_path.name


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
    InvalidParameterError
        If ``path`` is not a file path (str or os.PathLike) or ``check_files``
        not a bool.
    JobFileError
        If the file cannot be read (missing, a folder, not UTF-8) or its content
        is invalid; see :func:`parse_job`.
    """
    path = Path(check_path(path, "path", "load_job"))
    check_bool(check_files, "check_files", "load_job")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise JobFileError("the job file does not exist.", path=path) from None
    except IsADirectoryError:
        raise JobFileError("the job file is a folder, not a file.", path=path) from None
    except UnicodeDecodeError as exc:
        raise JobFileError(f"the job file is not UTF-8 text ({exc.reason}).", path=path) from None
    return parse_job(text, path, check_files=check_files)


def check_run_arguments(
    job: Any, output_dir: Any, write: Any, progress: Any, now: Any, progress_display: Any = None
) -> None:
    """The arguments of :func:`microsdc.run_job`, checked before the job is read."""
    from datetime import datetime

    from microsdc._validation import param_error

    func = "run_job"
    if not isinstance(job, JobConfig):
        check_path(job, "job", func)
    if output_dir is not None:
        check_path(output_dir, "output_dir", func)
    check_bool(write, "write", func)
    check_bool(progress, "progress", func)
    check_callable(progress_display, "progress_display", func)
    if now is not None and not isinstance(now, datetime):
        raise param_error("now", func, "a datetime.datetime or None", now)
