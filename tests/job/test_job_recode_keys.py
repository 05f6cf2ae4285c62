"""``[recode]`` beyond bands: merging of categories (``groups``, ``min_count``) and top and
bottom coding (``top``, ``bottom``), on a file small enough to count by hand."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from microsdc import group_categories, run_job
from microsdc.exceptions import DataValidationError, InvalidParameterError, JobFileError
from microsdc.job.config import parse_job
from microsdc.job.reference import job_reference_markdown

#: Ten persons: water codes 1 (x3), 2 (x2), 3 (x2), 5, 6, and a declared missing 99;
#: ages 15 to 95; relat a, a, a, a, b, b, b, c, d, e.
DATA = pd.DataFrame(
    {
        "water": [1, 1, 1, 2, 2, 3, 3, 5, 6, 99],
        "age": [15, 17, 30, 35, 41, 52, 64, 77, 88, 95],
        "relat": ["a", "a", "a", "a", "b", "b", "b", "c", "d", "e"],
        "sex": [1, 2, 1, 2, 1, 2, 1, 2, 1, 2],
    }
)


def _job(tmp_path: Path, recode: str, missing: str = "[99]") -> Path:
    data = tmp_path / "people.csv"
    DATA.to_csv(data, index=False)
    job = tmp_path / "job.toml"
    job.write_text(
        f"""
steps = ["risk"]
[input]
path = "{data.name}"
missing_values = {missing}
[variables]
quasi_identifiers = ["water", "age", "relat", "sex"]
{recode}
[output]
directory = "out"
""",
        encoding="utf-8",
    )
    return job


def _released(tmp_path: Path, recode: str, missing: str = "[99]") -> tuple[pd.DataFrame, dict]:
    result = run_job(_job(tmp_path, recode, missing), write=False)
    return result.data, result.audit


def test_groups_merge_codes_into_number_labels(tmp_path: Path) -> None:
    out, audit = _released(tmp_path, '[recode.water]\ngroups = { "1" = [1, 2], "5" = [5, 6] }')
    # the labels are numbers on a numeric column; 3 stays; the declared code 99 stays 99
    assert out["water"].tolist() == [1, 1, 1, 1, 1, 3, 3, 5, 5, 99]
    assert audit["recode"] == [{"column": "water", "distinct_before": 5, "categories_after": 3}]


def test_groups_with_a_text_label_make_the_column_text(tmp_path: Path) -> None:
    out, _ = _released(tmp_path, "[recode.water]\ngroups = { piped = [1, 2] }")
    assert out["water"].tolist() == ["piped"] * 5 + ["3", "3", "5", "6", 99]


def test_min_count_merges_the_rare_categories(tmp_path: Path) -> None:
    out, audit = _released(tmp_path, '[recode.relat]\nmin_count = 2\nother_label = "rest"')
    # c, d and e have one record each: they go together into "rest" (3 records)
    assert out["relat"].tolist() == ["a"] * 4 + ["b"] * 3 + ["rest"] * 3
    assert audit["recode"][0]["categories_after"] == 3


def test_groups_then_min_count(tmp_path: Path) -> None:
    recode = '[recode.relat]\ngroups = { cd = ["c", "d"] }\nmin_count = 2'
    out, _ = _released(tmp_path, recode)
    # c and d are grouped first (2 records: kept); e alone joins the smallest category
    # (cd) into "other", which then holds 3 records
    assert out["relat"].tolist() == ["a"] * 4 + ["b"] * 3 + ["other"] * 3


def test_top_and_bottom_coding_then_bands(tmp_path: Path) -> None:
    recode = "[recode.age]\nbottom = 18\ntop = 80\ntop_value = 85\nwidth = 10"
    out, audit = _released(tmp_path, recode)
    # 15, 17 -> 18 (10-19); 88, 95 -> 85 (80-89)
    assert out["age"].astype(str).tolist() == [
        "10-19",
        "10-19",
        "30-39",
        "30-39",
        "40-49",
        "50-59",
        "60-69",
        "70-79",
        "80-89",
        "80-89",
    ]
    # the bands 10-19 to 80-89, 20-29 empty among them
    assert audit["recode"] == [
        {"column": "age", "distinct_before": 10, "bottom_coded": 2, "top_coded": 2, "bins": 8}
    ]
    assert audit["parameters"]["recode"][0] == {
        "column": "age",
        "width": 10.0,
        "start": None,
        "breaks": None,
        "labels": None,
        "top": 80,
        "top_value": 85,
        "bottom": 18,
    }


def test_top_coding_keeps_declared_codes(tmp_path: Path) -> None:
    # 99 is declared missing: top coding at 10 recodes the codes 1..6, never 99
    out, audit = _released(tmp_path, "[recode.water]\ntop = 2")
    assert out["water"].tolist() == [1, 1, 1, 2, 2, 2, 2, 2, 2, 99]
    assert audit["recode"][0]["top_coded"] == 4


@pytest.mark.parametrize(
    ("recode", "key", "said"),
    [
        (
            '[recode.water]\ngroups = { "1" = [1, 7] }',
            "recode.water.groups",
            "Column 'water' has no category 7 (group 1); its categories are 1, 2, 3, 5, 6. "
            "Correct the value, or give it as the column holds it (1 and '1' differ).",
        ),
        (
            '[recode.water]\ngroups = { "3" = [1, 2] }',
            "recode.water.groups",
            "The label 3 is already a category of column 'water' outside its group, which "
            "would merge them too: add 3 to the group, or choose another label.",
        ),
        (
            '[recode.relat]\ngroups = { x = ["a"], y = ["a"] }',
            "recode.relat.groups",
            "each category (a string or a number) in one group only",
        ),
        ("[recode.relat]\ntop = 3", "recode.relat", "holds 10 non-numeric value(s)"),
        ("[recode.age]\ntop_value = 3", "recode.age.top_value", "goes with 'top'"),
        ("[recode.age]\nbottom = 50\ntop = 40", "recode.age.bottom", "is above 'top'"),
        (
            "[recode.relat]\nmin_count = 2\nwidth = 5",
            "recode.relat",
            "either recodes numbers (width) or merges categories (min_count), not both",
        ),
        ('[recode.relat]\nother_label = "x"', "recode.relat.other_label", "goes with 'min_count'"),
        ("[recode.relat]\nmin_count = 0", "recode.relat.min_count", "an integer >= 1"),
    ],
)
def test_errors_name_the_key_and_the_value(
    tmp_path: Path, recode: str, key: str, said: str
) -> None:
    with pytest.raises(JobFileError) as info:
        run_job(_job(tmp_path, recode), write=False)
    assert info.value.key == key, str(info.value)
    assert said in str(info.value)


def test_engine_refuses_merging(tmp_path: Path) -> None:
    text = """
steps = ["risk"]
[input]
path = "x.parquet"
engine = "duckdb"
[variables]
quasi_identifiers = ["relat"]
[recode.relat]
min_count = 2
"""
    with pytest.raises(JobFileError, match="needs the records in memory") as info:
        parse_job(text, tmp_path / "job.toml", check_files=False)
    assert info.value.key == "recode.relat.min_count"


def test_reference_documents_the_new_keys() -> None:
    text = job_reference_markdown()
    for key in ("groups", "min_count", "other_label", "top", "top_value", "bottom"):
        assert f"`{key}`" in text


# --------------------------------------------------------------------------- the library


def test_group_categories_by_hand() -> None:
    s = pd.Series(["a", "b", "c", None, "d"])
    kept = s.copy()
    got = group_categories(s, groups={"ab": ["a", "b"], "d": ["d"]})
    assert got.isna().tolist() == [False, False, False, True, False]
    assert got.dropna().tolist() == ["ab", "ab", "c", "d"]
    pd.testing.assert_series_equal(s, kept)  # never changed


def test_group_categories_keeps_a_categorical() -> None:
    s = pd.Series(pd.Categorical(["x", "y", "z", "y"], categories=["x", "y", "z", "w"]))
    got = group_categories(s, groups={"xy": ["x", "y"]})
    assert got.tolist() == ["xy", "xy", "z", "xy"]
    assert list(got.cat.categories) == ["z", "w", "xy"]


def test_group_categories_refusals() -> None:
    with pytest.raises(InvalidParameterError, match="'groups' parameter"):
        group_categories(pd.Series([1, 2]), groups={"a": []})
    with pytest.raises(InvalidParameterError, match="one group only"):
        group_categories(pd.Series([1, 2]), groups={"a": [1], "b": [1]})
    with pytest.raises(DataValidationError, match=r"no category '1'.*its categories are 1, 2"):
        group_categories(pd.Series([1, 2]), groups={"a": ["1"]})
