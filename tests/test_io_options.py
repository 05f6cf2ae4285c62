"""Options of the readers and writers checked for what they do, not only by name: an
encoding must encode text, a separator must be able to separate fields."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

from microsdc import InvalidParameterError
from microsdc.io import read_table, write_table
from microsdc.io.engines import check_csv_options


@pytest.fixture
def small_csv(tmp_path: Path) -> Path:
    path = tmp_path / "small.csv"
    path.write_text("age,sex\n30,m\n41,f\n", encoding="utf-8")
    return path


# codecs that codecs.lookup finds but that do not turn text into bytes
NOT_TEXT = ["rot13", "base64", "zlib", "hex", "uu", "bz2"]


@pytest.mark.parametrize("codec", NOT_TEXT)
def test_read_refuses_a_codec_that_is_not_a_text_encoding(small_csv: Path, codec: str) -> None:
    with pytest.raises(InvalidParameterError) as err:
        read_table(small_csv, encoding=codec)
    assert err.value.param == "encoding"
    assert "not a text encoding" in str(err.value)
    assert repr(codec) in str(err.value)


@pytest.mark.parametrize("codec", NOT_TEXT)
def test_write_refuses_a_codec_that_is_not_a_text_encoding(tmp_path: Path, codec: str) -> None:
    out = tmp_path / "out.csv"
    with pytest.raises(InvalidParameterError) as err:
        write_table(pd.DataFrame({"a": ["x"]}), out, encoding=codec)
    assert err.value.param == "encoding"
    assert "not a text encoding" in str(err.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engine_csv_check_refuses_a_codec(engine: str) -> None:
    with pytest.raises(InvalidParameterError, match="not a text encoding"):
        check_csv_options("rot13", engine)


def test_text_encodings_still_read(small_csv: Path) -> None:
    for enc in ("latin-1", "cp1252", "UTF-8", "utf_8"):
        assert read_table(small_csv, encoding=enc)["age"].tolist() == [30, 41]


@pytest.mark.parametrize("sep", ["xx", ";;", "", '"', "\n", "\r"])
def test_read_refuses_a_separator_that_cannot_separate(small_csv: Path, sep: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no pandas ParserWarning on the way
        with pytest.raises(InvalidParameterError) as err:
            read_table(small_csv, sep=sep)
    assert err.value.param == "sep"
    assert err.value.func == "read_table"
    assert "one character" in str(err.value)


@pytest.mark.parametrize("sep", ["xx", '"', "\n"])
def test_write_refuses_a_separator_that_cannot_separate(tmp_path: Path, sep: str) -> None:
    with pytest.raises(InvalidParameterError) as err:
        write_table(pd.DataFrame({"a": ["x"]}), tmp_path / "o.csv", sep=sep)
    assert err.value.param == "sep"
    assert list(tmp_path.iterdir()) == []


def test_write_refuses_a_line_terminator_that_is_not_a_line_break(tmp_path: Path) -> None:
    with pytest.raises(InvalidParameterError) as err:
        write_table(pd.DataFrame({"a": ["x"]}), tmp_path / "o.csv", line_terminator=";")
    assert err.value.param == "line_terminator"


def test_pandas_parser_warning_points_at_the_callers_line(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_text("a,b\n1,2\n3,4,5\n", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # a line with a field too many, skipped by pandas with a ParserWarning
        df = read_table(path, on_bad_lines="warn")
    assert df["a"].tolist() == [1]
    parser = [w for w in caught if issubclass(w.category, pd.errors.ParserWarning)]
    assert parser, [str(w.message) for w in caught]
    assert all(w.filename == __file__ for w in parser), [w.filename for w in parser]


@pytest.mark.parametrize(
    ("suffix", "option", "value"),
    [
        ("parquet", "sep", ";"),
        ("parquet", "encoding", "latin-1"),
        ("dta", "sep", ";"),
        ("dta", "encoding", "latin-1"),
    ],
)
def test_a_text_option_for_a_file_that_is_not_text_is_refused(
    tmp_path: Path, suffix: str, option: str, value: str
) -> None:
    # each used to be taken and change nothing
    path = tmp_path / f"d.{suffix}"
    frame = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    if suffix == "parquet":
        frame.to_parquet(path)
    else:
        frame.to_stata(path, write_index=False)
    with pytest.raises(InvalidParameterError) as err:
        read_table(path, **{option: value})
    assert err.value.param == option and err.value.value == value
    kind = "a Parquet" if suffix == "parquet" else "a Stata"
    assert f"is {value!r}, but d.{suffix} is {kind} file, which is read without it" in str(
        err.value
    )
    assert read_table(path)["b"].tolist() == ["x", "y"]


@pytest.mark.parametrize("engine", ["pandas", "duckdb", "polars"])
@pytest.mark.parametrize("option", [["--sep", ";"], ["--encoding", "latin-1"]])
def test_cli_refuses_a_text_option_for_parquet_on_every_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: str, option: list[str]
) -> None:
    from cli_runner import run_cli

    if engine != "pandas":
        pytest.importorskip(engine)
    path = tmp_path / "d.parquet"
    pd.DataFrame({"a": [1, 2, 2], "b": ["x", "y", "y"]}).to_parquet(path)
    code, out, err = run_cli(
        ["risk", str(path), "--qi", "a,b", *option, "--engine", engine], capsys
    )
    assert code == 2 and out == ""
    assert f"{option[0]} is" in err or f"{option[0]} is for a CSV file" in err


def test_job_refuses_a_text_key_for_parquet(tmp_path: Path) -> None:
    from microsdc import JobFileError
    from microsdc.job import load_job

    pd.DataFrame({"a": [1, 2]}).to_parquet(tmp_path / "d.parquet")
    for key, value in (("sep", '";"'), ("encoding", '"latin-1"')):
        job = tmp_path / "job.toml"
        job.write_text(
            f'steps = ["risk"]\n[input]\npath = "d.parquet"\n{key} = {value}\n'
            '[variables]\nquasi_identifiers = ["a"]\n',
            encoding="utf-8",
        )
        with pytest.raises(JobFileError) as err:
            load_job(job)
        assert err.value.key == f"input.{key}"
        assert "d.parquet, a Parquet file, which is read without it (leave the key out)" in str(
            err.value
        )
