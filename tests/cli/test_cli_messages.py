"""The command line speaks in its options: errors and warnings name --qi, --method,
--missing, not the library's parameters; options it cannot use are refused, not
ignored."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from cli_runner import run_cli
from microsdc import InvalidParameterError, JobFileError, SDCError
from microsdc._core.messages import render
from microsdc.risk import sample_frequencies

#: Python's spelling of a parameter with a value: method='greedy', missing='category'.
PYTHON_WORDS = re.compile(r"\b[a-z_]+='|'combs'|\bsample_frequencies\b|local_suppression")


@pytest.fixture
def small(tmp_path: Path) -> Path:
    path = tmp_path / "in.csv"
    path.write_text("age,sex,region,w\n23,m,a,10\n24,f,a,10\n25,m,b,10\n", encoding="utf-8")
    return path


def test_unknown_qi_names_the_option(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["risk", str(small), "--qi", "age,nosuch"], capsys)
    assert code == 2
    assert "Option --qi names 1 column(s) not in in.csv: 'nosuch'" in err


def test_unknown_weight_names_the_option(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["risk", str(small), "--qi", "age", "--weight", "wt"], capsys)
    assert code == 2
    assert "Option --weight names 1 column(s) not in in.csv: 'wt'" in err
    assert "Did you mean 'w'" in err or "'w'" in err


def test_table_on_a_csv_is_refused(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["risk"], ["suppress", "--out", str(small.parent / "o.csv")]):
        code, _, err = run_cli([*command, str(small), "--qi", "age", "--table", "x"], capsys)
        assert code == 2, command
        assert "--table is for a DuckDB database file" in err
        assert "leave --table out" in err
    assert not (small.parent / "o.csv").exists()


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_weight_that_is_a_key_variable_is_refused(
    small: Path, capsys: pytest.CaptureFixture[str], engine: str
) -> None:
    if engine != "pandas":
        pytest.importorskip("duckdb")
        pytest.importorskip("narwhals")
    args = ["risk", str(small), "--qi", "age,sex", "--weight", "age", "--engine", engine]
    code, out, err = run_cli(args, capsys)
    assert code == 2
    assert "Option --weight names 'age', which is also a quasi-identifier" in err
    assert "Records at risk" not in out


def test_library_refuses_a_weight_that_is_a_key_variable() -> None:
    df = pd.DataFrame({"age": [1, 1, 2], "sex": ["m", "m", "f"]})
    with pytest.raises(InvalidParameterError) as err:
        sample_frequencies(df, ["age", "sex"], weights="age")
    assert err.value.param == "weights"
    assert "'age', which is also a quasi-identifier" in str(err.value)


def test_library_refuses_it_on_an_engine() -> None:
    pl = pytest.importorskip("polars")
    pytest.importorskip("narwhals")
    df = pl.DataFrame({"age": [1, 1, 2], "sex": ["m", "m", "f"]}).lazy()
    with pytest.raises(InvalidParameterError, match="also a quasi-identifier"):
        sample_frequencies(df, ["age", "sex"], weights="age")


@pytest.mark.parametrize("codec", ["rot13", "base64"])
def test_cli_encoding_that_is_a_codec(
    small: Path, capsys: pytest.CaptureFixture[str], codec: str
) -> None:
    code, _, err = run_cli(["risk", str(small), "--qi", "age", "--encoding", codec], capsys)
    assert code == 2
    assert "Option --encoding must be a text encoding" in err
    assert "not a text encoding" in err and "LookupError" not in err


def test_cli_encoding_that_is_a_codec_on_an_engine(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("duckdb")
    pytest.importorskip("narwhals")
    args = ["risk", str(small), "--qi", "age", "--encoding", "rot13", "--engine", "duckdb"]
    code, _, err = run_cli(args, capsys)
    assert code == 2
    assert "not a text encoding" in err and "Traceback" not in err


@pytest.mark.parametrize("sep", ['"', "ab"])
def test_cli_separator_that_cannot_separate(
    small: Path, capsys: pytest.CaptureFixture[str], sep: str
) -> None:
    code, _, err = run_cli(["risk", str(small), "--qi", "age", "--sep", sep], capsys)
    assert code == 2
    assert "'--sep'" in err


@pytest.mark.parametrize(("key", "value"), [("encoding", "rot13"), ("sep", '\\"')])
def test_job_encoding_or_separator_is_a_job_file_error(
    tmp_path: Path, key: str, value: str
) -> None:
    from microsdc.job import load_job

    (tmp_path / "in.csv").write_text("age,sex\n1,m\n", encoding="utf-8")
    job = tmp_path / "job.toml"
    job.write_text(
        f'steps = ["risk"]\n[input]\npath = "in.csv"\n{key} = "{value}"\n'
        '[variables]\nquasi_identifiers = ["age", "sex"]\n[output]\ndirectory = "out"\n',
        encoding="utf-8",
    )
    with pytest.raises(JobFileError) as err:
        load_job(job)
    assert err.value.key == f"input.{key}"


def test_exact_with_another_policy_in_options(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = small.parent / "o.csv"
    args = ["suppress", str(small), "--qi", "age,sex", "--method", "exact"]
    code, _, err = run_cli([*args, "--missing", "category", "--out", str(out)], capsys)
    assert code == 2
    assert "--method exact solves --missing wildcard only, not --missing category" in err
    assert "Use --method greedy" in err
    assert not PYTHON_WORDS.search(err), err


def test_exact_warning_in_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.csv"
    src.write_text("a,b\n1,1\n1,2\n2,1\n2,2\n3,3\n", encoding="utf-8")
    args = ["suppress", str(src), "--qi", "a,b", "--method", "exact", "-k", "2"]
    args += ["--missing", "wildcard"]
    code, _, err = run_cli([*args, "--out", str(tmp_path / "o.csv")], capsys)
    assert code == 0, err
    warning = " ".join(err.split())  # rich wraps long lines
    assert "blanks 1 record(s) in every key variable" in warning
    assert "Use the default --missing category (--method greedy)" in warning
    assert not PYTHON_WORDS.search(warning), warning


def test_conservative_suppression_names_the_command(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["suppress", str(small), "--qi", "age", "--missing", "conservative"]
    code, _, err = run_cli([*args, "--out", str(small.parent / "o.csv")], capsys)
    assert code == 2
    assert "microsdc risk" in err


def test_alpha_shown_as_typed(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["risk", str(small), "--qi", "age", "--missing", "2"], capsys)
    assert code == 2
    assert "Got 2 instead" in err


def test_render_names_quoted_parameters_the_error_is_about() -> None:
    exc = InvalidParameterError(
        "method='exact' of local_suppression takes no 'combs' (it ...). "
        "Use method='greedy' with 'combs'.",
        func="local_suppression",
        param="method",
        related=("combs",),
    )
    names = {"method": "'suppression.method'", "combs": "'suppression.combs'"}
    assert render(exc, names, "Key") == (
        "'suppression.method' = \"exact\" takes no 'suppression.combs' (it ...). "
        "Use 'suppression.method' = \"greedy\" with 'suppression.combs'."
    )
    # a parameter the error is not about keeps its quotes as they are
    plain = InvalidParameterError("takes no 'combs'.", func="f", param="method")
    assert render(plain, names, "Key") == "takes no 'combs'."
    # nor does the error's own parameter: its messages quote column names
    typo = InvalidParameterError("no column 'HID'. Did you mean 'hid'?", func="f", param="hid")
    assert render(typo, {"hid": "--hid"}) == "no column 'HID'. Did you mean 'hid'?"


def test_job_exact_with_combs_names_the_keys(tmp_path: Path) -> None:
    from microsdc.job import run_job

    (tmp_path / "in.csv").write_text("a,b\n1,1\n1,2\n2,1\n2,2\n3,3\n", encoding="utf-8")
    job = tmp_path / "job.toml"
    job.write_text(
        'steps = ["suppression"]\n[input]\npath = "in.csv"\n'
        '[variables]\nquasi_identifiers = ["a", "b"]\n[risk]\nk = 2\nmissing = "wildcard"\n'
        '[suppression]\nmethod = "exact"\ncombs = [1]\n[output]\ndirectory = "out"\n',
        encoding="utf-8",
    )
    with pytest.raises(SDCError) as err:
        run_job(job)
    message = str(err.value)
    assert "'suppression.combs'" in message
    assert not PYTHON_WORDS.search(message), message


def test_job_warning_notes_use_job_keys(tmp_path: Path) -> None:
    import json

    from microsdc.job import run_job

    (tmp_path / "in.csv").write_text("a,b\n1,1\n1,2\n2,1\n2,2\n3,3\n", encoding="utf-8")
    job = tmp_path / "job.toml"
    job.write_text(
        'steps = ["suppression"]\n[input]\npath = "in.csv"\n'
        '[variables]\nquasi_identifiers = ["a", "b"]\n[risk]\nk = 2\nmissing = "wildcard"\n'
        '[suppression]\nmethod = "exact"\n[output]\ndirectory = "out"\n',
        encoding="utf-8",
    )
    run_job(job)
    audits = list((tmp_path / "out").glob("*audit*.json"))
    assert audits
    text = audits[0].read_text(encoding="utf-8")
    assert "blanks 1 record(s) in every key variable" in text
    assert "method='greedy'" not in text
    notes = json.dumps(json.loads(text))
    assert "suppression.method" in notes
