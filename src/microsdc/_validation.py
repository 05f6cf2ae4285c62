"""Parameter and column checks with one message shape.

Messages read: ``The 'k' parameter of check_k_anonymity must be an int >= 1. Got 0 instead.``
"""

from __future__ import annotations

import numbers
from collections.abc import Collection, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from microsdc._core.errors import param_error
from microsdc.exceptions import ColumnNotFoundError, DataValidationError, InvalidParameterError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "check_bool",
    "check_callable",
    "check_columns",
    "check_frame",
    "check_frame_pair",
    "check_instance",
    "check_int",
    "check_keys",
    "check_missing_values",
    "check_missing_values_columns",
    "check_number",
    "check_one_of",
    "check_path",
    "check_weight_apart",
    "given_alone_error",
    "incomplete_column_error",
    "lazy_refusal",
    "not_pandas",
    "param_error",
    "separator_problem",
    "text_encoding_problem",
]


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _within(
    noun: str,
    low: Any,
    high: Any,
    low_open: bool = False,
    high_open: bool = False,
    *,
    unbounded: str,
) -> str:
    """The requirement a message states: "an int in the range [1, 5]", "a real number > 0"."""
    if low is not None and high is not None:
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        return f"{noun} in the range {lo}{low}, {high}{hi}"
    if low is not None:
        return f"{noun} {'>' if low_open else '>='} {low}"
    if high is not None:
        return f"{noun} {'<' if high_open else '<='} {high}"
    return unbounded


def check_int(
    value: Any, name: str, func: str, *, min_value: int | None = None, max_value: int | None = None
) -> int:
    """Return ``value`` as int, or raise if it is not an integer in [min_value, max_value].

    Floats are rejected even when integral (``k=3.0`` is an error): a count is an int.
    """
    ok = _is_int(value)
    if ok and min_value is not None and value < min_value:
        ok = False
    if ok and max_value is not None and value > max_value:
        ok = False
    if not ok:
        req = _within("an int", min_value, max_value, unbounded="an int")
        raise param_error(name, func, req, value)
    return int(value)


def check_number(
    value: Any,
    name: str,
    func: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` as float, or raise if it is not a finite real number in the interval."""
    import math

    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok:
        value_f = float(value)
        ok = math.isfinite(value_f)
        if ok and low is not None:
            ok = value_f > low if low_open else value_f >= low
        if ok and high is not None:
            ok = value_f < high if high_open else value_f <= high
    if not ok:
        req = _within(
            "a real number", low, high, low_open, high_open, unbounded="a finite real number"
        )
        raise param_error(name, func, req, value)
    return float(value)


def check_bool(value: Any, name: str, func: str) -> bool:
    """Return ``value`` if it is a bool (numpy bools accepted), else raise."""
    import numpy as np

    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise param_error(name, func, "a bool", value)


def check_callable(value: Any, name: str, func: str) -> Any:
    """Raise unless ``value`` is None or callable."""
    if value is None or callable(value):
        return value
    raise param_error(name, func, "a callable or None", value)


def check_instance(value: Any, kind: type, name: str, func: str, requirement: str) -> Any:
    """Raise unless ``value`` is a ``kind`` (the result of another function, say); the
    message names the type given, not its contents."""
    if isinstance(value, kind):
        return value
    raise InvalidParameterError(
        f"The '{name}' parameter of {func} must be {requirement}. "
        f"Got {type(value).__name__} instead.",
        func=func,
        param=name,
    )


def check_path(value: Any, name: str, func: str) -> Any:
    """Raise unless ``value`` is a file path (a str or an ``os.PathLike``)."""
    import os

    if isinstance(value, str | os.PathLike):
        return value
    raise param_error(name, func, "a file path (str or os.PathLike)", value)


def check_weight_apart(weights: Any, quasi_identifiers: Sequence[Any], func: str) -> None:
    """Refuse a weight column that is also a quasi-identifier.

    Raises
    ------
    InvalidParameterError
        Naming the column, when ``weights`` is a column name listed in
        ``quasi_identifiers``.
    """
    if weights is None or isinstance(weights, list | tuple) or not isinstance(weights, Hashable):
        return
    try:
        both = weights in list(quasi_identifiers)
    except (TypeError, ValueError):  # an array: no column name
        return
    if both:
        raise InvalidParameterError(
            f"The 'weights' parameter of {func} names {weights!r}, which is also a "
            "quasi-identifier: a sampling weight says how many people a record stands for, "
            "not who they are, and one column cannot be both. Give the weight column apart "
            "from the quasi-identifiers (or leave the weights out).",
            func=func,
            param="weights",
            requirement="a column that is not a quasi-identifier",
            value=weights,
        )


def text_encoding_problem(value: Any) -> str | None:
    """Why ``value`` cannot be the encoding of a text file (None: it can).

    A name :func:`codecs.lookup` finds is not enough: ``"rot13"``, ``"base64"`` or
    ``"zlib"`` are codecs between texts or between bytes, not text encodings, and
    reading or writing a file with them fails.
    """
    import codecs

    if not isinstance(value, str) or not value.strip():
        return "not a name (a non-empty string)"
    try:
        info = codecs.lookup(value)
    except LookupError:
        return "not an encoding Python knows"
    try:
        "".encode(info.name)
        b"".decode(info.name)
    except LookupError:
        return f"a codec ({info.name}) that is not a text encoding"
    return None


#: Characters that cannot separate the fields of a CSV file: the quote that encloses a
#: field, and the line breaks that end a record.
_NOT_SEPARATORS = {'"': "the quote character", "\n": "a line break", "\r": "a line break"}


def separator_problem(value: Any) -> str | None:
    """Why ``value`` cannot be the field separator of a CSV file (None: it can): one
    character, neither the quote nor a line break."""
    if not isinstance(value, str) or len(value) != 1:
        return "not one character"
    if value in _NOT_SEPARATORS:
        return _NOT_SEPARATORS[value]
    return None


def check_missing_values(value: Any, name: str, func: str) -> Any:
    """Raise unless ``value`` can be missing-value codes: None, one code (a str or a
    number), a list of codes, or a dict of column -> codes."""
    if value is None or isinstance(value, str | bytes | numbers.Number | Iterable):
        return value
    raise param_error(name, func, "a list of values or a dict of column -> values", value)


def check_keys(value: Any, known: Collection[Any], name: str, func: str, problem: str) -> None:
    """Raise when ``value`` is a dict with keys outside ``known``.

    The message reads "The '<name>' parameter of <func> names <problem>", ``problem``
    formatted with ``unknown`` (those keys, in their order), ``listed`` (their reprs joined
    by commas) and ``known``.
    """
    from collections.abc import Mapping

    if not isinstance(value, Mapping):
        return
    unknown = [c for c in value if c not in known]
    if unknown:
        listed = ", ".join(repr(c) for c in unknown)
        raise InvalidParameterError(
            f"The '{name}' parameter of {func} names "
            + problem.format(unknown=unknown, listed=listed, known=known),
            func=func,
            param=name,
        )


def check_missing_values_columns(value: Any, columns: Iterable[Any], func: str) -> None:
    """Raise when ``value`` (``missing_values``) is a dict naming columns not in ``columns``."""
    problem = "columns not in the data: {listed}."
    check_keys(value, set(columns), "missing_values", func, problem)


def incomplete_column_error(
    where: str,
    bad: Any,
    index: pd.Index,
    func: str,
    fix: str,
    *,
    what: str = "missing",
    param: str | None = None,
) -> DataValidationError:
    """The error for a column that must be complete: "<where> has 3 missing value(s)
    (first rows: [4, 9, 12]). <fix>", the rows ``bad`` (a boolean mask over ``index``)
    given as its failure cases."""
    return DataValidationError(
        f"{where} has {int(bad.sum())} {what} value(s) (first rows: {list(index[bad][:5])}). {fix}",
        failure_cases=list(index[bad]),
        func=func,
        param=param,
    )


def given_alone_error(
    func: str, param: str, value: Any, lacking: str, why: str, partner: tuple[str, str]
) -> InvalidParameterError:
    """The error for a parameter given without the one it works with, where alone it
    would change nothing: "The '<param>' parameter of <func> is <value>, but <lacking>:
    <why>, so alone it changes nothing. Give <partner> too, or leave '<param>' out.".

    ``partner`` is the other parameter's name (``related``) and how to give it
    (``"method='random'"``, ``"'dis_suda_threshold'"``).

    >>> err = given_alone_error("f", "seed", 1, "method is 'greedy'", "only 'random' draws",
    ...                         ("method", "method='random'"))
    >>> for part in str(err).split(": ")[1].split(". "):
    ...     print(part)
    only 'random' draws, so alone it changes nothing
    Give method='random' too, or leave 'seed' out.
    >>> err.related
    ('method',)
    """
    name, give = partner
    shown = f"{value:g}" if isinstance(value, float) else repr(value)
    return InvalidParameterError(
        f"The '{param}' parameter of {func} is {shown}, but {lacking}: {why}, so alone it "
        f"changes nothing. Give {give} too, or leave '{param}' out.",
        func=func,
        param=param,
        requirement=f"given together with {give}",
        value=value,
        related=(name,),
    )


def lazy_refusal(name: str, func: str, why: str, value: Any, collect: str) -> InvalidParameterError:
    """The error for a setting a lazy frame cannot take: "The '<name>' parameter of
    <func> is not supported on a lazy frame: <why>. Collect the frame first (<collect>)
    to use it."."""
    return InvalidParameterError(
        f"The '{name}' parameter of {func} is not supported on a lazy frame: {why}. "
        f"Collect the frame first ({collect}) to use it.",
        func=func,
        param=name,
        value=value,
    )


def check_one_of(value: Any, name: str, func: str, options: Sequence[Any]) -> Any:
    """Raise unless ``value`` is one of ``options``."""
    if isinstance(value, Hashable) and value in options:
        return value
    listed = ", ".join(repr(o) for o in options)
    raise param_error(name, func, f"one of {{{listed}}}", value)


#: How to bring a lazy frame's rows into pandas, by the top-level module of its class.
_LAZY_TO_PANDAS = {
    "polars": "collect it and convert it with .collect().to_pandas()",
    "duckdb": "convert it with .df()",
    "_duckdb": "convert it with .df()",
    "pyspark": "convert it with .toPandas()",
}


def not_pandas(
    df: Any, name: str, func: str, requirement: str = "a pandas DataFrame"
) -> InvalidParameterError:
    """The refusal of ``df`` by a parameter that takes pandas only: a polars, pyarrow,
    DuckDB or Spark frame is named with how to convert it (lazy ones: how to collect)."""
    kind = type(df)
    library = kind.__module__.split(".")[0]
    how = _LAZY_TO_PANDAS.get(library)
    if library not in ("pandas", "builtins", "numpy") and hasattr(df, "to_pandas"):
        how = "convert it with .to_pandas()"
    if how is None:
        return param_error(name, func, requirement, kind.__name__)
    shown = "DuckDB" if library == "_duckdb" else library
    return InvalidParameterError(
        f"The '{name}' parameter of {func} must be {requirement}. Got a {shown} "
        f"{kind.__name__} instead; {how}.",
        func=func,
        param=name,
    )


def check_frame(df: Any, name: str, func: str) -> pd.DataFrame:
    """Raise unless ``df`` is a pandas DataFrame with unique column names."""
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise not_pandas(df, name, func)
    if not df.columns.is_unique:
        raise duplicate_columns_error(df.columns, func)
    return df


def duplicate_columns_error(columns: Iterable[Any], func: str) -> DataValidationError:
    """The refusal of a data frame whose ``columns`` (all its column names, in order)
    repeat a name, naming each repeated name once, in order of first repeat."""
    seen: set[Any] = set()
    dup: list[Any] = []
    for name in columns:
        if name in seen and name not in dup:
            dup.append(name)
        seen.add(name)
    return DataValidationError(
        f"The data frame passed to {func} has duplicate column names: "
        f"{', '.join(repr(d) for d in dup)}. Rename them so each column can be named.",
        failure_cases=dup,
        func=func,
    )


def check_frame_pair(
    original: Any, released: Any, columns: Any, name: str, func: str
) -> list[Hashable]:
    """Check the two frames of a before/after comparison (``original`` and ``released``)
    and that both hold ``columns`` (the parameter ``name``); return the columns."""
    check_frame(original, "original", func)
    check_frame(released, "released", func)
    cols = check_columns(original, columns, name, func)
    check_columns(released, cols, name, func)
    return cols


def _plain(text: str) -> str:
    """``text`` without accents and case: NFKD, combining marks dropped, case-folded."""
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _nearest(text: str, keys: Sequence[str]) -> list[str]:
    """The ``keys`` closest to ``text`` (difflib ratio >= 0.75), all of them when tied."""
    import difflib

    scored = []
    for key in keys:
        matcher = difflib.SequenceMatcher(None, text, key)
        if matcher.real_quick_ratio() >= 0.75 and matcher.quick_ratio() >= 0.75:
            ratio = matcher.ratio()
            if ratio >= 0.75:
                scored.append((ratio, key))
    if not scored:
        return []
    best = max(r for r, _ in scored)
    return [k for r, k in scored if r == best]


def _or(names: Sequence[Any]) -> str:
    """``'a'``, ``'a' or 'b'``, ``'a', 'b' or 'c'``."""
    shown = [repr(str(n)) for n in names]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def _candidates(text: str, present: Sequence[Any]) -> list[Any]:
    """The present columns closest to the unknown name ``text``, best tier first."""
    names = {str(p): p for p in present}
    stripped = text.strip()
    if stripped != text and stripped in names:  # 'sex ' for 'sex'
        return [names[stripped]]
    # the same name once case, then accents, are set aside: every one of them
    same_case = [p for p in present if str(p).casefold() == text.casefold()]
    same_plain = [p for p in present if _plain(str(p)) == _plain(text) and p not in same_case]
    if same_case or same_plain:
        return same_case + same_plain
    if stripped != text:
        same = [p for p in present if _plain(str(p)) == _plain(stripped)]
        if same:
            return same
    hits = [names[n] for n in _nearest(text, list(names))]
    for key in (str.casefold, _plain):
        if hits:
            break
        keyed: dict[str, list[Any]] = {}
        for p in present:
            keyed.setdefault(key(str(p)), []).append(p)
        hits = [p for n in _nearest(key(text), list(keyed)) for p in keyed[n]]
    # a near miss of one is as near a miss of those spelt alike but for case and accents
    forms = {_plain(str(h)) for h in hits}
    return hits + [p for p in present if p not in hits and _plain(str(p)) in forms]


def close_matches_hint(
    missing: Sequence[Any], present: Sequence[Any], *, taken: Collection[Any] = ()
) -> str:
    """ " Did you mean ...?" for unknown column names: the same name once surrounding
    spaces, case or accents are set aside (``âge`` for ``age``), else a near miss.
    Columns equally close are all named, never one picked among them; columns in
    ``taken`` (those the caller was given besides) are never suggested.

    Examples
    --------
    >>> close_matches_hint(["Age", "sexx"], ["age", "sex", "region"])
    " Did you mean 'age' for 'Age', 'sex' for 'sexx'?"
    >>> close_matches_hint(["zzz"], ["age"])
    ''
    >>> close_matches_hint(["age"], ["âge", "sexe"])
    " Did you mean 'âge'?"
    >>> close_matches_hint(["age"], ["âge", "agé", "AGE"])
    " Did you mean 'AGE', 'âge' or 'agé'?"
    >>> close_matches_hint(["sex "], ["Sex ", "sex"])
    " Did you mean 'sex'?"
    >>> close_matches_hint(["FK"], ["fk", "Fk_1"], taken=["fk"])
    ''
    """
    taken_names = {str(t) for t in taken}
    usable = [p for p in present if str(p) not in taken_names]
    pairs = []
    several = False
    for m in missing:
        text = str(m)
        hits = _candidates(text, usable)
        if hits:
            several = several or len(hits) > 1
            pairs.append((_or(hits), text))
    if not pairs:
        return ""
    if len(pairs) == 1 and len(missing) == 1:
        return f" Did you mean {pairs[0][0]}?"
    joiner = "; " if several else ", "
    return f" Did you mean {joiner.join(f'{hit} for {text!r}' for hit, text in pairs)}?"


def check_columns(
    df: pd.DataFrame,
    columns: Any,
    name: str,
    func: str,
    *,
    allow_empty: bool = False,
    allow_single: bool = True,
) -> list[Hashable]:
    """Normalise a column list and check every name exists in ``df``.

    Parameters
    ----------
    df : pandas.DataFrame
    columns : hashable or iterable of hashables
        A single column name is accepted when ``allow_single`` (a ``str`` is
        always one name, never an iterable of characters).
    name, func : str
        Parameter and function names for the message.
    allow_empty : bool, default False
        Whether an empty list is acceptable.

    Returns
    -------
    list
        The column names, in the order given.

    Raises
    ------
    InvalidParameterError
        If the list is empty (and not allowed), or names a column twice.
    ColumnNotFoundError
        Listing every unknown name.
    """
    if columns is None:
        cols: list[Hashable] = []
    elif isinstance(columns, str | bytes) or not isinstance(columns, Iterable):
        if not allow_single:
            raise param_error(name, func, "a list of column names", columns)
        cols = [columns]
    else:
        cols = list(columns)
    if not cols and not allow_empty:
        raise param_error(name, func, "a non-empty list of column names", columns)
    seen: set[Any] = set()
    dups = []
    for c in cols:
        try:
            if c in seen:
                dups.append(c)
            seen.add(c)
        except TypeError as exc:
            raise param_error(name, func, "a list of column names", columns) from exc
    if dups:
        raise InvalidParameterError(
            f"The '{name}' parameter of {func} names the same column more than once: "
            f"{', '.join(repr(d) for d in dups)}.",
            func=func,
            param=name,
        )
    present = set(df.columns)
    missing = [c for c in cols if c not in present]
    if missing:
        listed = ", ".join(repr(c) for c in missing)
        raise ColumnNotFoundError(
            f"The '{name}' parameter of {func} names {len(missing)} column(s) not in the data: "
            f"{listed}. Available columns: {', '.join(repr(c) for c in list(df.columns)[:30])}"
            + (" ..." if len(df.columns) > 30 else "")
            + "."
            + close_matches_hint(
                missing, list(df.columns), taken=[c for c in cols if c in present]
            ),
            missing=missing,
            func=func,
            param=name,
        )
    return cols
