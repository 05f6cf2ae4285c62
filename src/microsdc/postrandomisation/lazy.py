""":func:`microsdc.pram` on polars ``LazyFrame``, DuckDB relations and Spark DataFrames.

The frame adapter :class:`EnginePram`: :func:`microsdc.pram` runs the same checks and
the same per-unit plan (:mod:`~microsdc.postrandomisation.plan`) as on pandas, and
this module gives it the engine's rows and makes the draws there. The matrices depend
only on the category frequencies of each stratum, which the engine counts with a
group-by; microsdc builds them in Python with the same draws from the seed's
Generator as on pandas. Each record's draw is computed in the engine: the record's
64-bit key and uniform number of :mod:`microsdc.data.rowkeys`
(:mod:`~microsdc.postrandomisation.enginekeys`), then a join with the small table of
cumulative transition rows (one interval per stratum, category and released
category) picks the released category whose interval holds the number. Rows never
enter Python and the release stays lazy.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas

from microsdc._validation import lazy_refusal
from microsdc.backends import Backend, detect_backend
from microsdc.backends.adapters import frame_schema
from microsdc.backends.capabilities import first_refusal
from microsdc.data.rowkeys import key_salt
from microsdc.exceptions import DataValidationError, InvalidParameterError
from microsdc.postrandomisation.enginekeys import column_plan
from microsdc.postrandomisation.engineops import ROW, keys_for
from microsdc.postrandomisation.matrices import cumulative_rows
from microsdc.postrandomisation.params import FUNC, Unit
from microsdc.postrandomisation.plan import Tally, UnitPlan, UnitRows
from microsdc.postrandomisation.result import LazyPramResult, TransitionMatrix

__all__ = ["EnginePram"]

_U = "__microsdc_u"
_CUM = "__microsdc_cum"
_SID = "__microsdc_sid"
_CODE = "__microsdc_code"
_NEW = "__microsdc_newcode"


def _native_types(df: Any, backend: Backend) -> dict[str, str]:
    """Each column's type as the engine names it (for the key arithmetic)."""
    if backend.name == "DuckDB":
        return dict(zip(df.columns, (str(t) for t in df.types), strict=True))
    if backend.name == "PySpark":
        return {f.name: str(f.dataType) for f in df.schema.fields}
    return {c: str(t) for c, t in df.collect_schema().items()}


def _null_counts(df: Any, backend: Backend, names: list[str]) -> dict[str, int]:
    """Missing values per column (NaN is a value), in one pass."""
    if backend.name == "PySpark":
        from microsdc.backends.spark import null_counts

        return dict(zip(names, null_counts(df, names)[1], strict=True))
    if backend.name == "DuckDB":
        from microsdc.backends.frequencies import DUCKDB_VIEW, sql_name

        sums = ", ".join(f"count(*) - count({sql_name(c)})" for c in names)
        row = df.query(DUCKDB_VIEW, f"SELECT {sums} FROM {DUCKDB_VIEW}").fetchall()[0]
        return dict(zip(names, (int(v) for v in row), strict=True))
    return dict(zip(names, df.select(names).null_count().collect().row(0), strict=True))


def _refuse(param: str, why: str, value: Any) -> InvalidParameterError:
    collect = "polars: .collect(); DuckDB: .df(); Spark: .toPandas()"
    return lazy_refusal(param, FUNC, why, value, collect)


def _check_where(where: Any, names: list[str], types: dict[str, Any]) -> str | None:
    """``where=`` on a lazy frame: a boolean column of it, or None."""
    if where is None:
        return None
    if isinstance(where, Hashable) and not isinstance(where, tuple) and where in names:
        dtype = str(types[str(where)]).lower()
        if "bool" not in dtype:
            raise DataValidationError(
                f"The 'where' parameter of {FUNC} must hold True or False for every record; "
                f"column {where!r} holds {types[str(where)]} values.",
                func=FUNC,
                param="where",
            )
        return str(where)
    refused = first_refusal({"pram_where": True})
    assert refused is not None
    raise _refuse("where", refused[0].reason(where), type(where).__name__)


class EnginePram:
    """:func:`microsdc.pram`'s adapter for a lazy frame (polars ``LazyFrame``, DuckDB
    relation, Spark DataFrame): the engine groups, joins and draws; the release stays lazy.

    ``hid=`` is refused first, before the schema is read. ``where=`` must be a boolean
    column of the frame (a Series or array has no rows to align with), refused otherwise
    with an :class:`~microsdc.exceptions.InvalidParameterError` naming it, before any
    row is read. A ``linked`` column takes the value that goes with its key's new
    category, from the engine's distinct (key, linked value) pairs.
    """

    def __init__(self, df: Any, hid: Hashable | None) -> None:
        import narwhals as nw

        refused = first_refusal({"pram_hid": hid})
        if refused is not None:
            raise _refuse("hid", refused[0].reason(hid), hid)
        self.df = df
        self.backend = detect_backend(df, FUNC)
        self.types = frame_schema(nw.from_native(df))
        self.names = [str(c) for c in self.types]

    @property
    def schema(self) -> pandas.DataFrame:
        """An empty frame with the engine's column names (no row is read)."""
        return pandas.DataFrame(columns=pandas.Index(self.names, dtype=object))

    def check_where(self, where: Any) -> None:
        self.where_col = _check_where(where, self.names, self.types)

    def start(self, strata: list[Hashable]) -> None:
        """Refuse a ``where`` column with missing values; plan the records' keys."""
        df, backend, where_col = self.df, self.backend, self.where_col
        nulls = _null_counts(df, backend, self.names)
        if where_col is not None and nulls[where_col]:
            raise DataValidationError(
                f"The 'where' parameter of {FUNC} must hold True or False for every record; "
                f"column {where_col!r} holds {nulls[where_col]} missing value(s).",
                func=FUNC,
                param="where",
            )
        self.strata = strata
        self.keys, distinct = keys_for(backend.name, df)
        self.keys.record_keys(column_plan(_native_types(df, backend), nulls, distinct), where_col)

    def rows(self, unit: Unit, index: int) -> UnitRows:
        """The engine's distinct patterns of ``where``, the strata and the unit's columns,
        each with its number of records."""
        from microsdc.backends.frequencies import N_RECORDS

        where_col = self.where_col
        self.table, patterns, self.key_cols = _patterns(self.df, self.strata, unit, where_col)
        chosen = patterns[where_col].to_numpy(dtype=bool) if where_col else True
        return UnitRows(patterns, chosen, patterns[N_RECORDS].to_numpy(dtype=np.int64))

    def draw(self, plan: UnitPlan, rng: np.random.Generator, index: int) -> None:
        """Each record's uniform number and released code in the engine (columns
        ``..._<index>``): a join with the unit's cumulative transition rows, the draw,
        then a join with the released categories' values."""
        self.keys.key_uniform(int(key_salt(rng)), _U)
        thresholds = _thresholds(self.table, self.key_cols, plan, index)
        joined = _join(self.keys.frame, self.backend, self.key_cols, thresholds)
        values = _with_links(self.df, plan.unit, _values(self.table, plan, index), index)
        self.keys.frame = _draw(joined, self.backend, plan, values, index)

    def released(self, n_units: int) -> list[Tally]:
        """Per unit, the engine's count of its PRAMmed records by stratum, original and
        released code, every unit counted in one pass where the engine can."""
        counted = _released_counts(self.keys.frame, self.backend, n_units)
        return [(r[:, 0], r[:, 1], r[:, 2], r[:, 3]) for r in counted]

    def result(
        self, matrices: tuple[TransitionMatrix, ...], strata: list[Hashable]
    ) -> LazyPramResult:
        data = _final(self.keys.frame, self.backend, self.names)
        return LazyPramResult(data=data, matrices=matrices, strata=tuple(strata))


def _patterns(
    df: Any, strata: list[Hashable], unit: Unit, where_col: str | None
) -> tuple[Any, pandas.DataFrame, list[str]]:
    """The engine's group-by of where, strata and the unit's columns (missing kept), as
    pyarrow and pandas, with the key columns."""
    import narwhals as nw

    from microsdc.backends.frequencies import N_RECORDS, aggregate, to_pandas

    keys = [str(c) for c in (*([where_col] if where_col else []), *strata, *unit.columns)]
    table = aggregate(nw.from_native(df), list(keys), None)
    frame = to_pandas(table)
    frame[N_RECORDS] = frame[N_RECORDS].astype(np.int64)
    return table, frame, keys


def _thresholds(table: Any, key_cols: list[str], plan: UnitPlan, index: int) -> Any:
    """The table joined onto the records: per selected pattern, the first ``L - 1``
    values of its cumulative transition row, its stratum and its code."""
    import pyarrow as pa

    enc, sid = plan.enc, plan.sid
    rows = np.flatnonzero(plan.selected)
    cums = [cumulative_rows(m) for m in plan.mats]
    n_cat = len(enc.labels)
    cum = np.array([cums[sid[r]][enc.codes[r]] for r in rows]).reshape(len(rows), n_cat)
    out = table.select(key_cols).take(pa.array(rows, type=pa.int64()))
    out = out.append_column(f"{_SID}_{index}", pa.array(sid[rows].astype(np.int64)))
    out = out.append_column(f"{_CODE}_{index}", pa.array(enc.codes[rows].astype(np.int64)))
    for k in range(n_cat - 1):
        out = out.append_column(f"{_CUM}{k}_{index}", pa.array(cum[:, k]))
    return out


def _join(frame: Any, backend: Backend, keys: list[str], table: Any) -> Any:
    """Left-join the pyarrow ``table`` (``keys`` then outputs) onto ``frame``, missing ==
    missing. On DuckDB without putting the rows back in order after each join: the
    release is ordered once, at the end, by the row numbers taken at the scan."""
    if backend.name != "DuckDB":
        from microsdc.backends.frequencies import join_back

        return join_back(frame, backend, list[Hashable](keys), table)
    return _duckdb_join(frame, keys, table)


def _duckdb_join(rel: Any, keys: list[str], table: Any) -> Any:
    from microsdc.backends.frequencies import DUCKDB_VIEW, duckdb_key, sql_name

    outputs = [c for c in table.column_names if c not in keys]
    __microsdc_right = table.rename_columns(  # read by DuckDB's replacement scan
        [f"k{i}" for i in range(len(keys))] + [f"o{i}" for i in range(len(outputs))]
    )
    on = " AND ".join(
        f"{duckdb_key(rel, c, 't.')} IS NOT DISTINCT FROM p.k{i}" for i, c in enumerate(keys)
    )
    extra = ", ".join(f"p.o{i} AS {sql_name(c)}" for i, c in enumerate(outputs))
    return rel.query(
        DUCKDB_VIEW,
        f"SELECT t.*, {extra} FROM {DUCKDB_VIEW} AS t LEFT JOIN __microsdc_right AS p ON {on}",
    )


def _values(table: Any, plan: UnitPlan, index: int) -> Any:
    """Each category's code and values of the unit's columns (as the engine holds them)."""
    import pyarrow as pa

    enc, unit = plan.enc, plan.unit
    n_cat = len(enc.labels)
    first = np.zeros(n_cat, dtype=np.int64)
    rows_with = np.flatnonzero(enc.codes >= 0)
    first[enc.codes[rows_with][::-1]] = rows_with[::-1]
    out = pa.table({f"{_NEW}_{index}": pa.array(np.arange(n_cat, dtype=np.int64))})
    for j, c in enumerate(unit.columns):
        out = out.append_column(f"__microsdc_v{j}_{index}", table.column(str(c)).take(first))
    return out


def _plain(value: Any) -> Any:
    """A value as a dict key (NaN equal to NaN)."""
    return ("NaN",) if isinstance(value, float) and value != value else value


def _with_links(df: Any, unit: Unit, values: Any, index: int) -> Any:
    """``values`` with, per linked column, the value that goes with each category's key
    value; the engine's (key, link) pairs are checked to be one value per key value.

    Raises
    ------
    DataValidationError
        If a key value goes with two values of its linked column, naming both.
    """
    import narwhals as nw

    from microsdc.backends.frequencies import aggregate

    for n, (key, link) in enumerate(unit.linked):
        pairs = aggregate(nw.from_native(df), [key, link], None)
        seen: dict[Any, int] = {}
        keys, links = pairs.column(str(key)).to_pylist(), pairs.column(str(link)).to_pylist()
        for row, value in enumerate(keys):
            other = seen.setdefault(_plain(value), row)
            if other != row:
                shown = [
                    "a missing value" if v is None else repr(v) for v in (links[other], links[row])
                ]
                raise DataValidationError(
                    f"The 'linked' column {link!r} of {FUNC} does not follow {key!r}: "
                    f"{key!r} = {'a missing value' if value is None else repr(value)} goes "
                    f"with {shown[0]} and {shown[1]}. PRAM the two together "
                    f"(together=[[{key!r}, {link!r}]]) or drop {link!r}.",
                    func=FUNC,
                    param="linked",
                )
        j = unit.columns.index(key)
        wanted = values.column(f"__microsdc_v{j}_{index}").to_pylist()
        rows = [seen[_plain(v)] for v in wanted]
        values = values.append_column(
            f"__microsdc_l{n}_{index}", pairs.column(str(link)).take(rows)
        )
    return values


def _draw(frame: Any, backend: Backend, plan: UnitPlan, values: Any, index: int) -> Any:
    """The released code of each PRAMmed record: the number of thresholds of its row at
    or below its uniform number, which is the first category whose cumulative
    probability exceeds it (the last at most), as on pandas; then the values of that
    category by a join on the code, and the unit's columns set to them."""
    import narwhals as nw

    unit, n_cat = plan.unit, len(plan.enc.labels)
    u = nw.col(_U)
    cums = [f"{_CUM}{k}_{index}" for k in range(n_cat - 1)]
    code = nw.col(f"{_CODE}_{index}")
    below = [(nw.col(c) <= u).cast(nw.Int64) for c in cums]
    new = nw.sum_horizontal(*below) if below else code * 0
    drawn = nw.when(code.is_null()).then(code).otherwise(new)
    frame = nw.from_native(frame).with_columns(drawn.alias(f"{_NEW}_{index}")).drop(_U, *cums)
    joined = nw.from_native(_join(frame.to_native(), backend, [f"{_NEW}_{index}"], values))
    types = frame_schema(joined)

    def typed(value: str, like: Any) -> Any:  # a column of no type (all missing) stays so
        return (
            nw.col(value)
            if types[str(like)] == nw.Unknown
            else nw.col(value).cast(types[str(like)])
        )

    exprs = [
        nw.when(code.is_null())
        .then(nw.col(str(c)))
        .otherwise(typed(f"__microsdc_v{j}_{index}", c))
        .alias(str(c))
        for j, c in enumerate(unit.columns)
    ] + [
        nw.when(code.is_null())
        .then(nw.col(str(link)))
        .otherwise(typed(f"__microsdc_l{n}_{index}", link))
        .alias(str(link))
        for n, (_, link) in enumerate(unit.linked)
    ]
    drop = [f"__microsdc_v{j}_{index}" for j in range(len(unit.columns))]
    drop += [f"__microsdc_l{n}_{index}" for n in range(len(unit.linked))]
    return joined.with_columns(*exprs).drop(*drop).to_native()


def _released_counts(frame: Any, backend: Backend, n_units: int) -> list[np.ndarray]:
    """Per unit: rows (stratum, original code, released code, records) of the PRAMmed
    records, all units counted in one pass over the release where the engine can."""
    groups = [[f"{_SID}_{i}", f"{_CODE}_{i}", f"{_NEW}_{i}"] for i in range(n_units)]
    if backend.name == "polars":
        import polars as pl

        plans = [
            frame.filter(pl.col(g[0]).is_not_null()).group_by(g).agg(pl.len()).select(*g, "len")
            for g in groups
        ]
        return [_rows(t.to_arrow()) for t in pl.collect_all(plans)]
    if backend.name == "DuckDB":
        return _duckdb_counts(frame, groups)
    import narwhals as nw

    nwf = nw.from_native(frame)
    out = []
    for g in groups:
        grouped = nwf.filter(~nw.col(g[0]).is_null()).group_by(*g).agg(nw.len().alias("n"))
        out.append(_rows(grouped.select(*g, "n").collect(backend="pyarrow").to_arrow()))
    return out


def _rows(table: Any) -> np.ndarray:
    columns = [table.column(j).to_numpy() for j in range(4)]
    return np.column_stack(columns).astype(np.int64).reshape(-1, 4)


def _duckdb_counts(rel: Any, groups: list[list[str]]) -> list[np.ndarray]:
    """One DuckDB query: the release computed once (a materialised CTE), counted per unit."""
    from microsdc.backends.frequencies import DUCKDB_VIEW, duckdb_arrow, sql_name

    cols = ", ".join(sql_name(c) for g in groups for c in g)
    parts = []
    for i, g in enumerate(groups):
        keys = ", ".join(sql_name(c) for c in g)
        parts.append(
            f"SELECT {i} AS unit, {keys}, count(*) AS n FROM f WHERE {sql_name(g[0])} "
            f"IS NOT NULL GROUP BY {keys}"
        )
    sql = f"WITH f AS MATERIALIZED (SELECT {cols} FROM {DUCKDB_VIEW}) " + " UNION ALL ".join(parts)
    table = duckdb_arrow(rel.query(DUCKDB_VIEW, sql))
    unit = table.column(0).to_numpy()
    allrows = np.column_stack([table.column(j).to_numpy() for j in range(1, 5)]).astype(np.int64)
    return [allrows.reshape(-1, 4)[unit == i] for i in range(len(groups))]


def _final(frame: Any, backend: Backend, names: list[str]) -> Any:
    """The release: the input's columns in its order (DuckDB: rows in the input's order)."""
    if backend.name == "DuckDB":
        from microsdc.backends.frequencies import DUCKDB_VIEW, sql_name

        cols = ", ".join(sql_name(c) for c in names)
        return frame.query(DUCKDB_VIEW, f"SELECT {cols} FROM {DUCKDB_VIEW} ORDER BY {ROW}")
    import narwhals as nw

    return nw.from_native(frame).select(*names).to_native()
