"""``microsdc risk``: rows at risk and the riskiest key combinations of a file."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from typing import Any, NamedTuple

import click

from microsdc.cli._common import (
    announce_compile,
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
    report_warnings,
    sep_option,
    user_errors,
)
from microsdc.cli._engine import (
    bin_columns,
    engine_option,
    open_input,
    refuse_on_engine,
    table_option,
    write_frame,
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
    help="Write the data with fk (Fk with --weight; Fk_pop with --engine duckdb or spark, "
    "whose column names are case-insensitive) and at_risk columns appended. An input "
    "that already has a column of these names is refused: rename it first.",
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

    qis = parse_qi(qi)
    policy = parse_policy(policy_value(missing), "microsdc risk")
    check_weight_apart(weight, qis, "microsdc risk")
    _check_hid(hid, qis, weight, policy.kind)
    refuse_on_engine("risk", engine, file, db_table, {"hid": hid})
    ks = sorted({*DEFAULT_KS, k})
    announce_compile("risk")
    mv = parse_missing_values(missing_values)
    bands = parse_bins(bins)
    named = {"--qi": qis, "--weight": [weight] if weight else [], "--hid": [hid] if hid else []}
    named["--bin"] = [name for name, _ in bands]
    with progress("microsdc risk") as bar, report_warnings():
        task = bar.add_task("reading", total=3)
        usecols = None if out else list(dict.fromkeys(c for cols in named.values() for c in cols))
        read: dict[str, Any] = {"columns": usecols, "keys": qis, "missing_values": mv}
        read.update(options=named, weights=weight)
        df = open_input(file, engine, db_table, out=out, sep=sep, encoding=encoding, **read)
        categories: dict[str, list[str]] = {}
        df = bin_columns(df, bands, mv, "microsdc risk", categories)
        step = (bar, task, engine)
        counted = _count(df, qis, k, missing, (weight, hid), mv, (suda, out, top), step)
    from rich.markup import escape

    # before anything is printed: a household id with a missing value stops the command
    household = None if hid is None else _household_risk(counted.res, df[hid])
    con = console()
    con.print(_header(file, engine, counted, qis, policy.label))
    _print_counts(con, counted, ks, k, policy.kind, weight)
    if household is not None and hid is not None:
        con.print(_household_line(household, df[hid].nunique(), hid))
    con.print(_intruder_text(counted.intruder, k))
    suda_columns = print_suda(con, counted.special, top)
    if out:
        added, written = counted.added, counted.written
        if written is None:  # the records in memory: with their household risk and SUDA
            if household is not None:
                suda_columns = {"household_risk": household, **suda_columns}
            added = {**added, **suda_columns}
            written = df.assign(**added)
        binned = (categories, len(mv or ()))
        release = {"encoding": encoding, "source": file, "sep": sep}
        write_frame(written, out, engine, "microsdc risk", binned=binned, **release)
        con.print(
            f"Wrote {escape(str(out))} ({count(counted.n, 'row')}, "
            f"columns {', '.join(added)} appended)."
        )


class _Counts(NamedTuple):
    """What the risk command shows and writes, counted the same way for every frame."""

    keys: Any  # the key rows counted (risk.counting.key_rows): records, or an engine's patterns
    res: Any  # their frequencies: fk, Fk and records per distinct key combination
    riskiest: tuple[Any, list[Any], list[Any]] | None  # see _print_counts
    figures: dict[str, Any] | None  # risk_summary's figures (None under an alpha)
    intruder: dict[str, Any]  # the prosecutor figures of the file as written
    added: Any  # the columns --out appends (arrays in memory; names in the engine)
    written: Any  # the engine's frame with them appended (None: appended in memory)
    special: Any = None  # the special uniques (--suda, records in memory)

    @property
    def n(self) -> int:
        """The records."""
        return int(self.res.count.sum())

    @property
    def n_patterns(self) -> int | None:
        """The distinct key combinations an engine counted (None: records in memory)."""
        return None if self.keys.records is None else len(self.res.fk)


def _header(file: str, engine: str, counted: _Counts, qis: list[str], label: str) -> str:
    """The first line: the file (and engine), its records (and distinct key combinations
    the engine counted), the key variables and the missing-value policy."""
    from rich.markup import escape

    where = "" if engine == "pandas" else f" ({engine})"
    n_pat = counted.n_patterns
    patterns = "" if n_pat is None else f"{count(n_pat, 'distinct key combination')}, "
    policy = f", missing values as [italic]{label}[/italic]"
    return (
        f"[bold]{escape(str(file))}[/bold]{where}: {count(counted.n, 'record')}, {patterns}"
        f"{len(qis)} quasi-identifier{'' if len(qis) == 1 else 's'} "
        f"({escape(', '.join(map(str, qis)))}){policy}"
    )


def _check_hid(hid: str | None, qis: list[str], weight: str | None, policy_kind: str) -> None:
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


def _count(
    df: Any,
    qis: list[str],
    k: int,
    missing: str,
    columns: tuple[str | None, str | None],
    mv: list[Any] | None,
    asked: tuple[SudaRequest | None, str | None, int],
    step: tuple[Any, Any, str],
) -> _Counts:
    """The key combinations of ``df`` counted (:func:`~microsdc.risk.counting.key_rows`:
    the records in memory, or one group-by of a lazy frame's engine, joined back to the
    rows for ``--out``), with the weight and household id of ``columns``; the figures,
    the ``top`` riskiest combinations and (in memory, when asked) the special uniques
    of ``asked`` (``--suda``, ``--out``, ``--top``); ``step``, the progress bar, its
    task and the engine."""
    from microsdc.backends.adapters import adapt
    from microsdc.risk.counting import append_fk, key_rows
    from microsdc.risk.summary import key_figures

    func = "microsdc risk"
    weight, hid = columns
    suda, out, top = asked
    bar, task, engine = step
    frame = adapt(df, func)
    lazy = frame.name != "pandas"
    if out and not lazy:  # an engine refuses its own column names in key_rows
        _refuse_clash(df, weight, hid)
    bar.update(task, **_stage(engine, "encoding"))
    keys = key_rows(frame, qis, policy_value(missing), weight, mv, func, appends=bool(out) and lazy)
    bar.update(task, **_stage(engine, "counting"))
    res, policy = keys.frequencies(), keys.policy
    positions: list[Hashable] = list(range(len(qis)))
    summary = _summary(keys, res, k, positions, mv)
    special = run_suda(df, qis, suda, policy.kind, mv, df.columns if out and suda else ())
    riskiest = _riskiest(summary, top, positions, list(qis)) if top and len(summary) else None
    # the expected re-identifications and risks are risk_summary's (k does not enter them)
    figures = None if policy.kind == "alpha" else key_figures(keys, 1, 0.1, False, mv, res)[0]
    written = None
    added: Any = {}
    if out:
        written = append_fk(keys, res.row_fk, res.row_Fk, k, func)
        if lazy:
            added = _appended(df, written)
        else:
            added, written = {str(c): written[c] for c in written.columns}, None
    bar.update(task, **_stage(engine, "counted"))
    intruder = _intruder(keys, k, mv)
    return _Counts(keys, res, riskiest, figures, intruder, added, written, special)


def _stage(engine: str, stage: str) -> dict[str, Any]:
    """The progress bar's update at ``stage`` of the count ("encoding", "counting",
    "counted"): three steps in memory; one group-by of the engine otherwise."""
    if engine == "pandas":
        return {"advance": 1, **({} if stage == "counted" else {"description": stage})}
    if stage == "encoding":
        return {"description": f"grouping by the key variables ({engine})", "total": None}
    return {"completed": 1} if stage == "counted" else {}


def _refuse_clash(df: Any, weight: str | None, hid: str | None) -> None:
    """``--out`` refused when the records already hold a column it appends."""
    names = ["fk", *(["Fk"] if weight else []), "at_risk", *(["household_risk"] if hid else [])]
    clash = [c for c in names if c in df.columns]
    if clash:
        raise click.UsageError(
            f"the input already has column(s) {', '.join(clash)}; rename them before --out"
        )


def _summary(keys: Any, res: Any, k: int, positions: list[Hashable], mv: Any) -> Any:
    """One row per key combination (:func:`~microsdc.risk.frequencies.pattern_summary`),
    its key variables named by position: a key variable called "fk" or "count" cannot
    clash with the counts. An engine's key texts that look like a missing code are
    warned about here (records in memory: when the file is read)."""
    from microsdc.risk.frequencies import pattern_summary

    summary = pattern_summary(replace(keys.enc, columns=positions), res, k)
    if keys.records is not None:
        from microsdc.data.quality import warn_suspect_key_texts

        values = summary[positions].set_axis(keys.columns, axis=1)
        warn_suspect_key_texts(values, keys.columns, mv, "--missing-values '{0}'", summary["count"])
    return summary


def _intruder(keys: Any, k: int, mv: Any) -> dict[str, Any]:
    """The prosecutor figures of the file as it is: records an intruder who knows their
    key values picks with probability above 1/k (on the values as written: a declared
    missing code is a value there), and the highest probability; each key row weighs
    its records."""
    import numpy as np

    from microsdc.encode import encode_qis
    from microsdc.risk.prosecutor import prosecutor_figures, prosecutor_from_codes

    enc = keys.enc
    if mv is not None:
        enc = encode_qis(keys.rows, keys.columns, func="microsdc risk", warn_cardinality=False)
    codes = np.ascontiguousarray(enc.codes, dtype=np.int64)
    risk = prosecutor_from_codes(codes, codes, enc.n_categories, keys.records)
    return prosecutor_figures(risk, k, keys.records)


def _riskiest(
    summary: Any, top: int, keys: list[Any], names: list[Any]
) -> tuple[Any, list[Any], list[Any]]:
    """The ``top`` riskiest key combinations of ``summary`` (one row per combination,
    by ascending fk: its key variables ``keys``, shown as ``names``, ``count``, ``fk``
    and ``Fk`` when weighted), as :func:`_print_counts` takes them. The summary's order
    is the same on every engine; Fk, a sum of weights that an engine adds in another
    order, is compared rounded (:func:`~microsdc.risk.pattern_order.tie_rounded`)."""
    with_Fk = "Fk" in summary.columns
    if with_Fk:  # among equal fk, the smallest estimated population first
        import numpy as np

        from microsdc.risk.pattern_order import tie_rounded

        ties = np.arange(len(summary))  # then the summary's own order
        order = np.lexsort((ties, tie_rounded(summary["Fk"]), tie_rounded(summary["fk"])))
        summary = summary.iloc[order]
    shown = [*keys, "count", "fk", *(["Fk"] if with_Fk else [])]
    return summary.head(top)[shown], keys, names


def _intruder_text(fig: dict[str, Any], k: int) -> str:
    """The intruder's headline of :func:`_intruder`, from its figures
    (:func:`~microsdc.risk.prosecutor.prosecutor_figures`)."""
    n = fig["n_above_1_over_k"]
    colour = "green" if n == 0 else "red"
    return (
        f"records an intruder who knows their key values picks with probability above 1/{k}: "
        f"[{colour}]{n:,}[/{colour}]; highest probability {fig['max']:.2f}"
    )


def _print_counts(
    con: Any, counted: _Counts, ks: list[int], k: int, policy_kind: str, weight: str | None
) -> None:
    """The records at risk for each k, the expected re-identifications and the riskiest
    key combinations (``counted.riskiest``: the rows to show, their key-variable columns
    and the names to show for them), from the distinct key combinations and their records."""
    from rich.table import Table

    fk, counts, riskiest = counted.res.fk, counted.res.count, counted.riskiest
    n = counted.n
    table = Table(title="Records at risk (fk < k)", title_justify="left")
    for c in ("k", "records at risk", "share"):
        table.add_column(c, justify="right")
    for kk in ks:
        at = int(counts[fk < kk].sum())
        style = "bold" if kk == k else None
        table.add_row(str(kk), f"{at:,}", f"{(at / n if n else 0):.2%}", style=style)
    con.print(table)
    if counted.figures is not None and n:
        con.print(_expected_line(counted.figures, weight))
    if riskiest is not None:
        rows, cols, names = riskiest
        con.print(riskiest_table(rows, names, counted.res.Fk is not None, con.width))
        if bool(rows[cols].isna().to_numpy().any()):
            con.print(_missing_legend(policy_kind))  # only when the table shows one


def _expected_line(figures: dict[str, Any], weight: str | None) -> str:
    """Expected re-identifications, global and highest individual risk, as one line,
    from the risk figures (:func:`~microsdc.risk.summary.risk_summary`'s)."""
    from microsdc.report import format_percent

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
    ``variable=value`` pairs, wrapped, so that no value is cut. The table's own columns
    are ``records``, ``fk`` and ``Fk``, or, when a key variable has one of these names
    (in any case), ``records (count)``, ``fk (sample)`` and ``Fk (population)``, so that
    no header names two columns.

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
    num_names = _own_labels(columns, with_Fk)

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


#: The riskiest-combinations table's own columns, and their names when a key variable
#: is called like one of them.
_OWN = ("records", "fk", "Fk")
_OWN_APART = ("records (count)", "fk (sample)", "Fk (population)")


def _own_labels(columns: list[Any], with_Fk: bool) -> list[str]:
    """The headers of the table's own columns (``records``, ``fk``, ``Fk`` when
    weighted): :data:`_OWN_APART` when a key variable is named like one of them,
    compared case-folded, with ``*`` added to one that a key variable still matches."""
    n = 3 if with_Fk else 2
    keys = {str(c).casefold() for c in columns}
    labels = list(_OWN[:n])
    if not any(label.casefold() in keys for label in labels):
        return labels
    labels = list(_OWN_APART[:n])
    for i, label in enumerate(labels):
        while label.casefold() in keys:
            label += "*"
        labels[i] = label
    return labels


#: How the riskiest-combinations table shows a missing value (a "." could be a value).
MISSING_MARK = "(missing)"


def _missing_legend(policy_kind: str) -> str:
    """The line under the riskiest-combinations table that says what a missing value does."""
    does = "a category of its own" if policy_kind == "category" else "matches any value"
    return f"[dim]{MISSING_MARK} = a missing value ({does}).[/dim]"


def _cut(text: str, limit: int = 60) -> str:
    """``text``, cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _appended(before: Any, after: Any) -> list[str]:
    """The columns ``after`` has and ``before`` has not (from the schemas), in order."""
    import narwhals as nw

    old = {str(c).lower() for c in nw.from_native(before).collect_schema().names()}
    return [str(c) for c in nw.from_native(after).collect_schema().names() if c.lower() not in old]


def _fmt(v: Any) -> str:
    f = float(v)
    return f"{int(f):,}" if f.is_integer() else f"{f:,.2f}"
