"""Data frames other than pandas: polars (eager and lazy), pyarrow tables, DuckDB relations
and PySpark DataFrames.

microsdc computes on distinct quasi-identifier patterns. An engine that holds
the rows only has to do what it does well: group by the QIs with missing
values kept as a group, count (and sum weights), and join the results back
with a null-safe join. Eager frames that already sit in memory (polars
``DataFrame``, pyarrow ``Table``) take the pandas route on their QI columns,
which is the fastest for data that fits.

The engines are optional extras; narwhals (https://narwhals-dev.github.io/narwhals/)
gives one interface over them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from microsdc.exceptions import DataValidationError, InvalidParameterError

__all__ = ["Backend", "detect_backend", "install_hint", "refuse_unreadable_integers"]

#: Top-level module of a frame's class -> (engine name, extra that installs it).
_ENGINES: dict[str, tuple[str, str]] = {
    "polars": ("polars", "polars"),
    "pyarrow": ("pyarrow", "polars"),
    "duckdb": ("DuckDB", "duckdb"),
    "_duckdb": ("DuckDB", "duckdb"),
    "pyspark": ("PySpark", "spark"),
}


@dataclass(frozen=True)
class Backend:
    """What kind of frame a caller passed.

    Attributes
    ----------
    name : str
        ``"pandas"``, ``"polars"``, ``"pyarrow"``, ``"DuckDB"`` or ``"PySpark"``.
    lazy : bool
        True for frames without materialised rows (polars ``LazyFrame``, DuckDB
        relations, PySpark DataFrames): results come back by a join, in the
        engine's row order.
    extra : str
        The ``pip install "microsdc[extra]"`` that provides it.
    """

    name: str
    lazy: bool
    extra: str


def install_hint(extra: str) -> str:
    """The install command for an optional extra, for error messages."""
    return f'pip install "microsdc[{extra}]"'


def detect_backend(df: Any, func: str, param: str = "df") -> Backend:
    """Name the engine behind ``df``, or raise with what to install or pass instead.

    Raises
    ------
    InvalidParameterError
        If ``df`` is not a data frame microsdc knows, or if its engine needs an
        extra that is not installed (the message gives the install command).
    """
    import pandas as pd

    if isinstance(df, pd.DataFrame):
        return Backend("pandas", False, "")
    from microsdc._validation import param_error

    kind = type(df)
    root = kind.__module__.split(".", 1)[0]
    if root not in _ENGINES:
        raise param_error(
            param,
            func,
            "a pandas DataFrame (or a polars, pyarrow, DuckDB or Spark frame)",
            kind.__name__,
        )
    name, extra = _ENGINES[root]
    try:
        import narwhals  # noqa: F401
    except ImportError as exc:
        raise InvalidParameterError(
            f"{func} got a {name} frame; working on it needs narwhals: "
            f"{install_hint(extra)} (or convert it first, e.g. with .to_pandas()).",
            func=func,
        ) from exc
    import narwhals as nw

    native = nw.from_native(df, pass_through=True)
    if native is df:
        hint = "; convert it with .to_pandas()" if hasattr(df, "to_pandas") else ""
        raise InvalidParameterError(
            f"The '{param}' parameter of {func} must be a pandas DataFrame (or a polars, "
            f"pyarrow, DuckDB or Spark frame). Got a {root} {kind.__name__} that microsdc cannot "
            f"read{hint}.",
            func=func,
            param=param,
        )
    return Backend(name, isinstance(native, nw.LazyFrame), extra)


def refuse_unreadable_integers(nwf: Any, names: Any, func: str) -> None:
    """Raise for a polars ``Int128`` or ``UInt128`` column among ``names`` (a narwhals
    frame's columns): pyarrow and pandas, through which microsdc counts and joins,
    cannot read integers wider than 64 bits from polars.

    Raises
    ------
    DataValidationError
        Naming the first such column and how to cast it.
    """
    import narwhals as nw

    if nwf.implementation is not nw.Implementation.POLARS:
        return
    schema = nwf.collect_schema() if isinstance(nwf, nw.LazyFrame) else nwf.schema
    for name in names:
        dtype = schema.get(str(name))
        if dtype is not None and str(dtype) in ("Int128", "UInt128"):
            raise DataValidationError(
                f"Column {name!r} of {func} is a polars {dtype} column (integers wider than "
                "64 bits), which pyarrow and pandas cannot read. Cast it first: to text, "
                f"which keeps every value apart (df.with_columns(pl.col({str(name)!r})"
                ".cast(pl.String))), or to Int64 when its values lie within +-2^63.",
                func=func,
            )
