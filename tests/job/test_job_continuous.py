"""The measures of continuous variables in a job's audit record and report: the library's
figures on the same data, hand-computed cases, the schema, a figure per variable."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

import microsdc
from microsdc.exceptions import JobFileError
from microsdc.report import audit_schema, format_percent
from microsdc.utility.continuous import (
    continuous_utility,
    interval_risk,
    linkage_risk,
    lorenz_curve,
)

JOB = """title = "survey"
steps = ["risk", "microaggregation", "noise"]

[input]
path = "survey.csv"

[variables]
quasi_identifiers = ["region"]
weights = "w"
compare_by = "region"

[risk]
k = 2

[microaggregation]
variables = ["income", "expend"]
k = 4

[noise]
variables = ["expend", "savings"]
relative_sd = 0.2
seed = 12

[output]
directory = "out"
"""

COLUMNS = ["income", "expend", "savings"]


@pytest.fixture
def job(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    n = 400
    pd.DataFrame(
        {
            "region": rng.choice(["n", "s", "e"], n),
            "district": rng.choice(["d1", "d2"], n),
            "w": rng.uniform(10, 50, n).round(1),
            "income": rng.lognormal(9, 1, n).round(2),
            "expend": rng.lognormal(8, 1, n).round(2),
            "savings": rng.normal(100, 300, n).round(2),  # amounts below 0: no Lorenz curve
        }
    ).to_csv(tmp_path / "survey.csv", index=False)
    (tmp_path / "job.toml").write_text(JOB, encoding="utf-8")
    return tmp_path / "job.toml"


def test_figures_are_the_library_measures_on_the_same_data(job: Path) -> None:
    res = microsdc.run_job(job)
    before = pd.read_csv(job.parent / "survey.csv")
    after = res.data.reset_index(drop=True)
    cont = res.audit["continuous"]
    assert cont["variables"] == COLUMNS  # the steps' variables, each once
    assert cont["steps"] == ["microaggregation", "noise"]
    assert cont["linked_share"] == linkage_risk(before, after, COLUMNS).mean()
    assert cont["interval_share"] == interval_risk(before, after, COLUMNS).mean()
    util = continuous_utility(before, after, COLUMNS, weights="w")
    for key in ("il1s", "il1s_per_cell", "eigen", "sse_sst"):
        assert cont[key] == getattr(util, key)
    for row, want in zip(cont["per_variable"], util.columns.to_dict("records"), strict=True):
        assert row["column"] == want["column"]
        for key in ("mean_before", "mean_after", "var_before", "var_after"):
            assert row[key] == want[key]
        one = interval_risk(before, after, [row["column"]]).mean()
        assert row["interval_share"] == one
    by = continuous_utility(before, after, COLUMNS, by="region", weights="w").columns
    assert len(cont["by_group"]) == 9 and {r["group"] for r in cont["by_group"]} == {"n", "s", "e"}
    for row, want in zip(cont["by_group"], by.to_dict("records"), strict=True):
        assert (row["group"], row["column"]) == (want["group"], want["column"])
        assert row["mean_after"] == want["mean_after"] and row["var_before"] == want["var_before"]
    # correlations by hand; the percentiles as numpy's
    np.testing.assert_allclose(
        cont["correlations"]["before"], np.corrcoef(before[COLUMNS].to_numpy().T), atol=1e-12
    )
    np.testing.assert_allclose(
        cont["correlations"]["after"], np.corrcoef(after[COLUMNS].to_numpy().T), atol=1e-12
    )
    pct = cont["percentiles"][0]
    assert pct["levels"] == list(range(1, 100))
    np.testing.assert_allclose(pct["after"], np.quantile(after["income"], np.arange(1, 100) / 100))
    # the Lorenz curve of income, weighted, at 101 population shares; none for savings
    curve = lorenz_curve(before["income"], before["w"])
    lor = cont["lorenz"][0]
    assert len(lor["population_share"]) == 101 and lor["before"][-1] == pytest.approx(1.0)
    want = np.interp(lor["population_share"], curve["population_share"], curve["amount_share"])
    np.testing.assert_allclose(lor["before"], want)
    assert cont["lorenz"][2] == {
        "column": "savings",
        "not_drawn": "the amounts include negative values",
    }
    assert cont["per_variable"][2]["gini_before"] is None
    assert cont["per_variable"][0]["gini_before"] == util.columns["gini_before"][0]
    jsonschema.Draft202012Validator(audit_schema()).validate(res.audit)
    written = json.loads((job.parent / "out" / "survey_audit.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(audit_schema()).validate(written)
    assert written["continuous"]["il1s"] == cont["il1s"]


def test_report_shows_the_measures_and_a_figure_per_variable(job: Path) -> None:
    res = microsdc.run_job(job, write=False)
    html = res.report_html
    cont = res.audit["continuous"]
    section = html[html.index('<section id="continuous">') : html.index('<section id="variables">')]
    before = pd.read_csv(job.parent / "survey.csv")
    linked = linkage_risk(before, res.data.reset_index(drop=True), COLUMNS).mean()
    assert f'<td class="num">{format_percent(linked, 1)}</td>' in section
    for i, column in enumerate(COLUMNS, start=1):
        figure = re.search(rf'<figure id="fig-continuous-{i}".*?</figure>', section, re.S)
        assert figure is not None
        assert 'src="data:image/png;base64,' in figure.group(0)
        assert f"<strong>{column}: distribution and Lorenz curve" in figure.group(0)
    assert section.count("<tr><td>") >= 5 + 3 + 3 + 9  # measures, variables, pairs, groups
    assert "what it means" in section and "By region" in section
    assert "income &times; expend" in section
    # one plain sentence per measure
    for phrase in (
        "nearest original record",
        "within 0.05 of",
        "dUtility",
        "eigenvalues",
        "sum of",
    ):
        assert phrase in section
    assert f"{cont['interval_fraction_of_sd']:g} sd" in section


def test_hand_computed_case(tmp_path: Path) -> None:
    # incomes 1, 2, 3 | 10, 11, 12 become the group means 2 and 11 (k = 3)
    pd.DataFrame({"region": ["a"] * 6, "income": [1.0, 2.0, 3.0, 10.0, 11.0, 12.0]}).to_csv(
        tmp_path / "d.csv", index=False
    )
    (tmp_path / "job.toml").write_text(
        'steps = ["risk", "microaggregation"]\n[input]\npath = "d.csv"\n'
        '[variables]\nquasi_identifiers = ["region"]\n[risk]\nk = 2\n'
        '[microaggregation]\nvariables = ["income"]\nk = 3\n',
        encoding="utf-8",
    )
    res = microsdc.run_job(tmp_path / "job.toml", write=False)
    assert res.data["income"].tolist() == [2.0, 2.0, 2.0, 11.0, 11.0, 11.0]
    cont = res.audit["continuous"]
    # only the middle records are nearest to their own original; within 0.05 sd only they
    assert cont["linked_share"] == pytest.approx(2 / 6)
    assert cont["interval_share"] == pytest.approx(2 / 6)
    # |x - x'| = 1, 0, 1, 1, 0, 1 over sqrt(2) x sd (sd with n - 1: sqrt(125.5 / 5))
    assert cont["il1s"] == pytest.approx(4 / (np.sqrt(2) * np.sqrt(125.5 / 5)))
    assert cont["sse_sst"] == pytest.approx(4 / 125.5)  # squared changes / total squares
    row = cont["per_variable"][0]
    assert row["mean_before"] == pytest.approx(6.5) and row["mean_after"] == pytest.approx(6.5)
    assert row["var_before"] == pytest.approx(125.5 / 6)
    assert row["var_after"] == pytest.approx(6 * 4.5**2 / 6)
    assert cont["by_group"] == [] and cont["compare_by"] is None
    assert cont["correlations"] == {"before": [[1.0]], "after": [[1.0]]}
    # Gini of 1, 2, 3, 10, 11, 12: mean absolute difference / (2 x mean)
    x = np.array([1.0, 2, 3, 10, 11, 12])
    gini = np.abs(x[:, None] - x[None, :]).sum() / (2 * len(x) ** 2 * x.mean())
    assert row["gini_before"] == pytest.approx(gini)
    assert cont["lorenz"][0]["after"][50] == pytest.approx(6 / 39)  # the poorer half holds 6
    # six records: no percentile has k = 2 records beyond it on both sides but 34 % to 66 %
    assert res.audit["continuous"]["percentiles"][0]["levels"] == list(range(34, 67))
    assert "continuous" in {t["step"] for t in res.audit["timings"]}


def _risk_only(text: str) -> str:
    """The job without its microaggregation and noise steps and sections."""
    text = text.replace('["risk", "microaggregation", "noise"]', '["risk"]')
    return text[: text.index("[microaggregation]")] + text[text.index("[output]") :]


def test_no_continuous_step_no_entry(job: Path) -> None:
    text = _risk_only(job.read_text(encoding="utf-8"))
    job.write_text(text.replace('compare_by = "region"\n', ""), encoding="utf-8")
    res = microsdc.run_job(job, write=False)
    assert "continuous" not in res.audit
    assert '<section id="continuous">' not in res.report_html


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace('compare_by = "region"', 'compare_by = "regoin"'), "'regoin'"),
        (_risk_only, 'needs the step "microaggregation" or "noise"'),
        (lambda t: t.replace('compare_by = "region"', "compare_by = 3"), "compare_by"),
        (
            lambda t: t.replace(
                'compare_by = "region"', 'compare_by = "district"\ndrop = ["district"]'
            ),
            "'variables.drop' names columns the job uses: 'district'",
        ),
    ],
)
def test_compare_by_errors_name_the_key(job: Path, edit, message: str) -> None:
    job.write_text(edit(job.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(JobFileError, match=r"compare_by|drop") as info:
        microsdc.run_job(job, write=False)
    assert message in str(info.value)


def test_groups_smaller_than_k_show_no_figures(job: Path) -> None:
    data = pd.read_csv(job.parent / "survey.csv")
    data.loc[0, "region"] = "tiny"  # one record: its mean would be its amount
    data.loc[[1, 2], "region"] = "pair"  # two records: k = 2 is met
    data.to_csv(job.parent / "survey.csv", index=False)
    res = microsdc.run_job(job, write=False)
    rows = {(r["group"], r["column"]): r for r in res.audit["continuous"]["by_group"]}
    tiny, pair = rows[("tiny", "income")], rows[("pair", "income")]
    assert tiny["records"] == 1 and pair["records"] == 2
    assert all(
        tiny[key] is None for key in ("mean_before", "mean_after", "var_after", "gini_before")
    )
    pair_rows = data.loc[[1, 2]]
    want = np.average(pair_rows["income"], weights=pair_rows["w"])  # weighted by w
    assert pair["mean_before"] == pytest.approx(want)
    assert pair["mean_before"] is not None
    assert sum(r["records"] for (_, c), r in rows.items() if c == "income") == len(data)
    amount = f"{data.loc[0, 'income']:,.0f}"
    html = res.report_html
    groups = html[
        html.index('id="table-continuous-groups"') : html.index(
            "</table>", html.index('id="table-continuous-groups"')
        )
    ]
    tiny_rows = [line for line in groups.split("<tr>") if line.startswith("<td>tiny</td>")]
    assert len(tiny_rows) == 3 and all("&ndash;" in line for line in tiny_rows)
    assert amount not in groups
    jsonschema.Draft202012Validator(audit_schema()).validate(res.audit)


@pytest.mark.parametrize("method", ["", 'method = "mdav"\n'])
def test_n_groups_without_the_quantile_method_is_refused(
    job: Path, tmp_path: Path, method: str
) -> None:
    # n_groups sets the groups of the quantile method only: alone it used to be taken
    # and change nothing
    text = job.read_text(encoding="utf-8").replace("k = 4\n", f"k = 4\n{method}n_groups = 5\n")
    job.write_text(text, encoding="utf-8")
    with pytest.raises(JobFileError) as info:
        microsdc.job.load_job(job)
    assert info.value.key == "microaggregation.n_groups"
    message = str(info.value)
    assert 'goes with microaggregation.method = "quantile"' in message
    assert "remove 'microaggregation.n_groups'" in message
    job.write_text(text.replace(method, "").replace("n_groups", 'method = "quantile"\nn_groups'))
    assert microsdc.job.load_job(job).methods["microaggregation"]["n_groups"] == 5
