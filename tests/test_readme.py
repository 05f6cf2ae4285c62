"""The README's code and commands run, and CI runs the README's test command."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def _quickstart_commands() -> list[str]:
    section = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", section, re.S)]


def test_quickstart_has_exactly_two_commands() -> None:
    commands = _quickstart_commands()
    assert len(commands) == 2
    assert all("\n" not in c for c in commands)
    assert commands[0].endswith("microsdc demo")
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert _quickstart_commands()[1] in ci.splitlines()


def test_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert len(blocks) >= 3
    namespace: dict[str, object] = {}
    for block in blocks:  # one namespace: later blocks use what earlier ones defined
        exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["n_at_risk"] == 1  # fk = 4 4 3 2 4 5 7
    result = namespace["result"]
    assert result.data.equals(namespace["swapped"])  # record_swap is record_swap_result().data


def _command_lines() -> list[str]:
    section = README.split("### Command line", 1)[1].split("\n## ", 1)[0]
    block = re.findall(r"```bash\n(.*?)```", section, re.S)[0]
    return [line for line in block.replace("\\\n", " ").splitlines() if line.strip()]


def test_command_line_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command of the README's command-line section runs, in order, in a fresh folder."""
    from microsdc.cli import main

    monkeypatch.chdir(tmp_path)
    lines = _command_lines()
    assert lines[0].startswith("python -c ")
    for line in lines:
        argv = shlex.split(line)
        if argv[0] == "python":
            assert argv[1] == "-c"
            exec(argv[2], {})
            continue
        assert argv[0] == "microsdc", line
        try:
            main(argv[1:])
        except SystemExit as exc:  # --help exits 0
            assert exc.code in (0, None), line
    for name in ("adult.csv", "with_fk.parquet", "safe.csv", "census.parquet", "swapped.parquet"):
        assert (tmp_path / name).is_file(), name
