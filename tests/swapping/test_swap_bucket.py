"""Households grouped by cell, in their given order within each cell."""

from __future__ import annotations

import numpy as np
import pytest

from microsdc.swapping.donors import _bucket


def test_bucket_by_hand() -> None:
    cells = np.array([2, 0, 2, 1, 0], dtype=np.int64)  # cell of each household
    order = np.array([4, 2, 0, 3, 1], dtype=np.int64)
    out, ptr = _bucket(order, cells, 4)
    # cell 0: 4, 1 (in the given order); cell 1: 3; cell 2: 2, 0; cell 3: none
    assert out.tolist() == [4, 1, 3, 2, 0]
    assert ptr.tolist() == [0, 2, 3, 5, 5]


@pytest.mark.parametrize("n_cells", [3, 1 << 16, (1 << 16) + 1, 10**6])
def test_bucket_is_a_stable_sort_by_cell(n_cells: int) -> None:
    rng = np.random.default_rng(n_cells)
    cells = rng.integers(0, n_cells, size=500)
    cells[:50] = n_cells - 1  # the largest code in use
    order = rng.permutation(500)[:400]
    out, ptr = _bucket(order, cells, n_cells)
    assert out.dtype == np.int64
    assert out.tolist() == order[np.argsort(cells[order], kind="stable")].tolist()
    assert len(ptr) == n_cells + 1 and ptr[-1] == 400
    for c in np.unique(cells[order]):
        assert (cells[out[ptr[c] : ptr[c + 1]]] == c).all()
