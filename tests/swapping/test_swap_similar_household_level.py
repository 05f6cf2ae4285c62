"""A similarity profile compares households: a column that differs between the members
of a household is refused, naming it, instead of comparing first members."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from microsdc.cli import cli as main
from microsdc.exceptions import DataValidationError
from microsdc.swapping import record_swap, record_swap_result


def _frame() -> pd.DataFrame:
    """8 households of 2 persons in 2 regions; age differs inside households 1 and 5 only;
    hsize and htype are one value per household."""
    rows = []
    for h in range(8):
        for m in range(2):
            rows.append(
                {
                    "hid": h,
                    "region": h % 2,
                    "hsize": 2,
                    "htype": h % 3,
                    "age": 30 + m if h in (1, 5) else 40,
                    "sex": 1 + (h % 2),
                }
            )
    return pd.DataFrame(rows)


def _swap(df: pd.DataFrame, similar, **kw):
    args = dict(swaprate=0.5, k_anonymity=0, risk_variables=["sex"], seed=1)
    args.update(kw)
    return record_swap_result(df, "hid", ["region"], similar, **args)


@pytest.mark.parametrize(
    "similar",
    [["age"], [["age"]], "age", [["hsize", "age"]], [["hsize"], ["age"]], [4], [["htype"], [4]]],
)
def test_person_level_similar_column_is_refused(similar) -> None:
    df = _frame()
    before = df.copy()
    with pytest.raises(DataValidationError) as info:
        _swap(df, similar)
    msg = str(info.value)
    assert "The 'similar' parameter of record_swap names 1 column(s)" in msg
    assert "'age' (in 2 of 8 households, hid 1, 5)" in msg
    assert "household size or type" in msg and "Nothing was swapped" in msg
    assert info.value.param == "similar" and info.value.func == "record_swap"
    assert info.value.failure_cases == ["age"]
    pd.testing.assert_frame_equal(df, before)


def test_every_person_level_column_is_named_once() -> None:
    df = _frame().assign(sex=lambda d: d.groupby("hid").cumcount())  # differs in all 8
    with pytest.raises(DataValidationError, match=r"names 2 column\(s\)") as info:
        _swap(df, [["age", "sex"], ["sex"], ["hsize"]], risk_variables=["hsize"])
    assert info.value.failure_cases == ["age", "sex"]
    assert "'sex' (in 8 of 8 households, hid 0, 1, 2, ...)" in str(info.value)


def test_categorical_and_string_person_columns_are_refused() -> None:
    df = _frame()
    for col in (df["age"].astype("category"), df["age"].astype(str)):
        with pytest.raises(DataValidationError, match=r"'age' \(in 2 of 8 households"):
            _swap(df.assign(age=col), ["age"])


def test_no_log_file_when_refused(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    with pytest.raises(DataValidationError):
        _swap(_frame(), ["age"], log_file_name=log)
    assert not log.exists()


def test_household_level_columns_are_taken() -> None:
    df = _frame()
    res = _swap(df, [["hsize", "htype"], ["hsize"]])
    # a column constant inside each household is fine: same age in households other than
    # 1 and 5 is irrelevant, since 'age' is not named
    assert res.n_swapped_households == 2 * res.target_pairs
    out = record_swap(
        df.drop(index=[2, 3, 10, 11]),
        "hid",
        ["region"],
        ["age"],
        swaprate=0.5,
        k_anonymity=0,
        risk_variables=["sex"],
        seed=1,
    )  # households 1, 5 gone
    assert len(out) == 12


def test_command_line_names_the_option(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    _frame().to_csv(src, index=False)
    out = tmp_path / "out.csv"
    args = [
        "swap",
        str(src),
        "--hid",
        "hid",
        "--hierarchy",
        "region",
        "--risk-variables",
        "sex",
        "-k",
        "0",
        "--swaprate",
        "0.5",
        "--similar",
        "hsize;age",
        "--out",
        str(out),
    ]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2, res.output
    assert "Option --similar names 1 column(s)" in res.output
    assert "'age' (in 2 of 8 households, hid 1, 5)" in res.output
    assert not out.exists()


def test_job_file_wording_names_the_key() -> None:
    from microsdc._core.messages import render

    with pytest.raises(DataValidationError) as info:
        _swap(_frame(), ["age"])
    text = render(info.value, {"similar": "'swapping.similar'"}, "Key")
    assert text.startswith("Key 'swapping.similar' names 1 column(s) whose values differ")
