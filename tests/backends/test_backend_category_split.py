"""Under missing="category" an engine releases the solution for the records: where it blanks
the records of one key combination differently, the engine numbers those records in row
order and blanks each by its number. The release is checked against the records: k-anonymous
with a blank as one more value, the cells of the solution for the records, every other cell
unchanged, and the result's figures those of the records as released."""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from microsdc import local_suppression
from microsdc.exceptions import SDCWarning
from microsdc.suppression import core
from oracles.intruder import intruder_risk
from oracles.kanon import compatible, rows_of

pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")

SPLIT = pd.DataFrame(
    {
        "a": [2, 0, 0, 0, 0, 2, 2, 1, 0, 0, 0, 1],
        "b": [1, 1, 0, 0, 2, 2, 0, 0, 1, 1, 2, 1],
        "c": [0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1],
    }
)
QI = ["a", "b", "c"]
ENGINES = ["polars", "duckdb"]


def _lazy(engine: str, df: pd.DataFrame) -> Any:
    return pl.from_pandas(df).lazy() if engine == "polars" else duckdb.from_df(df)


def _released(res: Any) -> pd.DataFrame:
    data = res.data
    if hasattr(data, "toArrow"):  # Spark
        return data.toArrow().to_pandas()
    return data.collect().to_pandas() if hasattr(data, "collect") else data.df()


def _value(v: Any) -> Any:
    """A key value as compared across pandas, polars and DuckDB (1 == 1.0; missing None)."""
    if v is None or (not isinstance(v, str) and pd.isna(v)):
        return None
    return float(v) if isinstance(v, int | float | np.integer | np.floating) else str(v)


def _cells(frame: pd.DataFrame) -> list[list[Any]]:
    return [[_value(v) for v in row] for row in frame.itertuples(index=False, name=None)]


@contextmanager
def _solutions() -> Iterator[list[list[Any]]]:
    """What the core computed, stratum by stratum: ``["records", cells, split]`` for the
    solution for the records and ``["greedy", cells]`` for the greedy on patterns."""
    events: list[list[Any]] = []
    real_records, real_greedy = core.category_on_patterns, core.reach_k

    def records(codes: Any, ncat: Any, k: Any, costs: Any, w: Any, first: Any = None) -> Any:
        p = real_records(codes, ncat, k, costs, w, first)
        if p is not None:
            new = (p.codes < 0) & (codes[p.source] >= 0)
            events.append(["records", int((new * p.records[:, None]).sum()), p.split])
        return p

    def greedy(codes: Any, *args: Any, records: Any = None, **kw: Any) -> Any:
        before = codes.copy()
        out = real_greedy(codes, *args, records=records, **kw)
        events.append(["greedy", int((((codes < 0) & (before >= 0)) * records[:, None]).sum())])
        return out

    with (
        mock.patch.object(core, "category_on_patterns", records),
        mock.patch.object(core, "reach_k", greedy),
    ):
        yield events


def _expected_cells(events: list[list[Any]]) -> tuple[int, int]:
    """The cells the core releases, and those of the solution for the records: per stratum
    that solution, or, where it splits a pattern, the cheaper of it and the greedy."""
    released = solution = 0
    i = 0
    while i < len(events):
        kind, cells = events[i][0], events[i][1]
        if kind == "greedy":  # no solution for the records: the greedy alone
            released += cells
            solution += cells
            i += 1
        elif events[i][2]:  # split: the greedy ran too
            assert events[i + 1][0] == "greedy"
            released += min(cells, events[i + 1][1])
            solution += cells
            i += 2
        else:
            released += cells
            solution += cells
            i += 1
    return released, solution


def _check_release(
    df: pd.DataFrame, res: Any, qi: list[str], k: int, strata: str | None
) -> pd.DataFrame:
    """Check the collected release against the input (a ``rid`` column lines them up) and
    recount the result's figures on it; returns the release in ``rid`` order."""
    out = _released(res).sort_values("rid").reset_index(drop=True)
    assert list(out.columns) == list(df.columns)
    assert len(out) == len(df) and out["rid"].tolist() == df["rid"].tolist()
    # every column that is not a key variable unchanged, record by record
    for c in df.columns:
        if c not in qi:
            assert [_value(v) for v in out[c]] == [_value(v) for v in df[c]], c
    before, after = rows_of(df, qi), rows_of(out, qi)
    before = [tuple(_value(v) for v in r) for r in before]
    after = [tuple(_value(v) for v in r) for r in after]
    blanked = np.zeros((len(df), len(qi)), dtype=bool)
    for i, (r, s) in enumerate(zip(before, after, strict=True)):
        for j, (a, b) in enumerate(zip(r, s, strict=True)):
            assert b == a or b is None  # a value kept or blanked; a missing value kept
            blanked[i, j] = b is None and a is not None
    stratum = [None] * len(df) if strata is None else [_value(v) for v in df[strata]]
    # k-anonymous under "category": every released tuple (a blank one more value) held by
    # at least k records of its stratum
    classes = Counter(zip(stratum, after, strict=True))
    assert min(classes.values()) >= k
    # the figures, recounted on the release
    assert res.cells_per_qi.tolist() == blanked.sum(axis=0).tolist()
    assert res.n_cells == int(blanked.sum())
    assert res.n_rows_suppressed == int(blanked.any(axis=1).sum())
    assert res.n_rows == len(df)
    assert res.n_at_risk_after == 0
    fk0 = Counter(zip(stratum, before, strict=True))
    assert res.n_at_risk_before == sum(
        1 for s, r in zip(stratum, before, strict=True) if fk0[s, r] < k
    )
    true_fk = []
    for s, r, row in zip(stratum, before, blanked.any(axis=1), strict=True):
        if row:
            true_fk.append(
                sum(1 for t, q in zip(stratum, after, strict=True) if t == s and compatible(r, q))
            )
        else:
            true_fk.append(0)
    risk_after = np.zeros(len(df))
    for s in set(stratum):
        rows = [i for i, t in enumerate(stratum) if t == s]
        risk_after[rows] = intruder_risk(df.iloc[rows], out.iloc[rows], qi)
    # per record (original tuple, cells, fk before, fk after, true_fk, risk after) against
    # the result's table of pieces, each standing for its records
    records = Counter(
        (s, r, int(blanked[i].sum()), fk0[s, r], classes[s, q], true_fk[i], round(risk_after[i], 9))
        for i, (s, r, q) in enumerate(zip(stratum, before, after, strict=True))
    )
    p = res.patterns
    assert res.n_patterns == len(set(zip(stratum, before, strict=True)))
    pros = res.prosecutor_after
    tfk = res.true_fk.reindex(p.index, fill_value=0)
    pieces: Counter[Any] = Counter()
    for i in range(len(p)):
        s = None if strata is None else _value(p[strata].iloc[i])
        r = tuple(_value(p[c].iloc[i]) for c in qi)
        key = (
            s,
            r,
            int(p["cells"].iloc[i]),
            int(p["fk_before"].iloc[i]),
            int(p["fk_after"].iloc[i]),
        )
        pieces[(*key, int(tfk.iloc[i]), round(float(pros.iloc[i]), 9))] += int(p["records"].iloc[i])
    assert pieces == records
    return out


def test_twelve_records_get_the_solution_for_the_records() -> None:
    """Old: the greedy on patterns blanked all 36 cells, with a warning; the solution for
    the records blanks 21, as pandas, and blanks the two records of (0, 1, 0) differently."""
    df = SPLIT.assign(rid=range(12), x=[f"v{i}" for i in range(12)])
    assert local_suppression(df, QI, 3).n_cells == 21  # pandas, record by record
    outs = []
    for engine in ENGINES:
        with warnings.catch_warnings():
            warnings.simplefilter("error", SDCWarning)
            res = local_suppression(_lazy(engine, df), QI, 3)
        assert res.n_cells == 21
        assert res.cells_per_qi.tolist() == [6, 12, 3]
        assert res.details == {"recoverable": []}  # rid and x give nothing back
        assert res.n_patterns == 9 and len(res.patterns) == 10  # (0, 1, 0) in two pieces
        outs.append(_check_release(df, res, QI, 3, None))
    # the same rows in the same order: both engines blank the same records
    assert _cells(outs[0]) == _cells(outs[1])
    out = outs[0]
    # (0, 1, 0) is records 1 and 9: the first in row order keeps more values
    assert out.loc[1, QI].isna().tolist() == [False, True, False]
    assert out.loc[9, QI].isna().tolist() == [True, True, True]


@st.composite
def frames(draw: st.DrawFn) -> tuple[pd.DataFrame, list[str], int, str | None]:
    n = draw(st.integers(2, 50))
    m = draw(st.integers(2, 4))
    k = draw(st.integers(2, 4))
    data: dict[str, Any] = {}
    for j in range(m):
        width = draw(st.integers(1, 3))
        values = draw(st.lists(st.integers(0, width - 1), min_size=n, max_size=n))
        holes = draw(st.lists(st.sampled_from([False, False, False, True]), min_size=n, max_size=n))
        if draw(st.booleans()):
            data[f"q{j}"] = pd.array(
                [None if h else v for v, h in zip(values, holes, strict=True)], dtype="Int64"
            )
        else:
            data[f"q{j}"] = pd.array(
                [None if h else f"v{v}" for v, h in zip(values, holes, strict=True)], dtype=object
            )
    strata = None
    if draw(st.booleans()):
        strata = "s"
        data["s"] = draw(st.lists(st.sampled_from(["n", "s"]), min_size=n, max_size=n))
    data["x"] = np.arange(n) * 1.5
    data["rid"] = np.arange(n)
    df = pd.DataFrame(data)
    sizes = df["s"].value_counts() if strata else pd.Series([n])
    assume(int(sizes.min()) >= k)
    return df, [f"q{j}" for j in range(m)], k, strata


FEW = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FEW
@given(case=frames())
def test_engines_release_the_solution_for_the_records(
    case: tuple[pd.DataFrame, list[str], int, str | None],
) -> None:
    df, qi, k, strata = case
    kw: dict[str, Any] = {} if strata is None else {"strata": strata}
    outs = []
    for engine in ENGINES:
        with _solutions() as events, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = local_suppression(_lazy(engine, df), qi, k, **kw)
        released, solution = _expected_cells(events)
        assert res.n_cells == released <= solution
        assert "record_solution_cells" not in res.details
        event("a pattern split" if len(res.patterns) > res.n_patterns else "no pattern split")
        outs.append(_check_release(df, res, qi, k, strata))
    assert _cells(outs[0]) == _cells(outs[1])


def test_no_rank_is_computed_when_no_pattern_is_split() -> None:
    """The records are numbered within their key combination only when a pattern is split:
    otherwise the release is today's join on the patterns, with no window."""
    alike = pd.DataFrame({"a": [1, 1, 1, 2, 2, 2, 3], "b": [0, 0, 0, 1, 1, 1, 1]})
    for engine, plan in (("polars", _polars_plan), ("duckdb", _duckdb_plan)):
        res = local_suppression(_lazy(engine, alike), ["a", "b"], 3)
        assert len(res.patterns) == res.n_patterns == 3
        assert res.n_cells == local_suppression(alike, ["a", "b"], 3).n_cells
        assert "__microsdc_rank" not in plan(res.data)
        split = local_suppression(_lazy(engine, SPLIT), QI, 3)
        assert "__microsdc_rank" in plan(split.data)


def _polars_plan(lf: Any) -> str:
    return str(lf.explain())


def _duckdb_plan(rel: Any) -> str:
    return str(rel.sql_query())


def test_spark_releases_the_solution_for_the_records(spark: Any) -> None:
    """Spark numbers the records of a split combination with a window over the key
    variables, ordered as it numbers the rows: the release of polars, record by record
    (the 12 records, and 120 records in two strata with missing values)."""
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(5)
    n = 120
    a = rng.integers(0, 3, n).astype(float)
    a[rng.random(n) < 0.15] = np.nan
    wide = pd.DataFrame(
        {
            "s": rng.choice(["n", "s"], n),
            "a": a,
            "b": rng.choice(["u", "v", "w", None], n, p=[0.4, 0.3, 0.2, 0.1]),
            "c": rng.integers(0, 4, n),
            "rid": np.arange(n),
        }
    )
    cases = [(SPLIT.assign(rid=range(12)), QI, None), (wide, ["a", "b", "c"], "s")]
    for df, qi, strata in cases:
        kw: dict[str, Any] = {} if strata is None else {"strata": strata}
        sdf = spark.createDataFrame(pa.Table.from_pandas(df, preserve_index=False))
        res = local_suppression(sdf, qi, 3, **kw)
        assert len(res.patterns) > res.n_patterns  # a pattern split
        out = _check_release(df, res, qi, 3, strata)
        ref = local_suppression(_lazy("polars", df), qi, 3, **kw)
        assert res.n_cells == ref.n_cells
        assert _cells(out) == _cells(_released(ref).sort_values("rid"))


@pytest.mark.parametrize("engine", ENGINES)
def test_the_greedy_is_released_where_it_blanks_fewer_cells(engine: str) -> None:
    """The solution for the records of (0, 1) x 4, (1, 1) x 2, (2, 0) x 3, (2, 2) x 1 at
    k = 3 splits a pattern and blanks 7 cells; blanking (1, 1) and (2, 2) entirely blanks
    6: that release is taken, every record of a pattern blanked alike."""
    rows = [(0, 1)] * 4 + [(1, 1)] * 2 + [(2, 0)] * 3 + [(2, 2)]
    df = pd.DataFrame(rows, columns=["a", "b"]).assign(rid=range(10))
    res = local_suppression(_lazy(engine, df), ["a", "b"], 3)
    assert res.n_cells == 6 and len(res.patterns) == res.n_patterns == 4
    out = _check_release(df, res, ["a", "b"], 3, None)
    assert out[["a", "b"]].isna().all(axis=1).tolist() == [False] * 4 + [True] * 2 + [False] * 3 + [
        True
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_engine_job_audits_the_records_as_released(tmp_path: Any, engine: str) -> None:
    """A job on an engine under the default guarantee: the audit's cells, records with
    suppression and records by number of cells blanked are those of the file written."""
    from microsdc.job import run_job

    df = SPLIT.assign(rid=range(12))
    df.to_parquet(tmp_path / "split.parquet", index=False)
    job = tmp_path / "job.toml"
    job.write_text(
        'steps = ["risk", "suppression"]\n\n[input]\npath = "split.parquet"\n'
        f'engine = "{engine}"\n\n[variables]\nquasi_identifiers = ["a", "b", "c"]\n\n'
        '[risk]\nk = 3\n\n[output]\ndirectory = "out"\n',
        encoding="utf-8",
    )
    got = run_job(job)
    out = pd.read_parquet(got.written["data"]).sort_values("rid").reset_index(drop=True)
    blanked = out[QI].isna() & df[QI].notna()
    sup = got.audit["suppression"]
    assert sup["total"] == int(blanked.to_numpy().sum()) == 21
    assert sup["per_variable"] == {c: int(blanked[c].sum()) for c in QI}
    assert sup["records_with_suppression"] == int(blanked.any(axis=1).sum())
    by_count = blanked.sum(axis=1).value_counts()
    assert sup["records_by_count"] == {str(c): int(v) for c, v in sorted(by_count.items())}
    released = Counter(map(tuple, out[QI].astype(object).where(out[QI].notna(), None).values))
    assert min(released.values()) >= 3
