"""Blanked cells given back by the row order of the release: the previous or next record."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from microsdc.exceptions import DisclosureRiskWarning
from microsdc.risk.linked import recoverable_by_order, warn_row_order


def _households(values: list[str], size: int = 3) -> pd.DataFrame:
    """Persons sorted by household, ``water`` the same for every member."""
    n = len(values) * size
    return pd.DataFrame(
        {"hid": np.repeat(np.arange(len(values)), size), "water": np.repeat(values, size)}
    ).assign(sex=np.tile(["f", "m"], n)[:n])


def _brute_force(original: pd.DataFrame, released: pd.DataFrame, key: str) -> tuple[int, int]:
    b, a = original[key].tolist(), released[key].tolist()
    blanked = [i for i in range(len(a)) if pd.isna(a[i]) and not pd.isna(b[i])]
    hit = 0
    for i in blanked:
        near = [a[j] for j in (i - 1, i + 1) if 0 <= j < len(a)]
        hit += any(v == b[i] for v in near if not pd.isna(v))
    return len(blanked), hit


def test_sorted_households_with_common_values_are_counted() -> None:
    # common values (A in half the households): two next-door records agreeing on A is no
    # surprise by itself, but the order as a whole repeats every value three times
    df = _households(["A", "A", "B", "A", "B", "C", "A", "B"])
    released = df.copy()
    gone = [1, 3, 6, 9, 12, 15, 18, 21]  # the first member of each household but the first
    released.loc[gone, "water"] = np.nan
    found = recoverable_by_order(df, released, ["water"])
    assert _brute_force(df, released, "water") == (8, 8)
    assert found[["key_variable", "n_blanked", "n_recoverable"]].values.tolist() == [
        ["water", 8, 8]
    ]
    with pytest.warns(DisclosureRiskWarning) as got:
        warn_row_order(df, released, ["water", "sex"])
    (message,) = [str(w.message) for w in got]
    assert "'water' (8 of 8)" in message and "--random-order" in message
    assert "output.random_order = true" in message and "'sex'" not in message


@pytest.mark.parametrize("seed", range(12))
def test_count_is_the_brute_force_count_of_neighbour_read_back(seed: int) -> None:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, 60)
    values = rng.choice(list("ABCD"), len(sizes), p=[0.5, 0.3, 0.15, 0.05])
    df = pd.DataFrame({"water": np.repeat(values, sizes)})
    released = df.copy()
    gone = rng.random(len(df)) < 0.2
    released.loc[gone, "water"] = np.nan
    found = recoverable_by_order(df, released, ["water"], share=1e-9)
    n_blanked, hit = _brute_force(df, released, "water")
    assert n_blanked and hit  # households of several members, sorted: some given back
    assert found[["n_blanked", "n_recoverable"]].values.tolist() == [[n_blanked, hit]]


@pytest.mark.parametrize("seed", range(12))
def test_a_random_order_gives_nothing_back(seed: int) -> None:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"water": rng.choice(list("ABCD"), 300, p=[0.5, 0.3, 0.15, 0.05])})
    released = df.copy()
    released.loc[rng.random(300) < 0.2, "water"] = np.nan
    # neighbours agree by chance on the common values: no order to read
    assert recoverable_by_order(df, released, ["water"]).empty


def test_suppress_command_points_out_the_row_order(tmp_path: Path) -> None:
    from microsdc.cli import cli

    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 6, 120)
    df = pd.DataFrame(
        {
            "hid": np.repeat(np.arange(len(sizes)), sizes),
            "water": np.repeat(rng.choice(list("ABCDEFGHIJKL"), len(sizes)), sizes),
        }
    )
    df["sex"] = rng.choice(["f", "m"], len(df))
    df["age"] = rng.integers(0, 90, len(df))
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    args = ["suppress", str(src), "--qi", "water,sex,age", "-k", "3", "--drop", "hid"]
    args += ["--bin", "age=10", "--importance", "water,sex,age"]
    out = tmp_path / "out.csv"
    res = CliRunner().invoke(cli, [*args, "--out", str(out)])
    assert res.exit_code == 0, res.output
    released = pd.read_csv(out)
    n_blanked, hit = _brute_force(df, released, "water")
    assert n_blanked and hit
    text = " ".join(res.output.split())
    assert f"'water' ({hit} of {n_blanked})" in text and "--random-order" in text
    res = CliRunner().invoke(cli, [*args, "--random-order", "--out", str(tmp_path / "r.csv")])
    assert res.exit_code == 0, res.output
    assert "row order" not in res.output
