"""``microsdc suppress`` end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
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
