"""pram inside polars, DuckDB and Spark: the same release as pandas for the same seed,
whatever the row order, without the rows entering Python."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")

from microsdc import pram  # noqa: E402
from microsdc.backends.frequencies import to_pandas  # noqa: E402
from microsdc.data.rowkeys import key_uniforms, record_keys  # noqa: E402
from microsdc.exceptions import (  # noqa: E402
    ColumnNotFoundError,
    DataValidationError,
    InvalidParameterError,
)
from microsdc.postrandomisation import LazyPramResult, PramResult  # noqa: E402
from microsdc.postrandomisation.enginekeys import KEY, column_plan  # noqa: E402
from microsdc.postrandomisation.engineops import keys_for  # noqa: E402


def survey(n: int = 2000, seed: int = 0) -> pl.DataFrame:
    """Text with missing values, integers, numbers with a decimal point (NaN, null and
    -0.0 among them), booleans, a nullable integer, and 40 exact duplicate records."""
    rng = np.random.default_rng(seed)
    df = pl.DataFrame(
        {
            "region": rng.choice(["north", "south", "east"], n).tolist(),
            "roof": rng.choice(["tin", "tile", "straw", None], n).tolist(),
            "rooms": rng.integers(1, 6, n),
            "small": pl.Series(rng.integers(-100, 100, n), dtype=pl.Int8),
            "income": pl.Series(
                rng.choice([1.5, -0.0, 0.0, np.nan, None, 2.25], n).tolist(), dtype=pl.Float64
            ),
            "adult": rng.integers(0, 2, n).astype(bool),
            "hh": pl.Series([None if i % 11 == 0 else i % 5 for i in range(n)], dtype=pl.Int32),
        }
    )
    df = df.with_columns(
        pl.col("region").replace_strict({"north": "N", "south": "S", "east": "E"}).alias("code")
    )
    return pl.concat([df, df.head(40)])


CASES = [
    {},
    {"strata": "rooms", "linked": {"region": ["code"]}, "columns": ["region", "roof"]},
    {"strata": "region"},
    {"strata": "region", "where": "adult", "missing": "state"},
    {"together": [["roof", "rooms"]], "pd": 0.6},
    {"strata": "region", "allowed": {"rooms": "neighbours"}, "alpha": 0.9},
    {
        "transition": {
            "rooms": pd.DataFrame(np.full((5, 5), 0.2), index=range(1, 6), columns=range(1, 6))
        }
    },
]


def _same_matrices(got: LazyPramResult, want: PramResult) -> None:
    assert len(got.matrices) == len(want.matrices)
    for g, w in zip(got.matrices, want.matrices, strict=True):
        assert g.variables == w.variables and g.stratum == w.stratum and g.kind == w.kind
        np.testing.assert_array_equal(g.matrix.to_numpy(), w.matrix.to_numpy())
        np.testing.assert_array_equal(g.counts.to_numpy(), w.counts.to_numpy())
        np.testing.assert_array_equal(g.released.to_numpy(), w.released.to_numpy())
        assert g.n_changed == w.n_changed
    pd.testing.assert_frame_equal(got.summary(), want.summary())


@pytest.mark.parametrize("kw", CASES)
def test_polars_lazy_release_equals_pandas(kw: dict[str, Any]) -> None:
    df = survey()
    kw = {"columns": ["roof", "rooms"], **kw}
    got = pram(df.lazy(), seed=11, **kw)
    # the nullable integer "hh" held as pandas holds it (Int32, as microsdc reads it and
    # DuckDB's .df() gives it), not as polars' .to_pandas() (floats, hashed otherwise)
    want = pram(to_pandas(df.to_arrow()), seed=11, **kw)
    assert isinstance(got, LazyPramResult) and isinstance(got.data, pl.LazyFrame)
    out = got.data.collect()
    assert out.schema == df.schema
    pd.testing.assert_frame_equal(to_pandas(out.to_arrow()), want.data)
    assert sum(m.n_changed for m in got.matrices) > 0
    _same_matrices(got, want)


@pytest.mark.parametrize("kw", CASES)
def test_duckdb_release_equals_pandas(kw: dict[str, Any]) -> None:
    rel = duckdb.from_arrow(survey().to_arrow())
    kw = {"columns": ["roof", "rooms"], **kw}
    got = pram(rel, seed=5, **kw)
    want = pram(rel.df(), seed=5, **kw)
    assert isinstance(got.data, duckdb.DuckDBPyRelation)
    assert got.data.columns == rel.columns and got.data.types == rel.types
    pd.testing.assert_frame_equal(got.data.df(), want.data)
    _same_matrices(got, want)


def test_spark_release_equals_pandas(spark: Any) -> None:
    # Spark computes on longs in ANSI mode (the default of Spark 4): no product overflows
    # one call with every option the engine route has to get right (Spark plans each
    # query for seconds); the text with nulls, the float with NaN, null and -0.0, the
    # nullable integer and the duplicates enter every record's key
    df = survey(600).with_row_index("id").with_columns(pl.col("id").cast(pl.Int64))
    df = df.select("id", "region", "roof", "rooms", "income", "adult", "hh")
    sdf = spark.createDataFrame(df.to_arrow())
    for kw in ({"strata": "region", "where": "adult", "missing": "state"},):
        got = pram(sdf, ["roof", "rooms"], seed=2, **kw)
        want = pram(to_pandas(sdf.toArrow()), ["roof", "rooms"], seed=2, **kw)
        out = to_pandas(got.data.toArrow()).sort_values("id").reset_index(drop=True)
        assert list(out.columns) == list(want.data.columns)
        pd.testing.assert_frame_equal(out, want.data.sort_values("id").reset_index(drop=True))
        _same_matrices(got, want)


@pytest.mark.parametrize("engine", ["polars", "DuckDB"])
def test_same_release_whatever_the_row_order(engine: str) -> None:
    df = survey().with_row_index("id")
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=3)
    outs = []
    for frame in (df, shuffled):
        if engine == "polars":
            out = pram(frame.lazy(), ["roof", "rooms"], strata="region", seed=9).data.collect()
        else:
            rel = duckdb.from_arrow(frame.to_arrow())
            out = pl.from_arrow(pram(rel, ["roof", "rooms"], strata="region", seed=9).data
                                .to_arrow_table())  # fmt: skip
        outs.append(out.sort("id"))
    assert outs[0].equals(outs[1])
    assert not outs[0].equals(df)  # something moved


def _pandas_keys(frame: pd.DataFrame) -> np.ndarray:
    return record_keys(frame, np.ones(len(frame), dtype=bool))


class _Salt:
    """A Generator stand-in whose integer draw is a given salt."""

    def integers(self, *args: Any, **kwargs: Any) -> np.uint64:
        return np.uint64(987654321)


@pytest.mark.parametrize("engine", ["polars", "DuckDB"])
def test_record_keys_and_uniforms_equal_pandas_column_type_by_type(engine: str) -> None:
    df = survey(300).with_columns(
        pl.Series("u16", np.arange(340) * 191, dtype=pl.UInt16),
        pl.Series("big", np.arange(340) * -(2**40), dtype=pl.Int64),
        pl.Series("flag", [None if i % 7 == 0 else i % 2 == 0 for i in range(340)]),
        pl.date(2020, 1, 1).dt.offset_by("1d").alias("day"),
    )
    if engine == "polars":
        frame: Any = df.lazy()
        reference = df.to_pandas()
        reference["hh"] = to_pandas(df.select("hh").to_arrow())["hh"]  # Int32, as .df()
        types = {c: str(t) for c, t in df.schema.items()}
    else:
        frame = duckdb.from_arrow(df.to_arrow())
        reference = frame.df()
        types = dict(zip(frame.columns, map(str, frame.types), strict=True))
    keys, distinct = keys_for(engine, frame)
    keys.record_keys(column_plan(types, dict(zip(df.columns, df.null_count().row(0), strict=True)),
                                 distinct), None)  # fmt: skip
    keys.key_uniform(987654321, "u")
    out = keys.frame.collect() if engine == "polars" else pl.from_arrow(
        keys.frame.order("__microsdc_rowpos").to_arrow_table()
    )  # fmt: skip
    want = _pandas_keys(reference)
    np.testing.assert_array_equal(out[KEY].to_numpy(), want)
    np.testing.assert_array_equal(out["u"].to_numpy(), key_uniforms(want, _Salt()))  # type: ignore[arg-type]


def test_no_rows_enter_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """Everything collected from the engines is a count or a table of distinct values."""
    n = 3000
    rng = np.random.default_rng(4)
    df = pl.DataFrame(
        {
            "id": np.arange(n),
            "roof": rng.choice(["tin", "tile", "straw"], n),
            "rooms": rng.integers(1, 6, n),
            "region": rng.integers(0, 3, n),
        }
    )
    sizes: list[int] = []
    collect = pl.LazyFrame.collect

    def counted(self: pl.LazyFrame, *args: Any, **kwargs: Any) -> pl.DataFrame:
        out = collect(self, *args, **kwargs)
        sizes.append(out.height)
        return out

    monkeypatch.setattr(pl.LazyFrame, "collect", counted)
    import microsdc.backends.frequencies as freq
    import microsdc.postrandomisation.engineops as ops

    arrow = freq.duckdb_arrow

    def counted_arrow(rel: Any) -> Any:
        out = arrow(rel)
        sizes.append(out.num_rows)
        return out

    monkeypatch.setattr(freq, "duckdb_arrow", counted_arrow)
    monkeypatch.setattr(ops, "duckdb_arrow", counted_arrow)
    pram(df.lazy(), ["roof", "rooms"], strata="region", seed=1)
    pram(duckdb.from_arrow(df.to_arrow()), ["roof", "rooms"], strata="region", seed=1)
    # strata x categories x released categories, both variables (one DuckDB table of counts)
    assert sizes and max(sizes) <= 3 * (3 * 3 + 5 * 5)


def _untouchable() -> pl.LazyFrame:
    """A LazyFrame whose rows cannot be read: any check must come from its schema."""

    def boom(s: pl.Series) -> pl.Series:
        raise AssertionError("the engine read the rows")

    lf = pl.LazyFrame({"a": [1, 2, 3], "b": ["x", "y", "z"], "w": [True, False, True]})
    return lf.with_columns(pl.col("a").map_batches(boom, return_dtype=pl.Int64))


@pytest.mark.parametrize(
    ("kw", "error", "match"),
    [
        ({"columns": ["a", "nope"]}, ColumnNotFoundError, "nope"),
        ({"pd": 2}, InvalidParameterError, "'pd'"),
        ({"missing": "drop"}, InvalidParameterError, "'missing'"),
        ({"strata": "a"}, InvalidParameterError, "'strata'"),
        ({"where": np.ones(3, dtype=bool)}, InvalidParameterError, "'where'.*lazy frame"),
        ({"where": "b"}, Exception, "'where'.*True or False"),
        ({"linked": {"b": ["w"]}}, InvalidParameterError, "'linked'.*not a PRAMmed column"),
        ({"hid": "b"}, InvalidParameterError, "'hid'.*lazy frame: households are PRAMmed"),
    ],
)
def test_refusals_before_reading_rows(
    kw: dict[str, Any], error: type[Exception], match: str
) -> None:
    args: dict[str, Any] = {"columns": ["a"], **kw}
    with pytest.raises(error, match=match):
        pram(_untouchable(), **args, seed=1)


def test_eager_frames_come_back_as_their_kind() -> None:
    df = survey(200)
    res = pram(df, ["roof"], seed=3)
    assert isinstance(res, PramResult) and isinstance(res.data, pl.DataFrame)
    # "hh" (Int32 with nulls) held as pandas' nullable Int32, as on the lazy frame
    want = pram(to_pandas(df.to_arrow()), ["roof"], seed=3).data
    assert to_pandas(res.data.to_arrow()).equals(want)
    assert res.data.equals(pram(df.lazy(), ["roof"], seed=3).data.collect())
    assert type(pram(df.to_arrow(), ["roof"], seed=3).data).__name__ == "Table"


def test_engine_hash_above_the_cap_keeps_the_distribution(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A text column with more distinct values than the cap enters the key through
    polars' own hash: other draws than pandas, the same law. On 200,000 records the
    changes of each category are within 4 standard errors of n_c (1 - R_cc) and the
    released frequencies within 4 standard errors of the original ones."""
    import microsdc.postrandomisation.engineops as ops

    monkeypatch.setattr(ops, "MAX_MAPPED", 10)
    n = 200_000
    rng = np.random.default_rng(8)
    cats = np.array(["a", "b", "c", "d", "e"])
    df = pl.DataFrame({"v": cats[rng.choice(5, n, p=[0.4, 0.3, 0.15, 0.1, 0.05])],
                       "name": [f"p{i}" for i in range(n)]})  # fmt: skip
    res = pram(df.lazy(), "v", pd=0.6, seed=12)
    out = res.data.collect()
    m = res.matrices[0]
    r = m.matrix.to_numpy()
    counts = m.counts.to_numpy()
    moved = out["v"].to_numpy() != df["v"].to_numpy()
    for i, c in enumerate(m.matrix.index):
        stay = r[i, i]
        changed = moved[df["v"].to_numpy() == c].sum()
        sd = np.sqrt(counts[i] * stay * (1 - stay))
        assert abs(changed - counts[i] * (1 - stay)) <= 4 * sd + 1
    released = out["v"].value_counts().sort("v")["count"].to_numpy()
    p = counts / n
    sd = np.sqrt(n * p * (1 - p))  # a generous bound: PRAM's variance is below it here
    assert (np.abs(released - counts) <= 4 * sd).all()
    # the engine's hash, not pandas': another release than pandas' for the same seed
    assert not out.to_pandas().equals(pram(df.to_pandas(), "v", pd=0.6, seed=12).data)


@pytest.mark.parametrize("engine", ["polars", "DuckDB"])
def test_a_linked_column_that_does_not_follow_its_key_is_named(engine: str) -> None:
    df = survey(200).with_columns(
        pl.when(pl.int_range(pl.len()) == 7)
        .then(pl.lit("X"))
        .otherwise(pl.col("code"))
        .alias("code")
    )
    frame = df.lazy() if engine == "polars" else duckdb.from_arrow(df.to_arrow())
    with pytest.raises(DataValidationError, match=r"'code' of pram does not follow 'region'"):
        pram(frame, "region", linked={"region": ["code"]}, seed=1)


def test_estimate_names_a_lazy_result() -> None:
    from microsdc import pram_estimate

    df = survey(100)
    res = pram(df.lazy(), "roof", seed=1)
    with pytest.raises(InvalidParameterError, match=r"lazy frame.*same seed"):
        pram_estimate(df.to_pandas(), res)  # type: ignore[arg-type]


@pytest.mark.parametrize("source", ["parquet", "sql"])
def test_duckdb_column_of_no_type_is_released_as_it_is(tmp_path: Any, source: str) -> None:
    """A column missing in every record has DuckDB's NULL type (pandas writes an all-None
    column so to Parquet): nothing is PRAMmed, the column stays missing and of its type,
    as on pandas; the draw's cast to the column's type used to fail inside narwhals."""
    if source == "parquet":
        pd.DataFrame({"a": [None] * 6, "b": range(6)}).to_parquet(tmp_path / "n.parquet")
        rel = duckdb.connect().read_parquet(str(tmp_path / "n.parquet"))
    else:
        rel = duckdb.sql("SELECT NULL AS a, i AS b FROM range(6) t(i)")
    res = pram(rel, "a", seed=1)
    out = res.data.df()
    assert out["a"].isna().all() and out["b"].tolist() == list(range(6))
    assert str(res.data.types[0]).strip('"') == "NULL"
    summary = res.summary()
    assert int(summary["records"].sum()) == 0 and int(summary["changed"].sum()) == 0
    assert pram(pd.DataFrame({"a": [None] * 6, "b": range(6)}), "a", seed=1).data["a"].isna().all()
