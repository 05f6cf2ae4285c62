"""``microsdc microaggregate`` and ``microsdc noise``: continuous variables of a file."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import click

from microsdc.cli._common import (
    announce_compile,
    console,
    count,
    encoding_option,
    file_argument,
    library_option,
    on_columns,
    out_option,
    parse_list,
    random_order_option,
    read_input,
    refuse_alone,
    seed_option,
    sep_option,
    stacked,
    user_errors,
    write_output,
)
from microsdc.microaggregation import microaggregate as microaggregate_records
from microsdc.microaggregation.core import MEASURES, N_GROUPS
from microsdc.microaggregation.groups import METHODS
from microsdc.noise import add_noise
from microsdc.noise.core import NOISE_METHODS

__all__ = ["microaggregate", "noise"]

#: FILE and the numeric columns a command releases from it.
_numeric_columns = stacked(
    file_argument,
    click.option("--vars", "columns", required=True, help="Numeric columns: income,expend."),
)
#: Where and how the released file is written.
_released_file = stacked(random_order_option, out_option, sep_option, encoding_option)


def _measures(original: Any, released: Any, cols: list[str]) -> Any:
    from rich.table import Table

    from microsdc.utility.continuous import continuous_utility, linkage_risk

    u = continuous_utility(original, released, cols)
    linked = linkage_risk(original, released, cols)
    table = Table(title="Risk and utility", title_justify="left")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("records linked to their original (nearest neighbour)", f"{linked.mean():.1%}")
    table.add_row("IL1s per cell (0 = unchanged)", f"{u.il1s_per_cell:.4f}")
    table.add_row("SSE/SST (0 = unchanged, 1 = all values at the mean)", f"{u.sse_sst:.4f}")
    table.add_row("eigenvalue measure (0 = correlations unchanged)", f"{u.eigen:.4f}")
    return table


def _release(
    data: Any,
    released: Any,
    cols: list[str],
    shown: Any,
    where: tuple[str, str, str | None, str | None, bool],
) -> None:
    """Write ``released`` (``where``: FILE, --out, --sep, --encoding, --random-order), then
    print ``shown`` (what the method did), the risk and utility measures of ``cols``
    against ``data`` and the rows written."""
    from rich.markup import escape

    file, out_file, sep, encoding, random_order = where
    write_output(released, out_file, encoding, source=file, sep=sep, random_order=random_order)
    out = console()
    out.print(shown)
    out.print(_measures(data, released, cols))
    out.print(f"Wrote {count(len(released), 'row')} to {escape(str(out_file))}.")


@click.command("microaggregate")
@_numeric_columns
@library_option(
    microaggregate_records,
    "k",
    "-k",
    type=int,
    help="Least number of records behind each released value.",
)
@library_option(
    microaggregate_records,
    "method",
    "--method",
    type=click.Choice(METHODS),
    help="mdav: groups of similar records on all columns; individual, optimal, quantile: "
    "each column on its own (quantile: --groups equal groups, 'decile means').",
)
@library_option(
    microaggregate_records,
    "measure",
    "--measure",
    type=click.Choice(MEASURES),
    help="What replaces a group's values.",
)
@click.option("--strata", default=None, help="Strata columns: groups never mix strata.")
@click.option("--weight", "weights", default=None, help="Weight column: weighted means.")
@click.option(
    "--groups",
    "n_groups",
    type=int,
    default=N_GROUPS,
    show_default=True,
    help="Number of groups of --method quantile.",
)
@_released_file
@user_errors
def microaggregate(
    file: str,
    columns: str,
    k: int,
    method: str,
    measure: str,
    strata: str | None,
    weights: str | None,
    n_groups: int,
    random_order: bool,
    out_file: str,
    sep: str | None,
    encoding: str | None,
) -> None:
    """Microaggregate numeric columns of FILE: each value becomes the mean of k or more.

    Prints the guarantee checked, the information loss and the share of records an
    intruder holding the original values still links to them.
    """
    refuse_alone(
        ("n_groups", "--method quantile", method == "quantile", "only it forms groups by number")
    )
    data = read_input(file, out=out_file, sep=sep, encoding=encoding, weights=weights)
    announce_compile("microaggregation")
    cols, res = on_columns(
        microaggregate_records,
        data,
        columns,
        k=k,
        method=method,
        measure=measure,
        strata=strata,
        weights=weights,
        n_groups=n_groups if method == "quantile" else None,
    )
    _release(data, res.data, cols, res.summary(), (file, out_file, sep, encoding, random_order))


@click.command("noise")
@_numeric_columns
@library_option(
    add_noise,
    "method",
    "--method",
    type=click.Choice(NOISE_METHODS),
    help="additive, correlated (correlations kept), multiplicative (non-negative amounts), "
    "outliers (only values far from the median).",
)
@library_option(
    add_noise,
    "relative_sd",
    "--relative-sd",
    type=float,
    help="The noise's sd as a fraction of the column's (0.1 = a tenth of an sd; sdcMicro's "
    "noise=150 is 1.5).",
)
@click.option(
    "--keep-covariance", is_flag=True, help="With --method correlated: keep the covariance exactly."
)
@click.option("--lower", type=float, default=None, help="Lowest released value (0: non-negative).")
@click.option("--upper", type=float, default=None, help="Highest released value.")
@click.option(
    "--total",
    "totals",
    multiple=True,
    help="An aggregate recomputed from noisy components: income=wage,pension (repeatable).",
)
@click.option("--weight", "weights", default=None, help="Weight column.")
@seed_option
@_released_file
@user_errors
def noise(
    file: str,
    columns: str,
    method: str,
    relative_sd: float,
    keep_covariance: bool,
    lower: float | None,
    upper: float | None,
    totals: tuple[str, ...],
    weights: str | None,
    seed: int | None,
    random_order: bool,
    out_file: str,
    sep: str | None,
    encoding: str | None,
) -> None:
    """Add noise to numeric columns of FILE.

    Prints the realised noise per column and what is left of the risk.
    """
    from microsdc.cli._common import split_name_value

    aggregates: dict[Hashable, Sequence[Hashable]] = {}
    for spec in totals:
        name, parts, has = split_name_value(spec, "--total")
        if not has or not name or not parse_list(parts, "--total"):
            raise click.UsageError(
                f"--total expects AGGREGATE=COMPONENT,COMPONENT (e.g. income=wage,pension); "
                f"got {spec!r}"
            )
        aggregates[name] = parse_list(parts, "--total")
    data = read_input(file, out=out_file, sep=sep, encoding=encoding, weights=weights)
    cols, res = on_columns(
        add_noise,
        data,
        columns,
        method=method,
        relative_sd=relative_sd,
        keep_covariance=keep_covariance,
        lower=lower,
        upper=upper,
        totals=aggregates or None,
        weights=weights,
        seed=seed,
    )
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"Noise ({method})", title_justify="left")
    for name in ("column", "noise sd", "relative sd", "signal/noise", "mean before", "mean after"):
        table.add_column(name, justify="left" if name == "column" else "right")
    for col, row in res.figures.iterrows():
        table.add_row(
            escape(str(col)),
            f"{row['noise_sd']:,.4g}",
            f"{row['relative_sd']:.3f}",
            f"{row['signal_to_noise']:,.1f}",
            f"{row['mean_before']:,.4g}",
            f"{row['mean_after']:,.4g}",
        )
    _release(data, res.data, cols, table, (file, out_file, sep, encoding, random_order))
