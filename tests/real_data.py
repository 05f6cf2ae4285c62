"""Where the tests find the real data sets (adult_missing.csv, testdata.csv), and the
skip that says so when they are not there.

The files are not in the repository. They are looked for in the folder named by the
environment variable ``MICROSDC_DATA``, else in ``../shared/data`` beside the clone
(the layout of the project's machines). Without them the real-data tests are skipped
with a reason naming the folder looked in and the variable to set; the session summary
repeats how many were skipped. With ``MICROSDC_DATA`` set, a missing file is an error,
not a skip: the run asked for the data.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: The environment variable naming the folder of the real data sets.
ENV = "MICROSDC_DATA"

#: Where the data are looked for without ``MICROSDC_DATA``: ../shared/data beside the clone.
DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "data"

#: How every skip for missing real data starts (the session summary counts them).
SKIP_PREFIX = "real data not found"


def data_dir() -> Path:
    """The folder the real data sets are read from."""
    given = os.environ.get(ENV)
    return Path(given).expanduser() if given else DEFAULT


def real_data_file(name: str) -> Path:
    """The path of real data set ``name``; skips the test (or fails it, when
    ``MICROSDC_DATA`` is set) when the file is not there."""
    path = data_dir() / name
    if path.is_file():
        return path
    if os.environ.get(ENV):
        pytest.fail(f"{ENV}={os.environ[ENV]} is set, but {name} is not in {data_dir()}")
    pytest.skip(
        f"{SKIP_PREFIX}: {name} is not in {DEFAULT} (../shared/data beside the clone); "
        f"set {ENV} to the folder that holds it to run this test"
    )
    raise AssertionError  # pragma: no cover - pytest.skip raises
