"""A width too fine for the size of the values: the message names the column, shows
the value as a number is read (1e+300, not its 301 digits) and says the fix, alike
for pandas, the engines, the command line and a job."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from cli_runner import run_cli
from microsdc import InvalidParameterError, JobFileError
from microsdc.job import run_job
from microsdc.recoding import bin_numeric
from microsdc.recoding.bands import _exact, check_band_count

FRAME = pd.DataFrame({"age": [30.0, 1e300, 40.0, 50.0], "sex": ["m", "f", "m", "f"]})

#: what the library says for FRAME's age in bands of 5, word for word
SAID = (
    "The 'width' parameter of bin_numeric is 5: column 'age' holds values as large as "
    "1e+300, where bands that fine cannot be told apart. Give a width of at least "
    "1.1e+295, or, if 1e+300 stands for a missing or unknown value, declare it in "
    "'missing_values'."
)


def _long_digits(text: str) -> bool:
    return re.search(r"\d{20}", text) is not None


def test_readable_numbers() -> None:
    assert _exact(1e300) == "1e+300"
    assert _exact(-1e17) == "-1e+17"
    assert _exact(123456789012345.0) == "123456789012345"  # below 1e16: every digit
    assert _exact(100000.1) == "100000.1"
    assert _exact(5) == "5"


def test_pandas_names_the_column_and_the_fix() -> None:
    with pytest.raises(InvalidParameterError) as err:
        bin_numeric(FRAME, "age", width=5)
    assert str(err.value) == SAID
    assert err.value.param == "width" and err.value.related == ("missing_values",)
    # the width it gives works, and so does the code declared missing
    found = re.search(r"at least (\S+),", SAID)
    assert found is not None
    least = float(found[1])
    assert check_band_count(30.0, 1e300, least, 0.0, "f") >= 1
    assert bin_numeric(FRAME, "age", width=least)["age"].notna().all()
    out = bin_numeric(FRAME, "age", width=5, missing_values=[1e300])["age"]
    assert out.tolist()[::2] == ["30-34", "40-44"] and out.iloc[1] == "1e+300"


def test_a_series_without_a_name_names_no_column() -> None:
    with pytest.raises(InvalidParameterError) as err:
        bin_numeric(pd.Series([1.0, 1e300]), width=5)
    message = str(err.value)
    assert "the values as large as 1e+300" in message and "column" not in message
    assert message.endswith("Give a width of at least 1.1e+295.")


def test_too_many_bands_name_the_column() -> None:
    with pytest.raises(InvalidParameterError) as err:
        bin_numeric(pd.DataFrame({"income": [0.0, 1e6]}), "income", width=0.001)
    assert "the values of column 'income' from 0 to 1000000 would fall in" in str(err.value)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engines_say_what_pandas_says(engine: str) -> None:
    pytest.importorskip("narwhals")
    from microsdc.recoding.lazy import bin_width_lazy

    if engine == "polars":
        pl = pytest.importorskip("polars")
        native = pl.from_pandas(FRAME).lazy()
    else:
        duckdb = pytest.importorskip("duckdb")
        native = duckdb.connect().from_df(FRAME)
    with pytest.raises(InvalidParameterError) as err:
        bin_width_lazy(native, "age", 5)
    assert str(err.value) == SAID


@pytest.mark.parametrize("command", ["suppress", "risk"])
@pytest.mark.parametrize("engine", ["pandas", "duckdb", "polars"])
def test_cli_bin_on_a_huge_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, engine: str
) -> None:
    if engine != "pandas":
        pytest.importorskip(engine)
    src = tmp_path / "in.parquet"
    FRAME.to_parquet(src)
    args = [command, str(src), "--qi", "age,sex", "-k", "2", "--bin", "age=5"]
    args += ["--engine", engine]
    if command == "suppress":
        args += ["--out", str(tmp_path / "o.parquet")]
    code, _, err = run_cli(args, capsys)
    message = " ".join(err.split())
    assert code == 2
    assert (
        "Error: Option --bin is 5: column 'age' holds values as large as 1e+300, where bands "
        "that fine cannot be told apart. Give a width of at least 1.1e+295, or, if 1e+300 "
        "stands for a missing or unknown value, declare it in --missing-values." in message
    )
    assert not _long_digits(message)


@pytest.mark.parametrize("engine", [None, "duckdb", "polars"])
def test_job_recode_on_a_huge_value(tmp_path: Path, engine: str | None) -> None:
    if engine is not None:
        pytest.importorskip(engine)
    FRAME.to_parquet(tmp_path / "in.parquet")
    line = "" if engine is None else f'engine = "{engine}"\n'
    path = tmp_path / "job.toml"
    path.write_text(
        f'steps = ["risk"]\n[input]\npath = "in.parquet"\n{line}'
        '[variables]\nquasi_identifiers = ["sex", "age"]\n[recode.age]\nwidth = 5\n'
        '[output]\ndirectory = "out"\n',
        encoding="utf-8",
    )
    with pytest.raises(JobFileError) as err:
        run_job(path, write=False)
    assert err.value.key == "recode.age"
    message = str(err.value)
    assert "Key 'recode.age.width' is 5: column 'age' holds values as large as 1e+300" in message
    assert "declare it in 'input.missing_values'." in message
    assert not _long_digits(message)
