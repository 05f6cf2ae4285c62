"""A default the command line and the job share is read from one place."""

from __future__ import annotations

import click

from microsdc.cli import cli
from microsdc.job.schema import default_of
from microsdc.risk.kanonymity import DEFAULT_K


def _default(command: str, name: str) -> object:
    cmd = cli.get_command(click.Context(cli), command)
    assert isinstance(cmd, click.Command)
    (option,) = [p for p in cmd.params if p.name == name]
    return option.default


def test_k_defaults_to_the_one_constant_on_the_command_line_and_in_a_job() -> None:
    assert DEFAULT_K == 3
    assert default_of("risk.k") == DEFAULT_K
    for command in ("suppress", "risk"):
        assert _default(command, "k") == DEFAULT_K
