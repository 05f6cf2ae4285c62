"""``microsdc swap`` (targeted record swapping) and ``microsdc synth`` (synthetic census)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from microsdc.cli._common import (
    announce_compile,
    apply_bins,
    bin_option,
    console,
    count,
    cut_outside_quotes,
    encoding_option,
    file_argument,
    library_option,
    out_option,
    parse_list,
    parse_missing_values,
    random_order_option,
    read_input,
    refuse_alone,
    report_warnings,
    seed_option,
    sep_option,
    user_errors,
    write_output,
)
from microsdc.report.sections import swap_rate_note
from microsdc.swapping import record_swap_result

__all__ = ["swap", "synth"]

#: Inputs with more rows than this show a progress bar (when stderr is a terminal).
PROGRESS_ROWS = 200_000


def _parse_profiles(value: str | None) -> list[list[str]] | None:
    """``"hsize;hsize,htype"`` -> ``[["hsize"], ["hsize", "htype"]]``; None when not given.

    Raises
    ------
    click.UsageError
        If the value, or one of its profiles, names no column (``""``, ``";"``,
        ``"hsize;"``): omitting ``--similar`` is the way to ask for no constraint.
    """
    if value is None:
        return None
    profiles = [
        parse_list(part, "--similar") for part in cut_outside_quotes(value, ";", "--similar")
    ]
    if not all(profiles):
        empty = "names no column" if not any(profiles) else "has a profile with no column"
        raise click.UsageError(
            f"--similar {value!r} {empty}: give household columns, ',' between the columns of "
            "a profile and ';' between profiles (for example --similar 'hsize,htype;hsize'), "
            "or leave out --similar for no similarity constraint"
        )
    return profiles


def _columns(value: str | None, option: str, what: str) -> list[str] | None:
    """The column names of an option; None when not given.

    Raises
    ------
    click.UsageError
        If the option is given but names no column (``--carry-along ""``).
    """
    if value is None:
        return None
    names = parse_list(value, option)
    if not names:
        raise click.UsageError(f"{option} {value!r} names no column: {what}")
    return names


#: What --risk-variables takes, said when it is given empty or left out.
_RISK_VARIABLES_HELP = (
    "give the person variables an intruder may know, comma separated (for example "
    "--risk-variables ageGroup,gender): the risk of a household is counted on them, and "
    "they weight the random choice of households, so they are needed with -k 0 too"
)


def _swap_with_progress(
    data: Any, hid: str, levels: list[str], kwargs: dict[str, Any], progress: Any
) -> Any:
    """Run the swap, with one progress bar per hierarchy level when ``progress`` is given."""
    from microsdc.swapping import record_swap_result

    if progress is None:
        return record_swap_result(data, hid, levels, **kwargs)
    with progress:
        tasks = [
            progress.add_task(f"level {i + 1}: {name}", total=1.0, info="")
            for i, name in enumerate(levels)
        ]

        def on_progress(level: int, done: float) -> None:
            progress.update(tasks[level], completed=done, info=f"{done:.0%} of the areas")

        return record_swap_result(data, hid, levels, **kwargs, progress=on_progress)


def _check_log_path(log_file: str, file: str, out_file: str) -> None:
    """``--log`` must name a file of its own: never the input, never the output."""
    from microsdc.io.write import same_file

    for other, what in ((file, "the input file"), (out_file, "the --out file")):
        if same_file(log_file, other):
            raise click.UsageError(
                f"--log {log_file} is {what}; the households without a donor are written to a "
                "file of their own"
            )


def _swap_options(
    hierarchy: str,
    similar: str | None,
    risk_variables: str | None,
    carry_along: str | None,
    checked: str | None,
) -> dict[str, Any]:
    """The column options of ``swap``, checked before the file is read: each one given
    must name a column, and --risk-variables is required."""
    rv = _columns(risk_variables, "--risk-variables", _RISK_VARIABLES_HELP)
    if rv is None:
        raise click.UsageError("--risk-variables is required: " + _RISK_VARIABLES_HELP)
    return {
        "hierarchy": _columns(
            hierarchy, "--hierarchy", "give the geography columns, coarsest first: nuts1,nuts2"
        ),
        "similar": _parse_profiles(similar),
        "risk_variables": rv,
        "carry_along": _columns(
            carry_along,
            "--carry-along",
            "give the columns exchanged with the geography, comma separated, or leave out "
            "--carry-along",
        ),
        "checked": _columns(
            checked,
            "--checked",
            "give the checked columns kept in place, comma separated, or leave out --checked",
        ),
    }


@contextmanager
def _private_log(log_file: str | None) -> Iterator[str | None]:
    """Where the swap writes the log: a file in a private folder beside ``--log``,
    removed on the way out (None without ``--log``)."""
    if log_file is None:
        yield None
        return
    target = Path(log_file)
    if not target.parent.is_dir():
        raise click.UsageError(f"--log {log_file}: the folder {target.parent} does not exist")
    folder = tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        yield os.path.join(folder, target.name)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _publish(
    data: Any,
    out_file: str,
    log_file: str | None,
    tmp_log: str | None,
    style: tuple[str | None, str, str | None, bool],
) -> None:
    """Write the swapped data (``style``: encoding, input, separator, random order) and
    move it into place together with the log the swap wrote (when it wrote one): when
    either fails, neither file there changes."""
    from microsdc.job.publish import publish_together

    encoding, source, sep, shuffled = style
    files: list[tuple[Path, Callable[[Path], object]]] = [
        (
            Path(out_file),
            lambda p: write_output(
                data, str(p), encoding, source=source, sep=sep, random_order=shuffled
            ),
        )
    ]
    if log_file is not None and tmp_log is not None and os.path.exists(tmp_log):
        files.append((Path(log_file), lambda p: os.replace(tmp_log, p)))
    publish_together(files)


@click.command("swap")
@file_argument
@click.option("--hid", required=True, help="Household id column.")
@click.option(
    "--hierarchy", required=True, help="Geography columns, coarsest first: nuts1,nuts2,nuts3."
)
@click.option(
    "--similar",
    default=None,
    help="Similarity profiles tried in turn, ';' between profiles: 'hsize;hsize,htype'. "
    "Omit for no similarity constraint.",
)
@click.option(
    "--risk-variables",
    default=None,
    help="Required. Person variables of the k-anonymity risk (they also weight the random "
    "draws): age,sex.",
)
@library_option(
    record_swap_result,
    "k_anonymity",
    "-k",
    "--k-anonymity",
    type=int,
    help="k of the risk rule: a household is at risk when a member shares its risk variables "
    "with fewer than k persons of its area. 0 or 1: nobody is at risk (random swaps only).",
)
@library_option(
    record_swap_result,
    "swaprate",
    "--swaprate",
    type=float,
    help="Fraction of households.",
)
@click.option(
    "--risk-threshold", type=float, default=None, help="Override the threshold 1/k of the risk."
)
@seed_option
@click.option(
    "--carry-along",
    default=None,
    help="Columns exchanged with the geography: finer geography, area names, codes of areas.",
)
@click.option(
    "--checked",
    default=None,
    help="Columns that look like geography (one value per area, or values each in one area) "
    "but that you have checked and keep in place. Without it such columns stop the swap.",
)
@click.option(
    "--return-swapped-id",
    is_flag=True,
    help="Append <hid>_swapped (the partner's id; never release it).",
)
@click.option(
    "--renumber-households",
    is_flag=True,
    help="Give the released households new ids 1..n in random order (drawn from a stream "
    "of their own, never written): ids numbered area by area, or the order of the rows, "
    "would otherwise give a swapped household's original area back.",
)
@bin_option
@click.option(
    "--missing-values",
    "missing_values",
    default=None,
    help='With --bin: codes that mean "missing", kept as they are (e.g. "-999,NA").',
)
@random_order_option
@click.option("--log", "log_file", default=None, help="Write households without a donor here.")
@out_option
@sep_option
@encoding_option
@user_errors
def swap(
    file: str,
    hid: str,
    hierarchy: str,
    similar: str | None,
    risk_variables: str | None,
    k_anonymity: int,
    swaprate: float,
    risk_threshold: float | None,
    seed: int | None,
    carry_along: str | None,
    checked: str | None,
    return_swapped_id: bool,
    renumber_households: bool,
    bins: tuple[str, ...],
    missing_values: str | None,
    random_order: bool,
    log_file: str | None,
    out_file: str,
    sep: str | None,
    encoding: str | None,
) -> None:
    """Swap households of FILE across a geographic hierarchy (targeted record swapping).

    Households at risk (fewer than k persons share their risk variables in their
    area) are swapped with a similar household of another area; more are swapped
    at random up to the swap rate. Prints the counts per hierarchy level.

    A column left in place that gives the geography back (a finer geography
    such as a municipality, area names) stops the swap: list it in
    --carry-along, or in --checked if it is safe to keep.

    \b
    Example:
      microsdc swap survey.csv --hid hh --hierarchy region,district \\
          --risk-variables age,sex --bin age=10 --renumber-households \\
          --random-order --out swapped.csv
    """
    refuse_alone(("missing_values", "--bin", bool(bins), "it keeps these codes out of the bands"))
    if log_file is not None:
        _check_log_path(log_file, file, out_file)
    if renumber_households and return_swapped_id:
        raise click.UsageError(
            "--return-swapped-id appends the partners' original household ids, which "
            "--renumber-households hides; leave out one of them"
        )
    options = _swap_options(hierarchy, similar, risk_variables, carry_along, checked)
    data = read_input(file, out=out_file, sep=sep, encoding=encoding)
    data = apply_bins(data, bins, parse_missing_values(missing_values))
    announce_compile("swapping")
    levels = options["hierarchy"]
    progress = None
    if len(data) > PROGRESS_ROWS and sys.stderr.isatty():
        from rich.progress import Progress

        from microsdc.cli._common import progress_columns

        progress = Progress(
            *progress_columns("swapping"), console=console(stderr=True), transient=True
        )
    kwargs: dict[str, Any] = {
        "similar": options["similar"],
        "swaprate": swaprate,
        "risk_threshold": risk_threshold,
        "k_anonymity": k_anonymity,
        "risk_variables": options["risk_variables"],
        "carry_along": options["carry_along"],
        "return_swapped_id": return_swapped_id,
        "seed": seed,
        "checked_columns": options["checked"],
    }
    if renumber_households:  # the ids are replaced: their order may follow the geography
        kwargs["checked_columns"] = [*(options["checked"] or []), hid]
    with _private_log(log_file) as tmp_log:
        kwargs["log_file_name"] = tmp_log
        with report_warnings():
            result = _swap_with_progress(data, hid, levels, kwargs, progress)
        released = result.data
        if renumber_households:
            from microsdc.swapping import renumber_households as renumber
            from microsdc.swapping.apply import renumbering_generator

            released = renumber(released, hid, renumbering_generator(seed))
        _publish(released, out_file, log_file, tmp_log, (encoding, file, sep, random_order))
    from microsdc.report.console import render_swap_summary

    out = console()
    out.print(render_swap_summary(result))
    note = swap_rate_note(
        result.n_swapped_households,
        result.n_households,
        swaprate,
        int(result.counts_per_level["households_at_risk"].sum()),
        k_anonymity,
        [str(c) for c in options["risk_variables"]],
    )
    from rich.markup import escape

    if note:
        out.print(f"[bold]Note:[/bold] {escape(note)}")
    done = [
        *(["households renumbered 1 to n at random"] if renumber_households else []),
        *(["records in random order"] if random_order else []),
    ]
    how = f" ({'; '.join(done)})" if done else ""
    out.print(f"Wrote {count(len(result.data), 'row')} to {escape(str(out_file))}{how}.")
    if log_file and result.n_no_donor:
        out.print(f"Households without a donor listed in {escape(str(log_file))}.")
    elif log_file:
        import os

        older = " (the file there is from an earlier run)" if os.path.exists(log_file) else ""
        out.print(
            f"Every sampled household found a donor: {escape(str(log_file))} not written{older}."
        )


@click.command("synth")
@click.option(
    "--households",
    "n_households",
    type=int,
    default=10000,
    show_default=True,
    help="Number of households.",
)
@click.option("--seed", type=int, default=None, help="Seed.")
@out_option
@user_errors
def synth(n_households: int, seed: int | None, out_file: str) -> None:
    """Write a synthetic census: persons in households in a nuts1 > nuts2 > nuts3 > lau2
    geography (distributions of sdcMicro's createDat)."""
    from microsdc.datasets import synthetic_census
    from microsdc.io import check_output_path

    check_output_path(out_file)
    data = synthetic_census(n_households, seed=seed)
    write_output(data, out_file)
    click.echo(f"Wrote {n_households:,} households ({len(data):,} persons) to {out_file}.")
    click.echo(
        "Geography nuts1 > nuts2 > nuts3 > lau2: columns below the --hierarchy of a swap "
        "move with it (for example --hierarchy nuts1,nuts2,nuts3 --carry-along lau2)."
    )
