"""Local suppression to k-anonymity, an exact model for small instances, and the random baseline.

Importing this package loads neither numba nor scipy; the kernels load on first use.
"""

from microsdc.suppression.demo import demo_suppression
from microsdc.suppression.local import SuppressionResult, local_suppression
from microsdc.suppression.random_missingness import min_missingness_max_deid

__all__ = [
    "SuppressionResult",
    "demo_suppression",
    "local_suppression",
    "min_missingness_max_deid",
]
