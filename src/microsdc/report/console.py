"""The report on the console: what ``microsdc run``, ``demo``, ``suppress`` and ``swap`` print.

Rich is imported when something is printed, not with this module.
"""

from __future__ import annotations

from typing import Any

from microsdc.report.sections import (
    print_notes,
    print_risk_table,
    print_suppression,
    print_swapping,
)

__all__ = ["print_audit"]


def print_audit(audit: dict[str, Any], out: Any) -> None:
    """Print the figures of an audit record: risk before and after, swapping, suppression,
    what was not computed and the warnings.

    Parameters
    ----------
    audit : dict
        An audit record.
    out : rich.console.Console
    """
    print_risk_table(audit, out)
    print_swapping(audit, out)
    print_suppression(audit, out)
    print_notes(audit, out)
