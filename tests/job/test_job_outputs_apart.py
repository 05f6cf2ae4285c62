"""No spelling of the input file is a job's output: the confidential original is never replaced."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pandas as pd
import pytest

from microsdc.job import run_job
from microsdc.job.config import JobFileError, load_job


def _folder(tmp_path: Path, data: str, directory: str = ".") -> tuple[Path, Path]:
    folder = tmp_path / "job"
    (folder / "sub").mkdir(parents=True)
    data_path = folder / "census.csv"
    pd.DataFrame({"a": [1, 1, 2, 2], "b": ["x", "x", "y", "y"]}).to_csv(data_path, index=False)
    job = folder / "job.toml"
    job.write_text(
        'steps = ["risk"]\n[input]\npath = "census.csv"\n'
        '[variables]\nquasi_identifiers = ["a", "b"]\n'
        f'[output]\ndirectory = "{directory}"\ndata = "{data}"\n',
        encoding="utf-8",
    )
    return job, data_path


@pytest.mark.parametrize(
    ("data", "directory"),
    [
        ("census.csv", "."),
        ("../job/census.csv", "."),
        ("sub/../census.csv", "."),
        ("../census.csv", "sub"),
        ("./census.csv", "sub/.."),
    ],
)
def test_an_output_that_resolves_to_the_input_is_refused(
    tmp_path: Path, data: str, directory: str
) -> None:
    job, data_path = _folder(tmp_path, data, directory)
    before = hashlib.sha256(data_path.read_bytes()).hexdigest()
    with pytest.raises(JobFileError, match="must differ from each other and from the input"):
        load_job(job)
    assert hashlib.sha256(data_path.read_bytes()).hexdigest() == before


def test_a_hard_link_to_the_input_is_the_input(tmp_path: Path) -> None:
    job, data_path = _folder(tmp_path, "linked.csv")
    os.link(data_path, data_path.parent / "linked.csv")
    with pytest.raises(JobFileError, match="must differ"):
        load_job(job)


def test_an_output_folder_given_later_cannot_hold_the_input_either(tmp_path: Path) -> None:
    job, data_path = _folder(tmp_path, "census.csv", "sub")  # apart from the input: accepted
    cfg = load_job(job)
    before = data_path.read_bytes()
    with pytest.raises(JobFileError, match="must differ"):
        run_job(cfg, output_dir=data_path.parent, write=True)
    assert data_path.read_bytes() == before
