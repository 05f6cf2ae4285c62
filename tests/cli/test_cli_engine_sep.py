"""``--sep`` with ``--engine``: typed as in memory (``tab``, ``\\t``, one character), for
every command that opens a CSV file in an engine."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from cli_runner import run_cli

pytest.importorskip("duckdb")
pytest.importorskip("polars")
pytest.importorskip("narwhals")

FRAME = pd.DataFrame(
    {"region": ["n", "n", "s", "s", "s", "n"], "roof": ["tin", "tile", "tin", "tin", "tile", "tin"]}
)


@pytest.fixture
def tsv(tmp_path: Path) -> Path:
    path = tmp_path / "survey.csv"
    FRAME.to_csv(path, index=False, sep="\t")
    return path


def _command(name: str, src: Path, out: Path) -> list[str]:
    if name == "pram":
        return ["pram", str(src), "--vars", "roof", "--seed", "3", "--out", str(out)]
    if name == "risk":
        return ["risk", str(src), "--qi", "roof", "--out", str(out)]
    return ["suppress", str(src), "--qi", "roof", "-k", "2", "--out", str(out)]


@pytest.mark.parametrize("command", ["pram", "risk", "suppress"])
@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("sep", ["tab", "\\t", "\t"])
def test_engine_reads_the_separator_as_typed(
    tsv: Path,
    tmp_path: Path,
    command: str,
    engine: str,
    sep: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out.parquet"
    args = [*_command(command, tsv, out), "--sep", sep, "--engine", engine]
    code, _, err = run_cli(args, capsys)
    assert code == 0, err
    got = pd.read_parquet(out)
    assert list(got.columns[:2]) == ["region", "roof"]
    assert sorted(got["region"]) == sorted(FRAME["region"])  # never PRAMmed nor blanked


@pytest.mark.parametrize("command", ["pram", "risk", "suppress"])
def test_engine_refuses_a_separator_of_two_characters(
    tsv: Path, tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*_command(command, tsv, tmp_path / "out.parquet"), "--sep", "ab", "--engine", "duckdb"]
    code, _, err = run_cli(args, capsys)
    assert code == 2 and "give one character" in err and "'ab'" in err
    assert not (tmp_path / "out.parquet").exists()


@pytest.mark.parametrize("engine", ["pandas", "duckdb", "polars"])
def test_a_separator_given_wins_over_the_tsv_name(
    tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "survey.tsv"  # named .tsv, written with ';'
    FRAME.to_csv(src, index=False, sep=";")
    out = tmp_path / "out.parquet"
    args = [*_command("risk", src, out), "--sep", ";"]
    code, _, err = run_cli([*args, "--engine", engine] if engine != "pandas" else args, capsys)
    assert code == 0, err
    assert list(pd.read_parquet(out).columns[:2]) == ["region", "roof"]
    # without --sep a .tsv file is read as tab-separated: the one column is refused
    code, _, err = run_cli([*_command("risk", src, tmp_path / "o2.parquet")], capsys)
    assert code != 0 and "not in survey.tsv" in err
