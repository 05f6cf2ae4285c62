"""``microsdc pram``: post-randomise categorical variables of a file."""

from __future__ import annotations

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
    parse_list,
    random_order_option,
    seed_option,
    sep_option,
    user_errors,
    write_output,
)
from microsdc.cli._engine import (
    engine_option,
    open_input,
    refuse_on_engine,
    table_option,
    write_frame,
)
from microsdc.postrandomisation import pram as pram_records
from microsdc.postrandomisation.params import MISSING

__all__ = ["pram"]


def _groups(value: str | None) -> list[list[str]] | None:
    """``"roof,walls;water,toilet"`` -> ``[["roof", "walls"], ["water", "toilet"]]``."""
    if not value:
        return None
    return [parse_list(part, "--together") for part in value.split(";") if part.strip()]


def _label(value: Any) -> str:
    """A category as text: a group's combination as 'a | b', a missing value as ''."""
    import pandas as pd

    if isinstance(value, tuple):
        return " | ".join(_label(v) for v in value)
    return "" if pd.isna(value) else str(value)


def _matrices_frame(result: Any) -> Any:
    """Every transition matrix as one long table: variables, strata, from, to, probability."""
    import numpy as np
    import pandas as pd

    parts = []
    for m in result.matrices:
        labels = [_label(v) for v in m.matrix.index]
        n_cat = len(labels)
        long = pd.DataFrame(
            {
                "variables": " + ".join(map(str, m.variables)),
                **{
                    str(c): [v] * n_cat * n_cat
                    for c, v in zip(result.strata, m.stratum, strict=True)
                },
                "from": np.repeat(labels, n_cat),
                "to": np.tile(labels, n_cat),
                "probability": m.matrix.to_numpy().ravel(),
            }
        )
        parts.append(long)
    return pd.concat(parts, ignore_index=True)


@click.command("pram")
@file_argument
@click.option("--vars", "columns", required=True, help="Categorical columns to PRAM: roof,water.")
@click.option("--strata", default=None, help="Strata columns: each gets its own matrices.")
@click.option(
    "--hid",
    default=None,
    help="Household id column: PRAM household-level variables by household (one draw per "
    "household, given to every member; matrices from household counts).",
)
@library_option(
    pram_records,
    "pd",
    "--pd",
    type=click.FloatRange(0, 1),
    help="Lowest probability of keeping a category before the invariance step (sdcMicro's pd).",
)
@library_option(
    pram_records,
    "alpha",
    "--alpha",
    type=click.FloatRange(0, 1),
    help="Weight of the invariant matrix against no change (sdcMicro's alpha).",
)
@click.option(
    "--together",
    default=None,
    help="Columns PRAMmed jointly, ';' between groups: 'roof,walls'. A record never gets a "
    "combination the data lacks.",
)
@click.option(
    "--neighbours",
    default=None,
    help="Ordered columns that move only to the next category up or down: age_band.",
)
@library_option(
    pram_records,
    "missing",
    "--missing",
    type=click.Choice(MISSING),
    help="keep: missing values stay missing; state: 'missing' is PRAMmed like a category.",
)
@seed_option
@click.option(
    "--matrices",
    "matrices_file",
    default=None,
    help="Write every transition matrix here (.csv or .parquet). They give back each "
    "stratum's category counts: publish them only where those tables may be published.",
)
@random_order_option
@click.option(
    "--out",
    "out_file",
    required=True,
    help="Output file (.csv, .parquet, ...; with --engine, a .parquet file the engine writes).",
)
@engine_option
@table_option
@sep_option
@encoding_option
@user_errors
def pram(
    file: str,
    columns: str,
    strata: str | None,
    hid: str | None,
    pd: float,
    alpha: float,
    together: str | None,
    neighbours: str | None,
    missing: str,
    seed: int | None,
    matrices_file: str | None,
    random_order: bool,
    out_file: str,
    engine: str,
    db_table: str | None,
    sep: str | None,
    encoding: str | None,
) -> None:
    """PRAM categorical variables of FILE (post-randomisation, invariant as sdcMicro's pram).

    Each record's category is released as a draw from a transition matrix that leaves
    the expected frequencies unchanged, within each stratum; records never move to
    another stratum. With --hid, each household is one unit: its members keep one
    value. Prints, per variable, the records (or households) changed and the lowest
    probability of keeping a category. PRAM protects by uncertainty, not by k.

    With --engine duckdb, polars or spark the rows stay in the engine: it counts the
    categories, draws each record's new category itself (the same values as pandas for
    the same seed) and writes the Parquet file.

    \b
    Example:
      microsdc pram 'survey/*.parquet' --vars roof,water --strata region --seed 7 \\
        --engine duckdb --out released.parquet
    """
    if matrices_file is not None:
        from microsdc.io.write import same_file

        for other, what in ((file, "the input file"), (out_file, "the --out file")):
            if same_file(matrices_file, other):
                raise click.UsageError(
                    f"--matrices {matrices_file} is {what}; the matrices go to a file of their own"
                )
    refuse_on_engine("pram", engine, file, db_table, {"random_order": random_order, "hid": hid})
    data = open_input(file, engine, db_table, out=out_file, sep=sep, encoding=encoding)
    announce_compile("pram")
    ordered = parse_list(neighbours, "--neighbours")
    _, result = on_columns(
        pram_records,
        data,
        columns,
        pd=pd,
        alpha=alpha,
        strata=strata,
        hid=hid or None,
        together=_groups(together),
        allowed={c: "neighbours" for c in ordered} or None,
        missing=missing,
        seed=seed,
    )
    release: dict[str, Any] = {"source": file, "sep": sep, "random_order": random_order}
    write_frame(result.data, out_file, engine, "microsdc pram", encoding=encoding, **release)
    if matrices_file:
        write_output(_matrices_frame(result), matrices_file, encoding, source=file, sep=sep)
    _print_summary(result, out_file, matrices_file, engine)


def _print_summary(
    result: Any, out_file: str, matrices_file: str | None, engine: str = "pandas"
) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="PRAM", title_justify="left")
    units = "records" if result.hid is None else "households"
    for name in ("variables", units, "changed", "change rate", "lowest keep", "max |pR-p|"):
        table.add_column(name, justify="left" if name == "variables" else "right")
    for row in result.summary().itertuples(index=False):
        table.add_row(
            escape(str(row.variables)),
            f"{row.records:,}",
            f"{row.changed:,}",
            f"{row.change_rate:.1%}",
            f"{row.diagonal_min:.3f}",
            f"{row.invariance_error:.1e}",
        )
    out = console()
    out.print(table)
    out.print(
        "PRAM protects by uncertainty: an intruder cannot tell whether a released category "
        "is the true one. It does not make combinations k-anonymous."
    )
    if engine == "pandas":
        out.print(f"Wrote {count(len(result.data), 'row')} to {escape(str(out_file))}.")
    else:
        out.print(f"Wrote {escape(str(out_file))} ({engine}; the rows stayed in the engine).")
    if matrices_file:
        out.print(f"Transition matrices in {escape(str(matrices_file))}.")
