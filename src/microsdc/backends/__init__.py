"""Data frames other than pandas: polars (eager and lazy), pyarrow tables, DuckDB relations
and PySpark DataFrames.

microsdc computes on distinct quasi-identifier patterns. An engine that holds
the rows only has to do what it does well: group by the QIs with missing
values kept as a group, count (and sum weights), and join the results back
with a null-safe join. Eager frames that already sit in memory (polars
``DataFrame``, pyarrow ``Table``) take the pandas route on their QI columns,
which is the fastest for data that fits.

Which engine a frame belongs to is decided in one place, the adapter registry of
:mod:`microsdc.backends.adapters`; a public function that takes a frame is routed
by it through :func:`microsdc.backends.dispatch.accepts_frames`.

The engines are optional extras; narwhals (https://narwhals-dev.github.io/narwhals/)
gives one interface over them.
"""

from __future__ import annotations

from microsdc.backends.adapters import (
    Backend,
    detect_backend,
    install_hint,
    refuse_unreadable_integers,
)

__all__ = ["Backend", "detect_backend", "install_hint", "refuse_unreadable_integers"]
