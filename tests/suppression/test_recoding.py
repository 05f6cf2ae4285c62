"""Recoding: labelled bins, top/bottom coding, rare categories; inputs never modified."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microsdc.exceptions import ColumnNotFoundError, DataValidationError, InvalidParameterError
from microsdc.recoding import bin_numeric, bottom_code, merge_rare_categories, top_code


def test_width_bins_are_floor_bands() -> None:
    age = pd.Series([17, 20, 24, 25, 90, None], index=list("abcdef"), name="age")
    snapshot = age.copy()
    out = bin_numeric(age, width=5)
    pd.testing.assert_series_equal(age, snapshot)
    assert out.index.equals(age.index) and out.name == "age"
    assert out.cat.ordered
    assert out.tolist()[:5] == ["15-19", "20-24", "20-24", "25-29", "90-94"]
    assert pd.isna(out.iloc[5])
    # same bands as floor(age / 5) * 5
    band = (age.dropna() // 5 * 5).astype(int)
    assert [s.split("-")[0] for s in out.dropna()] == [str(b) for b in band]
    assert list(out.cat.categories)[:2] == ["15-19", "20-24"]


def test_width_with_origin_and_float_values() -> None:
    out = bin_numeric(pd.Series([0.5, 1.2, 2.9]), width=1.0, origin=0.5)
    assert out.tolist() == ["[0.5, 1.5)", "[0.5, 1.5)", "[2.5, 3.5)"]


def test_count_quantile_and_edges() -> None:
    x = pd.Series(np.arange(10))
    assert bin_numeric(x, bins=2).tolist() == ["[0, 4.5)"] * 5 + ["[4.5, 9]"] * 5
    q = bin_numeric(x, bins=2, method="quantile")
    assert q.value_counts().tolist() == [5, 5]
    e = bin_numeric(x, bins=[-np.inf, 3, 7, np.inf], method="edges")
    assert e.tolist() == ["<=2"] * 3 + ["3-6"] * 4 + ["7+"] * 3
    assert bin_numeric(x, bins=[0, 5, 9], method="edges", labels=["low", "high"]).tolist() == (
        ["low"] * 5 + ["high"] * 5
    )
    codes = bin_numeric(pd.Series([1, None, 7]), bins=[0, 5, 9], method="edges", labels=False)
    assert str(codes.dtype) == "Int64" and codes.tolist()[0] == 0 and pd.isna(codes.iloc[1])


def test_frame_in_frame_out() -> None:
    df = pd.DataFrame({"age": [23, 47], "sex": ["f", "m"]}, index=[3, 3])
    out = bin_numeric(df, "age", width=10)
    assert df["age"].tolist() == [23, 47]
    assert out["age"].tolist() == ["20-29", "40-49"]
    assert out["sex"].tolist() == ["f", "m"] and out.index.equals(df.index)


def test_bin_bad_input() -> None:
    s = pd.Series([1, 2, 3])
    with pytest.raises(InvalidParameterError, match="'method' parameter"):
        bin_numeric(s, bins=2, method="kmeans")
    with pytest.raises(InvalidParameterError, match="not both"):
        bin_numeric(s, bins=2, width=1)
    with pytest.raises(InvalidParameterError, match="'width' parameter"):
        bin_numeric(s, width=0)
    with pytest.raises(InvalidParameterError, match="strictly increasing"):
        bin_numeric(s, bins=[3, 1], method="edges")
    with pytest.raises(DataValidationError, match="outside the edges"):
        bin_numeric(s, bins=[2, 3], method="edges")
    with pytest.raises(DataValidationError, match="numeric"):
        bin_numeric(pd.Series(["a"]), width=1)
    with pytest.raises(InvalidParameterError, match="2 distinct labels"):
        bin_numeric(s, bins=[0, 2, 3], method="edges", labels=["x"])
    with pytest.raises(ColumnNotFoundError):
        bin_numeric(pd.DataFrame({"a": [1]}), "b", width=1)
    with pytest.raises(InvalidParameterError, match="'column' parameter"):
        bin_numeric(pd.DataFrame({"a": [1]}), width=1)


def test_declared_missing_codes_stay_apart_from_the_bins() -> None:
    # a CSV column with "." is text; a numeric column with -9
    text = pd.Series(["31", ".", "47", None, "52"], index=[5, 6, 7, 8, 9], name="age")
    snapshot = text.copy()
    out = bin_numeric(text, width=10, missing_values=[".", "-9"])
    pd.testing.assert_series_equal(text, snapshot)
    assert out.tolist()[:3] == ["30-39", ".", "40-49"] and pd.isna(out.iloc[3])
    assert out.iloc[4] == "50-59" and out.index.equals(text.index)
    assert list(out.cat.categories) == ["30-39", "40-49", "50-59", "."]
    numbers = pd.Series([31.0, -9.0, 47.0])
    got = bin_numeric(numbers, width=10, missing_values=[-9])
    assert got.tolist() == ["30-39", "-9.0", "40-49"]  # text: a Parquet file can hold it
    assert bin_numeric(numbers, width=10, missing_values=[-9], labels=False).tolist()[1] is pd.NA
    # without the codes, the text column is refused, naming its value that is not a number
    with pytest.raises(
        DataValidationError, match=r"not numbers nor declared missing codes, such as '\.'"
    ):
        bin_numeric(text, width=10)
    with pytest.raises(
        DataValidationError,
        match=r"'age' cannot be binned.*holds 1 value.*'abc' \(first rows: \[7\]",
    ):
        bin_numeric(text.replace("47", "abc"), width=10, missing_values=["."])


def test_top_and_bottom_coding() -> None:
    s = pd.Series([15, 40, 95, None], dtype="Int64")
    top = top_code(s, threshold=90)
    assert top.tolist()[:3] == [15, 40, 90] and pd.isna(top.iloc[3])
    assert str(top.dtype) == "Int64"
    assert s.tolist()[2] == 95
    assert top_code(pd.Series([1, 100]), threshold=50, value=75.5).tolist() == [1.0, 75.5]
    assert bottom_code(pd.Series([10, 30]), threshold=18).tolist() == [18, 30]
    df = pd.DataFrame({"inc": [1.0, 1e6]})
    assert top_code(df, "inc", threshold=1e5)["inc"].tolist() == [1.0, 1e5]
    with pytest.raises(InvalidParameterError, match="'threshold' parameter"):
        top_code(s, threshold="x")  # type: ignore[arg-type]


def test_merge_rare_categories() -> None:
    s = pd.Series(["a", "a", "b", "c", None, "a"])
    out = merge_rare_categories(s, min_count=2)
    assert out.tolist()[:4] == ["a", "a", "other", "other"] and pd.isna(out.iloc[4])
    assert s.tolist()[2] == "b"
    cat = pd.Series(pd.Categorical(["x", "x", "y", "z"], categories=["x", "y", "z", "unused"]))
    merged = merge_rare_categories(cat, min_count=2, other_label="rest")
    assert list(merged.cat.categories) == ["x", "rest"]
    assert merged.tolist() == ["x", "x", "rest", "rest"]
    nums = merge_rare_categories(pd.Series([1, 1, 1, 2, 3]), min_count=2)
    assert nums.tolist() == [1, 1, 1, 4, 4] and nums.dtype == np.dtype("int64")
    unchanged = merge_rare_categories(pd.Series([1, 1]), min_count=2)
    assert unchanged.dtype == np.dtype("int64")
    with pytest.raises(InvalidParameterError, match="'min_count' parameter"):
        merge_rare_categories(s, min_count=0)
    with pytest.raises(InvalidParameterError, match="'other_label' parameter"):
        merge_rare_categories(s, min_count=2, other_label=pd.NA)


@pytest.mark.parametrize("as_category", [False, True])
@pytest.mark.parametrize(
    ("values", "min_count", "expected"),
    [
        # the merged records alone are too few: the smallest other category joins them
        (["a", "a", "b"], 2, ["other", "other", "other"]),
        (["a", "a", "a", "b", "c", "c"], 3, ["a", "a", "a", "other", "other", "other"]),
        # an existing "other" that is too small counts as merged and grows
        (["a", "a", "a", "b", "b", "other"], 2, ["a", "a", "a", "other", "other", "other"]),
        (["a", "a", "a", "b", "other"], 2, ["a", "a", "a", "other", "other"]),
        # enough rare records: nothing else is touched
        (["a", "a", "b", "c"], 2, ["a", "a", "other", "other"]),
    ],
)
def test_merge_rare_categories_keeps_its_promise(
    values: list, min_count: int, expected: list, as_category: bool
) -> None:
    s = pd.Series(values, dtype="category" if as_category else object)
    out = merge_rare_categories(s, min_count=min_count)
    assert out.astype(object).tolist() == expected
    assert out.value_counts().loc[lambda c: c > 0].min() >= min_count


def test_merge_rare_categories_cannot_reach_min_count() -> None:
    with pytest.raises(DataValidationError, match=r"'x'.*2 non-missing.*min_count=3"):
        merge_rare_categories(pd.DataFrame({"x": ["a", "b", None]}), "x", min_count=3)
    # all missing: nothing to merge, nothing promised
    out = merge_rare_categories(pd.Series([None, None], dtype=object), min_count=3)
    assert out.isna().all()


def test_bands_of_numbers_kept_as_text_and_of_infinite_values() -> None:
    text = pd.DataFrame({"x": ["12.50", "3.75", "1e+01"]})
    assert bin_numeric(text, "x", width=5)["x"].tolist() == ["[10, 15)", "[0, 5)", "[10, 15)"]
    with pytest.raises(DataValidationError, match="infinite"):
        bin_numeric(pd.DataFrame({"x": [1.0, np.inf]}), "x", width=5)


def test_missing_labels_are_refused() -> None:
    from microsdc.recoding import group_categories

    s = pd.Series(["a", "a", "a", "b", "c"])
    for label in (np.nan, pd.NA, None):
        with pytest.raises(InvalidParameterError, match=r"'groups' parameter.*not missing"):
            group_categories(s, groups={label: ["b", "c"]})
    with pytest.raises(InvalidParameterError, match=r"'other_label' parameter.*non-missing"):
        merge_rare_categories(s, min_count=2, other_label=float("nan"))
    # a list, for which pd.isna gives no single answer, is not a missing label: its text
    merged = merge_rare_categories(s, min_count=2, other_label=["x", "y"])
    assert merged.tolist() == ["a", "a", "a", "['x', 'y']", "['x', 'y']"]


@pytest.mark.parametrize(
    ("kwargs", "param", "lacking", "why", "partner"),
    [
        (
            {"bins": 3, "origin": 5},
            "origin",
            "no 'width' is given",
            "it only anchors the bands of a width",
            ("width", "'width'"),
        ),
        (
            {"bins": 3, "method": "quantile", "origin": 5},
            "origin",
            "no 'width' is given",
            "it only anchors the bands of a width",
            ("width", "'width'"),
        ),
        (
            {"bins": 3, "width": 5, "method": "quantile"},
            "width",
            "method is 'quantile', not 'width'",
            "only method='width' cuts bands of a width",
            ("method", "method='width'"),
        ),
        (
            {"bins": [0, 10, 30], "width": 5, "method": "edges"},
            "width",
            "method is 'edges', not 'width'",
            "only method='width' cuts bands of a width",
            ("method", "method='width'"),
        ),
    ],
)
@pytest.mark.parametrize("as_frame", [False, True])
def test_a_band_setting_without_the_width_is_refused(
    kwargs: dict, param: str, lacking: str, why: str, partner: tuple[str, str], as_frame: bool
) -> None:
    # origin anchors bands of a width, and width is read by method='width' only: given
    # otherwise they used to be taken and change nothing (bin_numeric takes pandas only)
    x = pd.Series(np.arange(30.0), name="v")
    data = x.to_frame() if as_frame else x
    args = {"column": "v"} if as_frame else {}
    with pytest.raises(InvalidParameterError) as info:
        bin_numeric(data, **args, **kwargs)
    err = info.value
    value = kwargs[param]
    assert (err.func, err.param, err.value, err.related) == (
        "bin_numeric",
        param,
        value,
        (partner[0],),
    )
    assert err.requirement == f"given together with {partner[1]}"
    assert str(err) == (
        f"The '{param}' parameter of bin_numeric is {value}, but {lacking}: {why}, so alone "
        f"it changes nothing. Give {partner[1]} too, or leave '{param}' out."
    )


def test_the_origin_left_out_is_the_documented_one() -> None:
    import inspect

    assert inspect.signature(bin_numeric).parameters["origin"].default is None
    assert "Default (None): 0. Only with ``width``" in (bin_numeric.__doc__ or "")
    x = pd.Series([3.0, 7, 12, 19])
    assert bin_numeric(x, width=5).tolist() == ["0-4", "5-9", "10-14", "15-19"]
    assert bin_numeric(x, width=5).tolist() == bin_numeric(x, width=5, origin=0).tolist()
    # a bad width or origin is named for its value before anything else
    with pytest.raises(InvalidParameterError, match="must be a real number > 0"):
        bin_numeric(x, width=-1, method="quantile", bins=2)
    with pytest.raises(InvalidParameterError, match="must be a finite real number"):
        bin_numeric(x, bins=2, origin=float("nan"))
