"""The order of the key combinations in a risk summary, the same on every engine.

The summary of :func:`~microsdc.risk.check_k_anonymity` (and of ``microsdc risk``)
lists the key combinations by ascending fk, then descending count. Many combinations
tie on both, and the order among them used to follow the order in which the
combinations were met: the rows of a pandas frame, the groups of a polars, DuckDB or
Spark group-by. The riskiest combinations listed then differed by engine. The order
here is total: after fk and count come the key values themselves, column by column.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["summary_order", "tie_rounded", "value_ranks"]

#: Significant digits a fractional count (fk under alpha or "probabilistic", Fk) is
#: compared at: engines add the same shares and weights in another order, which moves
#: the last bits only.
TIE_DIGITS = 12


def tie_rounded(values: Any, digits: int = TIE_DIGITS) -> np.ndarray:
    """``values`` (floats) rounded to ``digits`` significant digits, so that sums of
    the same terms added in another order compare equal.

    >>> tie_rounded([0.1 + 0.2, 0.3, 1234.5]).tolist() == [0.3, 0.3, 1234.5]
    True
    """
    x = np.asarray(values, dtype=np.float64).copy()
    ok = np.isfinite(x) & (x != 0)
    if ok.any():
        scale = 10.0 ** (digits - 1 - np.floor(np.log10(np.abs(x[ok]))))
        x[ok] = np.round(x[ok] * scale) / scale
    return x


def _kind(value: Any) -> tuple[int, str]:
    """The group a value sorts in when a column mixes types: numbers (booleans
    included), then texts, then other types by their type name."""
    if isinstance(value, numbers.Number):
        return 0, ""
    if isinstance(value, str):
        return 1, ""
    return 2, type(value).__name__


def value_ranks(categories: pd.Index) -> np.ndarray:
    """The rank of each category in an order that does not depend on the order in which
    the values were met.

    Values that can be ordered are ranked by value (as
    :func:`~microsdc.encode.encode_column` sorts them); values equal but written
    differently (``1``, ``1.0`` and ``True``; ``-0.0`` and ``0.0``) by type name, then
    as written. A column that mixes types that cannot be ordered together (numbers and
    texts) ranks numbers first, then texts, then other types by type name, each group
    by value (as written, where its values cannot be ordered either).

    >>> value_ranks(pd.Index(["b", "a", "c"])).tolist()
    [1, 0, 2]
    >>> value_ranks(pd.Index(["x", 2, 1.5], dtype=object)).tolist()
    [2, 1, 0]
    """
    n = len(categories)
    if n and categories.dtype.kind in "iufbmM":  # one type: numpy's order
        order = np.argsort(categories.to_numpy(), kind="stable")
    else:
        values = list(categories)
        try:
            order = np.array(
                sorted(
                    range(n), key=lambda i: (values[i], type(values[i]).__name__, repr(values[i]))
                ),
                dtype=np.int64,
            )
        except TypeError:
            order = np.array(_mixed_order(values), dtype=np.int64)
    ranks = np.empty(n, dtype=np.int64)
    ranks[order] = np.arange(n)
    return ranks


def _mixed_order(values: list[Any]) -> list[int]:
    """Positions of ``values`` (of types that cannot be ordered together) in the order
    of :func:`value_ranks`."""
    groups: dict[tuple[int, str], list[int]] = {}
    for i, v in enumerate(values):
        groups.setdefault(_kind(v), []).append(i)
    out: list[int] = []
    for kind in sorted(groups):
        members = groups[kind]
        try:
            members = sorted(
                members, key=lambda i: (values[i], type(values[i]).__name__, repr(values[i]))
            )
        except TypeError:
            members = sorted(members, key=lambda i: (type(values[i]).__name__, repr(values[i])))
        out.extend(members)
    return out


def summary_order(
    codes: np.ndarray, categories: Sequence[pd.Index], fk: np.ndarray, count: np.ndarray
) -> np.ndarray:
    """The order of the rows of a summary of distinct key combinations: ascending fk
    (fractional counts compared at :data:`TIE_DIGITS` significant digits), descending
    count, then the key values column by column in the order of the key variables,
    each ascending (:func:`value_ranks`) with a missing value last.

    ``codes`` (n_patterns, n_keys) are the combinations' codes (-1 = missing) into
    ``categories``, one per key variable.

    >>> codes = np.array([[1, -1], [0, 0], [1, 0], [0, 1]])
    >>> cats = [pd.Index(["a", "b"]), pd.Index([10, 20])]
    >>> summary_order(codes, cats, np.array([1, 1, 1, 2]), np.array([1, 1, 1, 1])).tolist()
    [1, 2, 0, 3]
    """
    if not len(fk):
        return np.zeros(0, dtype=np.int64)
    keys: list[np.ndarray] = []
    for j in reversed(range(codes.shape[1])):
        col = np.asarray(codes[:, j], dtype=np.int64)
        ranks = value_ranks(categories[j])
        keys.append(np.where(col >= 0, ranks[np.maximum(col, 0)] if len(ranks) else 0, len(ranks)))
    keys += [-np.asarray(count, dtype=np.int64), tie_rounded(fk)]
    return np.lexsort(keys)
