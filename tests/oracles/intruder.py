"""The intruder who knows a person's key values, played by brute force (test oracle only).

Written from the definition, independently of ``microsdc.prosecutor_risk``: the intruder
knows that a person is in the file and knows the person's true key values t, reads the
released file as it is written (an empty cell is a blank; any other value, a declared
missing code such as -7 included, is a value shown) and looks at every released record
s that fits t: each cell equals t's value or is blank. A fitting record with a blank
where t is known counts with the share p_c(t_c) of t's value among the values shown in
that column (1 when the value no longer appears: every fitting record then carries the
same factor); where t itself is missing (the person's value was never recorded, so the
intruder does not know it) every value fits. The person's risk is the weight of their own
released record over the weight of every fitting record.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd


def _cells(df: pd.DataFrame, qi: Sequence[Any]) -> list[tuple[Any, ...]]:
    return [
        tuple(None if pd.isna(v) else v for v in row)
        for row in df[list(qi)].itertuples(index=False, name=None)
    ]


def intruder_risk(original: pd.DataFrame, released: pd.DataFrame, qi: Sequence[Any]) -> np.ndarray:
    """Per record, the probability that the intruder picks the person's released record."""
    true_rows = _cells(original, qi)
    rel_rows = _cells(released, qi)
    m = len(qi)
    codes: list[dict[Any, int]] = [{} for _ in range(m)]

    def code(j: int, v: Any) -> int:
        return -1 if v is None else codes[j].setdefault(v, len(codes[j]))

    distinct = Counter(rel_rows)
    rel_tuples = list(distinct)
    rel = np.array([[code(j, v) for j, v in enumerate(s)] for s in rel_tuples], dtype=np.int64)
    rel = rel.reshape(len(rel_tuples), m)
    count = np.array([distinct[s] for s in rel_tuples], dtype=np.float64)
    shares: list[dict[int, float]] = []
    for j in range(m):
        shown = [code(j, s[j]) for s in rel_rows if s[j] is not None]
        shares.append({c: n / len(shown) for c, n in Counter(shown).items()} if shown else {})

    def share(j: int, c: int) -> float:
        return shares[j].get(c, 0.0) or 1.0

    total: dict[tuple[Any, ...], float] = {}
    for t in set(true_rows):
        tc = [code(j, v) for j, v in enumerate(t)]
        fits = np.ones(len(rel_tuples), dtype=bool)
        weight = count.copy()
        for j in range(m):
            blank = rel[:, j] < 0
            if tc[j] >= 0:
                fits &= blank | (rel[:, j] == tc[j])
                weight[blank] *= share(j, tc[j])
        total[t] = float(weight[fits].sum())
    out = np.zeros(len(true_rows))
    for i, (t, s) in enumerate(zip(true_rows, rel_rows, strict=True)):
        own = 1.0
        for j, (a, b) in enumerate(zip(t, s, strict=True)):
            if b is None and a is not None:
                own *= share(j, code(j, a))
            elif b is not None and b != a:
                own = 0.0  # the released record does not show the person's values
                break
        out[i] = own / total[t] if total[t] > 0 else 0.0
    return out


def records_above(original: pd.DataFrame, released: pd.DataFrame, qi: Sequence[Any], k: int) -> int:
    """Records the intruder picks with probability above 1/k."""
    return int((intruder_risk(original, released, qi) > 1.0 / k + 1e-9).sum())
