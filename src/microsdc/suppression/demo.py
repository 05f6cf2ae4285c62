"""Local suppression for the ``microsdc demo`` command: run it and render the figures."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from microsdc.suppression.local import SuppressionResult

__all__ = ["demo_suppression", "render_suppression_summary"]


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


def render_suppression_summary(result: SuppressionResult, title: str | None = None) -> Any:
    """A rich renderable: cells blanked per QI and records at risk before and after.

    Parameters
    ----------
    result : SuppressionResult
    title : str, optional
        Table title; by default names the method and k.

    Returns
    -------
    rich.table.Table

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": list("xxxyyz"), "b": list("uuuvvv")})
    >>> res = demo_suppression(df, ["a", "b"], 2)
    >>> render_suppression_summary(res).row_count  # one row per quasi-identifier
    2
    """
    from rich.markup import escape
    from rich.table import Table

    table = Table(
        title=title
        or f"Local suppression ({result.method}, k={result.k}, missing={result.missing})",
        show_footer=True,
    )
    table.add_column("quasi-identifier", footer="total")
    table.add_column("cells blanked", justify="right", footer=f"{result.n_cells:,}")
    n = max(result.n_rows, 1)
    # a column's share of its own cells; the total, the share of all quasi-identifier cells
    n_cells_all = max(n * len(result.cells_per_qi), 1)
    table.add_column(
        "% of cells", justify="right", footer=f"{100 * result.n_cells / n_cells_all:.2f}"
    )
    for name, count in result.cells_per_qi.items():
        table.add_row(escape(str(name)), f"{int(count):,}", f"{100 * int(count) / n:.2f}")
    table.caption = (
        f"records at risk: {result.n_at_risk_before:,} before, {result.n_at_risk_after:,} after; "
        f"{result.n_rows_suppressed:,} record{'' if result.n_rows_suppressed == 1 else 's'} "
        f"changed in {result.seconds:.2f} s"
    )
    return table
