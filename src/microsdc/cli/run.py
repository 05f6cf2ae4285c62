"""``microsdc run JOB.toml``: run a whole anonymisation job."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from microsdc.cli._common import announce_compile, console, user_errors

__all__ = ["print_result", "run"]


def print_result(result: Any, out: Any) -> None:
    """Print the before/after figures of a job and where its files are."""
    from rich.markup import escape  # paths are not markup

    from microsdc.report.console import print_audit

    print_audit(result.audit, out)
    if result.written:
        out.print(f"Anonymised data: {escape(str(result.written['data']))}")
        out.print(f"Audit record:    {escape(str(result.written['audit']))}")
        out.print(f"Report:          {escape(str(result.written['report']))}")
        if "release" in result.written:
            out.print(f"Release record:  {escape(str(result.written['release']))}")
            out.print(
                "Publish the anonymised data and the release record only: the audit record "
                "and the report are internal (they hold the input's SHA-256 and its figures "
                "before protection)."
            )
    else:
        out.print("Dry run: nothing was written.")


@click.command("run")
@click.argument("job_file", type=click.Path(dir_okay=True, path_type=Path))
@click.option(
    "--output-dir",
    "-o",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write the outputs here instead of the folder named in the job file.",
)
@click.option("--dry-run", is_flag=True, help="Run every step but write nothing.")
@click.option("--no-progress", is_flag=True, help="Do not show progress bars.")
@click.option(
    "--quiet",
    "-q",
    is_flag=True,
    help="Print only the paths written (with --dry-run, a one-line result).",
)
@user_errors
def run(
    job_file: Path, output_dir: Path | None, dry_run: bool, no_progress: bool, quiet: bool
) -> None:
    """Run the anonymisation job described in JOB_FILE (TOML).

    Reads the input file, recodes, measures the risk, swaps and/or suppresses
    as the job says, measures again, and writes the anonymised file and a
    JSON release record, both to publish, and an internal JSON audit record and
    HTML report, to keep (they hold figures of the confidential input).
    Relative paths in the job file are relative to the job file's folder. A
    bad job file or a missing input file stops the run with exit code 2
    before anything is written.
    """
    from microsdc.job import load_job, run_job
    from microsdc.report.console import job_progress

    job = load_job(job_file)
    announce_compile("risk", *(s for s in job.steps if s != "risk"))
    show = not (no_progress or quiet)
    result = run_job(
        job,
        output_dir=output_dir,
        write=not dry_run,
        progress_display=job_progress(console(stderr=True)) if show else None,
    )
    if quiet:
        for path in result.written.values():
            click.echo(str(path))
        if not result.written:
            before, after = result.audit["risk"]["before"], result.audit["risk"]["after"]
            click.echo(
                f"Dry run: nothing was written. {before['n_records']:,} records; records with "
                f"fk < {before['k']}: {before['n_at_risk']:,} before, {after['n_at_risk']:,} after."
            )
        return
    print_result(result, console())
