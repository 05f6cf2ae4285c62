"""The key arithmetic of :mod:`microsdc.postrandomisation.enginekeys` in polars, DuckDB
and Spark: each step one projection of the native frame, nothing collected but the
distinct values of the columns hashed by table and one count of repeated keys."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from microsdc.backends.frequencies import DUCKDB_VIEW, duckdb_arrow, sql_name, to_pandas
from microsdc.postrandomisation.enginekeys import (
    _MASK,
    _OCC,
    MAX_MAPPED,
    ColumnHash,
    EngineKeys,
)

__all__ = ["DuckDBKeys", "PolarsKeys", "SparkKeys", "keys_for"]

_GOLDEN = 0x9E3779B97F4A7C15
_TWO64 = 1 << 64
ROW = "__microsdc_rowpos"


class PolarsKeys(EngineKeys):
    """On a polars ``LazyFrame``: ``UInt64`` arithmetic wraps around modulo 2^64."""

    def _lit(self, value: int) -> Any:
        import polars as pl

        return pl.lit(value & _MASK, dtype=pl.UInt64)

    def set_const(self, name: str, value: int) -> None:
        self.frame = self.frame.with_columns(self._lit(value).alias(name))

    def step_copy(self, target: str, source: str) -> None:
        import polars as pl

        self.frame = self.frame.with_columns(pl.col(source).alias(target))

    def step(self, name: str, op: str, arg: Any) -> None:
        import polars as pl

        x = pl.col(name)
        expr = {
            "add": lambda: x + self._lit(arg),
            "mul": lambda: x * self._lit(arg),
            "xor": lambda: x.xor(self._lit(arg)),
            "xorshift": lambda: x.xor(x // self._lit(1 << arg)),
            "xorcol": lambda: x.xor(pl.col(arg)),
        }[op]()
        self.frame = self.frame.with_columns(expr.alias(name))

    def column_bits(self, target: str, col: ColumnHash) -> None:
        import polars as pl

        c = pl.col(col.name)
        if col.kind == "int":
            expr = (
                c.reinterpret(signed=False)
                if col.bits == 64
                else (c.cast(pl.Int64) & ((1 << col.bits) - 1)).cast(pl.UInt64)
            )
        elif col.kind == "bool":
            expr = c.cast(pl.UInt64)
        elif col.kind == "native":
            expr = c.hash(seed=0)
        else:
            native, hashed = col.table
            right = native.with_columns(pl.Series(target, hashed, dtype=pl.UInt64)).lazy()
            self.frame = self.frame.drop(target, strict=False).join(
                right, on=col.name, how="left", nulls_equal=True, maintain_order="left"
            )
            return
        self.frame = self.frame.with_columns(expr.alias(target))

    def set_where(self, name: str, where: str | None) -> None:
        import polars as pl

        x = pl.col(name)
        flip = x.xor(self._lit(_GOLDEN))
        expr = flip if where is None else pl.when(pl.col(where)).then(flip).otherwise(x)
        self.frame = self.frame.with_columns(expr.alias(name))

    def occurrence(self, name: str) -> bool:
        import polars as pl

        repeats = self.frame.select(pl.col(name).is_duplicated().any()).collect().item()
        if not repeats:
            return False
        occ = pl.int_range(pl.len(), dtype=pl.UInt64).over(name)
        self.frame = self.frame.with_columns((pl.col(name) + occ * self._lit(_OCC)).alias(name))
        return True

    def uniform(self, name: str, out: str) -> None:
        import polars as pl

        expr = (pl.col(name) // self._lit(1 << 11)).cast(pl.Float64) * 2.0**-53
        self.frame = self.frame.with_columns(expr.alias(out))

    def drop(self, names: Sequence[str]) -> None:
        self.frame = self.frame.drop(*names)


def polars_distinct(frame: Any, name: str) -> tuple[Any, Any] | None:
    """The distinct values of ``name`` (pandas, polars), or None above the cap.

    Integers with missing values become pandas' nullable integers, as microsdc reads
    them and DuckDB's ``.df()`` gives them (polars' ``to_pandas()`` makes them floats,
    which pandas hashes otherwise)."""
    values = frame.select(name).unique().head(MAX_MAPPED + 1).collect()
    if values.height > MAX_MAPPED:
        return None
    if values.schema[name].is_integer():
        return to_pandas(values.to_arrow())[name], values
    return values.to_pandas()[name], values


# --------------------------------------------------------------------------- DuckDB


def _u64(expr: str) -> str:
    """A UHUGEINT expression modulo 2^64, as UBIGINT (a mask: DuckDB divides 128-bit
    integers bit by bit, hundreds of times slower)."""
    return f"CAST(({expr}) & {_MASK}::UHUGEINT AS UBIGINT)"


class DuckDBKeys(EngineKeys):
    """On a DuckDB relation: products and sums in ``UHUGEINT`` modulo 2^64, since
    ``UBIGINT`` arithmetic raises on overflow. The rows are numbered as scanned
    (:data:`ROW`) so repeated keys are numbered in the input's order."""

    def __init__(self, frame: Any) -> None:
        self._rel = frame
        self._names = list(frame.columns)
        self._pending: list[str] = []  # SQL layers over "{src}", written out as one query
        self._query(f"SELECT *, row_number() OVER () - 1 AS {ROW} FROM {{src}}")
        self._names.append(ROW)

    @property
    def frame(self) -> Any:
        """The relation with every step so far: one query for all the pending layers."""
        if self._pending:
            sql = DUCKDB_VIEW
            for layer in self._pending:
                sql = layer.format(src=sql if sql == DUCKDB_VIEW else f"({sql})")
            self._pending = []
            self._rel = self._rel.query(DUCKDB_VIEW, sql)
        return self._rel

    @frame.setter
    def frame(self, rel: Any) -> None:
        self._pending = []
        self._rel = rel
        self._names = list(rel.columns)

    def _query(self, sql: str) -> None:
        self._pending.append(sql)

    def _set(self, name: str, expr: str) -> None:
        n = sql_name(name)
        expr = expr.replace("{", "{{").replace("}", "}}")
        if name in self._names:
            self._query(f"SELECT * REPLACE ({expr} AS {n}) FROM {{src}}")
        else:
            self._query(f"SELECT *, {expr} AS {n} FROM {{src}}")
            self._names.append(name)

    def set_const(self, name: str, value: int) -> None:
        self._set(name, f"CAST({value & _MASK} AS UBIGINT)")

    def step_copy(self, target: str, source: str) -> None:
        self._set(target, sql_name(source))

    def step(self, name: str, op: str, arg: Any) -> None:
        x = sql_name(name)
        expr = {
            "add": lambda: _u64(f"CAST({x} AS UHUGEINT) + {arg & _MASK}::UHUGEINT"),
            "mul": lambda: _u64(f"CAST({x} AS UHUGEINT) * {arg & _MASK}::UHUGEINT"),
            "xor": lambda: f"xor({x}, CAST({arg & _MASK} AS UBIGINT))",
            "xorshift": lambda: f"xor({x}, {x} >> {arg})",
            "xorcol": lambda: f"xor({x}, {sql_name(arg)})",
        }[op]()
        self._set(name, expr)

    def column_bits(self, target: str, col: ColumnHash) -> None:
        c = sql_name(col.name)
        if col.kind == "int":
            m = 1 << col.bits
            self._set(target, f"CAST(CAST({c} AS HUGEINT) & {m - 1}::HUGEINT AS UBIGINT)")
        elif col.kind == "bool":
            self._set(target, f"CAST({c} AS UBIGINT)")
        elif col.kind == "native":
            self._set(target, f"CAST(hash({c}) AS UBIGINT)")
        else:
            self._join(target, col)

    def _join(self, target: str, col: ColumnHash) -> None:
        self.frame = _duckdb_hash_join(self.frame, target, col)

    def set_where(self, name: str, where: str | None) -> None:
        x = sql_name(name)
        flip = f"xor({x}, CAST({_GOLDEN} AS UBIGINT))"
        self._set(name, flip if where is None else f"CASE WHEN {sql_name(where)} THEN {flip} "
                  f"ELSE {x} END")  # fmt: skip

    def occurrence(self, name: str) -> bool:
        x = sql_name(name)
        sql = f"SELECT count(*) > count(DISTINCT {x}) FROM {DUCKDB_VIEW}"
        if not self.frame.query(DUCKDB_VIEW, sql).fetchall()[0][0]:
            return False
        occ = f"row_number() OVER (PARTITION BY {x} ORDER BY {ROW}) - 1"
        self._set(name, _u64(f"CAST({x} AS UHUGEINT) + CAST({occ} AS UHUGEINT) * {_OCC}"))
        return True

    def uniform(self, name: str, out: str) -> None:
        self._set(out, f"CAST({sql_name(name)} >> 11 AS DOUBLE) * {2.0**-53!r}")

    def drop(self, names: Sequence[str]) -> None:
        cols = ", ".join(sql_name(n) for n in names)
        self._query(f"SELECT * EXCLUDE ({cols}) FROM {{src}}")
        self._names = [c for c in self._names if c not in names]


def _duckdb_hash_join(rel: Any, target: str, col: ColumnHash) -> Any:
    """``rel`` with column ``target``: the pandas hash of ``col``'s value (a left join,
    missing == missing, on the table of distinct values). A module function, since a
    name with two leading underscores inside a class would be renamed by Python."""
    import pyarrow as pa

    native, hashed = col.table
    __microsdc_hashes = native.rename_columns(["v"]).append_column(
        "h", pa.array(hashed, type=pa.uint64())
    )  # read by DuckDB's replacement scan
    c, t = sql_name(col.name), sql_name(target)
    keep = f"t.* EXCLUDE ({t})" if target in rel.columns else "t.*"
    return rel.query(
        DUCKDB_VIEW,
        f"SELECT {keep}, p.h AS {t} FROM {DUCKDB_VIEW} AS t LEFT JOIN __microsdc_hashes "
        f"AS p ON t.{c} IS NOT DISTINCT FROM p.v",
    )


def duckdb_distinct(rel: Any, name: str) -> tuple[Any, Any] | None:
    """The distinct values of ``name`` (pandas as ``.df()`` gives them, pyarrow), or None
    above the cap."""
    c = sql_name(name)
    values = rel.query(DUCKDB_VIEW, f"SELECT DISTINCT {c} FROM {DUCKDB_VIEW} LIMIT "
                       f"{MAX_MAPPED + 1}")  # fmt: skip
    table = duckdb_arrow(values)
    if table.num_rows > MAX_MAPPED:
        return None
    import duckdb

    series = duckdb.from_arrow(table).df()[name] if table.num_rows else table.to_pandas()[name]
    return series, table


# --------------------------------------------------------------------------- Spark


def _dec(value: int) -> Any:
    """An integer literal of Spark as DECIMAL(38, 0) (a long cannot hold 2^64)."""
    from decimal import Decimal

    from pyspark.sql import functions as F

    return F.lit(Decimal(value)).cast("decimal(38,0)")


def _spark_signed(value: int) -> int:
    value &= _MASK
    return value - _TWO64 if value >= 1 << 63 else value


class SparkKeys(EngineKeys):
    """On a Spark DataFrame: the 64 bits in a signed ``long``; a product modulo 2^64 is
    taken from 32-bit halves in ``DECIMAL(38, 0)``, which never overflows, so the result
    is the same with or without ANSI mode."""

    def __init__(self, frame: Any) -> None:
        from pyspark.sql import functions as F

        super().__init__(frame.withColumn(ROW, F.monotonically_increasing_id()))

    @staticmethod
    def _unsigned(x: Any) -> Any:
        """The long ``x`` as its unsigned value, a DECIMAL(20, 0)."""
        from pyspark.sql import functions as F

        d = x.cast("decimal(20,0)")
        return F.when(x < 0, d + _dec(_TWO64)).otherwise(d)

    @staticmethod
    def _signed(d: Any) -> Any:
        """An unsigned value in [0, 2^64) (decimal) back to the long with its bits."""
        from pyspark.sql import functions as F

        big = _dec(_TWO64)
        return F.when(d >= _dec(1 << 63), d - big).otherwise(d).cast("long")

    def _mul(self, x: Any, c: int) -> Any:
        from pyspark.sql import functions as F

        lo = (x.bitwiseAND(F.lit(0xFFFFFFFF))).cast("decimal(38,0)")
        hi = F.shiftrightunsigned(x, 32).cast("decimal(38,0)")
        c = c & _MASK
        clo, chi = _dec(c & 0xFFFFFFFF), _dec(c >> 32)
        two32 = _dec(1 << 32)
        cross = F.pmod(hi * clo + lo * chi, two32)
        return self._signed(F.pmod(lo * clo + cross * two32, _dec(_TWO64)))

    def _add(self, x: Any, c: Any) -> Any:
        from pyspark.sql import functions as F

        total = self._unsigned(x).cast("decimal(38,0)") + c
        return self._signed(F.pmod(total, _dec(_TWO64)))

    def set_const(self, name: str, value: int) -> None:
        from pyspark.sql import functions as F

        self.frame = self.frame.withColumn(name, F.lit(_spark_signed(value)).cast("long"))

    def step_copy(self, target: str, source: str) -> None:
        from pyspark.sql import functions as F

        self.frame = self.frame.withColumn(target, F.col(source))

    def step(self, name: str, op: str, arg: Any) -> None:
        from pyspark.sql import functions as F

        x = F.col(name)
        if op == "add":
            expr = self._add(x, _dec(arg & _MASK))
        elif op == "mul":
            expr = self._mul(x, arg)
        elif op == "xor":
            expr = x.bitwiseXOR(F.lit(_spark_signed(arg)).cast("long"))
        elif op == "xorshift":
            expr = x.bitwiseXOR(F.shiftrightunsigned(x, arg))
        else:
            expr = x.bitwiseXOR(F.col(arg))
        self.frame = self.frame.withColumn(name, expr)

    def column_bits(self, target: str, col: ColumnHash) -> None:
        from pyspark.sql import functions as F

        c = F.col(f"`{col.name}`")
        if col.kind == "int":
            expr = c.cast("long")
            if col.bits < 64:
                expr = expr.bitwiseAND(F.lit((1 << col.bits) - 1).cast("long"))
        elif col.kind == "bool":
            expr = c.cast("long")
        elif col.kind == "native":
            expr = F.xxhash64(c)
        else:
            self._join(target, col)
            return
        self.frame = self.frame.withColumn(target, expr)

    def _join(self, target: str, col: ColumnHash) -> None:
        import pyarrow as pa
        from pyspark.sql import functions as F

        native, hashed = col.table
        signed = [_spark_signed(int(h)) for h in hashed]
        table = native.rename_columns(["__microsdc_v"]).append_column(
            "__microsdc_hv", pa.array(signed, type=pa.int64())
        )
        right = self.frame.sparkSession.createDataFrame(table)
        dtype = dict((f.name, f.dataType) for f in self.frame.schema.fields)[col.name]
        right = right.select(F.col("__microsdc_v").cast(dtype).alias("__microsdc_v"),
                             "__microsdc_hv")  # fmt: skip
        left = self.frame.drop(target) if target in self.frame.columns else self.frame
        on = F.col(f"`{col.name}`").eqNullSafe(F.col("__microsdc_v"))
        joined = left.join(F.broadcast(right), on=on, how="left")
        self.frame = joined.drop("__microsdc_v").withColumnRenamed("__microsdc_hv", target)

    def set_where(self, name: str, where: str | None) -> None:
        from pyspark.sql import functions as F

        x = F.col(name)
        flip = x.bitwiseXOR(F.lit(_spark_signed(_GOLDEN)).cast("long"))
        expr = flip if where is None else F.when(F.col(f"`{where}`"), flip).otherwise(x)
        self.frame = self.frame.withColumn(name, expr)

    def occurrence(self, name: str) -> bool:
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        row = self.frame.select(
            F.count(F.lit(1)).alias("n"), F.countDistinct(F.col(name)).alias("d")
        ).first()
        if row["n"] == row["d"]:
            return False
        occ = F.row_number().over(Window.partitionBy(name).orderBy(ROW)) - 1
        total = self._unsigned(F.col(name)).cast("decimal(38,0)") + occ.cast(
            "decimal(38,0)"
        ) * _dec(_OCC)
        big = _dec(_TWO64)
        self.frame = self.frame.withColumn(name, self._signed(F.pmod(total, big)))
        return True

    def uniform(self, name: str, out: str) -> None:
        from pyspark.sql import functions as F

        expr = F.shiftrightunsigned(F.col(name), 11).cast("double") * F.lit(2.0**-53)
        self.frame = self.frame.withColumn(out, expr)

    def drop(self, names: Sequence[str]) -> None:
        self.frame = self.frame.drop(*names)


def spark_distinct(df: Any, name: str) -> tuple[Any, Any] | None:
    """The distinct values of ``name`` (pandas from Spark's arrow, as ``toPandas()`` gives
    text and missing values, without its warning under pandas 3, but integers with
    missing values as pandas' nullable integers, as microsdc reads them; pyarrow), or
    None above the cap."""
    values = df.select(f"`{name}`").distinct().limit(MAX_MAPPED + 1)
    table = values.toArrow()
    if table.num_rows > MAX_MAPPED:
        return None
    return to_pandas(table)[name], table


def keys_for(backend_name: str, frame: Any) -> tuple[EngineKeys, Any]:
    """The key arithmetic for an engine and its distinct-value reader."""
    if backend_name == "polars":
        return PolarsKeys(frame), functools.partial(polars_distinct, frame)
    if backend_name == "DuckDB":
        return DuckDBKeys(frame), functools.partial(duckdb_distinct, frame)
    return SparkKeys(frame), functools.partial(spark_distinct, frame)
