"""Figures of the report, drawn with matplotlib (Agg) and inlined as base64 PNG.

Every function takes the aggregate figures of an audit record and returns a
:class:`Figure` (an ``id``, a title, a caption and the PNG as a data URI), or
None when there is nothing to draw. No record-level data is ever drawn.
"""

from __future__ import annotations

import base64
import io
import itertools
from dataclasses import dataclass
from typing import Any

__all__ = ["Figure", "all_figures"]

BEFORE = "#9aa5b1"
AFTER = "#1f6feb"
ACCENT = "#d97706"
INK = "#1f2933"
GRID = "#e4e7eb"


@dataclass(frozen=True)
class Figure:
    """One figure of the report."""

    id: str
    title: str
    caption: str
    data_uri: str
    alt: str


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "font.family": "DejaVu Sans",
            "font.size": 9.5,
            "axes.edgecolor": "#7b8794",
            "axes.labelcolor": INK,
            "axes.titlesize": 11,
            "axes.titleweight": "bold",
            "axes.spines.top": False,
            "axes.spines.right": False,
            "xtick.color": INK,
            "ytick.color": INK,
            "svg.hashsalt": "microsdc",
        }
    )
    return plt


def _encode(fig: Any) -> str:
    plt = _plt()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _grouped_bars(
    ax: Any, labels: list[str], before: list[float], after: list[float], fmt: str = "{:,.0f}"
) -> None:
    import numpy as np

    x = np.arange(len(labels))
    w = 0.38
    b1 = ax.bar(x - w / 2, before, w, label="before", color=BEFORE)
    b2 = ax.bar(x + w / 2, after, w, label="after", color=AFTER)
    ax.set_xticks(x, labels)
    ax.yaxis.grid(True, color=GRID)
    ax.set_axisbelow(True)
    top = max([*before, *after, 1])
    small = len(labels) > 4
    for bars in (b1, b2):
        for rect in bars:
            h = rect.get_height()
            ax.annotate(
                _compact(h) if small else fmt.format(h),
                (rect.get_x() + rect.get_width() / 2, h),
                xytext=(0, 2),
                textcoords="offset points",
                ha="center",
                va="bottom",
                fontsize=6.8 if small else 7.5,
                color=INK,
            )
    ax.set_ylim(0, top * 1.15)
    ax.legend(frameon=False, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=2, fontsize=8.5)


def _compact(x: float) -> str:
    """123 -> "123"; 1,234 -> "1.23k"; 1,234,567 -> "1.23M"."""
    if abs(x) >= 1e6:
        return f"{x / 1e6:.3g}M"
    if abs(x) >= 1e3:
        return f"{x / 1e3:.3g}k"
    return f"{x:,.0f}"


def fk_figure(audit: dict[str, Any]) -> Figure:
    """Records by sample frequency fk, before and after."""
    plt = _plt()
    before = audit["risk"]["before"]["fk_counts"]
    after = audit["risk"]["after"]["fk_counts"]
    k = audit["risk"]["before"]["k"]
    before_at_risk = audit["risk"]["before"]["n_at_risk"]
    after_at_risk = audit["risk"]["after"]["n_at_risk"]
    fig, ax = plt.subplots(figsize=(7.2, 3.1))
    _grouped_bars(ax, before["labels"], before["counts"], after["counts"])
    if len(before["labels"]) > 8 or max(map(len, before["labels"])) > 6:
        ax.tick_params(axis="x", labelrotation=35)
        for tick in ax.get_xticklabels():
            tick.set_horizontalalignment("right")
    ax.set_xlabel("fk: records sharing the combination of key variables (the record included)")
    ax.set_ylabel("records")
    ax.set_title(f"Records by group size (k = {k})", loc="left")
    return Figure(
        id="fig-fk",
        title="Group sizes before and after",
        caption=(
            f"Bars left of '>= {k}' are records at risk: fewer than {k} records share their "
            f"combination of key variables ({_missing_rule(audit)}); together they hold the "
            f"{before_at_risk:,} records at risk before and the {after_at_risk:,} after."
            + (
                " Under this rule fk can be a fraction: a bar holds the records whose fk is "
                "from its lower edge up to, not including, the next one."
                if any(" to < " in label or label.startswith("< ") for label in before["labels"])
                else ""
            )
        ),
        data_uri=_encode(fig),
        alt=f"Bar chart of records by group size fk, before and after; k = {k}.",
    )


def _missing_rule(audit: dict[str, Any]) -> str:
    """How a missing value was counted in the fk of the report, in a few words."""
    missing = audit.get("parameters", {}).get("missing", "wildcard")
    if isinstance(missing, (int, float)):
        return f"a match through a missing value counts {missing:g}, as sdcMicro's alpha"
    return {
        "category": "a missing value is one more category",
        "probabilistic": "a missing value matches a value with that value's share",
        "conservative": "a missing value takes the completion with the fewest matches",
    }.get(str(missing), "missing values match any value")


def _band_labels(edges: list[float]) -> list[str]:
    labels = [f"0-\n{_pct(edges[0])}"]
    for lo, hi in itertools.pairwise(edges):
        labels.append(f"{_pct(lo)}-\n{_pct(hi)}")
    return labels


def _pct(x: float) -> str:
    return f"{100 * x:g}%"


def risk_figure(audit: dict[str, Any]) -> Figure:
    """Records per band of individual risk, before and after (log scale)."""
    plt = _plt()
    before = audit["risk"]["before"]["risk_bands"]
    after = audit["risk"]["after"]["risk_bands"]
    labels = _band_labels(before["upper_edges"])
    fig, ax = plt.subplots(figsize=(8.4, 3.3))
    _grouped_bars(ax, labels, before["counts"], after["counts"])
    top = max([*before["counts"], *after["counts"], 1])
    ax.set_yscale("symlog", linthresh=1)
    ax.set_ylim(0, top * 4)
    ax.set_xlabel("individual re-identification risk")
    ax.set_ylabel("records (log scale)")
    ax.set_title("Distribution of individual risk", loc="left")
    thr = audit["risk"]["before"]["risk_threshold"]
    return Figure(
        id="fig-risk",
        title="Individual risk before and after",
        caption=(
            "Individual risk is the chance that a record is matched to the right person by "
            "someone who knows its key variables (Benedetti-Franconi estimate with sampling "
            f"weights, 1/fk without). The report counts records above {_pct(thr)} as high risk."
        ),
        data_uri=_encode(fig),
        alt="Bar chart of records per band of individual risk, before and after.",
    )


def suppression_figure(audit: dict[str, Any]) -> Figure | None:
    """Suppressed cells per quasi-identifier."""
    sup = audit.get("suppression")
    if not sup:
        return None
    plt = _plt()
    per = sup["per_variable"]
    observed = sup["observed_before"]
    names = list(per)[::-1]
    values = [per[n] for n in names]
    fig, ax = plt.subplots(figsize=(7.2, 0.45 * len(names) + 1.2))
    bars = ax.barh(names, values, color=AFTER)
    ax.xaxis.grid(True, color=GRID)
    ax.set_axisbelow(True)
    top = max([*values, 1])
    for rect, name in zip(bars, names, strict=True):
        share = per[name] / observed[name] if observed.get(name) else 0.0
        ax.annotate(
            f"{per[name]:,} ({share:.1%})",
            (rect.get_width(), rect.get_y() + rect.get_height() / 2),
            xytext=(3, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
            color=INK,
        )
    ax.set_xlim(0, top * 1.25)
    ax.set_xlabel("cells suppressed (share of the variable's observed cells)")
    ax.set_title("Suppressed cells per key variable", loc="left")
    return Figure(
        id="fig-suppression",
        title="Suppressions per variable",
        caption=(
            f"Local suppression blanked {sup['total']:,} cells ({sup['share']:.2%} of the "
            f"observed key-variable cells) in {sup['records_with_suppression']:,} records."
        ),
        data_uri=_encode(fig),
        alt="Horizontal bar chart of suppressed cells per key variable.",
    )


def swap_area_figure(audit: dict[str, Any]) -> Figure | None:
    """Share of households and persons swapped per area of the finest listed level."""
    swp = audit.get("swapping")
    if not swp or not swp["areas"]:
        return None
    import numpy as np

    plt = _plt()
    level = max(a["level"] for a in swp["areas"])
    rows = [a for a in swp["areas"] if a["level"] == level]
    col = rows[0]["hierarchy"]
    labels = [r["area"] for r in rows]
    hh = [100 * r["share_households"] for r in rows]
    pp = [100 * r["share_persons"] for r in rows]
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(max(7.2, 0.32 * len(rows) + 2), 3.3))
    w = 0.4
    ax.bar(x - w / 2, hh, w, color=AFTER, label="households")
    ax.bar(x + w / 2, pp, w, color=ACCENT, label="persons")
    overall = 100 * swp["share_households"]
    ax.axhline(overall, color=INK, lw=1, ls="--", label=f"all households ({overall:.1f}%)")
    ax.set_xticks(
        x, labels, rotation=60 if len(rows) > 8 else 0, ha="right" if len(rows) > 8 else "center"
    )
    ax.yaxis.grid(True, color=GRID)
    ax.set_axisbelow(True)
    ax.set_ylabel("% swapped")
    ax.set_xlabel(f"area ({col})")
    ax.set_title(f"Share swapped per area ({col})", loc="left")
    ax.legend(frameon=True, framealpha=0.9, edgecolor=GRID, fontsize=8, loc="upper right", ncol=3)
    ax.set_ylim(0, max([*hh, *pp, overall, 1]) * 1.45)
    return Figure(
        id="fig-swap-areas",
        title="Swap rates per area",
        caption=(
            f"Share of households and persons of each {col} area whose geography was exchanged "
            "with a household elsewhere (attributed to the original area)."
        ),
        data_uri=_encode(fig),
        alt=f"Bar chart of the share of households and persons swapped per {col} area.",
    )


def swap_utility_figure(audit: dict[str, Any]) -> Figure | None:
    """Hellinger distance and mean relative change of the frequency tables per level;
    None without risk variables (a swap on a user risk): no table to cross the areas with."""
    swp = audit.get("swapping")
    if not swp or not swp["levels"]:
        return None
    if not (audit["parameters"].get("swapping") or {}).get("risk_variables"):
        return None
    import numpy as np

    plt = _plt()
    levels = swp["levels"]
    labels = [lv["hierarchy"] for lv in levels]
    x = np.arange(len(levels))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(7.2, 2.9))
    ax1.bar(x, [lv["hellinger"] for lv in levels], color=AFTER, width=0.55)
    ax1.set_xticks(x, labels)
    ax1.set_title("Hellinger distance", loc="left")
    ax1.yaxis.grid(True, color=GRID)
    ax1.set_axisbelow(True)
    ax2.bar(x, [100 * lv["mean_abs_rel_diff"] for lv in levels], color=ACCENT, width=0.55)
    ax2.set_xticks(x, labels)
    ax2.set_title("Mean |relative change| of cells", loc="left")
    ax2.set_ylabel("%")
    ax2.yaxis.grid(True, color=GRID)
    ax2.set_axisbelow(True)
    for ax in (ax1, ax2):
        ax.set_xlabel("hierarchy level x risk variables")
    fig.tight_layout()
    return Figure(
        id="fig-swap-utility",
        title="Change of the frequency tables",
        caption=(
            "For each level of the geography, the table of (area x risk variables) before and "
            "after swapping: Hellinger distance (0 = identical, 1 = disjoint) and mean absolute "
            "relative change of the cells that were not empty."
        ),
        data_uri=_encode(fig),
        alt="Bar charts of the Hellinger distance and mean relative change per hierarchy level.",
    )


def all_figures(audit: dict[str, Any]) -> list[Figure]:
    """The figures that apply to an audit record, in report order."""
    figs = [
        fk_figure(audit),
        risk_figure(audit),
        suppression_figure(audit),
        swap_area_figure(audit),
        swap_utility_figure(audit),
    ]
    return [f for f in figs if f is not None]
