"""Checks that a lazy engine's result is whole before it is returned.

microsdc decides on the distinct key patterns and the engine joins the decisions
back onto the rows. A join that silently matches nothing (a column type the engine
compares in its own way, such as Spark's ``void``) would return records without
fk, which a caller reads as safe, or a release without the blanks that were
reported. So every result of the pattern and key routes is counted once more in the
engine: as many records as went in, an fk for every record, and exactly the
blanked cells as new missing values. A result that fails raises
:class:`~microsdc.exceptions.DataValidationError` naming the key variables and
their types in the engine; nothing wrong is returned. The message gives the two
causes seen: an input that gives other rows at each evaluation (a sample or a
random order in the plan; materialise it first), and, only when a key variable's
type is not plain text, integer or boolean, a type the engine compares in its own
way (cast it).

The check costs one aggregate pass over the result (Spark: one job).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from microsdc.backends import Backend
from microsdc.backends.adapters import frame_schema
from microsdc.backends.frequencies import DUCKDB_VIEW, sql_name
from microsdc.exceptions import DataValidationError

__all__ = ["check_blanks_arrived", "check_fk_complete", "null_counts"]


def null_counts(native: Any, backend: Backend, names: Sequence[str]) -> tuple[int, list[int]]:
    """Records of a lazy frame and the missing values (nulls; NaN is a value) of each
    column ``names``, in one pass of its engine."""
    if backend.name == "PySpark":
        from microsdc.backends.spark import null_counts as spark_counts

        return spark_counts(native, names)
    if backend.name == "DuckDB":
        terms = "".join(f", count(*) FILTER (WHERE {sql_name(c)} IS NULL)" for c in names)
        row = native.query(DUCKDB_VIEW, f"SELECT count(*){terms} FROM {DUCKDB_VIEW}").fetchall()
        return int(row[0][0]), [int(v) for v in row[0][1:]]
    import narwhals as nw

    nwf = nw.from_native(native)
    stats = nwf.select(
        nw.len().alias("__microsdc_n"),
        *[nw.col(c).is_null().sum().alias(f"__microsdc_null{i}") for i, c in enumerate(names)],
    )
    if isinstance(stats, nw.LazyFrame):
        stats = stats.collect()
    row = stats.row(0)
    return int(row[0]), [int(v or 0) for v in row[1:]]


def _types(native: Any, backend: Backend) -> dict[str, str]:
    """The engine's type of each column of ``native``, as the engine prints it."""
    if backend.name == "PySpark":
        return {f.name: f.dataType.simpleString() for f in native.schema.fields}
    if backend.name == "DuckDB":
        return dict(zip(native.columns, (str(t) for t in native.types), strict=True))
    import narwhals as nw

    return {c: str(t) for c, t in frame_schema(nw.from_native(native)).items()}


def engine_types(native: Any, backend: Backend, names: Sequence[str]) -> str:
    """``'a' string, 'b' void``: the engine's types of the columns ``names``."""
    types = _types(native, backend)
    return ", ".join(f"{c!r} {types.get(c, '?')}" for c in names)


#: Types every engine compares as Python does: text, integers, booleans
#: (DuckDB ``VARCHAR``/``BIGINT``/``UTINYINT``, polars ``String``/``Int64``, Spark
#: ``string``/``bigint``).
_PLAIN = re.compile(
    r"(?i)(u?(tiny|small|big|huge)?int(eger)?|u?int(8|16|32|64|128)|varchar|string|str|text"
    r"|bool(ean)?)"
)


def unusual_types(native: Any, backend: Backend, names: Sequence[str]) -> list[str]:
    """The columns among ``names`` whose engine type is not plain text, integer or
    boolean, which an engine may compare in its own way (Spark ``void``, floats,
    times with a time zone, collations...)."""
    types = _types(native, backend)
    return [c for c in names if not _PLAIN.fullmatch(types.get(c, "?").strip())]


_COLLECT = (
    "(polars: .collect(); DuckDB: a table (CREATE TABLE ... AS), .pl() or .df(); "
    "Spark: .toPandas(), or .toArrow() for a pyarrow table)"
)


def _advice(native: Any, backend: Backend, names: Sequence[str]) -> str:
    """Why an engine's result may not match what was computed, and what to do: an
    input that gives other rows at each evaluation, and (only when a key variable's
    type is unusual) a type the engine compares in its own way."""
    if not backend.lazy:
        return "Convert the frame with .to_pandas()."
    listed = f"Key variables and their types: {engine_types(native, backend, names)}. "
    changing = (
        "the input gives other rows at each evaluation (a sample such as DuckDB's "
        "USING SAMPLE or polars' .sample() in the plan, or a random order such as "
        "ORDER BY random()): materialise it first and pass that "
        f"{_COLLECT}"
    )
    odd = unusual_types(native, backend, names)
    if not odd:
        return f"{listed}The types are plain, so the likely cause is that {changing}."
    return (
        f"{listed}Either {changing}; or the engine compares the values of "
        f"{', '.join(repr(c) for c in odd)} in its own way: cast the key variables to "
        "text or to a plain integer type in the engine, or collect the frame and pass it "
        "in memory."
    )


def check_fk_complete(
    out: Any, backend: Backend, keys: Sequence[str], n_records: int, func: str
) -> None:
    """Raise unless the lazy result ``out`` has ``n_records`` records, each with an fk.

    Raises
    ------
    DataValidationError
        Naming the key variables ``keys`` and their types in the engine.
    """
    n, (no_fk,) = null_counts(out, backend, ["fk"])
    if n == n_records and no_fk == 0:
        return
    raise DataValidationError(
        f"{func} on a {backend.name} frame: joining the frequencies back onto the records "
        f"gave {n} record(s) for {n_records}, {no_fk} of them without fk, so the result is "
        "not returned (a record without fk would read as safe). "
        f"{_advice(out, backend, keys)}",
        func=func,
    )


def check_blanks_arrived(
    out: Any,
    backend: Backend,
    expected_nulls: Mapping[str, int],
    n_records: int,
    func: str,
) -> None:
    """Raise unless the lazy release ``out`` has ``n_records`` records and in each key
    variable exactly ``expected_nulls[column]`` missing values (those it had plus the
    cells blanked in it).

    Raises
    ------
    DataValidationError
        Naming the key variables whose blanks did not arrive, with their types.
    """
    names = list(expected_nulls)
    n, got = null_counts(out, backend, names)
    wrong = [
        f"{c!r}: {g} missing where {expected_nulls[c]} were due"
        for c, g in zip(names, got, strict=True)
        if g != expected_nulls[c]
    ]
    if n == n_records and not wrong:
        return
    raise DataValidationError(
        f"{func} on a {backend.name} frame: the released records do not carry the "
        f"suppression that was computed ({n} record(s) for {n_records}"
        + (f"; {'; '.join(wrong)}" if wrong else "")
        + "), so the result is not returned (a blank that did not arrive releases a "
        f"record at risk). {_advice(out, backend, names)}",
        func=func,
    )
