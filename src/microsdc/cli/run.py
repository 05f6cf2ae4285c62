"""``microsdc run JOB.toml``: run a whole anonymisation job."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from microsdc.cli._common import announce_compile, console, user_errors
from microsdc.job.schema import default_of

__all__ = ["print_result", "run"]


def print_result(result: Any, out: Any) -> None:
    """Print the before/after figures of a job and where its files are."""
    from rich.table import Table

    from microsdc.report import format_percent

    audit = result.audit
    before, after = audit["risk"]["before"], audit["risk"]["after"]
    k = before["k"]
    from rich.markup import escape  # user text (titles, notes, paths) is not markup

    table = Table(
        title=escape(audit["title"]), title_justify="left", show_edge=False, pad_edge=False
    )
    table.add_column("measure")
    table.add_column("before", justify="right")
    table.add_column("after", justify="right")
    rows = [
        ("records", f"{before['n_records']:,}", f"{after['n_records']:,}"),
        (f"records with fk < {k}", f"{before['n_at_risk']:,}", f"{after['n_at_risk']:,}"),
        ("unique records (fk = 1)", f"{before['n_unique']:,}", f"{after['n_unique']:,}"),
        (
            "expected re-identifications",
            f"{before['expected_reidentifications']:,.2f}",
            f"{after['expected_reidentifications']:,.2f}",
        ),
        (
            "global risk",
            format_percent(before["global_risk"], 2),
            format_percent(after["global_risk"], 2),
        ),
        (
            f"records with risk > {before['risk_threshold']:g}",
            f"{before['n_high_risk']:,}",
            f"{after['n_high_risk']:,}",
        ),
    ]
    if before.get("household") and after.get("household"):
        rows.append(
            (
                "household risk (persons)",
                f"{before['household']['expected_reidentifications']:,.2f}",
                f"{after['household']['expected_reidentifications']:,.2f}",
            )
        )
    for name, ld in before.get("l_diversity", {}).items():
        rows.append(
            (
                f"records failing {ld['kind']} l-diversity on {name}",
                f"{ld['n_failing']:,}",
                f"{after['l_diversity'][name]['n_failing']:,}",
            )
        )
    for row in rows:
        table.add_row(*row)
    out.print(table)
    swp = audit.get("swapping")
    if swp:
        levels = Table(
            title="Record swapping per hierarchy level",
            title_justify="left",
            show_edge=False,
            pad_edge=False,
        )
        for name in (
            "level",
            "households at risk",
            "households swapped",
            "persons swapped",
            "without a donor",
        ):
            levels.add_column(name, justify="left" if name == "level" else "right")
        for row in swp["counts_per_level"]:
            levels.add_row(
                str(row["hierarchy"]),
                f"{row['households_at_risk']:,}",
                f"{row['households_swapped']:,}",
                f"{row['persons_swapped']:,}",
                f"{row['households_without_donor']:,}",
            )
        out.print(levels)
        at_risk = sum(row["households_at_risk"] for row in swp["counts_per_level"])
        out.print(
            f"Swapped {swp['n_swapped_households']:,} of {swp['n_households']:,} households "
            f"({swp['share_households']:.2%}) and {swp['n_swapped_persons']:,} persons "
            f"({swp['share_persons']:.2%}); {at_risk:,} households were at risk, "
            f"{swp['n_no_donor']:,} found no donor."
        )
        sp = audit["parameters"].get("swapping") or {}
        from microsdc.cli.swap import swap_rate_note

        note = swap_rate_note(
            swp["n_swapped_households"],
            swp["n_households"],
            float(sp.get("swaprate", default_of("swapping.swaprate"))),
            at_risk,
            int(sp.get("k_anonymity", k)),
            list(sp.get("risk_variables", [])),
            k_name="swapping.k_anonymity",
            rv_name="swapping.risk_variables",
        )
        if note:
            out.print(f"[bold]Note:[/bold] {escape(note)}")
        out.print(
            "[dim]Swapping moves whole households between areas, so the frequency counts above "
            "barely change, and may even rise: a household moved into an area where its "
            "combination is rare, or one left behind by those that moved, is rare there. It "
            "protects by making the area of every record uncertain: an intruder who finds a "
            "rare record cannot tell whether it lives where the file says.[/dim]"
        )
    sup = audit.get("suppression")
    if sup:
        per = ", ".join(f"{name} {c:,}" for name, c in sup["per_variable"].items() if c)
        out.print(
            f"Suppressed {sup['total']:,} cells ({sup['share']:.2%} of key-variable cells) in "
            f"{sup['records_with_suppression']:,} records" + (f": {per}" if per else "") + "."
        )
    for text in audit.get("not_computed", []):
        out.print(f"[dim]{text}[/dim]", highlight=False)
    for w in audit.get("warnings", []):
        message = escape(w["message"])  # text, not markup ("[input]" is a job-file table)
        out.print(f"[yellow]Warning ({w['step']}):[/yellow] {message}", highlight=False)
    if result.written:
        out.print(f"Anonymised data: {escape(str(result.written['data']))}")
        out.print(f"Audit record:    {escape(str(result.written['audit']))}")
        out.print(f"Report:          {escape(str(result.written['report']))}")
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
    as the job says, measures again, and writes the anonymised file, a JSON
    audit record and an HTML report. Relative paths in the job file are
    relative to the job file's folder. A bad job file or a missing input file
    stops the run with exit code 2 before anything is written.
    """
    from microsdc.job import load_job, run_job

    job = load_job(job_file)
    announce_compile("risk", *(s for s in job.steps if s != "risk"))
    result = run_job(
        job,
        output_dir=output_dir,
        write=not dry_run,
        progress=not (no_progress or quiet),
        console=console(stderr=True),
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
