"""The exact integer program: reaches k, never costs more than the greedy, and hand cases."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microsdc.exceptions import DisclosureRiskWarning
from microsdc.suppression import local_suppression
from oracles.kanon import fk_bruteforce, rows_of


@st.composite
def small_frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(2, 12))
    m = draw(st.integers(1, 3))
    cells = st.one_of(st.none(), st.integers(0, 2)) if draw(st.booleans()) else st.integers(0, 3)
    return pd.DataFrame({f"q{j}": draw(st.lists(cells, min_size=n, max_size=n)) for j in range(m)})


def _cost(res: object, weights: dict[str, float]) -> float:
    return float(sum(weights[c] * n for c, n in res.cells_per_qi.items()))  # type: ignore[attr-defined]


@settings(max_examples=8, deadline=None)
@given(df=small_frames(), k=st.integers(2, 3))
def test_exact_reaches_k_and_is_no_worse_than_greedy(df: pd.DataFrame, k: int) -> None:
    qi = list(df.columns)
    k = min(k, len(df))
    weights = {c: 1.0 + 0.1 * j for j, c in enumerate(qi)}
    with warnings.catch_warnings():  # whole blank records are pointed out; here the cost counts
        warnings.simplefilter("ignore", DisclosureRiskWarning)
        exact = local_suppression(df, qi, k, method="exact", importance=weights, missing="wildcard")
    greedy = local_suppression(df, qi, k, importance=weights, missing="wildcard")
    fk, _ = fk_bruteforce(rows_of(exact.data, qi))
    assert min(fk) >= k
    assert exact.n_at_risk_after == 0
    assert _cost(exact, weights) <= _cost(greedy, weights) + 1e-9
    changed = exact.data.isna().to_numpy() & df.notna().to_numpy()
    assert changed.sum() == exact.n_cells


def test_exact_hand_case() -> None:
    # four unique records pairwise differing in b only: two blanks of b suffice for k=2
    df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["p", "q", "r", "s"]})
    res = local_suppression(df, ["a", "b"], 2, method="exact", missing="wildcard")
    assert res.n_cells == 2
    assert res.cells_per_qi["b"] == 2
    assert res.method == "exact"


def test_exact_too_large() -> None:
    from microsdc.exceptions import InvalidParameterError

    df = pd.DataFrame({"a": np.arange(2500) % 7, "b": np.arange(2500) % 11})
    with pytest.raises(InvalidParameterError, match="at most 2000 records"):
        local_suppression(df, ["a", "b"], 2, method="exact", missing="wildcard")


# --------------------------------------------------------------------------- never worse than
# a solution at hand, never past the time limit

TESTDATA_QI = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex", "age"]


@pytest.fixture(scope="module")
def testdata10() -> pd.DataFrame:
    from real_data import real_data_file

    df = pd.read_csv(real_data_file("testdata.csv")).head(10)
    # the key variables only: the household's other members and its weight would give
    # a blanked household variable (walls) back, which these solver tests do not look at
    return df.assign(age=(df["age"] // 10) * 10)[TESTDATA_QI]


@pytest.mark.filterwarnings("ignore::microsdc.exceptions.PerformanceWarning")
@pytest.mark.parametrize("time_limit", [0.01, 0.5])
def test_exact_no_worse_than_greedy_or_the_bound(testdata10, time_limit) -> None:
    k, m = 3, len(TESTDATA_QI)
    exact = local_suppression(
        testdata10, TESTDATA_QI, k, method="exact", time_limit=time_limit, missing="wildcard"
    )
    greedy = local_suppression(testdata10, TESTDATA_QI, k, missing="wildcard")
    assert exact.n_at_risk_after == 0
    assert exact.n_cells <= greedy.n_cells
    assert exact.n_cells <= (k - 1) * m  # k - 1 entirely blanked records always suffice
    assert exact.details["solution"] in {"solver", "greedy", "blank_records"}
    info = exact.details["strata"][0]
    assert info["greedy_cells"] == greedy.n_cells
    assert info["cells"] == exact.n_cells


def _bad_incumbent(model, hard_limit):
    # what HiGHS returns at its time limit: a feasible but poor incumbent (every cell blanked)
    return {"x": np.ones(len(model["c"])), "status": 1, "message": "Time limit reached."}


def test_poor_incumbent_is_not_released(testdata10, monkeypatch) -> None:
    from microsdc.exceptions import PerformanceWarning
    from microsdc.suppression import exact

    monkeypatch.setattr(exact, "_run_solver", _bad_incumbent)
    with pytest.warns(PerformanceWarning, match="did not prove optimality.*using"):
        res = local_suppression(
            testdata10, TESTDATA_QI, 3, method="exact", time_limit=5, missing="wildcard"
        )
    greedy = local_suppression(testdata10, TESTDATA_QI, 3, missing="wildcard")
    assert res.details["solution"] in {"greedy", "blank_records"}
    assert res.details["optimal"] is False
    assert res.details["strata"][0]["solver_cells"] == int(
        testdata10[TESTDATA_QI].notna().sum().sum()
    )
    assert res.n_cells <= min(greedy.n_cells, 2 * len(TESTDATA_QI))
    assert res.n_at_risk_after == 0


def test_solver_that_does_not_return_is_stopped(testdata10, monkeypatch) -> None:
    from microsdc.exceptions import PerformanceWarning
    from microsdc.suppression import exact

    monkeypatch.setattr(exact, "_SOLVER", "import time\ntime.sleep(120)\n")
    monkeypatch.setattr(exact, "GRACE_SECONDS", 0.2)
    with pytest.warns(PerformanceWarning, match="solver stopped after"):
        res = local_suppression(
            testdata10, TESTDATA_QI, 3, method="exact", time_limit=0.3, missing="wildcard"
        )
    assert res.details["solution"] in {"greedy", "blank_records"}
    assert res.details["strata"][0]["solver_cells"] is None
    assert res.n_at_risk_after == 0


def test_failing_solver_process_and_oversized_model(testdata10, monkeypatch) -> None:
    from microsdc.exceptions import PerformanceWarning
    from microsdc.suppression import exact

    monkeypatch.setattr(exact, "_SOLVER", "raise SystemExit('no solver here')")
    with pytest.warns(PerformanceWarning, match="solver process failed"):
        res = local_suppression(
            testdata10, TESTDATA_QI, 3, method="exact", time_limit=5, missing="wildcard"
        )
    assert res.n_at_risk_after == 0
    monkeypatch.setattr(exact, "MAX_MODEL_NONZEROS", 10)
    with pytest.warns(PerformanceWarning, match="model too large"):
        res = local_suppression(
            testdata10, TESTDATA_QI, 3, method="exact", time_limit=5, missing="wildcard"
        )
    assert res.details["solution"] in {"greedy", "blank_records"}
    assert res.n_at_risk_after == 0


def test_blank_records_beat_a_poor_greedy() -> None:
    # k - 1 = 2 records blanked entirely make any frame 3-anonymous under wildcards
    from microsdc.suppression.exact import exact_suppress_codes

    codes = np.arange(6 * 3, dtype=np.int64).reshape(6, 3)  # every record unique everywhere
    greedy = codes.copy()
    greedy[:] = -1  # a (poor) greedy that blanked everything
    out = codes.copy()
    monkey = {"x": None}
    import microsdc.suppression.exact as ex

    original = ex._run_solver
    try:
        ex._run_solver = lambda model, hard: {**monkey, "status": 1, "message": "stub"}
        with (
            pytest.warns(Warning, match="2 record\\(s\\) blanked entirely"),
            pytest.warns(DisclosureRiskWarning, match="blanks 2 record\\(s\\) in every key"),
        ):
            info = exact_suppress_codes(out, np.full(3, 18), 3, np.ones(3), 1.0, greedy=greedy)
    finally:
        ex._run_solver = original
    assert info["source"] == "blank_records"
    assert info["cells"] == 6
    assert (out[:2] == -1).all() and (out[2:] == codes[2:]).all()


def test_exact_details_survive_subjects() -> None:
    df = pd.DataFrame({"sid": [1, 1, 2, 3, 4, 5], "a": [1, 1, 2, 3, 1, 2], "b": [1, 1, 1, 2, 2, 2]})
    res = local_suppression(df, ["a", "b"], 2, method="exact", subject_id="sid", missing="wildcard")
    assert res.details["solution"] == "solver" and res.details["optimal"] is True
    assert res.details["unit_of_fk"] == "subject"
    assert res.details["strata"][0]["cells"] == res.n_cells == 2


def test_whole_blank_records_are_pointed_out() -> None:
    # six records unique in both key variables: the optimum blanks k - 1 = 2 records
    # entirely (4 cells), which match everyone under wildcards
    df = pd.DataFrame({"a": list("uvwxyz"), "b": list("ABCDEF")})
    with pytest.warns(
        DisclosureRiskWarning, match=r"blanks 2 record\(s\) in every key variable"
    ) as caught:
        res = local_suppression(df, ["a", "b"], 3, method="exact", missing="wildcard")
    assert res.n_cells == 4 and int(res.data.isna().all(axis=1).sum()) == 2
    # the warning points at the line that called local_suppression, however deep it rose
    assert {w.filename for w in caught} == {__file__}
