"""Risk and utility measures of continuous variables against brute force and sdcMicro's
formulas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microsdc import (
    add_noise,
    continuous_utility,
    interval_risk,
    linkage_risk,
    lorenz_curve,
    microaggregate,
)
from microsdc.exceptions import DataValidationError, InvalidParameterError


def frame(n: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "income": rng.lognormal(9, 1, n),
            "expend": rng.lognormal(8, 0.5, n),
            "region": rng.choice(["a", "b"], n),
        }
    )


def test_linkage_risk_equals_brute_force() -> None:
    df = frame(200)
    released = add_noise(df, ["income", "expend"], relative_sd=0.3, seed=1).data
    cols = ["income", "expend"]
    x, y = df[cols].to_numpy(), released[cols].to_numpy()
    mean, sd = x.mean(axis=0), x.std(axis=0)
    xs, ys = (x - mean) / sd, (y - mean) / sd
    want = []
    for i in range(len(x)):
        d = np.sqrt(((xs - ys[i]) ** 2).sum(axis=1))
        best = d.min()
        tied = np.flatnonzero(d <= best + 1e-9 * (1 + best))
        want.append(1 / len(tied) if i in tied else 0.0)
    got = linkage_risk(df, released, cols)
    np.testing.assert_allclose(got.to_numpy(), want)
    assert 0 < got.mean() < 1


def _brute_linkage(x: np.ndarray, y: np.ndarray) -> list[float]:
    mean, sd = x.mean(axis=0), x.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    xs, ys = (x - mean) / sd, (y - mean) / sd
    want = []
    for i in range(len(x)):
        d = np.sqrt(((xs - ys[i]) ** 2).sum(axis=1))
        best = d.min()
        tied = np.flatnonzero(d <= best + 1e-9 * (1 + best))
        want.append(1 / len(tied) if i in tied else 0.0)
    return want


@pytest.mark.parametrize("case", ["zeros", "rounded", "group means", "both rounded"])
def test_linkage_risk_with_tied_records_equals_brute_force(case: str) -> None:
    # many identical originals and released points: each tie counted once per record
    df = frame(240, seed=3)
    cols = ["income", "expend"]
    if case == "zeros":
        df.loc[:99, cols] = 0.0
        released = df.copy()
        released.loc[150:, cols] += 1.0
    elif case == "rounded":
        released = df.copy()
        released[cols] = (df[cols] / 5000).round() * 5000
    elif case == "group means":
        released = microaggregate(df, cols, k=4).data
    else:
        df[cols] = (df[cols] / 5000).round() * 5000
        released = df.copy()
        released.loc[::7, cols] += 5000.0
    want = _brute_linkage(df[cols].to_numpy(), released[cols].to_numpy())
    got = linkage_risk(df, released, cols).to_numpy()
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)
    assert len(set(np.round(want, 12))) > 1  # ties of several sizes were met


def test_microaggregation_lowers_linkage() -> None:
    df = frame(600)
    cols = ["income", "expend"]
    agg = microaggregate(df, cols, k=3).data
    assert linkage_risk(df, df, cols).mean() == 1.0
    # a record's released point is its group's mean: linked with probability at most 1/3
    assert (
        linkage_risk(df, agg, cols).max() <= 1 / 3 + 1e-12
        or linkage_risk(df, agg, cols).mean() < 0.5
    )


def test_interval_risk_as_sdcmicro_drisk() -> None:
    o = pd.DataFrame({"x": [0.0, 10.0, 20.0, 30.0], "y": [1.0, 1.0, 1.0, 5.0]})
    r = pd.DataFrame({"x": [0.1, 12.0, 20.0, 30.0], "y": [1.0, 1.0, 3.0, 5.0]})
    # sd of released x = 12.59 (ddof=1): interval 0.63 at k = 0.05; y: sd 1.915, 0.096
    got = interval_risk(o, r, ["x", "y"], fraction_of_sd=0.05)
    assert got.tolist() == [True, False, False, True]
    with pytest.raises(InvalidParameterError):
        interval_risk(o, r, "x", fraction_of_sd=0)


def test_utility_by_hand() -> None:
    o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    r = pd.DataFrame({"x": [1.0, 2.0, 3.0, 6.0]})
    u = continuous_utility(o, r, "x")
    sd = np.std([1, 2, 3, 4], ddof=1)
    assert u.il1s == pytest.approx(2 / (np.sqrt(2) * sd))
    assert u.il1s_per_cell == pytest.approx(u.il1s / 4)
    z_sd = np.std([1, 2, 3, 4])
    assert u.sse_sst == pytest.approx((2 / z_sd) ** 2 / (5 / z_sd**2))
    row = u.columns.iloc[0]
    assert row["mean_before"] == 2.5 and row["mean_after"] == 3.0


def test_gini_and_lorenz() -> None:
    equal = lorenz_curve(pd.Series([5.0, 5.0, 5.0, 5.0]))
    np.testing.assert_allclose(equal["amount_share"], equal["population_share"])
    one_has_all = continuous_utility(
        pd.DataFrame({"x": [0.0, 0.0, 0.0, 10.0]}), pd.DataFrame({"x": [2.5] * 4}), "x"
    ).columns.iloc[0]
    assert one_has_all["gini_before"] == pytest.approx(0.75)  # (n - 1) / n for n = 4
    assert one_has_all["gini_after"] == pytest.approx(0.0)


def test_by_group_and_errors() -> None:
    df = frame()
    released = add_noise(df, ["income"], relative_sd=0.1, seed=2).data
    u = continuous_utility(df, released, ["income", "expend"], by="region")
    assert set(u.columns["group"]) == {"a", "b"} and len(u.columns) == 4
    with pytest.raises(InvalidParameterError, match="same order"):
        linkage_risk(df, released.iloc[::-1], "income")


def test_measures_refuse_odd_input() -> None:
    o = pd.DataFrame({"x": [1.0, 2.0, np.inf]})
    with pytest.raises(DataValidationError, match="holds inf"):
        linkage_risk(o, o, "x")
    with pytest.raises(DataValidationError, match="non-negative"):
        lorenz_curve(pd.Series([-1.0, 2.0]))
    with pytest.raises(DataValidationError, match="not all 0"):
        lorenz_curve(pd.Series([1.0, 2.0]), pd.Series([0.0, 0.0]))
    # weights follow the index, not the position
    curve = lorenz_curve(pd.Series([1.0, 2.0, 3.0]), pd.Series([100.0, 1.0, 1.0], index=[2, 1, 0]))
    assert curve["population_share"].tolist() == pytest.approx([0, 1 / 102, 2 / 102, 1])


def test_records_without_a_group_are_a_group() -> None:
    df = frame(40)
    df.loc[:4, "region"] = None
    u = continuous_utility(df, df, "income", by="region")
    assert "(missing)" in set(u.columns["group"])
