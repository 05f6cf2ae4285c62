"""The audit section by section, as the plain-language summary and ``microsdc run`` word it.

A small hand-made audit record covers every branch (recoding, wildcard, swapping with and
without a seed or a donor, each suppression guarantee, prosecutor risk, household risk, the
three kinds of l-diversity, figures not computed, warnings); the texts are asserted in full.
"""

from __future__ import annotations

import copy
import io
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console

from microsdc.cli.run import print_result
from microsdc.report import plain_summary


def _risk(n_at_risk: int, n_unique: int, er: float, gr: float, n_high: int) -> dict[str, Any]:
    return {
        "n_records": 1200,
        "k": 3,
        "n_at_risk": n_at_risk,
        "share_at_risk": n_at_risk / 1200,
        "n_unique": n_unique,
        "expected_reidentifications": er,
        "global_risk": gr,
        "risk_threshold": 0.1,
        "n_high_risk": n_high,
        "household": {"expected_reidentifications": er * 3},
        "l_diversity": {
            "income": {
                "kind": "distinct",
                "l": 2,
                "c": None,
                "n_failing": n_at_risk // 2,
                "share_failing": n_at_risk / 2400,
            },
            "debt": {
                "kind": "recursive",
                "l": 3,
                "c": 2.5,
                "n_failing": n_unique,
                "share_failing": n_unique / 1200,
            },
            "health": {"kind": "entropy", "l": 2, "c": None, "n_failing": 0, "share_failing": 0.0},
        },
    }


@pytest.fixture
def audit() -> dict[str, Any]:
    """Risk, swapping and suppression, with every optional part present."""
    return {
        "title": "Survey [2024] <test>",
        "parameters": {
            "quasi_identifiers": ["region", "age", "sex"],
            "missing": "wildcard",
            "recode": [{"column": "age", "width": 10.0}],
            "hierarchy": ["region", "district"],
            "swapping": {
                "swaprate": 0.05,
                "k_anonymity": 3,
                "risk_variables": ["age", "sex"],
                "seed_given": True,
            },
        },
        "recode": [{"column": "age", "bins": 9, "distinct_before": 80}],
        "risk": {
            "before": _risk(420, 130, 61.234, 0.0510283, 97),
            "after": _risk(12, 0, 4.5, 0.00375, 0),
        },
        "swapping": {
            "n_households": 400,
            "n_persons": 1200,
            "n_swapped_households": 60,
            "n_swapped_persons": 170,
            "share_households": 0.15,
            "share_persons": 170 / 1200,
            "n_no_donor": 2,
            "counts_per_level": [
                {
                    "hierarchy": "region",
                    "households_at_risk": 5,
                    "households_swapped": 10,
                    "persons_swapped": 31,
                    "households_without_donor": 0,
                },
                {
                    "hierarchy": "district",
                    "households_at_risk": 40,
                    "households_swapped": 50,
                    "persons_swapped": 139,
                    "households_without_donor": 2,
                },
            ],
        },
        "suppression": {
            "total": 1523,
            "share": 0.0423,
            "records_with_suppression": 1001,
            "per_variable": {"region": 3, "age": 1500, "sex": 0, "job": 20},
            "guarantee": "wildcard",
            "true_fk_below_k": 17,
            "prosecutor_risk": {
                "before": {"max": 1.0, "mean": 0.4567, "n_above_1_over_k": 700},
                "after": {"max": 0.5, "mean": 0.1234, "n_above_1_over_k": 12},
            },
        },
        "not_computed": ["Household risk was not computed for the released file."],
        "warnings": [{"step": "input", "message": "Column [input] x has 3 odd values."}],
    }


INTRO = (
    "The file has 1,200 records. We assumed an intruder knows 3 key variables (region, age, "
    "sex) and asked that every record share its combination of these with at least 2 other "
    "records (k = 3). A missing value counts as matching any value. Numeric key variables were "
    "grouped into bands first: age (9 bands)."
)
BEFORE = (
    "Before protection, 420 records (35.0 %) were in groups smaller than 3, 130 of them unique. "
    "The expected number of correct re-identifications was 61.23 (5.10 % of records)."
)
SWAPPED = (
    "Targeted record swapping exchanged the geography (region, district) of 60 of 400 "
    "households (15.0 %; 170 persons), swapping first the households at risk on age, sex. "
    "Swapping does not make records less unique; it makes any match uncertain, because an "
    "intruder cannot tell whether a record sits in its true area. "
)
SEED = (
    "A random seed was given so the run can be repeated; it is kept out of this report and of "
    "the released file because it would allow the swap to be undone."
)
NO_DONOR = " For 2 household(s) at risk no suitable partner was found; they kept their geography."
SUPPRESSED = (
    "Local suppression blanked 1,523 key-variable cells (4.23 % of the observed cells) in "
    "1,001 records, mostly in age (1,500), job (20), region (3). No other value was changed. "
)
WILDCARD = (
    "Suppression counted a blank as matching any value (as sdcMicro does): every record fits at "
    "least 3 released records, but blank records can make up that count, so this does not stop "
    "someone who knows all of a person's key values."
)
TRUE_FK = (
    " For 17 of these records, someone who knows the blanked values would still find fewer "
    "than 3 released records that fit them."
)
PROSECUTOR = (
    " Someone who knows a person's true key values and looks for them in the file picks the "
    "right record with a probability of at most 50.0 % (before: 100.0 %), 12.3 % on average "
    "(before: 45.7 %); 12 records stay above 1/3 (before: 700)."
)
AFTER = (
    "After protection, 12 records are in groups smaller than 3; the expected number of correct "
    "re-identifications is 4.50 (0.38 % of records), and 0 records have an individual risk "
    "above 10 %. Counting a household as disclosed when any member is, 13.50 persons are "
    "expected to live in a re-identified household."
)
L_DIVERSITY = [
    "Sensitive variable income: 6 records (0.50 %) belong to a group with fewer than 2 "
    "distinct values of income (before: 210). For them, income can be learnt without "
    "re-identifying anyone.",
    "Sensitive variable debt: 0 records (0.0 %) belong to a group with no recursive (2.5, "
    "3)-diversity of debt (before: 130). For them, debt can be learnt without re-identifying "
    "anyone.",
    "Sensitive variable health: 0 records (0.0 %) belong to a group with an entropy "
    "l-diversity below 2 of health (before: 0). For them, health can be learnt without "
    "re-identifying anyone.",
]
NOT_COMPUTED = "Household risk was not computed for the released file."
SWAP_CAVEAT = (
    "The records still in small groups are protected by the swap (their area may be false), "
    "not by being hidden among others; judge whether that is enough for this release."
)


def test_summary_of_every_section(audit: dict[str, Any]) -> None:
    assert plain_summary(audit) == [
        INTRO,
        BEFORE,
        SWAPPED + SEED + NO_DONOR,
        SUPPRESSED + WILDCARD + TRUE_FK + PROSECUTOR,
        AFTER,
        *L_DIVERSITY,
        NOT_COMPUTED,
        SWAP_CAVEAT,
    ]


def test_summary_without_protection(audit: dict[str, Any]) -> None:
    del audit["swapping"], audit["suppression"]
    audit["parameters"].update(missing="ignore", recode=[])
    audit["risk"]["after"]["n_at_risk"] = 0
    audit["risk"]["after"].pop("household")
    audit["risk"]["after"]["l_diversity"] = {}
    audit["not_computed"] = []
    assert plain_summary(audit) == [
        INTRO.split(" A missing")[0],
        BEFORE,
        "Only the risk was measured; no protection step was run.",
        "So, 0 records are in groups smaller than 3 (the file is k-anonymous); the expected "
        "number of correct re-identifications is 4.50 (0.38 % of records), and 0 records have "
        "an individual risk above 10 %.",
    ]


def test_summary_swap_without_seed_and_k_of_two(audit: dict[str, Any]) -> None:
    del audit["suppression"]
    audit["parameters"]["swapping"]["seed_given"] = False
    audit["swapping"]["n_no_donor"] = 0
    for side in ("before", "after"):
        audit["risk"][side]["k"] = 2
    paras = plain_summary(audit)
    assert paras[0].startswith(
        "The file has 1,200 records. We assumed an intruder knows 3 key variables (region, age, "
        "sex) and asked that every record share its combination of these with at least 1 other "
        "record (k = 2)."
    )
    assert paras[2] == SWAPPED + "No seed was given, so the swap cannot be repeated exactly."
    assert paras[3].startswith("After protection, 12 records are in groups smaller than 2;")


@pytest.mark.parametrize(
    ("guarantee", "sentence"),
    [
        (
            "probabilistic",
            "Suppression counted another record's blank as matching a value only with that "
            "value's share of the released data, so blank records cannot make up the count of 3; "
            "a person whose values are all known can still be narrowed down to fewer than 3 "
            "records that match exactly.",
        ),
        (
            "category",
            "Suppression made every released record identical on the key variables, blanks "
            "included, to at least 2 others: even someone who knows all of a person's key values "
            "faces at least 3 records they cannot tell apart.",
        ),
        (
            0.25,
            "Suppression counted a released record that matches only through a blank as 0.25 of "
            "a match (alpha, as sdcMicro's freqCalc), complete records and records of the same "
            "pattern in full: every record reaches 3 by that count, but the blanks still make up "
            "part of it, so this does not stop someone who knows all of a person's key values.",
        ),
        ("other", ""),
    ],
)
def test_summary_of_each_guarantee(audit: dict[str, Any], guarantee: Any, sentence: str) -> None:
    sup = audit["suppression"]
    sup.update(guarantee=guarantee, true_fk_below_k=0, per_variable={"age": 0})
    del sup["prosecutor_risk"]
    expected = SUPPRESSED.replace(", mostly in age (1,500), job (20), region (3).", ".")
    assert plain_summary(audit)[3] == expected + sentence


def _printed(audit: dict[str, Any], written: dict[str, str]) -> list[str]:
    buf = io.StringIO()
    console = Console(file=buf, width=1000, highlight=False)  # one line per print
    print_result(SimpleNamespace(audit=audit, written=written), console)
    return [line.rstrip() for line in buf.getvalue().splitlines()]


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.replace("┃", "│").split("│")]


def test_printed_result_of_every_section(audit: dict[str, Any]) -> None:
    written = {"data": "out/d.csv", "audit": "out/a[1].json", "report": "out/r.html"}
    lines = _printed(copy.deepcopy(audit), written)
    assert lines[0] == "Survey [2024] <test>"
    assert [_cells(line) for line in lines[1:2] + lines[3:12]] == [
        ["measure", "before", "after"],
        ["records", "1,200", "1,200"],
        ["records with fk < 3", "420", "12"],
        ["unique records (fk = 1)", "130", "0"],
        ["expected re-identifications", "61.23", "4.50"],
        ["global risk", "5.10 %", "0.38 %"],
        ["records with risk > 0.1", "97", "0"],
        ["household risk (persons)", "183.70", "13.50"],
        ["records failing distinct l-diversity on income", "210", "6"],
        ["records failing recursive l-diversity on debt", "130", "0"],
    ]
    assert _cells(lines[12]) == ["records failing entropy l-diversity on health", "0", "0"]
    assert lines[13] == "Record swapping per hierarchy level"
    assert [_cells(line) for line in lines[14:15] + lines[16:18]] == [
        ["level", "households at risk", "households swapped", "persons swapped", "without a donor"],
        ["region", "5", "10", "31", "0"],
        ["district", "40", "50", "139", "2"],
    ]
    text = "\n".join(lines[18:])
    assert text == (
        "Swapped 60 of 400 households (15.00%) and 170 persons (14.17%); 45 households were at "
        "risk, 2 found no donor.\n"
        "Note: 60 of 400 households (15.0 %) were swapped, more than the swap rate of 5 %: the "
        "rate is a minimum, and every household at risk is swapped, with a partner from another "
        "area, when one is found (45 households have a member who shares age, sex with fewer "
        "than 3 persons of the area). To swap fewer, lower swapping.k_anonymity or use fewer or "
        "coarser risk variables (swapping.risk_variables; e.g. age in bands); a higher k swaps "
        "more.\n"
        "Swapping moves whole households between areas, so the frequency counts above barely "
        "change, and may even rise: a household moved into an area where its combination is "
        "rare, or one left behind by those that moved, is "
        "rare there. It protects by making the area of every record uncertain: an intruder who "
        "finds a rare record cannot tell whether it lives where the file says.\n"
        "Suppressed 1,523 cells (4.23% of key-variable cells) in 1,001 records: region 3, age "
        "1,500, job 20.\n"
        "Household risk was not computed for the released file.\n"
        "Warning (input): Column [input] x has 3 odd values.\n"
        "Anonymised data: out/d.csv\n"
        "Audit record:    out/a[1].json\n"
        "Report:          out/r.html"
    )


def test_printed_result_at_the_swap_rate_and_dry_run(audit: dict[str, Any]) -> None:
    """No note when the swap stays at its rate; no household risk row without both sides."""
    audit["parameters"]["swapping"]["swaprate"] = 0.2
    audit["risk"]["before"].pop("household")
    audit["suppression"]["per_variable"] = {"age": 0}
    audit["not_computed"] = audit["warnings"] = []
    lines = _printed(audit, {})
    assert not any(line.startswith("household risk") for line in lines)
    assert not any(line.startswith("Note:") for line in lines)
    assert lines[-2:] == [
        "Suppressed 1,523 cells (4.23% of key-variable cells) in 1,001 records.",
        "Dry run: nothing was written.",
    ]
