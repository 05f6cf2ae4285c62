"""``microsdc risk``: rows at risk and the riskiest key combinations of a file."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import click

from microsdc.cli._common import (
    announce_compile,
    apply_bins,
    bin_option,
    console,
    count,
    encoding_option,
    k_option,
    missing_option,
    missing_values_option,
    parse_bins,
    parse_missing_values,
    parse_qi,
    policy_value,
    progress,
    qi_option,
    read_input,
    report_warnings,
    sep_option,
    user_errors,
    write_output,
)
from microsdc.cli._engine import (
    bin_lazy,
    engine_option,
    needs_records,
    refuse_folder_or_glob,
    table_option,
)
from microsdc.cli.suda_view import SudaRequest, print_suda, run_suda, suda_options

DEFAULT_KS = (2, 3, 5)


@click.command()
@click.argument("file", type=click.Path())
@qi_option
@k_option("k of k-anonymity: a record is at risk when fk < k.")
@missing_option
@click.option("--weight", "weight", default=None, help="Sampling weight column (gives Fk).")
@click.option(
    "--hid",
    "hid",
    default=None,
    help="Household id column: adds the household risk, the risk that at least one member "
    "of a household is re-identified (as sdcMicro's measure_risk with hid).",
)
@bin_option
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
@suda_options
@sep_option
@encoding_option
@engine_option
@table_option
@user_errors
def risk(
    file: str,
    qi: str,
    k: int,
    missing: str,
    weight: str | None,
    hid: str | None,
    bins: tuple[str, ...],
    missing_values: str | None,
    top: int,
    out: str | None,
    sep: str | None,
    encoding: str | None,
    engine: str = "pandas",
    db_table: str | None = None,
    suda: SudaRequest | None = None,
) -> None:
    """Rows at risk (fk < k) for k = 2, 3, 5 and -k, and the riskiest key combinations.

    FILE is a CSV, Parquet, SPSS (.sav) or Stata (.dta) file. A missing
    quasi-identifier value matches any value (policy "wildcard") unless
    --missing says otherwise.

    With --hid, also the household risk: a household is re-identified when
    any of its members is, 1 - prod(1 - r) over the members' individual risks.

    \b
    Example:
      microsdc risk survey.csv --qi age_band,sex,region -k 3 --weight w
      microsdc risk survey.csv --qi age,sex,region --bin age=10 --hid hh --weight w
      microsdc risk 'big/*.parquet' --qi age,sex,region --engine duckdb --out fk.parquet
      microsdc risk survey.csv --qi age_band,sex,region,education --suda --max-msu 4
    """

    from microsdc._core.policy import parse_policy
    from microsdc._validation import check_weight_apart
    from microsdc.risk.frequencies import pattern_summary

    qis = parse_qi(qi)
    policy = parse_policy(policy_value(missing), "microsdc risk")
    check_weight_apart(weight, qis, "microsdc risk")
    _check_hid(hid, qis, weight, policy.kind, engine)
    ks = sorted({*DEFAULT_KS, k})
    announce_compile("risk")
    if engine != "pandas":
        _risk_lazy(
            file,
            engine,
            db_table,
            qis,
            k,
            ks,
            missing,
            policy.kind,
            weight,
            missing_values,
            top,
            out,
            sep,
            encoding,
            parse_bins(bins),
        )
        return
    refuse_folder_or_glob(file, db_table)
    mv = parse_missing_values(missing_values)
    df, enc, res, special = _count_in_memory(
        file, qis, (weight, hid, bins), mv, policy, suda, out, sep, encoding
    )
    fk = res.row_fk
    n = len(fk)
    # before anything is printed: a household id with a missing value stops the command
    household = None if hid is None else _household_risk(res, df[hid])
    from rich.markup import escape

    con = console()
    con.print(
        f"[bold]{escape(str(file))}[/bold]: {count(n, 'record')}, {len(qis)} quasi-identifier"
        f"{'' if len(qis) == 1 else 's'} "
        f"({escape(', '.join(map(str, qis)))}), missing values as "
        f"[italic]{policy.label}[/italic]"
    )
    riskiest = None
    if top and n:
        # positions as column names: a QI called "fk" or "count" cannot clash with the counts
        summary = pattern_summary(replace(enc, columns=list(range(len(enc.columns)))), res, k)
        if res.Fk is not None:  # among equal fk, the smallest estimated population first
            summary = summary.sort_values(["fk", "Fk"], kind="stable")
        riskiest = (summary.head(top), list(range(len(enc.columns))), list(enc.columns))
    _print_counts(con, fk, None, res.row_Fk, ks, k, policy.kind, weight, riskiest)
    if household is not None and hid is not None:
        con.print(_household_line(household, df[hid].nunique(), hid))
    con.print(_intruder_line(df, qis, k, enc if mv is None else None))
    suda_columns = print_suda(con, special, top)
    if out:
        if household is not None:
            suda_columns = {"household_risk": household, **suda_columns}
        _write_counts(con, df, res, k, suda_columns, (file, out, sep, encoding))


def _check_hid(
    hid: str | None, qis: list[str], weight: str | None, policy_kind: str, engine: str
) -> None:
    """``--hid`` names a column of its own, and goes with a risk that is defined."""
    if hid is None:
        return
    for option, names in (("--qi", qis), ("--weight", [weight] if weight else [])):
        if hid in names:
            raise click.UsageError(
                f"--hid {hid!r} is also named by {option}; the household id is a column of its "
                "own (leave it out of the key variables)"
            )
    if policy_kind == "alpha":
        raise click.UsageError(
            "--hid needs --missing wildcard, category, probabilistic or conservative: under an "
            "alpha the counts are fractional and the individual risk, which the household "
            "risk combines, is not defined"
        )
    if engine != "pandas":
        raise needs_records(engine, "--hid")


def _household_risk(res: Any, households: Any) -> Any:
    """The household risk of each record from the counts (sdcMicro's measure_risk)."""
    from microsdc.risk.individual import (
        household_risk_from_individual,
        risk_from_frequencies,
        whole_matches,
    )

    risk = risk_from_frequencies(whole_matches(res.row_fk), res.row_Fk)
    return household_risk_from_individual(risk, households)


def _household_line(household: Any, n_households: int, hid: str) -> str:
    """The household risk, as one line: expected persons in a re-identified household."""
    from rich.markup import escape

    from microsdc.report import format_percent

    n = len(household)
    er = float(household.sum())
    return (
        f"Household risk ({count(n_households, 'household')} in {escape(str(hid))}): "
        f"[bold]{er:,.1f}[/bold] persons expected in a household with a re-identified "
        f"member ([bold]{format_percent(er / n if n else 0.0, 2)}[/bold] of records); "
        f"highest household risk {float(household.max()) if n else 0.0:.2g}."
    )


def _count_in_memory(
    file: str,
    qis: list[str],
    columns: tuple[str | None, str | None, tuple[str, ...]],
    mv: list[Any] | None,
    policy: Any,
    suda: SudaRequest | None,
    out: str | None,
    sep: str | None,
    encoding: str | None,
) -> tuple[Any, Any, Any, Any]:
    """Read FILE (``columns``: the weight, household id and ``--bin`` values), band the
    ``--bin`` columns, encode the key variables and count them (with the special uniques
    when asked): the frame, its codes, the frequencies and the SUDA result."""
    from microsdc.encode import encode_qis
    from microsdc.risk.frequencies import frequencies_from_codes
    from microsdc.risk.kanonymity import _weights

    weight, hid, bins = columns
    banded = [name for name, _ in parse_bins(bins)]
    named = {
        "--qi": qis,
        "--weight": [weight] if weight else [],
        "--hid": [hid] if hid else [],
        "--bin": banded,
    }
    with progress("microsdc risk") as bar, report_warnings():
        task = bar.add_task("reading", total=3)
        usecols = None if out else list(dict.fromkeys(c for cols in named.values() for c in cols))
        df = read_input(
            file,
            columns=usecols,
            out=out,
            sep=sep,
            encoding=encoding,
            keys=qis,
            missing_values=mv,
            options=named,
        )
        df = apply_bins(df, bins, mv)
        if out:
            names = ["fk", *(["Fk"] if weight else []), "at_risk"]
            names += ["household_risk"] if hid else []
            clash = [c for c in names if c in df.columns]
            if clash:
                raise click.UsageError(
                    f"the input already has column(s) {', '.join(clash)}; rename them before --out"
                )
        bar.update(task, advance=1, description="encoding")
        enc = encode_qis(df, qis, missing_values=mv, func="microsdc risk")
        w = _weights(df, weight, "microsdc risk") if weight else None
        bar.update(task, advance=1, description="counting")
        res = frequencies_from_codes(enc.codes, enc.n_categories, policy=policy, weights=w)
        bar.update(task, advance=1)
        special = run_suda(df, qis, suda, policy.kind, mv, df.columns if out else ())
    return df, enc, res, special


def _write_counts(
    con: Any, df: Any, res: Any, k: int, suda_columns: dict[str, Any], where: tuple[Any, ...]
) -> None:
    """``--out``: the input with fk (Fk), at_risk and the SUDA scores appended."""
    from rich.markup import escape

    file, out, sep, encoding = where
    fk = res.row_fk
    added = {"fk": fk, "at_risk": fk < k}
    if res.row_Fk is not None:
        added = {"fk": fk, "Fk": res.row_Fk, "at_risk": fk < k}
    added.update(suda_columns)
    write_output(df.assign(**added), out, encoding, source=file, sep=sep)
    con.print(
        f"Wrote {escape(str(out))} ({count(len(fk), 'row')}, columns {', '.join(added)} appended)."
    )


def _intruder_line(df: Any, qis: list[str], k: int, enc: Any) -> str:
    """The headline of the file as it is: records an intruder who knows their key values
    picks with probability above 1/k (prosecutor risk, on the values as written: a
    declared missing code is a value there), and the highest probability."""
    import numpy as np

    from microsdc.encode import encode_qis
    from microsdc.risk.prosecutor import prosecutor_figures, prosecutor_from_codes

    if enc is None:
        enc = encode_qis(df, qis, func="microsdc risk", warn_cardinality=False)
    codes = np.ascontiguousarray(enc.codes, dtype=np.int64)
    fig = prosecutor_figures(prosecutor_from_codes(codes, codes, enc.n_categories), k)
    n = fig["n_above_1_over_k"]
    colour = "green" if n == 0 else "red"
    return (
        f"records an intruder who knows their key values picks with probability above 1/{k}: "
        f"[{colour}]{n:,}[/{colour}]; highest probability {fig['max']:.2f}"
    )


def _print_counts(
    con: Any,
    fk: Any,
    counts: Any,
    Fk: Any,
    ks: list[int],
    k: int,
    policy_kind: str,
    weight: str | None,
    riskiest: tuple[Any, list[Any], list[Any]] | None,
) -> None:
    """The records at risk for each k, the expected re-identifications and the riskiest
    key combinations (``riskiest``: the rows to show, their key-variable columns and the
    names to show for them); ``counts`` records per row (None: one each)."""
    import numpy as np
    from rich.table import Table

    n = len(fk) if counts is None else int(counts.sum())
    table = Table(title="Records at risk (fk < k)", title_justify="left")
    for c in ("k", "records at risk", "share"):
        table.add_column(c, justify="right")
    for kk in ks:
        at = int(np.count_nonzero(fk < kk)) if counts is None else int(counts[fk < kk].sum())
        style = "bold" if kk == k else None
        table.add_row(str(kk), f"{at:,}", f"{(at / n if n else 0):.2%}", style=style)
    con.print(table)
    if policy_kind != "alpha" and n:
        con.print(_expected_line(fk, Fk, counts, weight))
    if riskiest is not None:
        rows, cols, names = riskiest
        con.print(riskiest_table(rows, names, Fk is not None, con.width))
        if bool(rows[cols].isna().to_numpy().any()):
            con.print(_missing_legend(policy_kind))  # only when the table shows one


def _expected_line(fk: Any, Fk: Any, counts: Any, weight: str | None) -> str:
    """Expected re-identifications, global and highest individual risk, as one line.

    ``fk`` and ``Fk`` are per record, or per distinct pattern with ``counts``
    records each.
    """
    import numpy as np

    from microsdc.report import format_percent
    from microsdc.risk.summary import pattern_risk_summary

    records = np.ones(len(fk), dtype=np.int64) if counts is None else counts
    figures = pattern_risk_summary(fk, Fk, records, 1)  # k does not enter the three shown
    er = figures["expected_reidentifications"]
    how = (
        f"with the weights in {weight} (Benedetti-Franconi, as sdcMicro's measure_risk)"
        if weight
        else "taking the sample as the population (risk 1/fk)"
    )
    return (
        f"Expected re-identifications: [bold]{er:,.1f}[/bold]; global risk "
        f"[bold]{format_percent(figures['global_risk'], 2)}[/bold] of records; "
        f"highest individual risk {figures['max_risk']:.2g}; individual risk {how}."
    )


def riskiest_table(summary: Any, columns: list[Any], with_Fk: bool, width: int) -> Any:
    """The riskiest key combinations as a rich table that fits ``width`` columns.

    One column per key variable when that fits; otherwise one column listing
    ``variable=value`` pairs, wrapped, so that no value is cut.

    Parameters
    ----------
    summary : pandas.DataFrame
        The key variables, then ``records``, ``fk`` and (``with_Fk``) ``Fk``.
    columns : list
        The key variables.
    with_Fk : bool
    width : int
        Width of the console, in characters.

    Returns
    -------
    rich.table.Table
    """
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from microsdc.encode import is_na_scalar

    m = len(columns)
    rows = []
    for row in summary.itertuples(index=False):
        values = list(row)
        # text, not markup; a long text cut (the table shows the combination, not the text)
        keys = [MISSING_MARK if is_na_scalar(v) else escape(_cut(str(v))) for v in values[:m]]
        nums = [f"{values[m]:,}", _fmt(values[m + 1])]
        if with_Fk:
            nums.append(f"{values[m + 2]:,.1f}")
        rows.append((keys, nums))
    title = f"The {len(rows)} riskiest key combinations"
    num_names = ["records", "fk", *(["Fk"] if with_Fk else [])]

    def add_numbers(table: Table) -> None:
        for name in num_names:
            table.add_column(name, justify="right", no_wrap=True)

    wide = Table(title=title, title_justify="left")
    for c in columns:
        wide.add_column(escape(str(c)), no_wrap=True)
    add_numbers(wide)
    for keys, nums in rows:
        wide.add_row(*keys, *nums)
    probe = Console(width=10_000)
    if probe.measure(wide).maximum <= width:
        return wide
    narrow = Table(title=title, title_justify="left")
    narrow.add_column("key combination", overflow="fold", ratio=1)
    add_numbers(narrow)
    for keys, nums in rows:
        pairs = [f"{escape(str(c))}={v}" for c, v in zip(columns, keys, strict=True)]
        narrow.add_row(", ".join(pairs), *nums)
    return narrow


#: How the riskiest-combinations table shows a missing value (a "." could be a value).
MISSING_MARK = "(missing)"


def _missing_legend(policy_kind: str) -> str:
    """The line under the riskiest-combinations table that says what a missing value does."""
    does = "a category of its own" if policy_kind == "category" else "matches any value"
    return f"[dim]{MISSING_MARK} = a missing value ({does}).[/dim]"


def _cut(text: str, limit: int = 60) -> str:
    """``text``, cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _risk_lazy(
    file: str,
    engine: str,
    db_table: str | None,
    qis: list[str],
    k: int,
    ks: list[int],
    missing: str,
    policy_kind: str,
    weight: str | None,
    missing_values: str | None,
    top: int,
    out: str | None,
    sep: str | None = None,
    encoding: str | None = None,
    bands: list[tuple[str, float]] | None = None,
) -> None:
    """The risk command on a lazy engine: counts per k and the riskiest combinations
    (``bands``: the ``--bin`` columns, banded in the engine)."""

    from microsdc.backends import detect_backend
    from microsdc.backends.frequencies import to_pandas
    from microsdc.cli._engine import open_lazy, write_lazy
    from microsdc.data.quality import warn_suspect_key_texts
    from microsdc.risk.lazy import risk_frame

    frame = open_lazy(file, engine, db_table, sep, encoding, out=out)
    frame = bin_lazy(frame, bands or [], parse_missing_values(missing_values), "microsdc risk")
    with progress("microsdc risk") as bar, report_warnings():
        task = bar.add_task(f"grouping by the key variables ({engine})", total=None)
        _n, summary, with_fk = risk_frame(
            frame,
            detect_backend(frame, "microsdc risk"),
            qis,
            k,
            missing=policy_value(missing),
            weights=weight,
            missing_values=parse_missing_values(missing_values),
            func="microsdc risk",
            join=out is not None,
        )
        bar.update(task, completed=1)
        s = to_pandas(summary)
        warn_suspect_key_texts(
            s, list(qis), parse_missing_values(missing_values), "--missing-values '{0}'", s["count"]
        )
    counts, fk = s["count"].to_numpy(), s["fk"].to_numpy()
    n = int(counts.sum())
    con = console()
    from rich.markup import escape

    con.print(
        f"[bold]{escape(str(file))}[/bold] ({engine}): {count(n, 'record')}, "
        f"{count(len(s), 'distinct key combination')}, "
        f"{len(qis)} quasi-identifier{'' if len(qis) == 1 else 's'} "
        f"({escape(', '.join(qis))})"
    )
    with_Fk = "Fk" in s.columns
    riskiest = None
    if top and n:
        head = s.iloc[:top]
        if with_Fk:  # among equal fk, the smallest estimated population first
            head = s.sort_values(["fk", "Fk"], kind="stable").iloc[:top]
        shown = [*qis, "count", "fk", *(["Fk"] if with_Fk else [])]
        riskiest = (head[shown], list(qis), list(qis))
    Fk = s["Fk"].to_numpy() if with_Fk else None
    _print_counts(con, fk, counts, Fk, ks, k, policy_kind, weight, riskiest)
    if out:
        with progress("microsdc risk") as bar:
            task = bar.add_task(f"writing {out} ({engine})", total=None)
            write_lazy(with_fk, out)
            bar.update(task, completed=1)
        added = _appended(frame, with_fk)
        con.print(
            f"Wrote {escape(str(out))} ({count(n, 'row')}, columns {', '.join(added)} appended)."
        )


def _appended(before: Any, after: Any) -> list[str]:
    """The columns ``after`` has and ``before`` has not (from the schemas), in order."""
    import narwhals as nw

    old = {str(c).lower() for c in nw.from_native(before).collect_schema().names()}
    return [str(c) for c in nw.from_native(after).collect_schema().names() if c.lower() not in old]


def _fmt(v: Any) -> str:
    f = float(v)
    return f"{int(f):,}" if f.is_integer() else f"{f:,.2f}"
