"""Local suppression to a DIS-SUDA threshold: blank the cells that make records special
uniques until no released record has a DIS-SUDA score above the threshold.

Each round measures the file as it would be released (:func:`microsdc.suda`), takes
the records above the threshold and blanks one cell of each: the known value whose
variable carries the largest share of the record's SUDA score (the weights of the
record's minimal sample uniques, MSUs, that hold it), per unit of cost (the
importance). The round ends with the k-anonymity step again, since under some
policies a blank can break a class of k. Rounds repeat until a measure of the
released file finds no record above the threshold.

A release with k = 2 on the whole key has no sample unique under the rule the
threshold measures with (:func:`suda_rule`), so it meets any threshold; where the
rounds blanked cells, it is computed too and released when it costs less
(:func:`with_dis_suda`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import Policy
from microsdc.encode import MissingValues, encode_qis
from microsdc.exceptions import InvalidParameterError, SDCError
from microsdc.risk.suda import SudaResult, suda
from microsdc.suppression.result import SuppressionResult

__all__ = [
    "blank_matrix",
    "k2_jobs",
    "suda_rule",
    "to_dis_suda_threshold",
    "with_dis_suda",
]

_FUNC = "local_suppression"


def suda_rule(policy: Policy) -> str:
    """The missing-value rule of :func:`microsdc.suda` that goes with a suppression policy.

    ``"category"`` for the category guarantee (a blank is a value of its own: another
    record's blank never hides a record), ``"wildcard"`` for the measures (a blank
    matches any value, as they count fk).
    """
    return "category" if policy.kind == "category" else "wildcard"


def _measure(
    data: pd.DataFrame,
    cols: list[Hashable],
    strata_cols: list[Hashable],
    rule: str,
    missing_values: MissingValues,
    fraction: float,
) -> SudaResult:
    """SUDA of ``data`` with row positions as labels (DIS sampling fraction ``fraction``)."""
    frame = data[[*cols, *strata_cols]].reset_index(drop=True)
    return suda(
        frame,
        cols,
        missing=rule,  # type: ignore[arg-type]
        strata=strata_cols or None,
        missing_values=missing_values,
        dis_fraction=fraction,
    )


def _known(data: pd.DataFrame, cols: list[Hashable], missing_values: MissingValues) -> np.ndarray:
    """True where a key cell of ``data`` holds a value (not missing under the policy)."""
    enc = encode_qis(data, cols, missing_values=missing_values, func=_FUNC, warn_cardinality=False)
    return np.asarray(enc.codes) >= 0


def _choose(
    res: SudaResult,
    rows: np.ndarray,
    known: np.ndarray,
    cols: list[Hashable],
    cost: np.ndarray,
) -> tuple[np.ndarray, list[int]]:
    """One cell of each record in ``rows``: the known value that carries the largest
    share of the record's score per unit of cost. Returns the cells as a mask and the
    records none of whose known values is in an MSU (their MSUs hold only blanks)."""
    pos = {c: j for j, c in enumerate(cols)}
    big_m = res.max_msu
    blank = np.zeros(known.shape, dtype=bool)
    stuck: list[int] = []
    listed = res.list_msus([int(r) for r in rows])  # row positions are the labels
    for r in (int(r) for r in rows):
        share = np.zeros(len(cols))
        for msu in listed[r]:  # an MSU of size s weighs (M - s)!, as in the score
            w = float(math.factorial(big_m - len(msu)))
            for var in msu:
                share[pos[var]] += w
        share[~known[r]] = 0.0
        if share.max() <= 0.0:
            stuck.append(r)
            continue
        blank[r, int(np.argmax(share / cost))] = True
    return blank, stuck


def _figures(res: SudaResult, threshold: float) -> tuple[float, int]:
    ds = res.scores["dis_suda"].to_numpy()
    return (float(ds.max()) if len(ds) else 0.0), int(np.count_nonzero(ds > threshold))


def to_dis_suda_threshold(
    df: pd.DataFrame,
    data: pd.DataFrame,
    cols: list[Hashable],
    strata_cols: list[Hashable],
    threshold_fraction: tuple[float, float],
    rule: str,
    cost: np.ndarray,
    missing_values: MissingValues,
    k_step: Callable[[pd.DataFrame, int], pd.DataFrame],
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Blank cells of ``data`` (``df`` after the k-anonymity step) until no record has a
    DIS-SUDA score above the threshold of ``threshold_fraction`` (threshold, DIS sampling
    fraction), measured on
    the released file.

    ``k_step(frame, k)`` runs the k-anonymity suppression on ``frame`` (with the
    call's k when ``k`` is 0) and returns the released frame. ``cost`` holds the cost
    of a cell per key variable. Returns the released frame and the figures for
    ``details["dis_suda"]``.

    Raises
    ------
    SDCError
        When a round blanks nothing while records are still above the threshold (it
        cannot happen by the rules above; the error is the guarantee's last check).
    """
    from microsdc.data.blank import blank_cells

    threshold, fraction = threshold_fraction
    max_before, above_before = _figures(
        _measure(df, cols, strata_cols, rule, missing_values, fraction), threshold
    )
    rounds = 0
    while True:
        res = _measure(data, cols, strata_cols, rule, missing_values, fraction)
        rows = np.flatnonzero(res.scores["dis_suda"].to_numpy() > threshold)
        if not len(rows):
            break
        rounds += 1
        known = _known(data, cols, missing_values)
        blank, stuck = _choose(res, rows, known, cols, cost)
        before = int(known.sum())
        if blank.any():
            data = blank_cells(data, cols, blank)
        if stuck:  # MSUs of blanks only (category rule): no record may stay alone
            data = k_step(data, 2)
        data = k_step(data, 0)
        if int(_known(data, cols, missing_values).sum()) == before:
            raise SDCError(
                f"{_FUNC} could not bring {len(rows):,} record(s) to a DIS-SUDA score of "
                f"at most {threshold:g} (highest {float(res.scores['dis_suda'].max()):.4f}): "
                "no cell is left to blank in them. Recode the key variables first.",
                func=_FUNC,
                param="dis_suda_threshold",
                value=threshold,
            )
    max_after, above_after = _figures(res, threshold)
    return data, {
        "threshold": threshold,
        "missing_rule": rule,
        "dis_fraction": fraction,
        "max_before": max_before,
        "max_after": max_after,
        "n_above_before": above_before,
        "n_above_after": above_after,
        "rounds": rounds,
    }


def blank_matrix(
    df: pd.DataFrame, data: pd.DataFrame, cols: Sequence[Hashable], missing_values: MissingValues
) -> np.ndarray:
    """True where a key cell known in ``df`` is missing in ``data``."""
    return _known(df, list(cols), missing_values) & ~_known(data, list(cols), missing_values)


def with_dis_suda(
    df: pd.DataFrame,
    first: SuppressionResult,
    checked: tuple[Any, ...],
    counted: MissingValues,
    threshold: tuple[float, float],
    k_run: Callable[[pd.DataFrame, tuple[Any, ...]], SuppressionResult],
) -> SuppressionResult:
    """``first`` (the k-anonymity step on ``df``) carried on until no record of the
    released file has a DIS-SUDA score above ``threshold`` (threshold, DIS sampling
    fraction); or, when it costs less, the k-anonymity step with k = 2 on the whole key
    (:func:`k2_jobs`), which has no sample unique and so meets any threshold.

    ``checked`` are :func:`~microsdc.suppression.params.check_call`'s values;
    ``k_run(frame, checked)`` runs the k-anonymity step on ``frame``; ``counted`` are
    the declared missing values the policy counts as missing."""
    import time
    from dataclasses import replace

    from microsdc.suppression.core import true_fk_of
    from microsdc.suppression.params import costs_of, strata_groups
    from microsdc.suppression.released import prosecutor_released, true_fk_series

    t0 = time.perf_counter() - first.seconds
    policy, cols, imp, strata_cols = checked[0], checked[2], checked[5], checked[6]
    last = [first]

    def k_step(frame: pd.DataFrame, k: int) -> pd.DataFrame:
        spec = checked if k == 0 else (*checked[:3], [(len(cols), k)], *checked[4:])
        last[0] = k_run(frame, spec)
        return last[0].data

    groups = strata_groups(df, strata_cols)
    _check_lone_records(df, groups, strata_cols, policy, threshold[0])
    enc = encode_qis(df, cols, missing_values=counted, func=_FUNC, warn_cardinality=False)
    ncat = enc.n_categories
    costs = costs_of(imp, cols, ncat)
    data, figures = to_dis_suda_threshold(
        df, first.data, cols, strata_cols, threshold, suda_rule(policy), costs.weight, counted,
        k_step,
    )  # fmt: skip
    blank = blank_matrix(df, data, cols, counted)
    chosen, details = last[0], first.details
    alt = _k2_release(df, checked, counted, threshold, k_run, blank, groups)
    figures.update(_compared(blank, None if alt is None else alt[1], costs))
    if alt is not None and _cheaper(alt[1], blank, costs) and alt[2][1] == 0:
        chosen, blank, details = alt[0], alt[1], alt[0].details
        data = chosen.data
        figures.update(solution="k2", max_after=alt[2][0], n_above_after=alt[2][1])
    codes0 = np.ascontiguousarray(enc.codes, dtype=np.int64)
    codes = np.where(blank, -1, codes0)
    true_fk = np.zeros(len(df), dtype=np.int64)
    for rows in groups:
        true_fk[rows] = true_fk_of(codes0[rows], codes[rows], ncat, None)
    pros = prosecutor_released(df, cols, codes0, codes, ncat, groups, counted, True)
    per_qi = pd.Series(blank.sum(axis=0).astype(np.int64), index=first.cells_per_qi.index)
    return replace(
        first,
        data=data,
        cells_per_qi=per_qi.rename("cells"),
        cells_per_row=pd.Series(blank.sum(axis=1).astype(np.int64), index=df.index, name="cells"),
        fk_after=chosen.fk_after.set_axis(df.index),
        n_at_risk_after=chosen.n_at_risk_after,
        true_fk=true_fk_series(true_fk, blank, df.index),
        prosecutor_after=pros[1],
        seconds=time.perf_counter() - t0,
        details={**details, "dis_suda": figures},
    )


def _check_lone_records(
    df: pd.DataFrame,
    groups: Sequence[np.ndarray],
    strata_cols: list[Hashable],
    policy: Policy,
    threshold: float,
) -> None:
    """Refuse the threshold under ``"category"`` for a stratum (or a file) of one record:
    it is unique on each of its values, blanks included, so its DIS-SUDA score is 1
    (U = 1, P = 0) whatever is blanked.

    Raises
    ------
    InvalidParameterError
        Naming ``dis_suda_threshold`` (and ``strata``), the stratum and the fix.
    """
    lone = [rows for rows in groups if len(rows) == 1]
    if policy.kind != "category" or not lone:
        return
    if strata_cols:
        values = tuple(df[strata_cols].iloc[int(lone[0][0])].tolist())
        label = values[0] if len(values) == 1 else values
        more = f" (and {len(lone) - 1:,} other strata)" if len(lone) > 1 else ""
        where = f"the stratum {label!r} holds a single record{more}"
        fix = "Merge such strata with others, or leave 'strata' out."
    else:
        where, fix = "the file holds a single record", "Suppress a file of more records."
    raise InvalidParameterError(
        f"The 'dis_suda_threshold' parameter of {_FUNC} cannot be met: {where}, which "
        "under missing='category' is unique on each of its values, blanks included, so "
        f"its DIS-SUDA score is 1 whatever is blanked. {fix}",
        func=_FUNC,
        param="dis_suda_threshold",
        requirement="a stratum of at least 2 records under missing='category'",
        value=threshold,
        related=("strata",) if strata_cols else (),
    )


def k2_jobs(jobs: Sequence[tuple[int, int]], m: int) -> list[tuple[int, int]]:
    """The (subset size, k) pairs of the k = 2 release: the call's pairs with k >= 2
    on the subsets smaller than the key, and k >= 2 on the whole key of ``m`` variables
    (subsets with k = 1 ask for nothing; with k >= 2 on the whole key, they hold).

    >>> k2_jobs([(3, 1)], 3)
    [(3, 2)]
    >>> k2_jobs([(2, 3), (3, 1)], 3)
    [(2, 3), (3, 2)]
    >>> k2_jobs([(1, 1), (2, 4)], 3)
    [(2, 4), (3, 2)]
    """
    kept = [(size, kk) for size, kk in jobs if size < m and kk >= 2]
    whole = max([2, *(kk for size, kk in jobs if size == m)])
    return [*kept, (m, whole)]


def _k2_release(
    df: pd.DataFrame,
    checked: tuple[Any, ...],
    counted: MissingValues,
    threshold: tuple[float, float],
    k_run: Callable[[pd.DataFrame, tuple[Any, ...]], SuppressionResult],
    blank: np.ndarray,
    groups: Sequence[np.ndarray],
) -> tuple[SuppressionResult, np.ndarray, tuple[float, int]] | None:
    """The k-anonymity step on ``df`` with k = 2 on the whole key (and the call's other
    subsets, :func:`k2_jobs`), its blanks and its (highest DIS-SUDA score, records
    above the threshold) measured as the rounds measure. None when it cannot cost less
    than the release with blanks ``blank`` (which blanks nothing), when the call asks
    k >= 2 on the whole key already (its own release is the k = 2 one), or when a
    stratum has a single record (k = 2 is out of its reach)."""
    policy, cols, strata_cols = checked[0], checked[2], checked[6]
    m = len(cols)
    if (
        not blank.any()
        or any(size == m and kk >= 2 for size, kk in checked[3])
        or any(len(rows) < 2 for rows in groups)
    ):
        return None
    spec = (*checked[:3], k2_jobs(checked[3], m), *checked[4:])
    res = k_run(df, spec)
    measured = _measure(res.data, cols, strata_cols, suda_rule(policy), counted, threshold[1])
    return res, blank_matrix(df, res.data, cols, counted), _figures(measured, threshold[0])


def _cheaper(alt: np.ndarray, blank: np.ndarray, costs: Any) -> bool:
    """True when the release with blanks ``alt`` costs less than ``blank`` (a tie keeps
    ``blank``)."""
    return bool(costs.of_release(alt) < costs.of_release(blank))


def _compared(blank: np.ndarray, alt: np.ndarray | None, costs: Any) -> dict[str, Any]:
    """The figures of the two releases for ``details["dis_suda"]``: cells and cost
    (the weighted cells) of the rounds' release and of the k = 2 one (None when it was
    not computed), and which is released (``"rounds"`` until the k = 2 one wins)."""
    w = np.asarray(costs.weight, dtype=np.float64)

    def cost(b: np.ndarray) -> float:
        return float(b.sum(axis=0).astype(np.float64) @ w)

    return {
        "solution": "rounds",
        "cells_rounds": int(blank.sum()),
        "cost_rounds": cost(blank),
        "cells_k2": None if alt is None else int(alt.sum()),
        "cost_k2": None if alt is None else cost(alt),
    }
