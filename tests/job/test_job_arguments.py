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


RELEASE_WRONG = [
    # (keyword argument, value, the requirement the message states)
    ("random_order", 1, "a bool"),
    ("random_order", "yes", "a bool"),
    ("title", 5, "a str"),
    ("name", 5, "a str"),
    ("risk_threshold", "x", "a real number in the range (0, 1]"),
    ("risk_threshold", 0, "a real number in the range (0, 1]"),
    ("risk_threshold", 1.5, "a real number in the range (0, 1]"),
    ("missing_values", 5, "a list of values"),
    ("missing_values", "NA", "a list of values"),  # not the codes 'N' and 'A'
    ("l_diversity", 5, "one of {'distinct', 'entropy', 'recursive'}"),
    ("l", "x", "an int >= 1"),
    ("l", 0, "an int >= 1"),
    ("c", "x", "a real number > 0"),
    ("c", 0, "a real number > 0"),
    (
        "missing",
        "bogus",
        "one of 'wildcard', 'category', 'probabilistic', 'conservative' or a real number "
        "alpha in [0, 1]",
    ),
]


@pytest.mark.parametrize(("param", "value", "requirement"), RELEASE_WRONG)
def test_release_checks_its_settings_when_made(param: str, value: Any, requirement: str) -> None:
    """Before: accepted (``random_order=1``, ``title=5``, ``missing_values="NA"`` read as
    two codes), a bare TypeError or ValueError, or an error naming risk_summary at the
    first measure."""
    import pandas as pd

    from microsdc.job import Release

    df = pd.DataFrame({"sex": ["f", "m", "f", "f"], "age": [30, 40, 30, 30]})
    with pytest.raises(InvalidParameterError) as info:
        Release(df, ["sex", "age"], **{param: value})
    assert (info.value.func, info.value.param) == ("Release", param)
    assert str(info.value) == (
        f"The '{param}' parameter of Release must be {requirement}. Got {value!r} instead."
    )


def test_release_takes_valid_settings() -> None:
    import pandas as pd

    from microsdc.job import Release

    df = pd.DataFrame({"sex": ["f", "m", "f", "f"], "age": [30, -9, 30, 30]})
    release = Release(
        df,
        ["sex", "age"],
        k=2,
        missing=0.5,
        missing_values=np.array([-9]),
        l_diversity="recursive",
        l=2,
        c=np.float64(2.0),
        risk_threshold=1,
        title="t",
        name="n.csv",
        random_order=np.bool_(True),
    )
    assert release.audit()["risk"]["before"]["n_records"] == 4
