"""Shared test configuration: hypothesis profiles and data paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Folder of the real data sets (adult_missing.csv, testdata.csv); skip if absent."""
    if not (SHARED_DATA / "adult_missing.csv").exists():
        pytest.skip(f"real data not found in {SHARED_DATA}")
    return SHARED_DATA


#: The whole suite collects at least this many tests; fewer means tests vanished silently
#: (a broken import, a renamed file). Raise it when tests are added.
MIN_TESTS = 810


def pytest_collection_finish(session: pytest.Session) -> None:
    whole_suite = not session.config.args or session.config.args == session.config.getini(
        "testpaths"
    )
    if whole_suite and len(session.items) < MIN_TESTS:
        raise pytest.UsageError(
            f"only {len(session.items)} tests collected, expected at least {MIN_TESTS}"
        )
