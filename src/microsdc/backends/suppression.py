"""Local suppression of polars ``LazyFrame``, DuckDB relations and Spark DataFrames, on
distinct patterns.

The engine groups the rows by the strata and quasi-identifiers (missing values
kept as a group), counts them and notes the position of each pattern's first
row. microsdc runs the same greedy as on pandas on those patterns, each
standing for its records, and the engine blanks the cells with a null-safe
join on the patterns that changed: every record of a pattern gets the
pattern's released values. Rows never enter Python and the result stays lazy.

The greedy is deterministic given the patterns, their numbers of records and,
to break ties between patterns at risk with the same fk and as many observed
cells, the position of their first row. polars, DuckDB and Spark number the
rows in the order they yield them (a ``LazyFrame``'s order; a DuckDB scan's
insertion order; Spark's partitions in order, ``monotonically_increasing_id``),
so the decisions are those pandas takes on the same rows in that order. An
engine without a row order breaks those ties by the patterns' values instead:
the result still reaches k, with possibly other cells.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from microsdc._validation import check_columns
from microsdc.backends import Backend
from microsdc.backends.frequencies import sql_name
from microsdc.encode import MissingValues, encode_qis
from microsdc.exceptions import DataValidationError, InvalidParameterError
from microsdc.risk._policy import Policy
from microsdc.suppression.local import SuppressionResult

__all__ = ["LazySuppressionResult", "local_suppression_lazy"]

_FUNC = "local_suppression"
_N = "__microsdc_records"
_ROW = "__microsdc_row"
_FIRST = "__microsdc_first"
_BLANK = "__microsdc_blank"


@dataclass(frozen=True, repr=False)
class LazySuppressionResult(SuppressionResult):
    """What local suppression did to a lazy frame (polars ``LazyFrame``, DuckDB relation).

    The fields of :class:`~microsdc.suppression.SuppressionResult`, with
    ``data`` the caller's kind of lazy frame (same columns and types; blanked
    cells are null, an integer column stays an integer column) and the
    record-level figures given per distinct pattern, since the rows stay in the
    engine:

    Attributes
    ----------
    patterns : pandas.DataFrame
        One row per distinct (strata and) QI tuple the engine reported: the
        strata and QI values as given, ``records`` (how many records carry
        it), ``fk_before``, ``fk_after`` and ``cells`` (cells blanked in each
        of its records). On the combined-key route (a DuckDB relation with
        integer QIs of small range, see :mod:`microsdc.backends.keyed`) only
        the patterns at risk before suppression are listed, a missing value
        shown as missing whatever its code; every other pattern keeps its
        cells and reaches k.
    n_patterns : int
        Distinct QI tuples in the input (all of them, also when ``patterns``
        lists only those at risk).
    cells_per_row, fk_before, fk_after : pandas.Series, indexed like ``patterns``
        Per pattern (each stands for ``patterns["records"]`` records).
    true_fk : pandas.Series of int, indexed by the suppressed patterns
    prosecutor_before, prosecutor_after : None
        The prosecutor risk needs the records; it is not computed.

    ``n_rows``, ``n_cells`` and ``n_rows_suppressed`` count records (each
    pattern times its records), as on pandas.
    """

    patterns: pd.DataFrame = field(default_factory=pd.DataFrame)
    n_records_total: int | None = None
    n_patterns_total: int | None = None

    @property
    def n_rows(self) -> int:
        """Number of records of the input."""
        if self.n_records_total is not None:
            return self.n_records_total
        return int(self.patterns["records"].sum()) if len(self.patterns) else 0

    @property
    def n_patterns(self) -> int:
        """Number of distinct QI tuples (and strata) of the input."""
        return len(self.patterns) if self.n_patterns_total is None else self.n_patterns_total

    @property
    def n_rows_suppressed(self) -> int:
        """Number of records with at least one blanked cell."""
        p = self.patterns
        return int(p["records"][p["cells"] > 0].sum()) if len(p) else 0

    def n_true_fk_below(self, k: int) -> int:
        """Suppressed records whose true values match fewer than ``k`` released records."""
        records = self.patterns["records"].reindex(self.true_fk.index)
        return int(records[self.true_fk < k].sum())

    def __repr__(self) -> str:
        return "Lazy" + super().__repr__()


# --------------------------------------------------------------------------- checks


def _schema(nwf: Any) -> Any:
    import narwhals as nw

    return nwf.collect_schema() if isinstance(nwf, nw.LazyFrame) else nwf.schema


def _refuse(option: str, why: str) -> InvalidParameterError:
    return InvalidParameterError(
        f"The '{option}' parameter of {_FUNC} is not supported on a lazy frame: {why}. "
        "Collect the frame first (polars: .collect(); DuckDB: .pl() or .df(); Spark: "
        ".toPandas(), or .toArrow() for a pyarrow table) to use it."
    )


def _check(
    names: list[str],
    qi: Any,
    k: Any,
    importance: Any,
    combs: Any,
    strata: Any,
    missing: Any,
    method: Any,
    subject_id: Any,
    missing_values: Any,
    time_limit: Any,
    linked: Any,
) -> tuple[Policy, list[Hashable], list[tuple[int, int]], Any, Any, list[Hashable]]:
    """The checks of the pandas route against the schema, in the same order, then the
    options that need the records. No row is read."""
    from microsdc.suppression.local import check_call

    stand_in = pd.DataFrame(columns=pd.Index(names, dtype=object))
    checked = check_call(
        stand_in,
        qi,
        k,
        importance,
        combs,
        strata,
        missing,
        method,
        time_limit,
        linked,
        subject_id,
        values=False,
    )
    policy, method, cols, jobs_spec, k_report, imp, strata_cols, _ = checked
    if subject_id is not None:
        check_columns(stand_in, [subject_id], "subject_id", _FUNC)
    if isinstance(missing_values, Mapping):
        unknown = [c for c in missing_values if c not in set(names)]
        if unknown:
            raise InvalidParameterError(
                f"The 'missing_values' parameter of {_FUNC} names columns not in the data: "
                f"{', '.join(repr(c) for c in unknown)}."
            )
    if method != "greedy":
        raise _refuse(
            "method",
            f"method={method!r} works on the records"
            + (" (random blanks per record)" if method == "random" else " (small instances)")
            + "; method='greedy' works on patterns",
        )
    if policy.kind in ("category", "probabilistic"):
        raise _refuse(
            "missing",
            f"missing={policy.label!r} suppression works record by record (identical records "
            "can get different blanks); 'wildcard' or an alpha work on patterns",
        )
    if subject_id is not None:
        raise _refuse("subject_id", "subjects are collapsed from their records")
    if linked is not None:
        raise _refuse("linked", "blanking linked columns needs their values per record")
    return policy, cols, jobs_spec, k_report, imp, strata_cols


# --------------------------------------------------------------------------- engine side


def _aggregate_first(df: Any, backend: Backend, keys: list[str]) -> tuple[Any, bool]:
    """One row per distinct key tuple (missing kept): its records and first row position.

    Returns the pyarrow table and whether the engine gave row positions.
    """
    import narwhals as nw

    if backend.name == "polars":
        numbered: Any = df.select(keys).with_row_index(_ROW)
    elif backend.name == "DuckDB":
        from microsdc.backends.frequencies import DUCKDB_VIEW, duckdb_group

        # a scan yields its rows in insertion order; row_number() OVER () follows it
        cols = ", ".join(sql_name(c) for c in keys)
        inner = f"SELECT {cols}, row_number() OVER () - 1 AS {_ROW} FROM {DUCKDB_VIEW}"
        table = duckdb_group(df, keys, f"count(*) AS {_N}, min({_ROW}) AS {_FIRST}", inner)
        return table, True
    elif backend.name == "PySpark":
        from microsdc.backends.spark import aggregate_first

        return aggregate_first(df, keys, _N, _FIRST), True
    else:
        from microsdc.backends.frequencies import _aggregate

        return _aggregate(nw.from_native(df), list(keys), None), False
    grouped = (
        nw.from_native(numbered)
        .group_by(*keys, drop_null_keys=False)
        .agg(nw.len().alias(_N), nw.col(_ROW).min().alias(_FIRST))
    )
    if isinstance(grouped, nw.LazyFrame):
        grouped = grouped.collect(backend="pyarrow")
    return grouped.to_arrow(), True


def _blank_back(
    df: Any, backend: Backend, keys: list[str], names: list[str], table: Any, blank: Any
) -> Any:
    """``df`` with the cells of ``blank`` (patterns x QIs) set to null, lazily.

    Only the patterns with a blanked cell travel to the engine; a left join on
    the keys (missing == missing) flags their records, and each QI becomes
    ``CASE WHEN flagged THEN NULL ELSE value END``, which keeps its type.
    """
    import narwhals as nw
    import pyarrow as pa

    from microsdc.backends.frequencies import _join_back

    qi_names: list[str] = list(blank.columns)
    b = blank.to_numpy(dtype=bool)
    hit = np.flatnonzero(b.any(axis=1))
    if not len(hit):
        return df
    used = [j for j in range(b.shape[1]) if b[hit, j].any()]
    right = table.select(keys).take(pa.array(hit))
    flags: dict[str, str] = {}
    for i, j in enumerate(used):
        flag = f"{_BLANK}{i}"
        flags[qi_names[j]] = flag
        # True where blanked, null elsewhere: unmatched records and kept cells read alike
        flagged = b[hit, j]
        right = right.append_column(flag, pa.array(flagged, mask=~flagged, type=pa.bool_()))
    joined = nw.from_native(_join_back(df, backend, list[Hashable](keys), right))
    exprs = [
        nw.when(nw.col(flags[c]).is_null()).then(nw.col(c)).alias(c) if c in flags else nw.col(c)
        for c in names
    ]
    return joined.select(*exprs).to_native()


# --------------------------------------------------------------------------- microsdc side


def _units(
    codes: np.ndarray, records: np.ndarray, first: np.ndarray, nc: np.ndarray, cost: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The greedy's units of weighted patterns: as
    :func:`microsdc.suppression._engine.distinct_patterns` on the records."""
    from microsdc.suppression._engine import distinct_patterns

    units, inverse, _, _ = distinct_patterns(codes, nc, cost)
    counts = np.rint(np.bincount(inverse, weights=records, minlength=len(units))).astype(np.int64)
    ufirst = np.full(len(units), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(ufirst, inverse, first)
    return units, inverse, counts, ufirst


def _fk(codes: np.ndarray, records: np.ndarray, nc: np.ndarray, policy: Policy) -> np.ndarray:
    """fk of each pattern, each counted ``records`` times."""
    from microsdc.suppression._engine import distinct_patterns, fk_of_units

    if not len(codes):
        return np.zeros(0)
    units, inverse, _, _ = distinct_patterns(codes, nc)
    counts = np.rint(np.bincount(inverse, weights=records, minlength=len(units))).astype(np.int64)
    return fk_of_units(units, nc, policy, counts)[inverse]


def _risk(
    codes: np.ndarray,
    records: np.ndarray,
    nc: np.ndarray,
    policy: Policy,
    jobs: Sequence[tuple[tuple[int, ...], int]],
) -> np.ndarray:
    risk = np.zeros(len(codes), dtype=bool)
    for cols, k in jobs:
        cl = list(cols)
        risk |= _fk(np.ascontiguousarray(codes[:, cl]), records, nc[cl], policy) < k
    return risk


def _reach_k(
    codes: np.ndarray,
    records: np.ndarray,
    first: np.ndarray,
    nc: np.ndarray,
    jobs: Sequence[tuple[tuple[int, ...], int]],
    costs: Any,
    policy: Policy,
    fk_start: np.ndarray | None,
    progress: Callable[[int, int], None] | None,
) -> np.ndarray | None:
    """:func:`microsdc.suppression._engine.reach_k` on weighted patterns (in place)."""
    from microsdc.exceptions import SDCError
    from microsdc.suppression._engine import _reach_k_units

    single = len(jobs) == 1
    known = fk_start if single else None
    for _ in range(int(records.sum()) * codes.shape[1] + 2):
        all_ok = True
        for cols, k in jobs:
            cl = list(cols)
            sub_costs = costs.subset(cl)
            units, inverse, counts, ufirst = _units(
                np.ascontiguousarray(codes[:, cl]), records, first, nc[cl], sub_costs.weight
            )
            known_units = None
            if known is not None:
                known_units = np.zeros(len(units), dtype=known.dtype)
                known_units[inverse] = known
            known = None
            changed, fk_units = _reach_k_units(
                units,
                counts,
                ufirst,
                np.asarray(nc[cl], dtype=np.int64),
                k,
                sub_costs,
                policy,
                1,
                known_units,
                single,
                progress,
            )
            if changed:
                all_ok = False
                codes[:, cl] = units[inverse]
            if single:
                return np.asarray(fk_units)[inverse]
        if all_ok:
            return None
    raise SDCError("Local suppression did not converge; please report this.")


def _true_fk(
    codes0: np.ndarray, codes: np.ndarray, records: np.ndarray, nc: np.ndarray
) -> np.ndarray:
    """Records of ``codes`` (weighted) compatible with each row of ``codes0`` (wildcard)."""
    from microsdc._kernels.greedy_bitset import support_bitset
    from microsdc._kernels.greedy_wildcard import support_many
    from microsdc._kernels.masktables import key_layout
    from microsdc.suppression._engine import bitset_fits, distinct_patterns

    units, inverse, _, _ = distinct_patterns(codes, nc)
    wt = np.rint(np.bincount(inverse, weights=records, minlength=len(units))).astype(np.int64)
    t_units, t_inv, _, _ = distinct_patterns(codes0, nc)
    if bitset_fits(len(units), nc):
        return np.asarray(support_bitset(units, nc, wt, t_units))[t_inv]
    word_of, mult, n_words = key_layout(nc)
    return np.asarray(support_many(units, t_units, word_of, mult, n_words, wt))[t_inv]


def _strata_groups(patterns: pd.DataFrame, strata_cols: list[Hashable]) -> list[np.ndarray]:
    from microsdc.suppression.local import _strata_groups as groups

    return groups(patterns, strata_cols)


def local_suppression_lazy(
    df: Any,
    qi: Sequence[Hashable],
    k: int | Sequence[int],
    *,
    importance: Any = None,
    combs: Any = None,
    strata: Any = None,
    missing: Any = "wildcard",
    method: str = "greedy",
    subject_id: Hashable | None = None,
    subject_rule: str = "mode",
    missing_values: MissingValues = None,
    time_limit: float = 60.0,
    seed: Any = None,
    progress: Callable[[int, int], None] | None = None,
    linked: Any = None,
) -> LazySuppressionResult:
    """:func:`microsdc.local_suppression` on a lazy frame (polars ``LazyFrame``, DuckDB
    relation): the engine groups and joins, microsdc decides on the patterns.

    Parameters and errors are those of :func:`microsdc.local_suppression`; the
    options that need the records are refused with an
    :class:`~microsdc.exceptions.InvalidParameterError` naming them:
    ``method`` other than ``"greedy"``, ``missing`` ``"category"`` or
    ``"probabilistic"``, ``subject_id`` and ``linked``. Every check on the
    parameters and columns comes before the engine reads a row; missing values
    in a strata column and k above the records of a stratum are found from the
    patterns. The check that other columns give blanked values back
    (``DisclosureRiskWarning`` on pandas) needs the records and is not run.

    Returns
    -------
    LazySuppressionResult
    """
    import narwhals as nw

    from microsdc.backends import detect_backend

    t0 = time.perf_counter()
    backend = detect_backend(df, _FUNC)
    nwf = nw.from_native(df)
    names = [str(c) for c in _schema(nwf).names()]
    policy, cols, jobs_spec, k_report, imp, strata_cols = _check(
        names,
        qi,
        k,
        importance,
        combs,
        strata,
        missing,
        method,
        subject_id,
        missing_values,
        time_limit,
        linked,
    )
    if backend.name == "DuckDB" and not strata_cols and combs is None:
        keyed = _keyed(df, names, cols, missing_values, policy, k_report, imp, progress, t0)
        if keyed is not None:
            return keyed
    keys = [str(c) for c in [*strata_cols, *cols]]
    table, ordered = _aggregate_first(df, backend, keys)
    from microsdc.backends.frequencies import to_pandas

    patterns = to_pandas(table)
    for c in strata_cols:
        bad = patterns[str(c)].isna().to_numpy()
        if bad.any():
            raise DataValidationError(
                f"The stratum column {c!r} of {_FUNC} has "
                f"{int(patterns[_N].to_numpy()[bad].sum())} missing value(s). "
                "Every record needs a known stratum."
            )
    mv = (
        {c: v for c, v in missing_values.items() if c in set(cols)}
        if isinstance(missing_values, Mapping)
        else missing_values
    )
    enc = encode_qis(patterns, cols, missing_values=mv, func=_FUNC)
    records = patterns[_N].to_numpy(dtype=np.float64)
    p, m = enc.codes.shape
    ncat = np.asarray(enc.n_categories, dtype=np.int64)
    codes0 = np.ascontiguousarray(enc.codes, dtype=np.int64)
    codes = codes0.copy()
    first = patterns[_FIRST].to_numpy(dtype=np.int64) if ordered else np.zeros(p, dtype=np.int64)
    from microsdc.suppression.local import _costs

    costs = _costs(imp, cols, ncat)
    jobs = [(sub, kk) for size, kk in jobs_spec for sub in combinations(range(m), size)]
    groups = _strata_groups(patterns, strata_cols)
    groups.sort(key=lambda rows: int(first[rows].min()) if len(rows) else 0)  # pandas' order
    max_k = max(kk for _, kk in jobs_spec)
    for rows in groups:
        n_rows = int(records[rows].sum())
        if 0 < n_rows < max_k:
            where = "the data have" if not strata_cols else "a stratum has"
            raise InvalidParameterError(
                f"The 'k' parameter of {_FUNC} must be at most the number of records: "
                f"{where} {n_rows} record(s) and k={max_k}; no suppression can reach it."
            )
    single = len(jobs) == 1 and len(jobs[0][0]) == m
    fk_before = np.zeros(p)
    fk_after = np.zeros(p)
    risk_before = np.zeros(p, dtype=bool)
    risk_after = np.zeros(p, dtype=bool)
    true_fk = np.zeros(p, dtype=np.int64)
    for rows in groups:
        sub = np.ascontiguousarray(codes[rows])
        w = records[rows]
        fkb = _fk(sub, w, ncat, policy)
        fk_before[rows] = fkb
        rb = fkb < jobs[0][1] if single else _risk(sub, w, ncat, policy, jobs)
        risk_before[rows] = rb
        fka = fkb
        if rb.any():
            done = _reach_k(
                sub, w, first[rows], ncat, jobs, costs, policy, fkb if single else None, progress
            )
            fka = done if done is not None else _fk(sub, w, ncat, policy)
            codes[rows] = sub
            hit = np.flatnonzero(((sub < 0) & (codes0[rows] >= 0)).any(axis=1))
            if len(hit):
                true_fk[rows[hit]] = _true_fk(codes0[rows][hit], sub, w, ncat)
        fk_after[rows] = fka
        risk_after[rows] = fka < jobs[0][1] if single else _risk(sub, w, ncat, policy, jobs)
    blank = (codes < 0) & (codes0 >= 0)
    blank_frame = pd.DataFrame(blank, columns=pd.Index([str(c) for c in cols], dtype=object))
    data = _blank_back(df, backend, keys, names, table, blank_frame)
    return _lazy_result(
        data,
        patterns,
        keys,
        cols,
        k_report,
        policy,
        blank,
        records,
        fk_before,
        fk_after,
        true_fk,
        risk_before,
        risk_after,
        None if combs is None else [s for s, _ in jobs_spec],
        time.perf_counter() - t0,
    )


def _keyed(
    rel: Any,
    names: list[str],
    cols: list[Hashable],
    missing_values: MissingValues,
    policy: Policy,
    k: int,
    imp: Any,
    progress: Callable[[int, int], None] | None,
    t0: float,
) -> LazySuppressionResult | None:
    """The combined-key route (:mod:`microsdc.backends.keyed_suppression`) when it
    applies: wildcard policy, integer QIs of small range, no strata or combs."""
    if policy.kind != "wildcard":
        return None
    from microsdc.backends.keyed import plan_keys
    from microsdc.backends.keyed_suppression import keyed_suppression
    from microsdc.suppression._engine import bitset_fits

    plan = plan_keys(rel, cols, missing_values, policy, False)
    if plan is None or bitset_fits(plan.n_rows, plan.base - 1):
        return None  # no key route, or few enough patterns for the bit-set greedy
    if plan.n_rows < k:
        raise InvalidParameterError(
            f"The 'k' parameter of {_FUNC} must be at most the number of records: "
            f"the data have {plan.n_rows} record(s) and k={k}; no suppression can reach it."
        )
    from microsdc.backends.keyed import warn_unobserved

    warn_unobserved(plan, cols, stacklevel=5)
    result = keyed_suppression(rel, plan, names, cols, k, imp, policy, progress, t0)
    assert result is None or isinstance(result, LazySuppressionResult)
    return result


def _lazy_result(
    data: Any,
    patterns: pd.DataFrame,
    keys: list[str],
    cols: list[Hashable],
    k: Any,
    policy: Policy,
    blank: np.ndarray,
    records: np.ndarray,
    fk_before: np.ndarray,
    fk_after: np.ndarray,
    true_fk: np.ndarray,
    risk_before: np.ndarray,
    risk_after: np.ndarray,
    combs: list[int] | None,
    seconds: float,
    details: dict[str, Any] | None = None,
    n_records_total: int | None = None,
    n_patterns_total: int | None = None,
) -> LazySuppressionResult:
    n = records.astype(np.int64)
    dtype: Any = "float64" if policy.fractional else "int64"
    cells = blank.sum(axis=1).astype(np.int64)
    table = patterns[keys].copy()
    table["records"] = n
    table["fk_before"] = pd.Series(fk_before, index=table.index).astype(dtype)
    table["fk_after"] = pd.Series(fk_after, index=table.index).astype(dtype)
    table["cells"] = cells
    per_qi = pd.Series(
        (blank * n[:, None]).sum(axis=0).astype(np.int64),
        index=pd.Index(cols, dtype=object),
        name="cells",
    )
    hit = np.flatnonzero(cells > 0)
    return LazySuppressionResult(
        data=data,
        qi=list(cols),
        k=k,
        missing=policy.label,
        method="greedy",
        cells_per_qi=per_qi,
        cells_per_row=table["cells"].rename("cells"),
        fk_before=table["fk_before"].rename("fk"),
        fk_after=table["fk_after"].rename("fk"),
        true_fk=pd.Series(true_fk[hit], index=table.index[hit], name="true_fk", dtype="int64"),
        n_at_risk_before=int(n[risk_before].sum()),
        n_at_risk_after=int(n[risk_after].sum()),
        combs=combs,
        seconds=seconds,
        details={} if details is None else details,
        patterns=table,
        n_records_total=n_records_total,
        n_patterns_total=n_patterns_total,
    )
