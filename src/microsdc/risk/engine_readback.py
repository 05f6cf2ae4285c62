"""Blanked cells that other columns give back, checked in the engine on counts.

:func:`microsdc.risk.linked.recoverable_cells` judges each blanked cell by its key
value before suppression and its record's value of the other column as released, and
learns the relation from the records that show both. Its outcome for a cell depends
only on those two values, so the counts of the distinct (column, key variable)
combinations before and after suppression carry all it needs: suppression blanks
cells and changes nothing else, so a combination's records that no longer show the
key value are its blanked cells. The engine groups and counts
(:func:`~microsdc.backends.frequencies.aggregate`, missing values kept as groups);
:func:`~microsdc.risk.linked.recoverable_counted` applies the rule to the counts,
with the codes and missing values (nulls, NaN, declared codes) of the pandas route.
Rows never enter Python; the result is that of :func:`recoverable_cells` on the
records.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import pandas as pd

from microsdc.backends.frequencies import N_RECORDS
from microsdc.encode import MissingValues
from microsdc.risk.linked import MIN_COUNT, recoverable_counted
from microsdc.risk.readback import SHARE

__all__ = ["engine_recoverable"]

_ROWS = "__microsdc_rows__"
_COLUMNS = ["key_variable", "column", "n_blanked", "n_recoverable", "share"]


def _counts(frame: Any, columns: list[str]) -> pd.DataFrame:
    """The engine's counts of the distinct combinations of ``columns`` in ``frame``
    (column :data:`~microsdc.backends.frequencies.N_RECORDS`). A polars integer column
    wider than 64 bits, which pyarrow cannot read, is grouped by its text, which tells
    its values apart (as DuckDB's are, :func:`~microsdc.backends.frequencies.duckdb_key`)."""
    import narwhals as nw

    from microsdc.backends.adapters import frame_schema
    from microsdc.backends.frequencies import aggregate, to_pandas

    nwf = nw.from_native(frame)
    if nwf.implementation is nw.Implementation.POLARS:
        schema = frame_schema(nwf)
        wide = [c for c in columns if str(schema.get(c)) in ("Int128", "UInt128")]
        if wide:
            nwf = nwf.with_columns(*[nw.col(c).cast(nw.String) for c in wide])
    return to_pandas(aggregate(nwf, list(columns), None))


def _repeated(frame: Any, columns: list[str]) -> list[str]:
    """The ``columns`` of ``frame`` in which some value (a missing one included) is held
    by two records or more, from one query of the engine. A column whose every value
    is its record's own gives nothing back (no other record shares a blanked cell's
    value of it, so no guess is made), and is left out without its counts."""
    import narwhals as nw

    if not columns:
        return []
    nwf = nw.from_native(frame)
    got = nwf.select(nw.len().alias(_ROWS), *[nw.col(c).n_unique().alias(c) for c in columns])
    if isinstance(got, nw.LazyFrame):
        got = got.collect(backend="pyarrow")
    row = {k: v[0] for k, v in got.to_arrow().to_pydict().items()}
    return [c for c in columns if int(row[c]) < int(row[_ROWS])]


def engine_recoverable(
    original: Any,
    released: Any,
    key_variables: Sequence[Hashable],
    columns: Sequence[Hashable],
    *,
    missing_values: MissingValues = None,
    share: float = SHARE,
    min_count: int = MIN_COUNT,
) -> pd.DataFrame:
    """:func:`microsdc.risk.linked.recoverable_cells` on a lazy frame and its release.

    Parameters
    ----------
    original, released : polars LazyFrame, DuckDB relation or Spark DataFrame
        The frame before suppression and its release by
        :func:`microsdc.local_suppression` (key variables blanked, nothing else
        changed). Never read into Python: the engine gives counts.
    key_variables : list of column names
        The key variables that were suppressed.
    columns : list of column names
        The released columns to examine (not key variables).
    missing_values : sequence or dict, optional
        Codes that mean "missing" besides nulls and NaN.
    share, min_count
        As in :func:`~microsdc.risk.linked.recoverable_cells`.

    Returns
    -------
    pandas.DataFrame
        The result of :func:`~microsdc.risk.linked.recoverable_cells` on the records.
    """
    keys = [str(k) for k in key_variables]
    found: dict[tuple[str, str], tuple[int, int]] = {}
    blanked = set(keys)  # the key variables with blanked cells, as the first column tells
    repeated = _repeated(original, [str(c) for c in columns])
    for col in repeated:
        # one count per column over every key variable still in question: the rule
        # sums a key variable's duplicate (column, key) rows
        wanted = [k for k in keys if k in blanked]
        if not wanted:
            break
        before = _counts(original, [col, *wanted])
        after = _counts(released, [col, *wanted])
        for key in wanted:
            n_blanked, hit = recoverable_counted(
                before, after, key, col, missing_values=missing_values,
                min_count=min_count, count=N_RECORDS,
            )  # fmt: skip
            if not n_blanked:
                blanked.discard(key)  # the same for every column: nothing of it blanked
            found[(key, col)] = (n_blanked, hit)
    rows = []
    for key in keys:  # in the order recoverable_cells lists them before its sort
        for col in repeated:
            n_blanked, hit = found.get((key, col), (0, 0))
            if hit and hit >= share * n_blanked:
                rows.append((key, col, n_blanked, hit, hit / n_blanked))
    out = pd.DataFrame(rows, columns=_COLUMNS)
    return out.sort_values("n_recoverable", ascending=False, kind="stable").reset_index(drop=True)
