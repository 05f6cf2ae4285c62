"""``microsdc risk``: rows at risk and the riskiest key combinations of a file."""

from __future__ import annotations

import os
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
from microsdc.cli._engine import engine_option, table_option

DEFAULT_KS = (2, 3, 5)


@click.command()
@click.argument("file", type=click.Path())
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
@engine_option
@table_option
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
    engine: str = "pandas",
    db_table: str | None = None,
) -> None:
    """Rows at risk (fk < k) for k = 2, 3, 5 and -k, and the riskiest key combinations.

    FILE is a CSV, Parquet, SPSS (.sav) or Stata (.dta) file. A missing
    quasi-identifier value matches any value (policy "wildcard") unless
    --missing says otherwise.

    \b
    Example:
      microsdc risk survey.csv --qi age_band,sex,region -k 3 --weight w
      microsdc risk 'big/*.parquet' --qi age,sex,region --engine duckdb --out fk.parquet
    """
    import numpy as np
    from rich.table import Table

    from microsdc.encode import encode_qis
    from microsdc.risk._policy import parse_policy
    from microsdc.risk.kanonymity import _summary, _weights, frequencies_from_codes

    qis = parse_list(qi)
    policy = parse_policy(policy_value(missing), "microsdc risk")
    ks = sorted({*DEFAULT_KS, k})
    if engine != "pandas":
        _risk_lazy(file, engine, db_table, qis, k, ks, missing, weight, missing_values, top, out)
        return
    if os.path.isdir(file) or "*" in file:
        raise click.UsageError(
            f"{file} is a folder or glob: read it with --engine duckdb (or polars)"
        )
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
        summary = _summary(enc, res, k)
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


def _risk_lazy(
    file: str,
    engine: str,
    db_table: str | None,
    qis: list[str],
    k: int,
    ks: list[int],
    missing: str,
    weight: str | None,
    missing_values: str | None,
    top: int,
    out: str | None,
) -> None:
    """The risk command on a lazy engine: counts per k and the riskiest combinations."""
    from rich.table import Table

    from microsdc.backends.frequencies import to_pandas
    from microsdc.cli._engine import check_lazy_output, open_lazy, write_lazy
    from microsdc.risk.kanonymity import check_k_anonymity, sample_frequencies

    if out is not None:
        from microsdc.io import check_output_path

        check_lazy_output(out)
        check_output_path(out, file)
    frame = open_lazy(file, engine, db_table)
    mv = parse_missing_values(missing_values)
    kw: dict[str, Any] = {"missing": policy_value(missing), "weights": weight, "missing_values": mv}
    with progress("microsdc risk") as bar, report_warnings():
        task = bar.add_task(f"grouping by the key variables ({engine})", total=None)
        summary: Any = check_k_anonymity(frame, qis, k, **kw)[1]
        bar.update(task, completed=1)
    s = to_pandas(summary)
    counts, fk = s["count"].to_numpy(), s["fk"].to_numpy()
    head = s.iloc[:top]
    n = int(counts.sum())
    con = console()
    con.print(
        f"[bold]{file}[/bold] ({engine}): {n:,} records, {len(s):,} distinct key combinations, "
        f"{len(qis)} quasi-identifier{'' if len(qis) == 1 else 's'} ({', '.join(qis)})"
    )
    t = Table(title="Records at risk (fk < k)", title_justify="left")
    for c, j in (("k", "right"), ("records at risk", "right"), ("share", "right")):
        t.add_column(c, justify=j)  # type: ignore[arg-type]
    for kk in ks:
        at = int(counts[fk < kk].sum())
        t.add_row(
            str(kk), f"{at:,}", f"{(at / n if n else 0):.2%}", style="bold" if kk == k else None
        )
    con.print(t)
    if top and n:
        t2 = Table(title=f"The {len(head)} riskiest key combinations", title_justify="left")
        for c in [*qis, "records", "fk"]:
            t2.add_column(c)
        for row in head.itertuples(index=False):
            values = list(row)
            cells = ["." if _isna(v) else str(v) for v in values[: len(qis)]]
            t2.add_row(*cells, f"{values[len(qis)]:,}", _fmt(values[len(qis) + 1]))
        con.print(t2)
    if out:
        with progress("microsdc risk") as bar:
            task = bar.add_task(f"writing {out} ({engine})", total=None)
            write_lazy(sample_frequencies(frame, qis, k=k, **kw), out)
            bar.update(task, completed=1)
        con.print(f"Wrote {out} ({n:,} rows, columns fk and at_risk appended).")


def _isna(v: Any) -> bool:
    import pandas as pd

    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def _fmt(v: Any) -> str:
    f = float(v)
    return f"{int(f):,}" if f.is_integer() else f"{f:,.2f}"
