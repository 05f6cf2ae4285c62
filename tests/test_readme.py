"""The README's code runs, and CI runs the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

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
        code = block.replace("result = microsdc.record_swap_result(...)", "")
        exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["n_at_risk"] == 1  # fk = 4 4 3 2 4 5 7
