"""The report lists every variable with its role, the key variables before and after, and
renders lists and tiny shares readably."""

from __future__ import annotations

import math
import re
from pathlib import Path

import jsonschema
import pandas as pd

from microsdc.job import run_job
from microsdc.report import _listing, _p, audit_schema

JOB = """
title = "Variables"
steps = ["risk", "swapping", "suppression"]
[input]
path = "{path}"
[variables]
quasi_identifiers = ["region", "age", "sex"]
household_id = "hid"
hierarchy = ["region"]
sensitive = ["income"]
[recode.age]
width = 10
[risk]
k = 2
[suppression]
importance = ["region", "sex", "age"]
[swapping]
similar = [["size", "kind"], ["size"]]
risk_variables = ["age", "sex"]
k_anonymity = 2
seed = 3
"""


def _data() -> pd.DataFrame:
    rows = []
    for h in range(40):
        region = "north" if h % 2 else "south"
        for j in range(1 + h % 3):
            rows.append(
                {
                    "hid": h,
                    "region": region,
                    "age": 20 + (h * 7 + j * 13) % 50,
                    "sex": "f" if (h + j) % 2 else "m",
                    "size": 1 + h % 3,
                    "kind": (h // 2) % 2,
                    "income": 1000 + h,
                    "note": "x",
                }
            )
    return pd.DataFrame(rows)


def test_variables_and_key_variables(tmp_path: Path) -> None:
    df = _data()
    data = tmp_path / "d.csv"
    df.to_csv(data, index=False)
    job = tmp_path / "job.toml"
    job.write_text(JOB.format(path=data.as_posix()), encoding="utf-8")
    res = run_job(job, write=False)
    audit = res.audit
    jsonschema.Draft202012Validator(audit_schema()).validate(audit)
    roles = {v["name"]: v["roles"] for v in audit["variables"]}
    assert roles == {
        "hid": ["household id"],
        "region": ["key", "hierarchy"],
        "age": ["key", "recoded"],
        "sex": ["key"],
        "size": ["similarity"],
        "kind": ["similarity"],
        "income": ["sensitive"],
        "note": ["other"],
    }
    assert all(v["released"] for v in audit["variables"])
    changed = {v["name"]: v["cells_changed"] for v in audit["variables"]}
    assert changed["note"] == changed["income"] == changed["hid"] == 0
    keys = {kv["name"]: kv for kv in audit["key_variables"]}
    # age was recoded into bands in every record first; both tables count the cells
    # protection changed after that, so they agree
    for name in ("region", "age", "sex"):
        assert changed[name] == keys[name]["cells_changed"]
    assert changed["age"] < len(df)
    assert list(keys) == ["region", "age", "sex"]
    age = keys["age"]
    assert age["categories_input"] == df["age"].nunique()
    assert age["categories_before"] == (df["age"] // 10).nunique()
    final = res.data
    for name, kv in keys.items():
        assert kv["categories_after"] == final[name].dropna().nunique()
        assert kv["missing_after"] == int(final[name].isna().sum())
        assert kv["missing_before"] == 0
        blanked = int(final[name].isna().sum())
        assert math.isclose(kv["share_suppressed"], blanked / len(df))
    # Hellinger of sex, by hand: missing counts as a category
    before = df["sex"].value_counts(normalize=True)
    after = final["sex"].astype(object).fillna("<na>").value_counts(normalize=True)
    cats = set(before.index) | set(after.index)
    h = math.sqrt(
        0.5 * sum((math.sqrt(before.get(c, 0)) - math.sqrt(after.get(c, 0))) ** 2 for c in cats)
    )
    assert math.isclose(keys["sex"]["hellinger"], h, abs_tol=1e-12)
    # swapping moves regions between households but keeps their distribution close
    assert keys["region"]["cells_changed"] > 0

    html = res.report_html
    assert 'id="table-variables"' in html and 'id="table-key-variables"' in html
    settings = html[html.index('id="table-settings"') :]
    settings = settings[: settings.index("</table>")]
    assert "size, kind; else size" in settings
    assert "[" not in re.sub(r"<[^>]+>", "", settings)
    assert "key, hierarchy" in html


def test_listing_and_tiny_percentages() -> None:
    assert _listing([["a", "b"], ["a"]]) == "a, b; else a"
    assert _listing({"age": 3, "sex": 1}) == "age 3, sex 1"
    assert _p(2e-9, 4) == "< 0.0001 %"
    assert _p(0.000012, 4) == "0.0012 %"
    assert _p(0.0) == "0.0 %"


def test_linked_and_dropped_columns_have_their_roles(tmp_path: Path) -> None:
    df = _data()
    df["title"] = df["age"].astype(str) + " years"  # gives age back: linked
    df["code"] = df["age"]  # a copy of age: dropped
    data = tmp_path / "d.csv"
    df.to_csv(data, index=False)
    job = tmp_path / "job.toml"
    text = JOB.format(path=data.as_posix()).replace(
        'sensitive = ["income"]', 'sensitive = ["income"]\ndrop = ["code"]'
    )
    text = text.replace(
        'importance = ["region", "sex", "age"]',
        'importance = ["region", "sex", "age"]\n[suppression.linked]\nage = ["title"]',
    )
    job.write_text(text, encoding="utf-8")
    res = run_job(job, write=False)
    entries = {v["name"]: v for v in res.audit["variables"]}
    assert entries["code"]["roles"] == ["other", "dropped"]
    assert entries["code"]["released"] is False
    assert entries["title"]["roles"] == ["linked"]
    blanked_age = int(res.data["age"].isna().sum())
    assert blanked_age > 0
    assert entries["title"]["cells_changed"] == int(res.data["title"].isna().sum()) == blanked_age
