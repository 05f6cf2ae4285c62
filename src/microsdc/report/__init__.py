"""The report of a job: one self-contained HTML page built from the audit record.

:func:`render_report` turns an audit record (see :mod:`microsdc.job.runner`
and ``audit.schema.json`` beside this module) into HTML with the figures
inlined as base64 PNG, so the page needs no network and no other file.

The report shows aggregates only: it never contains a record, a household
id, a seed, or a cell of a frequency table.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from microsdc._validation import param_error
from microsdc.report._format import _listing, _n, _p, _x, format_percent
from microsdc.report.sections import (
    GUARANTEES,
    STEP_LABELS,
    default_swaprate,
    intruder_text,
    l_diversity_texts,
    not_protected_text,
    parameters_text,
    release_method_texts,
    risk_after_text,
    risk_before_text,
    risk_steps,
    suda_text,
    suppression_text,
    swap_caveat_text,
    swapping_text,
)

__all__ = ["audit_schema", "format_percent", "plain_summary", "render_report"]


def audit_schema() -> dict[str, Any]:
    """The JSON schema of the audit record (draft 2020-12)."""
    text = resources.files("microsdc.report").joinpath("audit.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def plain_summary(audit: dict[str, Any]) -> list[str]:
    """A few paragraphs in plain language: what was done and what risk remains.

    Parameters
    ----------
    audit : dict
        An audit record.

    Returns
    -------
    list of str
        Paragraphs of plain text.
    """
    out = [parameters_text(audit)]
    headline = intruder_text(audit)  # the figure of the first card, first
    if headline is not None:
        out.append(headline)
    out.append(risk_before_text(audit))
    steps = (swapping_text(audit), suppression_text(audit), not_protected_text(audit))
    out += [text for text in steps if text is not None]
    out.extend(release_method_texts(audit))
    out.append(risk_after_text(audit))
    out.extend(l_diversity_texts(audit))
    special = suda_text(audit)
    if special is not None:
        out.append(special)
    out.extend(audit.get("not_computed", []))
    caveat = swap_caveat_text(audit)
    if caveat is not None:
        out.append(caveat)
    return out


def render_report(audit: dict[str, Any]) -> str:
    """Render the HTML report of an audit record.

    Parameters
    ----------
    audit : dict
        An audit record, as built by :func:`microsdc.job.run_job`.

    Returns
    -------
    str
        A complete HTML document, with CSS and figures inlined; no script, no
        external resource.

    Notes
    -----
    Only aggregates are shown. The parameters table says whether a seed was
    given, never its value.
    """
    import jinja2
    import markupsafe

    from microsdc.report.continuous_figures import continuous_figures
    from microsdc.report.continuous_section import continuous_section_html
    from microsdc.report.figures import all_figures
    from microsdc.report.pram_section import pram_section_html

    if not isinstance(audit, Mapping):
        raise param_error("audit", "render_report", "an audit record (a dict)", audit)
    text = (
        resources.files("microsdc.report").joinpath("templates/report.html.j2").read_text("utf-8")
    )
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True)
    env.filters["n"] = _n
    env.filters["pct"] = _p
    env.filters["x"] = _x
    env.filters["listing"] = _listing
    template = env.from_string(text)
    figures = [*all_figures(audit), *continuous_figures(audit)]
    return template.render(
        audit=audit,
        figures={f.id: f for f in figures},
        continuous_section=continuous_section_html(audit, figures),
        summary=plain_summary(audit),
        guarantees=GUARANTEES,
        risk_steps=risk_steps(audit),
        step_labels=STEP_LABELS,
        default_swaprate=default_swaprate(),
        pram_section=markupsafe.Markup(pram_section_html(audit, env)),
    )
