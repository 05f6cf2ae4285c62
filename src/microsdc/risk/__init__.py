"""Disclosure risk.

k-anonymity with missing values, safe combinations, individual and household risk,
l-diversity, columns that give key variables back (linked variables), and special
uniques (SUDA and DIS-SUDA).
"""

from microsdc.risk.individual import (
    GlobalRisk,
    global_risk,
    household_risk,
    household_risk_from_individual,
    individual_risk,
)
from microsdc.risk.kanonymity import check_k_anonymity, sample_frequencies
from microsdc.risk.ldiversity import l_diversity
from microsdc.risk.linked import linked_columns, recoverable_cells
from microsdc.risk.prosecutor import prosecutor_risk
from microsdc.risk.safe_combinations import safe_combinations
from microsdc.risk.suda import SudaResult, suda
from microsdc.risk.summary import pattern_risk_summary, risk_summary

__all__ = [
    "GlobalRisk",
    "SudaResult",
    "check_k_anonymity",
    "global_risk",
    "household_risk",
    "household_risk_from_individual",
    "individual_risk",
    "l_diversity",
    "linked_columns",
    "pattern_risk_summary",
    "prosecutor_risk",
    "recoverable_cells",
    "risk_summary",
    "safe_combinations",
    "sample_frequencies",
    "suda",
]
