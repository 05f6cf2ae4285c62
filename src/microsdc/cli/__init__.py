"""The ``microsdc`` command line.

Thin: each sub-command lives in its own module, imported only when that
sub-command runs, so ``microsdc --help`` starts without numpy or pandas.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

__all__ = ["cli", "main"]

#: sub-command name -> ("module:attribute", one-line help shown by ``microsdc --help``)
COMMANDS: dict[str, tuple[str, str]] = {
    "risk": ("microsdc.cli.risk:risk", "Rows at risk (fk < k) and the riskiest key combinations."),
    "suppress": (
        "microsdc.cli.suppress:suppress",
        "Local suppression: blank as few QI cells as possible to reach k-anonymity.",
    ),
    "swap": ("microsdc.cli.swap:swap", "Targeted record swapping of households."),
    "pram": (
        "microsdc.cli.pram:pram",
        "PRAM: release categorical variables as draws from invariant transition matrices.",
    ),
    "microaggregate": (
        "microsdc.cli.continuous:microaggregate",
        "Microaggregation: each numeric value becomes the mean of k or more records.",
    ),
    "noise": ("microsdc.cli.continuous:noise", "Add noise to numeric columns."),
    "synth": ("microsdc.cli.swap:synth", "Write a synthetic census (households in a hierarchy)."),
    "run": ("microsdc.cli.run:run", "Run a whole anonymisation job described in a TOML file."),
    "demo": ("microsdc.cli.demo:demo", "Run the main job on data shipped with microsdc."),
}


class LazyGroup(click.Group):
    """A click group whose sub-commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name, (target, _) in COMMANDS.items() if _available(target)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None or not _available(entry[0]):
            return None
        module_name, attr = entry[0].split(":")
        module = importlib.import_module(module_name)
        command: click.Command = getattr(module, attr)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _available(target: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(target.split(":")[0]) is not None


def _version() -> str:
    from importlib.metadata import version

    return version("microsdc")


#: Printed on Ctrl-C: every output is written under a temporary name and moved into
#: place, so one finished before the interruption is whole and none is half-written.
_INTERRUPTED = "Interrupted. Outputs are written whole or not at all: none is left half-written."


def main(args: list[str] | None = None) -> None:
    """Entry point: run the command line; usage errors print one line and exit with status 2."""
    import sys

    try:
        cli.main(args=args, prog_name="microsdc", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo(_INTERRUPTED, err=True)
        sys.exit(130)
    except click.Abort as exc:
        if isinstance(exc.__context__, KeyboardInterrupt):
            # Ctrl-C: 128 + SIGINT, as shells expect; outputs are written atomically,
            # so an interrupted run leaves no partial file
            click.echo(_INTERRUPTED, err=True)
            sys.exit(130)
        click.echo("Aborted.", err=True)
        sys.exit(1)
    except click.UsageError as exc:
        hint = f" (see 'microsdc {exc.ctx.info_name} --help')" if exc.ctx and exc.ctx.parent else ""
        if exc.ctx and not exc.ctx.parent:
            hint = " (see 'microsdc --help')"
        click.echo(f"Error: {exc.format_message()}{hint}", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        click.echo(f"Error: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    invoke_without_command=True,
)
@click.version_option(package_name="microsdc", prog_name="microsdc")
@click.pass_context
def cli(ctx: click.Context, **_: Any) -> None:
    """microsdc: statistical disclosure control of microdata.

    Measure re-identification risk (k-anonymity with missing values as
    wildcards), suppress as few cells as possible, swap households across a
    geography, and write a report for the person who signs off the release.
    """
    if ctx.invoked_subcommand is None:  # a bare ``microsdc``: the help, as --help shows it
        click.echo(ctx.get_help())
        ctx.exit(0)
