"""The ``missing=`` parameter, now :mod:`microsdc._core.policy`; kept for the modules
that still import it from here."""

from microsdc._core.policy import POLICIES, MissingPolicy, Policy, PolicyName, parse_policy

__all__ = ["POLICIES", "MissingPolicy", "Policy", "PolicyName", "parse_policy"]
