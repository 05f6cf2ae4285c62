"""One way for a public function to take every kind of data frame.

:func:`accepts_frames` decorates a public function whose first parameter is a data
frame. The frame's adapter (:func:`microsdc.backends.adapters.adapt`) decides the
route:

- a pandas ``DataFrame`` calls the function;
- a polars ``DataFrame`` or pyarrow ``Table`` (rows in memory) is converted to
  pandas, the function runs, and the frames of the result come back as the
  caller's kind (:func:`microsdc.backends.eager.as_kind_of`), unless the function
  names its own ``eager`` route;
- a lazy frame (polars ``LazyFrame``, DuckDB relation, Spark ``DataFrame``) goes to
  the function's ``lazy`` implementation (the function itself when it serves every
  frame, ``lazy=True``), or is refused with how to collect it;
- anything else is refused with what the parameter accepts.

A function that takes two frames (the data before and after, the data and a file
to write them to) names them in ``frames``: each is converted, and the frames of
the result come back as the kind of the first.

The decorated function keeps its name, docstring and signature
(:func:`functools.wraps`), and warnings raised under it still point at the
caller's line (:func:`microsdc._core.warn.warn` skips microsdc's own frames).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, ParamSpec, TypeVar

from microsdc.backends.adapters import adapt
from microsdc.exceptions import InvalidParameterError

__all__ = ["COLLECT", "FrameRoutes", "accepts_frames", "lazy_refusal_text"]

P = ParamSpec("P")
R = TypeVar("R")

#: How to bring a lazy frame's rows into memory, by engine.
COLLECT = {
    "polars": "polars: .collect()",
    "DuckDB": "DuckDB: .pl() or .df()",
    "PySpark": "Spark: .toPandas(), or .toArrow() for a pyarrow table",
}


def lazy_refusal_text(func: str, engine: str, param: str | None = None) -> str:
    """The refusal of a lazy ``engine`` frame by ``func``, which needs its rows
    (``param`` names the parameter that got it, for a function of several frames)."""
    given = f" as '{param}'" if param is not None else ""
    return (
        f"{func} needs the rows in memory; got a lazy {engine} frame{given}. "
        f"Collect it first ({COLLECT.get(engine, COLLECT['polars'])})."
    )


@dataclass(frozen=True)
class FrameRoutes:
    """Where :func:`accepts_frames` sends a decorated function's frames.

    Attributes
    ----------
    params : tuple of str
        The data-frame parameters: the function's first, or those it names.
    lazy : callable or None
        The implementation for lazy frames, called with every argument by name;
        None refuses them.
    eager : callable or None
        The route for polars and pyarrow frames in memory, called with every
        argument by name; None converts them to pandas and back.
    """

    params: tuple[str, ...]
    lazy: Callable[..., Any] | None
    eager: Callable[..., Any] | None

    @property
    def param(self) -> str:
        """The first data-frame parameter, whose kind the result's frames take."""
        return self.params[0]


def accepts_frames(
    *,
    lazy: Callable[..., Any] | Literal[True] | None = None,
    eager: Callable[..., Any] | None = None,
    frames: tuple[str, ...] | None = None,
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Let the decorated function take every data frame microsdc knows.

    Parameters
    ----------
    lazy : callable or True, optional
        The function's implementation for a lazy frame (polars ``LazyFrame``,
        DuckDB relation, Spark ``DataFrame``), called with every parameter of the
        function by name (defaults filled in); True when the function itself takes
        the lazy frame (one driver whose frame adapter works in the engine). Without
        it a lazy frame is refused with how to collect it.
    eager : callable, optional
        A route of its own for a polars ``DataFrame`` or pyarrow ``Table``, called
        the same way; without it the frame is converted to pandas, the function
        runs, and the frames of the result come back as the caller's kind. Only
        for a function of one frame.
    frames : tuple of str, optional
        The function's data-frame parameters, when it takes more than its first
        (``("original", "swapped")``). Each is converted; a lazy one is refused
        (the message names it) unless ``lazy`` is given; the frames of the result
        come back as the kind of the first (a pandas first frame: pandas).

    Returns
    -------
    callable
        The decorator. The decorated function has the same name, docstring and
        signature, and its :class:`FrameRoutes` as ``frame_routes``.

    Raises
    ------
    InvalidParameterError
        From the decorated function: for a lazy frame it has no implementation for
        (the message names the function and how to collect; ``func`` is the
        function's name, ``param`` the frame parameter's), or for an object that is
        not a data frame microsdc knows
        (:func:`~microsdc.backends.adapters.adapt`).
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(func)
        parameters = list(signature.parameters.values())
        keyword = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        if not parameters or any(p.kind not in keyword for p in parameters):
            raise TypeError(f"{func.__name__}: every parameter must be nameable by keyword")
        names = frames if frames is not None else (parameters[0].name,)
        if not names or not set(names) <= set(signature.parameters):
            raise TypeError(f"{func.__name__}: frames must name its parameters, got {names}")
        if eager is not None and len(names) > 1:
            raise TypeError(f"{func.__name__}: an eager route serves a function of one frame")
        routes = FrameRoutes(tuple(names), func if lazy is True else lazy, eager)
        name = func.__name__
        call: Callable[..., R] = func

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:
                return func(*args, **kwargs)  # Python's own message for the call
            given = {p: adapt(bound.arguments[p], name, p) for p in routes.params}
            if all(frame.name == "pandas" for frame in given.values()):
                return func(*args, **kwargs)
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            lazy_given = [(p, frame) for p, frame in given.items() if frame.lazy]
            if lazy_given:
                if routes.lazy is None:
                    param, frame = lazy_given[0]
                    many = param if len(given) > 1 else None
                    raise InvalidParameterError(
                        lazy_refusal_text(name, frame.name, many), func=name, param=param
                    )
                return routes.lazy(**arguments)
            if routes.eager is not None:
                return routes.eager(**arguments)
            data = {p: frame.to_pandas(name) for p, frame in given.items()}
            result = call(**{**arguments, **data})
            return given[routes.param].from_pandas(result, data[routes.param])

        wrapper.frame_routes = routes  # type: ignore[attr-defined]
        return wrapper

    return decorate
