"""One adapter per kind of data frame, found by the module of the frame's class.

A public function that takes a data frame asks :func:`adapt` for the frame's
adapter. The registry is keyed by the top-level module of the frame's class
(``pandas``, ``polars``, ``pyarrow``, ``duckdb``, ``pyspark``), looked up along the
class's method resolution order, so a subclass of a pandas ``DataFrame`` defined
elsewhere is a pandas frame; anything else gets one error that names what is
accepted. An adapter says what the engine is called and whether its rows are in
memory (``lazy``), gives an eager frame's rows as pandas (``to_pandas``), and turns
the frames of a result computed on them back into the caller's kind
(``from_pandas``).

The models are scikit-learn's ``_set_output`` adapters (``ADAPTERS_MANAGER``, keyed
by module name) and pandera's ``BACKEND_REGISTRY`` (looked up by the class's MRO).

Examples
--------
>>> import pandas as pd
>>> frame = adapt(pd.DataFrame({"a": [1]}), "sample_frequencies")
>>> frame.name, frame.lazy
('pandas', False)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from microsdc.exceptions import DataValidationError, InvalidParameterError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "RESERVED_PREFIX",
    "Backend",
    "EngineFrame",
    "FrameAdapter",
    "PandasFrame",
    "adapt",
    "detect_backend",
    "frame_schema",
    "install_hint",
    "refuse_duplicate_columns",
    "refuse_unreadable_integers",
    "register_adapter",
]

#: What the data-frame parameters accept, as error messages say it.
ACCEPTED = "a pandas DataFrame (or a polars, pyarrow, DuckDB or Spark frame)"


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


class FrameAdapter(Protocol):
    """What microsdc needs from a kind of data frame."""

    @property
    def name(self) -> str:
        """The engine's name in messages: ``"pandas"``, ``"polars"``, ``"DuckDB"``..."""
        ...

    @property
    def lazy(self) -> bool:
        """Whether the rows stay in the engine (polars ``LazyFrame``, DuckDB, Spark)."""
        ...

    @property
    def native(self) -> Any:
        """The frame itself."""
        ...

    @property
    def backend(self) -> Backend:
        """The frame's engine, for the engine routes."""
        ...

    def to_pandas(self, func: str) -> pd.DataFrame:
        """The rows of an eager frame as pandas (``func`` names the caller in errors)."""
        ...

    def from_pandas(self, value: Any, given: pd.DataFrame) -> Any:
        """``value``, computed on ``given`` (this frame as pandas), with its frames
        (a frame, frames in a tuple, a result's ``data``) as this frame's kind."""
        ...


@dataclass(frozen=True)
class PandasFrame:
    """A pandas ``DataFrame``: the functions' own kind, passed through."""

    native: Any
    name: str = "pandas"
    lazy: bool = False
    extra: str = ""

    @property
    def backend(self) -> Backend:
        return Backend(self.name, self.lazy, self.extra)

    def to_pandas(self, func: str) -> pd.DataFrame:
        return self.native

    def from_pandas(self, value: Any, given: pd.DataFrame) -> Any:
        return value


@dataclass(frozen=True)
class EngineFrame:
    """A frame narwhals reads: polars (eager or lazy), pyarrow, DuckDB, Spark."""

    native: Any
    name: str
    lazy: bool
    extra: str

    @property
    def backend(self) -> Backend:
        return Backend(self.name, self.lazy, self.extra)

    def to_pandas(self, func: str) -> pd.DataFrame:
        """The rows as pandas, after refusing integer columns wider than 64 bits."""
        import narwhals as nw

        nwf = nw.from_native(self.native, eager_only=True)
        refuse_unreadable_integers(nwf, nwf.columns, func)
        return nwf.to_pandas()

    def from_pandas(self, value: Any, given: pd.DataFrame) -> Any:
        from microsdc.backends.eager import as_kind_of

        return as_kind_of(value, self.native, given)


#: Builds the adapter of a frame: ``(frame, func, param)``, raising when it cannot.
AdapterFactory = Callable[[Any, str, str], FrameAdapter]

#: Top-level module of a frame's class -> the factory of its adapter.
_REGISTRY: dict[str, AdapterFactory] = {}


def register_adapter(module: str, factory: AdapterFactory) -> None:
    """Serve the frames whose class (or a base class) lives in the top-level
    ``module`` with ``factory``."""
    _REGISTRY[module] = factory


def _refused(df: Any, func: str, param: str) -> InvalidParameterError:
    from microsdc._validation import param_error

    return param_error(param, func, ACCEPTED, type(df).__name__)


def _pandas(df: Any, func: str, param: str) -> FrameAdapter:
    import pandas as pd

    if not isinstance(df, pd.DataFrame):  # a Series, an Index...
        raise _refused(df, func, param)
    return PandasFrame(df)


def _engine(name: str, extra: str) -> AdapterFactory:
    """The factory for an engine narwhals reads, installed with ``extra``."""

    def factory(df: Any, func: str, param: str) -> FrameAdapter:
        try:
            import narwhals as nw
        except ImportError as exc:
            raise InvalidParameterError(
                f"{func} got a {name} frame; working on it needs narwhals: "
                f"{install_hint(extra)} (or convert it first, e.g. with .to_pandas()).",
                func=func,
            ) from exc
        refuse_duplicate_columns(df, func)
        native = nw.from_native(df, pass_through=True)
        if native is df:
            kind = type(df)
            root = kind.__module__.split(".", 1)[0]
            hint = "; convert it with .to_pandas()" if hasattr(df, "to_pandas") else ""
            raise InvalidParameterError(
                f"The '{param}' parameter of {func} must be {ACCEPTED}. Got a {root} "
                f"{kind.__name__} that microsdc cannot read{hint}.",
                func=func,
                param=param,
            )
        return EngineFrame(df, name, isinstance(native, nw.LazyFrame), extra)

    return factory


def refuse_duplicate_columns(df: Any, func: str) -> None:
    """Raise if the engine frame ``df`` repeats a column name, as pandas frames are
    refused: a DuckDB relation or Spark frame may, and a result built on it would
    drop or rename one of the columns (a pyarrow ``Table`` would meet narwhals'
    bare error). A polars frame cannot repeat a name, and its lazy schema is not
    resolved for this.

    Raises
    ------
    DataValidationError
        Naming the repeated names, the function and the fix.
    """
    from microsdc._validation import duplicate_columns_error

    if type(df).__module__.split(".", 1)[0] == "polars":
        return
    names = getattr(df, "column_names", None)  # pyarrow
    if names is None:
        names = getattr(df, "columns", None)  # DuckDB, Spark
    if names is None:
        return
    names = list(names)
    if len(set(names)) < len(names):
        raise duplicate_columns_error(names, func)


register_adapter("pandas", _pandas)
register_adapter("polars", _engine("polars", "polars"))
register_adapter("pyarrow", _engine("pyarrow", "polars"))
register_adapter("duckdb", _engine("DuckDB", "duckdb"))
register_adapter("_duckdb", _engine("DuckDB", "duckdb"))
register_adapter("pyspark", _engine("PySpark", "spark"))


def adapt(df: Any, func: str, param: str = "df") -> FrameAdapter:
    """The adapter of ``df``, found by the top-level module of its class (or of the
    first base class whose module is registered).

    Raises
    ------
    InvalidParameterError
        If ``df`` is not a data frame microsdc knows, if its engine needs an
        extra that is not installed (the message gives the install command), or if
        a lazy frame has a column whose name starts with :data:`RESERVED_PREFIX`.
    """
    for kind in type(df).__mro__:
        factory = _REGISTRY.get(kind.__module__.split(".", 1)[0])
        if factory is not None:
            adapter = factory(df, func, param)
            if adapter.lazy:
                _refuse_reserved(df, func, param)
            return adapter
    raise _refused(df, func, param)


#: The start of the names microsdc gives its own columns in an engine's queries.
RESERVED_PREFIX = "__microsdc"


def _refuse_reserved(df: Any, func: str, param: str) -> None:
    """Refuse a lazy frame with a column named like microsdc's own (read from its
    schema, no row), which the engine's queries would confuse with theirs."""
    import narwhals as nw

    taken = [str(c) for c in frame_schema(nw.from_native(df)) if str(c).startswith(RESERVED_PREFIX)]
    if taken:
        raise InvalidParameterError(
            f"The '{param}' frame of {func} has the column(s) "
            f"{', '.join(repr(c) for c in taken)}, whose names start with "
            f"{RESERVED_PREFIX!r}: microsdc names its own columns so in the engine's "
            "queries. Rename them first (polars: .rename({old: new}); SQL: SELECT ... AS "
            "new_name).",
            func=func,
            param=param,
        )


def detect_backend(df: Any, func: str, param: str = "df") -> Backend:
    """Name the engine behind ``df``, or raise with what to install or pass instead.

    Raises
    ------
    InvalidParameterError
        If ``df`` is not a data frame microsdc knows, or if its engine needs an
        extra that is not installed (the message gives the install command).
    """
    return adapt(df, func, param).backend


def frame_schema(nwf: Any) -> dict[str, Any]:
    """The narwhals type of each column of the narwhals frame ``nwf``, eager or lazy (a
    lazy one's from its schema: no row is read)."""
    import narwhals as nw

    schema = nwf.collect_schema() if isinstance(nwf, nw.LazyFrame) else nwf.schema
    return dict(schema.items())


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
    schema = frame_schema(nwf)
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
