"""Disclosure risk.

k-anonymity with missing values, safe combinations, individual and household risk.
"""

from microsdc.risk.kanonymity import check_k_anonymity, sample_frequencies
from microsdc.risk.safe_combinations import safe_combinations

__all__ = ["check_k_anonymity", "safe_combinations", "sample_frequencies"]
