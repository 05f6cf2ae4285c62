"""One path for every ``--engine``: the refusals come from one table before the input is
opened, and the options the engine can run are checked as in memory."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from cli_runner import run_cli

pytest.importorskip("narwhals")

ADVICE = "with --engine {} the rows stay in the engine (use --engine pandas)"

#: (command, options) -> the refusal, word for word (engine filled in)
REFUSALS = [
    (
        ["suppress", "--qi", "a", "--method", "exact"],
        "--method needs the records in memory: --method exact works on the records (small "
        "instances); --method greedy works on patterns; " + ADVICE + ".",
    ),
    (
        ["suppress", "--qi", "a", "--missing", "probabilistic"],
        "--missing needs the records in memory: --missing probabilistic suppression works "
        "record by record (identical records can get different blanks); the default "
        "'category', 'wildcard' or an alpha work on patterns; " + ADVICE + ".",
    ),
    (
        ["suppress", "--qi", "a", "--subject-id", "b"],
        "--subject-id needs the records in memory: subjects are collapsed from their "
        "records; " + ADVICE + ".",
    ),
    (
        ["suppress", "--qi", "a", "--linked", "a=b"],
        "--linked needs the records in memory: blanking linked columns needs their values "
        "per record; " + ADVICE + ".",
    ),
    (
        ["suppress", "--qi", "a", "--seed", "3"],
        "--seed needs the records in memory: the seed draws the blanks of --method random, "
        "which works on the records; " + ADVICE + ".",
    ),
    (
        ["suppress", "--qi", "a", "--dis-suda-threshold", "0.1"],
        "--dis-suda-threshold needs the records in memory: special uniques (DIS-SUDA) are "
        "searched record by record and measured again on the released records; " + ADVICE + ".",
    ),
    (["risk", "--qi", "a", "--hid", "b"], "--hid needs the records in memory; " + ADVICE),
    (
        ["pram", "--vars", "a", "--random-order"],
        "Option --random-order needs the records in memory (the rows are put in a new order "
        "in memory); " + ADVICE,
    ),
    (
        ["pram", "--vars", "a", "--hid", "b"],
        "Option --hid needs the records in memory (households are PRAMmed as units from "
        "their members in memory); " + ADVICE,
    ),
]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize(("args", "want"), REFUSALS)
def test_refused_before_the_input_is_opened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: str, args: list[str], want: str
) -> None:
    # the input does not exist: the refusal comes first, so no row was read
    command, *options = args
    missing = str(tmp_path / "nosuch.parquet")
    out = str(tmp_path / "o.parquet")
    call = [command, missing, *options, "--engine", engine, "--out", out]
    code, _, err = run_cli(call, capsys)
    assert code == 2
    message = " ".join(err.split())  # click wraps nothing, rich may: one line either way
    assert f"Error: {want.format(engine)}" in message
    assert not Path(out).exists()


@pytest.mark.parametrize("engine", ["pandas", "duckdb", "polars"])
def test_out_of_range_dis_fraction_refused_on_every_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: str
) -> None:
    # an engine used to ignore it silently; pandas refused it
    pytest.importorskip("duckdb")
    pytest.importorskip("polars")
    src = tmp_path / "in.parquet"
    pd.DataFrame({"a": ["x", "x", "y", "y"], "b": [1, 2, 3, 4]}).to_parquet(src)
    out = tmp_path / "o.parquet"
    args = ["suppress", str(src), "--qi", "a", "-k", "2", "--dis-fraction", "5"]
    code, _, err = run_cli([*args, "--engine", engine, "--out", str(out)], capsys)
    assert code == 2
    want = "Option --dis-fraction must be a real number in the range (0.0, 1.0). Got 5.0 instead."
    assert want in err
    assert not out.exists()


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_drop_and_bin_in_the_engine_write_what_pandas_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: str
) -> None:
    pytest.importorskip(engine)
    df = pd.DataFrame(
        {
            "sex": ["f", "m", "f", "m", "f", "m", "f", "f"],
            "age": [21, 23, 25, 27, 34, 36, 38, 52],
            "note": list("abcdefgh"),
        }
    )
    src = tmp_path / "in.parquet"
    df.to_parquet(src)
    args = ["suppress", str(src), "--qi", "sex,age", "-k", "2", "--bin", "age=10", "--drop", "note"]
    memory, lazy = tmp_path / "m.parquet", tmp_path / "e.parquet"
    assert run_cli([*args, "--out", str(memory)], capsys)[0] == 0
    code, out, err = run_cli([*args, "--engine", engine, "--out", str(lazy)], capsys)
    assert code == 0, err
    line = " ".join(out.split())
    assert f"8 records in 5 distinct key combinations ({engine})." in line
    assert "Not checked here" not in line  # the engine checks the other columns
    got, want = pd.read_parquet(lazy), pd.read_parquet(memory)
    assert list(got.columns) == ["sex", "age"] == list(want.columns)
    # bands 20-29 (f, m, f, m), 30-39 (f, m, f) and 50-59 (f): the same cells blanked
    for name in ("sex", "age"):
        assert (
            got[name].astype(object).fillna("").tolist()
            == want[name].astype(object).fillna("").tolist()
        )
    assert set(want["age"].dropna().astype(str)) <= {"20-29", "30-39", "50-59"}
