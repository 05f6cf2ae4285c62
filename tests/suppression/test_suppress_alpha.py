"""Local suppression under alpha < 1 (sdcMicro freqCalc): cells against the brute-force
minimum, and never more cells than the category solution, which satisfies alpha too."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microsdc
from microsdc.suppression import core
from oracles.kanon import fk_bruteforce, rows_of

SIX = pd.DataFrame(
    {"A": [1, 0, 1, 0, 0, 1], "B": [0.0, 0.0, np.nan, 1.0, 2.0, 1.0], "other": list("uvwxyz")},
    index=[10, 11, 12, 13, 14, 15],
)


def _reaches(df: pd.DataFrame, qi: list[str], k: int, alpha: float) -> bool:
    fk, _ = fk_bruteforce(rows_of(df, qi), alpha)
    return min(fk) >= k - 1e-9


def _min_cells(df: pd.DataFrame, qi: list[str], k: int, alpha: float) -> int:
    """Fewest cells whose blanking reaches k under alpha, by trying every set of cells."""
    rows = rows_of(df, qi)
    cells = [(i, j) for i, r in enumerate(rows) for j, v in enumerate(r) if v is not None]
    for size in range(len(cells) + 1):
        for chosen in combinations(cells, size):
            out = [list(r) for r in rows]
            for i, j in chosen:
                out[i][j] = None
            fk, _ = fk_bruteforce([tuple(r) for r in out], alpha)
            if min(fk) >= k - 1e-9:
                return size
    raise AssertionError("unreachable: blanking every cell reaches any k <= n")


def _new_blanks(before: pd.DataFrame, after: pd.DataFrame, qi: list[str]) -> int:
    return int((after[qi].isna().to_numpy() & ~before[qi].isna().to_numpy()).sum())


def test_six_records_alpha_zero_hand_computed_minimum() -> None:
    # Under alpha = 0 a complete record counts only the identical complete records: the
    # five complete records are distinct and no blank can make two complete records
    # equal, so each must lose a cell (>= 5). Blanking B everywhere gives (1, NA) x 3 and
    # (0, NA) x 3, each counting its own pattern: fk = 3 >= 2 with 5 cells.
    qi = ["A", "B"]
    assert _min_cells(SIX, qi, 2, 0.0) == 5
    before = SIX.copy()
    res = microsdc.local_suppression(SIX, qi, 2, missing=0.0)
    pd.testing.assert_frame_equal(SIX, before)  # input unchanged
    assert res.n_cells == 5 == _new_blanks(SIX, res.data, qi)
    assert _reaches(res.data, qi, 2, 0.0)
    assert res.data.index.equals(SIX.index)
    assert res.data["other"].tolist() == list("uvwxyz")
    assert res.data["B"].dtype == np.float64
    assert res.n_at_risk_before == 5 and res.n_at_risk_after == 0
    fk, _ = fk_bruteforce(rows_of(res.data, qi), 0.0)
    assert res.fk_after.tolist() == fk


def test_six_records_greedy_alone_counts_blanked_patterns_right() -> None:
    # without the category fallback the greedy itself reaches the minimum: it counts a
    # pattern with a blank as 1 per complete or identical record, not alpha x matches
    # (which made every blank worthless at alpha = 0 and blanked all 11 cells)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(core, "category_if_cheaper", lambda *a, **kw: False)
        zero = microsdc.local_suppression(SIX, ["A", "B"], 2, missing=0.0)
        half = microsdc.local_suppression(SIX, ["A", "B"], 2, missing=0.5)
    assert zero.n_cells == 5 and zero.details["solution"] == "greedy"
    # alpha = 0.5: (0, 2) and (1, 1) keep their values with two (x, NA) matches at 0.5
    assert _min_cells(SIX, ["A", "B"], 2, 0.5) == 3
    assert half.n_cells == 3
    assert _reaches(half.data, ["A", "B"], 2, 0.5)


def test_category_solution_released_when_cheaper() -> None:
    # four distinct complete records: the greedy blanks one record at a time and each
    # blank costs the others their complete match; the category solution blanks one
    # column (4 cells), which the alpha check accepts
    df = pd.DataFrame({"q0": [2.0, 2.0, 0.0, 0.0], "q1": [1.0, 2.0, 2.0, 1.0]})
    qi = ["q0", "q1"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(core, "category_if_cheaper", lambda *a, **kw: False)
        greedy = microsdc.local_suppression(df, qi, 2, missing=0.5)
    res = microsdc.local_suppression(df, qi, 2, missing=0.5)
    cat = microsdc.local_suppression(df, qi, 2, missing="category")
    assert greedy.n_cells == 5
    assert res.n_cells == cat.n_cells == 4 == _min_cells(df, qi, 2, 0.5)
    assert res.details["solution"] == "category"
    assert res.data.equals(cat.data)
    assert _reaches(res.data, qi, 2, 0.5)
    fk, _ = fk_bruteforce(rows_of(res.data, qi), 0.5)
    assert np.allclose(res.fk_after.to_numpy(), fk)
    assert res.n_at_risk_after == 0 and res.missing == "alpha=0.5"


def test_strata_mixed_solution() -> None:
    # stratum "a" is the case above (category released), stratum "b" the greedy's
    a = pd.DataFrame({"q0": [2.0, 2.0, 0.0, 0.0], "q1": [1.0, 2.0, 2.0, 1.0], "s": "a"})
    b = pd.DataFrame({"q0": [1.0, 1.0, 1.0], "q1": [0.0, 0.0, 1.0], "s": "b"})
    df = pd.concat([a, b], ignore_index=True)
    res = microsdc.local_suppression(df, ["q0", "q1"], 2, missing=0.5, strata="s")
    assert res.details["solution"] == "mixed"
    for name, part in res.data.groupby("s"):
        assert _reaches(part, ["q0", "q1"], 2, 0.5), name
    assert res.n_cells == 4 + 1 == _new_blanks(df, res.data, ["q0", "q1"])


@st.composite
def small_frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(2, 10))
    m = draw(st.integers(1, 3))
    data: dict[str, list[float]] = {}
    for j in range(m):
        values = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
        holes = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
        data[f"q{j}"] = [np.nan if h == 0 else float(v) for v, h in zip(values, holes, strict=True)]
    out = pd.DataFrame(data, index=pd.RangeIndex(100, 100 + n))
    out["other"] = np.arange(n)
    return out


@settings(max_examples=60, deadline=None)
@given(df=small_frames(), k=st.integers(2, 3), alpha=st.sampled_from([0.0, 0.5]))
def test_alpha_reaches_k_and_never_more_cells_than_category(
    df: pd.DataFrame, k: int, alpha: float
) -> None:
    qi = [c for c in df.columns if c != "other"]
    if len(df) < k:
        return
    before = df.copy()
    res = microsdc.local_suppression(df, qi, k, missing=alpha)
    pd.testing.assert_frame_equal(df, before)
    out = res.data
    assert out.index.equals(df.index)
    assert (out.dtypes == df.dtypes).all()
    assert out["other"].tolist() == df["other"].tolist()
    was, now = df[qi].to_numpy(), out[qi].to_numpy()
    kept = ~np.isnan(now)
    assert np.array_equal(now[kept], was[kept])  # only blanks
    assert res.n_cells == _new_blanks(df, out, qi)
    fk, _ = fk_bruteforce(rows_of(out, qi), alpha)
    assert min(fk) >= k - 1e-9
    assert np.allclose(res.fk_after.to_numpy(), fk)
    assert res.n_at_risk_after == 0
    cat = microsdc.local_suppression(df, qi, k, missing="category")
    if _reaches(cat.data, qi, k, alpha):
        assert res.n_cells <= cat.n_cells


@settings(max_examples=40, deadline=None)
@given(df=small_frames(), k=st.integers(2, 3))
def test_alpha_zero_counts_like_the_general_alpha_count(df: pd.DataFrame, k: int) -> None:
    # at alpha = 0 the greedy counts with two lookups (complete records, own pattern)
    # instead of one per missingness mask; alpha = 1e-300 takes the general count, whose
    # extra terms vanish against whole counts: the same blanks, pass after pass
    qi = [c for c in df.columns if c != "other"]
    if len(df) < k:
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(core, "category_if_cheaper", lambda *a, **kw: False)
        mp.setattr(core, "_alpha0_improver", lambda *a, **kw: None)
        fast = microsdc.local_suppression(df, qi, k, missing=0.0)
        general = microsdc.local_suppression(df, qi, k, missing=1e-300)
    pd.testing.assert_frame_equal(fast.data, general.data)
    assert _reaches(fast.data, qi, k, 0.0)


def _codes(df: pd.DataFrame, qi: list[str]) -> tuple[np.ndarray, np.ndarray]:
    from microsdc.encode import encode_qis

    enc = encode_qis(df, qi)
    return np.ascontiguousarray(enc.codes, dtype=np.int64), np.asarray(enc.n_categories)


def _as_rows(codes: np.ndarray) -> list[tuple[object, ...]]:
    return [tuple(None if v < 0 else int(v) for v in row) for row in codes]


@settings(max_examples=60, deadline=None)
@given(df=small_frames(), k=st.integers(2, 3), start=st.sampled_from(["blank", "category"]))
def test_alpha_zero_give_back_keeps_k(df: pd.DataFrame, k: int, start: str) -> None:
    # the give-back pass decides each cell from two pattern counts; the oracle recounts
    from microsdc.suppression._alpha0 import restore_alpha0

    qi = [c for c in df.columns if c != "other"]
    if len(df) < k:
        return
    original, ncat = _codes(df, qi)
    if start == "blank":
        codes = np.full_like(original, -1)
    else:
        codes, _ = _codes(microsdc.local_suppression(df, qi, k, missing="category").data, qi)
        codes = np.where(codes < 0, -1, original)  # same codes as the original's
    blanks = int(((codes < 0) & (original >= 0)).sum())
    got = restore_alpha0(original, codes, ncat, k, np.ones(len(qi)))
    fk, _ = fk_bruteforce(_as_rows(codes), 0.0)
    assert min(fk) >= k
    kept = codes >= 0
    assert np.array_equal(codes[kept], original[kept])  # only original values come back
    assert int(((codes < 0) & (original >= 0)).sum()) == blanks - got


def test_alpha_zero_give_back_hand_computed() -> None:
    # (1, 0) x 2, (1, 1), (0, 2) x 2, everything blanked, k = 2. Column 0 first: each
    # record takes back A as long as its pattern (A, NA) keeps 2 members; then B:
    # (1, 0) x 2 and (0, 2) x 2 come back whole (2 identical complete records each),
    # (1, 1) keeps (1, NA), which counts the two complete (1, 0) records and itself
    from microsdc.suppression._alpha0 import restore_alpha0

    original = np.array([[1, 0], [1, 0], [1, 1], [0, 2], [0, 2]], dtype=np.int64)
    codes = np.full_like(original, -1)
    got = restore_alpha0(original, codes, np.array([2, 3]), 2, np.array([2.0, 1.0]))
    assert codes.tolist() == [[1, 0], [1, 0], [1, -1], [0, 2], [0, 2]]
    assert got == 9
    assert min(fk_bruteforce(_as_rows(codes), 0.0)[0]) >= 2
