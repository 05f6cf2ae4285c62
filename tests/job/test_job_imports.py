"""What the job package may import: nothing of the command line, no private name of another
package. Imports inside functions and under ``TYPE_CHECKING`` count as much as the others."""

from __future__ import annotations

import ast
from pathlib import Path

import microsdc.job

JOB = Path(microsdc.job.__file__).parent


def _imports(path: Path) -> list[tuple[int, str, str | None]]:
    """``(line, module, name)`` of each import in a file of ``microsdc.job`` (name None for
    ``import module``); relative imports resolved."""
    out: list[tuple[int, str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = "microsdc.job".split(".")[: 2 - (node.level - 1)]
                module = ".".join([*base, module] if module else base)
            out += [(node.lineno, module, alias.name) for alias in node.names]
    return out


def _is_cli(module: str, name: str | None) -> bool:
    return (
        module == "microsdc.cli"
        or module.startswith("microsdc.cli.")
        or (module == "microsdc" and name == "cli")
    )


def _private_elsewhere(module: str, name: str | None) -> bool:
    inside = module == "microsdc.job" or module.startswith("microsdc.job.")
    return (
        module.split(".")[0] == "microsdc"
        and not inside
        and name is not None
        and name.startswith("_")
    )


def test_job_modules_are_found() -> None:
    names = {p.stem for p in JOB.glob("*.py")}
    assert {"runner", "engine", "audit", "config"} <= names


def test_job_imports_nothing_of_the_command_line() -> None:
    found = [
        f"{path.name}:{line}: {module}" + (f".{name}" if name else "")
        for path in sorted(JOB.glob("*.py"))
        for line, module, name in _imports(path)
        if _is_cli(module, name)
    ]
    assert not found, f"job/ imports the command line: {found}"


def test_job_imports_no_private_name_of_another_package() -> None:
    found = [
        f"{path.name}:{line}: from {module} import {name}"
        for path in sorted(JOB.glob("*.py"))
        for line, module, name in _imports(path)
        if _private_elsewhere(module, name)
    ]
    assert not found, f"job/ imports private names of other packages: {found}"


def test_the_checks_see_what_they_look_for() -> None:
    source = (
        "def f():\n"
        "    from microsdc.cli._common import progress_columns\n"
        "    from microsdc.risk.individual import _household_codes, risk_from_frequencies\n"
        "    from microsdc.job.schema import _Key\n"
        "    import microsdc.cli.run\n"
    )
    imports = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            imports += [(node.module or "", a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            imports += [(a.name, None) for a in node.names]
    assert [m for m, n in imports if _is_cli(m, n)] == ["microsdc.cli._common", "microsdc.cli.run"]
    assert [n for m, n in imports if _private_elsewhere(m, n)] == ["_household_codes"]
