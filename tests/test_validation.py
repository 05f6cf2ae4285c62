"""The parameter checks of microsdc._validation: the requirement each message states."""

from __future__ import annotations

from typing import Any

import pytest

from microsdc._validation import check_int, check_number
from microsdc.exceptions import InvalidParameterError


@pytest.mark.parametrize(
    ("kwargs", "requirement"),
    [
        ({}, "an int"),
        ({"min_value": 1}, "an int >= 1"),
        ({"max_value": 3}, "an int <= 3"),
        ({"min_value": 1, "max_value": 3}, "an int in the range [1, 3]"),
    ],
)
def test_int_requirement(kwargs: dict[str, Any], requirement: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        check_int(2.0, "k", "f", **kwargs)
    assert str(info.value) == f"The 'k' parameter of f must be {requirement}. Got 2.0 instead."
    assert info.value.requirement == requirement


@pytest.mark.parametrize(
    ("kwargs", "requirement"),
    [
        ({}, "a finite real number"),
        ({"low": 0}, "a real number >= 0"),
        ({"low": 0, "low_open": True}, "a real number > 0"),
        ({"high": 1}, "a real number <= 1"),
        ({"high": 1, "high_open": True}, "a real number < 1"),
        ({"low": 0, "high": 1}, "a real number in the range [0, 1]"),
        ({"low": 0, "high": 1, "low_open": True}, "a real number in the range (0, 1]"),
        ({"low": 0, "high": 1, "high_open": True}, "a real number in the range [0, 1)"),
    ],
)
def test_number_requirement(kwargs: dict[str, Any], requirement: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        check_number(float("nan"), "share", "f", **kwargs)
    assert str(info.value) == (
        f"The 'share' parameter of f must be {requirement}. Got nan instead."
    )
    assert info.value.requirement == requirement


def test_columns_that_must_be_complete_name_the_count_and_first_rows() -> None:
    import numpy as np
    import pandas as pd

    from microsdc import household_risk, local_suppression, sample_frequencies
    from microsdc.exceptions import DataValidationError
    from microsdc.longitudinal import collapse_subjects

    df = pd.DataFrame(
        {
            "sid": [1, None, 2, 2],
            "a": [1, 1, 2, 2],
            "h": [1, None, None, 2],
            "w": [1.0, np.inf, np.nan, 2.0],
            "s": ["x", None, "y", "y"],
        },
        index=[10, 11, 12, 13],
    )
    cases = [
        (
            lambda: collapse_subjects(df, "sid", ["a"]),
            "The subject id column 'sid' of collapse_subjects has 1 missing value(s) "
            "(first rows: [11]). Every record needs a subject.",
            [11],
            None,
        ),
        (
            lambda: household_risk(df, ["a"], hid="h"),
            "The 'hid' parameter of household_risk names the household id column 'h', which "
            "has 2 missing value(s) (first rows: [11, 12]). Every person needs a household.",
            [11, 12],
            "hid",
        ),
        (
            lambda: sample_frequencies(df, ["a"], weights="w"),
            "The weight column 'w' of sample_frequencies has 2 missing or infinite value(s) "
            "(first rows: [11, 12]). Weights must be known for every record.",
            [11, 12],
            None,
        ),
        (
            lambda: local_suppression(df, ["a"], k=1, strata="s"),
            "The stratum column 's' of local_suppression has 1 missing value(s) "
            "(first rows: [11]). Every record needs a known stratum: recode the missing "
            "values to a stratum of their own first (df['s'].fillna('unknown')).",
            [11],
            None,
        ),
    ]
    for call, message, rows, param in cases:
        with pytest.raises(DataValidationError) as info:
            call()
        assert str(info.value) == message
        assert info.value.failure_cases == rows
        assert info.value.param == param


def test_a_result_of_the_wrong_kind_is_named_by_its_type() -> None:
    import pandas as pd

    from microsdc import pram_estimate
    from microsdc.longitudinal import restore_subjects

    df = pd.DataFrame({"id": [1, 1], "town": ["A", "A"]})
    with pytest.raises(InvalidParameterError) as info:
        restore_subjects(df, {"data": df}, df)  # type: ignore[arg-type]
    assert str(info.value) == (
        "The 'collapsed' parameter of restore_subjects must be the result of "
        "collapse_subjects. Got dict instead."
    )
    assert info.value.param == "collapsed"
    with pytest.raises(InvalidParameterError) as info:
        pram_estimate(df, df)  # type: ignore[arg-type]
    assert str(info.value) == (
        "The 'result' parameter of pram_estimate must be a PramResult (what pram returns). "
        "Got DataFrame instead."
    )
    assert info.value.param == "result"


def test_settings_a_lazy_frame_cannot_take_are_refused_with_how_to_collect() -> None:
    import pandas as pd

    pl = pytest.importorskip("polars")
    from microsdc import local_suppression, pram

    lazy = pl.LazyFrame({"a": [1, 1, 2], "b": ["x", "y", "y"]})
    with pytest.raises(InvalidParameterError) as info:
        local_suppression(lazy, ["a", "b"], 2, method="exact", missing="wildcard")
    message = str(info.value)
    assert message.startswith(
        "The 'method' parameter of local_suppression is not supported on a lazy frame: "
    )
    assert message.endswith(
        ". Collect the frame first (polars: .collect(); DuckDB: .pl() or .df(); Spark: "
        ".toPandas(), or .toArrow() for a pyarrow table) to use it."
    )
    assert (info.value.param, info.value.value) == ("method", "exact")
    with pytest.raises(InvalidParameterError) as info:
        pram(lazy, "b", where=pd.Series([True, False, True]), seed=1)
    message = str(info.value)
    assert message.startswith("The 'where' parameter of pram is not supported on a lazy frame: ")
    assert message.endswith(
        ". Collect the frame first (polars: .collect(); DuckDB: .df(); Spark: .toPandas()) "
        "to use it."
    )
    assert (info.value.param, info.value.value) == ("where", "Series")


@pytest.mark.parametrize("func", ["pram", "local_suppression"])
def test_a_bad_seed_is_refused_naming_the_function(func: str) -> None:
    import pandas as pd

    from microsdc import local_suppression, pram

    with pytest.raises(InvalidParameterError) as info:
        if func == "pram":
            pram(pd.DataFrame({"a": list("xyxy")}), "a", seed="x")
        else:
            local_suppression(pd.DataFrame({"a": [1, 1]}), ["a"], 2, method="random", seed=-1)
    assert str(info.value).startswith(f"The 'seed' parameter of {func} must be an int >= 0")
    assert (info.value.func, info.value.param) == (func, "seed")


@pytest.mark.parametrize(
    ("asked", "present", "hint"),
    [
        (["age"], ["âge", "sexe"], " Did you mean 'âge'?"),  # accent
        (["AGE"], ["Âge", "sexe"], " Did you mean 'Âge'?"),  # accent and case
        (["revenu_menage"], ["revenu_ménagé"], " Did you mean 'revenu_ménagé'?"),
        (
            ["Region", "agee"],
            ["Région", "âge"],
            " Did you mean 'Région' for 'Region', 'âge' for 'agee'?",
        ),
        # as before: the same name in another case, a near miss, nothing close
        (["Age", "sexx"], ["age", "sex"], " Did you mean 'age' for 'Age', 'sex' for 'sexx'?"),
        (["âge"], ["ÂGE", "age"], " Did you mean 'ÂGE' or 'age'?"),  # both as close
        # every column as close is named, none picked among them
        (["age"], ["âge", "agé", "AGE", "sex"], " Did you mean 'AGE', 'âge' or 'agé'?"),
        (["REGION"], ["région", "Région"], " Did you mean 'région' or 'Région'?"),
        (["agee"], ["âge", "agé"], " Did you mean 'âge' or 'agé'?"),
        (
            ["age", "sexx"],
            ["âge", "AGE", "sex"],
            " Did you mean 'AGE' or 'âge' for 'age'; 'sex' for 'sexx'?",
        ),
        # surrounding spaces: the name without them first
        (["sex "], ["Sex ", "sex"], " Did you mean 'sex'?"),
        ([" age"], ["Âge", "x"], " Did you mean 'Âge'?"),
        (["zzz"], ["âge"], ""),
    ],
)
def test_did_you_mean_sets_accents_and_case_aside(
    asked: list[str], present: list[str], hint: str
) -> None:
    import pandas as pd

    from microsdc import sample_frequencies
    from microsdc.exceptions import ColumnNotFoundError

    df = pd.DataFrame({c: [1, 2] for c in present})
    with pytest.raises(ColumnNotFoundError) as info:
        sample_frequencies(df, asked)
    listed = ", ".join(repr(c) for c in present)
    assert str(info.value).endswith(f"Available columns: {listed}.{hint}")
    assert info.value.missing == asked


def test_did_you_mean_never_names_a_column_already_asked_for() -> None:
    import pandas as pd

    from microsdc import sample_frequencies
    from microsdc.exceptions import ColumnNotFoundError

    df = pd.DataFrame({"fk": [1, 2], "Fk_1": [1, 2], "age": [3, 4]})
    with pytest.raises(ColumnNotFoundError) as info:
        sample_frequencies(df, ["fk", "FK"])
    assert str(info.value).endswith("Available columns: 'fk', 'Fk_1', 'age'.")
    with pytest.raises(ColumnNotFoundError) as info:
        sample_frequencies(df, ["age", "FK"])
    assert str(info.value).endswith(" Did you mean 'fk'?")


def test_datasets_is_reached_from_the_package_without_an_import() -> None:
    import subprocess
    import sys

    code = (
        "import sys, microsdc; print('microsdc.datasets' in sys.modules); "
        "print(microsdc.datasets.synthetic_census.__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "synthetic_census"]
