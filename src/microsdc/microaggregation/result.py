"""What :func:`microsdc.microaggregation.microaggregate` returns, and its information loss."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["MicroaggregationResult", "information_loss"]


@dataclass(frozen=True)
class MicroaggregationResult:
    """The result of :func:`microsdc.microaggregate`.

    Attributes
    ----------
    data : pandas.DataFrame
        The release: the input's rows, index and columns, the microaggregated columns
        replaced by their group values (floats; missing values kept).
    groups : pandas.DataFrame of int, shape (n_rows, n_columns)
        Per microaggregated column, each record's group (the same for every column with
        ``"mdav"``, unless a group was merged for a column's missing values); -1 where
        the value is missing. Never release it: it links records of a group.
    k : int
    method : str
    min_group_size : int
        The fewest observed values behind any released value (>= k, checked); 0 when
        there are none.
    information_loss : pandas.DataFrame
        Per column: ``sse`` (within-group sum of squares of the standardised values,
        against the released ones), ``sst`` (total sum of squares) and ``sse_sst``.
    sse_sst : float
        SSE/SST over all columns: 0 is no loss, 1 is as much as replacing every value
        by the overall mean.
    """

    data: pd.DataFrame
    groups: pd.DataFrame
    k: int
    method: str
    min_group_size: int
    information_loss: pd.DataFrame
    sse_sst: float

    def summary(self) -> str:
        """One sentence: method, k, the guarantee and the information loss."""
        return (
            f"Microaggregation ({self.method}, k = {self.k}): every released value is the "
            f"aggregate of at least {self.min_group_size} values; information loss SSE/SST "
            f"= {self.sse_sst:.4f}."
        )


def information_loss(
    z: np.ndarray, released: np.ndarray, cols: list[Hashable]
) -> tuple[pd.DataFrame, float]:
    """SSE/SST per column and overall, on standardised values ``z`` (shape (p, n)) and
    their released counterparts (NaN where missing, left out)."""
    rows = []
    total_sse = total_sst = 0.0
    for j, c in enumerate(cols):
        obs = ~np.isnan(z[j])
        zj = z[j, obs]
        sse = float(np.sum((zj - released[j, obs]) ** 2))
        sst = float(np.sum((zj - zj.mean()) ** 2)) if len(zj) else 0.0
        total_sse += sse
        total_sst += sst
        rows.append({"column": c, "sse": sse, "sst": sst, "sse_sst": sse / sst if sst else 0.0})
    frame = pd.DataFrame(rows, columns=["column", "sse", "sst", "sse_sst"])
    return frame, (total_sse / total_sst if total_sst else 0.0)
