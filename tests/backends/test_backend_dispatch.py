"""Every public function that takes every kind of frame, through one dispatch.

The functions decorated with :func:`microsdc.backends.dispatch.accepts_frames` are
called with the valid call of their contract (``tests/test_contracts.py``) on a
pandas frame, a polars ``DataFrame`` and a pyarrow ``Table``: the figures are the
same and the frames of the result come back as the caller's kind. A polars
``LazyFrame`` or DuckDB relation goes to the function's lazy implementation (same
figures as pandas) or is refused with how to collect it; an object that is not a
data frame is refused with what the parameter accepts.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import microsdc
from microsdc.backends import adapters
from microsdc.backends.dispatch import accepts_frames
from microsdc.exceptions import InvalidParameterError
from test_contracts import CONTRACTS, PUBLIC, people

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
pytest.importorskip("narwhals")

DISPATCHED = {name: f for name, f in sorted(PUBLIC.items()) if hasattr(f, "frame_routes")}

#: what a lazy result shares with the pandas result, for the functions that take lazy frames
LAZY_SAME: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "sample_frequencies": (lambda r: r[["fk", "Fk", "at_risk"]], lambda r: r),
    "check_k_anonymity": (lambda r: r, lambda r: r),
    "safe_combinations": (lambda r: r, lambda r: r),
    "local_suppression": (lambda r: r.data, lambda r: r.data),
    "pram": (lambda r: r.data, lambda r: r.data),
    "risk_summary": (lambda r: r, lambda r: r),
}

#: the parameters a function refuses on a lazy frame (they need the records), left out
#: of its valid call there
RECORDS_ONLY = {"risk_summary": {"hid": None, "sensitive": ()}}

UNSUPPORTED = {
    "list": [1, 2],
    "ndarray": np.zeros((2, 2)),
    "dict": {"a": [1]},
    "Series": pd.Series([1, 2]),
    "NoneType": None,
}


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _call(name: str, tmp: Path) -> tuple[dict[str, Any], str]:
    """The contract's valid call of ``name`` and its (first) frame parameter."""
    kwargs = CONTRACTS[name].valid(tmp)
    return kwargs, DISPATCHED[name].frame_routes.param  # type: ignore[attr-defined]


def _params(name: str) -> tuple[str, ...]:
    return DISPATCHED[name].frame_routes.params  # type: ignore[attr-defined, no-any-return]


#: (function, the frame parameters given as polars or pyarrow): each frame alone, and
#: all of them, for a function of several frames
EAGER = [
    (name, given)
    for name in sorted(DISPATCHED)
    for given in [
        *([(p,) for p in _params(name)] if len(_params(name)) > 1 else []),
        _params(name),
    ]
]
#: (function, frame parameter) for every frame parameter of the decorated functions
FRAME_PARAMS = [(name, p) for name in sorted(DISPATCHED) for p in _params(name)]


def _written(kwargs: dict[str, Any]) -> bytes | None:
    """The file a writing function wrote (its ``path``), else None."""
    path = kwargs.get("path")
    return Path(path).read_bytes() if path is not None and Path(path).exists() else None


def _plain(value: Any) -> Any:
    """``value`` as plain Python to compare across engines: frames as column names and
    rows (missing values None, 30 == 30.0), result objects as their fields."""
    if isinstance(value, (pl.DataFrame, pa.Table)):
        value = value.to_pandas()
    if isinstance(value, pd.DataFrame):
        rows = value.reset_index(drop=True).astype(object).values.tolist()
        return [str(c) for c in value.columns], [[_plain(v) for v in row] for row in rows]
    if isinstance(value, (pd.Series, pd.Index, np.ndarray)):
        return [_plain(v) for v in value.tolist()]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        skip = {"seconds", "_lookup"}
        fields = dataclasses.fields(value)
        return {f.name: _plain(getattr(value, f.name)) for f in fields if f.name not in skip}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    return value.item() if isinstance(value, np.generic) else value


def _released(value: Any) -> list[Any]:
    """The frames of a result that come back as the caller's kind: a returned frame,
    the frames of a returned tuple, a result object's ``data``."""
    if isinstance(value, tuple):
        return [f for v in value for f in _released(v)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [value.data] if hasattr(value, "data") else []
    if isinstance(value, (pd.DataFrame, pl.DataFrame, pa.Table)):
        return [value]
    return []


def _eager(kind: str, df: pd.DataFrame) -> Any:
    if kind == "polars":
        return pl.from_pandas(df)
    return pa.Table.from_pandas(df, preserve_index=False)


def test_the_functions_that_take_every_frame() -> None:
    assert sorted(DISPATCHED) == [
        "check_k_anonymity",
        "global_risk",
        "household_risk",
        "individual_risk",
        "l_diversity",
        "level_risk",
        "local_suppression",
        "min_missingness_max_deid",
        "pram",
        "record_swap",
        "record_swap_result",
        "renumber_households",
        "risk_summary",
        "safe_combinations",
        "sample_frequencies",
        "suda",
        "swap_utility",
        "write_table",
    ]
    several = {name: _params(name) for name in DISPATCHED if len(_params(name)) > 1}
    assert several == {"swap_utility": ("original", "swapped")}
    routed = [n for n, f in DISPATCHED.items() if f.frame_routes.lazy is not None]  # type: ignore[attr-defined]
    assert sorted(routed) == sorted(LAZY_SAME)


@pytest.mark.parametrize("name", sorted(DISPATCHED))
def test_the_decorated_function_keeps_its_signature_and_docstring(name: str) -> None:
    func = DISPATCHED[name]
    original = func.__wrapped__  # type: ignore[attr-defined]
    assert inspect.signature(func) == inspect.signature(original)
    assert func.__name__ == original.__name__ == name
    assert func.__doc__ and original.__doc__ in (func.__doc__, None)  # swapping's are set later
    assert func.frame_routes.param == next(iter(inspect.signature(func).parameters))  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", ["polars", "pyarrow"])
@pytest.mark.parametrize(("name", "given"), EAGER)
def test_an_eager_frame_gives_the_pandas_result_in_its_kind(
    name: str, given: tuple[str, ...], kind: str, tmp_path: Path
) -> None:
    kwargs, param = _call(name, tmp_path)
    want = DISPATCHED[name](**kwargs)
    want_file = _written(kwargs)
    natives = {p: _eager(kind, kwargs[p]) for p in given}
    got = DISPATCHED[name](**{**kwargs, **natives})
    assert _plain(got) == _plain(want)
    assert _written(kwargs) == want_file  # a writing function wrote the same bytes
    frames = _released(got)
    assert len(frames) == len(_released(want))
    # the frames of the result take the kind of the first frame parameter
    first = type(natives[param]) if param in natives else pd.DataFrame
    assert all(type(f) is first for f in frames), [type(f) for f in frames]


def _lazy(kind: str, df: pd.DataFrame) -> Any:
    if kind == "polars":
        return pl.from_pandas(df).lazy()
    import duckdb

    return duckdb.connect().from_arrow(pa.Table.from_pandas(df, preserve_index=False))


def _collected(value: Any) -> Any:
    """Lazy frames inside ``value`` brought into memory (a pyarrow table for DuckDB)."""
    if isinstance(value, pl.LazyFrame):
        return value.collect()
    if type(value).__module__.split(".")[0] in ("duckdb", "_duckdb"):
        table = value.arrow()
        return table.read_all() if hasattr(table, "read_all") else table
    if isinstance(value, tuple):
        return tuple(_collected(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and hasattr(value, "data"):
        return dataclasses.replace(value, data=_collected(value.data))
    return value


@pytest.mark.parametrize("kind", ["polars", "duckdb"])
@pytest.mark.parametrize(("name", "param"), FRAME_PARAMS)
def test_a_lazy_frame_is_routed_or_refused_with_how_to_collect(
    name: str, param: str, kind: str, tmp_path: Path
) -> None:
    kwargs, _ = _call(name, tmp_path)
    lazy = _lazy(kind, kwargs[param])
    if name not in LAZY_SAME:
        engine, how = {"polars": ("polars", "polars: .collect()")}.get(
            kind, ("DuckDB", "DuckDB: .pl() or .df()")
        )
        with pytest.raises(InvalidParameterError) as info:
            DISPATCHED[name](**{**kwargs, param: lazy})
        which = f" as '{param}'" if len(_params(name)) > 1 else ""  # which of its frames
        assert str(info.value) == (
            f"{name} needs the rows in memory; got a lazy {engine} frame{which}. "
            f"Collect it first ({how})."
        )
        assert (info.value.func, info.value.param) == (name, param)
        return
    if name == "sample_frequencies" and kind == "duckdb":
        kwargs = {**kwargs, "weights": None}  # DuckDB names Fk "Fk_pop" (case-insensitive SQL)
    kwargs = {**kwargs, **RECORDS_ONLY.get(name, {})}
    want = DISPATCHED[name](**kwargs)
    got = _collected(DISPATCHED[name](**{**kwargs, param: lazy}))
    on_lazy, on_pandas = LAZY_SAME[name]
    if name == "sample_frequencies" and kind == "duckdb":
        on_lazy = lambda r: r.select(["fk", "at_risk"])  # noqa: E731
    lazy_figures, pandas_figures = _plain(on_lazy(got)), _plain(on_pandas(want))
    if name == "check_k_anonymity":  # the summary's order within ties of fk and count is free
        lazy_figures[1][1].sort(key=repr)
        pandas_figures[1][1].sort(key=repr)
    if name == "risk_summary":  # sums over key combinations, not records: to the last bits
        assert _nearly(lazy_figures, pandas_figures)
        return
    assert lazy_figures == pandas_figures


@pytest.mark.parametrize("kind", ["polars", "duckdb"])
def test_the_lazy_refusal_names_the_function_and_the_frame_parameter(kind: str) -> None:
    import microsdc

    census = microsdc.synthetic_census(20, seed=1)
    with pytest.raises(InvalidParameterError) as info:
        microsdc.record_swap(
            _lazy(kind, census), "hid", ["nuts1"], None, risk_variables=["ageGroup"]
        )
    assert (info.value.func, info.value.param) == ("record_swap", "data")
    assert str(info.value).startswith("record_swap needs the rows in memory; got a lazy ")


def _nearly(a: Any, b: Any) -> bool:
    """``a == b``, floats to a relative 1e-12, inside dicts and lists."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_nearly(a[x], b[x]) for x in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_nearly(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
    return bool(a == b) and type(a) is type(b)


@pytest.mark.parametrize("what", sorted(UNSUPPORTED))
@pytest.mark.parametrize(("name", "param"), FRAME_PARAMS)
def test_an_object_that_is_no_frame_is_refused(
    name: str, param: str, what: str, tmp_path: Path
) -> None:
    kwargs, _ = _call(name, tmp_path)
    with pytest.raises(InvalidParameterError) as info:
        DISPATCHED[name](**{**kwargs, param: UNSUPPORTED[what]})
    accepted = "a pandas DataFrame (or a polars, pyarrow, DuckDB or Spark frame)"
    assert str(info.value) == (
        f"The '{param}' parameter of {name} must be {accepted}. Got '{what}' instead."
    )
    assert (info.value.func, info.value.param) == (name, param)
    assert info.value.requirement == accepted


def test_a_call_with_a_missing_argument_gets_pythons_own_message() -> None:
    df = pl.DataFrame({"a": [1, 2]})
    with pytest.raises(TypeError, match=r"^local_suppression\(\) missing 2 required positional"):
        DISPATCHED["local_suppression"](df)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"^suda\(\) got an unexpected keyword argument 'kk'"):
        DISPATCHED["suda"](df, ["a"], kk=1)  # type: ignore[call-arg]


# ------------------------------------------------------------------ the adapter registry


class _PandasSubclass(pd.DataFrame):
    @property
    def _constructor(self) -> type:
        return _PandasSubclass


_PandasSubclass.__module__ = "elsewhere.frames"


class _PolarsSubclass(pl.DataFrame):  # type: ignore[misc]
    pass


_PolarsSubclass.__module__ = "elsewhere.frames"


@pytest.mark.parametrize(
    ("make", "name", "lazy"),
    [
        (lambda df: df, "pandas", False),
        (lambda df: _PandasSubclass(df), "pandas", False),
        (lambda df: pl.from_pandas(df), "polars", False),
        (lambda df: _PolarsSubclass(pl.from_pandas(df)), "polars", False),
        (lambda df: pl.from_pandas(df).lazy(), "polars", True),
        (lambda df: pa.Table.from_pandas(df), "pyarrow", False),
        (lambda df: _lazy("duckdb", df), "DuckDB", True),
    ],
)
def test_the_adapter_is_found_by_the_module_of_the_frames_class(
    make: Callable[[pd.DataFrame], Any], name: str, lazy: bool
) -> None:
    frame = adapters.adapt(make(pd.DataFrame({"a": [1, 2]})), "f")
    assert (frame.name, frame.lazy) == (name, lazy)
    assert adapters.detect_backend(frame.native, "f") == adapters.Backend(
        name, lazy, "" if name == "pandas" else frame.backend.extra
    )


@pytest.mark.parametrize("kind", ["eager", "lazy", "duckdb"])
def test_frame_schema_reads_an_eager_or_a_lazy_frame(kind: str) -> None:
    import narwhals as nw

    df = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    native = {"eager": pl.from_pandas(df), "lazy": pl.from_pandas(df).lazy()}.get(kind)
    if native is None:
        native = _lazy("duckdb", df)
    schema = adapters.frame_schema(nw.from_native(native))
    assert type(schema) is dict and list(schema) == ["a", "b"]
    assert (schema["a"], schema["b"]) == (nw.Int64, nw.String)


def test_a_polars_subclass_is_served_as_polars() -> None:
    df = pd.DataFrame({"a": [1, 1, 2], "b": ["x", "x", "y"]})
    got = DISPATCHED["sample_frequencies"](_PolarsSubclass(pl.from_pandas(df)), ["a", "b"])
    assert isinstance(got, pl.DataFrame) and got["fk"].to_list() == [2, 2, 1]


def test_an_object_of_a_registered_module_that_narwhals_cannot_read_is_refused() -> None:
    class Unreadable:
        def to_pandas(self) -> None:
            return None

    Unreadable.__module__ = "polars.something"
    with pytest.raises(InvalidParameterError) as info:
        DISPATCHED["suda"](Unreadable(), ["a"])
    assert str(info.value) == (
        "The 'df' parameter of suda must be a pandas DataFrame (or a polars, pyarrow, DuckDB "
        "or Spark frame). Got a polars Unreadable that microsdc cannot read; convert it "
        "with .to_pandas()."
    )
    assert (info.value.func, info.value.param) == ("suda", "df")


def test_a_registered_adapter_serves_its_module(monkeypatch: pytest.MonkeyPatch) -> None:
    class Rows:
        def __init__(self, df: pd.DataFrame) -> None:
            self.df = df

    Rows.__module__ = "rowstore.core"

    @dataclasses.dataclass(frozen=True)
    class RowsAdapter:
        native: Any
        name: str = "rowstore"
        lazy: bool = False

        @property
        def backend(self) -> adapters.Backend:
            return adapters.Backend(self.name, self.lazy, "rowstore")

        def to_pandas(self, func: str) -> pd.DataFrame:
            return self.native.df  # type: ignore[no-any-return]

        def from_pandas(self, value: Any, given: pd.DataFrame) -> Any:
            return Rows(value) if isinstance(value, pd.DataFrame) else value

    monkeypatch.setitem(adapters._REGISTRY, "rowstore", lambda df, func, param: RowsAdapter(df))

    @accepts_frames()
    def doubled(df: pd.DataFrame, factor: int = 2) -> pd.DataFrame:
        return df * factor

    got = doubled(Rows(pd.DataFrame({"a": [1, 2]})), factor=3)
    assert isinstance(got, Rows) and got.df["a"].tolist() == [3, 6]


def test_a_function_with_positional_only_or_star_parameters_is_refused() -> None:
    def star(df: Any, *columns: Any) -> None:
        return None

    with pytest.raises(TypeError, match="every parameter must be nameable by keyword"):
        accepts_frames()(star)


def test_frames_must_name_parameters_and_an_eager_route_serves_one_frame() -> None:
    def two(original: Any, released: Any) -> None:
        return None

    with pytest.raises(TypeError, match="frames must name its parameters"):
        accepts_frames(frames=("original", "swapped"))(two)
    with pytest.raises(TypeError, match="an eager route serves a function of one frame"):
        accepts_frames(eager=two, frames=("original", "released"))(two)


def test_lazy_true_sends_a_lazy_frame_to_the_function_itself() -> None:
    """One driver for every frame: the function gets the lazy frame itself (defaults
    filled in), a pandas frame as given, and an eager polars frame as pandas."""
    seen: list[tuple[str, int]] = []

    @accepts_frames(lazy=True)
    def height(df: Any, *, plus: int = 1) -> int:
        seen.append((f"{type(df).__module__.split('.')[0]} {type(df).__name__}", plus))
        if isinstance(df, pl.LazyFrame):
            return int(df.select(pl.len()).collect().item()) + plus
        return len(df) + plus

    frame = pd.DataFrame({"a": [1, 2, 3]})
    assert height(pl.from_pandas(frame).lazy()) == 4
    assert height(frame, plus=2) == 5
    assert height(pl.from_pandas(frame)) == 4
    assert seen == [("polars LazyFrame", 1), ("pandas DataFrame", 2), ("pandas DataFrame", 1)]
    assert height.frame_routes.lazy is height.__wrapped__  # type: ignore[attr-defined]


def test_two_frames_of_different_kinds_give_the_kind_of_the_first() -> None:
    @accepts_frames(frames=("left", "right"))
    def stacked(left: pd.DataFrame, right: pd.DataFrame) -> pd.DataFrame:
        return pd.concat([left, right], ignore_index=True)

    a, b = pd.DataFrame({"x": [1]}), pd.DataFrame({"x": [2]})
    got = stacked(pl.from_pandas(a), pa.Table.from_pandas(b))
    assert isinstance(got, pl.DataFrame) and got["x"].to_list() == [1, 2]
    got = stacked(a, pl.from_pandas(b))  # a pandas first frame: pandas back
    assert isinstance(got, pd.DataFrame) and got["x"].tolist() == [1, 2]
    with pytest.raises(InvalidParameterError, match="got a lazy polars frame as 'right'"):
        stacked(a, pl.from_pandas(b).lazy())


# ---------------------------------------- every public function that takes a frame


def _every_public_function() -> dict[str, Callable[..., Any]]:
    """The functions in ``__all__`` of microsdc and of each of its public modules."""
    import importlib
    import pkgutil

    import microsdc

    names = ["microsdc"] + [
        f"microsdc.{m.name}" for m in pkgutil.iter_modules(microsdc.__path__) if m.name[0] != "_"
    ]
    found: dict[str, Callable[..., Any]] = {}
    for module_name in names:
        module = importlib.import_module(module_name)
        for public in getattr(module, "__all__", []):
            obj = getattr(module, public)
            if inspect.isfunction(obj):
                found.setdefault(public, obj)
    return found


EVERY = _every_public_function()


def _takes_a_frame(name: str, parameter: inspect.Parameter) -> bool:
    """Whether the parameter is documented (annotated or in the contract) to take a frame."""
    frames = CONTRACTS[name].frames if name in CONTRACTS else ()
    return parameter.name in frames or bool(
        re.search(r"\bDataFrame\b|\bTable\b", str(parameter.annotation))
    )


TAKES_A_FRAME = sorted(
    (name, p.name)
    for name, func in EVERY.items()
    for p in inspect.signature(func).parameters.values()
    if _takes_a_frame(name, p)
)

#: functions served through another function that takes every frame
SERVED_BY = {"demo_suppression": "local_suppression"}


def _matrix() -> pd.DataFrame:
    categories = ["x", "y", "z"]
    return pd.DataFrame(
        np.full((3, 3), 0.1) + np.eye(3) * 0.7, index=categories, columns=categories
    )


#: valid calls of the functions without a contract, and of frames the contract leaves out
MORE_CALLS: dict[tuple[str, str], Callable[[Path], dict[str, Any]]] = {
    ("file_metadata", "df"): lambda tmp: {"df": people()},
    ("number_records", "df"): lambda tmp: {"df": people(), "path": tmp / "in.csv"},
    ("pram", "transition"): lambda tmp: {"df": people(), "columns": "dis", "transition": _matrix()},
}


def test_the_public_functions_that_take_a_frame() -> None:
    """A new public function that takes a frame joins this list, and the test below."""
    assert TAKES_A_FRAME == [
        ("add_noise", "df"),
        ("bin_numeric", "data"),
        ("bottom_code", "data"),
        ("check_k_anonymity", "df"),
        ("collapse_subjects", "df"),
        ("continuous_utility", "original"),
        ("continuous_utility", "released"),
        ("demo_suppression", "df"),
        ("encode_qis", "df"),
        ("file_metadata", "df"),
        ("global_risk", "df"),
        ("group_categories", "data"),
        ("household_risk", "df"),
        ("individual_risk", "df"),
        ("interval_risk", "original"),
        ("interval_risk", "released"),
        ("l_diversity", "df"),
        ("level_risk", "data"),
        ("linkage_risk", "original"),
        ("linkage_risk", "released"),
        ("linked_columns", "df"),
        ("local_suppression", "df"),
        ("merge_rare_categories", "data"),
        ("microaggregate", "df"),
        ("min_missingness_max_deid", "df"),
        ("number_records", "df"),
        ("pram", "df"),
        ("pram", "transition"),
        ("pram_estimate", "released"),
        ("prosecutor_risk", "original"),
        ("prosecutor_risk", "released"),
        ("record_swap", "data"),
        ("record_swap_result", "data"),
        ("recoverable_cells", "original"),
        ("recoverable_cells", "released"),
        ("renumber_households", "data"),
        ("restore_subjects", "anonymised"),
        ("restore_subjects", "original_df"),
        ("risk_summary", "df"),
        ("safe_combinations", "df"),
        ("sample_frequencies", "df"),
        ("suda", "df"),
        ("suppressed_cells", "anonymised"),
        ("suppressed_cells", "original"),
        ("swap_utility", "original"),
        ("swap_utility", "swapped"),
        ("top_code", "data"),
        ("write_table", "df"),
    ]


def _frame_of(kind: str, df: pd.DataFrame) -> Any:
    if kind == "lazy polars":
        return pl.from_pandas(df).lazy()
    return _eager(kind, df)


@pytest.mark.parametrize("kind", ["polars", "pyarrow", "lazy polars"])
@pytest.mark.parametrize(("name", "param"), TAKES_A_FRAME)
def test_every_frame_parameter_is_served_or_refused_clearly(
    name: str, param: str, kind: str, tmp_path: Path
) -> None:
    """Given a polars DataFrame, pyarrow Table or polars LazyFrame, a public function
    that takes a frame either serves it (through ``accepts_frames``, or through a
    function that does) or refuses it with an InvalidParameterError that names the
    function, the parameter, the kind of frame and the fix. Never a bare Python error."""
    people().to_csv(tmp_path / "in.csv", index=False)
    call = MORE_CALLS.get((name, param)) or CONTRACTS[name].valid
    kwargs = call(tmp_path)
    kwargs[param] = _frame_of(kind, kwargs[param])
    func = EVERY[name]
    served = EVERY[SERVED_BY.get(name, name)]
    routes = getattr(served, "frame_routes", None)
    if routes is not None and (param in routes.params or name in SERVED_BY):
        try:
            func(**kwargs)
        except InvalidParameterError as error:  # only a lazy frame, with how to collect it
            assert kind == "lazy polars", str(error)
            if routes.lazy is not None:  # a setting that needs the records
                assert error.param in RECORDS_ONLY[name], str(error)
                assert "Collect the frame first (polars: .collect())" in str(error)
                return
            assert str(error).endswith("Collect it first (polars: .collect()).")
        return
    with pytest.raises(InvalidParameterError) as info:
        func(**kwargs)
    contract = CONTRACTS.get(name)
    assert info.value.func == ((contract and contract.reports_as) or name)
    assert info.value.param == param
    message = str(info.value)
    assert f"'{param}' parameter of {info.value.func}" in message
    assert kind.split()[-1] in message  # the kind of frame: polars, pyarrow
    assert (".collect()" if kind == "lazy polars" else ".to_pandas()") in message  # the fix


@pytest.mark.parametrize("kind", ["polars", "pyarrow", "lazy polars"])
@pytest.mark.parametrize("param", ["transition", "allowed"])
def test_a_pram_matrix_or_mask_of_another_kind_is_refused_naming_it(kind: str, param: str) -> None:
    """pram's matrices live inside a dict: a polars or pyarrow one (rows without category
    labels) is refused with its kind and how to convert it, not with its repr."""
    given = _matrix() if param == "transition" else _matrix() > 0.5
    with pytest.raises(InvalidParameterError) as info:
        EVERY["pram"](people(), "dis", **{param: {"dis": _frame_of(kind, given)}}, seed=1)
    assert (info.value.func, info.value.param) == ("pram", param)
    names = {"polars": "polars DataFrame", "pyarrow": "pyarrow Table"}
    kind_name = names.get(kind, "polars LazyFrame")
    convert = ".collect().to_pandas()" if kind == "lazy polars" else ".to_pandas()"
    assert f"Got a {kind_name} instead: a " in str(info.value)
    assert f"convert it with {convert} and set its index to the categories" in str(info.value)


@pytest.mark.parametrize("kind", ["polars", "duckdb"])
def test_a_lazy_frame_with_a_reserved_column_name_is_refused(kind: str) -> None:
    # the engine's queries name their own columns __microsdc...: a column of that name
    # in the input failed inside narwhals (or DuckDB said the input repeats a name)
    df = pd.DataFrame({"__microsdc_rows__": [1, 2, 3], "a": [1, 1, 1]})
    if kind == "polars":
        pl = pytest.importorskip("polars")
        frame = pl.from_pandas(df).lazy()
    else:
        duckdb = pytest.importorskip("duckdb")
        frame = duckdb.connect().from_df(df)
    with pytest.raises(InvalidParameterError) as info:
        microsdc.local_suppression(frame, ["a"], 2)
    assert info.value.func == "local_suppression" and info.value.param == "df"
    assert str(info.value).startswith(
        "The 'df' frame of local_suppression has the column(s) '__microsdc_rows__', whose "
        "names start with '__microsdc'"
    )
    assert microsdc.local_suppression(df, ["a"], 2).n_cells == 0  # pandas has no such queries
