"""The core under missing="category" on an engine's patterns: the solution for the records,
given back as pieces (records of one pattern released alike) with the figures of each
piece's records; hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest

from microsdc._core.policy import Policy
from microsdc.suppression import core

COSTS = core.Costs(np.ones(2), False)


def test_a_pattern_split_into_pieces() -> None:
    """(0, 0) x 3 and (0, 1) x 1 at k = 2: the cheapest release blanks the second cell of
    (0, 1) and of one (0, 0) record (2 cells); blanking all of a pattern alike costs 4
    or more. The three (0, 0) records come back as two pieces, fewest blanks first."""
    codes = np.array([[0, 0], [0, 1]], dtype=np.int64)
    got = core.category_on_patterns(codes, np.array([1, 2]), 2, COSTS, np.array([3.0, 1.0]))
    assert got is not None and got.split
    assert got.source.tolist() == [0, 0, 1]
    assert got.records.tolist() == [2.0, 1.0, 1.0]
    assert got.codes.tolist() == [[0, 0], [0, -1], [0, -1]]
    assert codes.tolist() == [[0, 0], [0, 1]]  # not changed
    # listed in another order, with first records saying which came first: the same
    # solution, the pieces by the listed patterns
    other = core.category_on_patterns(
        codes[::-1].copy(), np.array([1, 2]), 2, COSTS, np.array([1.0, 3.0]), np.array([7, 0])
    )
    assert other is not None
    assert other.source.tolist() == [0, 1, 1]
    assert other.records.tolist() == [1.0, 2.0, 1.0]
    assert other.codes.tolist() == [[0, -1], [0, 0], [0, -1]]


def test_no_split_is_one_piece_per_pattern_in_order() -> None:
    codes = np.array([[0, 1], [0, 0], [1, 1]], dtype=np.int64)
    got = core.category_on_patterns(codes, np.array([2, 2]), 2, COSTS, np.array([2.0, 3.0, 2.0]))
    assert got is not None and not got.split
    assert got.source.tolist() == [0, 1, 2]
    assert got.codes.tolist() == codes.tolist()  # every class has 2 records already


def test_suppress_codes_counts_the_figures_per_piece_over_strata() -> None:
    """Stratum 0: the split case above; stratum 1: (1, 1) x 2, safe. Pieces in pattern
    order; fk after and true_fk counted on the pieces within their stratum."""
    codes0 = np.array([[1, 1], [0, 0], [0, 1]], dtype=np.int64)
    records = np.array([2.0, 3.0, 1.0])
    out = core.suppress_codes(
        codes0, np.array([2, 2]), [np.array([1, 2]), np.array([0])], [(2, 2)], None,
        ["a", "b"], Policy("category"), stratified=True, records=records,
        first=np.array([0, 1, 2]),
    )  # fmt: skip
    assert out.source is not None and out.records is not None
    assert out.source.tolist() == [0, 1, 1, 2]
    assert out.records.tolist() == [2.0, 2.0, 1.0, 1.0]
    assert out.codes.tolist() == [[1, 1], [0, 0], [0, -1], [0, -1]]
    assert out.fk_before.tolist() == [2, 3, 3, 1]
    assert out.risk_before.tolist() == [False, False, False, True]
    assert out.fk_after.tolist() == [2, 2, 2, 2]
    assert out.risk_after.tolist() == [False] * 4
    # (0, 0) as released (0, *): the 4 records of its stratum fit its true values;
    # (0, 1) as (0, *): the 2 records (0, *)
    assert out.true_fk.tolist() == [0, 0, 4, 2]
    assert int((((out.codes < 0) & (codes0[out.source] >= 0)) * out.records[:, None]).sum()) == 2


def test_the_greedy_on_patterns_where_the_records_are_too_many(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without the solution for the records the greedy on patterns runs: one row per
    pattern, every record of a pattern blanked alike."""
    monkeypatch.setattr(core, "MAX_EXPANDED_RECORDS", 3)
    codes0 = np.array([[0, 0], [0, 1]], dtype=np.int64)
    assert core.category_on_patterns(codes0, np.array([1, 2]), 2, COSTS, np.full(2, 2.0)) is None
    out = core.suppress_codes(
        codes0, np.array([1, 2]), [np.arange(2)], [(2, 2)], None, ["a", "b"],
        Policy("category"), stratified=False, records=np.array([3.0, 1.0]),
        first=np.array([0, 3]),
    )  # fmt: skip
    assert out.source is None and out.records is None
    assert len(out.codes) == 2
    assert (out.fk_after >= 2).all()


def test_the_greedy_on_patterns_is_released_where_it_blanks_fewer_cells() -> None:
    """(0, 1) x 4, (1, 1) x 2, (2, 0) x 3, (2, 2) x 1 at k = 3. Blanking (1, 1) and (2, 2)
    entirely makes a class of 3 blank records: 6 cells, every pattern whole. The solution
    for the records splits a pattern and blanks 7: the greedy's release is taken."""
    codes0 = np.array([[0, 1], [1, 1], [2, 0], [2, 2]], dtype=np.int64)
    records = np.array([4.0, 2.0, 3.0, 1.0])
    ncat = np.array([3, 3])
    costs = core.Costs(np.ones(2), False)
    first = np.array([0, 4, 6, 9])
    pieces = core.category_on_patterns(codes0, ncat, 3, costs, records, first)
    assert pieces is not None and pieces.split
    new = (pieces.codes < 0) & (codes0[pieces.source] >= 0)
    assert int((new * pieces.records[:, None]).sum()) == 7
    out = core.suppress_codes(
        codes0, ncat, [np.arange(4)], [(2, 3)], None, ["a", "b"], Policy("category"),
        stratified=False, records=records, first=first,
    )  # fmt: skip
    assert out.source is None  # one row per pattern
    assert out.codes.tolist() == [[0, 1], [-1, -1], [2, 0], [-1, -1]]
    assert out.fk_after.tolist() == [4, 3, 3, 3]
