"""Job checks for an engine input (``input.engine``): the input itself and the settings
an engine can run, before any row is read."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from microsdc.exceptions import JobFileError
from microsdc.job.schema import default_of

__all__ = ["check_engine", "check_engine_input", "check_text_keys", "record_settings"]


def check_engine(
    data: Mapping[str, Any],
    steps: tuple[str, ...],
    input_path: Path,
    check_files: bool,
    fail: Callable[[tuple[str, ...], str], JobFileError],
) -> None:
    """The settings an engine input (``input.engine``) can run, before any row is read:
    the input itself, then each setting against the table of what needs the records
    (:mod:`microsdc.backends.capabilities`)."""
    from microsdc.backends.capabilities import first_refusal, refusal_text

    check_engine_input(data["input"], input_path, check_files, fail)
    for key, settings in record_settings(data, steps):
        refused = first_refusal(settings)
        if refused is None:
            continue
        entry, value = refused
        name = ".".join(key)
        if key == ("steps",):
            subject, advice = f"the {entry.param} step", _PANDAS_INPUT
        else:
            subject, advice = f"key '{name}'", _LEAVE_ENGINE
        names = {entry.param: f"'{name}'"}
        raise fail(key, refusal_text(entry, value, subject, names, "Key", advice))


#: how a job refuses a setting an engine input cannot run
_LEAVE_ENGINE = (
    "with 'input.engine' the rows stay in the engine (change the key, or leave 'input.engine' out)"
)
_PANDAS_INPUT = (
    "with 'input.engine' the rows stay in the engine. Run the job on a pandas input "
    "instead: leave 'input.engine' out and give a single file, e.g. written with "
    "pyarrow.parquet.read_table(folder).to_pandas().to_parquet(path) or DuckDB's "
    "COPY table TO 'file.parquet' (10 million households fit in memory)"
)


def record_settings(
    data: Mapping[str, Any], steps: tuple[str, ...]
) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    """The job's settings a lazy engine may refuse: (job key, library parameter -> value)."""
    found: list[tuple[tuple[str, ...], dict[str, Any]]] = []
    for step in ("swapping", "microaggregation", "noise"):  # PRAM runs in the engine
        if step in steps:
            found.append((("steps",), {step: True}))
    if "pram" in steps:  # households PRAMmed as units are checked in memory
        hid = data.get("pram", {}).get("household_id")
        found.append((("pram", "household_id"), {"pram_hid": hid}))
    for col, spec in data.get("recode", {}).items():
        if isinstance(spec, dict) and "breaks" in spec:
            found.append((("recode", col, "breaks"), {"breaks": spec["breaks"]}))
    if "suppression" in steps:
        suppression = data.get("suppression", {})
        method = suppression.get("method", default_of("suppression.method"))
        found.append((("suppression", "method"), {"method": method}))
        found.append((("suppression", "linked"), {"linked": suppression.get("linked")}))
        found.append(
            (
                ("suppression", "dis_suda_threshold"),
                {"dis_suda_threshold": suppression.get("dis_suda_threshold")},
            )
        )
        missing = data.get("risk", {}).get("missing", default_of("risk.missing"))
        found.append((("risk", "missing"), {"missing": missing}))
    return found


def check_engine_input(
    inp: Mapping[str, Any],
    input_path: Path,
    check_files: bool,
    fail: Callable[[tuple[str, ...], str], JobFileError],
) -> None:
    """The input of an engine job: engine, database table, files and CSV options."""
    import glob

    from microsdc.backends.files import is_database, is_pattern

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
        from microsdc.exceptions import InvalidParameterError
        from microsdc.io.engines import check_csv_options

        try:
            check_csv_options(inp["encoding"], engine, "key 'input.encoding' =")
        except InvalidParameterError as exc:
            raise fail(("input", "encoding"), f"{exc}.") from None


def check_text_keys(
    inp: Mapping[str, Any], input_path: Path, fail: Callable[[tuple[str, ...], str], JobFileError]
) -> None:
    """In memory: ``input.sep`` only for a CSV or TSV file, ``input.encoding`` only for
    one of those or an SPSS file; for another file either would change nothing."""
    from microsdc.exceptions import SDCError
    from microsdc.io.formats import FORMAT_NAMES, format_of

    try:
        fmt = format_of(input_path)
    except SDCError:  # a format the reader refuses: it says so when it reads
        return
    for key, formats, what in (
        ("sep", ("csv", "tsv"), "CSV files"),
        ("encoding", ("csv", "tsv", "spss"), "CSV and SPSS files"),
    ):
        if key in inp and fmt not in formats:
            raise fail(
                ("input", key),
                f"key 'input.{key}' is for {what}; input.path is {input_path.name}, "
                f"{FORMAT_NAMES[fmt]} file, which is read without it (leave the key out).",
            )
