"""The one count behind :func:`~microsdc.sample_frequencies`,
:func:`~microsdc.check_k_anonymity`, :func:`~microsdc.risk.risk_summary` and
:func:`~microsdc.safe_combinations`, for every kind of frame.

Each of them runs the same steps, written once here:

1. the frame's checks: the key variables and weights against its columns (a lazy
   frame's schema: no row is read before the checks);
2. the key rows (:func:`key_rows`): a pandas frame's records, encoded, one row per
   record; any other frame's distinct key combinations as its engine groups them, each
   with its records and weight sum (:mod:`microsdc.backends.patterns`), encoded the
   same way;
3. the frequency core (:func:`~microsdc.risk.frequencies.frequencies_from_codes`,
   :func:`~microsdc.risk.frequencies.row_frequencies`), each row weighing its records;
4. the write back (:func:`append_fk`): per record on pandas, joined back by the engine
   otherwise; the summary of the combinations (:func:`summary_of`) as the frame's kind.

A DuckDB relation with integer key variables of small range may count on one combined
key instead (``keyed``, an optimisation of the engine, :mod:`microsdc.backends.keyed`).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import Policy, parse_policy
from microsdc._validation import (
    check_columns,
    check_frame,
    check_int,
    check_weight_apart,
    incomplete_column_error,
    param_error,
)
from microsdc.backends.adapters import FrameAdapter
from microsdc.data.quality import refuse_text_weights
from microsdc.encode import EncodedQIs, MissingValues, encode_qis, missing_mask
from microsdc.exceptions import DataValidationError
from microsdc.risk.frequencies import (
    PatternFrequencies,
    frequencies_from_codes,
    pattern_summary,
    row_frequencies,
)

__all__ = [
    "KeyRows",
    "append_fk",
    "frequencies_for",
    "key_rows",
    "prepare_with_k",
    "summary_of",
]


@dataclass(frozen=True)
class KeyRows:
    """The key variables of a frame as rows to count.

    Attributes
    ----------
    frame : FrameAdapter
        The frame counted.
    policy : Policy
        The missing-value policy.
    columns : list
        The key variables, checked.
    enc : EncodedQIs or None
        The rows encoded: one per record (pandas) or per key combination the engine
        reported. None when the engine counts on its own key (``plan``).
    weights : ndarray or None
        Per row: the record's weight, or the weight sum of the combination.
    records : ndarray of float64 or None
        Per row: the records of the combination; None when each row is one record.
    rows : pandas.DataFrame or None
        The rows themselves: the pandas frame, or the engine's combinations (the key
        variables as written and their records in
        :data:`~microsdc.backends.frequencies.N_RECORDS`).
    table : pyarrow.Table or None
        The engine's combinations as it gave them, for the join back (None: in memory).
    plan : KeyPlan or None
        DuckDB's combined key, when it counts fk itself.
    """

    frame: FrameAdapter
    policy: Policy
    columns: list[Hashable]
    enc: Any = None
    weights: np.ndarray | None = None
    records: np.ndarray | None = None
    rows: pd.DataFrame | None = None
    table: Any = None
    plan: Any = None

    def frequencies(self) -> PatternFrequencies:
        """The frequencies of the distinct patterns (``inverse``: the pattern of each row)."""
        enc = self.enc
        return frequencies_from_codes(
            enc.codes, enc.n_categories, policy=self.policy, weights=self.weights,
            counts=self.records,
        )  # fmt: skip

    def row_frequencies(self) -> tuple[np.ndarray, np.ndarray | None]:
        """fk and Fk (None without weights) of each row."""
        if self.records is None:  # the records themselves: the per-record routes
            enc = self.enc
            return row_frequencies(
                enc.codes, enc.n_categories, policy=self.policy, weights=self.weights
            )
        res = self.frequencies()
        return res.row_fk, res.row_Fk

    def missing_cells(self, missing_values: Any) -> int:
        """Missing cells in the key variables (``missing_values`` declared missing)."""
        rows = self.rows
        assert rows is not None
        if self.records is None:
            return sum(int(missing_mask(rows[c], missing_values or []).sum()) for c in self.columns)
        from microsdc.backends.frequencies import N_RECORDS

        records = rows[N_RECORDS].to_numpy(dtype=np.int64)
        return sum(
            int(records[np.asarray(missing_mask(rows[c], missing_values or []), dtype=bool)].sum())
            for c in self.columns
        )


def key_rows(
    frame: FrameAdapter,
    quasi_identifiers: Any,
    missing: Any,
    weights: Any,
    missing_values: MissingValues,
    func: str,
    *,
    appends: bool = False,
    keyed: bool = False,
) -> KeyRows:
    """The checks, then the key rows of ``frame`` (errors name ``func``).

    ``appends``: the caller appends fk to a lazy frame (its own column names are
    refused first); ``keyed``: a DuckDB relation may count on one combined key
    (``plan`` set, nothing encoded).
    """
    if frame.name == "pandas":
        _, enc, policy, per_record = prepare_with_k(
            frame.native, quasi_identifiers, None, missing, weights, missing_values, func,
            with_k=False,
        )  # fmt: skip
        return KeyRows(frame, policy, list(enc.columns), enc, per_record, rows=frame.native)
    import narwhals as nw

    from microsdc.backends.frequencies import check_inputs, check_output_names, columns
    from microsdc.backends.patterns import group_keys

    df, backend = frame.native, frame.backend
    policy = parse_policy(missing, func)
    nwf = nw.from_native(df)
    cols, w = check_inputs(nwf, quasi_identifiers, weights, backend, func)
    if appends:
        check_output_names(columns(nwf), func, backend.name)
    if keyed and backend.name == "DuckDB":
        from microsdc.backends.keyed import plan_keys

        plan = plan_keys(df, cols, missing_values, policy, w is not None)
        if plan is not None:
            return KeyRows(frame, policy, cols, plan=plan)
    table = group_keys(nwf, cols, w, func)
    return engine_rows(frame, policy, cols, table, w is not None, missing_values, func)


def engine_rows(
    frame: FrameAdapter,
    policy: Policy,
    cols: list[Hashable],
    table: Any,
    weighted: bool,
    missing_values: MissingValues,
    func: str,
) -> KeyRows:
    """The engine's key combinations ``table`` (:func:`~microsdc.backends.patterns.group_keys`)
    encoded, with their records and weight sums."""
    from microsdc.backends.frequencies import N_RECORDS, WEIGHT_SUM, to_pandas

    rows = to_pandas(table)
    enc = encode_qis(rows, cols, missing_values=missing_values, func=func)
    records = rows[N_RECORDS].to_numpy(dtype=np.float64)
    w = rows[WEIGHT_SUM].to_numpy(dtype=np.float64) if weighted else None
    return KeyRows(frame, policy, cols, enc, w, records, rows, table)


def append_fk(
    keys: KeyRows, fk: np.ndarray, big_fk: np.ndarray | None, k: int | None, func: str
) -> Any:
    """fk (``Fk`` when weighted, ``at_risk`` when ``k`` is given) of each row of ``keys``
    (:meth:`KeyRows.row_frequencies`) for the records: a pandas frame indexed like the
    records, or the engine's frame with them joined back."""
    if keys.table is None:
        assert keys.rows is not None
        out = pd.DataFrame({"fk": fk}, index=keys.rows.index)
        if big_fk is not None:
            out["Fk"] = big_fk
        if k is not None:
            out["at_risk"] = out["fk"] < k
        return out
    from microsdc.backends.patterns import join_fk

    frame = keys.frame
    return join_fk(frame.native, frame.backend, keys.columns, keys.table, fk, big_fk, k, func)


def summary_of(keys: KeyRows, res: PatternFrequencies, k: int, func: str) -> Any:
    """The summary of the key combinations (:func:`~microsdc.risk.frequencies.pattern_summary`)
    as the frame's kind: pandas, or for an engine a polars ``DataFrame`` (polars) or a
    pyarrow ``Table``: one row per combination, so it is small."""
    summary = pattern_summary(keys.enc, res, k, func=func)
    if keys.table is None:
        return summary
    from microsdc.backends.frequencies import eager_output

    return eager_output(summary, keys.frame.native)


def _weights(df: pd.DataFrame, weights: Any, func: str) -> np.ndarray | None:
    """Validate sampling weights given as a column name or an array of length n_rows."""
    if weights is None:
        return None
    if isinstance(weights, pd.Series | np.ndarray | list):
        name = "weights"
        if isinstance(weights, pd.Series) and not weights.index.equals(df.index):
            weights = _aligned_weights(df, weights, func)
        values = pd.Series(np.asarray(weights), index=None if len(weights) != len(df) else df.index)
        if len(values) != len(df):
            raise param_error(
                "weights",
                func,
                f"a column name or an array of length {len(df)}",
                f"an array of length {len(values)}",
            )
    else:
        check_columns(df, [weights], "weights", func)
        name = repr(weights)
        values = df[weights]
    refuse_text_weights(values, name, None if name == "weights" else weights, func)
    try:
        numeric = pd.to_numeric(values, errors="raise")
    except (TypeError, ValueError) as exc:
        # the rows of the text, by label (pandas names a position from 0)
        parsed = pd.to_numeric(values, errors="coerce")
        text = np.asarray(pd.Series(parsed).isna().to_numpy() & values.notna().to_numpy())
        shown = ", ".join(
            f"{r!r}: {v!r}"
            for r, v in zip(df.index[text][:5], values[text].iloc[:5].tolist(), strict=True)
        )
        from microsdc.data.quality import decimal_comma_hint

        hint = decimal_comma_hint(values[text].astype(str).tolist())
        raise DataValidationError(
            f"The weight column {name} of {func} must be numeric: it holds {int(text.sum())} "
            f"value(s) that are not numbers (first rows: {shown}).{hint}",
            func=func,
        ) from exc
    w = pd.Series(numeric).astype("float64").to_numpy(na_value=np.nan)
    bad = ~np.isfinite(w)
    if bad.any():
        where = f"The weight column {name} of {func}"
        fix = "Weights must be known for every record."
        raise incomplete_column_error(where, bad, df.index, func, fix, what="missing or infinite")
    neg = w < 0
    if neg.any():
        shown = ", ".join(
            f"{r!r}: {v:g}" for r, v in zip(df.index[neg][:5], w[neg][:5], strict=True)
        )
        raise DataValidationError(
            f"The weight column {name} of {func} has {int(neg.sum())} negative value(s) "
            f"(first rows: {shown}). Sampling weights must be >= 0.",
            failure_cases=list(df.index[neg]),
            func=func,
        )
    if len(w) and not w.any():
        raise DataValidationError(
            f"The weight column {name} of {func} is 0 for every record: Fk would be 0 for every "
            "key. Sampling weights say how many people a record stands for (usually >= 1).",
            func=func,
        )
    return w


def _aligned_weights(df: pd.DataFrame, weights: pd.Series, func: str) -> pd.Series:
    """A weight Series whose index holds the labels of ``df`` in another order, put in
    the order of ``df`` (by label, as pandas aligns); any other index is refused, since
    taking it by position would give records the weights of others."""
    if (
        len(weights) == len(df)
        and weights.index.is_unique
        and df.index.is_unique
        and weights.index.isin(df.index).all()
    ):
        return weights.reindex(df.index)
    absent = list(weights.index[~weights.index.isin(df.index)][:5])
    raise DataValidationError(
        f"The weights Series of {func} is indexed otherwise than the data"
        + (f" (labels not in the data: {absent})" if absent else "")
        + ": give one weight per record with the data's index, or pass "
        "weights.to_numpy() to take them in the order of the records.",
        func=func,
    )


def prepare_with_k(
    df: Any,
    quasi_identifiers: Any,
    k: Any,
    missing: Any,
    weights: Any,
    missing_values: MissingValues,
    func: str,
    *,
    with_k: bool = True,
) -> tuple[Any, EncodedQIs, Policy, np.ndarray | None]:
    """``k`` checked (an int >= 1; not looked at when ``with_k`` is False), then the
    frame, the policy, the encoded QIs and the weights, the errors naming ``func``: the
    key rows of a pandas frame (:func:`key_rows`), and the start of
    :func:`~microsdc.risk.safe_combinations.safe_combinations` and (without k)
    :func:`frequencies_for` on pandas."""
    if with_k:
        k = check_int(k, "k", func, min_value=1)
    check_frame(df, "df", func)
    policy = parse_policy(missing, func)
    enc = encode_qis(df, quasi_identifiers, missing_values=missing_values, func=func)
    check_weight_apart(weights, enc.columns, func)
    w = _weights(df, weights, func)
    return k, enc, policy, w


def frequencies_for(
    df: pd.DataFrame,
    quasi_identifiers: Any,
    missing: Any,
    weights: Any,
    missing_values: MissingValues,
    func: str,
) -> tuple[np.ndarray, np.ndarray | None]:
    """``fk`` and ``Fk`` (None without weights) per record, the errors naming ``func``."""
    _, enc, policy, w = prepare_with_k(
        df, quasi_identifiers, None, missing, weights, missing_values, func, with_k=False
    )
    return row_frequencies(enc.codes, enc.n_categories, policy=policy, weights=w)
