"""A lazy engine's result is counted before it is returned: a join that leaves records
without fk, or blanks that do not arrive, raise instead of being released."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import pytest

import microsdc
from microsdc.backends import keyed
from microsdc.backends import patterns as fk_join
from microsdc.exceptions import DataValidationError
from microsdc.suppression import keyed as suppression_keyed
from microsdc.suppression import lazy as suppression_lazy

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")

DATA = pd.DataFrame({"s": ["a", "a", "b", "c", "c"], "n": [1, 1, 2, 3, 3], "rid": range(5)})


def _frame(kind: str) -> Any:
    table = pa.Table.from_pandas(DATA, preserve_index=False)
    return pl.from_arrow(table).lazy() if kind == "polars lazy" else duckdb.from_arrow(table)


def _collect(out: Any) -> Any:
    return out.collect() if hasattr(out, "collect") else out.fetchall()


def _lossy_join(original: Any) -> Any:
    """A join that matches no record (what Spark's join did on a ``void`` key)."""

    def join(df: Any, backend: Any, qi: Any, result: Any) -> Any:
        gone = result.filter(pa.array([False] * result.num_rows))
        return original(df, backend, qi, gone)

    return join


@pytest.mark.parametrize("kind", ["polars lazy", "duckdb"])
def test_records_without_fk_raise(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ok = _collect(microsdc.sample_frequencies(_frame(kind), ["s"], k=2))
    assert len(ok) == 5
    monkeypatch.setattr(fk_join, "join_back", _lossy_join(fk_join.join_back))
    with pytest.raises(DataValidationError, match=r"5 of them without fk.*'s' (String|VARCHAR)"):
        microsdc.sample_frequencies(_frame(kind), ["s"], k=2)


def test_keyed_route_without_fk_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keyed, "CELLS_PER_ROW", 10**6)
    rel = _frame("duckdb")
    out = microsdc.sample_frequencies(rel, ["n"], k=2).order("rid").fetchall()
    assert [r[-2] for r in out] == [2, 2, 1, 2, 2]
    original = keyed.keyed_fk

    def lossy(rel: Any, plan: Any, policy: Any, k: Any) -> Any:
        return original(rel, plan, policy, k).filter("rid <> 0")

    monkeypatch.setattr(keyed, "keyed_fk", lossy)
    with pytest.raises(DataValidationError, match="gave 4 record"):
        microsdc.sample_frequencies(rel, ["n"], k=2)


@pytest.mark.parametrize("kind", ["polars lazy", "duckdb"])
def test_blanks_that_do_not_arrive_raise(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    res = microsdc.local_suppression(_frame(kind), ["s"], 2, missing="wildcard")
    assert res.cells_per_qi["s"] == 1
    monkeypatch.setattr(suppression_lazy, "_blank_back", lambda df, *args: df)
    with pytest.raises(DataValidationError, match="'s': 0 missing where 1 were due"):
        microsdc.local_suppression(_frame(kind), ["s"], 2, missing="wildcard")


def test_keyed_suppression_blanks_that_do_not_arrive_raise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # many cells per record: the combined-key route, with the bit-set greedy ruled out
    monkeypatch.setattr(keyed, "CELLS_PER_ROW", 10**6)
    monkeypatch.setattr("microsdc.suppression._engine.bitset_fits", lambda *a: False)
    res = microsdc.local_suppression(_frame("duckdb"), ["n"], 2, missing="wildcard")
    assert res.details.get("route") == "combined key"
    assert [r[1] for r in res.data.order("rid").fetchall()] == [1, 1, None, 3, 3]
    monkeypatch.setattr(suppression_keyed, "_blank_back", lambda rel, *args: rel)
    with pytest.raises(DataValidationError, match="'n': 0 missing where 1 were due"):
        microsdc.local_suppression(_frame("duckdb"), ["n"], 2, missing="wildcard")


@pytest.mark.parametrize(
    "expr",
    [
        "('10:00:0' || (i % 3) || '+01')::TIMETZ",  # TIME WITH TIME ZONE
        "('10' || (i % 3 > 0)::INT)::BIT",
    ],
)
def test_duckdb_types_the_join_did_not_match(expr: str) -> None:
    # before: every record came back without fk; now counted like any other column
    rel = duckdb.sql(f"SELECT {expr} AS q, i AS rid FROM range(7) AS t(i)")
    fk = [r[2] for r in microsdc.sample_frequencies(rel, ["q"], k=3).order("rid").fetchall()]
    groups = [i % 3 for i in range(7)] if "TIMETZ" in expr else [i % 3 > 0 for i in range(7)]
    assert fk == [groups.count(g) for g in groups]
    res = microsdc.local_suppression(rel, ["q"], 3)
    released = [r[0] for r in res.data.order("rid").fetchall()]
    assert sum(v is None for v in released) == int(res.cells_per_qi.sum())


SAMPLED = (
    "SELECT i % 97 AS a, (i % 13)::VARCHAR AS b, i % 3 AS c, i AS rid FROM range(20000) t(i) "
    "USING SAMPLE 3000 ROWS"
)
MANY = 20000


@pytest.mark.parametrize(
    "make",
    [
        lambda: duckdb.sql(SAMPLED),
        lambda: pl.LazyFrame(
            {
                "a": [i % 97 for i in range(MANY)],
                "b": [str(i % 13) for i in range(MANY)],
                "c": [i % 3 for i in range(MANY)],
            }
        ).select(pl.all().sample(n=3000, shuffle=True)),
    ],
    ids=["duckdb using sample", "polars sample"],
)
def test_an_input_that_changes_between_evaluations_is_named_as_the_cause(make: Any) -> None:
    # the types are plain: the advice is to materialise the input, not to cast types
    with pytest.raises(DataValidationError) as caught:
        for _ in range(5):  # a sample may, by chance, give the same blanks twice
            microsdc.local_suppression(make(), ["a", "b", "c"], 3)
    message = str(caught.value)
    assert "do not carry the suppression that was computed" in message
    assert "The types are plain, so the likely cause is that the input gives other rows" in message
    assert "USING SAMPLE" in message and "materialise it first" in message
    assert "Cast" not in message and "cast" not in message


def test_a_materialised_sample_is_released() -> None:
    con = duckdb.connect()
    con.execute(f"CREATE TABLE s AS {SAMPLED}")
    res = microsdc.local_suppression(con.table("s"), ["a", "b", "c"], 3)
    released = res.data.df()
    assert len(released) == 3000
    assert res.n_cells > 0
    assert int(released[["a", "b", "c"]].isna().sum().sum()) == res.n_cells


@pytest.mark.parametrize("kind", ["polars lazy", "duckdb"])
def test_an_unusual_key_type_gets_both_causes(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    table = pa.Table.from_pandas(DATA.assign(f=DATA["n"] * 0.5), preserve_index=False)
    frame = pl.from_arrow(table).lazy() if kind == "polars lazy" else duckdb.from_arrow(table)
    monkeypatch.setattr(suppression_lazy, "_blank_back", lambda df, *args: df)
    with pytest.raises(DataValidationError) as caught:
        microsdc.local_suppression(frame, ["s", "f"], 2, missing="wildcard")
    message = str(caught.value)
    assert re.search(
        r"'s' (String|VARCHAR), 'f' (Float64|DOUBLE)\. Either the input gives", message
    )
    assert "or the engine compares the values of 'f' in its own way: cast the key" in message


def test_plain_types_are_told_apart_from_unusual_ones() -> None:
    from microsdc.backends import Backend
    from microsdc.backends.complete import unusual_types

    rel = duckdb.sql(
        "SELECT 1::BIGINT a, 1::UTINYINT b, 'x' c, true d, 1.5 e, 1.5::DOUBLE f, "
        "DATE '2020-01-01' h, 1::HUGEINT i"
    )
    assert unusual_types(rel, Backend("DuckDB", True, "duckdb"), list("abcdefhi")) == [
        "e",
        "f",
        "h",
    ]
    lf = pl.LazyFrame(
        {"a": [1], "b": ["x"], "c": [True], "d": [1.0], "e": pl.Series([1], dtype=pl.UInt8)}
    )
    assert unusual_types(lf, Backend("polars", True, "polars"), list("abcde")) == ["d"]
