"""Global recoding: numeric QIs into labelled bins, top and bottom coding, merging rare categories.

Every function takes a Series, or a DataFrame and a column name, and returns a
new object of the same kind (the column replaced); the input is never
modified. Missing values stay missing.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from microsdc._validation import (
    check_columns,
    check_int,
    check_one_of,
    not_pandas,
    param_error,
)
from microsdc.exceptions import DataValidationError, InvalidParameterError
from microsdc.recoding.bands import (
    number_text,
)
from microsdc.recoding.bin_edges import (
    bin_names,
    checked_origin,
    quantile_edges,
    width_method_edges,
)
from microsdc.recoding.labels import _text as text_of
from microsdc.recoding.labels import as_text, default_other_label, fits

__all__ = ["bin_numeric", "bottom_code", "group_categories", "merge_rare_categories", "top_code"]

BIN_METHODS = ("width", "quantile", "edges")


def _take(data: Any, column: Any, func: str) -> tuple[pd.Series, pd.DataFrame | None]:
    if isinstance(data, pd.DataFrame):
        if column is None:
            raise InvalidParameterError(
                f"The 'column' parameter of {func} is required when the data are a DataFrame.",
                func=func,
                param="column",
            )
        (col,) = check_columns(data, [column], "column", func)
        return data[col], data
    if isinstance(data, pd.Series):
        if column is not None:
            raise InvalidParameterError(
                f"The 'column' parameter of {func} applies to a DataFrame only; got a Series.",
                func=func,
                param="column",
            )
        return data, None
    raise not_pandas(data, "data", func, "a pandas Series or DataFrame")


def _what(name: Any, lower: bool = False) -> str:
    """How a message names the values: "Column 'age'", or "The Series" when it has
    no name (not "Column None")."""
    text = f"Column {name!r}" if name is not None else "The Series (it has no name)"
    return text[0].lower() + text[1:] if lower else text


def _verb(func: str) -> str:
    return "binned" if func == "bin_numeric" else "recoded"


def _put(frame: pd.DataFrame | None, column: Hashable, new: pd.Series) -> Any:
    if frame is None:
        return new
    out = frame.copy()
    out[column] = new  # same index as the frame: no alignment, duplicates allowed
    return out


def _numeric(series: pd.Series, func: str) -> np.ndarray:
    if isinstance(series.dtype, pd.CategoricalDtype) or not (
        pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)
    ):
        raise DataValidationError(
            f"{_what(series.name)} cannot be {_verb(func)} by {func}: it has dtype "
            f"{series.dtype}, not numbers.",
            func=func,
        )
    return series.astype("float64").to_numpy(na_value=np.nan)


def _numbers_besides_codes(series: pd.Series, func: str) -> np.ndarray:
    """The values of ``series`` (its declared codes already blanked) as floats; a text
    column counts when every value is a number."""
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
        return _numeric(series, func)
    if isinstance(series.dtype, pd.CategoricalDtype):
        series = series.astype(object)
    values = pd.to_numeric(series, errors="coerce")
    bad = (values.isna() & series.notna()).to_numpy()
    if bad.any():
        rows = list(series.index[bad][:5])
        raise DataValidationError(
            f"{_what(series.name)} cannot be {_verb(func)} by {func}: it holds {int(bad.sum())} "
            f"value(s) that are not numbers nor declared missing codes, such as "
            f"{series[bad].iloc[0]!r} (first rows: {rows}).",
            failure_cases=list(series.index[bad]),
            func=func,
        )
    return values.astype("float64").to_numpy(na_value=np.nan)


def bin_numeric(
    data: pd.Series | pd.DataFrame,
    column: Hashable | None = None,
    *,
    bins: int | Sequence[float] | None = None,
    width: float | None = None,
    method: str = "width",
    origin: float | None = None,
    labels: str | Sequence[str] | bool = "auto",
    missing_values: Sequence[Any] = (),
) -> Any:
    """Recode a numeric quasi-identifier into ordered, labelled bins.

    Parameters
    ----------
    data : pandas.Series, or pandas.DataFrame with ``column``
        Never modified.
    column : column name, optional
        The column to recode when ``data`` is a DataFrame.
    bins : int or sequence of float, optional
        ``method="width"``: number of equal-width bins between the minimum and
        the maximum (when ``width`` is not given). ``method="quantile"``: number
        of bins with (about) equal counts. ``method="edges"``: the ascending bin
        edges; ``-inf``/``inf`` make open-ended bins.
    width : float > 0, optional
        ``method="width"``: bins ``[origin + i * width, origin + (i + 1) * width)``,
        so ``width=5`` gives ``floor(x / 5) * 5`` (ages 20-24, 25-29, ...). Only
        with that method: given with another, it is refused.
    method : {"width", "quantile", "edges"}, default "width"
    origin : float, optional
        Anchor of the bins with ``width``. Default (None): 0. Only with ``width``:
        given without it, it is refused, since it would change nothing.
    labels : "auto", False or list of str, default "auto"
        ``"auto"``: "20-24" when the values and edges are integers (a bin holds
        the integers from its left edge to one below its right edge), else
        "[20.5, 25)"; open ends read "<=19" and "65+". Edges are written with 6
        significant digits, or more where neighbouring edges would read alike
        ("[100000.25, 100000.5)"), so that no two bins share a label. ``False``: the bin number
        (nullable ``Int64``). A list: one label per bin.
    missing_values : sequence, default ()
        Codes that mean missing (``-9``, ``"."``; compared as
        :func:`microsdc.encode.missing_mask` compares them). They take no part in
        the bins and are kept, as their text (``-9`` becomes ``"-9"``), as
        categories after the bins, so that they stay apart from cells blanked
        later (``labels=False``: they become missing). With codes given, a text
        column whose other values are all numbers (a CSV column holding ``"."``)
        is binned too.

    Returns
    -------
    pandas.Series or pandas.DataFrame
        Like ``data``: an ordered categorical (same index and name), or a copy
        of the frame with ``column`` replaced. Every bin is a category, used or
        not; missing values stay missing.

    Raises
    ------
    InvalidParameterError
        For an unknown ``method``, missing or contradictory ``bins``/``width``,
        ``width`` with a method other than ``"width"``, ``origin`` without
        ``width`` (the message names both),
        non-increasing edges, or a wrong number of labels; for more than
        :data:`~microsdc.recoding.bands.MAX_BANDS` (100,000) bins, counted
        before any is built (``bins`` above it, or a ``width`` that splits the
        values' range into more: the message gives the count and the smallest
        width that fits), or a ``width`` too fine for the edges to differ at the
        size of the values (the message names the column, the largest value and
        the least width, and a missing-value code as the other fix); for a
        label (given) that is also the text of a declared missing code kept as
        written.
    ColumnNotFoundError
        If ``column`` is not in the frame.
    DataValidationError
        If the column is not numeric (with ``missing_values``: if a value other
        than the codes is not a number; the message gives the first rows), or
        values fall outside the given edges.

    Notes
    -----
    Bins are closed on the left, and the last bin is also closed on the right
    so the maximum belongs to it. Quantile edges that coincide are merged, so
    fewer bins than asked may result.

    References
    ----------
    sdcMicro ``globalRecode``.

    Examples
    --------
    >>> import pandas as pd
    >>> age = pd.Series([17, 23, 24, 25, None, 90], name="age")
    >>> bin_numeric(age, width=5).tolist()
    ['15-19', '20-24', '20-24', '25-29', nan, '90-94']
    >>> bin_numeric(age, bins=[0, 18, 65, float("inf")], method="edges").tolist()
    ['0-17', '18-64', '18-64', '18-64', nan, '65+']
    >>> bin_numeric(pd.Series(["31", ".", "47"]), width=10, missing_values=["."]).tolist()
    ['30-39', '.', '40-49']
    """
    func = "bin_numeric"
    series, frame = _take(data, column, func)
    method = check_one_of(method, "method", func, BIN_METHODS)
    origin = checked_origin(method, width, origin, func)
    if labels is not False and not isinstance(labels, str | Iterable):
        raise param_error("labels", func, "'auto', False or a list of labels", labels)
    if not isinstance(missing_values, Iterable):
        raise param_error("missing_values", func, "a list of values", missing_values)
    x, codes_kept = _bin_values(series, missing_values, func)
    ok = ~np.isnan(x)
    vals = x[ok]
    if method == "width":
        edges, last_open = width_method_edges(vals, bins, width, origin, func, series.name)
    elif method == "quantile":
        edges, last_open = quantile_edges(vals, bins, func), False
    else:
        edges, last_open = _given_edges(series, x, ok, bins, func), False
    code = np.full(len(x), -1, dtype=np.int64)
    idx = np.searchsorted(edges, vals, side="right") - 1
    idx = np.clip(idx, 0, len(edges) - 2)
    code[ok] = idx
    if labels is False:
        out = pd.Series(
            pd.array(np.where(code >= 0, code, 0), dtype="Int64"),
            index=series.index,
            name=series.name,
        )
        out[code < 0] = pd.NA
        return _put(frame, series.name, out)
    names = bin_names(labels, edges, vals, last_open, func)
    cat = pd.Categorical.from_codes(code, categories=pd.Index(names), ordered=True)
    out = pd.Series(cat, index=series.index, name=series.name)
    if codes_kept is not None:  # the declared codes, as text after the bins (-9 -> "-9")
        kept = series[codes_kept].map(str)
        held = {names[i] for i in np.unique(code[ok])}  # labels of bins holding values
        clash = [v for v in pd.unique(kept) if v in held]
        if clash:
            raise InvalidParameterError(
                f"The 'labels' parameter of {func} gives a bin of {_what(series.name, True)} "
                f"the label {clash[0]!r}, which is also a declared missing code kept as "
                "written: the bin's values and the missing code would read alike. Choose "
                "another label.",
                func=func,
                param="labels",
                value=clash[0],
            )
        extra = [v for v in pd.unique(kept) if v not in set(names)]
        out = out.cat.add_categories(extra)
        out[codes_kept] = kept.to_numpy()
    return _put(frame, series.name, out)


def _bin_values(
    series: pd.Series, missing_values: Sequence[Any], func: str
) -> tuple[np.ndarray, np.ndarray | None]:
    """The values to bin as floats (NaN: missing or a declared code), and the mask of
    the declared codes found (None: none)."""
    if not len(missing_values):
        # a text column of numbers ("12.50", "1e+05": kept as text to be written as read)
        # is binned by its values
        return _numbers_besides_codes(series, func), None
    from microsdc.encode import missing_mask

    declared = missing_mask(series, list(missing_values)) & series.notna().to_numpy()
    x = _numbers_besides_codes(series.where(~declared), func)
    return x, (declared if declared.any() else None)


def _given_edges(
    series: pd.Series, x: np.ndarray, ok: np.ndarray, bins: Any, func: str
) -> np.ndarray:
    """The edges of ``method="edges"``, checked: strictly increasing, every value
    between the first and the last."""
    if bins is None or isinstance(bins, numbers.Real | str):
        raise param_error("bins", func, "a sequence of at least two edges", bins)
    edges = np.asarray(list(cast(Sequence[float], bins)), dtype=np.float64)
    if len(edges) < 2 or np.isnan(edges).any() or not (np.diff(edges) > 0).all():
        raise param_error("bins", func, "a strictly increasing sequence of >= 2 edges", bins)
    outside = ok & ((x < edges[0]) | (x > edges[-1]))
    if outside.any():
        raise DataValidationError(
            f"{int(outside.sum())} value(s) of {_what(series.name, lower=True)} lie outside "
            f"the edges given to {func}, from {number_text(edges[0])} to {number_text(edges[-1])} "
            f"(first rows: {list(series.index[outside][:5])}). Add -inf/inf edges for "
            "open bins.",
            failure_cases=list(series.index[outside]),
            func=func,
        )
    return edges


def _code(data: Any, column: Any, threshold: Any, value: Any, func: str, above: bool) -> Any:
    series, frame = _take(data, column, func)
    _numeric(series, func)
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise param_error("threshold", func, "a real number", threshold)
    if not math.isfinite(float(threshold)):
        raise param_error("threshold", func, "a finite real number", threshold)
    new = threshold if value is None else value
    if isinstance(new, bool) or not isinstance(new, numbers.Real) or not math.isfinite(new):
        # NaN would blank the coded values, infinity release no value: neither is a code
        raise param_error("value", func, "a finite real number or None", value)
    cmp = (series > threshold) if above else (series < threshold)
    hit = cmp.fillna(False).to_numpy(dtype=bool)
    out = series.copy()
    if hit.any():
        if pd.api.types.is_integer_dtype(series.dtype) and not float(new).is_integer():
            out = out.astype("float64")
        elif pd.api.types.is_integer_dtype(series.dtype):
            new = int(float(new))
        out[hit] = new
    return _put(frame, series.name, out)


def top_code(
    data: pd.Series | pd.DataFrame,
    column: Hashable | None = None,
    *,
    threshold: float,
    value: float | None = None,
) -> Any:
    """Replace values above ``threshold`` by ``value`` (default: the threshold).

    Parameters
    ----------
    data : pandas.Series, or pandas.DataFrame with ``column``
        Never modified.
    column : column name, optional
    threshold : float
    value : float, optional
        The replacement (e.g. the mean of the coded values); ``threshold`` by default.

    Returns
    -------
    pandas.Series or pandas.DataFrame
        Like ``data``. Integer columns stay integer unless ``value`` is not an integer.

    Raises
    ------
    InvalidParameterError
        For a non-numeric or non-finite ``threshold`` or ``value`` (a NaN
        replacement would blank the coded values, an infinite one release none).
    ColumnNotFoundError, DataValidationError
        For an unknown or non-numeric column.

    References
    ----------
    sdcMicro ``topBotCoding``.

    Examples
    --------
    >>> import pandas as pd
    >>> top_code(pd.Series([20, 85, 97, None]), threshold=90).tolist()
    [20.0, 85.0, 90.0, nan]
    """
    return _code(data, column, threshold, value, "top_code", above=True)


def bottom_code(
    data: pd.Series | pd.DataFrame,
    column: Hashable | None = None,
    *,
    threshold: float,
    value: float | None = None,
) -> Any:
    """Replace values below ``threshold`` by ``value`` (default: the threshold).

    Parameters, Returns and Raises as :func:`top_code`.

    References
    ----------
    sdcMicro ``topBotCoding``.

    Examples
    --------
    >>> import pandas as pd
    >>> bottom_code(pd.Series([15, 17, 30]), threshold=18).tolist()
    [18, 18, 30]
    """
    return _code(data, column, threshold, value, "bottom_code", above=False)


def merge_rare_categories(
    data: pd.Series | pd.DataFrame,
    column: Hashable | None = None,
    *,
    min_count: int,
    other_label: Any = None,
) -> Any:
    """Merge the categories seen fewer than ``min_count`` times into ``other_label``.

    Parameters
    ----------
    data : pandas.Series, or pandas.DataFrame with ``column``
        Never modified.
    column : column name, optional
    min_count : int >= 1
        Categories with fewer records are merged.
    other_label : scalar, optional
        The merged category. If it already exists, the rare categories join it.
        Default: ``"other"`` for a text (or boolean) column; for a column of
        numeric codes, the next integer code above the largest one observed
        (codes 1 to 7 give 8), so that the column stays numeric.

    Returns
    -------
    pandas.Series or pandas.DataFrame
        Like ``data``, the column in one type. A categorical stays categorical
        (rare categories removed, ``other_label`` added when used). A label of
        the column's kind (a number for numeric codes, a text for text) keeps its
        dtype; a label of another kind makes the whole column text, each code
        written as it would be in a file (``1``, ``2.5``, and the label as text):
        ``other_label="other"`` on integer codes gives ``"1"``, ``"2"``,
        ``"other"``, never numbers mixed with text, which no Parquet, SPSS or
        Stata file can hold. Missing values stay missing and are never counted
        as a category.

    Raises
    ------
    InvalidParameterError
        For a bad ``min_count`` or a missing value (NaN, ``pd.NA``) as
        ``other_label``.
    ColumnNotFoundError
        For an unknown column.
    DataValidationError
        If the column has fewer than ``min_count`` non-missing values in all
        (but at least one): no merging can reach ``min_count``.

    Notes
    -----
    Every category of the result has at least ``min_count`` records: when the
    rare categories hold fewer than ``min_count`` records in all, the smallest
    of the other categories are merged into ``other_label`` too, one at a
    time, until it has enough (``["a", "a", "b"]`` with ``min_count=2`` gives
    three times ``other_label``).

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.Series(["a", "a", "a", "b", "c", None])
    >>> merge_rare_categories(s, min_count=2).tolist()
    ['a', 'a', 'a', 'other', 'other', nan]
    >>> merge_rare_categories(pd.Series([1, 1, 1, 2, 3]), min_count=2).tolist()
    [1, 1, 1, 4, 4]
    >>> merge_rare_categories(pd.Series([1, 1, 1, 2, 3]), min_count=2, other_label="other").tolist()
    ['1', '1', '1', 'other', 'other']
    """
    func = "merge_rare_categories"
    series, frame = _take(data, column, func)
    min_count = check_int(min_count, "min_count", func, min_value=1)
    if other_label is None:
        other_label = default_other_label(series)
    if _is_missing(other_label, unclear=False):
        raise param_error("other_label", func, "a non-missing value", other_label)
    counts = series.value_counts(dropna=True)
    rare = _to_merge(counts, min_count, other_label, series.name, func)
    if not rare:
        return _put(frame, series.name, series.copy())
    if isinstance(series.dtype, pd.CategoricalDtype):
        return _put(frame, series.name, _merge_categorical(series, rare, other_label))
    hit = series.isin(rare).to_numpy(dtype=bool)
    if not fits(series, other_label):  # one type: the codes as text, the label as text
        values = as_text(series)
        values[hit] = str(other_label)
        return _put(frame, series.name, values)
    values = series.astype(object).copy()
    values[hit] = other_label
    try:
        out = values.astype(series.dtype)
        if not (out.astype(object)[hit] == other_label).all():
            out = values
    except (TypeError, ValueError):
        out = values
    return _put(frame, series.name, out)


def group_categories(
    data: pd.Series | pd.DataFrame,
    column: Hashable | None = None,
    *,
    groups: Mapping[Any, Sequence[Any]],
) -> Any:
    """Merge the listed categories of a column, each group into its new label.

    Parameters
    ----------
    data : pandas.Series, or pandas.DataFrame with ``column``
        Never modified.
    column : column name, optional
    groups : mapping of new label -> non-empty list of categories
        ``{"piped": [1, 2], "other": [5, 6, 7]}``: the records of categories 1
        and 2 get ``"piped"``, those of 5, 6 and 7 ``"other"``; the categories
        not listed stay as they are. A label may be one of its own group's
        categories (``{1: [1, 2]}`` merges 2 into 1).

    Returns
    -------
    pandas.Series or pandas.DataFrame
        Like ``data``, the column in one type, as :func:`merge_rare_categories`
        gives it: labels of the column's kind keep its dtype, a label of another
        kind makes the whole column text (codes written as a file writes them). A
        categorical stays categorical (the merged categories replaced by their
        labels). Missing values stay missing.

    Raises
    ------
    InvalidParameterError
        If ``groups`` is not a non-empty mapping of labels to non-empty lists, a
        label is missing (NaN, None), or a category is listed twice.
    ColumnNotFoundError
        For an unknown column.
    DataValidationError
        If a listed category is not one of the column's (a typo, or ``1`` for
        a column of texts ``"1"``), naming it and the categories there are; or a
        label is a category of the column outside its group (the two would merge
        without being asked).

    Notes
    -----
    sdcMicro's ``groupAndRename(obj, var, before, after)`` merges one group
    per call and lets ``after`` be an existing level, which then silently takes
    in the group; here that is an error, and all groups go in one call.

    References
    ----------
    sdcMicro ``groupAndRename``.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.Series([1, 2, 3, 5, 6, None])
    >>> group_categories(s, groups={1: [1, 2], 5: [5, 6]}).tolist()
    [1.0, 1.0, 3.0, 5.0, 5.0, nan]
    >>> group_categories(pd.Series([1, 2, 3]), groups={"low": [1, 2]}).tolist()
    ['low', 'low', '3']
    """
    func = "group_categories"
    series, frame = _take(data, column, func)
    wanted = "a non-empty table {new label: [categories]}"
    if not isinstance(groups, Mapping) or not groups:
        raise param_error("groups", func, wanted, groups)
    if isinstance(series.dtype, pd.CategoricalDtype):
        present = list(series.cat.categories)
    else:
        present = list(pd.unique(series.dropna()))
    pairs = _group_pairs(groups, present, series.name, func)
    if isinstance(series.dtype, pd.CategoricalDtype):
        return _put(frame, series.name, _group_categorical(series, pairs))
    labels = list(dict.fromkeys(label for _, label in pairs))
    text = not all(fits(series, label) for label in labels)
    values = as_text(series) if text else series.astype(object).copy()
    for member, label in pairs:
        values[series.isin([member]).to_numpy(dtype=bool)] = str(label) if text else label
    if text:
        return _put(frame, series.name, values)
    try:
        out = values.astype(series.dtype)
    except (TypeError, ValueError):
        out = values
    return _put(frame, series.name, out)


def _group_pairs(
    groups: Mapping[Any, Any], present: list[Any], name: Any, func: str
) -> list[tuple[Any, Any]]:
    """(category, its label) for every listed category, each checked against the column."""
    pairs: list[tuple[Any, Any]] = []
    for label, members in groups.items():
        if _is_missing(label, unclear=True):
            raise param_error("groups", func, "labels that are not missing", label)
        if isinstance(members, str | bytes) or not isinstance(members, Sequence) or not members:
            raise param_error(
                "groups", func, f"a non-empty list of categories for label {label!r}", members
            )
        for member in members:
            if any(_same(member, m) for m, _ in pairs):
                raise param_error("groups", func, "each category in one group only", member)
            if not any(_same(member, c) for c in present):
                shown = ", ".join(_shown(c) for c in _sorted(present)[:20])
                raise DataValidationError(
                    f"{_what(name)} has no category {member!r} (group {label!r} of {func}); "
                    f"its categories are {shown}{', ...' if len(present) > 20 else ''}. "
                    "Correct the value, or give it as the column holds it (1 and '1' differ).",
                    failure_cases=[member],
                    func=func,
                    param="groups",
                )
            pairs.append((member, label))
        outside = [c for c in present if _same(c, label) and not any(_same(c, m) for m in members)]
        if outside:
            raise DataValidationError(
                f"The label {label!r} given to {func} is already a category of "
                f"{_what(name, lower=True)} outside its group, which would merge them too: "
                f"add {label!r} to the group, or choose another label.",
                failure_cases=[label],
                func=func,
                param="groups",
            )
    return pairs


def _shown(value: Any) -> str:
    """A category as a message shows it: ``3`` for a numpy integer, ``'a'`` for a text."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _sorted(values: list[Any]) -> list[Any]:
    """``values`` in order when they can be ordered, else as given."""
    try:
        return sorted(values)
    except TypeError:
        return values


def _group_categorical(series: pd.Series, pairs: list[tuple[Any, Any]]) -> pd.Series:
    """A categorical with each listed category replaced by its label (categories of
    another kind than a label become text)."""
    out = series.copy()
    cats = pd.Series(out.cat.categories)
    if not all(fits(cats, label) for _, label in pairs):
        out = out.cat.rename_categories([text_of(c) for c in out.cat.categories])
        pairs = [(text_of(m), str(label)) for m, label in pairs]
    new = [label for _, label in pairs if label not in out.cat.categories]
    if new:
        out = out.cat.add_categories(list(dict.fromkeys(new)))
    for member, label in pairs:
        out[out.isin([member]).to_numpy(dtype=bool)] = label
    drop = {m for m, label in pairs if not _same(m, label)}
    return out.cat.set_categories([c for c in out.cat.categories if c not in drop])


def _merge_categorical(series: pd.Series, rare: list[Any], other_label: Any) -> pd.Series:
    """A categorical with the ``rare`` categories merged into ``other_label`` (unused
    categories, count 0, are rare too and are dropped); categories of another kind
    than the label become text."""
    out = series.copy()
    if not fits(pd.Series(out.cat.categories), other_label):
        out = out.cat.rename_categories([text_of(c) for c in out.cat.categories])
        rare = [text_of(c) for c in rare]
        other_label = str(other_label)
    hit = out.isin(rare).to_numpy(dtype=bool)
    if hit.any() and other_label not in out.cat.categories:
        out = out.cat.add_categories([other_label])
    out[hit] = other_label
    drop = set(rare)
    return out.cat.set_categories([c for c in out.cat.categories if c not in drop])


def _to_merge(
    counts: pd.Series, min_count: int, other_label: Any, name: Any, func: str
) -> list[Any]:
    """The categories to merge into ``other_label`` so that it holds >= ``min_count`` records."""
    count_of: dict[Any, int] = {c: int(n) for c, n in counts.items()}
    has_other = any(_same(c, other_label) for c in count_of)
    merged = [c for c, n in count_of.items() if n < min_count and not _same(c, other_label)]
    total = sum(count_of[c] for c in merged)
    total += sum(n for c, n in count_of.items() if _same(c, other_label))
    # the smallest categories that are not merged yet, smallest first (ties: last listed first)
    left = [c for c in reversed(count_of) if c not in merged and not _same(c, other_label)]
    left.sort(key=lambda c: count_of[c])
    while 0 < total < min_count and left and (merged or has_other):
        c = left.pop(0)
        merged.append(c)
        total += count_of[c]
    if 0 < total < min_count:
        raise DataValidationError(
            f"{_what(name)} given to {func} has {total} non-missing value(s) in all, fewer than "
            f"min_count={min_count}; no merging can give every category {min_count} records.",
            failure_cases=[name],
            func=func,
        )
    return merged


def _is_missing(label: Any, *, unclear: bool) -> bool:
    """Whether ``label`` is a missing value (NaN, None, ``pd.NA``); ``unclear`` when
    pandas cannot tell (a value with no single truth, such as a tuple)."""
    try:
        return bool(pd.isna(label))
    except (TypeError, ValueError):
        return unclear


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False
