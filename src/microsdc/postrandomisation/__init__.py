"""PRAM, the post-randomisation method, for categorical variables.

:func:`pram` releases each record's category as a draw from a transition matrix
(invariant by default, as sdcMicro's ``pram``); :func:`pram_estimate` estimates the
original frequencies from a release without bias.
"""

from microsdc.postrandomisation.core import pram
from microsdc.postrandomisation.estimate import pram_estimate
from microsdc.postrandomisation.result import LazyPramResult, PramResult, TransitionMatrix

__all__ = ["LazyPramResult", "PramResult", "TransitionMatrix", "pram", "pram_estimate"]
