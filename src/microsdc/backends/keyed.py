"""fk of a DuckDB relation with integer-coded quasi-identifiers, through one combined key.

Registers and censuses with a handful of banded QIs often have almost as many
distinct patterns as records: 100M records over 100 x 2 x 400 x 6 x 8 x 50
categories (5 % missing) have about 79M patterns, so a group-by on the QIs, a
pattern table in Python and a join on six columns each cost as much as the rows
themselves. When every QI is an integer column with a small range, DuckDB
computes one BIGINT key per record instead (missing = slot 0 of each column),
the keys are counted into one integer array over the whole key space (4 bytes
per cell), the wildcard sums are taken in place, and fk goes back by a join on
that single key with the keys that occur. Rows never enter Python as rows: only
the key column passes through, batch by batch.

Other inputs (text or float QIs, a wide range, weights, policies other than
wildcard and category) take the pattern route of
:mod:`microsdc.backends.frequencies`; the results are the same.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from microsdc.backends.frequencies import DUCKDB_VIEW, sql_name
from microsdc.encode import HIGH_CARDINALITY, MissingValues, _canon, missing_values_for

__all__ = ["CELLS_PER_ROW", "MAX_CELLS", "KeyPlan", "keyed_fk", "plan_keys"]

#: Largest key space (cells) counted in one array: 2 GiB of int32.
MAX_CELLS = 1 << 29
#: The array is used only when it has at most this many cells per record; sparser
#: data are cheaper as patterns.
CELLS_PER_ROW = 64
#: Records fetched per batch of keys.
BATCH_ROWS = 1 << 20

_INTEGER_TYPES = {
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
}


@dataclass(frozen=True)
class KeyPlan:
    """How a relation's QIs map to one key.

    Attributes
    ----------
    key_sql : str
        SQL expression (over the relation's columns) giving the key of a record.
    base : ndarray of shape (n_qis,), int64
        Slots per column: range of the observed values + 1 (slot 0 = missing).
    n_rows : int
        Records in the relation.
    lows : ndarray of shape (n_qis,), int64
        Value of slot 1 of each column (its smallest observed value; 0 when
        the column has no observed value).
    """

    key_sql: str
    base: np.ndarray
    n_rows: int
    lows: np.ndarray

    @property
    def n_cells(self) -> int:
        return int(np.prod(self.base))


def _missing_ints(missing_values: MissingValues, column: Hashable) -> list[int]:
    """Declared missing codes of ``column`` that can equal an integer (by value, as pandas)."""
    out = set()
    for v in missing_values_for(missing_values, column):
        c = _canon(v)
        if c is not None and c[0] == "n" and math.isfinite(c[1]) and float(c[1]).is_integer():
            out.add(int(c[1]))
    return sorted(out)


def plan_keys(
    rel: Any, cols: list[Hashable], missing_values: MissingValues, policy: Any, weighted: bool
) -> KeyPlan | None:
    """A key plan when the combined key route applies, else None (one small query).

    The route applies to the wildcard and category policies without weights,
    when every QI is an integer column and the product of (range + 1) is at most
    :data:`MAX_CELLS` and :data:`CELLS_PER_ROW` times the number of records.
    """
    if weighted or policy.kind not in ("wildcard", "category"):
        return None
    if isinstance(missing_values, Mapping) and any(c not in cols for c in missing_values):
        return None  # the pattern route gives the error
    types = dict(zip(rel.columns, (str(t) for t in rel.types), strict=True))
    if any(types.get(str(c)) not in _INTEGER_TYPES for c in cols):
        return None
    terms = []
    for c in cols:
        miss = _missing_ints(missing_values, c)
        name = sql_name(str(c))
        keep = f" FILTER (WHERE {name} NOT IN ({', '.join(map(str, miss))}))" if miss else ""
        terms.append(f"min({name}){keep}, max({name}){keep}")
    view = DUCKDB_VIEW
    row = rel.query(view, f"SELECT count(*), {', '.join(terms)} FROM {view}").fetchall()[0]
    n_rows = int(row[0])
    lows, highs = row[1::2], row[2::2]
    if any(v is not None and abs(int(v)) >= 2**62 for v in (*lows, *highs)):
        return None  # the key arithmetic is BIGINT (UBIGINT values reach 2^64 - 1)
    # slots in Python integers: a range of UBIGINT values does not fit an int64
    slots = [1 if lo is None else int(hi) - int(lo) + 2 for lo, hi in zip(lows, highs, strict=True)]
    n_cells = math.prod(slots)
    if n_rows == 0 or n_cells > MAX_CELLS or n_cells > CELLS_PER_ROW * n_rows:
        return None
    base = np.array(slots, dtype=np.int64)
    if np.any(base > HIGH_CARDINALITY):  # the pattern route warns about such columns
        return None
    parts = []
    radix = 1
    for c, lo, b in zip(cols, lows, base, strict=True):
        if lo is not None:
            name = sql_name(str(c))
            listed = ", ".join(map(str, _missing_ints(missing_values, c)))
            gone = f"{name} IS NULL" + (f" OR {name} IN ({listed})" if listed else "")
            parts.append(
                f"(CASE WHEN {gone} THEN 0 ELSE CAST({name} AS BIGINT) - ({int(lo) - 1}) END)"
                f" * {radix}"
            )
        radix *= int(b)
    key_sql = " + ".join(parts) if parts else "0"
    key_type = "INTEGER" if n_cells < 2**31 else "BIGINT"
    return KeyPlan(
        key_sql=f"CAST({key_sql} AS {key_type})",
        base=base,
        n_rows=n_rows,
        lows=np.array([0 if lo is None else int(lo) for lo in lows], dtype=np.int64),
    )


def warn_unobserved(plan: KeyPlan, cols: list[Hashable]) -> None:
    """Warn about each key variable with no observed value, as the encode step of the
    pattern route does."""
    from microsdc.encode import warn_all_missing

    for c, slots in zip(cols, plan.base, strict=True):
        if slots == 1:
            warn_all_missing(c)


def _counts(
    rel: Any, plan: KeyPlan, note_first: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
) -> np.ndarray:
    """Records per key, over the whole key space (int32 while it fits).

    With ``note_first`` = (bit set, sorted keys, first positions), the position
    of the first record of each of those keys is noted too (see
    :func:`microsdc._kernels.keyspace.add_keys_noting_first`).
    """
    from microsdc._kernels.keyspace import add_keys, add_keys_noting_first, zeros

    table = zeros(plan.n_cells, np.int32 if plan.n_rows < 2**31 else np.int64)
    table.fill(0)  # fault the pages in order: faster than at random below
    keys = rel.query(DUCKDB_VIEW, f"SELECT {plan.key_sql} AS k FROM {DUCKDB_VIEW}")
    # DuckDB 1.x names it fetch_arrow_reader (a deprecated alias from 1.5 on)
    open_reader = getattr(keys, "to_arrow_reader", None) or keys.fetch_arrow_reader
    offset = 0
    with open_reader(BATCH_ROWS) as reader:  # closed even on error: the connection is freed
        for batch in reader:  # in scan order
            k = batch.column(0).to_numpy()
            if note_first is None:
                add_keys(table, k)
            else:
                add_keys_noting_first(table, k, offset, *note_first)
            offset += len(k)
    return table


def keyed_fk(rel: Any, plan: KeyPlan, policy: Any, k: int | None) -> Any:
    """``rel`` with fk (and ``at_risk`` when ``k`` is given) joined back on the key.

    Peak memory on the Python side is the key-space array (4 bytes per cell)
    plus, per key that occurs, 12 bytes for the table joined back; DuckDB's join
    holds that table in its hash table.
    """
    import pyarrow as pa

    from microsdc._kernels.keyspace import wildcard_sums_inplace

    table = _counts(rel, plan)
    present = np.flatnonzero(table)
    if policy.kind == "wildcard":
        wildcard_sums_inplace(table, plan.base)
    fk = table[present]
    del table
    index_type = np.int32 if plan.n_cells < 2**31 else np.int64
    __microsdc_fk_keys = pa.table(  # read by DuckDB's replacement scan
        {"k": present.astype(index_type), "fk": fk}
    )
    del present, fk
    extra = "" if k is None else f", (p.fk < {int(k)}) AS at_risk"
    # the key is computed where only the caller's columns are in scope (a key
    # variable may be called k or fk)
    keyed = f"SELECT *, {plan.key_sql} AS __microsdc_key FROM {DUCKDB_VIEW}"
    return rel.query(
        DUCKDB_VIEW,
        f"SELECT t.* EXCLUDE (__microsdc_key), CAST(p.fk AS BIGINT) AS fk{extra} "
        f"FROM ({keyed}) AS t LEFT JOIN __microsdc_fk_keys AS p ON t.__microsdc_key = p.k",
    )
