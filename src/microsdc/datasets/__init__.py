"""Data sets for demos, tests and benchmarks."""

from microsdc.datasets.census import synthetic_census

__all__ = ["synthetic_census"]
