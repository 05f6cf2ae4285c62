"""The transition matrices of PRAM: hand-computed cases and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microsdc.postrandomisation.matrices import (
    cumulative_rows,
    invariance_error,
    invariant_matrix,
    masked_invariant_matrix,
)


def test_invariant_matrix_by_hand() -> None:
    # P = [[.8, .2], [.2, .8]], p = (.6, .4): s = p P = (.56, .44);
    # Q = [[.8*.6/.56, .2*.4/.56], [.2*.6/.44, .8*.4/.44]]; R = P Q.
    q = np.array([[0.48 / 0.56, 0.08 / 0.56], [0.12 / 0.44, 0.32 / 0.44]])
    r = np.array([[0.8, 0.2], [0.2, 0.8]]) @ q
    got = invariant_matrix(np.array([60.0, 40.0]), np.array([0.8, 0.8]), 1.0)
    np.testing.assert_allclose(got, r, atol=1e-15)
    assert got[0, 0] == pytest.approx(0.74025974, abs=1e-8)
    # alpha mixes with the identity
    half = invariant_matrix(np.array([60.0, 40.0]), np.array([0.8, 0.8]), 0.5)
    np.testing.assert_allclose(half, 0.5 * r + 0.5 * np.eye(2), atol=1e-15)


def test_absent_category_is_never_reached() -> None:
    r = invariant_matrix(np.array([10.0, 0.0, 5.0]), np.array([0.5, 0.5, 0.5]), 1.0)
    assert (r[:, 1] == 0).sum() == 2 and r[1, 1] == 1.0
    np.testing.assert_allclose(r.sum(axis=1), 1.0)


def test_masked_matrix_by_hand() -> None:
    # proposals: 0 -> 1 with .2; 1 -> 0, 1 -> 2 with .1 each; 2 -> 1 with .2.
    # flows p_i q_ij: 0->1 .1, 1->0 .03, 1->2 .03, 2->1 .04; accepted = the smaller each way.
    mask = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], dtype=bool)
    r = masked_invariant_matrix(np.array([50.0, 30.0, 20.0]), np.full(3, 0.8), 1.0, mask)
    want = np.array([[0.94, 0.06, 0.0], [0.1, 0.8, 0.1], [0.0, 0.15, 0.85]])
    np.testing.assert_allclose(r, want, atol=1e-14)


@st.composite
def _cases(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    n_cat = draw(st.integers(1, 7))
    counts = np.array(draw(st.lists(st.integers(0, 50), min_size=n_cat, max_size=n_cat)), float)
    if counts.sum() == 0:
        counts[0] = 1
    diag = np.array(draw(st.lists(st.floats(0, 1), min_size=n_cat, max_size=n_cat)))
    alpha = draw(st.floats(0, 1))
    upper = np.array(draw(st.lists(st.booleans(), min_size=n_cat * n_cat, max_size=n_cat**2)))
    mask = upper.reshape(n_cat, n_cat)
    mask = mask | mask.T | np.eye(n_cat, dtype=bool)
    return counts, diag, alpha, mask


@settings(max_examples=200, deadline=None)
@given(_cases())
def test_matrices_are_invariant_distributions(case: tuple) -> None:
    counts, diag, alpha, mask = case
    p = counts / counts.sum()
    plain = invariant_matrix(counts, diag, alpha)
    for r in (plain, masked_invariant_matrix(counts, diag, alpha, mask)):
        assert (r >= 0).all()
        np.testing.assert_allclose(r.sum(axis=1), 1.0, atol=1e-12)
        np.testing.assert_allclose(p @ r, p, atol=1e-12)
        assert invariance_error(counts, r) < 1e-12
        # nothing moves into a category the stratum lacks
        absent = counts == 0
        off = ~np.eye(len(counts), dtype=bool)
        assert (r[:, absent][off[:, absent]] == 0).all()
    masked = masked_invariant_matrix(counts, diag, alpha, mask)
    assert (masked[~mask] == 0).all()
    present = counts > 0
    # the diagonal never falls below the drawn d (mixed with the identity by alpha)
    floor = alpha * diag + (1 - alpha)
    assert (masked.diagonal()[present] >= floor[present] - 1e-12).all()


def test_cumulative_rows_never_draw_a_zero_transition() -> None:
    r = np.array([[0.3, 0.0, 0.7, 0.0], [0.0, 0.0, 0.0, 1.0]])
    cum = cumulative_rows(r)
    assert cum[:, -1].tolist() == [1.0, 1.0]
    u = np.linspace(0, 1, 10_001, endpoint=False)
    for row, probs in zip(cum, r, strict=True):
        drawn = (row[None, :] <= u[:, None]).sum(axis=1)
        assert set(np.unique(drawn)) == set(np.flatnonzero(probs > 0))
