"""Data sets for demos, tests and benchmarks."""

from microsdc.datasets.adult import ADULT_QUASI_IDENTIFIERS, load_adult
from microsdc.datasets.census import synthetic_census

__all__ = ["ADULT_QUASI_IDENTIFIERS", "load_adult", "synthetic_census"]
