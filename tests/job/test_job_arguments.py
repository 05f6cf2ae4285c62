"""The arguments of the job functions are checked before anything is read: a value of
the wrong type is an InvalidParameterError naming the parameter and the function (as
every public function of microsdc words it), never a bare AttributeError or TypeError
from deep inside, and never taken for something it is not (``check_files=1``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from microsdc.exceptions import InvalidParameterError, JobFileError
from microsdc.job import load_job, parse_job, run_job

TEXT = """steps = ["risk"]
[input]
path = "data.csv"
[variables]
quasi_identifiers = ["sex", "age"]
"""

TEXT_REQUIREMENT = "a str (the TOML text of a job; load_job reads a file)"

WRONG = [
    # (keyword arguments of parse_job, the parameter named, the message)
    (
        {"text": 5},
        "text",
        f"The 'text' parameter of parse_job must be {TEXT_REQUIREMENT}. Got 5 instead.",
    ),
    (
        {"text": None},
        "text",
        f"The 'text' parameter of parse_job must be {TEXT_REQUIREMENT}. Got None instead.",
    ),
    (
        {"text": Path("job.toml")},
        "text",
        f"The 'text' parameter of parse_job must be {TEXT_REQUIREMENT}. "
        f"Got {Path('job.toml')!r} instead.",
    ),
    (
        {"text": TEXT.encode()},
        "text",
        "The 'text' parameter of parse_job must be a str (the TOML text of a job; decode the "
        "bytes first). Got bytes instead.",
    ),
    (
        {"text": TEXT, "source": 5},
        "source",
        "The 'source' parameter of parse_job must be a file path (str or os.PathLike). "
        "Got 5 instead.",
    ),
    (
        {"text": TEXT, "check_files": 1},
        "check_files",
        "The 'check_files' parameter of parse_job must be a bool. Got 1 instead.",
    ),
    (
        {"text": TEXT, "check_files": "no"},
        "check_files",
        "The 'check_files' parameter of parse_job must be a bool. Got 'no' instead.",
    ),
    (
        {"text": TEXT, "check_files": None},
        "check_files",
        "The 'check_files' parameter of parse_job must be a bool. Got None instead.",
    ),
]


@pytest.mark.parametrize(("kwargs", "param", "message"), WRONG)
def test_parse_job_checks_its_arguments(kwargs: dict[str, Any], param: str, message: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        parse_job(**kwargs)
    assert info.value.param == param
    assert info.value.func == "parse_job"
    assert str(info.value) == message


def test_parse_job_takes_what_its_signature_says(tmp_path: Path) -> None:
    """A str or a path as ``source``, numpy's bool as ``check_files`` (as load_job)."""
    for source in (str(tmp_path / "job.toml"), tmp_path / "job.toml"):
        job = parse_job(TEXT, source, check_files=np.bool_(False))
        assert job.input_path == tmp_path / "data.csv"
    with pytest.raises(JobFileError, match="does not exist"):  # check_files=True checks
        parse_job(TEXT, tmp_path / "job.toml", check_files=np.bool_(True))


def test_load_job_and_run_job_word_the_same_checks(tmp_path: Path) -> None:
    job = tmp_path / "job.toml"
    job.write_text(TEXT, encoding="utf-8")
    for call, func, param in (
        (lambda: load_job(job, check_files=1), "load_job", "check_files"),
        (lambda: load_job(5), "load_job", "path"),
        (lambda: run_job(job, write=1), "run_job", "write"),
    ):
        with pytest.raises(InvalidParameterError) as info:
            call()
        assert (info.value.func, info.value.param) == (func, param)
        assert str(info.value).startswith(f"The '{param}' parameter of {func} must be ")
