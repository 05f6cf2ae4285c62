"""``microsdc demo``: the main job on data shipped with microsdc."""

from __future__ import annotations

import click

from microsdc.cli._common import console, user_errors


@click.command()
@click.option(
    "-k", "k", type=click.IntRange(min=1), default=3, show_default=True, help="k of k-anonymity."
)
@user_errors
def demo(k: int) -> None:
    """Measure re-identification risk on a sample of the Adult data shipped with microsdc.

    10,000 records of the 1994 US Current Population Survey extract (UCI
    "Adult", CC BY 4.0); age is put in 5-year bands; missing workclass,
    occupation and native-country values count as wildcards.
    """
    import numpy as np
    from rich.table import Table

    from microsdc.datasets import ADULT_QUASI_IDENTIFIERS, load_adult
    from microsdc.risk.kanonymity import sample_frequencies

    df = load_adult()
    band = (df["age"] // 5) * 5
    df = df.assign(age=band.astype(str) + "-" + (band + 4).astype(str))
    qi = ADULT_QUASI_IDENTIFIERS
    con = console()
    con.print(
        f"[bold]Adult sample[/bold] (10,000 records, UCI Adult, CC BY 4.0): "
        f"quasi-identifiers {', '.join(qi)}; age in 5-year bands."
    )
    out = sample_frequencies(df, qi, weights="fnlwgt")
    table = Table(
        title="Records at risk (fk < k), missing values as wildcards", title_justify="left"
    )
    table.add_column("k", justify="right")
    table.add_column("records at risk", justify="right")
    table.add_column("share", justify="right")
    for kk in sorted({2, 3, 5, k}):
        n = int(np.count_nonzero(out["fk"] < kk))
        table.add_row(str(kk), f"{n:,}", f"{n / len(out):.1%}")
    con.print(table)
