"""``microsdc demo``: the main job on data shipped with microsdc.

Two jobs, written as job files into the output folder so that they can be
read, changed and run again with ``microsdc run``:

- the Adult sample shipped with microsdc (10,000 records of the 1994 US
  Current Population Survey): risk, then local suppression to k-anonymity;
- a synthetic census (households in a nuts1 > nuts2 > nuts3 geography):
  risk, then targeted record swapping.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from microsdc.cli._common import announce_compile, console, fail, k_option, user_errors
from microsdc.cli._demo_folder import files_not_ours, record_written

__all__ = ["ADULT_JOB", "CENSUS_JOB", "demo"]

ADULT_JOB = """\
# Adult sample shipped with microsdc: risk, then local suppression to k-anonymity.
# education-num is a one-to-one code of education (dropped, or every blanked
# education could be read back); relationship tells sex and marital status,
# capital-gain and capital-loss some marital statuses: they are blanked
# wherever their key variable is (linked variables).
title = "Demo: Adult sample (CPS 1994), local suppression"
steps = ["risk", "suppression"]

[input]
path = "{input}"

[variables]
quasi_identifiers = {qi}
weights = "fnlwgt"
sensitive = ["Salary"]
drop = ["education-num"]

[recode.age]
width = 5
start = 15

[risk]
k = {k}
# no "missing" key: suppression gives the default guarantee, every released record
# identical on the key variables, blanks included, to k - 1 others

[suppression]
importance = {importance}

# blanked wherever the key variable is blanked
[suppression.linked]
sex = ["relationship"]
marital-status = ["relationship", "capital-gain", "capital-loss"]

[output]
directory = "."
data = "adult_anonymised.csv"
audit = "adult_audit.json"
report = "adult_report.html"
release = "adult_release.json"
"""

CENSUS_JOB = """\
# Synthetic census written by microsdc demo: risk, then targeted record swapping.
title = "Demo: synthetic census, targeted record swapping"
steps = ["risk", "swapping"]

[input]
path = "census.csv"

[variables]
# the persons an intruder may recognise: area, age group and nationality
quasi_identifiers = ["nuts1", "nuts2", "nuts3", "ageGroup", "national"]
household_id = "hid"
hierarchy = ["nuts1", "nuts2", "nuts3"]

[risk]
k = {k}

[swapping]
similar = [["hsize", "htype"], ["hsize"]]
swaprate = 0.05
k_anonymity = {k}
risk_variables = ["ageGroup", "national"]
# the municipality (lau2, below nuts3) moves with the geography: left in place it
# would give back the original nuts3 of every swapped household
carry_along = ["lau2"]
seed = {seed}

[output]
directory = "."
data = "census_swapped.csv"
audit = "census_audit.json"
report = "census_report.html"
release = "census_release.json"
"""


def _toml_list(values: list[str]) -> str:
    return "[" + ", ".join(f'"{v}"' for v in values) + "]"


def _risk_table(k: int) -> None:
    """The records at risk of the Adult sample for a few k (the first output of the demo)."""
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
        f"quasi-identifiers {', '.join(qi)}; age in 5-year bands; a missing value matches "
        "any value."
    )
    out = sample_frequencies(df, qi, weights="fnlwgt")
    table = Table(title="Records at risk (fk < k)", title_justify="left")
    table.add_column("k", justify="right")
    table.add_column("records at risk", justify="right")
    table.add_column("share", justify="right")
    for kk in sorted({2, 3, 5, k}):
        n = int(np.count_nonzero(out["fk"] < kk))
        table.add_row(str(kk), f"{n:,}", f"{n / len(out):.1%}")
    con.print(table)


def _write_job(path: Path, text: str, con: Any) -> None:
    """Write the demo's job file; a file there that differs (edited by the user) is kept
    under a new name first, so that running the demo again loses nothing."""
    if path.exists():
        old = path.read_text(encoding="utf-8", errors="replace")
        if old != text:
            n = 1
            while (kept := path.with_name(f"{path.stem}.edited-{n}{path.suffix}")).exists():
                n += 1
            path.rename(kept)
            con.print(f"{path.name} differed from the demo's: kept as {kept.name}.")
    path.write_text(text, encoding="utf-8")


#: Why the census job's risk figures may go up after swapping.
SWAP_RISK_NOTE = (
    "Risk measured on the swapped file can be higher than before: it counts the swapped "
    "households in their new places. Swapping protects by making a match uncertain (an "
    "intruder cannot tell which households moved), not by raising fk."
)


@click.command()
@k_option("k of k-anonymity.")
@click.option(
    "--output-dir",
    "-o",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("microsdc-demo"),
    show_default=True,
    help="Folder for the job files, the data written and the reports.",
)
@click.option(
    "--households",
    type=click.IntRange(min=100),
    default=20000,
    show_default=True,
    help="Households of the synthetic census.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=2021,
    show_default=True,
    help="Seed of the synthetic census and of the swapping (the same seed, the same output).",
)
@click.option("--no-progress", is_flag=True, help="Do not show progress bars.")
@click.option(
    "--force",
    is_flag=True,
    help="Replace files of the demo's names in the folder that the demo did not write "
    "(by default it stops and names them).",
)
@user_errors
def demo(
    k: int, output_dir: Path, households: int, seed: int, no_progress: bool, force: bool
) -> None:
    """Run the main job on data shipped with microsdc and say where the reports are.

    First the records at risk of the Adult sample (10,000 records of the 1994
    US Current Population Survey extract, UCI "Adult", CC BY 4.0; age in
    5-year bands; missing workclass, occupation and native-country values
    count as wildcards). Then two jobs, whose files are written to
    OUTPUT_DIR: the Adult sample with risk and local suppression, and a
    synthetic census with risk and targeted record swapping. Each writes the
    anonymised data, an audit record (JSON) and a report (HTML).

    Files of the demo's names already in OUTPUT_DIR that the demo did not write
    (your own census.csv, say), or that changed since it wrote them, stop it
    before anything is written: choose another folder with -o, or replace
    them with --force. A job file you edited is kept under a new name.
    """
    from importlib.resources import files

    from microsdc.cli.run import print_result
    from microsdc.datasets import ADULT_QUASI_IDENTIFIERS, synthetic_census
    from microsdc.job import load_job, run_job
    from microsdc.report.console import job_progress

    if output_dir.exists() and not force:
        theirs = files_not_ours(output_dir)
        if theirs:
            where = str(output_dir)
            if str(output_dir.resolve()) != where:
                where += f" ({output_dir.resolve()})"
            fail(
                f"The folder {where} holds {', '.join(theirs)}, which the demo did not write (or "
                "which changed since); the demo would replace "
                + ("it" if len(theirs) == 1 else "them")
                + ". Give another folder with -o (for example -o microsdc-demo), or add "
                "--force to replace " + ("it." if len(theirs) == 1 else "them.")
            )
    announce_compile()
    _risk_table(k)
    con = console()
    display = None if no_progress else job_progress(console(stderr=True))
    output_dir.mkdir(parents=True, exist_ok=True)
    folder = output_dir.resolve()
    reports = []

    # the data go next to the job file, named relatively: the folder keeps working
    # when microsdc is reinstalled or moved
    resource = files("microsdc.datasets").joinpath("data/adult_sample.csv.gz")
    (folder / "adult_sample.csv.gz").write_bytes(resource.read_bytes())
    record_written(folder, ["adult_sample.csv.gz"])
    # importance: suppressed last first; the wildcard-friendly variables go early
    importance = [
        "sex",
        "age",
        "race",
        "marital-status",
        "education",
        "workclass",
        "occupation",
        "native-country",
    ]
    _write_job(
        folder / "adult.toml",
        ADULT_JOB.format(
            input="adult_sample.csv.gz",
            qi=_toml_list(list(ADULT_QUASI_IDENTIFIERS)),
            importance=_toml_list([c for c in importance if c in ADULT_QUASI_IDENTIFIERS]),
            k=k,
        ),
        con,
    )
    con.print()
    result = run_job(load_job(folder / "adult.toml"), progress_display=display)
    record_written(folder, [p.name for p in result.written.values()])
    print_result(result, con)
    reports.append(result.written["report"])

    synthetic_census(households, seed=seed).to_csv(folder / "census.csv", index=False)
    record_written(folder, ["census.csv"])
    _write_job(folder / "census.toml", CENSUS_JOB.format(k=k, seed=seed + 1), con)
    con.print()
    result = run_job(load_job(folder / "census.toml"), progress_display=display)
    record_written(folder, [p.name for p in result.written.values()])
    print_result(result, con)
    con.print(SWAP_RISK_NOTE)
    reports.append(result.written["report"])

    con.print()
    con.print("[bold]Reports[/bold] (open them in a browser):")
    for path in reports:
        con.print(f"  {path}")
    con.print(
        f"The job files are in {folder}; change them and run them again with "
        f"[bold]microsdc run {folder / 'adult.toml'}[/bold]."
    )
