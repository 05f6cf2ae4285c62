"""``microsdc swap`` and ``microsdc synth`` through click's test runner."""

from __future__ import annotations

import types

import click
import pandas as pd
import pytest
from click.testing import CliRunner

from microsdc.cli import cli as main


@pytest.fixture(scope="module")
def census_csv(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("cli") / "census.csv"
    result = CliRunner().invoke(
        main, ["synth", "--households", "3000", "--seed", "4", "--out", str(path)]
    )
    assert result.exit_code == 0, result.output
    assert "3,000 households" in result.output
    return str(path)


def test_synth_writes_census(census_csv):
    df = pd.read_csv(census_csv)
    assert df["hid"].nunique() == 3000
    assert list(df.columns)[:4] == ["nuts1", "nuts2", "nuts3", "lau2"]


def test_swap_end_to_end(census_csv, tmp_path):
    out = tmp_path / "out.parquet"
    res = CliRunner().invoke(
        main,
        [
            "swap",
            census_csv,
            "--hid",
            "hid",
            "--hierarchy",
            "nuts1,nuts2",
            "--carry-along",
            "nuts3,lau2",
            "--similar",
            "hsize;hsize,htype",
            "--risk-variables",
            "ageGroup,national",
            "-k",
            "0",
            "--swaprate",
            "0.1",
            "--seed",
            "3",
            "--out",
            str(out),
            "--return-swapped-id",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "nuts2" in res.output and "300" in res.output
    df = pd.read_parquet(out)
    src = pd.read_csv(census_csv)
    assert len(df) == len(src)
    assert list(df.columns) == [*src.columns, "hid_swapped"]
    assert (df.groupby("hid")["hid_swapped"].first() != df["hid"].unique()).sum() == 300


def test_swap_same_as_library(census_csv, tmp_path):
    from microsdc.swapping import record_swap

    out = tmp_path / "out.csv"
    args = [
        "swap",
        census_csv,
        "--hid",
        "hid",
        "--hierarchy",
        "nuts1,nuts2,nuts3",
        "--similar",
        "hsize",
        "--risk-variables",
        "ageGroup,national",
        "-k",
        "3",
        "--seed",
        "9",
        "--carry-along",
        "lau2",
        "--out",
        str(out),
    ]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    src = pd.read_csv(census_csv)
    lib = record_swap(
        src,
        "hid",
        ["nuts1", "nuts2", "nuts3"],
        [["hsize"]],
        risk_variables=["ageGroup", "national"],
        k_anonymity=3,
        carry_along=["lau2"],
        seed=9,
    )
    pd.testing.assert_frame_equal(pd.read_csv(out), lib.reset_index(drop=True))


def test_swap_log_file(census_csv, tmp_path):
    log = tmp_path / "trs.log"
    res = CliRunner().invoke(
        main,
        [
            "swap",
            census_csv,
            "--hid",
            "hid",
            "--hierarchy",
            "nuts1",
            "--similar",
            "nuts1,hsize",
            "--checked",
            "nuts2,nuts3,lau2",
            "--risk-variables",
            "ageGroup",
            "-k",
            "0",
            "--log",
            str(log),
            "--out",
            str(tmp_path / "o.csv"),
        ],
    )
    assert res.exit_code == 0, res.output
    lines = log.read_text().splitlines()
    assert lines[0] == "75 household IDs for which a suitable donor for swapping was not found"
    assert len(lines) == 77
    assert str(log) in res.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hierarchy", "nuts1,nutsX"], "Option --hierarchy names 1 column"),
        (["--hierarchy", "nuts1", "--risk-variables", "age"], "Option --risk-variables"),
        (["--hierarchy", "nuts1", "--swaprate", "2"], "Option --swaprate"),
        (["--hierarchy", "nuts1", "-k", "-2"], "Option -k/--k-anonymity"),
        (
            ["--hierarchy", "nuts1,nuts2,nuts3"],
            "'lau2' (it gives back the nuts3 area of",
        ),
        (
            ["--hierarchy", "nuts1,nuts2,nuts3", "--checked", "lau3"],
            "Option --checked names 1 column(s) not in the data: 'lau3'",
        ),
    ],
)
def test_swap_errors(census_csv, tmp_path, args, message):
    base = [
        "swap",
        census_csv,
        "--hid",
        "hid",
        "--risk-variables",
        "ageGroup",
        "--out",
        str(tmp_path / "o.csv"),
    ]
    res = CliRunner().invoke(main, base + args)
    assert res.exit_code == 2
    assert message in res.output
    assert " parameter of " not in res.output  # the option typed, not the Python name
    assert len(res.output.strip().splitlines()) == 1


def test_swap_without_risk_variables_says_what_to_give(census_csv, tmp_path):
    args = ["swap", census_csv, "--hid", "hid", "--hierarchy", "nuts1,nuts2,nuts3,lau2"]
    res = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "o.csv")])
    assert res.exit_code == 2
    text = " ".join(res.output.split())
    assert "--risk-variables is required: give the person variables" in text
    assert "None" not in text and "a risk is given" not in text


def test_swap_missing_file(tmp_path):
    res = CliRunner().invoke(
        main,
        [
            "swap",
            str(tmp_path / "nope.csv"),
            "--hid",
            "h",
            "--hierarchy",
            "a",
            "--risk-variables",
            "b",
            "--out",
            str(tmp_path / "o.csv"),
        ],
    )
    assert res.exit_code == 2
    assert "nope.csv" in res.output


def test_progress_bar_on_large_input(census_csv, tmp_path, monkeypatch):
    import microsdc.cli.swap as cli_swap

    seen = []
    monkeypatch.setattr(cli_swap, "PROGRESS_ROWS", 10)
    monkeypatch.setattr(
        cli_swap, "sys", types.SimpleNamespace(stderr=types.SimpleNamespace(isatty=lambda: True))
    )
    import rich.progress

    real_update = rich.progress.Progress.update

    def update(self, task_id, **kw):
        seen.append((task_id, kw.get("completed")))
        return real_update(self, task_id, **kw)

    monkeypatch.setattr(rich.progress.Progress, "update", update)
    res = CliRunner().invoke(
        main,
        [
            "swap",
            census_csv,
            "--hid",
            "hid",
            "--hierarchy",
            "nuts1,nuts2",
            "--carry-along",
            "nuts3,lau2",
            "--similar",
            "hsize",
            "--risk-variables",
            "ageGroup",
            "-k",
            "0",
            "--out",
            str(tmp_path / "o.csv"),
        ],
    )
    assert res.exit_code == 0, res.output
    tasks = {t for t, _ in seen}
    assert len(tasks) == 2  # one bar per hierarchy level
    assert {t for t, done in seen if done == 1.0} == tasks  # each bar completes


def test_parse_profiles():
    from microsdc.cli.swap import _parse_profiles

    assert _parse_profiles("hsize;hsize,htype") == [["hsize"], ["hsize", "htype"]]
    assert _parse_profiles(None) is None
    assert _parse_profiles('a, b ;"c;d"') == [["a", "b"], ["c;d"]]
    with pytest.raises(click.UsageError, match="has a profile with no column"):
        _parse_profiles("a, b ;")  # an empty profile: no fallback, or one matching everybody?


@pytest.mark.parametrize("target", ["input", "out"])
def test_log_never_replaces_the_input_or_the_output(census_csv, tmp_path, target):
    import shutil

    data = tmp_path / "census.csv"
    shutil.copy(census_csv, data)
    before = data.read_bytes()
    out = tmp_path / "swapped.csv"
    log = data if target == "input" else tmp_path / "." / "swapped.csv"
    args = ["swap", str(data), "--hid", "hid", "--hierarchy", "nuts1,nuts2"]
    args += ["--risk-variables", "ageGroup", "--seed", "1", "--log", str(log), "--out", str(out)]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2
    what = "the input file" if target == "input" else "the --out file"
    assert f"is {what}; the households without a donor are written to a file" in res.output
    assert data.read_bytes() == before and not out.exists()


def test_log_not_written_when_every_household_found_a_donor(census_csv, tmp_path):
    log, out = tmp_path / "log.txt", tmp_path / "o.parquet"
    args = ["swap", census_csv, "--hid", "hid", "--hierarchy", "nuts1,nuts2", "-k", "0"]
    args += ["--carry-along", "nuts3,lau2", "--risk-variables", "ageGroup", "--swaprate", "0.05"]
    res = CliRunner().invoke(main, [*args, "--seed", "1", "--log", str(log), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "Every sampled household found a donor" in " ".join(res.output.split())
    assert out.exists() and not log.exists()
