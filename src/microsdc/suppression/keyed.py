"""Local suppression of a DuckDB relation with integer-coded quasi-identifiers, through
one combined key.

A register of 100M records over six banded QIs has almost as many distinct
patterns as records (about 79M in the benchmark), too many for the pattern
table the greedy works on. Under the wildcard policy only the patterns at risk
ever change, and blanking a cell of one of them can only add matches to
another record: the patterns that reach k keep reaching it. So the key space
array of :mod:`microsdc.backends.keyed` is read twice:

1. the records are counted by key and turned into fk in place; the keys that
   occur with fk < k are the patterns at risk (usually a small share of them);
2. the records are counted again, noting the position of the first record of
   each pattern at risk; the patterns at risk are taken out of the counts and
   the rest become wildcard sums: the fixed part of every fk the greedy asks for.

The greedy then runs on the patterns at risk alone, each fk being its support
among them plus the fixed part at its key: the same fk, in the same order, as
the hash-table greedy would see on all the patterns, hence the same cells. The
engine blanks the cells by a join on the one key, for the changed patterns
only.

When every pattern reaches k the relation is returned unchanged. The route is
taken only when the patterns are too many for the bit-set greedy (which also
gives back the cells not needed); below that the pattern route runs, so the
cells are those of pandas.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import Policy
from microsdc.backends.frequencies import DUCKDB_VIEW, sql_name
from microsdc.backends.keyed import KeyPlan

__all__ = ["keyed_suppression"]

_BLANK_KEYS = "__microsdc_blank_keys"


def _first_pass(
    rel: Any, plan: KeyPlan, k: int
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(patterns, observed categories per column, keys at risk, their fk, key bit set)."""
    from microsdc._kernels.keyspace import keys_below, occupied, wildcard_sums_inplace
    from microsdc.backends.keyed import _counts

    table = _counts(rel, plan)
    n_patterns = int(np.count_nonzero(table))
    bits, margins = occupied(table, plan.base)
    n_categories = np.count_nonzero(margins[:, 1:], axis=1).astype(np.int64)
    wildcard_sums_inplace(table, plan.base)
    risky = keys_below(table, bits, k)
    fk = np.asarray(table[risky], dtype=np.int64)
    return n_patterns, n_categories, risky, fk, bits


def _second_pass(
    rel: Any, plan: KeyPlan, risky: np.ndarray, bits: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(wildcard sums of the records not at risk, records and first position per risky key)."""
    from microsdc._kernels.keyspace import wildcard_sums_inplace
    from microsdc.backends.keyed import _counts

    bits[:] = 0
    np.bitwise_or.at(bits, risky >> 6, np.left_shift(1, risky & 63).astype(np.int64))
    first = np.full(len(risky), -1, dtype=np.int64)
    table = _counts(rel, plan, (bits, risky, first))
    records = np.asarray(table[risky], dtype=np.int64)
    table[risky] = 0
    wildcard_sums_inplace(table, plan.base)
    return table, records, first


def _blank_back(rel: Any, plan: KeyPlan, names: list[str], cols: list[str], blank: Any) -> Any:
    """``rel`` with the cells of the changed keys set to null (a join on the key)."""
    import pyarrow as pa

    keys, mask = blank
    used = [j for j in range(mask.shape[1]) if mask[:, j].any()]
    arrays: dict[str, Any] = {"k": pa.array(keys)}
    for i, j in enumerate(used):
        flagged = mask[:, j]
        arrays[f"b{i}"] = pa.array(flagged, mask=~flagged, type=pa.bool_())
    __microsdc_blank_keys = pa.table(arrays)  # read by DuckDB's replacement scan
    flag = {cols[j]: f"p.b{i}" for i, j in enumerate(used)}
    q = sql_name
    select = ", ".join(
        f"CASE WHEN {flag[c]} THEN NULL ELSE t.{q(c)} END AS {q(c)}" if c in flag else f"t.{q(c)}"
        for c in names
    )
    keyed = f"SELECT *, {plan.key_sql} AS __microsdc_key FROM {DUCKDB_VIEW}"
    return rel.query(
        DUCKDB_VIEW,
        f"SELECT {select} FROM ({keyed}) AS t "
        f"LEFT JOIN {_BLANK_KEYS} AS p ON t.__microsdc_key = p.k",
    )


def _check_arrived(rel: Any, data: Any, cols: list[str], blanked: np.ndarray) -> None:
    """Raise unless each key variable of the release ``data`` has the missing values of
    ``rel`` plus the cells ``blanked`` in it (:func:`check_blanks_arrived`)."""
    from microsdc.backends import Backend
    from microsdc.backends.complete import check_blanks_arrived, null_counts

    duckdb = Backend("DuckDB", True, "duckdb")
    n, before = null_counts(rel, duckdb, cols)
    expected = {c: b + int(x) for c, b, x in zip(cols, before, blanked, strict=True)}
    check_blanks_arrived(data, duckdb, expected, n, "local_suppression")


def _values(codes: np.ndarray, lows: np.ndarray, cols: list[str]) -> pd.DataFrame:
    """Codes back to the column values (nullable integers; missing as missing)."""
    out = {}
    for j, c in enumerate(cols):
        v = codes[:, j]
        out[c] = pd.array(np.where(v >= 0, v + lows[j], 0), dtype="Int64")
        out[c][v < 0] = pd.NA
    return pd.DataFrame(out)


def keyed_suppression(
    rel: Any,
    plan: KeyPlan,
    names: list[str],
    cols: list[Hashable],
    k: int,
    importance: Any,
    policy: Policy,
    progress: Callable[[int, int], None] | None,
    t0: float,
) -> Any:
    """Local suppression to ``k`` of a DuckDB relation on the combined key, or None
    when the pattern route should run instead (the bit-set greedy fits).

    Returns
    -------
    LazySuppressionResult or None
        ``patterns`` lists the patterns at risk before suppression.
    """
    from microsdc.suppression._engine import _reach_k_units, background_fk, bitset_fits
    from microsdc.suppression.params import costs_of

    str_cols = [str(c) for c in cols]
    n_patterns, n_categories, risky, fk0, bits = _first_pass(rel, plan, k)
    if len(risky) and bitset_fits(n_patterns, n_categories):
        return None
    from microsdc._kernels.keyspace import decode_keys

    codes0 = decode_keys(risky, plan.base)
    codes = codes0.copy()
    records = np.zeros(len(risky), dtype=np.int64)
    fk_after = fk0.copy()
    true_fk = np.zeros(len(risky), dtype=np.int64)
    data = rel
    if len(risky):
        background, records, first = _second_pass(rel, plan, risky, bits)
        radix = np.concatenate([[1], np.cumprod(plan.base[:-1])]).astype(np.int64)
        costs = costs_of(importance, cols, n_categories)
        _, fk_after = _reach_k_units(
            codes,
            records,
            first,
            plan.base - 1,
            k,
            costs,
            policy,
            1,
            fk0,
            False,
            progress,
            (background, radix),
        )
        changed = np.flatnonzero(((codes < 0) & (codes0 >= 0)).any(axis=1))
        if len(changed):
            from microsdc.suppression._engine import wildcard_support_of

            true_fk[changed] = background_fk(
                codes0[changed], background, radix
            ) + wildcard_support_of(
                codes, codes0[changed], plan.base - 1, records.astype(np.float64)
            )
            mask = (codes[changed] < 0) & (codes0[changed] >= 0)
            data = _blank_back(rel, plan, names, str_cols, (risky[changed], mask))
            _check_arrived(rel, data, str_cols, (mask * records[changed][:, None]).sum(axis=0))
        del background
    from microsdc.suppression.result import lazy_result

    fk_after = np.asarray(fk_after, dtype=np.float64)
    return lazy_result(
        data,
        _values(codes0, plan.lows, str_cols),
        str_cols,
        cols,
        k,
        policy,
        (codes < 0) & (codes0 >= 0),
        records.astype(np.float64),
        fk0.astype(np.float64),
        fk_after,
        true_fk,
        np.ones(len(risky), dtype=bool),
        fk_after < k,
        None,
        time.perf_counter() - t0,
        details={"route": "combined key"},
        n_records_total=plan.n_rows,
        n_patterns_total=n_patterns,
    )
