"""The default suppression resists an intruder who knows a person's key values.

Every check counts with the brute-force intruder of ``tests/oracles/intruder.py``, written
from the definition and independently of ``microsdc.prosecutor_risk``, on the data as
released (and, where a file is written, as read back).
"""

from __future__ import annotations

import inspect
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from microsdc.cli import cli as main
from microsdc.exceptions import DataValidationError, DisclosureRiskWarning, SDCWarning
from microsdc.risk.prosecutor import intruder_figures, prosecutor_figures
from microsdc.suppression import local_suppression
from microsdc.suppression.params import RARE_MAX_SHARE, RARE_MIN_DISTINCT
from oracles.intruder import intruder_risk, records_above

ADULT_QI = ["age5", "sex", "race", "marital-status", "education", "native-country"]


@st.composite
def frames(draw: st.DrawFn, codes: bool = False) -> tuple[pd.DataFrame, int]:
    n = draw(st.integers(1, 30))
    m = draw(st.integers(1, 3))
    pool = [0, 1, 2, 3, None] + ([-7] if codes else [])
    cols = {
        f"q{j}": draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)) for j in range(m)
    }
    df = pd.DataFrame(cols, dtype=object)
    k = draw(st.integers(1, min(n, 5)))
    return df, k


@given(frames())
def test_default_leaves_no_record_above_one_over_k(case: tuple[pd.DataFrame, int]) -> None:
    df, k = case
    qi = list(df.columns)
    res = local_suppression(df, qi, k)
    risk = intruder_risk(df, res.data, qi)
    assert risk.max(initial=0.0) <= 1.0 / k + 1e-9
    assert res.intruder()["after"]["n_above_1_over_k"] == 0
    # the library's figure is the oracle's, before and after
    assert res.intruder()["before"]["n_above_1_over_k"] == records_above(df, df, qi, k)


@given(frames(codes=True))
def test_default_with_a_declared_code_counts_what_is_released(
    case: tuple[pd.DataFrame, int],
) -> None:
    df, k = case
    qi = list(df.columns)
    res = local_suppression(df, qi, k, missing_values=[-7])
    assert records_above(df, res.data, qi, k) == 0
    assert res.intruder()["after"]["n_above_1_over_k"] == 0


def test_declared_code_and_blank_are_told_apart(tmp_path: Path) -> None:
    """(m,-7), (m,-7), (m,50) with k = 3: blanking 50 alone leaves (m, <blank>) unique
    in the file, whatever a count that merges -7 with a blank says."""
    df = pd.DataFrame({"sex": ["m", "m", "m"], "answer": [-7, -7, 50]})
    res = local_suppression(df, ["sex", "answer"], 3, missing_values=[-7])
    out = tmp_path / "released.csv"
    res.data.to_csv(out, index=False)
    back = pd.read_csv(out)
    assert records_above(df, back, ["sex", "answer"], 3) == 0
    assert res.n_at_risk_after == 0
    # the count that merged the two would have blanked one cell and left a unique record
    merged = df.copy()
    merged.loc[2, "answer"] = None
    assert records_above(df, merged, ["sex", "answer"], 3) == 1


def test_cli_with_a_declared_code_plays_the_intruder_on_the_file(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    rows = ["sex,answer"] + ["m,-7"] * 3 + ["m,50"] + ["f,20"] * 3 + ["f,-7"]
    src.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    for policy in ([], ["--missing", "category"]):
        r = CliRunner().invoke(
            main,
            [
                "suppress",
                str(src),
                "--qi",
                "sex,answer",
                "-k",
                "3",
                "--missing-values=-7",
                *policy,
                "--out",
                str(out),
            ],
        )
        assert r.exit_code == 0, r.output
        original = pd.read_csv(src)
        back = pd.read_csv(out)
        # a cell is either as it was (the code -7 included) or blank
        kept = back["answer"].notna()
        assert (back["answer"][kept] == original["answer"][kept]).all()
        assert records_above(original, back, ["sex", "answer"], 3) == 0


def test_measure_policies_warn_with_the_records_left(shared_data: Path) -> None:
    adult = pd.read_csv(shared_data / "adult_missing.csv")
    adult["age5"] = (adult["age"] // 5) * 5
    adult = adult[ADULT_QI]  # the key variables only: nothing else to read back from
    for policy in ("wildcard", "probabilistic"):
        with pytest.warns(DisclosureRiskWarning, match="is a measure, not a protection") as rec:
            res = local_suppression(adult, ADULT_QI, 3, missing=policy)
        left = records_above(adult, res.data, ADULT_QI, 3)
        assert left > 0
        assert res.intruder()["after"]["n_above_1_over_k"] == left
        message = next(str(w.message) for w in rec if "measure" in str(w.message))
        assert f"{left:,} records can still be picked" in message
        unchanged = int(
            ((intruder_risk(adult, res.data, ADULT_QI) > 1 / 3 + 1e-9) & (res.cells_per_row == 0))
            .to_numpy()
            .sum()
        )
        assert f"{unchanged:,} of them left unchanged" in message


def test_default_on_adult_leaves_no_record_above_one_third(shared_data: Path) -> None:
    adult = pd.read_csv(shared_data / "adult_missing.csv")
    adult["age5"] = (adult["age"] // 5) * 5
    adult = adult[ADULT_QI]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DisclosureRiskWarning)  # no measure warning
        res = local_suppression(adult, ADULT_QI, 3)
    assert res.missing == "category"
    assert records_above(adult, res.data, ADULT_QI, 3) == 0
    figures = res.intruder()
    assert figures["before"]["n_above_1_over_k"] == records_above(adult, adult, ADULT_QI, 3)
    assert figures["after"] == prosecutor_figures(res.prosecutor_after, 3)
    assert figures == {
        k: v for k, v in intruder_figures(adult, res.data, ADULT_QI, 3).items() if k != "k"
    }


def test_every_entry_point_defaults_to_the_guarantee() -> None:
    from microsdc.job.schema import default_of

    assert inspect.signature(local_suppression).parameters["missing"].default == "category"
    assert default_of("risk.missing") == "category"
    from microsdc.cli.suppress import suppress

    opt = next(p for p in suppress.params if p.name == "missing")
    assert opt.default == "category"
    assert (opt.help or "").startswith("Missing-value policy: category")


def test_a_lazy_frame_runs_local_suppression_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    # one driver: a lazy frame gets the checks and defaults of local_suppression's own
    # signature, so no second route can drift from them
    pl = pytest.importorskip("polars")
    from microsdc.suppression import local

    seen: list[dict[str, object]] = []
    real = local.checked_call

    def spy(**arguments: object) -> object:
        seen.append(arguments)
        return real(**arguments)  # type: ignore[arg-type]

    monkeypatch.setattr(local, "checked_call", spy)
    frame = pl.LazyFrame({"a": ["x", "x", "y", "y", "z"]})
    res = local_suppression(frame, ["a"], 2)
    assert [call["missing"] for call in seen] == ["category"]
    assert seen[0]["df"] is frame
    # under "category" the blank z needs a blank companion, whose own pair then breaks
    assert res.cells_per_qi.to_dict() == {"a": 3}


def test_lazy_frames_run_the_guarantee_on_patterns() -> None:
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(4)
    df = pd.DataFrame(
        {
            "a": rng.choice(["x", "y", "z", None], 400, p=[0.5, 0.3, 0.15, 0.05]),
            "b": rng.integers(0, 6, 400).astype(str),
            "c": rng.choice(["u", "v"], 400),
        }
    )
    # the records' solution blanks one record of (x, 4, u) and not the 13 others: the
    # engine releases it (13 cells, as pandas), where the greedy on patterns blanked 30
    with warnings.catch_warnings():
        warnings.simplefilter("error", SDCWarning)
        res = local_suppression(pl.from_pandas(df).lazy(), ["a", "b", "c"], 4)
    assert res.n_cells == local_suppression(df, ["a", "b", "c"], 4).n_cells == 13
    assert res.details == {"recoverable": []}  # no other column
    split = res.patterns[(res.patterns["a"] == "x") & (res.patterns["b"] == "4")]
    split = split[split["c"] == "u"]
    assert sorted(zip(split["records"], split["cells"], strict=True)) == [(1, 1), (13, 0)]
    data = res.data.collect().to_pandas()
    assert res.missing == "category"
    assert records_above(df, data, ["a", "b", "c"], 4) == 0
    assert res.intruder()["after"]["n_above_1_over_k"] == 0
    assert res.intruder()["before"]["n_above_1_over_k"] == records_above(df, df, ["a", "b", "c"], 4)


def test_lazy_category_runs_the_records_algorithm_when_patterns_stay_whole() -> None:
    pl = pytest.importorskip("polars")
    from microsdc.suppression import core

    # (x,2), (x,3), (x,4) hide together as (x, <blank>); no pattern is split
    df = pd.DataFrame({"a": ["x"] * 6 + ["y"] * 3, "b": [1, 1, 1, 2, 3, 4, 5, 5, 5]})
    eager = local_suppression(df, ["a", "b"], 3)
    lazy = local_suppression(pl.from_pandas(df).lazy(), ["a", "b"], 3)
    assert eager.n_cells == lazy.n_cells == 3
    out = lazy.data.collect().to_pandas()
    assert out["b"].isna().tolist() == eager.data["b"].isna().tolist()
    # too many records to expand leaves it to the greedy on patterns
    codes = np.array([[0, 0], [0, 1]], dtype=np.int64)
    costs = core.Costs(np.ones(2), False)
    assert (
        core.category_on_patterns(
            codes.copy(), np.array([1, 2]), 2, costs, np.array([core.MAX_EXPANDED_RECORDS, 1])
        )
        is None
    )


def test_lazy_wildcard_warns_too() -> None:
    pl = pytest.importorskip("polars")
    df = pd.DataFrame({"a": ["x"] * 5 + ["y"], "b": ["u"] * 5 + ["v"]})
    with pytest.warns(DisclosureRiskWarning, match="1 records can still be picked"):
        local_suppression(pl.from_pandas(df).lazy(), ["a", "b"], 3, missing="wildcard")


def test_wildcard_greedy_blanking_a_whole_record_is_not_reported_safe() -> None:
    """(y, q) matches nothing on any subset: the greedy blanks the whole record, which a
    blank matching any value counts as safe; the intruder still picks it."""
    df = pd.DataFrame({"a": ["x", "x", "x", "y"], "b": ["p", "p", "p", "q"]})
    with pytest.warns(DisclosureRiskWarning, match="1 records can still be picked") as rec:
        res = local_suppression(df, ["a", "b"], 2, missing="wildcard")
    assert res.cells_per_row.tolist() == [0, 0, 0, 2]
    assert res.n_at_risk_after == 0  # the wildcard count calls it safe
    assert records_above(df, res.data, ["a", "b"], 2) == 1
    assert res.intruder()["after"]["n_above_1_over_k"] == 1
    assert any("0 of them left unchanged" in str(w.message) for w in rec)
    safe = local_suppression(df, ["a", "b"], 2)
    assert records_above(df, safe.data, ["a", "b"], 2) == 0


def test_random_method_and_combs_say_what_they_leave(shared_data: Path) -> None:
    t = pd.read_csv(shared_data / "testdata.csv")
    qi = ["urbrur", "water", "sex", "relat"]
    with pytest.warns(DisclosureRiskWarning, match="method='random' does not reach") as rec:
        res = local_suppression(t[qi], qi, 3, method="random", seed=1)
    left = records_above(t, res.data, qi, 3)
    assert left > 0 and res.intruder()["after"]["n_above_1_over_k"] == left
    assert any(f"{left:,} records can still be picked" in str(w.message) for w in rec)
    df = pd.DataFrame({"a": list("xxxyyy"), "b": list("uvwuvw")})
    with pytest.warns(DisclosureRiskWarning, match="subsets of 'combs'"):
        sub = local_suppression(df, ["a", "b"], 2, combs=[1])
    assert sub.n_cells == 0 and records_above(df, sub.data, ["a", "b"], 2) == 6


# --------------------------------------------------------------------------- rare values


def _freetext(n: int = 3000, distinct: int = 2980, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    texts = [f"comment number {i} about the survey" for i in range(distinct)]
    comment = texts + list(rng.choice(texts, n - distinct))
    return pd.DataFrame(
        {
            "sex": rng.choice(["f", "m"], n),
            "race": rng.choice(["a", "b", "c"], n),
            "comment": rng.permutation(np.array(comment, dtype=object)),
        }
    )


def test_free_text_key_stops_the_command(tmp_path: Path) -> None:
    df = _freetext()
    assert df["comment"].nunique() == 2980
    src = tmp_path / "adult_freetext.csv"
    df.to_csv(src, index=False)
    out = tmp_path / "out.csv"
    args = ["suppress", str(src), "--qi", "sex,race,comment", "-k", "3", "--out", str(out)]
    r = CliRunner().invoke(main, args)
    assert r.exit_code != 0
    assert "'comment' has 2,980 distinct values" in r.output
    assert "Bin it" in r.output and "drop it" in r.output
    assert "--accept-rare-values" in r.output
    assert not out.exists()
    r = CliRunner().invoke(main, [*args, "--accept-rare-values"])
    assert r.exit_code == 0, r.output
    assert records_above(df, pd.read_csv(out), ["sex", "race", "comment"], 3) == 0


def test_income_in_units_stops_the_library(shared_data: Path) -> None:
    t = pd.read_csv(shared_data / "testdata.csv")
    qi = ["urbrur", "sex", "income"]
    warnings.filterwarnings("ignore", message="Quasi-identifier 'income' has 1,346")
    with pytest.raises(DataValidationError, match="'income' has 1,346 distinct values") as info:
        local_suppression(t, qi, 3)
    assert info.value.value == "income"
    assert "accept_rare_values" in str(info.value)
    res = local_suppression(t, qi, 3, accept_rare_values=True)
    assert records_above(t, res.data, qi, 3) == 0
    # banded, the same variable is suppressed without a fuss
    t["income_band"] = pd.qcut(t["income"], 10, labels=False, duplicates="drop")
    local_suppression(t, ["urbrur", "sex", "income_band"], 3)


@pytest.mark.parametrize("n_rare, refused", [(50, False), (51, True)])
def test_rare_value_threshold(n_rare: int, refused: bool) -> None:
    """1,000 records, 120 distinct values: refused above 5 % of the records in values that
    fewer than k = 3 records hold."""
    assert RARE_MIN_DISTINCT == 100 and RARE_MAX_SHARE == 0.05
    common = [f"v{i}" for i in range(120 - n_rare)]
    n_common = 1000 - n_rare
    values = [common[i % len(common)] for i in range(n_common)] + [f"r{i}" for i in range(n_rare)]
    df = pd.DataFrame({"v": values, "s": ["a", "b"] * 500})
    assert df["v"].nunique() == 120
    if refused:
        with pytest.raises(DataValidationError, match=r"51 records \(5.1 %\)"):
            local_suppression(df, ["v", "s"], 3)
    else:
        local_suppression(df, ["v", "s"], 3)


def test_rare_values_below_the_distinct_floor_are_suppressed() -> None:
    df = pd.DataFrame({"v": [f"x{i}" for i in range(99)] + ["x0"], "s": ["a"] * 100})
    res = local_suppression(df, ["v", "s"], 2)  # 99 distinct values: suppression decides
    assert records_above(df, res.data, ["v", "s"], 2) == 0


def test_lazy_frames_refuse_rare_values_too() -> None:
    pl = pytest.importorskip("polars")
    df = _freetext(600, 590)
    with pytest.raises(DataValidationError, match="'comment' has 590 distinct values"):
        local_suppression(pl.from_pandas(df).lazy(), ["sex", "comment"], 3)
    res = local_suppression(
        pl.from_pandas(df).lazy(), ["sex", "comment"], 3, accept_rare_values=True
    )
    assert res.intruder()["after"]["n_above_1_over_k"] == 0


def test_job_key_lets_rare_values_through(tmp_path: Path) -> None:
    from microsdc.job import run_job

    df = _freetext(600, 590)
    df.to_csv(tmp_path / "in.csv", index=False)
    job = tmp_path / "job.toml"
    text = (
        'steps = ["suppression"]\n[input]\npath = "in.csv"\n'
        '[variables]\nquasi_identifiers = ["sex", "comment"]\n'
        '[risk]\nk = 3\n[output]\ndirectory = "out"\n'
    )
    job.write_text(text, encoding="utf-8")
    with pytest.raises(Exception, match="'comment' has 590 distinct values"):
        run_job(job)
    job.write_text(text + "[suppression]\naccept_rare_values = true\n", encoding="utf-8")
    audit = run_job(job).audit
    assert audit["intruder"]["after"]["n_above_1_over_k"] == 0


# --------------------------------------------------------------------------- headline


def test_summary_and_caption_put_the_intruder_first() -> None:
    from microsdc.report.console import intruder_caption

    df = pd.DataFrame({"a": list("xxxy"), "b": list("pppq")})
    res = local_suppression(df, ["a", "b"], 2)
    lines = res.summary().splitlines()
    assert lines[1] == (
        "  records an intruder who knows their key values picks with probability above 1/2: "
        "1 before -> 0 after"
    )
    assert "[green]0[/green]" in intruder_caption(res.intruder(), 2)
    wild = local_suppression(df, ["a", "b"], 2, missing="wildcard")
    caption = intruder_caption(wild.intruder(), 2)
    assert wild.intruder()["after"]["n_above_1_over_k"] == records_above(
        df, wild.data, ["a", "b"], 2
    )
    assert "[red]" in caption and "[green]" not in caption


def test_risk_command_shows_the_intruder_figure(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    rows = ["sex,answer"] + ["m,-7"] * 3 + ["m,50"] + ["f,20"] * 3 + ["f,-7"]
    src.write_text("\n".join(rows) + "\n", encoding="utf-8")
    df = pd.read_csv(src)
    want = records_above(df, df, ["sex", "answer"], 3)
    assert want == 2  # (m, 50) and (f, -7): -7 is a value of the file
    r = CliRunner().invoke(
        main, ["risk", str(src), "--qi", "sex,answer", "-k", "3", "--missing-values=-7"]
    )
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert (
        "records an intruder who knows their key values picks with probability above 1/3: "
        f"{want}; highest probability 1.00"
    ) in text
