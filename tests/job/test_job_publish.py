"""A job's three outputs are published together: a run that fails while writing leaves
the input and the previous run's data, audit record and report as they were, all three."""

from __future__ import annotations

import errno
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import microsdc.job.publish as publish
from microsdc.job import run_job
from microsdc.job.publish import publish_together

JOB = """title = "publish test"
steps = ["risk", "suppression"]
[input]
path = "{path}"
{engine}
[variables]
quasi_identifiers = ["a", "b"]
[risk]
k = {k}
[output]
directory = "out"
data = "{data}"
"""


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _setup(tmp_path: Path, *, data: str = "released.csv", engine: str = "") -> Path:
    frame = pd.DataFrame({"a": [1, 1, 1, 2, 2, 3, 4, 4, 5], "b": list("xxxyyzzwv")})
    if engine:
        src = tmp_path / "in.parquet"
        frame.to_parquet(src, index=False)
    else:
        src = tmp_path / "in.csv"
        frame.to_csv(src, index=False)
    for k in (2, 3):
        (tmp_path / f"k{k}.toml").write_text(
            JOB.format(path=src.as_posix(), k=k, data=data, engine=engine), encoding="utf-8"
        )
    return src


def _state(tmp_path: Path, src: Path) -> dict[str, str]:
    """The input's digest and every file of the output folder (temporary files included)."""
    out = tmp_path / "out"
    files = sorted(p for p in out.rglob("*") if p.is_file()) if out.exists() else []
    state = {str(p.relative_to(tmp_path)): _digest(p) for p in files}
    state["input"] = _digest(src)
    return state


def _fail_write_text(suffix: str) -> Callable[..., Any]:
    original = Path.write_text

    def write_text(self: Path, text: str, *args: Any, **kwargs: Any) -> int:
        if self.name.endswith(suffix):
            original(self, text[: len(text) // 2], *args, **kwargs)  # half, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return original(self, text, *args, **kwargs)

    return write_text


def _fail_data(*args: Any, **kwargs: Any) -> None:
    path = Path(args[1])
    path.write_bytes(b"a,b\n1,")  # a part of the file, then the disk is full
    raise OSError(errno.ENOSPC, "No space left on device", str(path))


def _fail_nth_replace(n: int) -> Callable[..., None]:
    calls = {"n": 0}
    original = os.replace

    def replace(src: Any, dst: Any) -> None:
        calls["n"] += 1
        if calls["n"] == n:
            raise OSError(errno.EIO, "Input/output error", str(dst))
        original(src, dst)

    return replace


#: Each failure: what is replaced, and a maker of its replacement (fresh for each test).
FAILURES: dict[str, tuple[str, Callable[[], Any]]] = {
    "data file": ("microsdc.io.write_table", lambda: _fail_data),
    "audit record": ("pathlib.Path.write_text", lambda: _fail_write_text(".json")),
    "report": ("pathlib.Path.write_text", lambda: _fail_write_text(".html")),
    "report drawn": ("microsdc.report.render_report", lambda: lambda audit: 1 / 0),
    "publishing the audit": ("microsdc.job.publish.os.replace", lambda: _fail_nth_replace(2)),
    "publishing the report": ("microsdc.job.publish.os.replace", lambda: _fail_nth_replace(3)),
}


@pytest.mark.parametrize("data", ["released.csv", "sub/released.sav"])
@pytest.mark.parametrize("failure", list(FAILURES))
def test_a_failed_write_leaves_the_previous_outputs_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str, data: str
) -> None:
    src = _setup(tmp_path, data=data)
    first = run_job(tmp_path / "k2.toml")
    assert json.loads(first.written["audit"].read_text())["parameters"]["k"] == 2
    previous = _state(tmp_path, src)
    assert len(previous) == 5  # the input and four outputs (data, audit, report, release)
    target, make = FAILURES[failure]
    monkeypatch.setattr(target, make())
    with pytest.raises((OSError, ZeroDivisionError)):
        run_job(tmp_path / "k3.toml")  # another k: every output would differ
    monkeypatch.undo()
    assert _state(tmp_path, src) == previous
    again = run_job(tmp_path / "k3.toml")  # and a run that succeeds replaces all three
    assert json.loads(again.written["audit"].read_text())["parameters"]["k"] == 3
    assert set(_state(tmp_path, src)) == set(previous)


@pytest.mark.parametrize("failure", ["data file", "report", "publishing the report"])
def test_a_first_run_that_fails_leaves_no_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    src = _setup(tmp_path)
    before = _digest(src)
    target, make = FAILURES[failure]
    monkeypatch.setattr(target, make())
    with pytest.raises(OSError):
        run_job(tmp_path / "k3.toml")
    monkeypatch.undo()
    assert _digest(src) == before
    assert [p for p in (tmp_path / "out").rglob("*") if p.is_file()] == []


def test_an_engine_job_that_fails_while_writing_leaves_the_previous_outputs_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("polars")
    src = _setup(tmp_path, data="released.parquet", engine='engine = "polars"')
    run_job(tmp_path / "k2.toml")
    previous = _state(tmp_path, src)
    assert len(previous) == 5
    monkeypatch.setattr(Path, "write_text", _fail_write_text(".html"))
    with pytest.raises(OSError):
        run_job(tmp_path / "k3.toml")
    monkeypatch.undo()
    assert _state(tmp_path, src) == previous


def test_publish_together_puts_back_a_target_that_did_not_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.txt").write_text("old a")
    monkeypatch.setattr(publish.os, "replace", _fail_nth_replace(2))
    with pytest.raises(OSError):
        publish_together(
            [
                (tmp_path / "a.txt", lambda p: p.write_text("new a")),
                (tmp_path / "b.txt", lambda p: p.write_text("new b")),
            ]
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    assert (tmp_path / "a.txt").read_text() == "old a"


def test_publish_together_writers_see_the_final_name(tmp_path: Path) -> None:
    seen: list[str] = []

    def writer(p: Path) -> None:
        seen.append(p.name)
        p.write_text("x")

    publish_together([(tmp_path / "data.csv.gz", writer), (tmp_path / "r.html", writer)])
    assert seen == ["data.csv.gz", "r.html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv.gz", "r.html"]


def _swap_args(data: Path, out: Path, log: Path, seed: int) -> list[str]:
    # -k 0 and a similarity on the top level: many sampled households find no donor
    return [
        "swap",
        str(data),
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
        "--seed",
        str(seed),
        "--log",
        str(log),
        "--out",
        str(out),
    ]


@pytest.mark.parametrize("failure", ["data file", "publishing the log"])
def test_swap_command_publishes_its_data_and_log_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    from click.testing import CliRunner

    from microsdc.cli import cli as main
    from microsdc.datasets import synthetic_census

    data, out, log = tmp_path / "census.csv", tmp_path / "swapped.csv", tmp_path / "log.txt"
    synthetic_census(1500, seed=4).to_csv(data, index=False)
    first = CliRunner().invoke(main, _swap_args(data, out, log, 1))
    assert first.exit_code == 0, first.output
    assert log.read_text().split()[0] != "0"  # households without a donor, listed
    census = pd.read_csv(data)
    census["hincome"] += 1  # the next release differs from this one
    census.to_csv(data, index=False)
    previous = {p.name: _digest(p) for p in tmp_path.iterdir()}
    target, make = FAILURES["data file" if failure == "data file" else "publishing the audit"]
    monkeypatch.setattr(target, make())
    res = CliRunner().invoke(main, _swap_args(data, out, log, 2))  # another swap
    monkeypatch.undo()
    assert res.exit_code != 0
    assert {p.name: _digest(p) for p in tmp_path.iterdir()} == previous
    again = CliRunner().invoke(main, _swap_args(data, out, log, 2))
    assert again.exit_code == 0, again.output
    assert _digest(out) != previous["swapped.csv"]
