"""add_noise: the noise asked for is the noise added, covariances kept, bounds and totals
respected, missing values untouched, and the same release whatever the row order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microsdc import add_noise
from microsdc.exceptions import DataValidationError, DisclosureRiskWarning, InvalidParameterError


def households(n: int = 2000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    wage = rng.lognormal(9, 0.8, n)
    pension = rng.lognormal(7, 1.0, n) * (rng.random(n) < 0.4)
    df = pd.DataFrame({"wage": wage, "pension": pension, "age": rng.integers(18, 90, n)})
    df["income"] = df["wage"] + df["pension"]
    df["expend"] = 0.7 * df["income"] + rng.normal(0, 2000, n)
    return df


@pytest.mark.parametrize("method", ["additive", "correlated"])
def test_realised_relative_sd_is_the_one_asked(method: str) -> None:
    df = households(200_000)
    res = add_noise(df, ["income", "expend"], method=method, relative_sd=0.25, seed=1)
    assert res.figures["relative_sd"].to_numpy() == pytest.approx([0.25, 0.25], rel=0.02)
    assert res.figures["signal_to_noise"].to_numpy() == pytest.approx([16, 16], rel=0.05)
    noise = (res.data[["income", "expend"]] - df[["income", "expend"]]).to_numpy()
    if method == "correlated":  # the noise is correlated as the data are
        assert np.corrcoef(noise.T)[0, 1] == pytest.approx(
            df[["income", "expend"]].corr().iloc[0, 1], abs=0.02
        )
        assert res.correlation_change.abs().to_numpy().max() < 0.01
    else:
        assert abs(np.corrcoef(noise.T)[0, 1]) < 0.02


def test_covariance_kept_exactly() -> None:
    df = households()
    cols = ["income", "expend", "age"]
    res = add_noise(df, cols, method="correlated", relative_sd=0.5, keep_covariance=True, seed=3)
    before, after = df[cols].to_numpy(float), res.data[cols].to_numpy()
    np.testing.assert_allclose(np.cov(after.T, ddof=0), np.cov(before.T, ddof=0), rtol=1e-9)
    np.testing.assert_allclose(after.mean(axis=0), before.mean(axis=0), rtol=1e-9)
    assert (np.abs(after - before) > 0).all()


def test_multiplicative_keeps_amounts_non_negative_and_the_mean() -> None:
    df = households(100_000)
    res = add_noise(df, ["pension"], method="multiplicative", relative_sd=0.3, seed=2)
    assert (res.data["pension"] >= 0).all()
    assert ((res.data["pension"] == 0) == (df["pension"] == 0)).all()
    m = df["pension"].mean()
    se = df["pension"].std() * 0.31 / np.sqrt(len(df))
    assert abs(res.data["pension"].mean() - m) < 4 * se + 0.01 * m


def test_outliers_only_and_listed() -> None:
    df = households()
    res = add_noise(df, ["wage"], method="outliers", relative_sd=0.5, outlier_threshold=3.0, seed=4)
    changed = res.data["wage"] != df["wage"]
    med = df["wage"].median()
    mad = 1.4826 * (df["wage"] - med).abs().median()
    robust = (df["wage"] - med).abs() / mad
    assert (changed == (robust > 3)).all() and changed.sum() > 0
    assert sorted(res.outliers["row"]) == sorted(df.index[changed])


def test_bounds_totals_and_missing() -> None:
    df = households()
    df.loc[::10, "wage"] = np.nan
    res = add_noise(
        df,
        ["wage", "pension"],
        relative_sd=2.0,
        lower=0.0,
        totals={"income": ["wage", "pension"]},
        seed=5,
    )
    assert (res.data[["wage", "pension"]].min() >= 0).all()
    assert res.data["wage"].isna().equals(df["wage"].isna())
    expected = res.data[["wage", "pension"]].sum(axis=1, min_count=1)
    pd.testing.assert_series_equal(res.data["income"], expected, check_names=False)
    assert res.n_bounded.sum() < 0.05 * len(df)


def test_same_seed_same_release_whatever_the_row_order_and_input_kept() -> None:
    df = households(500)
    before = df.copy()
    perm = np.random.default_rng(0).permutation(len(df))
    for method, kw in [
        ("additive", {}),
        ("correlated", {"keep_covariance": True}),
        ("outliers", {}),
    ]:
        a = add_noise(df, ["income", "expend"], method=method, seed=9, **kw).data
        b = add_noise(df.iloc[perm], ["income", "expend"], method=method, seed=9, **kw).data
        pd.testing.assert_frame_equal(b.loc[df.index], a)
        # the same numbers read in another order, with new row labels: the same release
        reread = df.iloc[perm].reset_index(drop=True)
        c = add_noise(reread, ["income", "expend"], method=method, seed=9, **kw).data
        pd.testing.assert_frame_equal(c, a.iloc[perm].reset_index(drop=True))
    pd.testing.assert_frame_equal(df, before)
    assert not add_noise(df, "income", seed=1).data.equals(add_noise(df, "income", seed=2).data)


@pytest.mark.parametrize(
    ("kwargs", "error", "param"),
    [
        ({"relative_sd": -0.1}, InvalidParameterError, "relative_sd"),
        ({"method": "ROMM"}, InvalidParameterError, "method"),
        ({"keep_covariance": True}, InvalidParameterError, "keep_covariance"),
        ({"outlier_threshold": 0}, InvalidParameterError, "outlier_threshold"),
        ({"totals": {"wage": ["pension"]}}, InvalidParameterError, "totals"),
        ({"method": "multiplicative", "columns": ["expend"]}, DataValidationError, "method"),
        ({"lower": "zero"}, InvalidParameterError, "lower"),
    ],
)
def test_errors(kwargs: dict, error: type, param: str) -> None:
    df = households(200)
    df.loc[0, "expend"] = -5.0
    args = {"columns": ["wage", "expend"], **kwargs}
    with pytest.raises(error) as info:
        add_noise(df, **args)
    assert info.value.param == param and info.value.func == "add_noise"


def test_outliers_when_most_values_are_equal() -> None:
    df = pd.DataFrame({"x": [1.0, 1, 1, 1, 1, 100]})
    res = add_noise(df, "x", method="outliers", seed=1)
    assert (res.data["x"].iloc[:5] == 1.0).all() and res.data["x"].iloc[5] != 100.0
    assert res.outliers["row"].tolist() == [5]


def test_bounds_and_covariance_checks() -> None:
    df = households(200)
    with pytest.raises(InvalidParameterError, match="above 'upper'"):
        add_noise(df, "wage", lower=5.0, upper=1.0)
    with pytest.raises(InvalidParameterError, match="nosuch"):
        add_noise(df, "wage", lower={"nosuch": 0.0})
    with pytest.raises(InvalidParameterError, match="bounds would break"):
        add_noise(df, "wage", method="correlated", keep_covariance=True, lower=0.0)
    collinear = pd.DataFrame({"x": [1.0, 2, 3, 4], "y": [2.0, 4, 6, 8]})
    with pytest.warns(DisclosureRiskWarning, match="singular"):
        add_noise(collinear, ["x", "y"], method="correlated", keep_covariance=True, seed=1)
    with pytest.raises(DataValidationError, match="holds inf"):
        add_noise(pd.DataFrame({"x": [1.0, 2, np.inf]}), "x")
    with pytest.raises(DataValidationError, match="> 0"):
        add_noise(df.assign(w=0.0), "wage", weights="w")


def test_multiplicative_reports_the_log_factor_sd() -> None:
    df = households(50_000)
    res = add_noise(df, "wage", method="multiplicative", relative_sd=0.2, seed=3)
    assert res.figures.loc["wage", "log_factor_sd"] == pytest.approx(0.2, rel=0.02)


def test_numbers_kept_as_text_are_numbers_and_a_column_left_unchanged_warns() -> None:
    text = pd.DataFrame({"x": ["12.50", "3.75", "3.00", "4.10", "1e+05", "6.00"]})
    res = add_noise(text, "x", relative_sd=0.1, seed=1)
    assert res.data["x"].dtype == np.float64 and (res.data["x"] != text["x"].astype(float)).all()
    with pytest.warns(DisclosureRiskWarning, match="left every value of 'x' unchanged"):
        add_noise(pd.DataFrame({"x": [5.0, 5.0, 5.0]}), "x", seed=1)


def test_bounds_for_columns_not_noised_are_named() -> None:
    df = households(50)
    with pytest.raises(InvalidParameterError) as info:
        add_noise(df, ["wage", "pension"], upper={"wage": 1e9, "age": 90, "nosuch": 1})
    assert str(info.value) == (
        "The 'upper' parameter of add_noise names ['age', 'nosuch'], which are not among the "
        "columns noised (['wage', 'pension'])."
    )
    assert info.value.param == "upper"


@pytest.mark.parametrize("method", ["additive", "correlated", "multiplicative"])
def test_an_outlier_threshold_without_the_outliers_method_is_refused(method: str) -> None:
    # the threshold picks the values of method="outliers" only: with another method it
    # used to be taken and change nothing (add_noise takes pandas frames only)
    df = households(50)
    with pytest.raises(InvalidParameterError) as info:
        add_noise(df, ["wage"], method=method, outlier_threshold=2.5, seed=1)
    err = info.value
    assert (err.func, err.param, err.value, err.related) == (
        "add_noise",
        "outlier_threshold",
        2.5,
        ("method",),
    )
    assert err.requirement == "given together with method='outliers'"
    assert str(err) == (
        f"The 'outlier_threshold' parameter of add_noise is 2.5, but method is '{method}', "
        "not 'outliers': only the outliers method picks values by their robust z-score, so "
        "alone it changes nothing. Give method='outliers' too, or leave 'outlier_threshold' "
        "out."
    )
    # its range is still checked first
    with pytest.raises(InvalidParameterError, match="must be a real number > 0"):
        add_noise(df, ["wage"], method=method, outlier_threshold=0, seed=1)


def test_the_outlier_threshold_left_out_is_the_documented_one() -> None:
    import inspect

    from microsdc.noise.core import OUTLIER_THRESHOLD

    assert OUTLIER_THRESHOLD == 3.0
    assert inspect.signature(add_noise).parameters["outlier_threshold"].default is None
    assert "(None): 3 (:data:`OUTLIER_THRESHOLD`)" in (add_noise.__doc__ or "")
    df = households()
    left_out = add_noise(df, ["wage"], method="outliers", relative_sd=0.5, seed=4)
    given = add_noise(df, ["wage"], method="outliers", relative_sd=0.5, seed=4, outlier_threshold=3)
    pd.testing.assert_frame_equal(left_out.data, given.data)
    lower = add_noise(df, ["wage"], method="outliers", relative_sd=0.5, seed=4, outlier_threshold=1)
    assert (lower.data["wage"] != df["wage"]).sum() > (left_out.data["wage"] != df["wage"]).sum()


def test_keep_covariance_without_correlated_noise_is_worded_as_the_others() -> None:
    # refused before too; now with the same wording and fields as every setting alone
    with pytest.raises(InvalidParameterError) as info:
        add_noise(households(50), ["wage"], keep_covariance=True, seed=1)
    err = info.value
    assert (err.param, err.value, err.related) == ("keep_covariance", True, ("method",))
    assert err.requirement == "given together with method='correlated'"
    assert str(err) == (
        "The 'keep_covariance' parameter of add_noise is True, but method is 'additive', not "
        "'correlated': only the correlated noise is transformed to keep the covariance, so "
        "alone it changes nothing. Give method='correlated' too, or leave 'keep_covariance' "
        "out."
    )
