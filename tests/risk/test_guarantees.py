"""Blank records cannot fake protection: category, probabilistic and the prosecutor risk."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from microsdc import DataValidationError, prosecutor_risk, sample_frequencies
from oracles.kanon import prosecutor_bruteforce, rows_of, value_shares


@st.composite
def _frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 25))
    m = draw(st.integers(1, 4))
    cells = st.one_of(st.none(), st.integers(0, 2)) if draw(st.booleans()) else st.integers(0, 3)
    return pd.DataFrame({f"q{j}": draw(st.lists(cells, min_size=n, max_size=n)) for j in range(m)})


def _with_blank_rows(df: pd.DataFrame, n_blank: int) -> pd.DataFrame:
    blank = pd.DataFrame({c: [None] * n_blank for c in df.columns}, dtype=object)
    return pd.concat([df.astype(object), blank], ignore_index=True)


def _share_product(row: tuple[object, ...], shares: list[dict[object, float]]) -> float:
    return math.prod(shares[j][v] for j, v in enumerate(row) if v is not None)


@given(df=_frames(), k=st.integers(2, 5))
def test_blank_records_change_no_category_fk(df: pd.DataFrame, k: int) -> None:
    qi = list(df.columns)
    before = sample_frequencies(df, qi, missing="category")["fk"].to_numpy()
    after = sample_frequencies(_with_blank_rows(df, k - 1), qi, missing="category")["fk"]
    not_blank = df.notna().any(axis=1).to_numpy()
    np.testing.assert_array_equal(after.to_numpy()[: len(df)][not_blank], before[not_blank])


@given(df=_frames(), k=st.integers(2, 5))
def test_blank_records_add_only_shares_under_probabilistic(df: pd.DataFrame, k: int) -> None:
    qi = list(df.columns)
    before = sample_frequencies(df, qi, missing="probabilistic")["fk"].to_numpy()
    after = sample_frequencies(_with_blank_rows(df, k - 1), qi, missing="probabilistic")["fk"]
    rows = rows_of(df, qi)
    shares = value_shares(rows)
    bound = np.array([(k - 1) * _share_product(r, shares) for r in rows])
    rise = after.to_numpy()[: len(df)] - before
    # the rise is exactly (k - 1) x the product of the record's shares: never a whole
    # match unless every known value of the record is the only value of its column
    np.testing.assert_allclose(rise, bound, atol=2e-9)  # fk is rounded to 1e-9


#: counting routes of the share-weighted support, each forced in turn
ROUTES = ("dense", "pairs", "bitset")


@given(df=_frames(), data=st.data(), route=st.sampled_from(ROUTES))
def test_prosecutor_risk_matches_bruteforce(
    df: pd.DataFrame, data: st.DataObject, route: str
) -> None:
    import microsdc._kernels.route as routes

    qi = list(df.columns)
    blank = data.draw(
        st.lists(st.booleans(), min_size=df.size, max_size=df.size).map(
            lambda b: np.array(b).reshape(df.shape)
        )
    )
    released = df.astype(object).mask(blank)
    snapshot = df.copy(deep=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(routes, "choose_route", lambda *_, **__: route)
        risk = prosecutor_risk(df, released, qi)
    pd.testing.assert_frame_equal(df, snapshot)
    expected = prosecutor_bruteforce(rows_of(df, qi), rows_of(released, qi))
    np.testing.assert_allclose(risk.to_numpy(), expected, atol=1e-9)
    assert ((risk >= 0) & (risk <= 1)).all()


@given(df=_frames(), k=st.integers(2, 5))
def test_blank_records_barely_move_prosecutor_risk(df: pd.DataFrame, k: int) -> None:
    qi = list(df.columns)
    before = prosecutor_risk(df, df, qi).to_numpy()
    bigger = _with_blank_rows(df, k - 1)
    after = prosecutor_risk(bigger, bigger, qi).to_numpy()[: len(df)]
    shares = value_shares(rows_of(df, qi))
    bound = np.array([(k - 1) * _share_product(r, shares) for r in rows_of(df, qi)])
    assert (after <= before + 1e-12).all()
    assert (before - after <= bound + 1e-12).all()


def test_prosecutor_without_missing_is_one_over_fk() -> None:
    df = pd.DataFrame({"a": ["x", "x", "y", "y", "y"], "b": [1, 1, 2, 2, 3]})
    assert prosecutor_risk(df, df, ["a", "b"]).tolist() == [0.5, 0.5, 0.5, 0.5, 1.0]


def test_prosecutor_blank_record_weighs_its_shares() -> None:
    original = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
    released = original.copy()
    released.loc[3] = [None, None]
    risk = prosecutor_risk(original, released, ["a", "b"])
    # released shares: a: x 2/3, y 1/3; b: u 2/3, v 1/3. Record 0 (x,u): itself 1 and
    # the blank record 2/3 x 2/3
    assert risk.iloc[0] == pytest.approx(1 / (1 + 4 / 9))
    # record 3 (y,v): only the blank record is compatible
    assert risk.iloc[3] == 1.0


def test_prosecutor_frames_must_match() -> None:
    df = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(DataValidationError, match="same records"):
        prosecutor_risk(df, df.iloc[:1], ["a"])
