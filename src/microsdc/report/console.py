"""The report on the console: what ``microsdc run``, ``demo``, ``suppress`` and ``swap`` print.

Rich is imported when something is printed, not with this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

from microsdc.report.sections import (
    print_notes,
    print_risk_steps,
    print_risk_table,
    print_suppression,
    print_swapping,
)

if TYPE_CHECKING:
    from microsdc.suppression.local import SuppressionResult
    from microsdc.swapping.core import SwapResult

__all__ = [
    "JobSteps",
    "intruder_caption",
    "job_progress",
    "print_audit",
    "print_suppression_summary",
    "progress_columns",
    "render_suppression_summary",
    "render_swap_summary",
]


def print_audit(audit: dict[str, Any], out: Any) -> None:
    """Print the figures of an audit record: risk before and after (and after each step),
    swapping, suppression,
    what was not computed and the warnings.

    Parameters
    ----------
    audit : dict
        An audit record.
    out : rich.console.Console
    """
    print_risk_table(audit, out)
    print_risk_steps(audit, out)
    print_swapping(audit, out)
    print_suppression(audit, out)
    print_release_methods(audit, out)
    print_notes(audit, out)


def print_release_methods(audit: dict[str, Any], out: Any) -> None:
    """Print one paragraph per release-method step that ran (PRAM, microaggregation,
    noise); nothing when none did."""
    from rich.markup import escape

    from microsdc.report.sections import release_method_texts

    for text in release_method_texts(audit):
        out.print(escape(text))


def render_suppression_summary(result: SuppressionResult, title: str | None = None) -> Any:
    """A rich renderable: cells blanked per QI and records at risk before and after.

    Parameters
    ----------
    result : SuppressionResult
    title : str, optional
        Table title; by default names the method and k.

    Returns
    -------
    rich.table.Table

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": list("xxxyyz"), "b": list("uuuvvv")})
    >>> from microsdc.suppression import local_suppression
    >>> res = local_suppression(df, ["a", "b"], 2)
    >>> render_suppression_summary(res).row_count  # one row per quasi-identifier
    2
    """
    from rich.markup import escape
    from rich.table import Table

    table = Table(
        title=title
        or f"Local suppression ({result.method}, k={result.k}, missing={result.missing})",
        show_footer=True,
    )
    table.add_column("quasi-identifier", footer="total")
    table.add_column("cells blanked", justify="right", footer=f"{result.n_cells:,}")
    n = max(result.n_rows, 1)
    # a column's share of its own cells; the total, the share of all quasi-identifier cells
    n_cells_all = max(n * len(result.cells_per_qi), 1)
    table.add_column(
        "% of cells", justify="right", footer=f"{100 * result.n_cells / n_cells_all:.2f}"
    )
    for name, count in result.cells_per_qi.items():
        table.add_row(escape(str(name)), f"{int(count):,}", f"{100 * int(count) / n:.2f}")
    table.caption = (
        f"records at risk ({escape(result.missing)} count): {result.n_at_risk_before:,} "
        f"before, {result.n_at_risk_after:,} after; "
        f"{result.n_rows_suppressed:,} record{'' if result.n_rows_suppressed == 1 else 's'} "
        f"changed in {result.seconds:.2f} s"
    )
    return table


def print_suppression_summary(
    con: Any, result: SuppressionResult, title: str | None = None
) -> None:
    """Print the table of :func:`render_suppression_summary`, then the headline
    (:func:`intruder_caption`) on lines of their own."""
    con.print(render_suppression_summary(result, title))
    con.print(intruder_caption(result.intruder(), _min_k(result.k)))


def _min_k(k: Any) -> int:
    return int(min(k)) if isinstance(k, list) else int(k)


def intruder_caption(figures: dict[str, Any] | None, k: int) -> str:
    """The headline in rich markup: records an intruder who knows their key values picks
    with probability above 1/k, before -> after (green only when none is left), and the
    highest such probability.

    >>> f = {"before": {"n_above_1_over_k": 5, "max": 1.0},
    ...      "after": {"n_above_1_over_k": 0, "max": 1 / 3}}
    >>> intruder_caption(f, 3).split(": ")[1]
    '5 -> [green]0[/green]; highest probability 1.00 -> 0.33'
    """
    if figures is None:
        return "records an intruder who knows their key values picks: not computed"
    b, a = figures["before"], figures["after"]
    n = a["n_above_1_over_k"]
    colour = "green" if n == 0 else "red"
    return (
        f"records an intruder who knows their key values picks with probability above 1/{k}: "
        f"{b['n_above_1_over_k']:,} -> [{colour}]{n:,}[/{colour}]; "
        f"highest probability {b['max']:.2f} -> {a['max']:.2f}"
    )


def render_swap_summary(result: SwapResult) -> Any:
    """A rich table of what a swap changed, per hierarchy level.

    Parameters
    ----------
    result : SwapResult

    Returns
    -------
    rich.table.Table
        One row per level (households at risk, households and persons swapped,
        households without a donor) and a total row; the caption gives the shares.
    """
    from rich.markup import escape
    from rich.table import Table

    c = result.counts_per_level
    table = Table(
        title=f"Targeted record swapping: {result.n_households:,} households, "
        f"{result.n_persons:,} persons",
        caption=(
            f"{result.n_swapped_households:,} households "
            f"({result.n_swapped_households / max(result.n_households, 1):.1%}) and "
            f"{result.n_swapped_persons:,} persons "
            f"({result.n_swapped_persons / max(result.n_persons, 1):.1%}) swapped; "
            f"target {result.target_pairs:,} pairs"
        ),
    )
    table.add_column("Level", justify="right")
    table.add_column("Area column")
    for name in ("At risk", "Households swapped", "Persons swapped", "Without donor"):
        table.add_column(name, justify="right")
    for row in c.to_dict("records"):
        table.add_row(
            str(int(row["level"]) + 1),
            escape(str(row["hierarchy"])),
            f"{int(row['households_at_risk']):,}",
            f"{int(row['households_swapped']):,}",
            f"{int(row['persons_swapped']):,}",
            f"{int(row['households_without_donor']):,}",
        )
    table.add_row(
        "",
        "total",
        f"{int(c['households_at_risk'].sum()):,}",
        f"{result.n_swapped_households:,}",
        f"{result.n_swapped_persons:,}",
        f"{result.n_no_donor:,}",
        end_section=True,
    )
    return table


def progress_columns(label: str = "") -> list[Any]:
    """Columns of microsdc's progress bars: what runs, a bar, counts, time left and elapsed.

    A task may carry an ``info`` field (e.g. "1,200 of 5,000 records at risk handled").
    """
    from rich.progress import (
        BarColumn,
        ProgressColumn,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class InfoColumn(ProgressColumn):
        def render(self, task: Any) -> Text:
            return Text(str(task.fields.get("info", "")))

    return [
        SpinnerColumn(),
        TextColumn(f"[bold]{label}[/bold] {{task.description}}" if label else "{task.description}"),
        BarColumn(),
        InfoColumn(),
        TimeRemainingColumn(),
        TimeElapsedColumn(),
    ]


class JobSteps:
    """Progress of a job on a rich ``Progress``: one line for the steps, one for the records
    of a long step (:class:`microsdc.job.steps.JobProgress`); without a bar, nothing."""

    def __init__(self, bar: Any = None, total: int = 0) -> None:
        self.bar = bar
        self.total = total
        self.task = bar.add_task("starting", total=total, info="") if bar is not None else None
        self.first = True
        self.detail: Any = None

    def __call__(self, desc: str) -> None:
        if self.bar is None:
            return
        if self.first:
            self.first = False
        else:
            self.bar.advance(self.task)
        info = f"step {min(self.bar.tasks[0].completed + 1, self.total):.0f} of {self.total}"
        self.bar.update(self.task, description=desc, info=info)
        if self.detail is not None:
            self.bar.remove_task(self.detail)
            self.detail = None

    def records(self) -> Callable[[int, int], None] | None:
        """``progress(processed, total)`` for local suppression, or None without a display."""
        if self.bar is None:
            return None
        bar = self

        def update(done: int, total: int) -> None:
            info = f"{done:,} of {total:,} records at risk handled, at most {total - done:,} left"
            if bar.detail is None:
                bar.detail = bar.bar.add_task("  records at risk", total=max(total, 1), info=info)
            elif done == 0:
                bar.bar.reset(bar.detail, total=max(total, 1), info=info)
            bar.bar.update(bar.detail, completed=done, total=max(total, 1), info=info)

        return update

    def levels(self, names: list[str]) -> Callable[[int, float], None] | None:
        """``on_progress(level, done)`` for record swapping, or None without a display."""
        if self.bar is None:
            return None
        bar = self

        def update(level: int, done: float) -> None:
            info = f"level {level + 1} of {len(names)} ({names[level]}): {done:.0%} of the areas"
            overall = (level + done) / max(len(names), 1)
            if bar.detail is None:
                bar.detail = bar.bar.add_task("  households", total=1.0, info=info)
            bar.bar.update(bar.detail, completed=overall, info=info)

        return update


def job_progress(console: Any = None) -> Callable[[int], AbstractContextManager[JobSteps]]:
    """The progress display of a job (``progress_display`` of :func:`microsdc.job.run_job`):
    rich progress bars on ``console`` (default: standard error), shown only when it is a
    terminal.

    Parameters
    ----------
    console : rich.console.Console, optional

    Returns
    -------
    callable
        ``display(n_steps)``, a context manager that yields the job's :class:`JobSteps`.
    """

    @contextmanager
    def display(total: int) -> Iterator[JobSteps]:
        from rich.console import Console
        from rich.progress import Progress

        out = console if console is not None else Console(stderr=True)
        if not out.is_terminal:
            yield JobSteps()
            return
        with Progress(*progress_columns(), console=out, transient=True) as bar:
            steps = JobSteps(bar, total)
            yield steps
            if steps.task is not None:
                bar.update(steps.task, completed=total, description="done")

    return display
