"""The audit record section by section, in words: the summary of the report and the console.

Each section of an audit record (parameters, risk before and after, swapping, suppression,
l-diversity, notes) has its paragraph of the plain-language summary (``*_text``, used by
:func:`microsdc.report.plain_summary`) and its part of what ``microsdc run`` prints
(``print_*``, used by :func:`microsdc.report.console.print_audit`). The two say the same
things with different precision: the summary rounds for reading, the console gives the
figures.
"""

from __future__ import annotations

from typing import Any

from microsdc.report._format import _n, _p, _x, format_percent


def default_swaprate() -> float:
    """The swap rate a job uses when it gives none: the library's default."""
    import inspect

    from microsdc.swapping import record_swap_result

    return float(inspect.signature(record_swap_result).parameters["swaprate"].default)


__all__ = [
    "ALPHA_SENTENCE",
    "GUARANTEES",
    "GUARANTEE_SENTENCES",
    "STEP_LABELS",
    "guarantee_sentence",
    "intruder_text",
    "l_diversity_texts",
    "not_protected_text",
    "parameters_text",
    "print_notes",
    "print_risk_steps",
    "print_risk_table",
    "print_suppression",
    "print_swapping",
    "release_method_texts",
    "risk_after_text",
    "risk_before_text",
    "risk_steps",
    "suda_text",
    "suppressed_cells",
    "suppression_text",
    "swap_caveat_text",
    "swap_rate_note",
    "swapping_text",
]


def _protected(audit: dict[str, Any]) -> bool:
    """Whether a protection step (swapping, suppression, PRAM, microaggregation, noise) ran."""
    steps = ("swapping", "suppression", "pram", "microaggregation", "noise")
    return any(audit.get(step) for step in steps)


# --- parameters ---------------------------------------------------------------------------


def parameters_text(audit: dict[str, Any]) -> str:
    """The records, the key variables, k, and how missing values and recoding count."""
    p = audit["parameters"]
    before = audit["risk"]["before"]
    k = before["k"]
    qi = p["quasi_identifiers"]
    intro = (
        f"The file has {_n(before['n_records'])} records. We assumed an intruder knows {len(qi)} "
        f"key variables ({', '.join(qi)}) and asked that every record share its combination of "
        f"these with at least {k - 1} other record{'s' if k > 2 else ''} (k = {k})."
    )
    if p["missing"] == "wildcard":
        intro += " A missing value counts as matching any value."
    if p["recode"] and any(r.get("description") for r in p["recode"]):  # done in Python
        cols = ", ".join(f"{r['column']} ({r['bins']} categories)" for r in audit["recode"])
        intro += f" Variables were recoded first: {cols}."
    elif p["recode"]:
        cols = ", ".join(f"{r['column']} ({_recoded(r)})" for r in audit["recode"])
        if all(set(r) <= {"column", "bins", "distinct_before"} for r in audit["recode"]):
            intro += f" Numeric key variables were grouped into bands first: {cols}."
        else:
            intro += f" Columns were recoded first: {cols}."
    return intro


def _recoded(note: dict[str, Any]) -> str:
    """What ``[recode]`` did to one column, from its audit note."""
    done = []
    for bound in ("bottom", "top"):
        if f"{bound}_coded" in note:
            done.append(f"{_n(note[f'{bound}_coded'])} values {bound}-coded")
    if "bins" in note:
        done.append(f"{note['bins']} bands")
    if "categories_after" in note:
        done.append(f"{note['distinct_before']} categories merged into {note['categories_after']}")
    return ", ".join(done)


# --- risk ---------------------------------------------------------------------------------


#: How each entry of the audit's ``risk.steps`` is named in the report and the console.
STEP_LABELS = {
    "read": "as read",
    "recode": "after recoding",
    "swapping": "after swapping",
    "suppression": "after suppression",
    "pram": "after PRAM",
    "microaggregation": "after microaggregation",
    "noise": "after noise",
}


def risk_steps(audit: dict[str, Any]) -> list[dict[str, Any]]:
    """The risk as read and after each step (the audit's ``risk.steps``) when a step
    came between the file as read and the last one (recoding, or swapping followed
    by suppression); else ``[]``: the risk before and after says it all."""
    steps: list[dict[str, Any]] = audit["risk"].get("steps") or []
    return steps if len(steps) > 2 or (len(steps) == 2 and steps[1]["step"] == "recode") else []


def risk_before_text(audit: dict[str, Any]) -> str:
    """The records at risk and the expected re-identifications of the file as read, and
    the records at risk after each step before the last."""
    before = audit["risk"]["before"]
    k = before["k"]
    steps = risk_steps(audit)
    text = (
        ("As read, before any step, " if steps else "Before protection, ")
        + f"{_n(before['n_at_risk'])} records ({_p(before['share_at_risk'])}) "
        f"were in groups smaller than {k}, {_n(before['n_unique'])} of them unique. "
        "The expected number of correct re-identifications was "
        f"{_x(before['expected_reidentifications'])} ({_p(before['global_risk'], 2)} of records)."
    )
    between = steps[1:-1] if len(steps) > 2 else steps[1:]
    for stage in between:
        what = {"recode": "Recoding into bands", "swapping": "Swapping"}.get(stage["step"])
        if what is None:
            continue
        text += (
            f" {what} left {_n(stage['n_at_risk'])} records ({_p(stage['share_at_risk'])}) "
            f"in groups smaller than {k}, {_n(stage['n_unique'])} of them unique."
        )
    return text


def not_protected_text(audit: dict[str, Any]) -> str | None:
    """The sentence that says no protection step ran; None if one did."""
    if _protected(audit):
        return None
    return "Only the risk was measured; no protection step was run."


def risk_after_text(audit: dict[str, Any]) -> str:
    """The risk that remains: records at risk, re-identifications, high risk, households."""
    after = audit["risk"]["after"]
    k = audit["risk"]["before"]["k"]
    remain = (
        ("After protection, " if _protected(audit) else "So, ")
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
    return remain


def suda_text(audit: dict[str, Any]) -> str | None:
    """The special uniques before and after, and the variable that contributes most
    (None when the job did not look for them)."""
    before, after = audit["risk"]["before"], audit["risk"]["after"]
    b, a = before.get("suda"), after.get("suda")
    if not b or not a:
        return None
    text = (
        f"Special uniques (records unique on at most {b['max_msu']} of their key values): "
        f"{_n(a['records_with_msu'])} records ({_p(a['share_with_msu'])}) after protection, "
        f"{_n(b['records_with_msu'])} before; highest DIS-SUDA score {a['max_dis_suda']:.3g} "
        f"(before: {b['max_dis_suda']:.3g})."
    )
    if b["variables"]:
        top = b["variables"][0]
        text += (
            f" Before protection {top['variable']} contributed most to the SUDA score "
            f"({top['contribution']:.1f} %)."
        )
    return text


def l_diversity_texts(audit: dict[str, Any]) -> list[str]:
    """One paragraph per sensitive variable: the records whose value can be learnt."""
    before, after = audit["risk"]["before"], audit["risk"]["after"]
    out = []
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
    return out


def _risk_rows(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The rows (measure, before, after) of the console's risk table."""
    k = before["k"]
    rows = [
        ("records", f"{before['n_records']:,}", f"{after['n_records']:,}"),
        (f"records with fk < {k}", f"{before['n_at_risk']:,}", f"{after['n_at_risk']:,}"),
        ("unique records (fk = 1)", f"{before['n_unique']:,}", f"{after['n_unique']:,}"),
        (
            "expected re-identifications",
            f"{before['expected_reidentifications']:,.2f}",
            f"{after['expected_reidentifications']:,.2f}",
        ),
        (
            "global risk",
            format_percent(before["global_risk"], 2),
            format_percent(after["global_risk"], 2),
        ),
        (
            f"records with risk > {before['risk_threshold']:g}",
            f"{before['n_high_risk']:,}",
            f"{after['n_high_risk']:,}",
        ),
    ]
    if before.get("household") and after.get("household"):
        rows.append(
            (
                "household risk (persons)",
                f"{before['household']['expected_reidentifications']:,.2f}",
                f"{after['household']['expected_reidentifications']:,.2f}",
            )
        )
    for name, ld in before.get("l_diversity", {}).items():
        rows.append(
            (
                f"records failing {ld['kind']} l-diversity on {name}",
                f"{ld['n_failing']:,}",
                f"{after['l_diversity'][name]['n_failing']:,}",
            )
        )
    return rows


def print_risk_table(audit: dict[str, Any], out: Any) -> None:
    """Print the risk before and after as a table titled with the job's title."""
    from rich.markup import escape  # user text (titles, notes, paths) is not markup
    from rich.table import Table

    table = Table(
        title=escape(audit["title"]), title_justify="left", show_edge=False, pad_edge=False
    )
    table.add_column("measure")
    table.add_column("before", justify="right")
    table.add_column("after", justify="right")
    for row in _intruder_rows(audit.get("intruder")):
        table.add_row(*row)
    for row in _risk_rows(audit["risk"]["before"], audit["risk"]["after"]):
        table.add_row(*row)
    out.print(table)


def print_risk_steps(audit: dict[str, Any], out: Any) -> None:
    """Print the risk as read and after each step; nothing when no step came between the
    file as read and the last step (the risk table says it all)."""
    from rich.table import Table

    steps = risk_steps(audit)
    if not steps:
        return
    k = audit["risk"]["before"]["k"]
    table = Table(
        title="Risk after each step", title_justify="left", show_edge=False, pad_edge=False
    )
    table.add_column("measure")
    for stage in steps:
        table.add_column(STEP_LABELS.get(stage["step"], stage["step"]), justify="right")
    rows = (
        (f"records with fk < {k}", "n_at_risk", "{:,}"),
        ("unique records (fk = 1)", "n_unique", "{:,}"),
        ("expected re-identifications", "expected_reidentifications", "{:,.2f}"),
        ("records with high risk", "n_high_risk", "{:,}"),
    )
    for label, key, fmt in rows:
        table.add_row(label, *(fmt.format(stage[key]) for stage in steps))
    out.print(table)


def _intruder_rows(it: dict[str, Any] | None) -> list[tuple[str, str, str]]:
    """The headline rows of the console's risk table: records an intruder who knows their
    key values picks with probability above 1/k (green only when none is left), and the
    highest probability."""
    if not it:
        return []
    b, a = it["before"], it["after"]
    n = a["n_above_1_over_k"]
    colour = "green" if n == 0 else "red"
    return [
        (
            f"records an intruder who knows their key values picks with probability "
            f"above 1/{it['k']}",
            f"{b['n_above_1_over_k']:,}",
            f"[{colour}]{n:,}[/{colour}]",
        ),
        ("highest such probability", f"{b['max']:.2f}", f"{a['max']:.2f}"),
    ]


def intruder_text(audit: dict[str, Any]) -> str | None:
    """The headline in words: the records an intruder who knows their key values picks
    with probability above 1/k, before and after; None without the figure."""
    it = audit.get("intruder")
    if not it:
        return None
    b, a = it["before"], it["after"]
    k = it["k"]
    text = (
        f"Someone who knows a person is in the file and knows the person's key values picks "
        f"the person's record with a probability above 1/{k} for "
        f"{_n(a['n_above_1_over_k'])} records after protection (before: "
        f"{_n(b['n_above_1_over_k'])}); the highest such probability is {_p(a['max'])} "
        f"(before: {_p(b['max'])})."
    )
    if a["n_above_1_over_k"] and _protected(audit):
        text += (
            " Those records are not protected against such an intruder, whatever the "
            "counts of groups below say."
        )
    return text


# --- swapping -----------------------------------------------------------------------------


def swapping_text(audit: dict[str, Any]) -> str | None:
    """What the swap exchanged, why it protects, and whether it can be repeated; None if no swap."""
    swp = audit.get("swapping")
    if not swp:
        return None
    p = audit["parameters"]
    sp = p["swapping"] or {}
    text = (
        f"Targeted record swapping exchanged the geography ({', '.join(p['hierarchy'])}) of "
        f"{_n(swp['n_swapped_households'])} of {_n(swp['n_households'])} households "
        f"({_p(swp['share_households'])}; {_n(swp['n_swapped_persons'])} persons), swapping "
        + (
            f"first the households whose risk, given by the user, is above "
            f"{sp.get('risk_threshold', 0):g}. "
            if sp.get("risk")
            else f"first the households at risk on {', '.join(sp.get('risk_variables', []))}. "
        )
        + "Swapping does not make records less unique; it makes any match uncertain, because "
        "an intruder cannot tell whether a record sits in its true area. "
        + (
            "A random seed was given so the run can be repeated; it is kept out of this "
            "report and of the released file because it would allow the swap to be undone."
            if sp.get("seed_given")
            else "No seed was given, so the swap cannot be repeated exactly."
        )
    )
    if swp["n_no_donor"]:
        text += (
            f" For {_n(swp['n_no_donor'])} household(s) at risk no suitable partner was "
            "found; they kept their geography."
        )
    return text


def swap_caveat_text(audit: dict[str, Any]) -> str | None:
    """After a swap, records still at risk are protected by the swap alone; None otherwise."""
    if not (audit.get("swapping") and audit["risk"]["after"]["n_at_risk"]):
        return None
    return (
        "The records still in small groups are protected by the swap (their area may be "
        "false), not by being hidden among others; judge whether that is enough for this "
        "release."
    )


def swap_rate_note(
    n_swapped: int,
    n_households: int,
    swaprate: float,
    at_risk: int,
    k: int,
    risk_variables: list[str],
    *,
    k_name: str = "-k",
    rv_name: str = "--risk-variables",
    threshold: float | None = None,
) -> str | None:
    """Why more households than the swap rate were swapped, and what to change; None if not.
    With ``threshold`` (a swap on a risk given by the user) the note names it, not k and
    the risk variables, which that swap leaves unused.

    Examples
    --------
    >>> note = swap_rate_note(300, 1000, 0.05, 363, 3, ["sex", "age"])
    >>> print(note)  # doctest: +NORMALIZE_WHITESPACE
    300 of 1,000 households (30.0 %) were swapped, more than the swap rate of 5 %: the rate
    is a minimum, and every household at risk is swapped, with a partner from another area,
    when one is found (363 households have a member who shares sex, age with fewer than 3
    persons of the area). To swap fewer, lower -k or use fewer or coarser risk variables
    (--risk-variables; e.g. age in bands); a higher k swaps more.
    >>> swap_rate_note(50, 1000, 0.05, 10, 3, ["sex"]) is None
    True
    """
    if not n_households or n_swapped <= 2 * max(round(swaprate * n_households / 2), 1) + 1:
        return None
    share = n_swapped / n_households
    if threshold is not None:  # a risk given by the user: no risk variables, no k
        return (
            f"{n_swapped:,} of {n_households:,} households ({100 * share:.1f} %) were swapped, "
            f"more than the swap rate of {100 * swaprate:g} %: the rate is a minimum, and every "
            f"household at risk is swapped, with a partner from another area, when one is found "
            f"({at_risk:,} households have a risk, given by the user, above {threshold:g}). To "
            "swap fewer, raise the risk threshold."
        )
    if at_risk:
        why = (
            f"every household at risk is swapped, with a partner from another area, when one is "
            f"found ({at_risk:,} "
            f"households have a member who shares {', '.join(risk_variables)} with fewer than "
            f"{k} persons of the area)"
        )
    else:
        why = "households at risk are swapped first"
    return (
        f"{n_swapped:,} of {n_households:,} households ({100 * share:.1f} %) were swapped, more "
        f"than the swap rate of {100 * swaprate:g} %: the rate is a minimum, and {why}. To swap "
        f"fewer, lower {k_name} or use fewer or coarser risk variables ({rv_name}; e.g. age in "
        "bands); a higher k swaps more."
    )


def _print_swap_levels(swp: dict[str, Any], out: Any) -> None:
    """Print the households at risk, swapped and without a donor per hierarchy level."""
    from rich.table import Table

    levels = Table(
        title="Record swapping per hierarchy level",
        title_justify="left",
        show_edge=False,
        pad_edge=False,
    )
    for name in (
        "level",
        "households at risk",
        "households swapped",
        "persons swapped",
        "without a donor",
    ):
        levels.add_column(name, justify="left" if name == "level" else "right")
    for row in swp["counts_per_level"]:
        levels.add_row(
            str(row["hierarchy"]),
            f"{row['households_at_risk']:,}",
            f"{row['households_swapped']:,}",
            f"{row['persons_swapped']:,}",
            f"{row['households_without_donor']:,}",
        )
    out.print(levels)


def print_swapping(audit: dict[str, Any], out: Any) -> None:
    """Print the swap per level, its totals, a note when it exceeded its rate, and how it
    protects; nothing if no swap ran."""
    from rich.markup import escape

    swp = audit.get("swapping")
    if not swp:
        return
    k = audit["risk"]["before"]["k"]
    _print_swap_levels(swp, out)
    at_risk = sum(row["households_at_risk"] for row in swp["counts_per_level"])
    out.print(
        f"Swapped {swp['n_swapped_households']:,} of {swp['n_households']:,} households "
        f"({swp['share_households']:.2%}) and {swp['n_swapped_persons']:,} persons "
        f"({swp['share_persons']:.2%}); {at_risk:,} households were at risk, "
        f"{swp['n_no_donor']:,} found no donor."
    )
    sp = audit["parameters"].get("swapping") or {}
    note = swap_rate_note(
        swp["n_swapped_households"],
        swp["n_households"],
        float(sp.get("swaprate", default_swaprate())),
        at_risk,
        int(sp.get("k_anonymity", k)),
        list(sp.get("risk_variables", [])),
        k_name="swapping.k_anonymity",
        rv_name="swapping.risk_variables",
        threshold=float(sp["risk_threshold"]) if sp.get("risk") else None,
    )
    if note:
        out.print(f"[bold]Note:[/bold] {escape(note)}")
    out.print(
        "[dim]Swapping moves whole households between areas, so the frequency counts above "
        "barely change, and may even rise: a household moved into an area where its "
        "combination is rare, or one left behind by those that moved, is rare there. It "
        "protects by making the area of every record uncertain: an intruder who finds a "
        "rare record cannot tell whether it lives where the file says.[/dim]"
    )


# --- suppression --------------------------------------------------------------------------


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


#: The three guarantees side by side, the default first (guarantee, what a released record
#: is protected against, what it does not protect against), for the report.
GUARANTEES = (
    (
        "category",
        "an intruder who knows every key value of a person: k identical records remain",
        "learning a sensitive value shared by the class (see l-diversity); costs the most cells",
    ),
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
)


def guarantee_sentence(guarantee: Any, k: int) -> str:
    """The sentence of a guarantee (a name, or alpha as a number); "" for an unknown name."""
    if isinstance(guarantee, (int, float)):  # alpha, as sdcMicro's freqCalc
        return ALPHA_SENTENCE.format(k=k, alpha=f"{guarantee:g}")
    return GUARANTEE_SENTENCES.get(guarantee, "").format(k=k, km1=k - 1)


def suppressed_cells(sup: dict[str, Any]) -> list[tuple[str, int]]:
    """The key variables with blanked cells and their counts, in the audit's order."""
    return [(name, c) for name, c in sup["per_variable"].items() if c]


def _prosecutor_sentence(pros: dict[str, Any], k: int) -> str:
    b, a = pros["before"], pros["after"]
    return (
        " Someone who knows a person's true key values and looks for them in the "
        f"file picks the right record with a probability of at most {_p(a['max'])} "
        f"(before: {_p(b['max'])}), {_p(a['mean'], 1)} on average (before: "
        f"{_p(b['mean'], 1)}); {_n(a['n_above_1_over_k'])} records stay above 1/{k} "
        f"(before: {_n(b['n_above_1_over_k'])})."
    )


def suppression_text(audit: dict[str, Any]) -> str | None:
    """The cells blanked, what the guarantee means, and the prosecutor risk; None if no
    suppression ran."""
    sup = audit.get("suppression")
    if not sup:
        return None
    k = audit["risk"]["before"]["k"]
    top = sorted(suppressed_cells(sup), key=lambda kv: -kv[1])[:3]
    most = ", ".join(f"{name} ({_n(c)})" for name, c in top)
    text = (
        f"Local suppression blanked {_n(sup['total'])} key-variable cells "
        f"({_p(sup['share'], 2)} of the observed cells) in "
        f"{_n(sup['records_with_suppression'])} records"
        + (f", mostly in {most}." if most else ".")
        + (
            ""
            if any(audit.get(m) for m in ("pram", "microaggregation", "noise"))
            else " No other value was changed."
        )
    )
    text += " " + guarantee_sentence(sup.get("guarantee", "wildcard"), k)
    if sup.get("true_fk_below_k"):
        text += (
            f" For {_n(sup['true_fk_below_k'])} of these records, someone who knows the "
            f"blanked values would still find fewer than {k} released records that fit them."
        )
    if sup.get("prosecutor_risk") and not audit.get("intruder"):
        text += _prosecutor_sentence(sup["prosecutor_risk"], k)
    return text


def print_suppression(audit: dict[str, Any], out: Any) -> None:
    """Print the cells blanked, in all and per key variable; nothing if no suppression ran."""
    sup = audit.get("suppression")
    if not sup:
        return
    per = ", ".join(f"{name} {c:,}" for name, c in suppressed_cells(sup))
    out.print(
        f"Suppressed {sup['total']:,} cells ({sup['share']:.2%} of key-variable cells) in "
        f"{sup['records_with_suppression']:,} records" + (f": {per}" if per else "") + "."
    )


# --- notes --------------------------------------------------------------------------------


def print_notes(audit: dict[str, Any], out: Any) -> None:
    """Print what was not computed and the warnings of each step."""
    from rich.markup import escape

    for text in audit.get("not_computed", []):
        out.print(f"[dim]{text}[/dim]", highlight=False)
    for w in audit.get("warnings", []):
        message = escape(w["message"])  # text, not markup ("[input]" is a job-file table)
        out.print(f"[yellow]Warning ({w['step']}):[/yellow] {message}", highlight=False)


# --- release methods: PRAM, microaggregation, noise ---------------------------------------


def release_method_texts(audit: dict[str, Any]) -> list[str]:
    """One paragraph per release-method step that ran, with what its protection means."""
    out = []
    pram_fig = audit.get("pram")
    if pram_fig:
        rows = pram_fig["per_variable"]
        by_household = bool(pram_fig.get("by_household"))
        unit = " of households" if by_household else ""
        parts = ", ".join(
            f"{r['variables']} ({_p(r['change_rate'], 1)}{unit} changed, a category kept with "
            f"probability {r['diagonal_min']:.2f} at least)"
            for r in rows
        )
        how = (
            ", household by household (one draw per household, given to every member),"
            if by_household
            else ""
        )
        frequencies = "households'" if by_household else "expected"
        out.append(
            f"PRAM released {parts}{how} as random draws from transition matrices that keep the "
            f"{frequencies} frequencies{' in expectation' if by_household else ''}. An intruder "
            "cannot tell whether a released category is the true one; PRAM does not make "
            "combinations k-anonymous."
        )
    agg = audit.get("microaggregation")
    if agg:
        out.append(
            f"Microaggregation ({agg['method']}, k = {agg['k']}) replaced "
            f"{', '.join(agg['variables'])} by the means of groups of at least "
            f"{agg['min_group_size']} records, so no one's own amount is released "
            f"(information loss SSE/SST {agg['sse_sst']:.4f}). An intruder holding the original "
            f"values links {_p(agg['linked_share'], 1)} of the records to them by nearest "
            "neighbour."
        )
    noise = audit.get("noise")
    if noise:
        rel = ", ".join(
            f"{r['column']} ({r['relative_sd']:.3f} of its sd)" for r in noise["per_variable"]
        )
        out.append(
            f"Noise ({noise['method']}) was added to {rel}: each released amount is the true one "
            f"blurred. An intruder holding the original values links "
            f"{_p(noise['linked_share'], 1)} of the records to them by nearest neighbour."
        )
    return out
