"""``microsdc suppress``: local suppression of a file to k-anonymity."""

from __future__ import annotations

import math
from typing import Any

import click

from microsdc.cli._common import (
    announce_compile,
    bin_option,
    console,
    count,
    cut_outside_quotes,
    encoding_option,
    k_option,
    library_option,
    missing_values_option,
    parse_bins,
    parse_list,
    parse_missing_values,
    parse_qi,
    policy_value,
    progress,
    qi_option,
    random_order_option,
    records_callback,
    refuse_alone,
    release_missing_option,
    report_warnings,
    sep_option,
    split_name_value,
    user_errors,
)
from microsdc.cli._engine import (
    bin_columns,
    columns_of,
    drop_columns,
    engine_option,
    open_input,
    refuse_on_engine,
    table_option,
    write_frame,
)
from microsdc.suppression import local_suppression
from microsdc.suppression.params import DIS_FRACTION, DIS_SUDA_THRESHOLD, METHODS


def _importance(text: str | None) -> Any:
    """``A,B,C`` (most important first) or ``A=3,B=1,C=1`` (weights); a name that holds
    a comma or an ``=`` in double quotes."""
    parts = cut_outside_quotes(text, ",", "--importance") if text else []
    specs = [spec for part in parts if (spec := part.strip())]
    if not specs:
        return None
    split = [split_name_value(spec, "--importance") for spec in specs]
    if not any(has for _, _, has in split):
        return [name for name, _, _ in split]
    from microsdc.exceptions import InvalidParameterError

    weights: dict[str, float] = {}
    for spec, (name, value, has) in zip(specs, split, strict=True):
        try:
            if not has or not name:
                raise ValueError
            weights[name] = float(value)
        except ValueError:
            raise InvalidParameterError(
                f"--importance: give either names (A,B,C) or weights (A=3,B=1); got {spec!r}."
            ) from None
        if not (math.isfinite(weights[name]) and weights[name] > 0):
            raise InvalidParameterError(
                f"--importance: a weight is a positive number (A=3,B=1); got {spec!r}."
            )
    return weights


def _priorities(importance: Any, columns: Any) -> Any:
    """``--importance 3,1,2`` (sdcMicro's importance vector: one priority per key
    variable, in the order of --qi) as numbers, unless the texts are column names."""
    if not isinstance(importance, list) or not all(t.lstrip("+-").isdigit() for t in importance):
        return importance
    present = {str(c) for c in columns}
    if all(t in present for t in importance):
        return importance
    return [int(t) for t in importance]


def _linked(specs: tuple[str, ...]) -> Any:
    """``KEY=COL1,COL2`` (repeatable) as ``{key: [columns]}``."""
    out: dict[str, list[str]] = {}
    for spec in specs:
        key, cols, has = split_name_value(spec, "--linked")
        columns = parse_list(cols, "--linked")
        if not has or not key or not columns:
            from microsdc.exceptions import InvalidParameterError

            raise InvalidParameterError(
                f"--linked expects KEY=COLUMN[,COLUMN...] (e.g. sex=relationship); got {spec!r}."
            )
        out.setdefault(key, []).extend(columns)
    return out or None


@click.command()
@click.argument("file", type=click.Path())
@qi_option
@k_option("k of k-anonymity: every record must match at least k records.")
@click.option(
    "--importance",
    "importance",
    default=None,
    help="Most important first (blanked last): A,B,C; or weights: A=3,B=1,C=1; or sdcMicro's "
    "importance vector, one priority per --qi column in its order (1 = blanked last): 3,1,2. "
    "Default: QIs with more categories are blanked first.",
)
@library_option(
    local_suppression,
    "method",
    "--method",
    type=click.Choice(METHODS),
    help="greedy (fast, few cells), exact (integer program, small files), or random "
    "(the kanonymity baseline: equal share of random blanks in every QI; many more cells).",
)
@release_missing_option
@missing_values_option
@click.option(
    "--subject-id",
    "subject_id",
    default=None,
    help="Longitudinal data: column identifying the subject; all records of a subject get "
    "the same suppressions.",
)
@click.option(
    "--subject-rule",
    "subject_rule",
    type=click.Choice(["mode", "missing_if_differs"]),
    default="mode",
    show_default=True,
    help="With --subject-id: collapse a subject to its most common answers, or to missing "
    "where its answers differ.",
)
@click.option("--strata", "strata", default=None, help="Anonymise each stratum on its own: A,B.")
@bin_option
@click.option(
    "--linked",
    "linked",
    multiple=True,
    metavar="KEY=COL[,COL]",
    help="Linked variables: blank COL wherever the quasi-identifier KEY is blanked, so that "
    "COL cannot give KEY back (e.g. education=education-num). Repeatable.",
)
@click.option(
    "--drop",
    "drop",
    default=None,
    help="Columns left out of the output, comma separated (e.g. a code that repeats a QI).",
)
@click.option(
    "--accept-rare-values",
    "accept_rare_values",
    is_flag=True,
    default=False,
    help="Suppress although a key variable has so many rare values (100 or more distinct "
    "values, more than 5 % of the records in values fewer than k records hold) that "
    "suppression cannot protect it; without it such a variable stops the command, to be "
    "binned (--bin), recoded or dropped.",
)
@click.option(
    DIS_SUDA_THRESHOLD.flag,
    DIS_SUDA_THRESHOLD.name,
    type=float,
    default=None,
    metavar="T",
    help=f"{DIS_SUDA_THRESHOLD.meaning} T is {DIS_SUDA_THRESHOLD.wanted}; with -k 1, only "
    "this criterion. The special uniques count a blank as --missing does (category: a "
    "value; the others: any value).",
)
@click.option(
    DIS_FRACTION.flag,
    DIS_FRACTION.name,
    type=float,
    default=DIS_FRACTION.default,
    show_default=True,
    metavar="F",
    help=f"{DIS_FRACTION.meaning} F is {DIS_FRACTION.wanted}.",
)
@click.option("--seed", "seed", type=int, default=None, help="Seed for --method random.")
@random_order_option
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False),
    help=(
        "Where to write the suppressed data (format from the extension; with --engine, "
        "a .parquet file)."
    ),
)
@sep_option
@encoding_option
@engine_option
@table_option
@user_errors
def suppress(
    file: str,
    qi: str,
    k: int,
    importance: str | None,
    method: str,
    missing: str,
    missing_values: str | None,
    subject_id: str | None,
    subject_rule: str,
    strata: str | None,
    bins: tuple[str, ...],
    linked: tuple[str, ...],
    drop: str | None,
    accept_rare_values: bool,
    dis_suda_threshold: float | None,
    dis_fraction: float,
    seed: int | None,
    random_order: bool,
    out: str,
    sep: str | None,
    encoding: str | None,
    engine: str = "pandas",
    db_table: str | None = None,
) -> None:
    """Blank as few quasi-identifier cells as possible so that no record has fk < k.

    FILE is a CSV, Parquet, SPSS (.sav) or Stata (.dta) file. Only QI cells
    (and --linked columns) change, and only to missing. Prints the cells
    blanked per quasi-identifier and, before and after, the records an
    intruder who knows their key values picks with probability above 1/k.

    \b
    By default (--missing category) no record is left above 1/k: every
    released record shares its key values, blanks included, with k - 1
    others. A key variable with too many rare values to protect (free text,
    an income in units) stops the command before anything is blanked.

    \b
    Warns when another column gives blanked values back (a code of a QI,
    say); --linked blanks such a column with its QI, --drop leaves it out.
    Warns when the row order gives blanked cells back (a file sorted by a
    key variable; with --engine, which does not read the records, that it
    was not checked); --random-order writes the rows in an order drawn from
    their released values, on every engine.

    \b
    Examples:
      microsdc suppress survey.csv --qi age,sex,region -k 3 --bin age=5 --out safe.csv
      microsdc suppress adult.csv --qi age,sex,education --drop education-num \\
          --linked sex=relationship --out safe.csv
      microsdc suppress panel.parquet --qi sex,town -k 5 --subject-id pid --out safe.parquet
      microsdc suppress 'big/*.parquet' --qi age,sex,region --engine duckdb --out safe.parquet
    """

    from microsdc.exceptions import InvalidParameterError

    qis = parse_qi(qi)
    mv = parse_missing_values(missing_values)
    policy = policy_value(missing)
    settings = {"random_order": random_order, "method": method, "missing": policy}
    settings |= {"subject_id": subject_id, "linked": linked, "seed": seed}
    refuse_on_engine("suppress", engine, file, db_table, settings | {_DIS: dis_suda_threshold})
    _refuse_alone(dis_fraction, dis_suda_threshold, method, subject_id)
    announce_compile("risk", "suppression")
    with progress("microsdc suppress") as bar, report_warnings():
        task = bar.add_task("reading", total=2)
        df = open_input(
            file, engine, db_table, out=out, sep=sep, encoding=encoding, keys=qis, missing_values=mv
        )
        df = drop_columns(df, _dropped(drop, qis), "microsdc suppress")
        ghosts = _linked(linked)
        categories: dict[str, list[str]] = {}
        df = bin_columns(df, parse_bins(bins), mv, "microsdc suppress", categories)
        doing = "suppressing" if engine == "pandas" else _GROUPING.format(engine)
        bar.update(task, advance=1, description=doing)
        if method == "random" and (subject_id or strata or importance):
            raise InvalidParameterError(
                "--method random takes no --subject-id, --strata or --importance."
            )
        result = local_suppression(
            df,
            qis,
            k,
            importance=_priorities(_importance(importance), columns_of(df)),
            strata=parse_list(strata, "--strata") or None,
            missing=policy,
            method=method,
            subject_id=subject_id,
            subject_rule=subject_rule if subject_id is not None else None,
            missing_values=mv,
            seed=seed,
            progress=records_callback(bar) if bar.live.is_started else None,
            linked=ghosts,
            accept_rare_values=accept_rare_values,
            dis_suda_threshold=dis_suda_threshold,
            dis_fraction=dis_fraction if dis_suda_threshold is not None else None,
        )
        _warn_given_back(df, result, qis, mv, (engine, random_order))
        bar.update(task, advance=1)
    release = {"source": file, "sep": sep, "random_order": random_order, "encoding": encoding}
    binned = (categories, len(mv or ()))
    write_frame(result.data, out, engine, "microsdc suppress", binned=binned, **release)
    _print_written(result, method, k, out, engine)


def _refuse_alone(
    dis_fraction: float, dis_suda_threshold: float | None, method: str, subject_id: str | None
) -> None:
    """Refuse an option typed without the option it works with, where it would change
    nothing: ``--dis-fraction`` without ``--dis-suda-threshold``, ``--seed`` without
    ``--method random``, ``--subject-rule`` without ``--subject-id``."""
    DIS_FRACTION.check(dis_fraction, "local_suppression")  # its range first, as the library
    refuse_alone(
        (DIS_FRACTION.name, DIS_SUDA_THRESHOLD.flag, dis_suda_threshold is not None,
         "it only sets the DIS-SUDA scores that the threshold compares"),
        ("seed", "--method random", method == "random", "only the random baseline draws"),
        ("subject_rule", "--subject-id", subject_id is not None,
         "it says how the records of one subject are collapsed"),
    )  # fmt: skip


#: The first step of the progress bar on a lazy engine.
_GROUPING = "grouping by the key variables and suppressing ({})"
_DIS = DIS_SUDA_THRESHOLD.name


def _warn_given_back(
    df: Any, result: Any, qis: list[str], mv: Any, order: tuple[str, bool]
) -> None:
    """Warn when the released records give blanked cells back: through their row order
    (unless ``random_order``), in memory; on a lazy engine, where the records were not
    read, a key variable's texts that look like missing codes, from the patterns, and
    (unless ``random_order``) that the row order was not checked."""
    from microsdc.suppression.result import LazySuppressionResult

    engine, random_order = order
    if isinstance(result, LazySuppressionResult):
        from microsdc.data.quality import warn_suspect_key_texts
        from microsdc.risk.linked import warn_row_order_unchecked

        pats = result.patterns  # every pattern wherever a key variable is text
        warn_suspect_key_texts(pats, list(qis), mv, "--missing-values '{0}'", pats["records"])
        if not random_order:
            warn_row_order_unchecked(engine, result.n_cells)
    elif not random_order:  # else the rows leave their order as read
        _warn_row_order(df, result.data, qis, mv)


def _warn_row_order(before: Any, after: Any, qis: list[str], mv: Any) -> None:
    """Warn when the neighbouring rows of the file as written give blanked cells back."""
    from microsdc.risk.linked import warn_row_order

    warn_row_order(before, after, qis, missing_values=mv)


def _print_written(result: Any, method: str, k: int, out: str, engine: str) -> None:
    """What the suppression did, and where the data went (on a lazy engine, the records
    and key combinations it counted)."""
    from rich.markup import escape

    from microsdc.report.console import print_suppression_summary

    con = console()
    title = None
    if method == "random":
        title = (
            f"Random missingness (k={k}): {result.details['percent_per_qi']:.3f} % added to each QI"
        )
    print_suppression_summary(con, result, title)
    dis = result.details.get("dis_suda")
    if dis:
        con.print(
            f"records with a DIS-SUDA score above {dis['threshold']:g} (special uniques, "
            f"measured on the written file): {dis['n_above_before']:,} -> "
            f"{dis['n_above_after']:,}; highest score {dis['max_before']:.4f} -> "
            f"{dis['max_after']:.4f}"
        )
        if dis.get("solution") == "k2":
            con.print(
                f"released: the k = 2 solution, {dis['cells_k2']:,} cells against "
                f"{dis['cells_rounds']:,} for the rounds to the threshold (it has no special "
                "unique, so it meets any threshold)"
            )
    for name, n in result.details.get("linked_cells", {}).items():
        con.print(f"linked column {escape(str(name))}: {n:,} cells blanked with their key variable")
    if engine != "pandas":
        con.print(
            f"{count(result.n_rows, 'record')} in "
            f"{count(result.n_patterns, 'distinct key combination')} ({engine})."
        )
    con.print(f"written: {escape(str(out))}")


def _dropped(drop: str | None, qis: list[str]) -> list[str]:
    """The columns of ``--drop``, refused when one is a key variable."""
    dropped = parse_list(drop, "--drop")
    both = [c for c in dropped if c in qis]
    if both:
        raise click.UsageError(
            f"--drop names key variable(s) of --qi: {', '.join(map(repr, both))}; a key "
            "variable is suppressed, not dropped (leave it out of --qi to drop it)"
        )
    return dropped
