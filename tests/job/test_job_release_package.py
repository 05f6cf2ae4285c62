"""What a job's release package carries of the confidential input: the intruder tries it.

The package is what goes out: the anonymised data and the release record. The audit
record and the report are internal; played against them, the intruder recovers every
blanked cell from the input's SHA-256 (the release keeps the input's bytes but for the
blanked cells), which is why they stay with the statistician.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from pathlib import Path

import pytest

from microsdc.job import run_job

HEX64 = re.compile(rb"\b[0-9a-f]{64}\b")


def _input(tmp_path: Path) -> Path:
    rows = ["sex,region,edu,hours"]
    common = [
        ("m", "north", "ba"),
        ("f", "south", "ma"),
        ("m", "south", "ba"),
        ("f", "north", "ma"),
    ]
    for i in range(120):
        sex, region, edu = common[i % 4]
        rows.append(f"{sex},{region},{edu},{30 + i % 17}")
    # east and west: three records each, one of them alone with its sex and education
    rows += ["m,east,ba,41", "m,east,ba,44", "f,east,ma,39"]
    rows += ["f,west,ma,38", "f,west,ma,35", "m,west,ba,36"]
    path = tmp_path / "survey.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _job(tmp_path: Path) -> Path:
    _input(tmp_path)
    job = tmp_path / "job.toml"
    job.write_text(
        'title = "t"\nsteps = ["risk", "suppression"]\n[input]\npath = "survey.csv"\n'
        '[variables]\nquasi_identifiers = ["sex", "region", "edu"]\n[risk]\nk = 3\n'
        'missing = "wildcard"\n[suppression]\nimportance = ["sex", "edu", "region"]\n'
        '[output]\ndirectory = "out"\n',
        encoding="utf-8",
    )
    return job


def _intruder(package: list[Path], data: Path) -> dict[tuple[int, int], str] | None:
    """Every 64-hex string of the package tried as the SHA-256 of the input: the released
    CSV with each empty cell filled by the values its column shows. Returns the cells
    recovered (line, field) -> value, or None."""
    hashes = {m.group() for path in package for m in HEX64.finditer(path.read_bytes())}
    lines = data.read_bytes().split(b"\n")
    cells = [line.split(b",") for line in lines]
    blanks = [(i, j) for i, row in enumerate(cells) for j, v in enumerate(row) if row[0] and not v]
    observed = [sorted({row[j] for row in cells[1:] if len(row) > j and row[j]}) for _, j in blanks]
    for values in itertools.product(*observed):
        filled = [list(row) for row in cells]
        for (i, j), v in zip(blanks, values, strict=True):
            filled[i][j] = v
        text = b"\n".join(b",".join(row) for row in filled)
        if hashlib.sha256(text).hexdigest().encode() in hashes:
            return {b: v.decode() for b, v in zip(blanks, values, strict=True)}
    return None


def test_the_release_package_gives_no_blanked_cell_back(tmp_path: Path) -> None:
    res = run_job(_job(tmp_path))
    data, release = res.written["data"], res.written["release"]
    original = (tmp_path / "survey.csv").read_bytes().split(b"\n")
    released = data.read_bytes().split(b"\n")
    blanked = [i for i, (a, b) in enumerate(zip(original, released, strict=True)) if a != b]
    assert len(blanked) == 2  # the two lone regions, and the rest byte for byte the input
    # the internal files hold the input's hash: played against them, every blank comes back
    internal = [res.written["audit"], res.written["report"]]
    got = _intruder([data, *internal], data)
    assert got is not None and sorted(got.values()) == ["east", "west"]
    # the release package does not
    assert _intruder([data, release], data) is None
    record = json.loads(release.read_text())
    assert record["data"]["sha256"] == hashlib.sha256(data.read_bytes()).hexdigest()
    assert {m.group() for m in HEX64.finditer(release.read_bytes())} == {
        record["data"]["sha256"].encode()
    }


def test_the_release_record_holds_only_figures_of_the_release(tmp_path: Path) -> None:
    res = run_job(_job(tmp_path))
    record = json.loads(res.written["release"].read_text())
    text = res.written["release"].read_text()
    assert "survey.csv" not in text and str(tmp_path) not in text  # no name or path of the input
    assert set(record) == {
        "schema_version",
        "kind",
        "title",
        "created",
        "data",
        "protection",
        "risk",
        "intruder",
        "missing_cells",
        "software",
    }
    # the headline of the released file: after only, never before
    assert set(record["intruder"]) == {"k", "n_above_1_over_k", "max"}
    # figures anyone computes from the released file, and nothing "before"
    assert record["risk"] == {
        k: v for k, v in res.audit["risk"]["after"].items() if k in record["risk"]
    }
    assert "before" not in text and "seed" not in text and "warnings" not in text
    assert record["missing_cells"] == {"sex": 0, "region": 2, "edu": 0}
    assert record["data"]["n_records"] == 126
    assert record["protection"]["guarantee"] == "wildcard"
    # the internal report says what it is
    assert "Internal report: keep it, do not publish it." in res.report_html
    assert "job_release.json" not in res.report_html and "survey_release.json" in res.report_html


@pytest.mark.parametrize("seed", ["12345", "987654321"])
def test_a_swap_job_releases_no_seed_and_no_row_labels(tmp_path: Path, seed: str) -> None:
    import pandas as pd

    from microsdc.datasets import synthetic_census

    census = synthetic_census(400, seed=3).sort_values(["nuts3", "hid"])
    census.to_csv(tmp_path / "census.csv", index=False)
    job = tmp_path / "job.toml"
    job.write_text(
        'title = "c"\nsteps = ["risk", "swapping"]\n[input]\npath = "census.csv"\n'
        '[variables]\nquasi_identifiers = ["ageGroup", "gender"]\nhousehold_id = "hid"\n'
        'hierarchy = ["nuts1", "nuts2"]\n[risk]\nk = 3\n[swapping]\n'
        'risk_variables = ["ageGroup"]\ncarry_along = ["nuts3", "lau2"]\nswaprate = 0.2\n'
        f'renumber_households = true\nseed = {seed}\n[output]\ndirectory = "out"\n',
        encoding="utf-8",
    )
    res = run_job(job)
    package = [res.written["data"], res.written["release"]]
    for path in package:
        assert seed not in path.read_text(encoding="utf-8")
    released = pd.read_csv(res.written["data"])
    assert list(released.columns) == list(census.columns)  # no index column written
    record = json.loads(res.written["release"].read_text())
    assert record["protection"]["swapping"] == {
        "hierarchy": ["nuts1", "nuts2"],
        "carry_along": ["nuts3", "lau2"],
        "households_renumbered": True,
    }
    assert "swaprate" not in res.written["release"].read_text()


def _sorted_job(tmp_path: Path, shuffle: bool) -> Path:
    import numpy as np

    rng = np.random.default_rng(2)
    regions = ["r" + str(i) for i in range(8)]
    rows = [(reg, sex, age) for reg in regions for sex in "mf" for age in (1, 1, 1, 2, 2, 2)]
    rows += [(reg, "f", 9) for reg in regions]  # one woman of age band 9 per region: alone
    rows.sort()  # a register sorted by region
    if shuffle:
        rows = [rows[i] for i in rng.permutation(len(rows))]
    (tmp_path / "reg.csv").write_text(
        "region,sex,age\n" + "".join(f"{r},{s},{a}\n" for r, s, a in rows), encoding="utf-8"
    )
    job = tmp_path / "job.toml"
    job.write_text(
        'title = "t"\nsteps = ["risk", "suppression"]\n[input]\npath = "reg.csv"\n'
        '[variables]\nquasi_identifiers = ["region", "sex", "age"]\n[risk]\nk = 3\n'
        'missing = "category"\n[suppression]\nimportance = ["sex", "age", "region"]\n'
        '[output]\ndirectory = "out"\n',
        encoding="utf-8",
    )
    return job


def test_a_release_in_the_order_of_a_sorted_input_is_pointed_out(tmp_path: Path) -> None:
    import pandas as pd

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    res = run_job(_sorted_job(tmp_path / "a", shuffle=False))
    released = pd.read_csv(res.written["data"])
    original = pd.read_csv(tmp_path / "a" / "reg.csv")
    blanked = released["region"].isna() & original["region"].notna()
    assert int(blanked.sum()) == 8
    # the intruder reads the region of the records above and below each blank
    above = released["region"].ffill().shift(1)[blanked]
    below = released["region"].bfill().shift(-1)[blanked]
    agree = (above == below) & (above == original["region"][blanked])
    assert bool(agree.all())
    said = [n["message"] for n in res.audit["warnings"] if "row order" in n["message"]]
    assert len(said) == 1 and "'region' (8 of 8)" in said[0]
    # the same records in random order: nothing to point out
    res = run_job(_sorted_job(tmp_path / "b", shuffle=True))
    assert int(pd.read_csv(res.written["data"])["region"].isna().sum()) == 8
    assert not [n for n in res.audit["warnings"] if "row order" in n["message"]]
