"""``microsdc pram --engine``: the engine PRAMs the file, the same release as pandas."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_runner import run_cli

pytest.importorskip("duckdb")
pytest.importorskip("polars")
pytest.importorskip("narwhals")


@pytest.fixture
def survey(tmp_path: Path) -> Path:
    rng = np.random.default_rng(1)
    n = 800
    frame = pd.DataFrame(
        {
            "region": rng.choice(["north", "south"], n),
            "roof": rng.choice(["tin", "tile", "straw", None], n),
            "band": rng.integers(0, 6, n),
            "income": rng.integers(100, 900, n),
        }
    )
    (tmp_path / "parts").mkdir()
    frame.iloc[:500].to_parquet(tmp_path / "parts" / "a.parquet", index=False)
    frame.iloc[500:].to_parquet(tmp_path / "parts" / "b.parquet", index=False)
    frame.to_parquet(tmp_path / "whole.parquet", index=False)
    return tmp_path


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engine_release_equals_pandas(
    survey: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--vars", "roof,band", "--strata", "region", "--seed", "4", "--neighbours", "band"]
    code, _, err = run_cli(
        ["pram", str(survey / "whole.parquet"), *args, "--out", str(survey / "pd.parquet")],
        capsys,
    )
    assert code == 0, err
    code, stdout, err = run_cli(
        ["pram", str(survey / "parts" / "*.parquet"), *args, "--engine", engine,
         "--out", str(survey / f"{engine}.parquet"), "--matrices", str(survey / "m.csv")],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert f"({engine}; the rows stayed in the engine)" in stdout
    got = pd.read_parquet(survey / f"{engine}.parquet")
    want = pd.read_parquet(survey / "pd.parquet")
    for col in want.columns:
        assert got[col].astype(object).tolist() == want[col].astype(object).tolist(), col
    assert (got["band"] != pd.read_parquet(survey / "whole.parquet")["band"]).sum() > 0
    assert len(pd.read_csv(survey / "m.csv")) == 2 * (3 * 3 + 6 * 6)  # strata x L^2, no missing


def test_engine_needs_a_parquet_output(survey: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(
        ["pram", str(survey / "whole.parquet"), "--vars", "roof", "--engine", "duckdb",
         "--out", str(survey / "out.csv")],
        capsys,
    )  # fmt: skip
    assert code != 0 and "--out must be a .parquet file" in err


def test_a_glob_without_engine_is_refused(survey: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(
        ["pram", str(survey / "parts" / "*.parquet"), "--vars", "roof",
         "--out", str(survey / "out.parquet")],
        capsys,
    )  # fmt: skip
    assert code != 0 and "--engine duckdb" in err


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (["--random-order"], "Option --random-order needs the records in memory"),
        (["--hid", "region"], "Option --hid needs the records in memory"),
    ],
)
def test_record_options_refused_with_an_engine_before_writing(
    survey: Path, option: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """--random-order was ignored with an engine (the rows came out in the input's order,
    exit 0); --hid gave the library's advice to collect the frame."""
    out = survey / "out.parquet"
    code, _, err = run_cli(
        ["pram", str(survey / "whole.parquet"), "--vars", "roof", "--engine", "duckdb",
         *option, "--out", str(out)],
        capsys,
    )  # fmt: skip
    assert code == 2, err
    assert said in " ".join(err.split()) and "use --engine pandas" in " ".join(err.split())
    assert not out.exists()
