"""Inputs too big for memory: a Parquet folder or glob, a CSV, or a DuckDB table, read lazily.

``--engine duckdb``, ``polars`` or ``spark`` hands the rows to that engine: it
groups them by the quasi-identifiers and joins the results back, and writes
the output Parquet itself (streaming).
Rows never enter Python.
"""

from __future__ import annotations

import glob
import os
import shutil
from typing import Any

import click

ENGINES = ("pandas", "duckdb", "polars", "spark")

engine_option = click.option(
    "--engine",
    "engine",
    type=click.Choice(ENGINES),
    default="pandas",
    show_default=True,
    help="Who holds the rows: pandas (in memory) or duckdb / polars / spark (out of core; FILE "
    "may be a folder or glob of Parquet files, or a .duckdb file with --table). spark uses the "
    "active Spark session, or starts a local one.",
)
table_option = click.option(
    "--table", "db_table", default=None, help="Table to read from a DuckDB database file."
)


def _parquet_source(path: str) -> str:
    if os.path.isdir(path):
        return os.path.join(path, "**", "*.parquet")
    return path


def open_lazy(path: str, engine: str, table: str | None) -> Any:
    """A lazy frame over ``path`` (polars ``LazyFrame``, DuckDB relation or Spark DataFrame).

    Raises
    ------
    click.UsageError
        For a missing extra, a file that does not exist, a DuckDB file without
        ``--table``, or a format the engine cannot scan.
    """
    from microsdc.backends import install_hint

    lower = path.lower()
    is_db = lower.endswith((".duckdb", ".db"))
    if table is not None and not is_db:
        raise click.UsageError("--table is for a DuckDB database file (.duckdb)")
    if "*" not in path and not os.path.exists(path):
        raise click.UsageError(f"{path} does not exist")
    if "*" in path and not glob.glob(path, recursive=True):
        raise click.UsageError(f"no file matches {path}")
    if engine == "duckdb":
        try:
            import duckdb
        except ImportError as exc:
            raise click.UsageError(
                f"--engine duckdb needs DuckDB: {install_hint('duckdb')}"
            ) from exc
        if is_db:
            if table is None:
                raise click.UsageError(f"{path} is a DuckDB database: name the table with --table")
            con = duckdb.connect(path, read_only=True)
            try:
                return con.table(table)
            except duckdb.Error as exc:
                raise click.UsageError(f"no table {table!r} in {path}") from exc
        if lower.endswith(".csv"):
            return duckdb.read_csv(path)
        return duckdb.read_parquet(_parquet_source(path), hive_partitioning=os.path.isdir(path))
    if engine == "spark":
        if is_db:
            raise click.UsageError("a DuckDB database file needs --engine duckdb")
        spark = spark_session()
        if lower.endswith(".csv"):
            return spark.read.csv(path, header=True, inferSchema=True)
        return spark.read.parquet(path)
    try:
        import polars as pl
    except ImportError as exc:
        raise click.UsageError(f"--engine polars needs polars: {install_hint('polars')}") from exc
    if is_db:
        raise click.UsageError("a DuckDB database file needs --engine duckdb")
    if lower.endswith(".csv"):
        return pl.scan_csv(path)
    return pl.scan_parquet(_parquet_source(path))


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


def input_files(path: str) -> list[str]:
    """The files a folder, glob or file argument reads."""
    if os.path.isdir(path):
        return [os.path.join(root, f) for root, _, files in os.walk(path) for f in files]
    if "*" in path or "?" in path or "[" in path:
        return glob.glob(path, recursive=True)
    return [path]


def check_lazy_output(out: str, source: str) -> None:
    """Before any work: a lazy engine writes Parquet only, never over or into its input.

    Raises
    ------
    click.UsageError
        If ``out`` is not a ``.parquet`` file, is one of the files ``source``
        reads, or lies inside the folder ``source`` (it would join the data set
        the next time the folder is read).
    """
    if not out.lower().endswith(".parquet"):
        raise click.UsageError(
            "with --engine duckdb, polars or spark, --out must be a .parquet file"
        )
    target = os.path.realpath(out)
    if os.path.isdir(source):
        folder = os.path.realpath(source)
        if os.path.commonpath([folder, target]) == folder:
            raise click.UsageError(
                f"--out {out} is inside the input folder {source}: write it elsewhere, so that "
                "the original data are kept and the output does not join them"
            )
    for f in input_files(source):
        if os.path.realpath(f) == target:
            raise click.UsageError(
                f"--out {out} is one of the input files: write the result to a new file, so "
                "that the original is kept"
            )


def write_lazy(frame: Any, out: str) -> None:
    """Write a lazy frame to Parquet by its own engine (streaming; checked by
    :func:`check_lazy_output` before any work)."""
    tmp = out + ".partial"
    if hasattr(frame, "sink_parquet"):
        frame.sink_parquet(tmp)
    elif hasattr(frame, "write_parquet"):
        frame.write_parquet(tmp)
    else:
        _write_spark(frame, tmp)
    os.replace(tmp, out)


def _write_spark(frame: Any, path: str) -> None:
    """Spark writes a folder of part files, in parallel; they are copied into the one
    file ``path`` row group by row group (streaming), as the other engines write it."""
    import pyarrow.parquet as pq

    folder = path + ".parts"
    frame.write.mode("overwrite").parquet(folder)
    try:
        parts = sorted(glob.glob(os.path.join(folder, "part-*.parquet")))
        schema = pq.read_schema(parts[0])
        with pq.ParquetWriter(path, schema) as writer:
            for part in parts:
                with pq.ParquetFile(part) as source:
                    for i in range(source.num_row_groups):
                        writer.write_table(source.read_row_group(i))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
