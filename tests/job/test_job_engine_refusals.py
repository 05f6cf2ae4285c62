"""Settings an engine input cannot run are refused when the job is read, naming the key,
why it needs the records and what to do; the same job on pandas runs them. The engine
writes the released rows in the input's order and PRAMs each record on its own, so
``output.random_order`` and ``pram.household_id`` would otherwise be ignored or fail
late."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from microsdc.exceptions import JobFileError
from microsdc.job import load_job, run_job
from microsdc.job.config import parse_job

pytest.importorskip("duckdb")
pytest.importorskip("polars")
pytest.importorskip("narwhals")

JOB = """steps = {steps}

[input]
path = "{path}"
{engine}

[variables]
quasi_identifiers = ["region", "sex"]

[risk]
k = 2
missing = "wildcard"

{sections}

[output]
directory = "out"
{output}
"""

ADVICE = (
    "with 'input.engine' the rows stay in the engine (change the key, or leave 'input.engine' out)."
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """``survey.parquet``: 60 records sorted by ``rid`` (0 to 59), households of two."""
    rng = np.random.default_rng(4)
    n = 60
    pd.DataFrame(
        {
            "rid": np.arange(n),
            "region": rng.choice(["n", "s"], n),
            "sex": rng.choice(["f", "m"], n),
            "hid": np.arange(n) // 2,
            "roof": np.repeat(rng.choice(["tin", "tile"], n // 2), 2),
        }
    ).to_parquet(tmp_path / "survey.parquet", index=False)
    return tmp_path


def _text(engine: str, steps: str, sections: str = "", output: str = "") -> str:
    line = f'engine = "{engine}"' if engine else ""
    return JOB.format(
        steps=steps, path="survey.parquet", engine=line, sections=sections, output=output
    )


def _write(root: Path, text: str) -> Path:
    job = root / "job.toml"
    job.write_text(text, encoding="utf-8")
    return job


SUPPRESSION = '[suppression]\nimportance = ["sex", "region"]\n'
PRAM_HID = '[pram]\nvariables = ["roof"]\nhousehold_id = "hid"\nseed = 2\n'

REFUSED = [
    # (steps, sections, output, key, the line of the key starts with, why)
    (
        '["risk"]',
        "",
        "random_order = true",
        "output.random_order",
        "random_order",
        "the released rows are put in a new order (sorted by a hash of their values) in "
        "memory; the engine writes them in the input's order",
    ),
    (
        '["risk", "suppression"]',
        SUPPRESSION,
        "random_order = true",
        "output.random_order",
        "random_order",
        "the released rows are put in a new order (sorted by a hash of their values) in "
        "memory; the engine writes them in the input's order",
    ),
    (
        '["risk", "pram"]',
        PRAM_HID,
        "",
        "pram.household_id",
        "household_id",
        "households are PRAMmed as units: each household's members are checked and given "
        "its draw in memory",
    ),
]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize(("steps", "sections", "output", "key", "starts", "why"), REFUSED)
def test_setting_an_engine_cannot_run_is_refused_when_the_job_is_read(
    root: Path, engine: str, steps: str, sections: str, output: str, key: str, starts: str, why: str
) -> None:
    text = _text(engine, steps, sections, output)
    line = 1 + next(i for i, t in enumerate(text.splitlines()) if t.startswith(starts))
    job = _write(root, text)
    for read in (lambda: load_job(job), lambda: run_job(job)):
        with pytest.raises(JobFileError) as info:
            read()
        assert info.value.key == key
        assert info.value.line == line
        assert str(info.value) == (
            f"job.toml, line {line}: key '{key}' needs the records in memory: {why}; {ADVICE}"
        )
    assert not (root / "out").exists()  # nothing written


def test_random_order_false_runs_on_the_engine_in_the_input_order(root: Path) -> None:
    job = _write(
        root, _text("duckdb", '["risk", "suppression"]', SUPPRESSION, "random_order = false")
    )
    run_job(job)
    released = pd.read_parquet(root / "out" / "survey_anonymised.parquet")
    assert released["rid"].tolist() == list(range(60))


def test_the_same_settings_run_on_pandas(root: Path) -> None:
    """On pandas the rows are reordered (not the input's order, every record once), and
    PRAM gives both members of a household the same roof."""
    job = _write(root, _text("", '["risk", "suppression"]', SUPPRESSION, "random_order = true"))
    run_job(job)
    released = pd.read_parquet(root / "out" / "survey_anonymised.parquet")
    assert sorted(released["rid"]) == list(range(60))
    assert released["rid"].tolist() != list(range(60))
    job = _write(root, _text("", '["risk", "pram"]', PRAM_HID))
    result = run_job(job, write=False)
    assert (result.data.groupby("hid")["roof"].nunique() == 1).all()


def test_cli_run_refuses_random_order_on_an_engine(root: Path) -> None:
    from click.testing import CliRunner

    from microsdc.cli import cli

    job = _write(root, _text("polars", '["risk"]', "", "random_order = true"))
    res = CliRunner().invoke(cli, ["run", str(job)])
    assert res.exit_code != 0
    assert "output.random_order" in res.output
    assert "needs the records in memory" in res.output
    assert not (root / "out").exists()


def test_parse_job_refuses_random_order_on_a_duckdb_table(root: Path) -> None:
    import duckdb

    con = duckdb.connect(str(root / "db.duckdb"))
    con.execute(f"CREATE TABLE people AS SELECT * FROM read_parquet('{root / 'survey.parquet'}')")
    con.close()
    text = _text("duckdb", '["risk"]', "", "random_order = true").replace(
        'path = "survey.parquet"', 'path = "db.duckdb"\ntable = "people"'
    )
    with pytest.raises(JobFileError, match="needs the records in memory") as info:
        parse_job(text, root / "job.toml")
    assert info.value.key == "output.random_order"
