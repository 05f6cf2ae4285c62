"""Local suppression with the settings of the ``microsdc demo`` command."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from microsdc.suppression.local import SuppressionResult

__all__ = ["demo_suppression"]


def demo_suppression(
    df: pd.DataFrame,
    qi: Sequence[Hashable],
    k: int = 3,
    *,
    importance: Sequence[Hashable] | None = None,
    missing: Any = "wildcard",
) -> SuppressionResult:
    """Run :func:`microsdc.suppression.local_suppression` with the demo's settings.

    Parameters
    ----------
    df : pandas.DataFrame
        Never modified.
    qi : list of column names
    k : int >= 1, default 3
    importance : list of column names, optional
        Most important first (blanked last).
    missing : policy, default "wildcard"

    Returns
    -------
    SuppressionResult

    Raises
    ------
    InvalidParameterError, ColumnNotFoundError, DataValidationError
        As :func:`microsdc.suppression.local_suppression`.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": list("xxxyyz"), "b": list("uuuvvv")})
    >>> demo_suppression(df, ["a", "b"], k=2).n_cells
    1
    """
    from microsdc.suppression.local import local_suppression

    return local_suppression(df, qi, k, importance=importance, missing=missing)
