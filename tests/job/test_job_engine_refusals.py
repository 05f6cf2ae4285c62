"""Settings an engine input cannot run are refused when the job is read, naming the key,
why it needs the records and what to do; the same job on pandas runs them. The engine
PRAMs each record on its own, so ``pram.household_id`` would otherwise be ignored or
fail late. ``output.random_order`` runs on an engine: the rows are written in the order
of a hash of their released values; without it the job warns that the row order was
not checked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from microsdc.exceptions import JobFileError
from microsdc.job import load_job, run_job

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


def _sorted_input(root: Path, order: str = "age") -> None:
    """``sorted.parquet``: 400 records sorted by ``order``; rare ages get blanked."""
    rng = np.random.default_rng(7)
    n = 400
    df = pd.DataFrame(
        {
            "age": rng.integers(16, 90, n),
            "sex": rng.choice(["f", "m"], n),
            "edu": rng.choice(list("abcdef"), n),
        }
    )
    df.sort_values(order, kind="stable").to_parquet(root / "sorted.parquet", index=False)


SORTED_JOB = """steps = ["risk", "suppression"]

[input]
path = "sorted.parquet"
engine = "{engine}"

[variables]
quasi_identifiers = ["age", "sex", "edu"]

[risk]
k = 3

[output]
directory = "{out}"
random_order = {random_order}
"""


def _run_sorted(root: Path, engine: str, out: str, random_order: bool) -> dict:
    import json

    text = SORTED_JOB.format(engine=engine, out=out, random_order=str(random_order).lower())
    job = _write(root, text)
    run_job(job)
    audit = next((root / out).glob("*audit*.json"))
    return json.loads(audit.read_text(encoding="utf-8"))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_an_engine_job_warns_that_the_row_order_was_not_checked(root: Path, engine: str) -> None:
    _sorted_input(root)
    audit = _run_sorted(root, engine, "kept", False)
    said = [n["message"] for n in audit["warnings"] if "row order" in n["message"]]
    assert len(said) == 1
    assert "keeps the input's row order" in said[0]
    assert f"Not checked here ({engine} does not read the records)" in said[0]
    assert "output.random_order = true" in said[0]
    audit = _run_sorted(root, engine, "shuffled", True)
    assert not [n for n in audit["warnings"] if "row order" in n["message"]]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_random_order_on_an_engine_job_writes_the_rows_in_a_hash_order(
    root: Path, engine: str
) -> None:
    """The same rows in two input orders give the same file; it holds the rows the
    input order gives, and its neighbours give no blanked age back."""
    _sorted_input(root, "age")
    _run_sorted(root, engine, "kept", False)
    _run_sorted(root, engine, "by_age", True)
    _sorted_input(root, "edu")
    _run_sorted(root, engine, "by_edu", True)
    kept = pd.read_parquet(root / "kept" / "sorted_anonymised.parquet")
    by_age = pd.read_parquet(root / "by_age" / "sorted_anonymised.parquet")
    by_edu = pd.read_parquet(root / "by_edu" / "sorted_anonymised.parquet")
    cols = list(kept.columns)

    def rows(df: pd.DataFrame) -> list[tuple]:
        return sorted(map(tuple, df.astype(object).where(df.notna(), None).values), key=repr)

    assert rows(by_age) == rows(kept)  # the released rows, every one once
    pd.testing.assert_frame_equal(by_age, by_edu)  # the order says nothing of the input's
    assert kept["age"].isna().sum() > 0
    assert not by_age[cols].equals(kept[cols])
