"""Figures of the continuous variables: distribution and Lorenz curve, before and after.

One figure per variable of the microaggregation and noise steps, drawn from the audit
record's ``continuous`` entry (percentiles 1 to 99 and the Lorenz curves at 101
population shares): aggregates only, never a record's value.
"""

from __future__ import annotations

from typing import Any

from microsdc.report.figures import AFTER, BEFORE, GRID, INK, Figure, _encode, _plt

__all__ = ["continuous_figures", "figure_id"]


def figure_id(index: int) -> str:
    """The HTML id of the figure of the ``index``-th continuous variable."""
    return f"fig-continuous-{index + 1}"


def _axis_scale(before: list[float | None], after: list[float | None]) -> str:
    """ "log" for positive amounts spread over more than two orders of magnitude."""
    values = [v for v in (*before, *after) if v is not None]
    if values and min(values) > 0 and max(values) / min(values) > 100:
        return "log"
    return "linear"


def _distribution(ax: Any, pct: dict[str, Any]) -> None:
    levels = pct["levels"]
    if not levels:
        ax.set_title("Distribution", loc="left")
        ax.text(
            0.5,
            0.5,
            "too few records to draw\nwithout showing one's value",
            ha="center",
            va="center",
            color=INK,
            transform=ax.transAxes,
        )
        ax.set_axis_off()
        return
    for name, color, width in (("before", BEFORE, 2.6), ("after", AFTER, 1.3)):
        values = [float("nan") if v is None else v for v in pct[name]]
        ax.plot(levels, values, color=color, lw=width, label=name)
    ax.set_yscale(_axis_scale(pct["before"], pct["after"]))
    ax.set_xlabel("percentile of the records (%)")
    ax.set_ylabel(f"{pct['column']}")
    ax.set_xlim(0, 100)
    ax.grid(True, color=GRID)
    ax.set_axisbelow(True)
    ax.set_title(f"Distribution (percentiles {levels[0]}-{levels[-1]})", loc="left")
    ax.legend(frameon=False, fontsize=8.5, loc="upper left")


def _lorenz(ax: Any, curve: dict[str, Any], gini: tuple[Any, Any]) -> None:
    ax.set_title("Lorenz curve", loc="left")
    ax.plot([0, 100], [0, 100], color=GRID, lw=1, ls="--", label="equal shares")
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 100)
    ax.set_xlabel("population share, poorest first (%)")
    ax.set_ylabel("share of the total (%)")
    ax.grid(True, color=GRID)
    ax.set_axisbelow(True)
    if "not_drawn" in curve:
        ax.text(50, 50, f"not drawn:\n{curve['not_drawn']}", ha="center", va="center", color=INK)
        return
    shares = [100 * s for s in curve["population_share"]]
    for (name, color, width), g in zip(
        (("before", BEFORE, 2.6), ("after", AFTER, 1.3)), gini, strict=True
    ):
        label = name if g is None else f"{name} (Gini {g:.4f})"
        ax.plot(shares, [100 * v for v in curve[name]], color=color, lw=width, label=label)
    ax.legend(frameon=False, fontsize=8.5, loc="upper left")


def _caption(column: str, cont: dict[str, Any], row: dict[str, Any]) -> str:
    steps = " and ".join(cont["steps"])
    text = (
        f"Left: the percentiles of {column} (of the records, unweighted) before {steps} "
        "(grey) and as released (blue); where the lines lie on each other the distribution "
        "is kept. Right: the Lorenz "
        "curve, the share of the total held by the poorest part of the population"
    )
    if cont.get("weights"):
        text += f" (weighted by {cont['weights']})"
    text += "; the farther below the diagonal, the more unequal."
    if row.get("gini_before") is not None and row.get("gini_after") is not None:
        text += (
            f" Gini {row['gini_before']:.4f} before, {row['gini_after']:.4f} after "
            "(0: everyone holds the same amount, 1: one holds everything)."
        )
    return text


def continuous_figures(audit: dict[str, Any]) -> list[Figure]:
    """One figure per continuous variable of the audit record (none without them)."""
    cont = audit.get("continuous")
    if not cont:
        return []
    plt = _plt()
    rows = {r["column"]: r for r in cont["per_variable"]}
    out = []
    for i, (pct, curve) in enumerate(zip(cont["percentiles"], cont["lorenz"], strict=True)):
        column = pct["column"]
        row = rows.get(column, {})
        fig, (left, right) = plt.subplots(1, 2, figsize=(8.6, 3.3))
        _distribution(left, pct)
        _lorenz(right, curve, (row.get("gini_before"), row.get("gini_after")))
        fig.tight_layout()
        out.append(
            Figure(
                id=figure_id(i),
                title=f"{column}: distribution and Lorenz curve before and after",
                caption=_caption(column, cont, row),
                data_uri=_encode(fig),
                alt=(
                    f"Percentiles and Lorenz curve of {column} before and after "
                    f"{' and '.join(cont['steps'])}."
                ),
            )
        )
    return out
