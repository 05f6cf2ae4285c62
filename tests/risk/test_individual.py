"""Individual, global and household risk: hand-computed values and the definitions."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from microsdc.exceptions import ColumnNotFoundError, DataValidationError, InvalidParameterError
from microsdc.risk.individual import (
    GlobalRisk,
    global_risk,
    household_risk,
    individual_risk,
    risk_from_frequencies,
)

# Hand-computed with p = fk / Fk:
#   fk = 1, Fk = 4:   p = 1/4, p/(1-p) ln(1/p) = (1/3) ln 4            = 0.4620981204
#   fk = 2, Fk = 4:   p = 1/2, p/(1-p) - (p/(1-p))^2 ln(1/p) = 1 - ln 2 = 0.3068528194
#   fk = 3, Fk = 6:   p = 1/2, p/(fk - (1-p)) = 0.5 / 2.5              = 0.2
#   fk = 5, Fk = 50:  p = 1/10, 0.1 / (5 - 0.9)                        = 0.0243902439
HAND = [
    (1, 4.0, math.log(4) / 3),
    (2, 4.0, 1 - math.log(2)),
    (3, 6.0, 0.2),
    (5, 50.0, 0.1 / 4.1),
]


@pytest.mark.parametrize(("fk", "Fk", "expected"), HAND)
def test_hand_computed_weighted(fk: int, Fk: float, expected: float) -> None:
    assert risk_from_frequencies([fk], [Fk])[0] == pytest.approx(expected, rel=1e-12)


def test_hand_computed_on_a_frame() -> None:
    # one record alone (weight 4), a pair (weights 1.5 + 2.5), a triple (weights 2 each)
    df = pd.DataFrame(
        {
            "sex": ["f", "m", "m", "m", "m", "m"],
            "age": ["20", "30", "30", "40", "40", "40"],
            "w": [4.0, 1.5, 2.5, 2.0, 2.0, 2.0],
        },
        index=[10, 11, 12, 13, 14, 15],
    )
    before = df.copy()
    r = individual_risk(df, ["sex", "age"], weights="w")
    expected = [math.log(4) / 3, 1 - math.log(2), 1 - math.log(2), 0.2, 0.2, 0.2]
    assert r.tolist() == pytest.approx(expected, rel=1e-12)
    assert r.name == "risk"
    assert list(r.index) == [10, 11, 12, 13, 14, 15]
    pd.testing.assert_frame_equal(df, before)
    unweighted = individual_risk(df, ["sex", "age"])
    assert unweighted.tolist() == pytest.approx([1, 1 / 2, 1 / 2, 1 / 3, 1 / 3, 1 / 3])


def test_without_weights_is_one_over_fk_with_wildcards() -> None:
    df = pd.DataFrame({"A": [0, 0, 1, 1, None, 0, None], "B": [1, 1, 2, 1, 2, None, None]})
    fk = [4, 4, 3, 2, 4, 5, 7]  # spec section 1, worked example
    assert individual_risk(df, ["A", "B"]).tolist() == pytest.approx([1 / f for f in fk])
    cat = individual_risk(df, ["A", "B"], missing="category")
    assert cat.tolist() == pytest.approx([1 / 2, 1 / 2, 1, 1, 1, 1, 1])


def test_weights_of_one_give_one_over_fk() -> None:
    assert risk_from_frequencies([1, 2, 3], [1.0, 2.0, 2.5]).tolist() == pytest.approx(
        [1, 1 / 2, 1 / 3]
    )


def test_zero_weights_do_not_break() -> None:
    assert risk_from_frequencies([1, 2], [0.0, 0.0]).tolist() == [1.0, 0.5]


@pytest.mark.parametrize("fk", [1, 2, 3, 7])
def test_tends_to_one_over_fk_and_is_continuous(fk: int) -> None:
    Fk = np.array([fk / (1 - q) for q in (1e-12, 1e-8, 1e-4, 0.0499999, 0.0500001, 0.2)])
    r = risk_from_frequencies(np.full(len(Fk), fk), Fk)
    assert r[0] == pytest.approx(1 / fk, rel=1e-9)
    assert r[3] == pytest.approx(r[4], rel=1e-6)  # the series and the closed form meet
    assert np.all(np.diff(r) <= 1e-15)  # a larger population never raises the risk


def test_series_matches_closed_form() -> None:
    for fk in (1, 2):
        q = 0.04
        p = 1 - q
        closed = p / q * math.log(1 / p) if fk == 1 else p / q - (p / q) ** 2 * math.log(1 / p)
        assert risk_from_frequencies([fk], [fk / p])[0] == pytest.approx(closed, rel=1e-9)


def test_alpha_policy_refused() -> None:
    df = pd.DataFrame({"a": [1, None]})
    with pytest.raises(InvalidParameterError, match="missing"):
        individual_risk(df, ["a"], missing=0.5)


def test_fractional_fk_refused() -> None:
    with pytest.raises(InvalidParameterError, match="fk"):
        risk_from_frequencies([0.5])
    with pytest.raises(InvalidParameterError, match="Fk"):
        risk_from_frequencies([1, 2], [3.0])


def test_empty_frame() -> None:
    df = pd.DataFrame({"a": pd.Series([], dtype=object), "h": pd.Series([], dtype=int)})
    assert individual_risk(df, ["a"]).empty
    assert household_risk(df, ["a"], "h").empty
    g = global_risk(df, ["a"], hid="h")
    assert g == GlobalRisk(0, 0.0, 0.0, 0.0, 0, 0.0, 0.0)


def test_unknown_columns() -> None:
    df = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(ColumnNotFoundError, match="'b'"):
        individual_risk(df, ["b"])
    with pytest.raises(ColumnNotFoundError, match="'hh'"):
        household_risk(df, ["a"], "hh")


def test_missing_household_id_is_an_error() -> None:
    df = pd.DataFrame({"a": [1, 2], "hh": [1, None]})
    with pytest.raises(DataValidationError, match="household id"):
        household_risk(df, ["a"], "hh")


def test_household_risk_by_hand() -> None:
    # persons: risk 1/2, 1/2 in household A; 1/3 alone in B; A -> 1 - (1/2)(1/2) = 3/4
    df = pd.DataFrame(
        {"hh": ["A", "B", "A", "C", "C"], "sex": ["m", "f", "m", "f", "f"]},
    )
    hr = household_risk(df, ["sex"], "hh")
    assert hr.tolist() == pytest.approx([3 / 4, 1 / 3, 3 / 4, 1 - (2 / 3) ** 2, 1 - (2 / 3) ** 2])
    assert hr.name == "household_risk"


def _household_oracle(risk: list[float], hid: list[object]) -> list[float]:
    """1 - prod(1 - r_i) over the members of each person's household, literally."""
    out = []
    for h in hid:
        prod = 1.0
        for r, g in zip(risk, hid, strict=True):
            if g == h:
                prod *= 1 - r
        out.append(1 - prod)
    return out


@given(
    st.lists(
        st.tuples(
            st.integers(0, 5),
            st.sampled_from(["a", "b", None]),
            st.sampled_from([0, 1]),
            st.floats(0.5, 30),
        ),
        min_size=1,
        max_size=25,
    )
)
def test_household_risk_matches_definition(rows: list[tuple[int, str | None, int, float]]) -> None:
    df = pd.DataFrame(rows, columns=["hh", "x", "y", "w"])
    for weights in (None, "w"):
        r = individual_risk(df, ["x", "y"], weights=weights).tolist()
        hr = household_risk(df, ["x", "y"], "hh", weights=weights).tolist()
        assert hr == pytest.approx(_household_oracle(r, df["hh"].tolist()), abs=1e-12)
        g = global_risk(df, ["x", "y"], weights=weights, hid="hh")
        assert g.expected_reidentifications == pytest.approx(sum(r))
        assert g.global_risk == pytest.approx(sum(r) / len(r))
        assert g.max_risk == pytest.approx(max(r))
        assert g.n_households == df["hh"].nunique()
        assert g.household_expected_reidentifications == pytest.approx(sum(hr))
        assert all(0.0 <= v <= 1.0 for v in hr)
        assert all(h >= x - 1e-12 for h, x in zip(hr, r, strict=True))


def test_global_risk_figures_and_text() -> None:
    df = pd.DataFrame({"sex": ["m", "m", "f", "f"], "age": [1, 1, 1, 2], "hh": [1, 1, 2, 2]})
    g = global_risk(df, ["sex", "age"], hid="hh")
    assert g.expected_reidentifications == 3.0
    assert g.global_risk == 0.75
    assert g.max_risk == 1.0
    assert g.household_expected_reidentifications == pytest.approx(0.75 + 0.75 + 1 + 1)
    d = g.to_dict()
    assert d["n_households"] == 2
    assert "expected re-identifications: 3.00" in g.summary()
