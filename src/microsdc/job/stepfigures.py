"""The audit figures of the protection steps, from what the library returned: local
suppression and record swapping. A job (:mod:`microsdc.job.runner`) and a release built in
Python (:class:`microsdc.job.pipeline.Release`) both draw them here, so that their reports
show the same figures for the same steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from microsdc.job.config import JobConfig

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["suppression_figures", "swap_figures"]


def suppression_figures(cfg: JobConfig, before: pd.DataFrame, res: Any) -> dict[str, Any]:
    """The audit's ``suppression`` entry: cells blanked (per key variable, per record),
    the method, records whose true frequency is below k, the guarantee and the
    prosecutor risk, from the :class:`~microsdc.SuppressionResult` ``res`` of a run on
    ``before``."""
    from microsdc._core.policy import parse_policy
    from microsdc.suppression.params import counted_missing_values
    from microsdc.utility import suppressed_cells

    missing_values = list(cfg.missing_values) or None
    # a declared code blanked under "category" is a suppressed cell too
    counted = counted_missing_values(parse_policy(cfg.missing, "run_job"), missing_values)
    cells = suppressed_cells(before, res.data, list(cfg.quasi_identifiers), missing_values=counted)
    figures = cells.to_dict()
    figures["method"] = res.method
    true_fk = res.true_fk.to_numpy()
    figures["true_fk_below_k"] = int((true_fk < cfg.k).sum())
    figures["guarantee"] = cfg.missing
    figures["prosecutor_risk"] = res.to_dict()["prosecutor_risk"]
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
