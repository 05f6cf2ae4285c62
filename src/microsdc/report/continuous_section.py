"""The report's section on continuous variables (microaggregation, noise): an HTML fragment.

Built from the audit record's ``continuous`` entry (:mod:`microsdc.job.continuous`): the
risk and utility measures in one table with a plain sentence each, means, variances,
Gini coefficients and correlations before and after (per group of ``compare_by`` when
given), and one figure per variable (:mod:`microsdc.report.continuous_figures`). The
fragment is self-contained so that any page layout can place it.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from microsdc.report._format import _n, _p, _x
from microsdc.report.figures import Figure

__all__ = ["continuous_section_html", "measure_rows"]


def _num(x: float | None) -> str:
    """A level (a mean, a variance) to four significant digits; powers of ten as such."""
    if x is None or not math.isfinite(x):
        return "&ndash;"
    if x != 0 and (abs(x) >= 1e7 or abs(x) < 1e-3):
        mantissa, exponent = f"{x:.4e}".split("e")
        return f"{mantissa} &times; 10<sup>{int(exponent)}</sup>"
    return escape(f"{x:,.4g}" if abs(x) < 1000 else f"{x:,.0f}")


def _change(before: float | None, after: float | None) -> str:
    """The relative change from ``before`` to ``after``, signed, in percent."""
    if before is None or after is None or before == 0:
        return "&ndash;"
    rel = (after - before) / abs(before)
    sign = "+" if rel > 0 else ("&minus;" if rel < 0 else "")
    return f"{sign}{_p(abs(rel), 2)}"


def _gini(x: float | None) -> str:
    """A coefficient (Gini, correlation) to four decimals, a true minus sign."""
    return "&ndash;" if x is None else f"{x:.4f}".replace("-", "&minus;")


def measure_rows(cont: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(measure, value, what it means) for the risk and utility measures of the entry, as
    HTML (names escaped)."""
    names = ", ".join(escape(v) for v in cont["variables"])
    fraction = f"{cont['interval_fraction_of_sd']:g}"
    linked = cont["linked_share"]
    return [
        (
            "records linked to their own original (distance-based record linkage)",
            _p(linked, 1) if linked is not None else "&ndash;",
            f"An intruder who holds the original {names} and links each released record to "
            "the nearest original record finds the right person for this share of the "
            "records (100 % for an unprotected file).",
        ),
        (
            f"records within {fraction} sd of their values (interval disclosure)",
            _p(cont["interval_share"], 1),
            f"For this share of the records every released value lies within {fraction} of "
            "a standard deviation of the true one, so the release tells the true values to "
            "within that margin.",
        ),
        (
            "IL1s: distance from the original values (sum over cells)",
            f"{_x(cont['il1s'])} ({_x(cont['il1s_per_cell'])} per cell)",
            "The absolute changes of all cells, each in units of &radic;2 standard "
            "deviations, added up as sdcMicro's dUtility does: 0 means nothing changed, and "
            "the figure per cell compares files of any size.",
        ),
        (
            "eigenvalue measure",
            _x(cont["eigen"]),
            "The relative change of the eigenvalues of the correlation matrix: near 0, "
            "regressions and principal components find the same joint structure as in the "
            "original values.",
        ),
        (
            "SSE/SST",
            _x(cont["sse_sst"]),
            "The squared changes of the standardised values over their total sum of "
            f"squares: the masking's error amounts to {_p(cont['sse_sst'], 2)} of the "
            "variables' variation (all these steps together; the summary gives each step's).",
        ),
    ]


def _measures_table(cont: dict[str, Any]) -> str:
    rows = "".join(
        f'<tr><td>{m}</td><td class="num">{v}</td><td>{meaning}</td></tr>'
        for m, v, meaning in measure_rows(cont)
    )
    return (
        '<table id="table-continuous-measures"><thead><tr><th>measure</th>'
        '<th class="num">value</th><th>what it means</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
    )


def _moment_cells(r: dict[str, Any]) -> str:
    cells = []
    for key in ("mean", "var"):
        b, a = r[f"{key}_before"], r[f"{key}_after"]
        cells += [_num(b), _num(a), _change(b, a)]
    cells += [_gini(r["gini_before"]), _gini(r["gini_after"])]
    return "".join(f'<td class="num">{c}</td>' for c in cells)


_MOMENT_HEAD = (
    '<th class="num">mean<br>before</th><th class="num">mean<br>after</th>'
    '<th class="num">change</th><th class="num">variance<br>before</th>'
    '<th class="num">variance<br>after</th><th class="num">change</th>'
    '<th class="num">Gini<br>before</th><th class="num">Gini<br>after</th>'
)

#: the tables of means and variances in a smaller type, to fit the page
_COMPACT = ' style="font-size: 12.5px"'


def _moments_table(cont: dict[str, Any]) -> str:
    body = "".join(
        f"<tr><td>{escape(r['column'])}</td>{_moment_cells(r)}"
        f'<td class="num">{_p(r["interval_share"], 1)}</td></tr>'
        for r in cont["per_variable"]
    )
    head = f'<tr><th>variable</th>{_MOMENT_HEAD}<th class="num">within the<br>interval</th></tr>'
    return (
        f'<div class="scroll"><table id="table-continuous-moments"{_COMPACT}>'
        f"<thead>{head}</thead><tbody>{body}</tbody></table></div>"
    )


def _groups_table(cont: dict[str, Any], k: object) -> str:
    rows = sorted(cont["by_group"], key=lambda r: (r["group"] == "(missing)", r["group"]))
    body = "".join(
        f'<tr><td>{escape(r["group"])}</td><td class="num">{_n(r["records"])}</td>'
        f"<td>{escape(r['column'])}</td>{_moment_cells(r)}</tr>"
        for r in rows
    )
    by = escape(str(cont["compare_by"]))
    return (
        f"<h3>By {by}</h3>"
        f'<div class="scroll"><table id="table-continuous-groups"{_COMPACT}>'
        f'<thead><tr><th>{by}</th><th class="num">records</th><th>variable</th>'
        f"{_MOMENT_HEAD}</tr></thead><tbody>{body}</tbody></table></div>"
        f'<p class="note">The same figures within each group of {by} (its values before '
        "the continuous steps; records without one form the group &ldquo;(missing)&rdquo;): "
        "a regional table from the released file is off by these changes. A group of "
        f"fewer than {k} records (the job's k) shows no figures: its mean would come "
        "close to a person's amount.</p>"
    )


def _correlation_table(cont: dict[str, Any]) -> str:
    names = cont["variables"]
    before, after = cont["correlations"]["before"], cont["correlations"]["after"]
    body = ""
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            b, a = before[i][j], after[i][j]
            diff = "&ndash;" if b is None or a is None else _gini(a - b)
            body += (
                f"<tr><td>{escape(names[i])} &times; {escape(names[j])}</td>"
                f'<td class="num">{_gini(b)}</td><td class="num">{_gini(a)}</td>'
                f'<td class="num">{diff}</td></tr>'
            )
    if not body:
        return ""
    return (
        '<table id="table-continuous-correlations"><thead><tr><th>variables</th>'
        '<th class="num">correlation before</th><th class="num">after</th>'
        '<th class="num">change</th></tr></thead>'
        f"<tbody>{body}</tbody></table>"
        '<p class="note">Pearson correlation of the records with both values: what a '
        "regression of one on the other would find in the released file.</p>"
    )


def _figure_html(f: Figure) -> str:
    return (
        f'<figure id="{escape(f.id)}" class="report-figure">'
        f'<img src="{f.data_uri}" alt="{escape(f.alt)}">'
        f"<figcaption><strong>{escape(f.title)}.</strong> {escape(f.caption)}</figcaption>"
        "</figure>"
    )


def _moment_notes(cont: dict[str, Any]) -> str:
    weighted = f", weighted by {escape(cont['weights'])}" if cont.get("weights") else ""
    items = [
        f"Mean{weighted}: the average a table from the released file publishes; the change "
        "is its error.",
        "Variance: the spread of the values; group means narrow it, noise widens it, and "
        "the change is the error of a published standard deviation squared.",
        "Gini: inequality, from 0 (everyone holds the same amount) to 1 (one holds "
        "everything); shown for amounts that are never below 0.",
        "Within the interval: the share of records whose released value lies within "
        f"{cont['interval_fraction_of_sd']:g} sd of the true one, this variable alone.",
    ]
    return '<ul class="note">' + "".join(f"<li>{t}</li>" for t in items) + "</ul>"


def continuous_section_html(audit: dict[str, Any], figures: list[Figure]) -> str:
    """The section on continuous variables as HTML, or "" when none was changed.

    Parameters
    ----------
    audit : dict
        An audit record.
    figures : list of Figure
        Its figures (those of :func:`microsdc.report.continuous_figures.continuous_figures`
        are placed here, by id).

    Returns
    -------
    str
        A ``<section id="continuous">`` element, its text escaped.
    """
    from microsdc.report.continuous_figures import figure_id

    cont = audit.get("continuous")
    if not cont:
        return ""
    by_id = {f.id: f for f in figures}
    steps = " and ".join(cont["steps"])
    names = ", ".join(escape(v) for v in cont["variables"])
    intro = (
        f"<p>{escape(steps.capitalize())} changed {names}. Every figure compares the values "
        f"these steps started from (after any suppression) with the released ones, record by "
        f"record: {_n(cont['records_compared'])} records have every one of these variables "
        "on both sides.</p>"
    )
    figs = "".join(
        _figure_html(by_id[figure_id(i)])
        for i in range(len(cont["variables"]))
        if figure_id(i) in by_id
    )
    parts = [
        '<section id="continuous">',
        "<h2>Continuous variables</h2>",
        intro,
        "<h3>Risk and information loss</h3>",
        _measures_table(cont),
        "<h3>Means, variances and inequality before and after</h3>",
        _moments_table(cont),
        _moment_notes(cont),
        _correlation_table(cont),
        _groups_table(cont, audit["parameters"]["k"]) if cont.get("by_group") else "",
        figs,
        "</section>",
    ]
    return "\n".join(p for p in parts if p)
