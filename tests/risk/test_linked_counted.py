"""recoverable_counted (the count form an engine runs) gives on the counts of distinct
(column, key variable) combinations what recoverable_cells gives on the records, and
given_back with weights what it gives on the rows repeated."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from hypothesis import event, given, settings
from hypothesis import strategies as st

from microsdc.risk.linked import recoverable_cells, recoverable_counted
from microsdc.risk.readback import given_back


def _counts(df: pd.DataFrame, column: str, key: str) -> pd.DataFrame:
    """What an engine's group-by gives: distinct combinations (missing kept), counted."""
    out = df.groupby([column, key], dropna=False, sort=False).size()
    return out.rename("n").reset_index()


def _by_counts(before: pd.DataFrame, after: pd.DataFrame, keys: list[str], mv: Any) -> list[Any]:
    rows = []
    for key in keys:
        for col in [c for c in after.columns if c not in keys]:
            n, hit = recoverable_counted(
                _counts(before, col, key), _counts(after, col, key), key, col, missing_values=mv
            )
            if hit and hit >= 0.1 * n:
                rows.append((key, col, n, hit, hit / n))
    out = pd.DataFrame(
        rows, columns=["key_variable", "column", "n_blanked", "n_recoverable", "share"]
    )
    out = out.sort_values("n_recoverable", ascending=False, kind="stable")
    return out.to_dict("records")


def test_a_code_by_hand() -> None:
    """educ 'z' (2 records) blanked everywhere: the code (10 records per value) gives it
    back from outside; a blanked 'BA' is given back by its 13 other BA records."""
    before = pd.DataFrame(
        {"educ": ["BA"] * 14 + ["MA"] * 14 + ["z", "z"], "years": [16] * 14 + [18] * 14 + [9, 9]}
    )
    after = before.assign(educ=[None] + ["BA"] * 13 + ["MA"] * 14 + [None, None])
    assert recoverable_counted(
        _counts(before, "years", "educ"), _counts(after, "years", "educ"), "educ", "years"
    ) == (3, 3)
    assert _by_counts(before, after, ["educ"], None) == [
        {
            "key_variable": "educ",
            "column": "years",
            "n_blanked": 3,
            "n_recoverable": 3,
            "share": 1.0,
        }
    ]
    assert recoverable_cells(before, after, ["educ"]).to_dict("records") == _by_counts(
        before, after, ["educ"], None
    )


@st.composite
def _pair(draw: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    n = draw(st.integers(2, 60))
    k = draw(st.lists(st.sampled_from([None, -9, 0, 1, 2, 3]), min_size=n, max_size=n))
    f = {None: 50, -9: -9, 0: 10, 1: 11, 2: 12, 3: 12}
    noise = draw(st.lists(st.sampled_from([None, -9, 0, 1, 2]), min_size=n, max_size=n))
    flip = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    before = pd.DataFrame(
        {
            "k": pd.array(k, dtype="Int64"),
            "f": [f[v] for v in k],
            "g": pd.array(noise, dtype="Int64"),
            "h": [float(i % 3) if i % 5 else np.nan for i in range(n)],
        }
    )
    after = before.copy()
    after["k"] = after["k"].mask(pd.Series(flip))
    return before, after


@settings(max_examples=300, deadline=None)
@given(pair=_pair(), declared=st.booleans())
def test_counts_give_the_result_of_the_records(
    pair: tuple[pd.DataFrame, pd.DataFrame], declared: bool
) -> None:
    before, after = pair
    mv = [-9] if declared else None
    want = recoverable_cells(before, after, ["k"], missing_values=mv).to_dict("records")
    event("pairs found" if want else "no pair")
    assert _by_counts(before, after, ["k"], mv) == want


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(1, 4)), min_size=1),
    targets=st.lists(st.tuples(st.integers(-1, 3), st.integers(0, 3), st.booleans()), min_size=1),
    in_shown=st.booleans(),
)
def test_weights_are_rows_repeated(rows: list[Any], targets: list[Any], in_shown: bool) -> None:
    c, k, w = (np.array(x, dtype=np.int64) for x in zip(*rows, strict=True))
    tc, tk, own = (np.array(x) for x in zip(*targets, strict=True))
    own = own.astype(bool)
    repeated = given_back(
        np.repeat(c, w), np.repeat(k, w), np.repeat(k, w), tc, tk, own, in_shown=in_shown
    )
    weighted = given_back(c, k, k, tc, tk, own, in_shown=in_shown, ref_weights=w, shown_weights=w)
    assert weighted.tolist() == repeated.tolist()
