"""Noise addition for continuous variables: additive, correlated (covariance kept, exactly
on request), multiplicative and on outliers only, with units in the parameter names."""

from microsdc.noise.core import add_noise
from microsdc.noise.result import NoiseResult

__all__ = ["NoiseResult", "add_noise"]
