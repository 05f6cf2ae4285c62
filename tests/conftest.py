"""Shared test configuration: hypothesis profiles and data paths."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from real_data import ENV, SKIP_PREFIX, data_dir, real_data_file

settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

REPO = Path(__file__).resolve().parents[1]
#: Folder of the real data sets: $MICROSDC_DATA, else ../shared/data beside the clone
#: (see tests/real_data.py).
SHARED_DATA = data_dir()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Folder of the real data sets (adult_missing.csv, testdata.csv): ``$MICROSDC_DATA``,
    else ``../shared/data`` beside the clone. Without them the test is skipped with a
    reason that names the folder and the variable (an error when ``MICROSDC_DATA`` is set
    but lacks them)."""
    for name in ("adult_missing.csv", "testdata.csv"):
        real_data_file(name)
    return data_dir()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say in the summary how many real-data tests were skipped, and how to run them."""
    skipped = terminalreporter.stats.get("skipped", [])
    n = sum(1 for rep in skipped if SKIP_PREFIX in str(getattr(rep, "longrepr", "")))
    if n:
        terminalreporter.write_sep(
            "-",
            f"{n} real-data test(s) skipped: the data sets are not in {SHARED_DATA}; set "
            f"{ENV} to their folder to run them",
            yellow=True,
        )


#: The whole suite collects at least this many tests; fewer means tests vanished silently
#: (a broken import, a renamed file). Raise it when tests are added.
MIN_TESTS = 1200


def pytest_collection_finish(session: pytest.Session) -> None:
    whole_suite = not session.config.args or session.config.args == session.config.getini(
        "testpaths"
    )
    if whole_suite and len(session.items) < MIN_TESTS:
        raise pytest.UsageError(
            f"only {len(session.items)} tests collected, expected at least {MIN_TESTS}"
        )


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """A local Spark session (``local[2]``) bound to the loopback address only, UI off.

    Skipped when pyspark or a Java runtime is missing (CI installs Debian's
    ``default-jre-headless``).
    """
    pytest.importorskip("pyspark", reason='Spark tests need pyspark: pip install "microsdc[spark]"')
    pytest.importorskip("narwhals", reason="Spark tests need narwhals")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip(
            "Spark tests need a Java runtime (Debian: apt-get install default-jre-headless)"
        )
    from pyspark.sql import SparkSession

    before = os.environ.get("SPARK_LOCAL_IP")
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    session = (
        SparkSession.builder.master("local[2]")
        .appName("microsdc-tests")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        # many tiny jobs: the quick JIT compiler alone makes them several times faster
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    if before is None:
        os.environ.pop("SPARK_LOCAL_IP", None)
    else:
        os.environ["SPARK_LOCAL_IP"] = before
