"""The progress display: records at risk handled and left, time left, per step of a job."""

from __future__ import annotations

import io

from rich.console import Console
from rich.progress import Progress

from microsdc.cli._common import progress_columns, records_callback
from microsdc.report.console import JobSteps


def _progress() -> tuple[Progress, io.StringIO]:
    buf = io.StringIO()
    con = Console(file=buf, force_terminal=True, width=150)
    return Progress(*progress_columns("microsdc suppress"), console=con, auto_refresh=False), buf


def test_records_callback_shows_handled_left_and_time_left() -> None:
    bar, buf = _progress()
    with bar:
        cb = records_callback(bar)
        cb(0, 5_000)
        cb(1_200, 5_000)
        bar.refresh()
        task = bar.tasks[0]
        assert (task.completed, task.total) == (1_200, 5_000)
        assert task.fields["info"] == "1,200 of 5,000 records at risk handled, at most 3,800 left"
        cb(0, 40)  # a second pass starts again
        assert (bar.tasks[0].completed, bar.tasks[0].total) == (0, 40)
        assert len(bar.tasks) == 1
    assert "records at risk handled" in buf.getvalue()


def test_job_steps_show_step_numbers_and_a_records_line() -> None:
    bar, _ = _progress()
    with bar:
        steps = JobSteps(bar, 5)
        steps("reading")
        steps("local suppression")
        assert bar.tasks[0].fields["info"] == "step 2 of 5"
        records = steps.records()
        assert records is not None
        records(10, 40)
        assert len(bar.tasks) == 2 and bar.tasks[1].completed == 10
        steps("measuring risk (after)")  # the records line goes with its step
        assert len(bar.tasks) == 1
        levels = steps.levels(["nuts1", "nuts2"])
        assert levels is not None
        levels(1, 0.5)
        assert bar.tasks[1].completed == 0.75
        assert "level 2 of 2 (nuts2)" in bar.tasks[1].fields["info"]


def test_no_display_no_callbacks() -> None:
    steps = JobSteps()
    steps("reading")
    assert steps.records() is None and steps.levels(["a"]) is None
