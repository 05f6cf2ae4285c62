"""Job files: input.sep/input.encoding, empty inputs, order of the printed steps, quiet dry runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from microsdc.cli import cli
from microsdc.exceptions import DataValidationError, DisclosureRiskWarning, JobFileError
from microsdc.job import load_job, run_job

JOB = """
steps = ["risk"]
[input]
path = "{path}"
{extra}
[variables]
quasi_identifiers = ["town", "sex"]
"""


def _job(tmp_path: Path, text: str, encoding: str, extra: str = "") -> Path:
    data = tmp_path / "d.csv"
    data.write_bytes(text.encode(encoding))
    job = tmp_path / "job.toml"
    job.write_text(JOB.format(path=data.as_posix(), extra=extra), encoding="utf-8")
    return job


def test_job_reads_latin1_semicolon_file(tmp_path: Path) -> None:
    text = "town;sex\nBéziers;m\nBéziers;m\nSète;f\n"
    job = _job(tmp_path, text, "latin-1", 'encoding = "latin-1"')
    res = run_job(job, write=False)
    assert res.audit["risk"]["before"]["n_records"] == 3
    assert res.data["town"].tolist() == ["Béziers", "Béziers", "Sète"]
    assert res.audit["risk"]["before"]["n_unique"] == 1


def test_job_writes_a_latin1_input_as_latin1(tmp_path: Path) -> None:
    job = _job(tmp_path, "town,sex\nBéziers,m\nBéziers,m\n", "latin-1", 'encoding = "latin-1"')
    res = run_job(job, write=True)
    out = res.config.output.data
    assert out.read_bytes() == "town,sex\nBéziers,m\nBéziers,m\n".encode("latin-1")


def test_job_writes_a_semicolon_crlf_input_back_as_it_came(tmp_path: Path) -> None:
    job = _job(
        tmp_path, "town;sex\r\nBéziers;m\r\nBéziers;m\r\n", "latin-1", 'encoding = "latin-1"'
    )
    res = run_job(job, write=True)
    out = res.config.output.data
    assert out.read_bytes() == "town;sex\r\nBéziers;m\r\nBéziers;m\r\n".encode("latin-1")


def test_job_writes_the_utf8_byte_order_mark_back(tmp_path: Path) -> None:
    job = _job(tmp_path, "town,sex\nBéziers,m\nBéziers,m\n", "utf-8-sig")
    res = run_job(job, write=True)
    out = res.config.output.data
    assert out.read_bytes() == "town,sex\nBéziers,m\nBéziers,m\n".encode("utf-8-sig")


def test_job_rejects_unknown_encoding(tmp_path: Path) -> None:
    job = _job(tmp_path, "town,sex\na,m\n", "utf-8", 'encoding = "latin-42"')
    with pytest.raises(JobFileError, match=r"input\.encoding"):
        load_job(job)


def test_job_explicit_wrong_sep_is_pointed_out(tmp_path: Path) -> None:
    job = _job(tmp_path, "town;sex\na;m\n", "utf-8", 'sep = ","')
    with pytest.raises(JobFileError, match="looks ';'-separated"):
        run_job(job, write=False)


def test_job_header_only_input_is_an_error(tmp_path: Path) -> None:
    job = _job(tmp_path, "town,sex\n", "utf-8")
    with pytest.raises(DataValidationError, match=r"d\.csv has a header .* but no records"):
        run_job(job, write=False)


def test_job_warns_about_all_missing_key(tmp_path: Path) -> None:
    job = _job(tmp_path, "town,sex\na,\nb,\na,\n", "utf-8")
    res = run_job(job, write=False)
    messages = [w["message"] for w in res.audit["warnings"]]
    assert any("key variable 'sex' is missing in every record" in m for m in messages)
    assert not any("'town'" in m for m in messages)
    assert DisclosureRiskWarning.__name__ in {w["category"] for w in res.audit["warnings"]}


def _invoke(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, ["run", *args], catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


def test_steps_printed_in_execution_order(write_job: Callable[..., Path]) -> None:
    job = write_job(steps='["risk", "swapping", "suppression"]')
    code, out, err = _invoke(str(job), "--dry-run", "--no-progress")
    assert code == 0, err
    assert "Record swapping per hierarchy level" in out and "Suppressed" in out
    assert out.index("Record swapping per hierarchy level") < out.index("Suppressed")


def test_quiet_dry_run_prints_one_line(write_job: Callable[..., Path]) -> None:
    code, out, err = _invoke(str(write_job()), "--dry-run", "-q")
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("Dry run: nothing was written.")
    assert "records with fk < 3" in lines[0]


def test_global_risk_never_prints_as_zero() -> None:
    from microsdc.report import format_percent

    assert format_percent(3e-9, 4) == "< 0.0001 %"
    assert format_percent(0.0) == "0.0 %"
    assert pd.notna(format_percent(0.5))


def test_plain_summary_shows_tiny_global_risk(write_job: Callable[..., Path]) -> None:
    res = run_job(write_job(), write=False)
    res.audit["risk"]["after"]["global_risk"] = 2e-9
    line = next(x for x in res.summary().splitlines() if x.startswith("global risk"))
    assert line.endswith("< 0.0001 %")


def _job_on(tmp_path: Path, text: str, engine: str | None) -> Path:
    """``_job`` on a UTF-8 ``text``, read by ``engine`` (None: pandas); skipped without it."""
    if engine is not None:
        pytest.importorskip(engine)
        pytest.importorskip("narwhals")
    return _job(tmp_path, text, "utf-8", "" if engine is None else f'engine = "{engine}"')


def _job_with_variable(tmp_path: Path, text: str, variable: str) -> Path:
    """``_job`` on a UTF-8 ``text`` with one more line in ``[variables]``."""
    job = _job(tmp_path, text, "utf-8")
    body = job.read_text(encoding="utf-8")
    key = 'quasi_identifiers = ["town", "sex"]'
    job.write_text(body.replace(key, f"{key}\n{variable}"), encoding="utf-8")
    return job


def test_blank_household_id_names_the_job_key(tmp_path: Path) -> None:
    text = "hid,town,sex\n1,a,m\n1,a,f\n,b,m\n"
    job = _job_with_variable(tmp_path, text, 'household_id = "hid"')
    with pytest.raises(DataValidationError) as err:
        run_job(job, write=False)
    text = str(err.value)
    assert "Key 'variables.household_id' names the household id column 'hid'" in text
    assert "1 missing value(s)" in text and "run_job" not in text


def test_library_error_in_a_step_gives_the_job_file_line(tmp_path: Path) -> None:
    data = tmp_path / "d.csv"
    data.write_text("town,sex\na,m\nb,f\n", encoding="utf-8")
    job = tmp_path / "job.toml"
    job.write_text(
        f'steps = ["risk", "suppression"]\n[input]\npath = "{data.as_posix()}"\n'
        '[variables]\nquasi_identifiers = ["town", "sex"]\n[risk]\nk = 5\n',
        encoding="utf-8",
    )
    code, _, err = _invoke(str(job))
    assert code == 2
    assert "job.toml, line 7: Key 'risk.k' must be at most the number of records" in " ".join(
        err.split()
    )


@pytest.mark.parametrize("engine", [None, "duckdb", "polars"])
def test_missing_like_text_warning_printed_whole(tmp_path: Path, engine: str | None) -> None:
    job = _job_on(tmp_path, "town,sex\nNA,m\nNA,m\nb,f\n", engine)
    # on an engine the two records are one key combination; the warning counts records
    code, out, err = _invoke(str(job), "--dry-run" if engine is None else "--no-progress")
    assert code == 0, err
    text = " ".join((out + err).split())
    assert "key variable 'town' holds 'NA' (2 record(s)): read as a value" in text
    assert 'declare it: missing_values = ["NA"] in [input].' in text


def test_error_about_a_column_names_the_key_that_names_it(tmp_path: Path) -> None:
    job = _job_with_variable(tmp_path, "town,sex,w\na,m,1\nb,f,-3\n", 'weights = "w"')
    code, _, err = _invoke(str(job), "--dry-run")
    assert code == 2
    text = " ".join(err.split())
    assert (
        "job.toml, line 8 (key 'variables.weights'): The weight column 'w' has 1 negative" in text
    )
    assert "(first rows: 3: -3)" in text
    assert "sample_frequencies" not in text  # a job's author never called it


@pytest.mark.parametrize("engine", [None, "duckdb", "polars"])
def test_text_weight_names_the_job_key_on_every_engine(tmp_path: Path, engine: str | None) -> None:
    job = _job_on(tmp_path, "town,sex,w\na,m,1\na,m,heavy\nb,f,2\n", engine)
    body = job.read_text(encoding="utf-8").replace("[variables]\n", '[variables]\nweights = "w"\n')
    job.write_text(body, encoding="utf-8")
    code, _, err = _invoke(str(job), "--no-progress")
    assert code == 2
    text = " ".join(err.split())
    assert (
        "job.toml, line 7 (key 'variables.weights'): The weight column 'w' must be numeric" in text
    )
    assert "Traceback" not in err
    if engine is None:
        assert "(first rows: 3: 'heavy')" in text
    else:
        assert "it is String, with values such as 'heavy'." in text


SWAP_JOB = """steps = ["risk", "swapping", "suppression"]
[input]
path = "d.csv"
[variables]
quasi_identifiers = ["age", "sex"]
household_id = "hid"
hierarchy = ["region"]
[swapping]
similar = ["hsize"]
risk_variables = ["age", "sex"]
seed = 3
[suppression]
strata = ["zone"]
"""


@pytest.mark.parametrize(
    ("row", "pointer"),
    [
        ("3,1,,30,m,a", "line 9 (key 'swapping.similar'): Column 'hsize' (used as similar)"),
        (
            "3,1,1,,m,a",
            "line 10 (key 'swapping.risk_variables'): Column 'age' (used as risk_variables)",
        ),
        ("3,1,1,30,m,", "line 13 (key 'suppression.strata'): The stratum column 'zone' has 1"),
    ],
)
def test_blank_in_a_role_column_names_the_key_of_that_role(
    tmp_path: Path, row: str, pointer: str
) -> None:
    text = "hid,region,hsize,age,sex,zone\n1,1,2,30,m,a\n1,1,2,40,f,a\n2,2,2,50,m,b\n2,2,2,60,f,b\n"
    (tmp_path / "d.csv").write_text(text + row + "\n", encoding="utf-8")
    (tmp_path / "job.toml").write_text(SWAP_JOB, encoding="utf-8")
    code, _, err = _invoke(str(tmp_path / "job.toml"), "--no-progress")
    assert code == 2
    assert f"job.toml, {pointer}" in " ".join(err.split())
    assert "(first rows: [6])" in err


def test_output_folders(tmp_path: Path) -> None:
    job = _job(tmp_path, "town,sex\na,m\na,m\n", "utf-8")
    body = job.read_text(encoding="utf-8")
    job.write_text(body + '[output]\ndirectory = "d.csv"\n', encoding="utf-8")
    with pytest.raises(JobFileError, match=r"line 9: the outputs go to the folder .*d\.csv, which"):
        load_job(job)
    # a subfolder in output.data is made, as the output directory is
    job.write_text(body + '[output]\ndirectory = "out"\ndata = "sub/d.parquet"\n', encoding="utf-8")
    res = run_job(job, write=True)
    assert res.written["data"] == tmp_path / "out" / "sub" / "d.parquet"
    assert pd.read_parquet(res.written["data"])["town"].tolist() == ["a", "a"]
