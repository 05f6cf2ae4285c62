"""The ``microsdc pram`` command."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_runner import run_cli


@pytest.fixture
def survey_csv(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    n = 600
    frame = pd.DataFrame(
        {
            "region": rng.choice(["north", "south"], n),
            "roof": rng.choice(["tin", "tile", "straw"], n),
            "walls": rng.choice(["brick", "wood"], n),
            "band": rng.integers(0, 6, n),
            "income": rng.integers(100, 900, n),
        }
    )
    path = tmp_path / "survey.csv"
    frame.to_csv(path, index=False)
    return path


def test_pram_writes_the_release_and_the_matrices(
    survey_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, mats = tmp_path / "out.csv", tmp_path / "matrices.csv"
    before = survey_csv.read_bytes()
    code, stdout, _ = run_cli(
        [
            "pram",
            str(survey_csv),
            "--vars",
            "roof,walls,band",
            "--strata",
            "region",
            "--together",
            "roof,walls",
            "--neighbours",
            "band",
            "--pd",
            "0.3",
            "--alpha",
            "1",
            "--seed",
            "4",
            "--out",
            str(out),
            "--matrices",
            str(mats),
        ],
        capsys,
    )
    assert code == 0, stdout
    assert survey_csv.read_bytes() == before
    original, released = pd.read_csv(survey_csv), pd.read_csv(out)
    assert released["region"].equals(original["region"])
    assert released["income"].equals(original["income"])
    assert (released["band"] - original["band"]).abs().max() == 1
    changed = int((released[["roof", "walls"]] != original[["roof", "walls"]]).any(axis=1).sum())
    assert "roof + walls" in stdout and f"{changed:,}" in stdout and "Wrote 600 rows" in stdout
    table = pd.read_csv(mats, keep_default_na=False)
    assert set(table.columns) == {"variables", "region", "from", "to", "probability"}
    sums = table.groupby(["variables", "region", "from"])["probability"].sum()
    np.testing.assert_allclose(sums.to_numpy(), 1.0)
    jumps = table[(table["variables"] == "band") & (table["probability"] > 0)]
    assert (jumps["from"].astype(int) - jumps["to"].astype(int)).abs().max() == 1


def test_pram_refuses_what_it_cannot_do(
    survey_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.csv"
    code, _, err = run_cli(
        ["pram", str(survey_csv), "--vars", "roof", "--strata", "roof", "--out", str(out)], capsys
    )
    assert code == 2 and "--strata" in err and "cannot be PRAMmed" in err
    code, _, err = run_cli(["pram", str(survey_csv), "--vars", "rooof", "--out", str(out)], capsys)
    assert code == 2 and "--vars" in err and "'roof'" in err
    code, _, err = run_cli(
        ["pram", str(survey_csv), "--vars", "roof", "--pd", "1.5", "--out", str(out)], capsys
    )
    assert code == 2 and "--pd" in err
    code, _, err = run_cli(
        ["pram", str(survey_csv), "--vars", "roof", "--out", str(out), "--matrices", str(out)],
        capsys,
    )
    assert code == 2 and "--matrices" in err and not out.exists()
    code, _, err = run_cli(
        ["pram", str(survey_csv), "--vars", "roof", "--neighbours", "roof", "--out", str(out)],
        capsys,
    )
    assert code == 2 and "--neighbours" in err and "ordered categorical" in err


def test_pram_by_household(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(1)
    n_hh = 400
    size = rng.integers(1, 6, n_hh)
    rows = np.repeat(np.arange(n_hh), size)
    roof = rng.choice(["tin", "tile", "straw"], n_hh)
    frame = pd.DataFrame(
        {"hh": rows + 100, "roof": roof[rows], "age": rng.integers(0, 90, len(rows))}
    )
    path, out = tmp_path / "persons.csv", tmp_path / "out.csv"
    frame.to_csv(path, index=False)
    args = ["pram", str(path), "--vars", "roof", "--pd", "0.3", "--seed", "2", "--out", str(out)]
    code, stdout, _ = run_cli([*args, "--hid", "hh"], capsys)
    assert code == 0, stdout
    released = pd.read_csv(out)
    assert (released.groupby("hh")["roof"].nunique() == 1).all()
    changed_hh = int((released["roof"] != frame["roof"]).groupby(frame["hh"]).any().sum())
    assert changed_hh > 0 and "households" in stdout and f"{n_hh:,}" in stdout
    assert f"{changed_hh:,}" in stdout
    assert released["age"].equals(frame["age"])
    # without --hid the members of a household disagree
    code, _, _ = run_cli(args, capsys)
    assert code == 0 and (pd.read_csv(out).groupby("hh")["roof"].nunique() > 1).any()
    # a person-level column is refused, naming it and the option
    frame["roof"] = rng.choice(["tin", "tile"], len(frame))
    frame.to_csv(path, index=False)
    code, _, err = run_cli([*args, "--hid", "hh"], capsys)
    assert code == 2 and "'roof'" in err and "households" in err
    code, _, err = run_cli([*args, "--hid", "household"], capsys)
    assert code == 2 and "--hid" in err and "'household'" in err
