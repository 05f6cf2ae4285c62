"""Messages that name the right thing: the file's real format and how to convert it,
sdcMicro's importance vector, the function called, an unnamed Series, and the help of
a bare ``microsdc``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_runner import run_cli
from microsdc import DataValidationError, InvalidParameterError, JobFileError
from microsdc.io import read_table, write_table
from microsdc.recoding import bin_numeric, bottom_code, merge_rare_categories, top_code
from microsdc.risk import risk_summary
from microsdc.suppression import local_suppression


@pytest.mark.parametrize(
    ("suffix", "kind", "convert"),
    [
        (".xlsx", "an Excel workbook", "pandas.read_excel("),
        (".xls", "an Excel workbook", "CSV UTF-8"),
        (".ods", "an OpenDocument spreadsheet", "pandas.read_excel("),
        (".sas7bdat", "a SAS data set", "pandas.read_sas("),
        (".rds", "an R data file", "arrow::write_parquet"),
        (".json", "a JSON file", "pandas.read_json("),
    ],
)
def test_other_formats_named_with_how_to_convert(
    tmp_path: Path, suffix: str, kind: str, convert: str
) -> None:
    path = tmp_path / f"survey{suffix}"
    path.write_bytes(b"PK\x03\x04")
    with pytest.raises(InvalidParameterError) as err:
        read_table(path)
    message = str(err.value)
    assert f"is {kind}, which microsdc does not read" in message
    assert "Cannot tell the format" not in message
    assert "CSV (.csv" in message and "Parquet (.parquet" in message and "Stata (.dta)" in message
    assert convert in message
    assert "survey.parquet" in message or "write" in convert or "CSV UTF-8" in convert


def test_excel_output_says_what_is_written(tmp_path: Path) -> None:
    with pytest.raises(InvalidParameterError) as err:
        write_table(pd.DataFrame({"a": [1]}), tmp_path / "out.xlsx")
    assert "would be an Excel workbook, which microsdc does not write" in str(err.value)
    assert "Write .csv" in str(err.value)
    assert list(tmp_path.iterdir()) == []


def test_cli_excel_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "survey.xlsx"
    path.write_bytes(b"PK\x03\x04")
    code, _, err = run_cli(["risk", str(path), "--qi", "age"], capsys)
    assert code == 2
    assert "is an Excel workbook" in err and "CSV UTF-8" in err


SDC = pd.DataFrame(
    {
        "a": ["x", "x", "y", "y", "z", "z"],
        "b": ["p", "q", "p", "q", "p", "q"],
        "c": ["u", "u", "u", "v", "v", "v"],
    }
)


def test_sdcmicro_importance_vector_is_the_ranking_it_means() -> None:
    # sdcMicro: importance = c(3, 1, 2) for keyVars a, b, c: b is kept most, then c, then a
    by_vector = local_suppression(SDC, ["a", "b", "c"], 2, importance=[3, 1, 2])
    by_names = local_suppression(SDC, ["a", "b", "c"], 2, importance=["b", "c", "a"])
    pd.testing.assert_frame_equal(by_vector.data, by_names.data)
    other = local_suppression(SDC, ["a", "b", "c"], 2, importance=["a", "b", "c"])
    assert not by_vector.data.equals(other.data)  # the ranking makes a difference here
    assert int(by_vector.data["b"].isna().sum()) <= int(by_vector.data["a"].isna().sum())
    floats = local_suppression(SDC, ["a", "b", "c"], 2, importance=np.array([3.0, 1.0, 2.0]))
    pd.testing.assert_frame_equal(floats.data, by_names.data)


@pytest.mark.parametrize("vector", [[3, 1, 1], [1, 2], [0, 1, 2], [1, 2, 4]])
def test_sdcmicro_vector_that_is_no_ranking_says_how(vector: list[int]) -> None:
    with pytest.raises(InvalidParameterError) as err:
        local_suppression(SDC, ["a", "b", "c"], 2, importance=vector)
    message = str(err.value)
    assert "sdcMicro's importance vector" in message
    assert "each of 1 to 3 once" in message
    assert "not in the data" not in message
    assert err.value.param == "importance"


def test_integer_column_names_stay_names() -> None:
    # columns named 1, 2, 3: importance=[3, 1, 2] names them (3 kept most), it is not
    # sdcMicro's vector (which would keep column 2 most)
    df = SDC.set_axis([1, 2, 3], axis=1)
    got = local_suppression(df, [1, 2, 3], 2, importance=[3, 1, 2]).data
    text = SDC.set_axis(["1", "2", "3"], axis=1)
    as_names = local_suppression(text, ["1", "2", "3"], 2, importance=["3", "1", "2"]).data
    as_vector = local_suppression(text, ["1", "2", "3"], 2, importance=["2", "3", "1"]).data
    assert got.isna().to_numpy().tolist() == as_names.isna().to_numpy().tolist()
    assert got.isna().to_numpy().tolist() != as_vector.isna().to_numpy().tolist()


def test_cli_importance_vector(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.csv"
    SDC.to_csv(src, index=False)
    outs = []
    for imp in ("3,1,2", "b,c,a"):
        out = tmp_path / f"o{len(outs)}.csv"
        args = ["suppress", str(src), "--qi", "a,b,c", "-k", "2", "--importance", imp]
        code, _, err = run_cli([*args, "--out", str(out)], capsys)
        assert code == 0, err
        outs.append(out.read_text(encoding="utf-8"))
    assert outs[0] == outs[1]
    code, _, err = run_cli(
        ["suppress", str(src), "--qi", "a,b,c", "--importance", "3,1,1", "--out", str(out)],
        capsys,
    )
    assert code == 2
    assert "Option --importance is 3, 1, 1" in err and "sdcMicro" in err


def test_job_importance_vector(tmp_path: Path) -> None:
    from microsdc.job import load_job

    (tmp_path / "in.csv").write_text(SDC.to_csv(index=False), encoding="utf-8")
    job = tmp_path / "job.toml"
    job.write_text(
        'steps = ["suppression"]\n[input]\npath = "in.csv"\n'
        '[variables]\nquasi_identifiers = ["a", "b", "c"]\n[risk]\nk = 2\n'
        '[suppression]\nimportance = [3, 1, 2]\n[output]\ndirectory = "out"\n',
        encoding="utf-8",
    )
    from microsdc.job import run_job

    run_job(job)  # accepted, and run as the ranking b, c, a
    written = pd.read_csv(tmp_path / "out" / "in_anonymised.csv")
    want = local_suppression(SDC, ["a", "b", "c"], 2, importance=["b", "c", "a"]).data
    assert written.isna().sum().tolist() == want.isna().sum().tolist()
    job.write_text(
        job.read_text(encoding="utf-8").replace("[3, 1, 2]", "[3, 1, 1]"), encoding="utf-8"
    )
    with pytest.raises(JobFileError) as err:
        load_job(job)
    assert err.value.key == "suppression.importance"
    assert "sdcMicro" in str(err.value) and "each of 1 to 3 once" in str(err.value)


def test_risk_summary_errors_name_risk_summary() -> None:
    df = pd.DataFrame({"sex": ["m", "m", "f"], "age": [1, 1, 2], "w": [1.0, None, 2.0]})
    with pytest.raises(DataValidationError) as err:
        risk_summary(df, ["sex", "age"], 2, weights="w")
    assert err.value.func == "risk_summary"
    assert "sample_frequencies" not in str(err.value)
    assert "risk_summary" in str(err.value)


UNNAMED = [
    (lambda s: bin_numeric(s, width=5), pd.Series(["a", "b"])),
    (lambda s: top_code(s, threshold=1), pd.Series(["a", "b"])),
    (lambda s: bottom_code(s, threshold=1), pd.Series(["a", "b"])),
    (lambda s: bin_numeric(s, width=5, missing_values=["."]), pd.Series(["1", "x"])),
    (lambda s: bin_numeric(s, bins=[0, 1], method="edges"), pd.Series([5.0])),
    (lambda s: merge_rare_categories(s, min_count=3), pd.Series(["a", "b"])),
]


@pytest.mark.parametrize(("call", "series"), UNNAMED)
def test_unnamed_series_is_not_called_column_none(call: object, series: pd.Series) -> None:
    with pytest.raises((DataValidationError, InvalidParameterError)) as err:
        call(series)  # type: ignore[operator]
    message = str(err.value)
    assert "None" not in message, message
    assert "Series (it has no name)" in message or "series (it has no name)" in message


def test_top_code_says_recoded_not_binned() -> None:
    with pytest.raises(DataValidationError) as err:
        top_code(pd.Series(["a"], name="inc"), threshold=1)
    assert "Column 'inc' cannot be recoded by top_code" in str(err.value)


def test_bare_microsdc_prints_help_not_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([], capsys)
    help_code, help_out, _ = run_cli(["--help"], capsys)
    assert code == 0 == help_code
    assert err == ""
    assert out == help_out
    assert "Commands:" in out and "Error" not in out
