"""A misspelt step in a job file gets a "did you mean" naming the step meant."""

from __future__ import annotations

import pytest

from microsdc.exceptions import JobFileError
from microsdc.job.config import parse_job

BASE = """steps = {steps}
[input]
path = "data.csv"
[variables]
quasi_identifiers = ["sex", "age"]
"""


def _message(steps: str) -> str:
    with pytest.raises(JobFileError) as info:
        parse_job(BASE.format(steps=steps), "/jobs/job.toml", check_files=False)
    return str(info.value)


def test_a_misspelt_step_gets_the_step_meant() -> None:
    message = _message('["risk", "supression"]')
    assert "got ['risk', 'supression']. Did you mean 'suppression' for 'supression'?" in message
    assert "Did you mean 'swapping' for 'swaping'?" in _message('["swaping"]')


def test_a_step_like_no_other_gets_no_guess() -> None:
    message = _message('["tabulate"]')
    assert "Did you mean" not in message
    assert message.endswith("got ['tabulate'].")


def test_a_repeated_step_gets_no_guess() -> None:
    assert "Did you mean" not in _message('["risk", "risk"]')
