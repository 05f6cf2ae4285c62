"""Global recoding on a lazy frame: width bands computed by the engine, rows never in Python.

One pass asks the engine for the smallest and largest value of the column and
whether every value is an integer; the bands and their labels are those of
:func:`microsdc.recoding.recode.bin_numeric` (``width``, ``origin``) on the same values,
and the column becomes text: each value's label, a declared missing code kept as
written, a missing value kept missing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from microsdc.exceptions import DataValidationError
from microsdc.recoding.bands import edge_decimals, width_edges, width_labels

__all__ = ["bin_width_lazy"]

#: A number as a CSV cell writes it (spaces already stripped).
_NUMBER = r"^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$"


def _refuse_words(lazy: Any, column: str, text: Any, bad: Any) -> None:
    """Raise if ``bad`` holds for a record: a few of those texts, from the engine."""
    from microsdc.backends.frequencies import sample_texts

    shown = sample_texts(lazy, column, text, bad)
    if shown:
        raise DataValidationError(
            f"Column {column!r} cannot be binned: it holds values that are not numbers nor "
            f"declared missing codes, such as {', '.join(repr(v) for v in shown)}."
        )


def bin_width_lazy(
    frame: Any,
    column: str,
    width: float,
    origin: float = 0.0,
    missing_values: Sequence[Any] = (),
) -> tuple[Any, dict[str, Any]]:
    """``frame`` with ``column`` recoded into bands of ``width`` (lazily).

    Parameters
    ----------
    frame : polars LazyFrame, DuckDB relation or Spark DataFrame
    column : str
        A numeric column.
    width : float > 0
        Width of the bands ``[origin + i * width, origin + (i + 1) * width)``.
    origin : float, default 0
        Anchor of the bands.
    missing_values : sequence, default ()
        Declared missing codes: left out of the bands and kept as written.

    Returns
    -------
    frame
        The same kind of lazy frame, ``column`` now a text column of labels
        ("20-24" for integers, "[20.5, 25)" otherwise).
    info : dict
        ``bins`` (the number of bands) and ``distinct_before`` (distinct values
        of the column before, missing values and codes left out), as a job's
        audit record gives them, and ``labels`` (the labels of the bands, in
        order: the categories :func:`~microsdc.bin_numeric` gives them).

    Raises
    ------
    DataValidationError
        If ``column`` is not a numeric column, or holds an infinite value.
    InvalidParameterError
        For a ``width`` that gives more than
        :data:`~microsdc.recoding.bands.MAX_BANDS` bands, or too fine for the edges to
        differ at the size of the values, worded as :func:`~microsdc.bin_numeric`
        words it (naming ``column``).
    """
    import narwhals as nw

    lazy = nw.from_native(frame)
    dtype = lazy.collect_schema()[column]
    if dtype.is_numeric():
        from microsdc.encode import _canon

        # codes compared by value, as pandas compares them: -9, -9.0 and "-9" alike
        keys = [_canon(v) for v in missing_values]
        codes = sorted(
            {k[1] for k in keys if k is not None and k[0] == "n" and math.isfinite(k[1])}
        )
        x = nw.col(column).cast(nw.Float64)
        code = (x.is_in(codes) if codes else nw.lit(value=False)).fill_null(value=False)
    elif dtype == nw.String and len(missing_values):
        # a CSV column holding "." or "NA": numbers besides the declared codes
        text = nw.col(column).str.strip_chars()
        texts = sorted({str(v).strip() for v in missing_values})
        code = text.is_in(texts).fill_null(value=False)
        number = text.str.contains(_NUMBER).fill_null(value=False)
        _refuse_words(lazy, column, text, ~code & ~number & ~text.is_null())
        x = nw.when(number & ~code).then(text).otherwise(nw.lit(None, nw.String))
        x = x.cast(nw.Float64)
    else:
        raise DataValidationError(
            f"Column {column!r} cannot be binned: it has dtype {dtype}, not numbers."
        )
    # null: missing, or a declared code
    value = nw.when(~code).then(x).otherwise(nw.lit(None, nw.Float64))
    stats = lazy.select(
        value.min().alias("low"),
        value.max().alias("high"),
        ((value % 1) != 0).fill_null(value=False).cast(nw.Int64).sum().alias("fractions"),
        value.n_unique().alias("distinct"),  # a null counts as one value here
        value.is_null().any().alias("any_null"),
    )
    row = (stats.collect() if isinstance(stats, nw.LazyFrame) else stats).rows(named=True)[0]
    low, high = row["low"], row["high"]
    if low is not None and (math.isnan(low) or math.isnan(high)):  # pragma: no cover - NaN
        raise DataValidationError(f"Column {column!r} cannot be binned: it holds NaN values.")
    edges = width_edges(low, high, float(width), float(origin), column=column)
    finite_integer = bool(all(float(e).is_integer() for e in edges))
    integer = low is not None and not row["fractions"] and finite_integer
    names = width_labels(edges, integer)
    # the band of edges[i] <= x < edges[i + 1], as the pandas route finds it: a first
    # guess by division, put right against the rounded edges (an engine may divide
    # as x * (1 / width), one band off)
    d = edge_decimals(width)
    guess = ((value - origin) / width).floor()

    def edge(i: Any) -> Any:
        return (nw.lit(float(origin)) + nw.lit(float(width)) * i).round(d)

    index = (
        guess - (value < edge(guess)).cast(nw.Float64) + (value >= edge(guess + 1)).cast(nw.Float64)
    )
    first = float(edges[0] - origin) / width
    band = (index - round(first)).cast(nw.Int64)
    band = nw.when(band < 0).then(0).otherwise(band)
    band = nw.when(band > len(names) - 1).then(len(names) - 1).otherwise(band)
    label = band.replace_strict(
        list(range(len(names))), names, default=nw.lit(None, nw.String), return_dtype=nw.String
    )
    kept = nw.when(code).then(nw.col(column).cast(nw.String)).otherwise(nw.lit(None, nw.String))
    out = nw.when(~value.is_null()).then(label).otherwise(kept)
    info = {
        "bins": len(names),
        "distinct_before": int(row["distinct"]) - bool(row["any_null"]),
        "labels": names,
    }
    return lazy.with_columns(out.alias(column)).to_native(), info
