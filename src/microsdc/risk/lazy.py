"""Sample frequencies of a lazy frame: the engine groups, microsdc counts, the engine joins.

A polars ``LazyFrame``, DuckDB relation or Spark DataFrame is grouped by the QIs
by its engine (missing values kept as a group; :mod:`microsdc.backends.frequencies`),
fk is computed on those distinct patterns, each weighing its number of records
(:func:`microsdc.risk.frequencies.frequencies_from_codes`), and the engine joins fk
back with a null-safe join on the QIs. Rows never enter Python, and the result
stays lazy. DuckDB relations with integer QIs of small range take the combined
key of :mod:`microsdc.backends.keyed` instead.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import Policy, parse_policy
from microsdc._validation import check_int
from microsdc.backends import Backend, detect_backend
from microsdc.backends.complete import check_fk_complete
from microsdc.backends.frequencies import (
    N_RECORDS,
    SQL_FK_NAME,
    WEIGHT_SUM,
    aggregate,
    check_inputs,
    check_output_names,
    check_weights,
    columns,
    join_back,
    to_pandas,
)
from microsdc.backends.zeros import refuse_signed_zeros
from microsdc.encode import MissingValues, encode_qis
from microsdc.risk.frequencies import PatternFrequencies, frequencies_from_codes, pattern_summary

__all__ = [
    "check_k_anonymity_lazy",
    "lazy_patterns",
    "record_patterns",
    "risk_frame",
    "sample_frequencies_lazy",
]

_N = N_RECORDS
_W = WEIGHT_SUM


def _pattern_frequencies(
    patterns: pd.DataFrame,
    qi: list[Hashable],
    policy: Policy,
    weighted: bool,
    missing_values: MissingValues,
    func: str,
) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """fk (and Fk) of distinct patterns, each weighing its number of records.

    Returns the encoding, the distinct-pattern counts, fk, Fk and the map from
    the rows of ``patterns`` to distinct patterns (rows can repeat a pattern
    once missing codes are normalised).
    """
    enc = encode_qis(patterns, qi, missing_values=missing_values, func=func)
    n = patterns[_N].to_numpy(dtype=np.float64)
    w = patterns[_W].to_numpy(dtype=np.float64) if weighted else None
    # each row is a pattern standing for n records: fk counts records (and the
    # probabilistic shares are shares of records), Fk sums their weights
    res = frequencies_from_codes(enc.codes, enc.n_categories, policy=policy, weights=w, counts=n)
    return enc, res.count, res.fk, res.Fk, res.inverse


def lazy_patterns(
    nwf: Any,
    cols: list[Hashable],
    w: str | None,
    policy: Policy,
    missing_values: MissingValues,
    func: str,
) -> tuple[Any, tuple[Any, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]]:
    """The engine's patterns of a lazy frame (pyarrow) and their frequencies
    (see :func:`_pattern_frequencies`), after the weights are checked."""
    if w is not None:
        check_weights(nwf, w, func)
    refuse_signed_zeros(nwf.to_native(), detect_backend(nwf.to_native(), func), cols, func)
    table = aggregate(nwf, cols, w)
    freqs = _pattern_frequencies(
        to_pandas(table), cols, policy, w is not None, missing_values, func
    )
    return table, freqs


def sample_frequencies_lazy(
    df: Any,
    quasi_identifiers: Sequence[Hashable],
    *,
    k: int | None,
    missing: Any,
    weights: Any,
    missing_values: MissingValues,
) -> Any:
    """:func:`microsdc.sample_frequencies` on a lazy frame (polars ``LazyFrame``, DuckDB
    relation, Spark DataFrame): the input with the output columns appended. On DuckDB
    and Spark, whose names are case-insensitive, ``Fk`` is called ``Fk_pop``.
    """
    import narwhals as nw

    func = "sample_frequencies"
    backend = detect_backend(df, func)
    if k is not None:
        k = check_int(k, "k", func, min_value=1)
    policy = parse_policy(missing, func)
    nwf = nw.from_native(df)
    cols, w = check_inputs(nwf, quasi_identifiers, weights, backend, func)
    check_output_names(columns(nwf), func)
    if backend.name == "DuckDB":
        from microsdc.backends.keyed import keyed_fk, plan_keys, warn_unobserved

        plan = plan_keys(df, cols, missing_values, policy, w is not None)
        if plan is not None:
            warn_unobserved(plan, cols)
            out = keyed_fk(df, plan, policy, k)
            check_fk_complete(out, backend, [str(c) for c in cols], plan.n_rows, func)
            return out
    table, freqs = lazy_patterns(nwf, cols, w, policy, missing_values, func)
    return _with_fk(df, backend, cols, table, freqs, k, func)


def _with_fk(
    df: Any,
    backend: Backend,
    cols: list[Hashable],
    table: Any,
    freqs: Any,
    k: int | None,
    func: str,
) -> Any:
    """``df`` with fk (Fk, at_risk) of its patterns joined back, lazily, after the engine
    has shown that every record got its fk (:func:`check_fk_complete`)."""
    import pyarrow as pa

    _enc, _count, fk, big, inverse = freqs
    result = table.select([str(c) for c in cols])
    result = result.append_column("fk", pa.array(fk[inverse]))
    if big is not None:
        name = SQL_FK_NAME if backend.name in ("DuckDB", "PySpark") else "Fk"
        result = result.append_column(name, pa.array(big[inverse]))
    if k is not None:
        result = result.append_column("at_risk", pa.array(fk[inverse] < k))
    out = join_back(df, backend, cols, result)
    n_records = int(table.column(_N).to_numpy().sum())
    check_fk_complete(out, backend, [str(c) for c in cols], n_records, func)
    return out


def check_k_anonymity_lazy(
    df: Any,
    quasi_identifier_cols: Sequence[Hashable],
    k: int,
    *,
    missing: Any,
    weights: Any,
    missing_values: MissingValues,
) -> tuple[int, Any]:
    """:func:`microsdc.check_k_anonymity` on a lazy frame.

    The summary comes back as an eager frame of the same engine (a polars
    ``DataFrame`` for a ``LazyFrame``, a pyarrow ``Table`` for a DuckDB relation):
    it has one row per distinct key combination, so it is small.
    """
    func = "check_k_anonymity"
    n_at_risk, summary, _, _ = risk_frame(
        df, detect_backend(df, func), quasi_identifier_cols, k, missing=missing,
        weights=weights, missing_values=missing_values, func=func, join=False,
    )  # fmt: skip
    return n_at_risk, summary


def _lazy_summary(freqs: Any, k: int, backend: Backend) -> tuple[int, Any]:
    """Records at risk and the summary of the distinct patterns, as an eager frame."""
    enc, count, fk, big, inverse = freqs
    n_at_risk = int(count[fk < k].sum())
    first = np.zeros(len(count), dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(inverse))[::-1]
    distinct = PatternFrequencies(enc.codes[first], count, fk, big, np.arange(len(count)))
    summary = pattern_summary(enc, distinct, k)
    if backend.name == "polars":
        import polars as pl

        return n_at_risk, pl.from_pandas(summary)
    import pyarrow as pa

    return n_at_risk, pa.Table.from_pandas(summary, preserve_index=False)


def risk_frame(
    df: Any,
    backend: Backend,
    quasi_identifiers: Sequence[Hashable],
    k: int,
    *,
    missing: Any,
    weights: Any,
    missing_values: MissingValues,
    func: str,
    join: bool,
) -> tuple[int, Any, Any, Any]:
    """Records at risk, the summary, (with ``join``) ``df`` with fk appended, and the
    engine's distinct patterns of the key values as written (with their records in
    ``N_RECORDS``), from one group-by of a lazy frame: the command line prints the
    counts and the intruder's headline and writes the rows without grouping twice.
    Errors come before any work."""
    import narwhals as nw

    k = check_int(k, "k", func, min_value=1)
    policy = parse_policy(missing, func)
    nwf = nw.from_native(df)
    cols, w = check_inputs(nwf, quasi_identifiers, weights, backend, func)
    if join:
        check_output_names(columns(nwf), func)
    table, freqs = lazy_patterns(nwf, cols, w, policy, missing_values, func)
    n_at_risk, summary = _lazy_summary(freqs, k, backend)
    joined = _with_fk(df, backend, cols, table, freqs, k, func) if join else None
    return n_at_risk, summary, joined, table


def record_patterns(
    df: Any,
    backend: Backend,
    quasi_identifiers: Sequence[Hashable],
    *,
    missing: Any,
    missing_values: MissingValues,
    func: str,
) -> tuple[Any, Policy, np.ndarray]:
    """Distinct QI patterns of a frame, encoded, with their numbers of records.

    The engine does the group-by; for callers that compute on patterns with
    multiplicities (such as :func:`microsdc.safe_combinations`).

    Returns
    -------
    enc : EncodedQIs
        One row per distinct pattern the engine reported.
    policy : Policy
    counts : ndarray of shape (n_patterns,), float64, records of each pattern
    """
    import narwhals as nw

    policy = parse_policy(missing, func)
    nwf = nw.from_native(df)
    cols, _ = check_inputs(nwf, quasi_identifiers, None, backend, func)
    refuse_signed_zeros(df, backend, cols, func)
    patterns = to_pandas(aggregate(nwf, cols, None))
    enc = encode_qis(patterns, cols, missing_values=missing_values, func=func)
    return enc, policy, patterns[_N].to_numpy(dtype=np.float64)
