"""The counting entry points on PySpark DataFrames equal pandas (a local Spark session).

Spark is slow to start and each query costs a job, so the hypothesis tests draw
few small frames; the session is shared (the ``spark`` fixture of conftest.py).
"""

from __future__ import annotations

import datetime as dt
import sys
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import microsdc
from microsdc.exceptions import ColumnNotFoundError, DataValidationError, InvalidParameterError
from oracles.kanon import fk_bruteforce, rows_of

pa = pytest.importorskip("pyarrow")

POLICIES = ["wildcard", "category", "conservative", "probabilistic", 0.5]
CODE = -9  # a declared missing code in the integer columns
FEW = settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@st.composite
def frames(draw: st.DrawFn) -> tuple[pd.DataFrame, Any]:
    """The same data as a pandas frame and a pyarrow table.

    Holes in a float column are a null or a NaN at random in the table (Spark
    keeps the two apart) and NaN in pandas; integer columns may hold the
    declared code ``CODE``.
    """
    n = draw(st.integers(1, 25))
    m = draw(st.integers(1, 3))
    pdf: dict[str, Any] = {}
    arrow: dict[str, Any] = {}
    for j in range(m):
        kind = draw(st.sampled_from(["int", "str", "float"]))
        values = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
        holes = draw(st.lists(st.sampled_from([0, 0, 1, 2]), min_size=n, max_size=n))
        cells = list(zip(values, holes, strict=True))
        name = f"q{j}"
        if kind == "int":
            col = [None if h == 1 else CODE if h == 2 else v for v, h in cells]
            pdf[name] = pd.array(col, dtype="Int64")
            arrow[name] = pa.array(col, type=pa.int64())
        elif kind == "str":
            col = [None if h else f"v{v}" for v, h in cells]
            pdf[name] = pd.array(col, dtype=object)
            arrow[name] = pa.array(col, type=pa.string())
        else:
            col = [None if h == 1 else np.nan if h == 2 else v + 0.5 for v, h in cells]
            pdf[name] = np.array([np.nan if v is None else v for v in col], dtype=float)
            arrow[name] = pa.array(col, type=pa.float64(), from_pandas=False)
    weights = draw(st.lists(st.integers(1, 9), min_size=n, max_size=n))
    pdf["w"] = np.array(weights, dtype=float)
    arrow["w"] = pa.array(weights, type=pa.float64())
    pdf["rid"] = np.arange(n)
    arrow["rid"] = pa.array(range(n), type=pa.int64())
    return pd.DataFrame(pdf), pa.table(arrow)


def _rows(frame: Any) -> pd.DataFrame:
    """A Spark result in row-id order, through arrow (Spark's toPandas warns on pandas 3)."""
    return frame.toArrow().to_pandas().sort_values("rid").reset_index(drop=True)


@FEW
@given(data=frames(), policy=st.sampled_from(POLICIES), k=st.integers(1, 4))
def test_sample_frequencies_equal_pandas(spark: Any, data: Any, policy: object, k: int) -> None:
    df, table = data
    qi = [c for c in df.columns if c.startswith("q")]
    kw = {"k": k, "missing": policy, "weights": "w", "missing_values": [CODE]}
    want = microsdc.sample_frequencies(df, qi, **kw)
    sdf = spark.createDataFrame(table)
    out = microsdc.sample_frequencies(sdf, qi, **kw)
    assert type(out) is type(sdf)  # lazy stays lazy
    assert out.columns == [*sdf.columns, "fk", "Fk_pop", "at_risk"]
    got = _rows(out)
    assert got["rid"].tolist() == list(range(len(df)))
    np.testing.assert_allclose(got["fk"], want["fk"])
    np.testing.assert_allclose(got["Fk_pop"], want["Fk"])
    assert got["at_risk"].tolist() == want["at_risk"].tolist()
    for c in qi:  # the input columns come back untouched (a NaN stays a NaN, a null a null)
        assert got[c].isna().tolist() == df[c].isna().tolist()


@FEW
@given(data=frames(), k=st.integers(1, 4), policy=st.sampled_from(POLICIES))
def test_counting_entry_points_equal_pandas(spark: Any, data: Any, k: int, policy: object) -> None:
    from microsdc.backends.frequencies import to_pandas

    df, table = data
    qi = [c for c in df.columns if c.startswith("q")]
    sdf = spark.createDataFrame(table)
    n_want, summary = microsdc.check_k_anonymity(
        df, qi, k, weights="w", missing_values=[CODE], missing=policy
    )
    n_got, got = microsdc.check_k_anonymity(
        sdf, qi, k, weights="w", missing_values=[CODE], missing=policy
    )
    assert n_got == n_want
    got_pd = to_pandas(got)
    assert got_pd["count"].sum() == len(df)

    # fractional fk and Fk (alpha, probabilistic) are sums in another order: compare rounded
    def rows(frame: pd.DataFrame) -> list[tuple[float, int, float]]:
        return sorted(
            (round(float(a), 9), int(b), round(float(c), 9))
            for a, b, c in zip(frame["fk"], frame["count"], frame["Fk"], strict=True)
        )

    assert rows(got_pd) == rows(summary)
    assert microsdc.safe_combinations(
        sdf, qi, k, min_combi_size=1, missing=policy, missing_values=[CODE]
    ) == microsdc.safe_combinations(
        df, qi, k, min_combi_size=1, missing=policy, missing_values=[CODE]
    )


def test_hand_computed_example(spark: Any) -> None:
    sdf = spark.createDataFrame(
        pa.table(
            {
                "A": pa.array([0, 0, 1, 1, None, 0, None], type=pa.int32()),
                "B": pa.array([1, 1, 2, 1, 2, None, None], type=pa.int16()),
                "w": pa.array([1.0, 2, 3, 4, 5, 6, 7]),
                "rid": pa.array(range(7), type=pa.int64()),
            }
        )
    )
    got = _rows(microsdc.sample_frequencies(sdf, ["A", "B"], k=3, weights="w"))
    assert got["fk"].tolist() == [4, 4, 3, 2, 4, 5, 7]
    # Fk sums the weights of the compatible records, e.g. row 0: rows 0, 1, 5, 6
    assert got["Fk_pop"].tolist() == [16.0, 16.0, 15.0, 11.0, 21.0, 21.0, 28.0]
    assert got["at_risk"].tolist() == [False, False, False, True, False, False, False]
    n_at_risk, summary = microsdc.check_k_anonymity(sdf, ["A", "B"], 3)
    assert n_at_risk == 1
    assert sorted(summary.column("count").to_pylist()) == [1, 1, 1, 1, 1, 2]


def test_one_group_by_counts_summarises_and_joins(spark: Any) -> None:
    # what `microsdc risk --engine ...` prints and writes, from one group-by
    from microsdc.backends.adapters import adapt
    from microsdc.risk.counting import append_fk, key_rows, summary_of

    sdf = spark.createDataFrame(
        pa.table(
            {"A": [0, 0, 1, 1, None, 0, None], "B": [1, 1, 2, 1, 2, None, None], "rid": range(7)}
        )
    )
    func = "microsdc risk"
    keys = key_rows(adapt(sdf, func), ["A", "B"], "wildcard", None, None, func, appends=True)
    res = keys.frequencies()
    assert int(res.count[res.fk < 4].sum()) == 2  # fk 3 and 2
    summary = summary_of(keys, res, 4, "check_k_anonymity")
    assert summary.column("count").to_pylist() == [1, 1, 2, 1, 1, 1]  # riskiest first
    with_fk = append_fk(keys, res.row_fk, res.row_Fk, 4, func)
    assert _rows(with_fk)["fk"].tolist() == [4, 4, 3, 2, 4, 5, 7]


def test_nan_null_and_declared_code_are_one_missing_value(spark: Any) -> None:
    # Spark groups a NaN and a null apart; microsdc counts both, and -9, as missing
    table = pa.table(
        {
            "a": pa.array([1.0, 1.0, float("nan"), None, -9.0], from_pandas=False),
            "b": ["x", "x", "x", "x", "x"],
            "rid": pa.array(range(5), type=pa.int64()),
        }
    )
    sdf = spark.createDataFrame(table)
    got = _rows(microsdc.sample_frequencies(sdf, ["a", "b"], missing_values=[-9]))
    assert got["fk"].tolist() == [5, 5, 5, 5, 5]
    got = _rows(microsdc.sample_frequencies(sdf, ["a", "b"], missing="category"))
    assert got["fk"].tolist() == [2, 2, 2, 2, 1]  # NaN and null: one category


def test_awkward_names_and_types_join_back(spark: Any) -> None:
    # names with a dot and a space; dates, timestamps and decimals as keys
    from decimal import Decimal

    day = dt.date(2020, 1, 1)
    when = dt.datetime(2020, 1, 1, 12, tzinfo=dt.UTC)
    sdf = spark.createDataFrame(
        pa.table(
            {
                "a.b": [1, 1, None, 2],
                "my col": ["x", "x", "x", None],
                "day": pa.array([day, day, None, day]),
                "when": pa.array([when, when, when, None], type=pa.timestamp("us", tz="UTC")),
                "amount": pa.array([Decimal("1.5")] * 3 + [None], type=pa.decimal128(5, 2)),
                "rid": pa.array(range(4), type=pa.int64()),
            }
        )
    )
    qi = ["a.b", "my col", "day", "when", "amount"]
    got = _rows(microsdc.sample_frequencies(sdf, qi))
    # row 2 (missing a.b and day) matches every row; row 3 matches itself and row 2
    assert got["fk"].tolist() == [3, 3, 4, 2]


def test_errors_before_any_work(spark: Any) -> None:
    sdf = spark.createDataFrame(
        pa.table({"a": [1, 2], "w": pa.array([1.0, None]), "s": ["x", "y"], "neg": [-1.0, 1.0]})
    )
    with pytest.raises(ColumnNotFoundError, match="'nope'"):
        microsdc.sample_frequencies(sdf, ["a", "nope"])
    with pytest.raises(InvalidParameterError, match="'k' parameter"):
        microsdc.check_k_anonymity(sdf, ["a"], 0)
    with pytest.raises(DataValidationError, match="1 missing"):
        microsdc.sample_frequencies(sdf, ["a"], weights="w")
    with pytest.raises(DataValidationError, match="negative"):
        microsdc.check_k_anonymity(sdf, ["a"], 2, weights="neg")
    with pytest.raises(DataValidationError, match="must be numeric"):
        microsdc.sample_frequencies(sdf, ["a"], weights="s")
    with pytest.raises(InvalidParameterError, match="column name"):
        microsdc.sample_frequencies(sdf, ["a"], weights=[1.0, 2.0])
    clash = spark.createDataFrame(pa.table({"a": [1, 2], "FK": [0, 0]}))
    with pytest.raises(InvalidParameterError, match="'FK'"):
        microsdc.sample_frequencies(clash, ["a"])


def test_functions_needing_rows_say_how_to_collect(spark: Any) -> None:
    sdf = spark.createDataFrame(pa.table({"a": [1, 2, 2], "b": ["x", "y", "y"]}))
    with pytest.raises(InvalidParameterError, match=r"lazy PySpark frame.*\.toPandas\(\)"):
        microsdc.min_missingness_max_deid(sdf, ["a", "b"], k=2, seed=0)
    with pytest.raises(InvalidParameterError, match=r"\.toPandas\(\)"):
        microsdc.individual_risk(sdf, ["a", "b"], weights="a")


def test_local_suppression_on_spark_equals_pandas(spark: Any) -> None:
    # Spark numbers the rows in collection order (monotonically_increasing_id), so ties
    # between patterns break as on pandas: the same cells, row by row
    rng = np.random.default_rng(3)
    n = 120
    a = rng.integers(0, 8, n).astype(float)
    a[rng.random(n) < 0.1] = np.nan
    pdf = pd.DataFrame(
        {"id": np.arange(n), "a": a, "b": rng.integers(0, 6, n), "c": rng.integers(0, 4, n)}
    )
    sdf = spark.createDataFrame(pa.Table.from_pandas(pdf, preserve_index=False))
    ordered = sdf.toArrow().to_pandas()  # the order Spark's partitions hold the rows in
    res = microsdc.local_suppression(sdf, ["a", "b", "c"], k=3, missing="wildcard")
    ref = microsdc.local_suppression(ordered, ["a", "b", "c"], k=3, missing="wildcard")
    out = res.data.toArrow().to_pandas().sort_values("id").reset_index(drop=True)
    want = ref.data.sort_values("id").reset_index(drop=True)
    assert list(out.columns) == ["id", "a", "b", "c"]
    assert res.n_cells == ref.n_cells > 0
    for col in ("a", "b", "c"):
        assert out[col].isna().tolist() == want[col].isna().tolist()
    fk, _ = fk_bruteforce(rows_of(out, ["a", "b", "c"]), "wildcard")
    assert min(fk) >= 3


def test_missing_narwhals_names_the_spark_extra(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sdf = spark.createDataFrame(pa.table({"a": [1]}))
    monkeypatch.setitem(sys.modules, "narwhals", None)
    with pytest.raises(InvalidParameterError, match=r'pip install "microsdc\[spark\]"'):
        microsdc.sample_frequencies(sdf, ["a"])


def test_cli_engine_spark_reads_and_writes_parquet(
    spark: Any, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from microsdc.cli import main

    frame = pd.DataFrame(
        {
            "A": pd.array([0, 0, 1, 1, None, 0, None], dtype="Int64"),
            "B": pd.array([1, 1, 2, 1, 2, None, None], dtype="Int64"),
            "w": [1.0, 2, 3, 4, 5, 6, 7],
            "rid": range(7),
        }
    )
    parts = tmp_path / "parts"
    parts.mkdir()
    frame.iloc[:4].to_parquet(parts / "a.parquet")
    frame.iloc[4:].to_parquet(parts / "b.parquet")
    out = tmp_path / "fk.parquet"
    args = ["risk", str(parts), "--qi", "A,B", "-k", "3", "--weight", "w", "--engine", "spark"]
    for _ in range(2):  # the second run replaces the first output
        with pytest.raises(SystemExit) as exc:
            main([*args, "--out", str(out)])
            raise SystemExit(0)
        assert not exc.value.code, capsys.readouterr().err
    assert "7 records" in capsys.readouterr().out
    got = pd.read_parquet(out).sort_values("rid")
    assert out.is_file() and not list(tmp_path.glob("fk.parquet.*"))
    assert got["fk"].tolist() == [4, 4, 3, 2, 4, 5, 7]
    assert got["Fk_pop"].tolist() == [16.0, 16.0, 15.0, 11.0, 21.0, 21.0, 28.0]
    assert list(got.columns[:4]) == ["A", "B", "w", "rid"]
    with pytest.raises(SystemExit) as exc:
        main([*args, "--out", str(tmp_path / "fk.csv")])
        raise SystemExit(0)
    assert exc.value.code == 2
    assert "--out must be a .parquet file" in capsys.readouterr().err


def test_cli_without_pyspark_names_the_extra(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from microsdc.cli import main

    src = tmp_path / "d.parquet"
    pd.DataFrame({"a": [1, 2]}).to_parquet(src)
    monkeypatch.setitem(sys.modules, "pyspark", None)
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    with pytest.raises(SystemExit) as exc:
        main(["risk", str(src), "--qi", "a", "--engine", "spark"])
        raise SystemExit(0)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert 'pip install "microsdc[spark]"' in err


def _void_frame(spark: Any) -> Any:
    """A column of None from Python or pandas rows has Spark's type void."""
    from pyspark.sql.types import LongType, NullType, StringType, StructField, StructType

    schema = StructType(
        [
            StructField("s", StringType()),
            StructField("x", NullType()),
            StructField("rid", LongType()),
        ]
    )
    return spark.createDataFrame([("a", None, 0), ("a", None, 1), ("b", None, 2)], schema)


def test_void_key_variable_counts_and_blanks(spark: Any) -> None:
    sdf = _void_frame(spark)
    assert sdf.schema["x"].dataType.simpleString() == "void"
    got = _rows(microsdc.sample_frequencies(sdf, ["s", "x"], k=2))
    assert got["fk"].tolist() == [2, 2, 1]
    assert got["at_risk"].tolist() == [False, False, True]
    res = microsdc.local_suppression(sdf, ["s", "x"], 2, missing="wildcard")
    assert res.cells_per_qi.tolist() == [1, 0]
    released = res.data.toArrow()
    by_rid = dict(zip(released["rid"].to_pylist(), released["s"].to_pylist(), strict=True))
    assert by_rid == {0: "a", 1: "a", 2: None}  # the blank arrived


def test_a_join_that_matches_nothing_raises(spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from microsdc.backends import spark as spark_backend

    # Spark's own null-safe equality on a void key: its hash join matches no record
    monkeypatch.setattr(spark_backend, "_null_safe_equal", lambda a, b, t: a.eqNullSafe(b))
    sdf = _void_frame(spark)
    with pytest.raises(DataValidationError, match=r"3 of them without fk.*'x' void"):
        microsdc.sample_frequencies(sdf, ["s", "x"], k=2)
    with pytest.raises(DataValidationError, match="'s': 0 missing where 1 were due"):
        microsdc.local_suppression(sdf, ["s", "x"], 2, missing="wildcard")


def test_the_summary_lists_tied_combinations_as_pandas_does(spark: Any) -> None:
    # hundreds of combinations tie on fk = 1 and count 1: after fk and count the key
    # values order them, so Spark's group-by order does not show through
    from microsdc.backends.frequencies import to_pandas
    from microsdc.risk.pattern_order import tie_rounded

    rng = np.random.default_rng(7)
    n = 400
    df = pd.DataFrame(
        {
            "a": rng.integers(0, 60, n),
            "b": rng.integers(0, 60, n),
            "c": rng.choice(np.array(["p", "q", None], dtype=object), n),
            "w": rng.choice([1.5, 2.0], n),
        }
    )
    sdf = spark.createDataFrame(pa.Table.from_pandas(df, preserve_index=False))
    qi = ["a", "b", "c"]

    def rows(summary: pd.DataFrame) -> list[tuple[object, ...]]:
        big = "Fk" if "Fk" in summary.columns else "Fk_pop"
        return [
            (
                *(None if pd.isna(r[c]) else r[c] for c in qi),
                int(r["count"]),
                float(tie_rounded([r["fk"]])[0]),
                float(tie_rounded([r[big]])[0]),
            )
            for r in summary.to_dict("records")
        ]

    for missing in ("wildcard", "category"):
        _, want = microsdc.check_k_anonymity(df, qi, 3, missing=missing, weights="w")
        _, got = microsdc.check_k_anonymity(sdf, qi, 3, missing=missing, weights="w")
        expected = rows(want)
        assert sum(r[4] == 1.0 for r in expected) > 100
        assert rows(to_pandas(got)) == expected
