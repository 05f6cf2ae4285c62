"""A Release step given one column name where the library takes one name or a list
(``strata="region"``, ``linked={"age": "agelab"}``, ``carry_along="crop"``, ...) gives
the audit the same step gives with the list: its settings recorded as a list, the
roles, the cells changed and the intruder's headline within the strata alike."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from microsdc import Release
from microsdc.risk.prosecutor import intruder_figures

#: the frame's label columns give blanked ages back, and a swap warns of its rates: not
#: what these tests look at
pytestmark = pytest.mark.filterwarnings("ignore::microsdc.exceptions.SDCWarning")

NOW = datetime(2026, 1, 1, tzinfo=UTC)
QI = ["age", "sex"]


def _frame() -> pd.DataFrame:
    """60 persons in 30 households of two; names of several letters each, so that a
    name read as its letters names no column."""
    rng = np.random.default_rng(0)
    n = 60
    df = pd.DataFrame(
        {
            "age": rng.choice(["young", "adult", "old", "aged"], n, p=[0.4, 0.3, 0.2, 0.1]),
            "sex": np.repeat(rng.choice(["f", "m"], 30), 2),
            "region": rng.choice(["north", "south"], n),
            "hid": np.repeat(np.arange(30), 2),
            "geo1": np.repeat(rng.choice(["N", "S"], 30), 2),
            "geo2": np.repeat(rng.choice(["n1", "n2", "s1"], 30), 2),
            "crop": rng.choice(["maize", "rice", "beans"], n),
            "xinc": rng.normal(10, 2, n).round(2),
            "yinc": rng.normal(5, 1, n).round(2),
        }
    )
    df["agelab"] = df["age"].str.upper()
    df["croplab"] = df["crop"].str.upper()
    df["total"] = df["xinc"] + df["yinc"]
    return df


def _release(df: pd.DataFrame) -> Release:
    return Release(df, QI, k=3, household_id="hid", hierarchy=["geo1", "geo2"])


def _audit(rel: Release) -> dict[str, Any]:
    audit = rel.audit(now=NOW)
    audit.pop("timings")  # seconds differ from run to run
    return audit


Step = Callable[[Release, Any], Any]

#: (step, the setting as one name, the same as a list)
CASES: dict[str, tuple[Step, Any, Any]] = {
    "suppression strata": (lambda r, v: r.local_suppression(strata=v), "region", ["region"]),
    "suppression linked": (
        lambda r, v: r.local_suppression(linked={"age": v}),
        "agelab",
        ["agelab"],
    ),
    "swap risk_variables": (lambda r, v: r.record_swap(v, seed=1, swaprate=0.2), "age", ["age"]),
    "swap carry_along": (
        lambda r, v: r.record_swap(["age"], carry_along=v, seed=1, swaprate=0.2),
        "crop",
        ["crop"],
    ),
    "swap carry_along position": (
        lambda r, v: r.record_swap(["age"], carry_along=v, seed=1, swaprate=0.2),
        [6],
        ["crop"],
    ),
    "swap similar": (
        lambda r, v: r.record_swap(["age"], similar=v, seed=1, swaprate=0.2),
        "sex",
        ["sex"],
    ),
    "pram columns": (lambda r, v: r.pram(v, seed=1), "crop", ["crop"]),
    "pram strata": (lambda r, v: r.pram(["crop"], strata=v, seed=1), "region", ["region"]),
    "pram linked": (
        lambda r, v: r.pram(["crop"], linked={"crop": v}, seed=1, pd=0.3),
        "croplab",
        ["croplab"],
    ),
    "microaggregation columns": (lambda r, v: r.microaggregate(v), "xinc", ["xinc"]),
    "microaggregation strata": (
        lambda r, v: r.microaggregate(["xinc"], strata=v),
        "region",
        ["region"],
    ),
    "noise columns": (lambda r, v: r.add_noise(v, seed=1), "xinc", ["xinc"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_one_column_name_audits_as_the_list(case: str) -> None:
    step, one, listed = CASES[case]
    df = _frame()
    assert list(df.columns).index("crop") == 6  # the position the case gives
    audits = []
    for value in (one, listed):
        rel = _release(df)
        step(rel, value)
        audits.append(_audit(rel))
    assert audits[0] == audits[1]


def test_suppression_with_one_stratum_name_plays_the_intruder_within_it() -> None:
    df = _frame()
    rel = _release(df)
    rel.local_suppression(strata="region")
    audit = _audit(rel)  # failed with a KeyError: the name was read letter by letter
    assert audit["parameters"]["suppression"]["strata"] == ["region"]
    region = next(v for v in audit["variables"] if v["name"] == "region")
    assert region["roles"] == ["stratum"]
    within = intruder_figures(df, rel.data, QI, 3, strata=["region"])
    assert audit["intruder"] == within
    assert within != intruder_figures(df, rel.data, QI, 3)  # the strata count


@pytest.mark.parametrize(
    ("setting", "column", "role"),
    [("linked", "agelab", "linked"), ("carry_along", "crop", "carried along")],
)
def test_one_name_counts_the_cells_of_the_column_it_names(
    setting: str, column: str, role: str
) -> None:
    df = _frame()
    rel = _release(df)
    if setting == "linked":
        rel.local_suppression(linked={"age": column})
    else:
        rel.record_swap(["age"], carry_along=column, seed=1, swaprate=0.2)
    entry = next(v for v in _audit(rel)["variables"] if v["name"] == column)
    released = rel.data.loc[df.index, column]  # a swap returns households in its order
    changed = int((released.astype(object) != df[column].astype(object)).sum())
    assert changed > 0
    assert entry["roles"] == [role]
    assert entry["cells_changed"] == changed  # was 0: the name was read letter by letter


def test_pram_linked_columns_are_counted_and_named() -> None:
    df = _frame()
    rel = _release(df)
    rel.pram(["crop"], linked={"crop": ["croplab"]}, seed=1, pd=0.3)
    variables = {v["name"]: v for v in _audit(rel)["variables"]}
    changed = int((rel.data["croplab"] != df["croplab"]).sum())
    assert changed == int((rel.data["crop"] != df["crop"]).sum()) > 0
    assert variables["croplab"]["roles"] == ["linked"]
    assert variables["croplab"]["cells_changed"] == changed  # was 0


@pytest.mark.parametrize(
    ("param", "one"), [("hierarchy", "geo1"), ("sensitive", "crop"), ("drop", "yinc")]
)
def test_release_takes_one_column_name_for_its_column_lists(param: str, one: str) -> None:
    df = _frame()
    audits = []
    for value in (one, [one]):
        rel = Release(df, QI, k=3, **{param: value})  # type: ignore[arg-type]
        rel.local_suppression()
        audits.append(_audit(rel))
    assert audits[0] == audits[1]
    entry = next(v for v in audits[0]["variables"] if v["name"] == one)
    assert entry["roles"] == {"hierarchy": ["hierarchy"], "sensitive": ["sensitive"]}.get(
        param, ["other", "dropped"]
    )


def test_intruder_figures_take_one_stratum_name() -> None:
    original = pd.DataFrame({"a": list("xxyyxy"), "region": [1, 1, 1, 2, 2, 2]})
    released = original.assign(a=["x", "x", None, "y", "x", "y"])
    one = intruder_figures(original, released, ["a"], 2, strata="region")
    assert one == intruder_figures(original, released, ["a"], 2, strata=["region"])
    # within each region x, x, y and y, x, y: risks 1/2, 1/2, 1 and 1/2, 1, 1/2
    assert one["before"] == {"max": 1.0, "mean": pytest.approx(4 / 6), "n_above_1_over_k": 2}
    # without the strata every value is held by 3 records: 1/3 each
    plain = intruder_figures(original, released, ["a"], 2)["before"]
    assert plain["n_above_1_over_k"] == 0


def test_a_swap_on_a_user_risk_takes_no_k_of_the_release_and_no_risk_variables() -> None:
    """A user risk leaves k and the risk variables unused: the release's own k (5 here)
    is not passed with it, and risk variables given with it are refused by name."""
    from microsdc.exceptions import InvalidParameterError

    df = _frame()
    rel = Release(df, QI, k=5, household_id="hid", hierarchy=["geo1", "geo2"])
    risk = np.where(df["hid"].to_numpy()[:, None] < 3, 1.0, 0.0) * np.ones((1, 2))
    checked = ["region", "crop", "croplab"]
    res = rel.record_swap(None, risk=risk, risk_threshold=0.5, seed=1, checked_columns=checked)
    assert res.parameters["risk"] == "user-supplied"
    assert res.counts_per_level["households_at_risk"].tolist() == [3, 0]
    with pytest.raises(InvalidParameterError) as info:
        _release(df).record_swap(["age"], risk=risk, risk_threshold=0.5, seed=1)
    assert (info.value.func, info.value.param) == ("record_swap", "risk_variables")
    assert "given together with risk_variables=['age']" in str(info.value)


def test_a_swap_on_a_user_risk_needs_no_positional_none() -> None:
    from microsdc.exceptions import InvalidParameterError

    df = _frame()
    rel = Release(df, QI, k=5, household_id="hid", hierarchy=["geo1", "geo2"])
    risk = np.where(df["hid"].to_numpy()[:, None] < 3, 1.0, 0.0) * np.ones((1, 2))
    checked = ["region", "crop", "croplab"]
    res = rel.record_swap(risk=risk, risk_threshold=0.5, seed=1, checked_columns=checked)
    assert res.parameters["risk"] == "user-supplied"
    assert res.counts_per_level["households_at_risk"].tolist() == [3, 0]
    # without a risk the risk variables are needed: microsdc's message, no bare TypeError
    with pytest.raises(InvalidParameterError) as info:
        Release(df, QI, k=5, household_id="hid", hierarchy=["geo1", "geo2"]).record_swap(seed=1)
    assert (info.value.func, info.value.param) == ("record_swap", "risk_variables")
    assert str(info.value).startswith(
        "The 'risk_variables' parameter of record_swap must be a non-empty list of column "
        "names when 'risk' is None"
    )
    assert str(info.value).endswith("Got None instead.")


def test_the_report_of_a_swap_on_a_user_risk_says_so(tmp_path: Path) -> None:
    import copy
    import io

    from rich.console import Console

    from microsdc.report import plain_summary
    from microsdc.report.sections import print_swapping

    df = _frame()
    rel = Release(df, QI, k=5, household_id="hid", hierarchy=["geo1", "geo2"])
    risk = np.where(df["hid"].to_numpy()[:, None] < 3, 1.0, 0.0) * np.ones((1, 2))
    checked = ["region", "crop", "croplab"]
    rel.record_swap(risk=risk, risk_threshold=0.5, seed=1, checked_columns=checked)
    audit = rel.audit()
    assert audit["parameters"]["swapping"]["risk"] == "given (ndarray)"
    assert audit["parameters"]["swapping"]["risk_threshold"] == 0.5
    path = tmp_path / "report.html"
    rel.report(path)
    html = " ".join(path.read_text(encoding="utf-8").split())
    assert "risk: given by the user (threshold 0.5);" in html
    assert "risk variables ;" not in html and "(area x )" not in html
    assert 'id="fig-swap-utility"' not in html and 'id="table-swap-utility"' not in html
    assert (
        "The swap used a risk given by the user, without risk variables: there are no "
        "frequency tables (area x risk variables) to compare before and after."
    ) in html
    summary = " ".join(" ".join(plain_summary(audit)).split())
    assert "swapping first the households whose risk, given by the user, is above 0.5." in summary
    assert "at risk on ." not in summary
    # the text report's note on a rate above the swap rate names the threshold, not k
    busy = copy.deepcopy(audit)
    busy["swapping"].update(n_swapped_households=busy["swapping"]["n_households"])
    buffer = io.StringIO()
    print_swapping(busy, Console(file=buffer, width=2000))
    assert (
        "households have a risk, given by the user, above 0.5). To swap fewer, raise the risk "
        "threshold."
    ) in buffer.getvalue()
    assert "shares  with" not in buffer.getvalue()
