"""Run the ``microsdc`` command line in-process, as the shell would (for the tests)."""

from __future__ import annotations

import pytest

from microsdc.cli import main


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``microsdc ARGS``: (exit code, standard output, standard error)."""
    with pytest.raises(SystemExit) as exc:
        main(args)
        raise SystemExit(0)
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err
