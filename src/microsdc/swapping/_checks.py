"""Input checks of :func:`microsdc.swapping.record_swap`.

Every check raises with the house message shape and names the parameter or the
column at fault. Only the columns the swap uses are inspected; other columns may
hold anything.
"""

from __future__ import annotations

import numbers
import os
import reprlib
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from microsdc._validation import (
    check_bool,
    check_frame,
    check_int,
    check_number,
    close_matches_hint,
    param_error,
)
from microsdc.exceptions import ColumnNotFoundError, DataValidationError, InvalidParameterError
from microsdc.risk.kanonymity import DEFAULT_K

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["SwapParams", "check_swap_params", "resolve_columns"]

FUNC = "record_swap"


@dataclass(frozen=True)
class SwapParams:
    """Validated parameters of one swap, with every column reference resolved to a name."""

    hid: Hashable
    hierarchy: list[Hashable]
    profiles: list[list[Hashable]]
    swaprate: float
    risk: np.ndarray | None
    risk_threshold: float | None
    k_anonymity: int
    risk_variables: list[Hashable]
    carry_along: list[Hashable]
    return_swapped_id: bool
    log_file_name: str | None
    swapped_id_name: str
    checked_columns: list[Hashable]


def _is_position(item: Any) -> bool:
    return isinstance(item, numbers.Integral) and not isinstance(item, bool)


def _as_items(value: Any, name: str, func: str = FUNC) -> list[Any]:
    import numpy as np
    import pandas as pd

    if value is None:
        return []
    if isinstance(value, pd.DataFrame | pd.Series) or (
        isinstance(value, np.ndarray) and value.ndim != 1
    ):
        raise param_error(
            name,
            func,
            "a column name, a 0-based column position or a list of them",
            type(value).__name__,
        )
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        return [value]
    return list(value)


def resolve_columns(
    df: pd.DataFrame,
    value: Any,
    name: str,
    *,
    single: bool = False,
    allow_empty: bool = False,
    func: str = FUNC,
) -> list[Hashable]:
    """Resolve column names or 0-based positions to a list of column names.

    A value that is a column label of ``df`` is that column; otherwise an int is a
    0-based position (``0 <= pos < n_columns``).

    Raises
    ------
    InvalidParameterError
        Wrong type, wrong length, a position out of range, or a column named twice.
    ColumnNotFoundError
        A name that is not a column of ``df``.
    """
    items = _as_items(value, name, func)
    if single and len(items) != 1:
        raise param_error(name, func, "a single column name or 0-based position", value)
    if not items and not allow_empty:
        raise param_error(name, func, "a non-empty list of column names", value)
    ncol = df.shape[1]
    out: list[Hashable] = []
    missing: list[Any] = []
    for item in items:
        if not isinstance(item, Hashable) or isinstance(item, list | tuple | set):
            raise param_error(name, func, "column names or 0-based column positions", value)
        if item in df.columns:
            out.append(item)
        elif _is_position(item):
            pos = int(item)  # type: ignore[call-overload]
            if not 0 <= pos < ncol:
                raise param_error(
                    name, func, f"column names or 0-based positions in [0, {ncol - 1}]", value
                )
            label: Hashable = df.columns[pos]
            out.append(label)
        else:
            missing.append(item)
    if missing:
        listed = ", ".join(repr(m) for m in missing)
        shown = ", ".join(repr(c) for c in list(df.columns)[:30])
        raise ColumnNotFoundError(
            f"The '{name}' parameter of {func} names {len(missing)} column(s) not in the data: "
            f"{listed}. Available columns: {shown}{' ...' if ncol > 30 else ''}."
            + close_matches_hint(missing, list(df.columns), taken=out),
            missing=missing,
            func=func,
            param=name,
        )
    dups = [c for i, c in enumerate(out) if c in out[:i]]
    if dups:
        raise InvalidParameterError(
            f"The '{name}' parameter of {func} names the same column more than once: "
            f"{', '.join(repr(d) for d in dict.fromkeys(dups))}.",
            func=func,
            param=name,
        )
    return out


def _parse_profiles(df: pd.DataFrame, similar: Any) -> list[list[Hashable]]:
    """``similar`` -> list of profiles; a flat list is one profile, a list of lists several."""
    if similar is None:
        return []
    items = _as_items(similar, "similar")
    nested = any(isinstance(it, list | tuple) for it in items)
    raw = (
        [it if isinstance(it, list | tuple) else [it] for it in items]
        if nested
        else ([items] if items else [])
    )
    return [resolve_columns(df, prof, "similar", allow_empty=True) for prof in raw]


def _engine_risk(risk: Any, data: pd.DataFrame) -> pd.DataFrame:
    """A polars or pyarrow risk frame (as :func:`level_risk` returns for such data) as
    pandas, its rows in the order of ``data`` (it has no row labels to align by); a lazy
    one is refused with how to collect it."""
    from microsdc.backends.adapters import adapt
    from microsdc.backends.dispatch import lazy_refusal_text

    frame = adapt(risk, FUNC, "risk")
    if frame.lazy:
        raise InvalidParameterError(
            lazy_refusal_text(FUNC, frame.name, "risk"), func=FUNC, param="risk"
        )
    out = frame.to_pandas(FUNC)
    return out.set_axis(data.index) if len(out) == len(data) else out


class _Shown:
    """A long list as a message shows it: its length and first values."""

    def __init__(self, value: Any, first: int = 5) -> None:
        self.value, self.first = value, first

    def __repr__(self) -> str:
        items = list(self.value)
        if len(items) <= self.first:
            return repr(self.value)
        head = ", ".join(reprlib.repr(v) for v in items[: self.first])
        return f"a {type(self.value).__name__} of {len(items)} values [{head}, ...]"


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _risk_values(risk: Sequence[Any], data: pd.DataFrame, n_levels: int) -> bool:
    """Whether the list ``risk`` holds risk values (numbers, or lists of them), not
    column names or positions: nested lists, or numbers that are not column labels and
    are not ``n_levels`` whole numbers (positions)."""
    items = list(risk)
    if not items:
        return False
    if any(isinstance(v, list | tuple) for v in items):
        return True
    if not all(_is_number(v) and v not in data.columns for v in items):
        return False
    return len(items) != n_levels or any(float(v) != int(v) for v in items)


def _list_shape(risk: Sequence[Any]) -> tuple[int, ...]:
    """The shape ``numpy.asarray`` would give a list of numbers (or of equal lists)."""
    items = list(risk)
    inner = {len(v) for v in items if isinstance(v, list | tuple)}
    if len(inner) == 1 and all(isinstance(v, list | tuple) for v in items):
        return (len(items), inner.pop())
    return (len(items),)


def _risk_shape_error(
    risk: Any, n: int, n_levels: int, shape: tuple[int, ...], kind: str
) -> InvalidParameterError:
    """The refusal of a risk of the wrong shape (or a list of numbers), with the fix."""
    if shape == (n, n_levels):
        fix = "pass it as an array: risk=np.asarray(values, dtype=float)"
    elif shape == (n,):
        fix = (
            "one value per record is a risk for one level: to use it at every level, pass "
            f"risk=np.column_stack([values] * {n_levels}) (or a DataFrame with one column per "
            "level, in the order of 'hierarchy')"
        )
    else:
        fix = (
            f"give one row per record of the data ({n}) and one column per level of "
            f"'hierarchy' ({n_levels}), e.g. risk=np.column_stack([r1, r2, ...]) with one "
            f"array of {n} values per level"
        )
    shape_req = f"of shape (n_rows, n_levels) = ({n}, {n_levels})"
    if kind == "a list":
        requirement = f"None, a DataFrame or ndarray {shape_req}, or a list of column names"
        got = f"a list of numbers of shape {shape} ({_Shown(risk)!r}) instead: a list of "
        got += "numbers is read as column names, not as a risk;"
    else:
        requirement = f"an array {shape_req}"
        got = f"shape {shape} instead:"
    return InvalidParameterError(
        f"The 'risk' parameter of {FUNC} must be {requirement}. Got {got} {fix} (numpy "
        "imported as np).",
        func=FUNC,
        param="risk",
        requirement=requirement,
        value=f"shape {shape}",
    )


def _check_risk(risk: Any, data: pd.DataFrame, n_levels: int) -> np.ndarray:
    """A user risk -> float64 array of shape (n_rows, n_levels) in the input's row order."""
    import numpy as np
    import pandas as pd

    n = len(data)
    shape_req = f"of shape (n_rows, n_levels) = ({n}, {n_levels})"
    if type(risk).__module__.split(".", 1)[0] in ("polars", "pyarrow", "duckdb", "_duckdb"):
        risk = _engine_risk(risk, data)
    if isinstance(risk, pd.DataFrame):
        frame = risk
        if (
            not frame.index.equals(data.index)
            and frame.index.is_unique
            and data.index.is_unique
            and len(frame) == n
            and frame.index.isin(data.index).all()
        ):
            frame = frame.reindex(data.index)  # same labels in another order: align by label
        if not all(
            pd.api.types.is_numeric_dtype(t) and not pd.api.types.is_bool_dtype(t)
            for t in frame.dtypes
        ):
            raise param_error("risk", FUNC, "numeric", "a data frame with non-numeric columns")
        arr = frame.to_numpy(dtype=np.float64, na_value=np.nan)
    elif isinstance(risk, np.ndarray):
        if risk.dtype.kind not in "iuf":
            raise param_error("risk", FUNC, "a numeric array", f"dtype {risk.dtype}")
        arr = risk.astype(np.float64)
        if arr.ndim == 1 and n_levels == 1:
            arr = arr.reshape(-1, 1)
    elif isinstance(risk, list | tuple):
        if _risk_values(risk, data, n_levels):
            raise _risk_shape_error(risk, n, n_levels, _list_shape(risk), "a list")
        cols = resolve_columns(data, list(risk), "risk")
        if len(cols) != n_levels:
            raise param_error(
                "risk",
                FUNC,
                f"a list of {n_levels} column names (one per hierarchy level)",
                _Shown(risk),
            )
        for c in cols:
            if not pd.api.types.is_numeric_dtype(data[c]) or pd.api.types.is_bool_dtype(data[c]):
                raise DataValidationError(
                    f"Column {c!r} named in the 'risk' parameter of {FUNC} is not numeric "
                    f"(dtype {data[c].dtype}).",
                    failure_cases=[c],
                    func=FUNC,
                    param="risk",
                )
        arr = data[cols].to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        raise param_error(
            "risk",
            FUNC,
            "None, a DataFrame or ndarray " + shape_req + ", or a list of column names",
            type(risk).__name__,
        )
    if arr.ndim != 2 or arr.shape != (n, n_levels):
        raise _risk_shape_error(risk, n, n_levels, arr.shape, "an array")
    bad = ~np.isfinite(arr)
    if bad.any():
        rows = int(bad.any(axis=1).sum())
        raise DataValidationError(
            f"The 'risk' parameter of {FUNC} holds missing or infinite values in {rows} row(s); "
            "every cell must be a finite real number >= 0.",
            failure_cases=np.flatnonzero(bad.any(axis=1)),
            func=FUNC,
            param="risk",
        )
    if (arr < 0).any():
        rows = int((arr < 0).any(axis=1).sum())
        raise param_error(
            "risk", FUNC, "finite real numbers >= 0", f"negative values in {rows} row(s)"
        )
    return np.ascontiguousarray(arr)


def _check_log_path(log_file_name: Any) -> str | None:
    if log_file_name is None:
        return None
    if not isinstance(log_file_name, str | os.PathLike):
        raise param_error("log_file_name", FUNC, "None or a file path", log_file_name)
    path = os.fspath(log_file_name)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path) or not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise param_error("log_file_name", FUNC, "a writable file path", log_file_name)
    return path


def check_missing(data: pd.DataFrame, roles: dict[Hashable, str]) -> None:
    """Raise if a used column holds missing values (naming the column and the row count)."""
    for col, role in roles.items():
        blank = data[col].isna().to_numpy()
        n_missing = int(blank.sum())
        if n_missing:
            rows = list(data.index[blank][:100])
            raise DataValidationError(
                f"Column {col!r} (used as {role} by {FUNC}) has missing values in {n_missing} "
                f"row(s) of {len(data)} (first rows: {rows[:5]}); fill or drop them before "
                "swapping.",
                failure_cases=rows,
                func=FUNC,
            )


def _check_risk_source(
    data: Any,
    risk: Any,
    risk_variables: Any,
    k_anonymity: int,
    threshold: float | None,
    risk_threshold: Any,
    n_levels: int,
) -> tuple[list[Hashable], Any]:
    """The risk variables and the user's risk (None when the risk is computed): either
    risk variables (and ``k_anonymity``) to compute it from, or a risk per household and
    a threshold, with neither risk variables nor a ``k_anonymity`` other than the default."""
    if risk is None:
        risk_vars = resolve_columns(data, risk_variables, "risk_variables", allow_empty=True)
        if not risk_vars:
            raise param_error(
                "risk_variables",
                FUNC,
                "a non-empty list of column names when 'risk' is None: the person "
                "variables an intruder may know, on which the risk of each household is "
                "counted and which weight the random draws (needed with k_anonymity 0 too)",
                risk_variables,
            )
        if threshold is not None and threshold >= 1.0:
            # the risk is then 1 / count, at most 1: no household would ever be at risk
            raise param_error(
                "risk_threshold",
                FUNC,
                "below 1 when the risk is computed (1 / the number of persons who share the "
                "risk variables, at most 1): at 1 or more no household is at risk",
                risk_threshold,
            )
        return risk_vars, None
    # With a user risk, the risk variables and k take no part in the swap (sdcMicro drops
    # them silently): given, they are refused, so that nobody believes they were used.
    named = resolve_columns(data, risk_variables, "risk_variables", allow_empty=True)
    if threshold is None:
        raise param_error("risk_threshold", FUNC, "a real number >= 0 when 'risk' is given", None)
    arr = _check_risk(risk, data, n_levels)
    unused = [
        *([("risk_variables", [str(c) for c in named])] if named else []),
        *([("k_anonymity", k_anonymity)] if k_anonymity != DEFAULT_K else []),
    ]
    if unused:
        raise InvalidParameterError(
            f"The 'risk' parameter of {FUNC} is given together with "
            + " and ".join(f"{name}={value!r}" for name, value in unused)
            + ", which a user risk leaves unused: the households at risk are those whose "
            "'risk' is above 'risk_threshold'. Drop one: leave out "
            + " and ".join(f"'{name}'" for name, _ in unused)
            + " to swap on the given risk, or leave out 'risk' (and 'risk_threshold') to "
            "count the k-anonymity risk on the risk variables.",
            func=FUNC,
            param=unused[0][0],
        )
    return [], arr


def _roles(
    hid_col: Hashable,
    hier: list[Hashable],
    profiles: list[list[Hashable]],
    risk_vars: list[Hashable],
) -> dict[Hashable, str]:
    """The role of each column that must hold no blank, the first role it has."""
    roles: dict[Hashable, str] = {hid_col: "hid"}
    for c in hier:
        roles.setdefault(c, "hierarchy")
    for prof in profiles:
        for c in prof:
            roles.setdefault(c, "similar")
    for c in risk_vars:
        roles.setdefault(c, "risk_variables")
    return roles


def check_swap_params(
    data: Any,
    hid: Any,
    hierarchy: Any,
    similar: Any,
    swaprate: Any,
    risk: Any,
    risk_threshold: Any,
    k_anonymity: Any,
    risk_variables: Any,
    carry_along: Any,
    return_swapped_id: Any,
    log_file_name: Any,
    checked_columns: Any = None,
) -> SwapParams:
    """Validate every parameter of :func:`record_swap` (the seed is checked by the caller)."""
    check_frame(data, "data", FUNC)
    hid_col = resolve_columns(data, hid, "hid", single=True)[0]
    hier = resolve_columns(data, hierarchy, "hierarchy")
    if hid_col in hier:
        raise param_error(
            "hierarchy", FUNC, f"geographic columns other than hid {hid_col!r}", hierarchy
        )
    profiles = _parse_profiles(data, similar)
    rate = check_number(swaprate, "swaprate", FUNC, low=0.0, high=1.0)
    k = check_int(k_anonymity, "k_anonymity", FUNC, min_value=0)
    threshold = (
        None
        if risk_threshold is None
        else check_number(risk_threshold, "risk_threshold", FUNC, low=0.0)
    )
    swapped_id = check_bool(return_swapped_id, "return_swapped_id", FUNC)
    risk_vars, risk_arr = _check_risk_source(
        data, risk, risk_variables, k, threshold, risk_threshold, len(hier)
    )
    carry = [
        c
        for c in resolve_columns(data, carry_along, "carry_along", allow_empty=True)
        if c not in hier
    ]
    if hid_col in carry:
        raise param_error(
            "carry_along", FUNC, f"columns other than the household id {hid_col!r}", carry_along
        )
    swapped_name = f"{hid_col}_swapped"
    if swapped_id and swapped_name in data.columns:
        raise InvalidParameterError(
            f"The 'return_swapped_id' parameter of {FUNC} would add column {swapped_name!r}, "
            "which the data already hold. Rename that column first.",
            func=FUNC,
            param="return_swapped_id",
        )
    log_path = _check_log_path(log_file_name)
    checked = resolve_columns(data, checked_columns, "checked_columns", allow_empty=True)

    # carry_along columns may hold blanks: they are exchanged as they are
    check_missing(data, _roles(hid_col, hier, profiles, risk_vars))
    return SwapParams(
        hid=hid_col,
        hierarchy=hier,
        profiles=profiles,
        swaprate=rate,
        risk=risk_arr,
        risk_threshold=threshold,
        k_anonymity=k,
        risk_variables=risk_vars,
        carry_along=carry,
        return_swapped_id=swapped_id,
        log_file_name=log_path,
        swapped_id_name=swapped_name,
        checked_columns=checked,
    )
