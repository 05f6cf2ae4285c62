"""Targeted record swapping (TRS) of households across a geographic hierarchy.

:func:`record_swap` returns the swapped data; :func:`record_swap_result` also
returns the pairs, the households without a donor and counts per level.
"""

from microsdc.swapping.apply import renumber_households
from microsdc.swapping.core import SwapResult, record_swap, record_swap_result
from microsdc.swapping.risk import level_risk
from microsdc.swapping.utility import SwapUtility, swap_utility

__all__ = [
    "SwapResult",
    "SwapUtility",
    "level_risk",
    "record_swap",
    "record_swap_result",
    "renumber_households",
    "swap_utility",
]
