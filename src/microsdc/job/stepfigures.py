"""The audit figures of the protection steps, from what the library returned: local
suppression and record swapping. A job (:mod:`microsdc.job.runner`) and a release built in
Python (:class:`microsdc.job.pipeline.Release`) both draw them here, so that their reports
show the same figures for the same steps.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from microsdc.job.config import JobConfig

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "counted_codes",
    "observed_cells",
    "suppression_figures",
    "swap_figures",
    "values_blanked",
]


def observed_cells(
    table: pd.DataFrame, qi: Sequence[Hashable], codes: Sequence[Any], records: Any = None
) -> dict[str, int]:
    """Cells of each key variable that hold a value (neither missing nor one of ``codes``):
    of the records of ``table`` (a frame), or, with ``records``, of the distinct key
    combinations of ``table`` and the records behind each (an engine's patterns)."""
    import numpy as np

    from microsdc.encode import missing_mask

    out = {}
    for col in qi:
        seen = ~np.asarray(missing_mask(table[col], list(codes)), dtype=bool)
        out[str(col)] = int(seen.sum() if records is None else records[seen].sum())
    return out


def values_blanked(res: Any, codes: Sequence[Any]) -> dict[str, int]:
    """Cells of each key variable that held a value (neither missing nor one of
    ``codes``) and that local suppression blanked, from a ``LazySuppressionResult``:
    the blank flags of each pattern (``blanked``), its values before (``patterns``) and
    its records. These are the cells the audit's ``key_variables`` counts as made
    missing (a declared code counted missing before, as there); under ``"category"``
    the cells blanked (``cells_per_qi``) count the codes blanked too."""
    import numpy as np

    from microsdc.encode import missing_mask

    table = res.patterns
    records = table["records"].to_numpy(dtype=np.int64) if len(table) else np.zeros(0, np.int64)
    out = {}
    for col in res.blanked.columns:
        value = ~np.asarray(missing_mask(table[col], list(codes)), dtype=bool)
        hit = res.blanked[col].to_numpy(dtype=bool) & value
        out[str(col)] = int(records[hit].sum())
    return out


def counted_codes(cfg: JobConfig) -> list[Any]:
    """The declared codes a suppressed cell cannot come from: under ``"category"`` a
    declared code is a value that may be blanked, so none (see
    :func:`microsdc.suppression.params.counted_missing_values`)."""
    from microsdc._core.policy import parse_policy
    from microsdc.suppression.params import counted_missing_values

    counted = counted_missing_values(parse_policy(cfg.missing, "run_job"), cfg.missing_values)
    return [] if counted is None else list(counted)


def suppression_figures(cfg: JobConfig, res: Any, observed: Mapping[str, int]) -> dict[str, Any]:
    """The audit's ``suppression`` entry: cells blanked (per key variable, per record),
    the method, records whose true frequency is below k, the guarantee and the
    prosecutor risk, from what local suppression returned (a
    :class:`~microsdc.SuppressionResult`, or a ``LazySuppressionResult`` whose
    per-record figures stand for the records of each distinct pattern), and the cells
    of each key variable that held a value before (``observed``,
    :func:`observed_cells`)."""
    import numpy as np
    import pandas as pd

    per_variable = {str(c): int(v) for c, v in res.cells_per_qi.items()}
    total = sum(per_variable.values())
    n_observed = sum(observed.values())
    cells = res.cells_per_row.to_numpy(dtype=np.int64)
    weights = res.record_weights()
    records = np.ones(len(cells)) if weights is None else weights
    hit = cells > 0
    by_count = pd.Series(records[hit]).groupby(cells[hit]).sum()
    by_count[0] = res.n_rows - res.n_rows_suppressed  # every record the method left whole
    by_count = by_count[by_count > 0].sort_index()
    figures: dict[str, Any] = {
        "total": total,
        "share": total / n_observed if n_observed else 0.0,
        "records_with_suppression": res.n_rows_suppressed,
        "per_variable": per_variable,
        "observed_before": dict(observed),
        "records_by_count": {str(c): int(v) for c, v in by_count.items()},
        "method": res.method,
        "true_fk_below_k": res.n_true_fk_below(cfg.k),
        "guarantee": cfg.missing,
        "prosecutor_risk": res.intruder(),
    }
    if "linked" in cfg.suppression:
        figures["linked_cells"] = res.details.get("linked_cells", {})
    if "dis_suda" in res.details:
        figures["dis_suda"] = dict(res.details["dis_suda"])
    return figures


def swap_figures(
    cfg: JobConfig, before: pd.DataFrame, swapped: pd.DataFrame, res: Any
) -> dict[str, Any]:
    """The audit's ``swapping`` entry: households and persons swapped, pairs per level and
    the utility per level and area, from the :class:`~microsdc.SwapResult` ``res`` of a
    run on ``before`` (``swapped``: its data with the input's row labels)."""
    from microsdc.swapping import swap_utility
    from microsdc.utility import swap_utility_summary

    risk_variables = list(cfg.swapping["risk_variables"])
    hierarchy = list(cfg.hierarchy)
    util = swap_utility(before, swapped, cfg.household_id, hierarchy, risk_variables)
    summary = swap_utility_summary(util)
    n_hh = res.n_households
    return {
        "n_households": n_hh,
        "n_persons": res.n_persons,
        "target_pairs": res.target_pairs,
        "n_swapped_households": res.n_swapped_households,
        "n_swapped_persons": res.n_swapped_persons,
        "share_households": res.n_swapped_households / n_hh if n_hh else 0.0,
        "share_persons": res.n_swapped_persons / res.n_persons if res.n_persons else 0.0,
        "n_no_donor": res.n_no_donor,
        "counts_per_level": res.to_dict()["counts_per_level"],
        "levels": summary["levels"],
        "areas": summary["areas"],
    }
