"""Shared pieces of the sub-commands: reading files, parsing lists, errors as exit code 2."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["console", "fail", "parse_list", "read_input", "user_errors", "write_output"]


def console(stderr: bool = False) -> Any:
    """A rich console (imported lazily)."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


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


def read_input(path: str, columns: list[str] | None = None, **kwargs: Any) -> Any:
    """Read a CSV, Parquet, SPSS or Stata file (see :func:`microsdc.io.read_table`)."""
    from microsdc.io import read_table

    return read_table(path, columns=columns, **kwargs)


def write_output(df: Any, path: str) -> None:
    """Write a frame in the format given by the file extension."""
    from microsdc.io import write_table

    write_table(df, path)
