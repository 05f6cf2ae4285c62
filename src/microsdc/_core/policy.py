"""The ``missing=`` parameter: how a missing quasi-identifier value is counted."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Literal, get_args

from microsdc._core.errors import param_error

__all__ = ["POLICIES", "MissingPolicy", "Policy", "parse_policy"]

PolicyName = Literal["wildcard", "category", "probabilistic", "conservative"]
#: The policies by name, in the order messages list them; alpha in [0, 1] besides.
POLICIES: tuple[str, ...] = get_args(PolicyName)

MissingPolicy = PolicyName | float


@dataclass(frozen=True)
class Policy:
    """A parsed missing-value policy.

    ``kind`` is "wildcard", "alpha", "category", "conservative" or "probabilistic";
    ``alpha`` is the weight of a record with a missing value that is not of the
    target's exact pattern (1.0 for wildcard; sdcMicro ``freqCalc``).
    """

    kind: str
    alpha: float = 1.0

    @property
    def fractional(self) -> bool:
        """True when fk can be fractional ("alpha" and "probabilistic")."""
        return self.kind in ("alpha", "probabilistic")

    @property
    def label(self) -> str:
        return f"alpha={self.alpha:g}" if self.kind == "alpha" else self.kind


def parse_policy(missing: Any, func: str, *, suppression: bool = False) -> Policy:
    """Validate ``missing`` (a name in ``POLICIES`` or alpha in [0, 1]).

    With ``suppression``, the error for a bad value lists only the policies a
    suppression can target (``"conservative"`` is refused there separately).
    """
    if isinstance(missing, str):
        if missing in POLICIES:
            return Policy(missing)
        if missing.startswith("alpha="):
            try:
                return parse_policy(float(missing.split("=", 1)[1]), func, suppression=suppression)
            except ValueError:
                pass
    elif isinstance(missing, numbers.Real) and not isinstance(missing, bool):
        a = float(missing)
        if 0.0 <= a <= 1.0:
            return Policy("wildcard") if a == 1.0 else Policy("alpha", a)
    names = ", ".join(repr(p) for p in POLICIES if not (suppression and p == "conservative"))
    raise param_error("missing", func, f"one of {names} or a real number alpha in [0, 1]", missing)
