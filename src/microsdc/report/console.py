"""The report on the console: what ``microsdc run``, ``demo``, ``suppress`` and ``swap`` print.

Rich is imported when something is printed, not with this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from microsdc.report.sections import (
    print_notes,
    print_risk_table,
    print_suppression,
    print_swapping,
)

if TYPE_CHECKING:
    from microsdc.suppression.local import SuppressionResult
    from microsdc.swapping.core import SwapResult

__all__ = ["print_audit", "render_suppression_summary", "render_swap_summary"]


def print_audit(audit: dict[str, Any], out: Any) -> None:
    """Print the figures of an audit record: risk before and after, swapping, suppression,
    what was not computed and the warnings.

    Parameters
    ----------
    audit : dict
        An audit record.
    out : rich.console.Console
    """
    print_risk_table(audit, out)
    print_swapping(audit, out)
    print_suppression(audit, out)
    print_notes(audit, out)


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
    >>> from microsdc.suppression import local_suppression
    >>> res = local_suppression(df, ["a", "b"], 2)
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


def render_swap_summary(result: SwapResult) -> Any:
    """A rich table of what a swap changed, per hierarchy level.

    Parameters
    ----------
    result : SwapResult

    Returns
    -------
    rich.table.Table
        One row per level (households at risk, households and persons swapped,
        households without a donor) and a total row; the caption gives the shares.
    """
    from rich.markup import escape
    from rich.table import Table

    c = result.counts_per_level
    table = Table(
        title=f"Targeted record swapping: {result.n_households:,} households, "
        f"{result.n_persons:,} persons",
        caption=(
            f"{result.n_swapped_households:,} households "
            f"({result.n_swapped_households / max(result.n_households, 1):.1%}) and "
            f"{result.n_swapped_persons:,} persons "
            f"({result.n_swapped_persons / max(result.n_persons, 1):.1%}) swapped; "
            f"target {result.target_pairs:,} pairs"
        ),
    )
    table.add_column("Level", justify="right")
    table.add_column("Area column")
    for name in ("At risk", "Households swapped", "Persons swapped", "Without donor"):
        table.add_column(name, justify="right")
    for row in c.to_dict("records"):
        table.add_row(
            str(int(row["level"]) + 1),
            escape(str(row["hierarchy"])),
            f"{int(row['households_at_risk']):,}",
            f"{int(row['households_swapped']):,}",
            f"{int(row['persons_swapped']):,}",
            f"{int(row['households_without_donor']):,}",
        )
    table.add_row(
        "",
        "total",
        f"{int(c['households_at_risk'].sum()):,}",
        f"{result.n_swapped_households:,}",
        f"{result.n_swapped_persons:,}",
        f"{result.n_no_donor:,}",
        end_section=True,
    )
    return table
