"""microsdc: statistical disclosure control of microdata.

k-anonymity that treats a missing quasi-identifier value as a wildcard, local
suppression that blanks as few cells as possible, targeted record swapping of
households across a geographic hierarchy, and the measures and report around
them.

The public functions are importable from the top level (``from microsdc import
check_k_anonymity``); they are loaded on first use so that importing the
package, and ``microsdc --help``, stay fast.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # k-anonymity
    "check_k_anonymity": "microsdc.risk.kanonymity",
    "sample_frequencies": "microsdc.risk.kanonymity",
    "safe_combinations": "microsdc.risk.safe_combinations",
    # suppression, recoding, longitudinal data
    "local_suppression": "microsdc.suppression",
    "SuppressionResult": "microsdc.suppression",
    "min_missingness_max_deid": "microsdc.suppression",
    "bin_numeric": "microsdc.recoding",
    "top_code": "microsdc.recoding",
    "bottom_code": "microsdc.recoding",
    "merge_rare_categories": "microsdc.recoding",
    "group_categories": "microsdc.recoding",
    "collapse_subjects": "microsdc.longitudinal",
    "restore_subjects": "microsdc.longitudinal",
    # risk and utility measures
    "risk_summary": "microsdc.risk.summary",
    "individual_risk": "microsdc.risk.individual",
    "global_risk": "microsdc.risk.individual",
    "household_risk": "microsdc.risk.individual",
    "l_diversity": "microsdc.risk.ldiversity",
    "linked_columns": "microsdc.risk.linked",
    "recoverable_cells": "microsdc.risk.linked",
    "prosecutor_risk": "microsdc.risk.prosecutor",
    "suda": "microsdc.risk.suda",
    "SudaResult": "microsdc.risk.suda",
    "suppressed_cells": "microsdc.utility",
    "linkage_risk": "microsdc.utility.continuous",
    "interval_risk": "microsdc.utility.continuous",
    "continuous_utility": "microsdc.utility.continuous",
    "lorenz_curve": "microsdc.utility.continuous",
    # microaggregation
    "microaggregate": "microsdc.microaggregation",
    "MicroaggregationResult": "microsdc.microaggregation",
    # noise
    "add_noise": "microsdc.noise",
    "NoiseResult": "microsdc.noise",
    # PRAM
    "pram": "microsdc.postrandomisation",
    "pram_estimate": "microsdc.postrandomisation",
    "PramResult": "microsdc.postrandomisation",
    # jobs and reports
    "run_job": "microsdc.job",
    "load_job": "microsdc.job",
    "render_report": "microsdc.report",
    "Release": "microsdc.job",
    # record swapping
    "record_swap": "microsdc.swapping",
    "record_swap_result": "microsdc.swapping",
    "SwapResult": "microsdc.swapping",
    # data sets
    "synthetic_census": "microsdc.datasets",
    "load_adult": "microsdc.datasets",
    # encoding
    "encode_qis": "microsdc.encode",
    # files
    "read_table": "microsdc.io",
    "write_table": "microsdc.io",
    # errors and warnings
    "SDCError": "microsdc.exceptions",
    "InvalidParameterError": "microsdc.exceptions",
    "ColumnNotFoundError": "microsdc.exceptions",
    "DataValidationError": "microsdc.exceptions",
    "DisclosureRiskWarning": "microsdc.exceptions",
    "HighCardinalityWarning": "microsdc.exceptions",
    "PerformanceWarning": "microsdc.exceptions",
    "HouseholdLevelWarning": "microsdc.exceptions",
    "JobFileError": "microsdc.exceptions",
}

__all__ = ["__version__", *_EXPORTS]

#: subpackages reached as attributes (``microsdc.datasets.synthetic_census``) without
#: an import of their own, loaded on first use as the functions are
_SUBPACKAGES = frozenset({"datasets"})


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"microsdc.{name}")
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'microsdc' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
