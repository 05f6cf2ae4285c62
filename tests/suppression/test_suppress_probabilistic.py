"""Local suppression under missing="probabilistic": the bounds that skip candidates, and
progress reports."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microsdc.suppression._probabilistic as prob
from microsdc._kernels.greedy_prob import greedy_probabilistic
from microsdc._kernels.masktables import key_layout
from microsdc.suppression import local_suppression
from microsdc.suppression._engine import candidate_subsets, processing_order, ranked_costs
from oracles.kanon import fk_bruteforce, rows_of


def _wide(n: int, m: int, n_values: int, p_missing: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cols = {}
    for j in range(m):
        v = rng.integers(0, n_values, n).astype(np.float64)
        v[rng.random(n) < p_missing] = np.nan
        cols[f"q{j}"] = v
    return pd.DataFrame(cols)


def _suppress(df: pd.DataFrame, k: int, bounds: bool, max_pairs: int = 1 << 23) -> pd.DataFrame:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(prob, "_BOUNDS", bounds)
        mp.setattr(prob, "_PAIR_MAX_ENTRIES", max_pairs)
        return local_suppression(df, list(df.columns), k, missing="probabilistic").data


@st.composite
def _frames(draw: st.DrawFn) -> pd.DataFrame:
    # few records, several columns of many values: most pairs of columns count below k,
    # so most candidates are skipped by the bounds
    n = draw(st.integers(2, 25))
    m = draw(st.integers(1, 5))
    n_values = draw(st.sampled_from([2, 4, 12]))
    cells = st.one_of(st.none(), st.integers(0, n_values - 1))
    return pd.DataFrame({f"q{j}": draw(st.lists(cells, min_size=n, max_size=n)) for j in range(m)})


@settings(max_examples=60, deadline=None)
@given(df=_frames(), k=st.integers(2, 4), max_pairs=st.sampled_from([0, 1 << 23]))
def test_bounds_skip_only_candidates_that_fail(df: pd.DataFrame, k: int, max_pairs: int) -> None:
    # with the single-column bound, with it and the pair bound, and counting every
    # candidate: the same cells; every record reaches k by the brute-force oracle
    k = min(k, len(df))
    snapshot = df.copy(deep=True)
    plain = _suppress(df, k, bounds=False)
    bounded = _suppress(df, k, bounds=True, max_pairs=max_pairs)
    pd.testing.assert_frame_equal(df, snapshot)
    pd.testing.assert_frame_equal(plain, bounded)
    fk, _ = fk_bruteforce(rows_of(bounded, list(df.columns)), "probabilistic")
    assert min(fk) >= k - 1e-9


def test_wide_data_with_many_values_same_cells_and_reaches_k() -> None:
    # 60 records, 6 columns of 40 values, 30 % missing: nearly every record at risk and
    # every pair of columns below k; the pair tally grows past its first size
    df = _wide(60, 6, 40, 0.3, seed=4)
    df.index = pd.RangeIndex(100, 160)
    snapshot = df.copy(deep=True)
    bounded = _suppress(df, 3, bounds=True)
    plain = _suppress(df, 3, bounds=False)
    pd.testing.assert_frame_equal(bounded, plain)
    pd.testing.assert_frame_equal(df, snapshot)
    assert bounded.index.equals(df.index) and (bounded.dtypes == df.dtypes).all()
    fk, _ = fk_bruteforce(rows_of(bounded, list(df.columns)), "probabilistic")
    assert min(fk) >= 3 - 1e-9
    kept = bounded.notna()
    assert (bounded[kept] == df[kept]).sum().sum() == kept.sum().sum()
    assert 0 < int((bounded.isna() & df.notna()).sum().sum()) < int(df.notna().sum().sum())


@pytest.mark.parametrize("max_pairs", [0, 1 << 23])
def test_few_values_same_cells_and_reaches_k(max_pairs: int) -> None:
    # 150 records, 6 columns of 3 to 8 values, 20 % missing: most pairs of columns reach
    # k and larger sets do not, so rows fail several counts and then are counted on the
    # records compatible with them on two columns or more
    rng = np.random.default_rng(9)
    df = pd.DataFrame({f"q{j}": rng.integers(0, j + 3, 150).astype(np.float64) for j in range(6)})
    df = df.mask(rng.random(df.shape) < 0.2)
    bounded = _suppress(df, 3, bounds=True, max_pairs=max_pairs)
    pd.testing.assert_frame_equal(bounded, _suppress(df, 3, bounds=False))
    fk, _ = fk_bruteforce(rows_of(bounded, list(df.columns)), "probabilistic")
    assert min(fk) >= 3 - 1e-9
    assert int((bounded.isna() & df.notna()).sum().sum()) > 0


def test_pair_reaching_k_is_kept() -> None:
    # (0, 0, 0), (0, 0, 5), (0, 0, 6) and 6 x (1, 1, 2), k = 3: each of the first three
    # blanks c alone (the column of most categories, blanked first), its pair (a, b) then
    # counts the three of them: 3 cells, fk 3 for them and 6 for the others
    df = pd.DataFrame({"a": [0] * 3 + [1] * 6, "b": [0] * 3 + [1] * 6, "c": [0, 5, 6] + [2] * 6})
    bounded = _suppress(df, 3, bounds=True)
    pd.testing.assert_frame_equal(bounded, _suppress(df, 3, bounds=False))
    assert bounded["c"].isna().tolist() == [True] * 3 + [False] * 6
    assert not bounded[["a", "b"]].isna().any().any()
    fk, _ = fk_bruteforce(rows_of(bounded, ["a", "b", "c"]), "probabilistic")
    assert fk == pytest.approx([3.0] * 3 + [6.0] * 6)


def test_pair_below_k_leaves_a_single_column() -> None:
    # (0, 0, 0), (0, 0, 1), 6 x (0, 1, 2) and 6 x (1, 0, 2), k = 3: for the first two,
    # the pair (a, b) counts 2 and every pair with c counts 1, so no single blank
    # reaches k; a alone and b alone count 8 and c alone 1: each keeps a or b only
    df = pd.DataFrame(
        {
            "a": [0, 0] + [0] * 6 + [1] * 6,
            "b": [0, 0] + [1] * 6 + [0] * 6,
            "c": [0, 1] + [2] * 12,
        }
    )
    bounded = _suppress(df, 3, bounds=True)
    pd.testing.assert_frame_equal(bounded, _suppress(df, 3, bounds=False))
    blank = bounded.isna()
    assert not blank.iloc[2:].any().any()
    assert blank.iloc[:2]["c"].all()
    assert (blank.iloc[:2][["a", "b"]].sum(axis=1) == 1).all()
    fk, _ = fk_bruteforce(rows_of(bounded, ["a", "b", "c"]), "probabilistic")
    assert min(fk) >= 3 - 1e-9


def test_kernel_counts_the_rows_handled() -> None:
    df = _wide(80, 4, 6, 0.2, seed=2)
    codes = np.where(df.isna(), -1, df.fillna(0)).astype(np.int64)
    card = np.full(4, 6, dtype=np.int64)
    counts = np.ones(len(codes), dtype=np.int64)
    fk, shares = prob._unit_fk(codes, card, counts)
    order = processing_order(codes, fk, fk < 3)
    assert len(order) > 10
    cand, klass = candidate_subsets(ranked_costs(np.arange(4)))
    word_of, mult, n_words = key_layout(card)
    wait = (3 - fk[order]) * counts[order]
    args = (cand, klass, 3.0, shares, word_of, mult, n_words, wait, counts, int(klass[0]) - 1)
    a, b, c = codes.copy(), codes.copy(), codes.copy()
    counter = np.full(1, -1, dtype=np.int64)
    ba = greedy_probabilistic(a, order, *args, 2)
    bb = greedy_probabilistic(b, order, *args, 2, counter)
    bc = greedy_probabilistic(c, order, *args, 0)
    assert counter[0] == len(order) - 1
    assert np.array_equal(ba, bb) and np.array_equal(a, b)
    assert np.array_equal(ba, bc) and np.array_equal(a, c)
    assert (ba != 0).any()


def test_local_suppression_reports_progress() -> None:
    df = _wide(120, 5, 8, 0.2, seed=7)
    calls: list[tuple[int, int]] = []
    res = local_suppression(
        df,
        list(df.columns),
        3,
        missing="probabilistic",
        progress=lambda d, t: calls.append((d, t)),
    )
    plain = local_suppression(df, list(df.columns), 3, missing="probabilistic")
    pd.testing.assert_frame_equal(res.data, plain.data)
    assert res.n_at_risk_before > 0
    # first pass: every record at risk, from 0 to all of them
    assert calls[0] == (0, res.n_at_risk_before)
    assert (res.n_at_risk_before, res.n_at_risk_before) in calls
    assert calls[-1][0] == calls[-1][1]
    for done, total in calls:
        assert 0 <= done <= total <= res.n_at_risk_before


def test_no_progress_reports_when_nothing_is_at_risk() -> None:
    df = pd.DataFrame({"a": ["x"] * 5, "b": ["y"] * 5})
    calls: list[tuple[int, int]] = []
    res = local_suppression(
        df, ["a", "b"], 3, missing="probabilistic", progress=lambda d, t: calls.append((d, t))
    )
    assert res.n_cells == 0 and calls == []
