"""Before/after figures compare each record with itself: renumbered households, whose
rows the release sorts by the new ids, do not show cells changed that did not change."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from microsdc.job import load_job, run_job
from microsdc.job.runner import describe_variables


def _run(write_job: Callable[..., Path], renumber: bool, steps: str) -> dict[str, object]:
    job = write_job(steps=steps, name=f"renumber_{renumber}.toml")
    text = job.read_text().replace(
        "[swapping]\n", f"[swapping]\nrenumber_households = {str(renumber).lower()}\n"
    )
    job.write_text(text)
    return run_job(job, write=False).audit


def _changed(audit: dict[str, object], entry: str) -> dict[str, int]:
    return {v["name"]: v["cells_changed"] for v in audit[entry]}  # type: ignore[attr-defined, index]


def test_renumbering_changes_no_cell_but_the_household_id(
    write_job: Callable[..., Path],
) -> None:
    kept = _run(write_job, False, '["risk", "swapping"]')
    renumbered = _run(write_job, True, '["risk", "swapping"]')
    # the same swap (the new ids come from a stream of their own)
    assert renumbered["swapping"] == kept["swapping"]
    assert _changed(renumbered, "key_variables") == _changed(kept, "key_variables")
    after, before = _changed(renumbered, "variables"), _changed(kept, "variables")
    assert {n: c for n, c in after.items() if n != "hid"} == {
        n: c for n, c in before.items() if n != "hid"
    }
    # swapping changes the geography only: these key variables keep every cell
    for audit in (kept, renumbered):
        keys = _changed(audit, "key_variables")
        assert keys["gender"] == keys["national"] == keys["htype"] == keys["age"] == 0
        assert keys["nuts1"] > 0


def test_renumbered_then_suppressed_counts_the_blanks(write_job: Callable[..., Path]) -> None:
    # suppression runs on the renumbered rows; the key variables that swapping leaves
    # alone changed exactly where suppression blanked them
    audit = _run(write_job, True, '["risk", "swapping", "suppression"]')
    keys = _changed(audit, "key_variables")
    blanked = audit["suppression"]["per_variable"]  # type: ignore[index]
    for name in ("age", "gender", "national", "htype"):
        assert keys[name] == blanked[name], name
    assert _changed(audit, "variables")["gender"] == blanked["gender"]


def test_a_file_not_in_household_order(
    write_job: Callable[..., Path], survey_csv: Path, tmp_path: Path
) -> None:
    # households in a random order, their members apart: the swap returns the rows in
    # household order, and the figures still compare each record with itself
    df = pd.read_csv(survey_csv)
    rng = np.random.default_rng(5)
    shuffled = df.iloc[rng.permutation(len(df))]
    path = tmp_path / "shuffled.csv"
    shuffled.to_csv(path, index=False)
    job = write_job(steps='["risk", "swapping"]', name="shuffled.toml")
    job.write_text(job.read_text().replace(survey_csv.as_posix(), path.as_posix()))
    audit = run_job(job, write=False).audit
    keys = _changed(audit, "key_variables")
    assert keys["gender"] == keys["national"] == keys["htype"] == keys["age"] == 0
    assert _changed(audit, "variables")["hid"] == 0
    assert keys["nuts1"] > 0


def test_describe_variables_follows_the_records(write_job: Callable[..., Path]) -> None:
    cfg = load_job(write_job(steps='["risk", "swapping"]'))
    raw = pd.DataFrame(
        {c: np.arange(6) % 3 for c in ["nuts1", "age", "gender", "national", "htype", "nuts2"]}
    )
    raw["hid"] = [1, 1, 2, 2, 3, 3]
    order = np.array([4, 5, 0, 1, 2, 3])
    final = raw.iloc[order].reset_index(drop=True)
    final.loc[0, "gender"] = 99  # one cell changed: record 4's
    variables, keys = describe_variables(cfg, raw, raw, final, origin=order)
    changed = {v["name"]: v["cells_changed"] for v in variables}
    assert changed["gender"] == 1 and changed["nuts1"] == changed["age"] == 0
    assert {k["name"]: k["cells_changed"] for k in keys}["gender"] == 1
    # compared row by row, the reordering alone would change all 6 cells of each
    by_row, _ = describe_variables(cfg, raw, raw, final)
    assert {v["name"]: v["cells_changed"] for v in by_row}["nuts1"] == 6
