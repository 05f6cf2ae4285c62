"""The report of a job: one self-contained HTML page built from the audit record.

:func:`render_report` turns an audit record (see :mod:`microsdc.job.runner`
and ``audit.schema.json`` beside this module) into HTML with the figures
inlined as base64 PNG, so the page needs no network and no other file.

The report shows aggregates only: it never contains a record, a household
id, a seed, or a cell of a frequency table.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

__all__ = ["audit_schema", "format_percent", "plain_summary", "render_report"]


def audit_schema() -> dict[str, Any]:
    """The JSON schema of the audit record (draft 2020-12)."""
    text = resources.files("microsdc.report").joinpath("audit.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _n(x: float) -> str:
    return f"{x:,.0f}"


def _x(x: float) -> str:
    """A measured quantity: whole above 100, two decimals above 1, two significant digits below."""
    if x == 0:
        return "0"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 1:
        return f"{x:.2f}"
    return f"{x:.2g}"


def _p(x: float, digits: int = 1) -> str:
    """Percent with ``digits`` decimals, more for small non-zero values.

    A non-zero value never prints as zero: below 0.0001 % it prints as
    "< 0.0001 %".

    Examples
    --------
    >>> _p(0.25), _p(0.0004), _p(0.00000123, 2), _p(1e-9, 3), _p(0.0)
    ('25.0 %', '0.040 %', '0.00012 %', '< 0.0001 %', '0.0 %')
    """
    v = 100 * x
    if 0 < abs(v) < 1e-4:
        return "< 0.0001 %"
    while 0 < abs(v) < 10 ** (1 - digits) and digits < 6:
        digits += 1
    return f"{v:.{digits}f} %"


def _listing(value: Any, sep: str = ", ") -> str:
    """A list (or table) as text: ``["a", "b"]`` -> "a, b"; profiles ``[["a", "b"], ["a"]]``
    -> "a, b; else a"; weights ``{"a": 3, "b": 1}`` -> "a 3, b 1".

    Examples
    --------
    >>> _listing(["age", "sex"]), _listing([["hsize", "htype"], ["hsize"]])
    ('age, sex', 'hsize, htype; else hsize')
    >>> _listing({"age": 3, "sex": 1.5}), _listing([10.0, 20.5]), _listing("x")
    ('age 3, sex 1.5', '10, 20.5', 'x')
    """
    if isinstance(value, dict):
        return sep.join(f"{k} {_listing(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        if value and all(isinstance(v, list | tuple) for v in value):
            return "; else ".join(_listing(v) for v in value)
        return sep.join(_listing(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def format_percent(x: float, digits: int = 1) -> str:
    """A share as a percentage that never shows a non-zero value as zero.

    Parameters
    ----------
    x : float
        A share in [0, 1].
    digits : int, default 1
        Decimals; more are used for small values so that two significant
        digits show, and anything below 0.0001 % prints as "< 0.0001 %".

    Returns
    -------
    str

    Examples
    --------
    >>> format_percent(0.0123), format_percent(0.0000042, 2), format_percent(1e-12)
    ('1.2 %', '0.00042 %', '< 0.0001 %')
    """
    return _p(x, digits)


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
    p = audit["parameters"]
    before = audit["risk"]["before"]
    after = audit["risk"]["after"]
    k = before["k"]
    qi = p["quasi_identifiers"]
    n = before["n_records"]
    out = []
    intro = (
        f"The file has {_n(n)} records. We assumed an intruder knows {len(qi)} key "
        f"variables ({', '.join(qi)}) and asked that every record share its combination of "
        f"these with at least {k - 1} other record{'s' if k > 2 else ''} (k = {k})."
    )
    if p["missing"] == "wildcard":
        intro += " A missing value counts as matching any value."
    if p["recode"]:
        cols = ", ".join(f"{r['column']} ({r['bins']} bands)" for r in audit["recode"])
        intro += f" Numeric key variables were grouped into bands first: {cols}."
    out.append(intro)
    out.append(
        f"Before protection, {_n(before['n_at_risk'])} records ({_p(before['share_at_risk'])}) "
        f"were in groups smaller than {k}, {_n(before['n_unique'])} of them unique. The expected "
        f"number of correct re-identifications was {_x(before['expected_reidentifications'])} "
        f"({_p(before['global_risk'], 2)} of records)."
    )
    swp = audit.get("swapping")
    if swp:
        sp = p["swapping"] or {}
        out.append(
            f"Targeted record swapping exchanged the geography ({', '.join(p['hierarchy'])}) of "
            f"{_n(swp['n_swapped_households'])} of {_n(swp['n_households'])} households "
            f"({_p(swp['share_households'])}; {_n(swp['n_swapped_persons'])} persons), swapping "
            f"first the households at risk on {', '.join(sp.get('risk_variables', []))}. "
            "Swapping does not make records less unique; it makes any match uncertain, because "
            "an intruder cannot tell whether a record sits in its true area. "
            + (
                "A random seed was given so the run can be repeated; it is kept out of this "
                "report and of the released file because it would allow the swap to be undone."
                if sp.get("seed_given")
                else "No seed was given, so the swap cannot be repeated exactly."
            )
        )
        if swp["n_no_donor"]:
            out[-1] += (
                f" For {_n(swp['n_no_donor'])} household(s) at risk no suitable partner was "
                "found; they kept their geography."
            )
    sup = audit.get("suppression")
    if sup:
        top = sorted(sup["per_variable"].items(), key=lambda kv: -kv[1])
        top = [(name, c) for name, c in top if c][:3]
        most = ", ".join(f"{name} ({_n(c)})" for name, c in top)
        out.append(
            f"Local suppression blanked {_n(sup['total'])} key-variable cells "
            f"({_p(sup['share'], 2)} of the observed cells) in "
            f"{_n(sup['records_with_suppression'])} records"
            + (f", mostly in {most}." if most else ".")
            + " No other value was changed."
        )
        guarantee = sup.get("guarantee", "wildcard")
        if isinstance(guarantee, (int, float)):  # alpha, as sdcMicro's freqCalc
            sentence = ALPHA_SENTENCE.format(k=k, alpha=f"{guarantee:g}")
        else:
            sentence = GUARANTEE_SENTENCES.get(guarantee, "").format(k=k, km1=k - 1)
        out[-1] += " " + sentence
        if sup.get("true_fk_below_k"):
            out[-1] += (
                f" For {_n(sup['true_fk_below_k'])} of these records, someone who knows the "
                f"blanked values would still find fewer than {k} released records that fit them."
            )
        pros = sup.get("prosecutor_risk")
        if pros:
            b, a = pros["before"], pros["after"]
            out[-1] += (
                " Someone who knows a person's true key values and looks for them in the "
                f"file picks the right record with a probability of at most {_p(a['max'])} "
                f"(before: {_p(b['max'])}), {_p(a['mean'], 1)} on average (before: "
                f"{_p(b['mean'], 1)}); {_n(a['n_above_1_over_k'])} records stay above 1/{k} "
                f"(before: {_n(b['n_above_1_over_k'])})."
            )
    protected = bool(swp or sup)
    if not protected:
        out.append("Only the risk was measured; no protection step was run.")
    remain = (
        ("After protection, " if protected else "So, ")
        + f"{_n(after['n_at_risk'])} records are in groups smaller than {k}"
        + (" (the file is k-anonymous)" if after["n_at_risk"] == 0 else "")
        + f"; the expected number of correct re-identifications is "
        f"{_x(after['expected_reidentifications'])} ({_p(after['global_risk'], 2)} of records), "
        f"and {_n(after['n_high_risk'])} records have an individual risk above "
        f"{_p(after['risk_threshold'], 0)}."
    )
    if after.get("household"):
        remain += (
            f" Counting a household as disclosed when any member is, "
            f"{_x(after['household']['expected_reidentifications'])} persons are expected to "
            "live in a re-identified household."
        )
    out.append(remain)
    for name, ld in after.get("l_diversity", {}).items():
        b = before["l_diversity"][name]
        if ld["kind"] == "recursive":
            what = f"no recursive ({ld['c']:g}, {ld['l']})-diversity"
        elif ld["kind"] == "entropy":
            what = f"an entropy l-diversity below {ld['l']}"
        else:
            what = f"fewer than {ld['l']} distinct values"
        out.append(
            f"Sensitive variable {name}: {_n(ld['n_failing'])} records "
            f"({_p(ld['share_failing'])}) belong to a group with {what} of {name} "
            f"(before: {_n(b['n_failing'])}). For them, {name} can be learnt without "
            "re-identifying anyone."
        )
    out.extend(audit.get("not_computed", []))
    if swp and after["n_at_risk"]:
        out.append(
            "The records still in small groups are protected by the swap (their area may be "
            "false), not by being hidden among others; judge whether that is enough for this "
            "release."
        )
    return out


#: What each guarantee of local suppression means, in one sentence for the report.
GUARANTEE_SENTENCES = {
    "wildcard": (
        "Suppression counted a blank as matching any value (as sdcMicro does): every "
        "record fits at least {k} released records, but blank records can make up that "
        "count, so this does not stop someone who knows all of a person's key values."
    ),
    "probabilistic": (
        "Suppression counted another record's blank as matching a value only with that "
        "value's share of the released data, so blank records cannot make up the count of "
        "{k}; a person whose values are all known can still be narrowed down to fewer "
        "than {k} records that match exactly."
    ),
    "category": (
        "Suppression made every released record identical on the key variables, blanks "
        "included, to at least {km1} others: even someone who knows all of a person's key "
        "values faces at least {k} records they cannot tell apart."
    ),
}


#: The guarantee of suppression under a number alpha (sdcMicro's freqCalc), in one sentence.
ALPHA_SENTENCE = (
    "Suppression counted a released record that matches only through a blank as {alpha} "
    "of a match (alpha, as sdcMicro's freqCalc), complete records and records of the same "
    "pattern in full: every record reaches {k} by that count, but the blanks still make "
    "up part of it, so this does not stop someone who knows all of a person's key values."
)


#: The three guarantees side by side (guarantee, what a released record is protected
#: against, what it does not protect against), for the report.
GUARANTEES = (
    (
        "wildcard",
        "an intruder who knows some key values and takes a blank for any value",
        "blank records count as matches: k - 1 blank records satisfy it for everyone",
    ),
    (
        "probabilistic",
        "the same, with other records' blanks counting only with the value's share",
        "an intruder who knows every key value may still find fewer than k exact matches",
    ),
    (
        "category",
        "an intruder who knows every key value of a person: k identical records remain",
        "learning a sensitive value shared by the class (see l-diversity); costs the most cells",
    ),
)


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

    from microsdc.report.figures import all_figures

    text = (
        resources.files("microsdc.report").joinpath("templates/report.html.j2").read_text("utf-8")
    )
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True)
    env.filters["n"] = _n
    env.filters["pct"] = _p
    env.filters["x"] = _x
    env.filters["listing"] = _listing
    template = env.from_string(text)
    return template.render(
        audit=audit,
        figures={f.id: f for f in all_figures(audit)},
        summary=plain_summary(audit),
        guarantees=GUARANTEES,
    )
