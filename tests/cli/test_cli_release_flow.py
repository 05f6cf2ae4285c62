"""The categorical release on the command line: --bin in risk and swap, the household
risk of ``microsdc risk --hid``, ``swap --renumber-households`` and ``--random-order``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from microsdc.cli import cli as main
from microsdc.data.rowkeys import random_order
from microsdc.risk import household_risk, household_risk_from_individual
from microsdc.swapping.apply import renumbering_generator

#: Five persons in three households. With age in bands of 10 the keys (sex, band) are
#: (m, 20-29) twice, (f, 20-29) once, (f, 40-49) twice: fk = 2, 1, 2, 2, 2, so the
#: individual risk (no weights: 1/fk) is 0.5, 1, 0.5, 0.5, 0.5 and the household risk
#: 1 - prod(1 - r) is 1 (household 1: a member with risk 1), 1 - 0.5 * 0.5 = 0.75
#: (household 2) and 0.5 (household 3); per person 1, 1, 0.75, 0.75, 0.5: 4.0 persons
#: expected in a household with a re-identified member, 80 % of the records.
TOY = pd.DataFrame(
    {
        "hh": [1, 1, 2, 2, 3],
        "sex": ["m", "f", "m", "f", "f"],
        "age": [23, 27, 21, 45, 48],
        "income": [10, 20, 30, 40, 50],
    }
)


@pytest.fixture
def toy_csv(tmp_path: Path) -> Path:
    path = tmp_path / "toy.csv"
    TOY.to_csv(path, index=False)
    return path


def _run(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(main, args)
    return result.exit_code, result.output


# --------------------------------------------------------------------------- household risk


def test_household_risk_by_hand() -> None:
    risk = [0.5, 1.0, 0.5, 0.5, 0.5]
    got = household_risk_from_individual(risk, TOY["hh"].to_numpy())
    assert got.tolist() == [1.0, 1.0, 0.75, 0.75, 0.5]


def test_household_risk_members_apart_and_text_ids() -> None:
    # members need not be adjacent; ids of any kind
    got = household_risk_from_individual([0.2, 0.5, 0.5, 0.1], ["b", "a", "b", "a"])
    assert np.allclose(got, [0.6, 0.55, 0.6, 0.55], atol=1e-15)


def test_household_risk_matches_the_product_over_members() -> None:
    rng = np.random.default_rng(3)
    risk = rng.uniform(0, 1, 200)
    risk[::17] = 1.0
    ids = rng.integers(0, 40, 200)
    got = household_risk_from_individual(risk, ids)
    for h in np.unique(ids):
        members = ids == h
        want = 1.0 - np.prod(1.0 - risk[members])
        assert np.allclose(got[members], want, rtol=0, atol=1e-12)


def test_household_risk_from_individual_agrees_with_household_risk() -> None:
    banded = TOY.assign(age=["20-29", "20-29", "20-29", "40-49", "40-49"])
    whole = household_risk(banded, ["sex", "age"], "hh")
    assert whole.tolist() == [1.0, 1.0, 0.75, 0.75, 0.5]


def test_household_risk_refuses_a_missing_id_naming_its_position() -> None:
    from microsdc.exceptions import DataValidationError

    with pytest.raises(DataValidationError, match=r"1 missing household id\(s\).*\[2\]"):
        household_risk_from_individual([0.5, 0.5, 0.5], [1, 1, None])


# --------------------------------------------------------------------------- risk --bin --hid


def test_risk_with_bands_and_households(toy_csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "risk.csv"
    code, text = _run(
        [
            "risk",
            str(toy_csv),
            "--qi",
            "sex,age",
            "--bin",
            "age=10",
            "--hid",
            "hh",
            "--top",
            "0",
            "--out",
            str(out),
        ]
    )
    assert code == 0, text
    assert "Expected re-identifications: 3.0;" in text
    line = next(x for x in text.splitlines() if x.startswith("Household risk"))
    assert line == (
        "Household risk (3 households in hh): 4.0 persons expected in a household with a "
        "re-identified member (80.00 % of records); highest household risk 1."
    )
    written = pd.read_csv(out)
    assert written["age"].tolist() == ["20-29", "20-29", "20-29", "40-49", "40-49"]
    assert written["fk"].tolist() == [2, 1, 2, 2, 2]
    assert written["household_risk"].tolist() == [1.0, 1.0, 0.75, 0.75, 0.5]


def test_risk_without_bands_counts_the_ages(toy_csv: Path) -> None:
    code, text = _run(["risk", str(toy_csv), "--qi", "sex,age", "--hid", "hh", "--top", "0"])
    assert code == 0, text
    # every age differs: each person unique, every household sure to be re-identified
    assert "Household risk (3 households in hh): 5.0 persons" in text


def test_risk_bin_counts_only_the_bands(toy_csv: Path) -> None:
    code, text = _run(["risk", str(toy_csv), "--qi", "sex,age", "--bin", "age=10", "--top", "0"])
    assert code == 0, text
    # fk < 2: only the woman of 20-29
    rows = [line.split("│")[1:4] for line in text.splitlines() if line.startswith("│")]
    assert [[c.strip() for c in r] for r in rows] == [
        ["2", "1", "20.00%"],
        ["3", "5", "100.00%"],
        ["5", "5", "100.00%"],
    ]
    assert "Household risk" not in text


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--hid", "nosuch"], "Option --hid names 1 column(s) not in"),
        (["--hid", "sex"], "--hid 'sex' is also named by --qi"),
        (["--hid", "hh", "--missing", "0.5"], "--hid needs --missing wildcard"),
        (["--bin", "age"], "--bin expects COLUMN=WIDTH (e.g. age=5); got 'age'"),
        (["--bin", "age=0"], "Option --bin must be a real number > 0"),
        (["--bin", "nosuch=5"], "Option --bin names 1 column(s) not in"),
        (["--bin", "sex=5"], "sex"),
    ],
)
def test_risk_errors_name_the_option_and_value(toy_csv: Path, args: list[str], said: str) -> None:
    code, text = _run(["risk", str(toy_csv), "--qi", "sex,age", *args])
    assert code == 2, text
    assert said in text


def test_risk_refuses_a_missing_household_id(tmp_path: Path) -> None:
    path = tmp_path / "gap.csv"
    TOY.assign(hh=[1, 1, None, 2, 3]).to_csv(path, index=False)
    code, text = _run(["risk", str(path), "--qi", "sex", "--hid", "hh"])
    assert code == 2, text
    # the row as the file numbers it: the header is line 1
    assert "Option --hid has 1 missing household id(s) (first rows: [4])" in text
    assert "Records at risk" not in text  # refused before any figure is printed


@pytest.mark.parametrize("out", [False, True])
def test_risk_names_an_unknown_household_id(toy_csv: Path, tmp_path: Path, out: bool) -> None:
    """With --out every column is read: an unknown --hid was a KeyError traceback."""
    extra = ["--out", str(tmp_path / "fk.csv")] if out else []
    code, text = _run(["risk", str(toy_csv), "--qi", "sex", "--hid", "nosuch", *extra])
    assert code == 2, text
    assert "Option --hid names 1 column(s) not in toy.csv: 'nosuch'" in " ".join(text.split())
    assert "Traceback" not in text and not (tmp_path / "fk.csv").exists()


# --------------------------------------------------------------------------- swap


def _census(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    from microsdc.datasets import synthetic_census

    df = synthetic_census(60, seed=2)
    ages = np.random.default_rng(4).integers(0, 90, len(df))
    df = df.assign(age=ages)
    path = tmp_path / "census.csv"
    df.to_csv(path, index=False)
    return path, df


def _swap_args(path: Path, out: Path, *extra: str) -> list[str]:
    return [
        "swap",
        str(path),
        "--hid",
        "hid",
        "--hierarchy",
        "nuts1,nuts2",
        "--carry-along",
        "nuts3,lau2",
        "--risk-variables",
        "age,gender",
        "--seed",
        "7",
        *extra,
        "--out",
        str(out),
    ]


def test_swap_bands_renumbers_and_orders(tmp_path: Path) -> None:
    path, _ = _census(tmp_path)
    plain, new = tmp_path / "plain.csv", tmp_path / "new.csv"
    code, text = _run(_swap_args(path, plain, "--bin", "age=10"))
    assert code == 0, text
    code, text = _run(_swap_args(path, new, "--bin", "age=10", "--renumber-households"))
    assert code == 0, text
    assert "households renumbered 1 to n at random" in " ".join(text.split())
    swapped, renumbered = pd.read_csv(plain), pd.read_csv(new)
    # the ages are written in bands, and swapping never changes a person's band
    assert set(swapped["age"]) <= {f"{lo}-{lo + 9}" for lo in range(0, 90, 10)}
    # the new ids: the old households in their order, through a permutation of 1..n
    codes, uniques = pd.factorize(swapped["hid"])
    ids = renumbering_generator(7).permutation(len(uniques)) + 1
    want = swapped.assign(hid=ids[codes])
    want = want.iloc[np.argsort(ids[codes], kind="stable")].reset_index(drop=True)
    pd.testing.assert_frame_equal(renumbered, want)
    assert sorted(renumbered["hid"].unique()) == list(range(1, len(uniques) + 1))
    # the seed is neither said nor written (no column, no line names it)
    assert "seed" not in text.lower()
    assert not any("seed" in str(c).lower() for c in renumbered.columns)


def test_swap_random_order_follows_the_released_values(tmp_path: Path) -> None:
    path, _ = _census(tmp_path)
    kept, shuffled = tmp_path / "kept.csv", tmp_path / "shuffled.csv"
    assert _run(_swap_args(path, kept, "--renumber-households"))[0] == 0
    code, text = _run(_swap_args(path, shuffled, "--renumber-households", "--random-order"))
    assert code == 0, text
    assert "records in random order" in " ".join(text.split())  # however rich wraps it
    ordered = pd.read_csv(kept)
    want = ordered.iloc[random_order(ordered)].reset_index(drop=True)
    pd.testing.assert_frame_equal(pd.read_csv(shuffled), want)


def test_swap_refuses_the_partner_ids_with_renumbering(tmp_path: Path) -> None:
    path, _ = _census(tmp_path)
    args = _swap_args(path, tmp_path / "o.csv", "--renumber-households", "--return-swapped-id")
    code, text = _run(args)
    assert code == 2
    assert "--return-swapped-id appends the partners' original household ids" in text
    assert not (tmp_path / "o.csv").exists()


def test_swap_bin_names_the_column(tmp_path: Path) -> None:
    path, _ = _census(tmp_path)
    code, text = _run(_swap_args(path, tmp_path / "o.csv", "--bin", "agee=10"))
    assert code == 2
    assert "agee" in text


# --------------------------------------------------------------------------- random order


def test_random_order_does_not_depend_on_the_input_order(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"sex": rng.choice(["f", "m"], 50), "region": rng.choice(list("ab"), 50)})
    df = df.assign(income=rng.integers(0, 1000, 50))
    sorted_in, shuffled_in = tmp_path / "sorted.csv", tmp_path / "shuffled.csv"
    df.sort_values(["sex", "region"]).to_csv(sorted_in, index=False)
    df.sample(frac=1, random_state=3).to_csv(shuffled_in, index=False)
    outs = []
    for i, src in enumerate((sorted_in, shuffled_in)):
        out = tmp_path / f"out{i}.csv"
        args = ["suppress", str(src), "--qi", "sex,region", "-k", "1", "--random-order"]
        code, text = _run([*args, "--out", str(out)])
        assert code == 0, text
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    released = pd.read_csv(tmp_path / "out0.csv")
    assert released.sort_values(list(df.columns)).to_numpy().tolist() == (
        df.sort_values(list(df.columns)).to_numpy().tolist()
    )


@pytest.mark.parametrize("command", ["pram", "microaggregate", "noise"])
def test_random_order_on_every_command_that_writes(tmp_path: Path, command: str) -> None:
    rng = np.random.default_rng(2)
    df = pd.DataFrame(
        {"roof": rng.choice(["tin", "tile"], 40), "income": rng.normal(100, 10, 40).round(2)}
    )
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    var = "roof" if command == "pram" else "income"
    base = [command, str(src), "--vars", var]
    if command != "microaggregate":
        base += ["--seed", "3"]
    plain, shuffled = tmp_path / "plain.csv", tmp_path / "shuffled.csv"
    assert _run([*base, "--out", str(plain)])[0] == 0
    code, text = _run([*base, "--random-order", "--out", str(shuffled)])
    assert code == 0, text
    written = pd.read_csv(plain)
    want = written.iloc[random_order(written)].reset_index(drop=True)
    pd.testing.assert_frame_equal(pd.read_csv(shuffled), want)


def test_random_order_runs_on_a_lazy_engine(tmp_path: Path) -> None:
    """The engine writes the rows the input order gives, sorted by a hash of their values."""
    pytest.importorskip("duckdb")
    src = tmp_path / "in.parquet"
    TOY.to_parquet(src)
    args = ["suppress", str(src), "--qi", "sex", "--engine", "duckdb"]
    code, text = _run([*args, "--random-order", "--out", str(tmp_path / "o.parquet")])
    assert code == 0, text
    code, text = _run([*args, "--out", str(tmp_path / "kept.parquet")])
    assert code == 0, text
    shuffled = pd.read_parquet(tmp_path / "o.parquet")
    kept = pd.read_parquet(tmp_path / "kept.parquet")
    key = list(kept.columns)
    pd.testing.assert_frame_equal(
        shuffled.sort_values(key).reset_index(drop=True),
        kept.sort_values(key).reset_index(drop=True),
    )


def _table_rows(text: str) -> list[list[str]]:
    rows = [line.split("│")[1:4] for line in text.splitlines() if line.startswith("│")]
    return [[c.strip() for c in r] for r in rows[:3]]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_risk_bin_in_an_engine_counts_as_in_memory(tmp_path: Path, engine: str) -> None:
    pytest.importorskip(engine)
    rng = np.random.default_rng(8)
    df = pd.DataFrame({"sex": rng.choice(["f", "m"], 300), "age": rng.integers(0, 90, 300)})
    csv, parquet = tmp_path / "p.csv", tmp_path / "p.parquet"
    df.to_csv(csv, index=False)
    df.to_parquet(parquet)
    args = ["--qi", "sex,age", "--bin", "age=10", "--top", "0"]
    code, memory = _run(["risk", str(csv), *args])
    assert code == 0, memory
    code, lazy = _run(["risk", str(parquet), *args, "--engine", engine])
    assert code == 0, lazy
    # by hand: records whose (sex, band) occurs fewer than k times
    bands = df["age"] // 10
    fk = df.groupby([df["sex"], bands])["sex"].transform("size")
    want = [[str(k), f"{int((fk < k).sum()):,}"] for k in (2, 3, 5)]
    assert [r[:2] for r in _table_rows(memory)] == want
    assert _table_rows(lazy) == _table_rows(memory)


def test_risk_hid_refused_in_an_engine(tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    src = tmp_path / "in.parquet"
    TOY.to_parquet(src)
    code, text = _run(["risk", str(src), "--qi", "sex", "--hid", "hh", "--engine", "duckdb"])
    assert code == 2
    assert "--hid needs the records in memory; with --engine duckdb" in text


def test_swap_bin_keeps_declared_missing_codes(tmp_path: Path) -> None:
    path, df = _census(tmp_path)
    df.loc[df.index[:5], "age"] = -1  # "age not known", declared below
    df.to_csv(path, index=False)
    out = tmp_path / "o.csv"
    code, text = _run(_swap_args(path, out, "--bin", "age=10", "--missing-values", "-1"))
    assert code == 0, text
    ages = pd.read_csv(out)["age"].astype(str)
    assert (ages == "-1").sum() == 5
    assert set(ages[ages != "-1"]) <= {f"{lo}-{lo + 9}" for lo in range(0, 90, 10)}
    # without the declaration, -1 is a number and gets a band of its own
    code, text = _run(_swap_args(path, out, "--bin", "age=10"))
    assert code == 0, text
    assert (pd.read_csv(out)["age"] == "-10--1").sum() == 5
