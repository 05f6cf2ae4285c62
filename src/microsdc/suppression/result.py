"""What local suppression did: :class:`SuppressionResult` for a pandas frame and
:class:`LazySuppressionResult` for an engine's frame (figures per distinct pattern)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import Policy

__all__ = [
    "LazySuppressionResult",
    "SuppressionResult",
    "intruder_lines",
    "lazy_result",
    "record_result",
]


@dataclass(frozen=True)
class SuppressionResult:
    """What local suppression did.

    Attributes
    ----------
    data : pandas.DataFrame
        The released frame: same index, columns and row order as the input;
        suppressed cells are missing, every other cell is unchanged. A column
        that received a missing value and could not hold one changes to the
        matching nullable dtype (``int64`` -> ``Int64``, ``bool`` -> ``boolean``).
    qi : list
        The quasi-identifiers.
    k : int or list of int
        The requested k (one per entry of ``combs`` when given so).
    missing : str
        The missing-value policy, e.g. ``"wildcard"`` or ``"alpha=0.5"``.
    method : str
        ``"greedy"``, ``"exact"`` (or ``"random"`` for the baseline).
    cells_per_qi : pandas.Series of int, indexed by QI name
        Cells blanked in each quasi-identifier.
    cells_per_row : pandas.Series of int, indexed like the input
        Cells blanked in each record.
    fk_before, fk_after : pandas.Series, indexed like the input
        Sample frequency on all the QIs under ``missing``, before and after
        (within the stratum when ``strata`` is used; per subject when
        ``subject_id`` is used, repeated on every row of the subject).
    true_fk : pandas.Series of int, indexed by the suppressed records
        For each record with a blanked cell, the number of released records
        whose every non-missing QI value equals the record's original value:
        the frequency an intruder who knows the true values sees. It can be
        below k although ``fk_after`` is not.
    n_at_risk_before, n_at_risk_after : int
        Records at risk before and after under the requested guarantee (every
        QI subset of ``combs`` with its k, when given).
    combs : list of int or None
    seconds : float
        Wall-clock time of the computation.
    details : dict
        With ``method="exact"``: ``solution``, which solution was released
        (``"solver"``; ``"greedy"`` or ``"blank_records"`` when the solver
        found nothing cheaper within the time limit; ``"mixed"`` over strata),
        ``optimal`` (proved by the solver) and ``strata`` (per stratum:
        ``cells``, ``greedy_cells``, ``solver_cells``, ``objective``, ``status``).
        With alpha < 1 and records at risk: ``solution``, ``"greedy"`` or
        ``"category"`` (the ``missing="category"`` solution, released when it
        passes the alpha check and costs less; ``"mixed"`` over strata).
        Further figures: ``linked_cells`` ({linked column: cells blanked with
        its key variable}, when ``linked`` is given) and ``recoverable`` (the
        (key variable, column) pairs through which blanked values can still be
        read back, see :func:`microsdc.risk.linked.recoverable_cells`; empty
        when none; on a lazy frame found by the engine on counts, with the same
        result); per-subject figures with
        ``subject_id``; ``dis_suda``
        with a ``dis_suda_threshold`` (the threshold, the rule of
        :func:`microsdc.suda` used, the highest DIS-SUDA score and the records
        above the threshold before and after, the rounds, and which release was
        taken: ``solution``, ``"rounds"`` or ``"k2"`` (the k = 2 release, when it
        costs less), with ``cells_rounds``, ``cost_rounds``, ``cells_k2`` and
        ``cost_k2``; see :func:`~microsdc.local_suppression`).
    prosecutor_before, prosecutor_after : pandas.Series of float in [0, 1] or None
        Per record, the probability that an intruder who knows the record's true
        QI values picks its released record, before and after suppression
        (see :func:`microsdc.risk.prosecutor_risk`; within the stratum when
        ``strata`` is used). Blank cells of other records count only with the
        share of the person's value, so blank records cannot lower it much.
    """

    data: pd.DataFrame
    qi: list[Hashable]
    k: int | list[int]
    missing: str
    method: str
    cells_per_qi: pd.Series
    cells_per_row: pd.Series
    fk_before: pd.Series
    fk_after: pd.Series
    true_fk: pd.Series
    n_at_risk_before: int
    n_at_risk_after: int
    combs: list[int] | None = None
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)
    prosecutor_before: pd.Series | None = None
    prosecutor_after: pd.Series | None = None

    def __repr__(self) -> str:
        return (
            f"SuppressionResult(method={self.method!r}, k={self.k!r}, missing={self.missing!r}, "
            f"n_rows={self.n_rows:,}, qi={[str(q) for q in self.qi]!r}, "
            f"n_cells={self.n_cells:,}, n_rows_suppressed={self.n_rows_suppressed:,}, "
            f"at_risk={self.n_at_risk_before:,} -> {self.n_at_risk_after:,})"
        )

    def __str__(self) -> str:
        return self.summary()

    @property
    def n_cells(self) -> int:
        """Total number of cells blanked."""
        return int(self.cells_per_qi.sum())

    @property
    def n_rows(self) -> int:
        """Number of records of the input."""
        return len(self.data)

    def n_true_fk_below(self, k: int) -> int:
        """Suppressed records whose true values match fewer than ``k`` released records."""
        return int((self.true_fk < k).sum())

    @property
    def n_rows_suppressed(self) -> int:
        """Number of records with at least one blanked cell."""
        return int((self.cells_per_row > 0).sum())

    def record_weights(self) -> np.ndarray | None:
        """Records behind each entry of the per-record figures (None: one each)."""
        return None

    def intruder(self) -> dict[str, Any] | None:
        """The headline: records an intruder who knows their key values picks with
        probability above 1/k, and the highest such probability, before and after.

        Returns
        -------
        dict or None
            ``{"before": {...}, "after": {...}}``, each from
            :func:`microsdc.risk.prosecutor.prosecutor_figures` (``n_above_1_over_k``,
            ``max``, ``mean``); None when the prosecutor risk was not computed.
        """
        if self.prosecutor_before is None or self.prosecutor_after is None:
            return None
        from microsdc.risk.prosecutor import prosecutor_figures

        k, w = _min_k(self.k), self.record_weights()
        return {
            "before": prosecutor_figures(self.prosecutor_before, k, w),
            "after": prosecutor_figures(self.prosecutor_after, k, w),
        }

    def summary(self) -> str:
        """A short plain-text report, the intruder's figures first."""
        lines = [
            f"Local suppression ({self.method}, k={self.k}, missing={self.missing}"
            + (f", combs={self.combs}" if self.combs else "")
            + ")",
        ]
        lines.extend(intruder_lines(self.intruder(), _min_k(self.k)))
        lines += [
            f"  records at risk ({self.missing} count): {self.n_at_risk_before:,} before, "
            f"{self.n_at_risk_after:,} after",
            f"  cells blanked:   {self.n_cells:,} in {self.n_rows_suppressed:,} records",
        ]
        dis = self.details.get("dis_suda")
        if dis:
            lines.append(
                f"  records with DIS-SUDA above {dis['threshold']:g}: "
                f"{dis['n_above_before']:,} before, {dis['n_above_after']:,} after "
                f"(highest {dis['max_before']:.4f} -> {dis['max_after']:.4f})"
            )
            if dis.get("solution") == "k2":
                lines.append(
                    f"  released: the k = 2 solution ({dis['cells_k2']:,} cells; the rounds "
                    f"blanked {dis['cells_rounds']:,}), which has no special unique"
                )
        width = max((len(str(c)) for c in self.cells_per_qi.index), default=0)
        for name, count in self.cells_per_qi.items():
            lines.append(f"    {name!s:<{width}}  {int(count):,}")
        for name, count in self.details.get("linked_cells", {}).items():
            lines.append(f"  linked column {name}: {int(count):,} cells blanked with its key")
        for r in self.details.get("recoverable", []):
            lines.append(
                f"  warning: {r['n_recoverable']:,} blanked {r['key_variable']} cells can be "
                f"read back from {r['column']}"
            )
        if len(self.true_fk):
            below = self.n_true_fk_below(_min_k(self.k))
            lines.append(
                f"  suppressed records whose true values match fewer than k released "
                f"records: {below:,}"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable figures (no data values)."""
        return {
            "method": self.method,
            "k": self.k,
            "missing": self.missing,
            "combs": self.combs,
            "quasi_identifiers": [str(q) for q in self.qi],
            "n_rows": self.n_rows,
            "n_cells": self.n_cells,
            "n_rows_suppressed": self.n_rows_suppressed,
            "cells_per_qi": {str(k): int(v) for k, v in self.cells_per_qi.items()},
            "n_at_risk_before": self.n_at_risk_before,
            "n_at_risk_after": self.n_at_risk_after,
            "true_fk_below_k": self.n_true_fk_below(_min_k(self.k)),
            "linked_cells": dict(self.details.get("linked_cells", {})),
            "recoverable": _recoverable(self.details.get("recoverable", [])),
            "prosecutor_risk": self.intruder(),
            "dis_suda": dict(self.details["dis_suda"]) if "dis_suda" in self.details else None,
            "seconds": round(self.seconds, 4),
        }


def intruder_lines(figures: dict[str, Any] | None, k: int) -> list[str]:
    """The headline as text lines: records above 1/k before -> after, highest risk."""
    if figures is None:
        return ["  records an intruder who knows their key values picks: not computed"]
    b, a = figures["before"], figures["after"]
    return [
        f"  records an intruder who knows their key values picks with probability above "
        f"1/{k}: {b['n_above_1_over_k']:,} before -> {a['n_above_1_over_k']:,} after",
        f"  highest such probability: {b['max']:.2f} -> {a['max']:.2f}",
    ]


def _recoverable(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``details["recoverable"]`` for JSON."""
    return [{k: (v if isinstance(v, int | float) else str(v)) for k, v in r.items()} for r in found]


def _min_k(k: int | list[int]) -> int:
    return int(min(k)) if isinstance(k, list) else int(k)


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
        of its records). Under ``missing="category"`` the records of one tuple
        may be released differently (some blanked, others not): the tuple then
        has one row per way its records were released (a *piece*: pattern x
        released tuple), each with its own ``records``, ``fk_after``,
        ``cells``, ``true_fk`` and prosecutor risk; its values, ``fk_before``
        and the prosecutor risk before repeat on each. ``n_patterns`` still
        counts the distinct tuples. On the combined-key route (a DuckDB relation with
        integer QIs of small range, see :mod:`microsdc.backends.keyed`) only
        the patterns at risk before suppression are listed, a missing value
        shown as missing whatever its code; every other pattern keeps its
        cells and reaches k.
    n_patterns : int
        Distinct QI tuples in the input (all of them, also when ``patterns``
        lists only those at risk).
    cells_per_row, fk_before, fk_after : pandas.Series, indexed like ``patterns``
        Per row of ``patterns`` (each stands for ``patterns["records"]`` records).
    true_fk : pandas.Series of int, indexed by the suppressed rows of ``patterns``
    prosecutor_before, prosecutor_after : pandas.Series or None
        Per row of ``patterns``, the prosecutor risk of each of its records (every
        record of a row has the same); None on the combined-key route, which does
        not list every pattern.
    blanked : pandas.DataFrame of bool, indexed like ``patterns``
        One column per quasi-identifier (named as in ``patterns``): whether its cell
        is blanked in the records of the row (the value blanked is the row's value in
        ``patterns``; its ``cells`` is the sum of its flags). Under ``"category"`` a
        declared missing code is a value that can be blanked.

    ``n_rows``, ``n_cells`` and ``n_rows_suppressed`` count records (each
    pattern times its records), as on pandas.

    ``data`` is a plan, not rows: the engine computes the release again at each
    collect (``.collect()``, ``.df()``, ``.fetchall()``, a write). On an input
    with a fixed row order (a table, a Parquet or CSV file, an Arrow or pandas
    frame) every collect gives the same cells. On an input without one (a
    random ``ORDER BY``, a sample in the plan, a Spark frame repartitioned
    without a key) two collects can blank different records of a key
    combination, and together they give back what each one hides. Write the
    release once (``sink_parquet``/``collect().write_parquet`` in polars,
    ``COPY ... TO`` or ``write_parquet`` in DuckDB, ``write.parquet`` in Spark)
    and publish that file.
    """

    patterns: pd.DataFrame = field(default_factory=pd.DataFrame)
    n_records_total: int | None = None
    n_patterns_total: int | None = None
    blanked: pd.DataFrame = field(default_factory=pd.DataFrame)

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

    def record_weights(self) -> np.ndarray | None:
        """Records behind each pattern."""
        return self.patterns["records"].to_numpy(dtype=np.float64) if len(self.patterns) else None

    def n_true_fk_below(self, k: int) -> int:
        """Suppressed records whose true values match fewer than ``k`` released records."""
        records = self.patterns["records"].reindex(self.true_fk.index)
        return int(records[self.true_fk < k].sum())

    def __repr__(self) -> str:
        return "Lazy" + super().__repr__()


# --------------------------------------------------------------------------- checks


def record_result(
    df: pd.DataFrame,
    data: pd.DataFrame,
    cols: list[Hashable],
    k: Any,
    policy: Policy,
    method: str,
    blank: np.ndarray,
    fk_before: np.ndarray,
    fk_after: np.ndarray,
    true_fk: pd.Series,
    n_before: int,
    n_after: int,
    combs: list[int] | None,
    seconds: float,
    details: dict[str, Any] | None = None,
    prosecutor: tuple[pd.Series, pd.Series] | None = None,
) -> SuppressionResult:
    """The :class:`SuppressionResult` of the records of ``df`` (one row each, in row
    order), released as ``data`` with the cells of ``blank`` blanked."""
    per_qi = pd.Series(blank.sum(axis=0).astype(np.int64), index=pd.Index(cols, dtype=object))
    per_qi.name = "cells"
    per_row = pd.Series(blank.sum(axis=1).astype(np.int64), index=df.index, name="cells")
    dtype: Any = "float64" if policy.fractional else "int64"
    return SuppressionResult(
        data=data,
        qi=list(cols),
        k=k,
        missing=policy.label,
        method=method,
        cells_per_qi=per_qi,
        cells_per_row=per_row,
        fk_before=pd.Series(fk_before, index=df.index, name="fk").astype(dtype),
        fk_after=pd.Series(fk_after, index=df.index, name="fk").astype(dtype),
        true_fk=true_fk,
        n_at_risk_before=n_before,
        n_at_risk_after=n_after,
        combs=combs,
        seconds=seconds,
        details=details or {},
        prosecutor_before=None if prosecutor is None else prosecutor[0],
        prosecutor_after=None if prosecutor is None else prosecutor[1],
    )


def lazy_result(
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
    prosecutor: tuple[np.ndarray, np.ndarray] | None = None,
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
        prosecutor_before=None
        if prosecutor is None
        else pd.Series(prosecutor[0], index=table.index, name="prosecutor_risk"),
        prosecutor_after=None
        if prosecutor is None
        else pd.Series(prosecutor[1], index=table.index, name="prosecutor_risk"),
        patterns=table,
        n_records_total=n_records_total,
        n_patterns_total=n_patterns_total,
        blanked=pd.DataFrame(
            np.asarray(blank, dtype=bool), index=table.index, columns=pd.Index(keys[-len(cols) :])
        ),
    )
