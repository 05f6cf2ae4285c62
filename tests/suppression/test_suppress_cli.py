"""``microsdc suppress`` end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from microsdc.cli import cli as main


def _data(tmp_path: Path) -> Path:
    rng = np.random.default_rng(5)
    df = pd.DataFrame(
        {
            "age": rng.integers(18, 80, 300),
            "sex": rng.choice(["f", "m"], 300),
            "region": rng.choice(list("ABCD"), 300),
            "pid": np.repeat(np.arange(100), 3),
            "income": rng.normal(size=300),
        }
    )
    path = tmp_path / "in.csv"
    df.to_csv(path, index=False)
    return path


def test_suppress_writes_k_anonymous_file(tmp_path: Path) -> None:
    src = _data(tmp_path)
    out = tmp_path / "out.csv"
    args = ["suppress", str(src), "--qi", "age,sex,region", "-k", "3", "--bin", "age=10"]
    result = CliRunner().invoke(main, [*args, "--importance", "sex,region,age", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "cells blanked" in result.output and "region" in result.output
    from microsdc.risk import sample_frequencies

    df = pd.read_csv(out)
    assert (sample_frequencies(df, ["age", "sex", "region"])["fk"] >= 3).all()
    assert df["income"].tolist() == pd.read_csv(src)["income"].tolist()


def test_bin_keeps_declared_missing_codes(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text("sex,age\nm,31\nm,.\nf,47\nf,42\nm,NA\nm,35\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    args = [
        "suppress",
        str(src),
        "--qi",
        "sex,age",
        "-k",
        "2",
        "--bin",
        "age=10",
        "--missing",
        "wildcard",
    ]
    result = CliRunner().invoke(main, [*args, "--missing-values", "NA,.", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").splitlines() == [
        "sex,age",
        "m,30-39",
        "m,.",
        "f,40-49",
        "f,40-49",
        "m,NA",
        "m,30-39",
    ]


def test_suppress_random_and_subject(tmp_path: Path) -> None:
    src = _data(tmp_path)
    out = tmp_path / "out.parquet"
    r1 = CliRunner().invoke(
        main,
        [
            "suppress",
            str(src),
            "--qi",
            "sex,region",
            "-k",
            "40",
            "--method",
            "random",
            "--seed",
            "1",
            "--out",
            str(out),
        ],
    )
    assert r1.exit_code == 0, r1.output
    assert "Random missingness" in r1.output
    r2 = CliRunner().invoke(
        main,
        [
            "suppress",
            str(src),
            "--qi",
            "sex,region",
            "-k",
            "5",
            "--subject-id",
            "pid",
            "--out",
            str(out),
        ],
    )
    assert r2.exit_code == 0, r2.output


def test_suppress_errors_exit_2(tmp_path: Path) -> None:
    src = _data(tmp_path)
    out = tmp_path / "o.csv"
    r = CliRunner().invoke(main, ["suppress", str(src), "--qi", "nope", "--out", str(out)])
    assert r.exit_code == 2 and "nope" in r.output
    r = CliRunner().invoke(
        main, ["suppress", str(src), "--qi", "sex", "-k", "1000", "--out", str(out)]
    )
    assert r.exit_code == 2 and "at most the number of records" in r.output
    r = CliRunner().invoke(
        main, ["suppress", str(src), "--qi", "sex", "--importance", "sex=x", "--out", str(out)]
    )
    assert r.exit_code == 2
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--qi", "nope"], "Option --qi names 1 column(s) not in the data: 'nope'"),
        (["--qi", "sex", "-k", "1000"], "Option -k must be at most the number of records"),
        (["--qi", "age,sex", "--bin", "age=-5"], "Option --bin must be a real number > 0"),
        (["--qi", "sex,region", "--importance", "sex"], "Option --importance does not cover"),
        (["--qi", "sex", "--strata", "sex"], "Option --strata names a quasi-identifier"),
        (["--qi", "sex", "--subject-id", "nope"], "Option --subject-id names 1 column"),
        (["--qi", "sex", "--linked", "sex=nope"], "Option --linked names 1 column"),
        (["--qi", "sex", "--linked", "age=income"], "Option --linked names 'age'"),
        (["--qi", "sex", "--linked", "sex"], "--linked expects KEY=COLUMN"),
        (["--qi", "sex", "--drop", "nope"], "Option --drop names 1 column"),
        (["--qi", "sex", "--method", "exact", "--missing", "category"], "--method exact solves"),
    ],
)
def test_suppress_errors_name_the_option(tmp_path: Path, args: list[str], message: str) -> None:
    src = _data(tmp_path)
    out = tmp_path / "o.csv"
    r = CliRunner().invoke(main, ["suppress", str(src), *args, "--out", str(out)])
    assert r.exit_code == 2
    assert message in r.output
    assert " parameter of " not in r.output and "local_suppression" not in r.output
    assert not out.exists()


def test_suppress_linked_and_drop(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    n = 200
    educ = rng.choice(["BA", "MA", "PhD", "none"], n, p=[0.4, 0.3, 0.05, 0.25])
    sex = rng.choice(["f", "m"], n)
    df = pd.DataFrame(
        {
            "educ": educ,
            "code": pd.Series(educ).map({"BA": 1, "MA": 2, "PhD": 3, "none": 0}),
            "sex": sex,
            "rel": np.where(sex == "m", "husband", "wife"),
            "age": rng.integers(20, 70, n),
        }
    )
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    out = tmp_path / "out.csv"
    base = [
        "suppress",
        str(src),
        "--qi",
        "educ,sex,age",
        "-k",
        "3",
        "--bin",
        "age=10",
        "--missing",
        "wildcard",
    ]
    base += ["--importance", "age,educ,sex"]  # sex blanked first, then educ
    r = CliRunner().invoke(main, [*base, "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "read back" in r.output  # warned: code gives educ back, rel gives sex back
    r = CliRunner().invoke(
        main, [*base, "--drop", "code", "--linked", "sex=rel", "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    assert "read back" not in r.output
    got = pd.read_csv(out)
    assert list(got.columns) == ["educ", "sex", "rel", "age"]
    blanked = got["sex"].isna()
    assert blanked.any()
    assert got["rel"].isna().tolist() == blanked.tolist()
    assert "linked column rel" in r.output


def test_drop_of_a_key_variable_is_named(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    pd.DataFrame({"sex": ["f", "m", "f"], "age": [1, 2, 3]}).to_csv(src, index=False)
    res = CliRunner().invoke(
        main,
        [
            "suppress",
            str(src),
            "--qi",
            "sex,age",
            "--drop",
            "sex",
            "--out",
            str(tmp_path / "o.csv"),
        ],
    )
    assert res.exit_code == 2
    assert "--drop names key variable(s) of --qi: 'sex'" in res.output
    assert not (tmp_path / "o.csv").exists()


def test_suppress_to_a_dis_suda_threshold(tmp_path: Path) -> None:
    rows = [("m", 20, "a")] * 3 + [("f", 20, "a")] * 3 + [("m", 30, "a")] * 3
    rows += [("f", 30, "a")] * 3 + [("m", 20, "b")]
    src = tmp_path / "in.csv"
    pd.DataFrame(rows, columns=["sex", "age", "region"]).to_csv(src, index=False)
    out = tmp_path / "out.csv"
    args = ["suppress", str(src), "--qi", "sex,age,region", "-k", "1", "--missing", "wildcard"]
    result = CliRunner().invoke(main, [*args, "--dis-suda-threshold", "0.5", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "DIS-SUDA score above 0.5" in result.output and ": 1 -> 0;" in result.output
    released = pd.read_csv(out)
    assert released["region"].isna().tolist() == [False] * 12 + [True]
    bad = CliRunner().invoke(main, [*args, "--dis-suda-threshold", "1.5", "--out", str(out)])
    assert bad.exit_code != 0
    assert "--dis-suda-threshold must be a real number in the range [0.0, 1.0)" in bad.output
    assert "Got 1.5" in bad.output
    frac = CliRunner().invoke(
        main, [*args, "--dis-suda-threshold", "0.5", "--dis-fraction", "0", "--out", str(out)]
    )
    assert frac.exit_code != 0
    assert "--dis-fraction must be a real number in the range (0.0, 1.0)" in frac.output
    lazy = CliRunner().invoke(
        main, [*args, "--dis-suda-threshold", "0.5", "--engine", "polars", "--out", "x.parquet"]
    )
    assert lazy.exit_code != 0
    assert "--dis-suda-threshold needs the records in memory" in lazy.output


@pytest.mark.parametrize(
    ("given", "partner"),
    [
        (["--dis-fraction", "0.1"], "--dis-suda-threshold"),
        (["--seed", "3"], "--method random"),
        (["--seed", "3", "--method", "greedy"], "--method random"),
        (["--subject-rule", "missing_if_differs"], "--subject-id"),
    ],
    ids=["dis-fraction", "seed", "seed-greedy", "subject-rule"],
)
@pytest.mark.parametrize("engine", ["pandas", "duckdb", "polars"])
def test_an_option_without_the_one_it_works_with_is_refused(
    tmp_path: Path, given: list[str], partner: str, engine: str
) -> None:
    # each used to be taken and change nothing
    if engine != "pandas":
        pytest.importorskip(engine)
    src = _data(tmp_path)
    out = tmp_path / "out.parquet"
    args = ["suppress", str(src), "--qi", "sex,region", "-k", "3", "--engine", engine]
    result = CliRunner().invoke(main, [*args, *given, "--out", str(out)])
    assert result.exit_code == 2, result.output
    flag = given[0]
    message = " ".join(result.output.split())
    if flag == "--seed" and engine != "pandas":  # the engine's own refusal comes first
        assert "Error: --seed needs the records in memory" in message
        return
    assert f"Error: {flag} applies only with {partner} (" in message
    assert f"add {partner} or leave {flag} out." in message
    assert not out.exists()


def test_the_options_with_the_one_they_work_with_are_taken(tmp_path: Path) -> None:
    src = _data(tmp_path)
    out = tmp_path / "out.csv"
    args = ["suppress", str(src), "--qi", "sex,region", "-k", "3", "--out", str(out)]
    for given in (
        ["--method", "random", "--seed", "3"],
        ["--subject-id", "pid", "--subject-rule", "missing_if_differs"],
        ["--dis-suda-threshold", "0.5", "--dis-fraction", "0.1"],
    ):
        result = CliRunner().invoke(main, [*args, *given])
        assert result.exit_code == 0, (given, result.output)
