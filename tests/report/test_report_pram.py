"""The PRAM section of the report: its figures are the PramResult's, drawn on the page."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from microsdc import pram, pram_estimate
from microsdc.exceptions import InvalidParameterError
from microsdc.report.pram_section import pram_figures, pram_protection_text


@pytest.fixture(scope="module")
def survey() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 600
    return pd.DataFrame(
        {
            "region": rng.choice(["north", "south"], n, p=[0.3, 0.7]),
            "roof": rng.choice(["tin", "tile", "straw", "mud"], n, p=[0.5, 0.3, 0.15, 0.05]),
            "water": rng.choice(["pipe", "well"], n),
        }
    )


def test_section_figures_are_the_results(survey: pd.DataFrame) -> None:
    res = pram(survey, ["roof", "water"], strata="region", pd=0.7, seed=5)
    fig = pram_figures(res)
    est = pram_estimate(res.data, res)
    assert fig["variables"] == ["roof", "water"]
    assert fig["strata"] == ["region"]
    assert len(fig["matrices"]) == len(res.matrices) == 4
    for entry, m in zip(fig["matrices"], res.matrices, strict=True):
        assert entry["variables"] == m.variables[0]
        assert entry["stratum"] == {"region": m.stratum[0]}
        assert entry["categories"] == [str(c) for c in m.matrix.index]
        assert np.array_equal(np.array(entry["matrix"]), m.matrix.to_numpy())
        assert entry["invariance_error"] == m.invariance_error
        assert entry["n_changed"] == m.n_changed
        assert entry["change_rate"] == m.change_rate
        assert entry["n_records"] == m.n_records
        rows = est[(est["variables"] == m.variables[0]) & (est["region"] == m.stratum[0])]
        assert [f["before"] for f in entry["frequencies"]] == m.counts.tolist()
        assert [f["after"] for f in entry["frequencies"]] == m.released.tolist()
        assert [f["after"] for f in entry["frequencies"]] == rows["released"].tolist()
        assert [f["estimate"] for f in entry["frequencies"]] == rows["estimate"].tolist()
        assert [f["standard_error"] for f in entry["frequencies"]] == rows[
            "standard_error"
        ].tolist()
    # the counts before are the data's own, per stratum
    north = survey[survey["region"] == "north"]["roof"].value_counts()
    entry = fig["matrices"][0]
    before = {
        c: f["before"] for c, f in zip(entry["categories"], entry["frequencies"], strict=True)
    }
    assert before == {c: int(north.get(c, 0)) for c in entry["categories"]}
    assert fig["per_variable"] == res.summary().to_dict(orient="records")


def test_posterior_of_a_given_matrix_by_hand() -> None:
    # 30 a and 10 b; R = [[0.9, 0.1], [0.3, 0.7]]: n R = (30, 10) (invariant).
    # P(true a | released a) = 30 * 0.9 / 30 = 0.9; P(true b | released b) = 10 * 0.7 / 10 = 0.7
    df = pd.DataFrame({"x": ["a"] * 30 + ["b"] * 10})
    matrix = pd.DataFrame([[0.9, 0.1], [0.3, 0.7]], index=["a", "b"], columns=["a", "b"])
    res = pram(df, "x", transition={"x": matrix}, seed=1)
    fig = pram_figures(res)["matrices"][0]
    assert fig["posterior_min"] == pytest.approx(0.7)
    assert fig["diagonal_min"] == pytest.approx(0.7)
    assert fig["invariance_error"] == pytest.approx(0.0, abs=1e-12)
    assert fig["kind"] == "given"
    text = pram_protection_text(pram_figures(res))
    assert "only 70 %" in text
    assert "does not make records k-anonymous" in text


def test_protection_sentence_gives_the_risk_after_pram() -> None:
    risk = {
        "before": {"k": 3, "n_at_risk": 12, "n_unique": 4, "expected_reidentifications": 2.0},
        "after": {"k": 3, "n_at_risk": 12, "n_unique": 4, "expected_reidentifications": 2.0},
    }
    text = pram_protection_text({"matrices": [{"posterior_min": 0.5}], "risk": risk})
    assert "12 records are still in groups smaller than k = 3 after PRAM (12 before it)" in text
    assert "left the key variables unchanged" in text
    risk["after"] = {**risk["after"], "n_at_risk": 15}
    assert "unchanged" not in pram_protection_text({"matrices": [], "risk": risk})


def test_pram_figures_refuses_other_results() -> None:
    with pytest.raises(InvalidParameterError, match="PramResult"):
        pram_figures({"data": None})  # type: ignore[arg-type]


def test_section_drawn_in_the_report(survey: pd.DataFrame) -> None:
    from microsdc import Release

    rel = Release(survey, ["region", "water"], k=2)
    res = rel.pram("roof", strata="region", seed=9)
    html = rel.report()
    section = re.search(r'<section id="pram">.*?</section>', html, re.S)
    assert section is not None
    body = section.group(0)
    assert body.count('class="pram-transition"') == 2  # one matrix per stratum
    m = res.matrices[1]
    for value in m.matrix.to_numpy().ravel():
        assert f">{value:.3f}</td>" in body
    est = pram_estimate(res.data, res)
    for value in est["estimate"]:
        assert f">{value:.1f}</td>" in body
    assert "PRAM protects by uncertainty" in body
    assert "does not make records k-anonymous" in body
    # the risk of the key variables just before and after PRAM
    fig = rel.audit()["pram"]["risk"]
    assert fig["before"] == fig["after"]  # the keys were not PRAMmed


def test_no_section_without_pram() -> None:
    from microsdc import Release

    df = pd.DataFrame({"a": list("xxyyzz") * 3, "b": list("pq") * 9})
    html = Release(df, ["a", "b"], k=2).report()
    assert 'id="pram"' not in html


def test_settings_line_names_no_seed(survey: pd.DataFrame) -> None:
    from microsdc import Release

    rel = Release(survey, ["region", "water"], k=2)
    rel.pram("roof", strata="region", pd=0.6, alpha=0.4, seed=123456789)
    html = rel.report()
    line = re.search(r'<p class="note" id="pram-settings">(.*?)</p>', html, re.S)
    assert line is not None
    assert line.group(1) == ("Settings: strata region; pd 0.6; alpha 0.4; seed: given (not shown).")
    assert "123456789" not in html
    assert [t["step"] for t in rel.audit()["timings"]] == ["pram"]  # one entry per step
