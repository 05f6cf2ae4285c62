"""Who holds a command's rows: pandas in memory, or an engine for inputs too big for it.

``--engine duckdb``, ``polars`` or ``spark`` hands the rows to that engine: FILE may
be a Parquet folder or glob, a CSV or a DuckDB table, read lazily; the engine groups
the rows by the quasi-identifiers, joins the results back and writes the output
Parquet file itself (streaming). Rows never enter Python.

A command runs one path for every engine: :func:`refuse_on_engine` (what the engine
cannot do, before a row is read), :func:`open_input`, :func:`drop_columns` and
:func:`bin_columns`, the library call, and :func:`write_frame`; each chooses pandas
or the engine by the frame it is given.
"""

from __future__ import annotations

import glob
import os
from typing import Any

import click

from microsdc.backends.files import ENGINES as FILE_ENGINES
from microsdc.cli._common import (
    bin_in_memory,
    option_names,
    parse_sep,
    progress,
    read_input,
    write_output,
)

#: pandas (in memory), the engines the library opens, and Spark (opened here).
ENGINES = ("pandas", *FILE_ENGINES, "spark")

engine_option = click.option(
    "--engine",
    "engine",
    type=click.Choice(ENGINES),
    default="pandas",
    show_default=True,
    help="Who holds the rows: pandas (in memory) or duckdb / polars / spark (out of core; FILE "
    "may be a folder or glob of Parquet files with the same columns, a CSV file (not on spark; "
    "UTF-8, or latin-1 and utf-16 with --encoding on duckdb), or a .duckdb file with --table). "
    "spark uses the active Spark session, or starts a local one.",
)
table_option = click.option(
    "--table", "db_table", default=None, help="Table to read from a DuckDB database file."
)


def in_engine_advice(engine: str) -> str:
    """What to do about an option a lazy engine cannot run."""
    return f"with --engine {engine} the rows stay in the engine (use --engine pandas)"


#: The options of a command, beyond the library's table
#: (:data:`microsdc.backends.capabilities.NEEDS_RECORDS`), that a lazy engine refuses:
#: option -> (what the refusal names, why it needs the records; "" to say no more).
OWN_REFUSALS: dict[str, dict[str, tuple[str, str]]] = {
    "risk": {"hid": ("--hid", "")},
    "pram": {
        "random_order": ("Option --random-order", "the rows are put in a new order in memory"),
        "hid": ("Option --hid", "households are PRAMmed as units from their members in memory"),
    },
}


def refuse_on_engine(
    command: str, engine: str, file: str, table: str | None, settings: dict[str, Any]
) -> None:
    """Refuse, before a row is read, what ``engine`` cannot do: on pandas a folder, glob
    or ``--table`` (:func:`refuse_folder_or_glob`); on a lazy engine the first of
    ``settings`` (library parameter or the command's own option -> the value given)
    that needs the records, the command's own options (:data:`OWN_REFUSALS`) first,
    then the library's capability table, worded in the options' names.

    Raises
    ------
    click.UsageError
        Naming the option, why it needs the records and what to do.
    """
    if engine == "pandas":
        refuse_folder_or_glob(file, table)
        return
    from microsdc.backends.capabilities import RECORDS_IN_MEMORY, first_refusal, refusal_text

    own = OWN_REFUSALS.get(command, {})
    for name, (subject, why) in own.items():
        if settings.get(name):
            reason = f" ({why})" if why else ""
            raise click.UsageError(
                f"{subject} {RECORDS_IN_MEMORY}{reason}; {in_engine_advice(engine)}"
            )
    passed = {name: value for name, value in settings.items() if name not in own}
    if "missing" in passed:  # the table refuses policies by their label
        from microsdc._core.policy import parse_policy

        passed["missing"] = parse_policy(passed["missing"], f"microsdc {command}").label
    refused = first_refusal(passed)
    if refused is not None:
        entry, value = refused
        flags = option_names()
        subject = flags[entry.param]
        advice = in_engine_advice(engine)
        raise click.UsageError(refusal_text(entry, value, subject, flags, "Option", advice))


def refuse_folder_or_glob(file: str, table: str | None = None) -> None:
    """Without ``--engine``: a folder or glob is read by a lazy engine only, and a table
    (``--table``) of a DuckDB database with ``--engine duckdb`` only.

    Raises
    ------
    click.UsageError
        If ``file`` is a folder or holds a ``*``, or ``table`` is given.
    """
    if table is not None:
        if file.lower().endswith((".duckdb", ".db")):
            raise click.UsageError(
                f"--table {table}: a table of a DuckDB database is read with --engine duckdb"
            )
        raise click.UsageError(
            f"--table is for a DuckDB database file (.duckdb, with --engine duckdb); {file} "
            "is not one and has no tables: leave --table out"
        )
    if os.path.isdir(file) or "*" in file:
        raise click.UsageError(
            f"{file} is a folder or glob: read it with --engine duckdb (or polars, or spark)"
        )


def open_lazy(
    path: str,
    engine: str,
    table: str | None,
    sep: str | None = None,
    encoding: str | None = None,
    *,
    out: str | None = None,
) -> Any:
    """A lazy frame over ``path`` (polars ``LazyFrame``, DuckDB relation or Spark DataFrame).

    ``out``, the Parquet file the command will write, is checked first
    (:func:`check_lazy_output`, then ``microsdc.io.check_output_path``), so that no
    work is wasted. A CSV file is read with ``--sep`` as typed (one character, or
    ``tab``; default: detected from the header line) and the missing-value texts of
    the pandas reader; a Parquet folder or glob is checked for files with the same
    columns first.

    Raises
    ------
    click.BadParameter
        For a ``--sep`` that is not one character.
    click.UsageError
        For an ``out`` that is not a ``.parquet`` file or lies in the input,
        a missing extra, a file that does not exist, a DuckDB file without
        ``--table``, a format the engine cannot scan, an ``--encoding`` the
        engine cannot read, a CSV file on Spark, an empty folder, or Parquet files
        that differ in their columns.
    DataValidationError
        For an input without records, or a CSV file without a header line (the
        errors of the pandas route).
    """
    from microsdc.backends import install_hint
    from microsdc.backends.files import (
        check_parquet_schemas,
        hive_base,
        hive_columns,
        is_pattern,
        parquet_files,
    )
    from microsdc.exceptions import InvalidParameterError
    from microsdc.io import check_output_path
    from microsdc.io.engines import check_records, keep_partitions

    sep = parse_sep(sep)
    if out is not None:
        check_lazy_output(out, path)
        check_output_path(out)
    try:
        import narwhals  # noqa: F401
    except ImportError as exc:
        extra = "spark" if engine == "spark" else engine
        raise click.UsageError(f"--engine {engine} needs narwhals: {install_hint(extra)}") from exc
    from microsdc.backends.files import csv_kind

    lower = path.lower()
    is_csv = csv_kind(path)[0]
    if not is_csv and (sep is not None or encoding is not None):
        given = "--sep" if sep is not None else "--encoding"
        raise click.UsageError(f"{given} is for a CSV file; {path} is not one")
    is_db = lower.endswith((".duckdb", ".db"))
    if table is not None and not is_db:
        raise click.UsageError("--table is for a DuckDB database file (.duckdb)")
    if "*" not in path and not os.path.exists(path):
        raise click.UsageError(f"{path} does not exist")
    if "*" in path and not glob.glob(path, recursive=True):
        raise click.UsageError(f"no file matches {path}")
    if is_db and engine != "duckdb":
        raise click.UsageError("a DuckDB database file needs --engine duckdb")
    if is_db and table is None:
        from microsdc.backends.files import database_tables

        listed = database_tables(path)
        raise click.UsageError(
            f"{path} is a DuckDB database: name the table with --table"
            + (f" ({listed})" if listed else "")
        )
    if engine == "spark":
        if is_csv:
            raise click.UsageError(
                "--engine spark does not read CSV files here: Spark's reader infers column "
                "types (01 and 1 would become one code) where the default reader keeps the "
                "text as written, so the counts could differ. Convert the file to Parquet "
                "first (e.g. microsdc.io.read_table(path).to_parquet('data.parquet')), or "
                "use --engine duckdb or polars"
            )
        try:
            check_parquet_schemas(path)
            partitions = hive_columns(path)
        except InvalidParameterError as exc:
            raise click.UsageError(str(exc)) from exc
        reader = spark_session().read
        if is_pattern(path):
            # the files Python's glob finds (Spark's own globs know no '**'), partition
            # folders counted below the pattern's fixed part
            reader = reader.option("basePath", hive_base(path))
            frame = reader.parquet(*parquet_files(path))
        else:
            frame = reader.parquet(path)
        frame = keep_partitions(frame, path, partitions)
    else:
        from microsdc.io.engines import scan

        try:
            frame = scan(path, engine, table, sep=sep, encoding=encoding)
        except InvalidParameterError as exc:
            message = str(exc).replace("the duckdb engine", "--engine duckdb")
            raise click.UsageError(message.replace("the polars engine", "--engine polars")) from exc
    check_records(frame, path)
    return frame


def spark_session() -> Any:
    """The active Spark session, or a local one on this machine (all cores, bound to the
    loopback address, no UI, quiet).

    Raises
    ------
    click.UsageError
        If pyspark is not installed, or Spark cannot start (no Java runtime).
    """
    from microsdc.backends import install_hint

    try:
        from pyspark.sql import SparkSession
    except ImportError as exc:
        raise click.UsageError(f"--engine spark needs pyspark: {install_hint('spark')}") from exc
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    try:
        session = (
            SparkSession.builder.master("local[*]")
            .appName("microsdc")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .getOrCreate()
        )
    except Exception as exc:
        raise click.UsageError(
            f"Spark could not start a local session ({type(exc).__name__}); it needs a Java "
            "runtime, version 17 or later (Debian: apt-get install default-jre-headless)"
        ) from exc
    session.sparkContext.setLogLevel("ERROR")
    return session


def check_lazy_output(out: str, source: str) -> None:
    """Before any work: a lazy engine writes Parquet only, never over or into its input.

    Raises
    ------
    click.UsageError
        If ``out`` is not a ``.parquet`` file, is one of the files ``source``
        reads, or lies inside the folder ``source`` (it would join the data set
        the next time the folder is read).
    """
    from microsdc.backends.files import check_output_location
    from microsdc.exceptions import InvalidParameterError

    if not out.lower().endswith(".parquet"):
        raise click.UsageError(
            "with --engine duckdb, polars or spark, --out must be a .parquet file"
        )
    try:
        check_output_location(out, source, f"--out {out}")
    except InvalidParameterError as exc:
        raise click.UsageError(str(exc)) from exc


def open_input(
    file: str,
    engine: str,
    table: str | None,
    *,
    out: str | None,
    sep: str | None,
    encoding: str | None,
    **read: Any,
) -> Any:
    """The data of FILE as ``engine`` holds them: a pandas frame read in memory
    (:func:`microsdc.cli._common.read_input`, with the keywords ``read``), or a lazy
    frame over the file (:func:`open_lazy`). ``out``, the file the command will
    write, is checked first."""
    if engine == "pandas":
        return read_input(file, out=out, sep=sep, encoding=encoding, **read)
    return open_lazy(file, engine, table, sep, encoding, out=out)


def is_lazy(frame: Any) -> bool:
    """Whether ``frame`` keeps its rows in an engine (not a pandas frame in memory)."""
    import pandas as pd

    return not isinstance(frame, pd.DataFrame)


def columns_of(frame: Any) -> list[Any]:
    """The column names of a pandas or lazy ``frame`` (a lazy one's from its schema)."""
    if not is_lazy(frame):
        return list(frame.columns)
    import narwhals as nw

    from microsdc.backends.frequencies import columns

    return columns(nw.from_native(frame))


def _stand_in(frame: Any) -> Any:
    """``frame``, or for a lazy one an empty pandas frame with its columns, for the
    column checks."""
    import pandas as pd

    if not is_lazy(frame):
        return frame
    names = [str(c) for c in columns_of(frame)]
    return pd.DataFrame(columns=pd.Index(names, dtype=object))


def drop_columns(frame: Any, dropped: list[str], command: str) -> Any:
    """``frame`` without the ``--drop`` columns (checked first; by its engine when lazy)."""
    if not dropped:
        return frame
    from microsdc._validation import check_columns

    check_columns(_stand_in(frame), dropped, "drop", command)
    if not is_lazy(frame):
        return frame.drop(columns=dropped)
    import narwhals as nw

    return nw.from_native(frame).drop(*dropped).to_native()


def bin_columns(
    frame: Any,
    bands: list[tuple[str, float]],
    mv: Any,
    command: str,
    categories: dict[str, list[str]] | None = None,
) -> Any:
    """``frame`` with the ``--bin`` columns (:func:`microsdc.cli._common.parse_bins`) in
    bands of their width: :func:`microsdc.recoding.bin_numeric` in memory,
    :func:`microsdc.recoding.lazy.bin_width_lazy` in the engine (with the checks of
    ``bin_numeric``, named by ``command``; ``categories`` gets the labels of each
    column's bands, for :func:`write_frame`). A new frame; ``frame`` is never changed."""
    if not bands:
        return frame
    if not is_lazy(frame):
        return bin_in_memory(frame, bands, mv)
    import math

    from microsdc._validation import check_columns, param_error
    from microsdc.recoding.lazy import bin_width_lazy

    check_columns(_stand_in(frame), [n for n, _ in bands], "bins", command)
    for name, width in bands:
        if not (width > 0 and math.isfinite(width)):  # as bin_numeric says it
            raise param_error("width", "bin_numeric", "a real number > 0", width)
        frame, info = bin_width_lazy(frame, name, width, missing_values=mv or ())
        if categories is not None:
            categories[name] = list(info["labels"])
    return frame


def write_frame(
    frame: Any,
    out: str,
    engine: str,
    label: str,
    *,
    binned: tuple[dict[str, list[str]], int] | None = None,
    **release: Any,
) -> None:
    """Write ``frame`` to ``out`` by the writer of its kind: a pandas frame with
    :func:`microsdc.cli._common.write_output` (``release``: its ``encoding``,
    ``source``, ``sep`` and ``random_order``); a lazy one to Parquet by its own engine,
    with ``random_order`` its rows sorted by a hash of their values
    (:func:`microsdc.backends.hashorder.in_hash_order`), streaming (checked by
    :func:`check_lazy_output` before any work), under a progress bar of ``label`` that
    names ``engine``, its ``binned`` columns (the labels from :func:`bin_columns`, and
    how many missing codes were declared) with the Parquet type pandas writes for them."""
    if not is_lazy(frame):
        write_output(frame, out, **release)
        return
    from microsdc.io.engines import write_parquet

    if release.get("random_order"):
        from microsdc.backends.hashorder import in_hash_order

        frame = in_hash_order(frame)
    with progress(label) as bar:
        task = bar.add_task(f"writing {out} ({engine})", total=None)
        categories, n_codes = binned or ({}, 0)
        write_parquet(frame, out, categories, n_codes)
        bar.update(task, completed=1)
