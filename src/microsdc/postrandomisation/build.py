"""The transition matrices of one unit: given by the user (checked) or built per stratum."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from microsdc.exceptions import DataValidationError, InvalidParameterError
from microsdc.postrandomisation.matrices import invariant_matrix, masked_invariant_matrix
from microsdc.postrandomisation.params import FUNC, Unit

__all__ = ["allowed_mask", "given_matrix", "unit_matrices"]

#: how far a row of a given matrix may sum from 1
ROW_SUM_TOLERANCE = 1e-6


def _name(unit: Unit) -> str:
    return " + ".join(repr(c) for c in unit.columns)


def _positions(labels: pd.Index, wanted: pd.Index, unit: Unit, param: str) -> np.ndarray:
    pos = wanted.get_indexer(labels)
    if (pos < 0).any():
        lacking = [labels[int(i)] for i in np.flatnonzero(pos < 0)][:5]
        raise DataValidationError(
            f"The '{param}' matrix of {FUNC} for {_name(unit)} has no row or column for the "
            f"categories {lacking!r}, which occur in the data. Name its rows and columns by "
            "every category of the column.",
            func=FUNC,
            param=param,
        )
    return np.asarray(pos)


def given_matrix(unit: Unit, labels: pd.Index) -> np.ndarray:
    """The user's transition matrix of ``unit`` in the order of ``labels``, checked.

    Raises
    ------
    DataValidationError
        If it is not square with the same labels on both axes, lacks a category of the
        data, names a category the data lacks, holds a negative or missing entry, or has a
        row that does not sum to 1 (within ``ROW_SUM_TOLERANCE``).
    """
    frame = unit.transition
    assert frame is not None
    param = "transition"
    if frame.shape[0] != frame.shape[1] or set(frame.index) != set(frame.columns):
        raise DataValidationError(
            f"The 'transition' matrix of {FUNC} for {_name(unit)} must be square with the "
            f"same categories as rows and columns; it has {frame.shape[0]} rows and "
            f"{frame.shape[1]} columns.",
            func=FUNC,
            param=param,
        )
    extra = [v for v in frame.index if labels.get_indexer(pd.Index([v]))[0] < 0]
    if extra:
        raise DataValidationError(
            f"The 'transition' matrix of {FUNC} for {_name(unit)} names categories the data "
            f"lacks: {extra[:5]!r}. Drop their rows and columns (PRAM never creates a "
            "category).",
            func=FUNC,
            param=param,
        )
    rows = _positions(labels, pd.Index(frame.index), unit, param)
    cols = _positions(labels, pd.Index(frame.columns), unit, param)
    try:
        values = frame.to_numpy(dtype=np.float64)[np.ix_(rows, cols)]
    except (TypeError, ValueError) as exc:
        raise DataValidationError(
            f"The 'transition' matrix of {FUNC} for {_name(unit)} must hold numbers.",
            func=FUNC,
            param=param,
        ) from exc
    if np.isnan(values).any() or (values < 0).any():
        raise DataValidationError(
            f"The 'transition' matrix of {FUNC} for {_name(unit)} holds a negative or missing "
            "probability; every entry must be in [0, 1].",
            func=FUNC,
            param=param,
        )
    sums = values.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_TOLERANCE)
    if len(bad):
        raise DataValidationError(
            f"The 'transition' matrix of {FUNC} for {_name(unit)} has a row that does not "
            f"sum to 1: row {labels[bad[0]]!r} sums to {sums[bad[0]]:.10g}.",
            func=FUNC,
            param=param,
        )
    return values / sums[:, None]


def allowed_mask(unit: Unit, labels: pd.Index, ordered: bool = True) -> np.ndarray | None:
    """The allowed transitions of ``unit`` as a symmetric boolean matrix, or None.

    ``"neighbours"``: categories next to each other in their order (a single column
    of numbers or dates, or an ordered categorical: ``ordered``). A list of pairs: those pairs, both
    ways. A boolean DataFrame: its True entries (a category it leaves out may not move),
    which must be symmetric. The diagonal is always allowed.

    Raises
    ------
    InvalidParameterError
        For another value, ``"neighbours"`` on a group or on values without an order, a
        pair naming a category the data lacks, or a DataFrame that is not symmetric.
    """
    value = unit.allowed
    if value is None:
        return None
    n_cat = len(labels)
    mask = np.eye(n_cat, dtype=bool)
    if isinstance(value, str) and value == "neighbours":
        _check_ordered(unit, ordered)
        idx = np.arange(n_cat - 1)
        real = ~pd.isna(labels) if not isinstance(labels, pd.MultiIndex) else np.ones(n_cat, bool)
        ok = real[idx] & real[idx + 1]
        mask[idx[ok], idx[ok] + 1] = True
        mask[idx[ok] + 1, idx[ok]] = True
        return mask
    if isinstance(value, pd.DataFrame):
        frame = value.reindex(index=labels, columns=labels, fill_value=False)
        given = frame.fillna(False).to_numpy(dtype=bool)
        if not (given == given.T).all():
            i, j = np.argwhere(given != given.T)[0]
            raise InvalidParameterError(
                f"The 'allowed' mask of {FUNC} for {_name(unit)} allows {labels[i]!r} -> "
                f"{labels[j]!r} only one way. Invariant PRAM moves records both ways; allow "
                "both or neither, or give the matrix itself with transition=.",
                func=FUNC,
                param="allowed",
            )
        return mask | given
    if type(value).__module__.split(".", 1)[0] in ("polars", "pyarrow", "duckdb", "_duckdb"):
        convert = ".to_pandas()" if hasattr(value, "to_pandas") else ".collect().to_pandas()"
        raise InvalidParameterError(
            f"The 'allowed' parameter of {FUNC} for {_name(unit)} must be 'neighbours', a list "
            f"of category pairs or a boolean pandas DataFrame. Got a "
            f"{type(value).__module__.split('.', 1)[0]} {type(value).__name__} instead: a "
            "mask's rows are named by the categories, which only a pandas DataFrame can "
            f"hold; convert it with {convert} and set its index to the categories "
            "(.set_index(...)).",
            func=FUNC,
            param="allowed",
        )
    if isinstance(value, Iterable) and not isinstance(value, str | bytes):
        for pair in value:
            a, b = _pair(pair, unit)
            i, j = labels.get_indexer(pd.Index([a]))[0], labels.get_indexer(pd.Index([b]))[0]
            if i < 0 or j < 0:
                raise InvalidParameterError(
                    f"The 'allowed' pairs of {FUNC} for {_name(unit)} name "
                    f"{(a if i < 0 else b)!r}, which is not a category of the data.",
                    func=FUNC,
                    param="allowed",
                )
            mask[i, j] = mask[j, i] = True
        return mask
    raise InvalidParameterError(
        f"The 'allowed' parameter of {FUNC} for {_name(unit)} must be 'neighbours', a list "
        f"of category pairs or a boolean DataFrame. Got {value!r} instead.",
        func=FUNC,
        param="allowed",
        value=value,
    )


def _pair(pair: Any, unit: Unit) -> tuple[Any, Any]:
    if isinstance(pair, tuple | list) and len(pair) == 2:
        return pair[0], pair[1]
    raise InvalidParameterError(
        f"The 'allowed' pairs of {FUNC} for {_name(unit)} must be pairs (a, b). "
        f"Got {pair!r} instead.",
        func=FUNC,
        param="allowed",
    )


def _check_ordered(unit: Unit, ordered: bool) -> None:
    if len(unit.columns) > 1:
        raise InvalidParameterError(
            f"The 'allowed' parameter of {FUNC} is 'neighbours' for the group {_name(unit)}, "
            "whose combinations have no order. Give pairs or a boolean DataFrame.",
            func=FUNC,
            param="allowed",
        )
    if not ordered:
        raise InvalidParameterError(
            f"The 'allowed' parameter of {FUNC} is 'neighbours' for {_name(unit)}, whose "
            "values are not numbers, dates or an ordered categorical, so they have no order "
            "to take neighbours in. Make it an ordered categorical "
            "(pandas.Categorical(values, categories=[...], ordered=True)), or give pairs.",
            func=FUNC,
            param="allowed",
        )


def _restricted(matrix: np.ndarray, present: np.ndarray) -> np.ndarray:
    """A given matrix for one stratum: no move into a category the stratum lacks (those
    columns set to 0 and each row scaled back to 1; a row left with nothing keeps its
    category)."""
    if present.all():
        return matrix
    out = matrix * present[None, :]
    sums = out.sum(axis=1)
    empty = sums <= 0
    out[empty] = 0.0
    out[empty, np.flatnonzero(empty)] = 1.0
    return out / out.sum(axis=1, keepdims=True)


def unit_matrices(
    unit: Unit,
    labels: pd.Index,
    counts: np.ndarray,
    rng: np.random.Generator,
    ordered: bool = True,
) -> tuple[list[np.ndarray], str]:
    """One matrix per stratum (``counts`` has shape (n_strata, L)) and how they were made.

    The diagonal of sdcMicro's ``P`` is drawn uniformly in [pd, 1] per category and
    stratum, strata in order.
    """
    mask = allowed_mask(unit, labels, ordered)
    if unit.transition is not None:
        given = given_matrix(unit, labels)
        if mask is not None and (given[~mask] > 0).any():
            i, j = np.argwhere((given > 0) & ~mask)[0]
            raise InvalidParameterError(
                f"The 'transition' matrix of {FUNC} for {_name(unit)} moves {labels[i]!r} "
                f"-> {labels[j]!r}, which 'allowed' forbids.",
                func=FUNC,
                param="transition",
            )
        return [_restricted(given, row > 0) for row in counts], "given"
    out = []
    for row in counts:
        diagonal = rng.uniform(unit.diagonal_min, 1.0, len(labels))
        if mask is None:
            out.append(invariant_matrix(row, diagonal, unit.alpha))
        else:
            out.append(masked_invariant_matrix(row, diagonal, unit.alpha, mask))
    return out, "invariant" if mask is None else "invariant, masked"
