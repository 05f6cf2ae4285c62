"""Microaggregation of continuous variables: groups of at least k similar records whose
values are replaced by the group's mean (or median)."""

from microsdc.microaggregation.core import microaggregate
from microsdc.microaggregation.result import MicroaggregationResult

__all__ = ["MicroaggregationResult", "microaggregate"]
