"""The distinct key combinations of a lazy frame with their frequencies, for callers that
hold a narwhals frame and checked columns (a job on an engine input).

The library's functions count lazy frames through :mod:`microsdc.risk.counting`, which
this module shares: the engine groups the records by the key variables
(:func:`microsdc.backends.patterns.group_keys`), and fk is counted on those
combinations, each weighing its records.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from microsdc._core.policy import Policy
from microsdc.backends.adapters import adapt
from microsdc.backends.patterns import group_keys
from microsdc.encode import MissingValues
from microsdc.risk.counting import engine_rows

__all__ = ["lazy_patterns"]


def lazy_patterns(
    nwf: Any,
    cols: list[Hashable],
    w: str | None,
    policy: Policy,
    missing_values: MissingValues,
    func: str,
) -> tuple[Any, tuple[Any, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]]:
    """The engine's key combinations of ``nwf`` (pyarrow, :func:`group_keys`) and their
    frequencies: the encoding, the records of each distinct pattern, fk, Fk and the map
    from the rows of the table to distinct patterns (rows can repeat a pattern once
    missing codes are normalised), after the weights are checked."""
    table = group_keys(nwf, cols, w, func)
    frame = adapt(nwf.to_native(), func)
    keys = engine_rows(frame, policy, cols, table, w is not None, missing_values, func)
    res = keys.frequencies()
    return table, (keys.enc, res.count, res.fk, res.Fk, res.inverse)
