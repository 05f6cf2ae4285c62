"""Shared pieces of the sub-commands: reading files, parsing lists, errors as exit code 2."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "console",
    "fail",
    "missing_option",
    "missing_values_option",
    "parse_list",
    "parse_missing_values",
    "policy_value",
    "progress",
    "qi_option",
    "read_input",
    "report_warnings",
    "user_errors",
    "write_output",
]


def console(stderr: bool = False) -> Any:
    """A rich console (imported lazily)."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else 160
    return Console(stderr=stderr, highlight=False, width=width)


def fail(message: str) -> None:
    """Print a one-line error and exit with status 2."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(2)


def user_errors(func: F) -> F:
    """Turn microsdc's errors and bad files into a one-line message and exit code 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from microsdc.exceptions import SDCError

        try:
            return func(*args, **kwargs)
        except click.UsageError:
            raise
        except SDCError as exc:
            fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
            fail(f"{exc.strerror}: {exc.filename}")
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            fail(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")

    return wrapper  # type: ignore[return-value]


def parse_list(value: str | None) -> list[str]:
    """Split ``"a,b, c"`` into ``["a", "b", "c"]``; ``None`` or ``""`` gives ``[]``."""
    if not value:
        return []
    return [part.strip() for part in value.split(",") if part.strip()]


def read_input(
    path: str, columns: list[str] | None = None, *, out: str | None = None, **kwargs: Any
) -> Any:
    """Read a CSV, Parquet, SPSS or Stata file (see :func:`microsdc.io.read_table`).

    ``out``, the file the command will write, is checked first (known format,
    existing folder, not the input itself), so that no work is wasted.
    """
    from microsdc.io import check_column_names, check_output_path, read_table

    if out is not None:
        check_output_path(out, path)
    df = read_table(path, columns=columns, **kwargs)
    if out is not None:
        check_column_names(df.columns, out)
    return df


def write_output(df: Any, path: str) -> None:
    """Write a frame in the format given by the file extension."""
    from microsdc.io import write_table

    write_table(df, path)


qi_option = click.option(
    "--qi", "qi", required=True, help="Quasi-identifiers, comma separated: A,B,C."
)
missing_option = click.option(
    "--missing",
    "missing",
    default="wildcard",
    show_default=True,
    help=(
        "Missing-value policy: wildcard, probabilistic, category, conservative (a measure "
        "only), or alpha in [0, 1]."
    ),
)

missing_values_option = click.option(
    "--missing-values",
    "missing_values",
    default=None,
    help='Extra codes that mean "missing", comma separated (e.g. "-999,NA,").',
)


def policy_value(text: str) -> Any:
    """The ``--missing`` option as ``parse_policy`` takes it: a number for alpha, else the name."""
    try:
        return float(text)
    except ValueError:
        return text


def parse_missing_values(text: str | None) -> list[Any] | None:
    """Split codes such as ``"-999,NA,"`` into ``["-999", -999, -999.0, "NA", ""]``."""
    if text is None:
        return None
    out: list[Any] = []
    for part in text.split(","):
        token = part.strip()
        out.append(token)
        try:
            out.append(int(token))
        except ValueError:
            pass
        try:
            out.append(float(token))
        except ValueError:
            pass
    return list(dict.fromkeys(out))


class _Progress:
    """A rich progress bar on stderr, shown only when stderr is a terminal."""

    def __init__(self, label: str) -> None:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            TextColumn(f"[bold]{label}[/bold] {{task.description}}"),
            BarColumn(),
            TimeElapsedColumn(),
            console=console(stderr=True),
            transient=True,
            disable=not sys.stderr.isatty(),
        )

    def __enter__(self) -> Any:
        return self._progress.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._progress.__exit__(*exc)


def progress(label: str) -> _Progress:
    """Context manager giving a rich ``Progress`` (disabled when stderr is not a terminal)."""
    return _Progress(label)


class report_warnings:
    """Print microsdc's warnings raised inside the block as one yellow line each on stderr."""

    def __enter__(self) -> None:
        import warnings

        self._cm = warnings.catch_warnings(record=True)
        self._log = self._cm.__enter__()
        warnings.simplefilter("always")

    def __exit__(self, *exc: Any) -> None:
        self._cm.__exit__(*exc)
        from microsdc.exceptions import SDCWarning

        err = console(stderr=True)
        for w in self._log:
            if issubclass(w.category, SDCWarning):
                err.print(f"[yellow]Warning:[/yellow] {w.message}")
