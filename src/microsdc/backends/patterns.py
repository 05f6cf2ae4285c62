"""The engine's part of counting key combinations: the group-by that gives them, and the
join that takes fk back to the records.

A lazy frame (polars ``LazyFrame``, DuckDB relation, Spark DataFrame), or an eager
polars or pyarrow frame counted on its patterns, hands microsdc its distinct key
combinations with their records and weight sums (:func:`group_keys`); microsdc counts
fk on them (:mod:`microsdc.risk.counting`), and the engine joins fk back with a
null-safe join on the key variables (:func:`join_fk`). A DuckDB relation with integer
key variables of small range counts on one combined key instead
(:func:`keyed_frequencies`, :mod:`microsdc.backends.keyed`).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from microsdc.backends.adapters import Backend, detect_backend
from microsdc.backends.complete import check_fk_complete
from microsdc.backends.frequencies import (
    N_RECORDS,
    SQL_FK_NAME,
    aggregate,
    check_weights,
    join_back,
)
from microsdc.backends.zeros import refuse_signed_zeros

__all__ = ["group_keys", "join_fk", "keyed_frequencies"]


def group_keys(nwf: Any, cols: list[Hashable], w: str | None, func: str) -> Any:
    """The engine's distinct key combinations of ``nwf`` (a narwhals frame), missing kept
    as a value, with their records (and weight sums), as a pyarrow table
    (:func:`~microsdc.backends.frequencies.aggregate`), after the weights are checked
    and signed zeros refused (the errors name ``func``)."""
    if w is not None:
        check_weights(nwf, w, func)
    refuse_signed_zeros(nwf.to_native(), detect_backend(nwf.to_native(), func), cols, func)
    return aggregate(nwf, cols, w)


def join_fk(
    df: Any,
    backend: Backend,
    cols: list[Hashable],
    table: Any,
    fk: np.ndarray,
    big_fk: np.ndarray | None,
    k: int | None,
    func: str,
) -> Any:
    """``df`` with the fk (Fk, and ``at_risk`` when ``k`` is given) of each row of
    ``table`` (the engine's key combinations, :func:`group_keys`) joined back, lazily,
    after the engine has shown that every record got its fk (:func:`check_fk_complete`).
    On DuckDB and Spark, whose names are case-insensitive, ``Fk`` is called ``Fk_pop``."""
    import pyarrow as pa

    result = table.select([str(c) for c in cols])
    result = result.append_column("fk", pa.array(fk))
    if big_fk is not None:
        name = SQL_FK_NAME if backend.name in ("DuckDB", "PySpark") else "Fk"
        result = result.append_column(name, pa.array(big_fk))
    if k is not None:
        result = result.append_column("at_risk", pa.array(fk < k))
    out = join_back(df, backend, cols, result)
    n_records = int(table.column(N_RECORDS).to_numpy().sum())
    check_fk_complete(out, backend, [str(c) for c in cols], n_records, func)
    return out


def keyed_frequencies(
    rel: Any, backend: Backend, cols: list[Hashable], plan: Any, policy: Any, k: int | None,
    func: str,
) -> Any:  # fmt: skip
    """``rel`` (a DuckDB relation) with fk (and ``at_risk``) counted on the combined key of
    ``plan`` (:func:`~microsdc.backends.keyed.plan_keys`), after the engine has shown
    that every record got its fk."""
    from microsdc.backends.keyed import keyed_fk, warn_unobserved

    warn_unobserved(plan, cols)
    out = keyed_fk(rel, plan, policy, k)
    check_fk_complete(out, backend, [str(c) for c in cols], plan.n_rows, func)
    return out
