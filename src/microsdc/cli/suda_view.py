"""``microsdc risk --suda``: special uniques (SUDA2) of a file, as console tables."""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import click

__all__ = ["DIS_SUDA_BINS", "SudaRequest", "print_suda", "run_suda", "suda_options", "suda_rule"]

#: the DIS-SUDA intervals of sdcMicro's print method for suda2
DIS_SUDA_BINS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


@dataclass(frozen=True)
class SudaRequest:
    """What ``--suda`` and its options ask for."""

    suda_missing: str | None
    max_msu: int | None
    dis_fraction: float


def suda_options(func: Any) -> Any:
    """The options of ``microsdc risk`` that ask for special uniques; the command gets
    them as one ``suda`` argument (a :class:`SudaRequest`, None without ``--suda``)."""

    @functools.wraps(func)
    def command(
        *args: Any,
        suda_flag: bool = False,
        max_msu: int | None = None,
        dis_fraction: float = 0.01,
        suda_missing: str | None = None,
        **kwargs: Any,
    ) -> Any:
        if not suda_flag:
            given = [
                option
                for option, name in (
                    ("--max-msu", "max_msu"),
                    ("--dis-fraction", "dis_fraction"),
                    ("--suda-missing", "suda_missing"),
                )
                if click.get_current_context().get_parameter_source(name)
                is click.core.ParameterSource.COMMANDLINE
            ]
            if given:
                one = len(given) == 1
                raise click.UsageError(
                    f"{' and '.join(given)} {'applies' if one else 'apply'} only to the "
                    f"special uniques: add --suda (or leave {'it' if one else 'them'} out)"
                )
        request = SudaRequest(suda_missing, max_msu, dis_fraction) if suda_flag else None
        if request is not None and kwargs.get("engine", "pandas") != "pandas":
            raise click.UsageError("--suda needs the records in memory: use --engine pandas")
        return func(*args, suda=request, **kwargs)

    options = [
        click.option(
            "--suda",
            "suda_flag",
            is_flag=True,
            default=False,
            help="Also find the special uniques (SUDA2): SUDA and DIS-SUDA scores, the "
            "riskiest records with their minimal sample uniques, variable contributions.",
        ),
        click.option(
            "--max-msu",
            "max_msu",
            type=click.IntRange(min=1),
            default=None,
            help="With --suda: largest MSU size searched (all key variables by default).",
        ),
        click.option(
            "--dis-fraction",
            "dis_fraction",
            type=click.FloatRange(0.0, 1.0, min_open=True, max_open=True),
            default=0.01,
            show_default=True,
            help="With --suda: sampling fraction of the DIS value.",
        ),
        click.option(
            "--suda-missing",
            "suda_missing",
            type=click.Choice(["wildcard", "category", "sdcmicro"]),
            default=None,
            help="With --suda: how a missing value counts in the MSU search (default: as "
            "--missing; 'sdcmicro' matches nothing, as sdcMicro's suda2).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def run_suda(
    df: Any,
    qis: list[Any],
    request: SudaRequest | None,
    policy_kind: str,
    missing_values: Any,
    out_columns: Sequence[Any],
) -> Any:
    """:func:`microsdc.risk.suda.suda` as asked (None without ``--suda``); refuses
    ``--out`` when the data already hold a ``suda`` or ``dis_suda`` column."""
    if request is None:
        return None
    from microsdc.risk.suda import suda

    rule = suda_rule(request.suda_missing, policy_kind)
    clash = [c for c in ("suda", "dis_suda") if c in out_columns]
    if clash:
        raise click.UsageError(
            f"the input already has column(s) {', '.join(clash)}; rename them before --out"
        )
    return suda(
        df,
        qis,
        max_msu=request.max_msu,
        dis_fraction=request.dis_fraction,
        missing=rule,  # type: ignore[arg-type]
        missing_values=missing_values,
    )


def suda_rule(suda_missing: str | None, policy_kind: str) -> str:
    """The MSU rule: ``--suda-missing``, else the one that ``--missing`` implies.

    Under alpha > 0 and "probabilistic" a record is unique exactly when it is unique
    with missing values as wildcards."""
    if suda_missing is not None:
        return suda_missing
    if policy_kind in ("wildcard", "category"):
        return policy_kind
    if policy_kind in ("alpha", "probabilistic"):
        return "wildcard"
    raise click.UsageError(
        f"--suda cannot count missing values as {policy_kind!r}: give --suda-missing "
        "wildcard, category or sdcmicro"
    )


def print_suda(con: Any, res: Any, top: int) -> dict[str, Any]:
    """The DIS value, the DIS-SUDA distribution, the ``top`` riskiest records with their
    MSUs and the variable contributions, each with one sentence saying what it means.

    Returns the columns ``--out`` appends (none without ``--suda``)."""
    if res is None:
        return {}
    from rich.markup import escape

    from microsdc.cli._common import count

    scores = res.scores
    n_scored = int((scores["suda"] > 0).sum())
    dis = res.dis if isinstance(res.dis, float) else None
    dis_text = f"DIS {dis:.4f}" if dis is not None else "DIS per stratum"
    con.print(
        f"\n[bold]Special uniques (SUDA2)[/bold], missing values {escape(res.missing)}, "
        f"MSUs of up to {res.max_msu} values: {count(n_scored, 'record')} with a minimal "
        f"sample unique; {dis_text} ({res.n_sample_uniques:,} sample uniques, "
        f"{res.n_pairs:,} records in pairs)."
    )
    con.print(_distribution(scores["dis_suda"]))
    if top and n_scored:
        con.print(_top_records(res, top))
        con.print(
            "[dim]An MSU is a set of a record's values that no other record shares, "
            "while every smaller part of it is shared.[/dim]"
        )
    if n_scored:
        con.print(_contributions(res))
        con.print(
            "[dim]contribution: the variable's share of the total SUDA score (each MSU's "
            "score split among its variables): recode these first.[/dim]"
        )
    return {
        "suda": scores["suda"].to_numpy(),
        "dis_suda": scores["dis_suda"].to_numpy(),
    }


def _distribution(dis_suda: Any) -> Any:
    import numpy as np
    from rich.table import Table

    values = dis_suda.to_numpy()
    table = Table(title="DIS-SUDA scores", title_justify="left")
    table.add_column("interval")
    table.add_column("records", justify="right")
    eps = np.finfo(float).eps
    edges = [b + eps for b in DIS_SUDA_BINS]
    table.add_row("== 0", f"{int((values <= edges[0]).sum()):,}")
    for lo, hi, lo_e, hi_e in zip(DIS_SUDA_BINS, DIS_SUDA_BINS[1:], edges, edges[1:], strict=False):
        n = int(((values > lo_e) & (values <= hi_e)).sum())
        table.add_row(f"({lo:.1f}, {hi:.1f}]", f"{n:,}")
    table.add_row(f"> {DIS_SUDA_BINS[-1]:.1f}", f"{int((values > edges[-1]).sum()):,}")
    return table


def _msu_text(msu: dict[Hashable, Any]) -> str:
    from rich.markup import escape

    return "{" + ", ".join(f"{escape(str(k))}={escape(str(v))}" for k, v in msu.items()) + "}"


def _top_records(res: Any, top: int) -> Any:
    from rich.table import Table

    scores = res.scores
    order = scores.sort_values(["dis_suda", "suda"], ascending=False, kind="stable")
    chosen = order[order["suda"] > 0].head(top)
    listed = res.list_msus(list(chosen.index)) if res.scores.index.is_unique else {}
    table = Table(title=f"The {len(chosen)} riskiest records", title_justify="left")
    for name in ("row", "SUDA", "DIS-SUDA"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("minimal sample uniques", overflow="fold", ratio=1)
    for label, row in chosen.iterrows():
        msus = listed.get(label)
        text = ", ".join(_msu_text(u) for u in msus) if msus is not None else ""
        table.add_row(str(label), f"{row['suda']:g}", f"{row['dis_suda']:.4f}", text)
    return table


def _contributions(res: Any) -> Any:
    from rich.markup import escape
    from rich.table import Table

    vc = res.variable_contributions.sort_values("contribution", ascending=False)
    table = Table(title="Variable contributions to the SUDA score", title_justify="left")
    table.add_column("variable")
    for name in ("contribution", "in MSUs", "MSUs"):
        table.add_column(name, justify="right")
    for name, row in vc.iterrows():
        table.add_row(
            escape(str(name)),
            f"{row['contribution']:.1f} %",
            f"{row['in_msus']:.1f} %",
            f"{int(row['n_msus']):,}",
        )
    return table
