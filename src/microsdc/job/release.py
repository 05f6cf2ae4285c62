"""The external release record of a job: what goes out with the data.

A job writes four files. Two are published: the anonymised data and this
record. Two stay with the statistician: the audit record (JSON) and the
report (HTML), which hold figures of the confidential input. The split is
sdcMicro's internal and external reports.

Anything in a published file that is computed from the input may be inverted:
the SHA-256 of an input CSV, whose bytes the release keeps but for the blanked
cells, gives those cells back to whoever hashes the observed values of each
(a few thousand tries); the seed redoes the swap; figures "before" describe
the confidential file. So the release record holds only what anyone can
compute from the released file (its SHA-256, its records, its risk figures,
its missing cells) and parameters that do not help an intruder (the steps,
the key variables, k and the guarantee, the recoding bands, the linked and
carried columns) - not the swap rate, the similarity profiles, the seed, the
input's name, path or hash, the timings or the warnings (which count the
input's cells). Its keys are listed here, not copied from the audit record,
so that a figure added to the audit later does not go out unseen.
"""

from __future__ import annotations

from typing import Any

from microsdc.job.config import JobConfig

__all__ = ["RELEASE_SCHEMA_VERSION", "RISK_KEYS", "release_record"]

#: Version of the release record layout.
RELEASE_SCHEMA_VERSION = "1.0"

#: The risk figures of the released file that the record carries (all computed from it).
RISK_KEYS = (
    "n_records",
    "k",
    "n_at_risk",
    "share_at_risk",
    "n_unique",
    "fk_counts",
    "missing_qi_cells",
    "expected_reidentifications",
    "global_risk",
    "max_risk",
    "risk_threshold",
    "n_high_risk",
    "risk_bands",
    "household",
    "l_diversity",
)


def _protection(parameters: dict[str, Any]) -> dict[str, Any]:
    """The parameters that go out: what was done, none of the settings an intruder uses."""
    out: dict[str, Any] = {
        "steps": list(parameters["steps"]),
        "quasi_identifiers": list(parameters["quasi_identifiers"]),
        "k": parameters["k"],
        "guarantee": parameters["missing"],
        "recode": parameters.get("recode", []),
    }
    sup = parameters.get("suppression")
    if sup is not None:
        out["suppression"] = {"linked": dict(sup.get("linked", {}) or {})}
    swp = parameters.get("swapping")
    if swp is not None:
        out["swapping"] = {
            "hierarchy": list(parameters.get("hierarchy", [])),
            "carry_along": list(swp.get("carry_along", []) or []),
            "households_renumbered": bool(swp.get("renumber_households", False)),
        }
    # what analysts need to read perturbed variables (never a seed)
    public = {
        "pram": ("variables", "strata", "pd", "alpha", "missing", "together"),
        "microaggregation": ("variables", "k", "method", "measure", "strata"),
        "noise": ("variables", "method", "relative_sd", "totals"),
    }
    for step, keys in public.items():
        section = parameters.get(step)
        if section is not None:
            out[step] = {key: section[key] for key in keys if key in section}
            if step == "pram":  # draws per household: the frequencies kept are households'
                out[step]["by_household"] = "household_id" in section
    return out


def _intruder_after(audit: dict[str, Any]) -> dict[str, Any] | None:
    it = audit.get("intruder")
    if not it:
        return None
    after = it["after"]
    return {"k": it["k"], "n_above_1_over_k": after["n_above_1_over_k"], "max": after["max"]}


def release_record(
    cfg: JobConfig, audit: dict[str, Any], data_sha256: str | None
) -> dict[str, Any]:
    """The external record of a job, from its (internal) audit record.

    Parameters
    ----------
    cfg : JobConfig
    audit : dict
        The job's audit record; only figures of the released file and the
        parameters of the module docstring are taken from it.
    data_sha256 : str or None
        SHA-256 of the released data file as written (None when not written).

    Returns
    -------
    dict
        ``schema_version``, ``kind`` ("release record"), ``title``,
        ``created``, ``data`` (file name, SHA-256, records, columns),
        ``protection``, ``risk`` (of the released file, the keys of
        :data:`RISK_KEYS`), ``missing_cells`` (per key variable, in the
        released file) and ``software``.
    """
    after = audit["risk"]["after"]
    columns = [v["name"] for v in audit.get("variables", []) if v.get("released", True)]
    return {
        "schema_version": RELEASE_SCHEMA_VERSION,
        "kind": "release record",
        "title": cfg.title,
        "created": audit["created"],
        "data": {
            "file": cfg.output.data.name,
            "sha256": data_sha256,
            "n_records": after["n_records"],
            "columns": columns,
        },
        "protection": _protection(audit["parameters"]),
        "risk": {key: after[key] for key in RISK_KEYS if key in after},
        # records an intruder who knows their key values picks with probability above
        # 1/k in the released file, and the highest such probability (no "before")
        "intruder": _intruder_after(audit),
        "missing_cells": {v["name"]: v["missing_after"] for v in audit.get("key_variables", [])},
        "software": {"microsdc": audit["environment"]["packages"].get("microsdc")},
    }
