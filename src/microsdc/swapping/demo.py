"""The settings of the demo swap (``microsdc demo``, :func:`microsdc.datasets.demo.demo_swap`)."""

from __future__ import annotations

from typing import Any

__all__ = ["DEMO_SETTINGS"]

#: Settings of the demo swap (besides the data and the seed).
DEMO_SETTINGS: dict[str, Any] = {
    "hid": "hid",
    "hierarchy": ["nuts1", "nuts2", "nuts3"],
    "similar": [["hsize", "htype"], ["hsize"]],
    "swaprate": 0.05,
    "k_anonymity": 3,
    "risk_variables": ["ageGroup", "national"],
    "carry_along": ["lau2"],  # the municipality moves with its nuts3 area
}
