"""The release-method steps of a job: PRAM, microaggregation and noise.

Each step is one library call whose keyword arguments come from its section of the job
file (:data:`KEYS`), and whose figures go into the audit record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from microsdc.job.config import JobConfig
from microsdc.microaggregation import microaggregate
from microsdc.noise import add_noise
from microsdc.postrandomisation import pram

__all__ = ["FUNCTIONS", "KEYS", "METHOD_STEPS", "method_figures", "run_method"]

#: The steps, in the order they run (after swapping and suppression).
METHOD_STEPS = ("pram", "microaggregation", "noise")

#: step -> the library function it calls
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "pram": pram,
    "microaggregation": microaggregate,
    "noise": add_noise,
}

#: step -> {job key: library parameter}; the section's other keys are handled below
KEYS: dict[str, dict[str, str]] = {
    "pram": {
        "variables": "columns",
        "strata": "strata",
        "household_id": "hid",
        "pd": "pd",
        "alpha": "alpha",
        "missing": "missing",
        "together": "together",
        "seed": "seed",
    },
    "microaggregation": {
        "variables": "columns",
        "k": "k",
        "method": "method",
        "measure": "measure",
        "strata": "strata",
        "n_groups": "n_groups",
    },
    "noise": {
        "variables": "columns",
        "method": "method",
        "relative_sd": "relative_sd",
        "keep_covariance": "keep_covariance",
        "lower": "lower",
        "upper": "upper",
        "totals": "totals",
        "seed": "seed",
    },
}


def _arguments(cfg: JobConfig, step: str) -> dict[str, Any]:
    section = cfg.methods.get(step, {})
    kwargs = {param: section[key] for key, param in KEYS[step].items() if key in section}
    if step == "pram" and section.get("neighbours"):
        kwargs["allowed"] = {c: "neighbours" for c in section["neighbours"]}
    if step in ("microaggregation", "noise") and cfg.weights:
        kwargs["weights"] = cfg.weights
    return kwargs


def run_method(
    cfg: JobConfig, step: str, data: pd.DataFrame, reference: pd.DataFrame | None = None
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Run one release-method step on ``data``: the released frame and the step's figures
    for the audit record (no seed, no group ids, no matrices). The share of records
    linked to their values is measured against ``reference`` (the values before the
    first release-method step; ``data`` by default), rows in the same order."""
    from microsdc._core.warn import warn
    from microsdc.exceptions import DisclosureRiskWarning

    keys = [c for c in cfg.methods[step]["variables"] if c in cfg.quasi_identifiers]
    if keys and step in ("pram", "microaggregation"):
        warn(
            f"The {step} step changes the key variables {keys!r}: their new values can make "
            "records rarer on the keys (the risk after the job shows it). Protect key "
            "variables by recoding and suppression, and use this step on the others.",
            DisclosureRiskWarning,
        )
    result = FUNCTIONS[step](data, **_arguments(cfg, step))
    return result.data, method_figures(step, result, data, reference)


def method_figures(
    step: str, result: Any, data: pd.DataFrame, reference: pd.DataFrame | None = None
) -> dict[str, Any]:
    """The audit figures of a release-method step from its library result (``result`` of
    :func:`~microsdc.pram`, :func:`~microsdc.microaggregate` or :func:`~microsdc.add_noise`
    run on ``data``): no seed, no group ids. PRAM's are
    :func:`microsdc.report.pram_section.pram_figures`; the others' linked share is
    measured against ``reference`` (``data`` by default), rows in the same order."""
    from microsdc.report.pram_section import pram_figures
    from microsdc.utility.continuous import linkage_risk

    if step == "pram":
        # with a household id, records and changes count households
        return {**pram_figures(result), "by_household": result.hid is not None}
    figures: dict[str, Any]
    if step == "microaggregation":
        columns = list(result.information_loss["column"])
        figures = {
            "variables": [str(c) for c in columns],
            "method": result.method,
            "k": result.k,
            "min_group_size": result.min_group_size,
            "sse_sst": result.sse_sst,
            "per_variable": result.information_loss.to_dict(orient="records"),
        }
    else:
        table = result.figures.reset_index(names="column")
        columns = list(table["column"])
        figures = {
            "variables": [str(c) for c in columns],
            "method": result.method,
            "per_variable": table.to_dict(orient="records"),
        }
    base = data if reference is None else reference
    figures["linked_share"] = float(linkage_risk(base, result.data, columns).mean())
    return figures
