"""``microsdc risk``: rows at risk and the riskiest key combinations of a file."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import click

from microsdc.cli._common import (
    console,
    missing_option,
    missing_values_option,
    parse_list,
    parse_missing_values,
    policy_value,
    progress,
    qi_option,
    read_input,
    report_warnings,
    user_errors,
    write_output,
)

DEFAULT_KS = (2, 3, 5)


@click.command()
@click.argument("file", type=click.Path(dir_okay=False))
@qi_option
@click.option(
    "-k",
    "k",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="k of k-anonymity: a record is at risk when fk < k.",
)
@missing_option
@click.option("--weight", "weight", default=None, help="Sampling weight column (gives Fk).")
@missing_values_option
@click.option(
    "--top",
    "top",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="How many of the riskiest key combinations to list.",
)
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the data with fk (Fk) and at_risk columns appended.",
)
@user_errors
def risk(
    file: str,
    qi: str,
    k: int,
    missing: str,
    weight: str | None,
    missing_values: str | None,
    top: int,
    out: str | None,
) -> None:
    """Rows at risk (fk < k) for k = 2, 3, 5 and -k, and the riskiest key combinations.

    FILE is a CSV, Parquet, SPSS (.sav) or Stata (.dta) file. A missing
    quasi-identifier value matches any value (policy "wildcard") unless
    --missing says otherwise.

    \b
    Example:
      microsdc risk survey.csv --qi age_band,sex,region -k 3 --weight w
    """
    import numpy as np
    from rich.table import Table

    from microsdc.encode import encode_qis
    from microsdc.risk._policy import parse_policy
    from microsdc.risk.kanonymity import _summary, _weights, frequencies_from_codes

    qis = parse_list(qi)
    policy = parse_policy(policy_value(missing), "microsdc risk")
    ks = sorted({*DEFAULT_KS, k})
    with progress("microsdc risk") as bar, report_warnings():
        task = bar.add_task("reading", total=3)
        usecols = None if out else list(dict.fromkeys([*qis, *([weight] if weight else [])]))
        df = read_input(file, columns=usecols, out=out)
        bar.update(task, advance=1, description="encoding")
        enc = encode_qis(
            df, qis, missing_values=parse_missing_values(missing_values), func="microsdc risk"
        )
        w = _weights(df, weight, "microsdc risk") if weight else None
        bar.update(task, advance=1, description="counting")
        res = frequencies_from_codes(enc.codes, enc.n_categories, policy=policy, weights=w)
        bar.update(task, advance=1)
    fk = res.row_fk
    n = len(fk)
    con = console()
    con.print(
        f"[bold]{file}[/bold]: {n:,} records, {len(qis)} quasi-identifier"
        f"{'' if len(qis) == 1 else 's'} "
        f"({', '.join(map(str, qis))}), missing values as [italic]{policy.label}[/italic]"
    )
    table = Table(title="Records at risk (fk < k)", title_justify="left")
    table.add_column("k", justify="right")
    table.add_column("records at risk", justify="right")
    table.add_column("share", justify="right")
    for kk in ks:
        at = int(np.count_nonzero(fk < kk))
        style = "bold" if kk == k else None
        table.add_row(str(kk), f"{at:,}", f"{(at / n if n else 0):.2%}", style=style)
    con.print(table)
    if top and n:
        # positions as column names: a QI called "fk" or "count" cannot clash with the counts
        summary = _summary(replace(enc, columns=list(range(len(enc.columns)))), res, k)
        if res.Fk is not None:  # among equal fk, the smallest estimated population first
            summary = summary.sort_values(["fk", "Fk"], kind="stable")
        summary = summary.head(top)
        t2 = Table(title=f"The {len(summary)} riskiest key combinations", title_justify="left")
        for c in enc.columns:
            t2.add_column(str(c))
        t2.add_column("records", justify="right")
        t2.add_column("fk", justify="right")
        if res.Fk is not None:
            t2.add_column("Fk", justify="right")
        for row in summary.itertuples(index=False):
            values = list(row)
            cells = ["." if _isna(v) else str(v) for v in values[: len(enc.columns)]]
            cells += [f"{values[len(enc.columns)]:,}", _fmt(values[len(enc.columns) + 1])]
            if res.Fk is not None:
                cells.append(f"{values[len(enc.columns) + 2]:,.1f}")
            t2.add_row(*cells)
        con.print(t2)
        if policy.kind != "category" and (enc.codes < 0).any():
            con.print("[dim]'.' = missing value (matches any value).[/dim]")
        elif (enc.codes < 0).any():
            con.print("[dim]'.' = missing value (a category of its own).[/dim]")
    if out:
        added = {"fk": fk, "at_risk": fk < k}
        if res.row_Fk is not None:
            added = {"fk": fk, "Fk": res.row_Fk, "at_risk": fk < k}
        clash = [c for c in added if c in df.columns]
        if clash:
            raise click.UsageError(
                f"the input already has column(s) {', '.join(clash)}; rename them before --out"
            )
        write_output(df.assign(**added), out)
        con.print(f"Wrote {out} ({n:,} rows, columns {', '.join(added)} appended).")


def _isna(v: Any) -> bool:
    import pandas as pd

    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def _fmt(v: Any) -> str:
    f = float(v)
    return f"{int(f):,}" if f.is_integer() else f"{f:,.2f}"
