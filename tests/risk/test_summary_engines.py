"""risk_summary on lazy frames (polars LazyFrame, DuckDB relation): the figures of the
engine job's risk step, the pandas figures, and the refusal of what needs the records."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from microsdc.exceptions import ColumnNotFoundError, InvalidParameterError
from microsdc.risk import risk_summary

pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")

QI = ["age", "sex", "region"]

JOB = """title = "risk on an engine"
steps = ["risk"]

[input]
path = "people.parquet"
engine = "{engine}"
{missing_values}

[variables]
quasi_identifiers = ["age", "sex", "region"]
{weights}

[risk]
k = {k}
missing = {missing}
risk_threshold = {threshold}

[output]
directory = "out"
"""


def _frame(n: int = 300, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = pd.array(rng.integers(0, 8, n), dtype="Int64")
    age[rng.random(n) < 0.08] = pd.NA
    region = rng.integers(0, 9, n).astype("int64")
    region[rng.random(n) < 0.05] = -9  # a declared missing code
    sex = rng.choice(["f", "m"], n).astype(object)
    sex[rng.random(n) < 0.04] = None
    return pd.DataFrame(
        {"age": age, "sex": sex, "region": region, "w": rng.uniform(5, 60, n).round(2)}
    )


def _lazy(engine: str, path: Path) -> Any:
    if engine == "polars":
        return pl.scan_parquet(path)
    return duckdb.connect().read_parquet(str(path))


CASES = [
    # missing policy, k, weights, declared missing codes, risk threshold
    ('"wildcard"', 3, True, True, 0.1),
    ('"wildcard"', 2, False, False, 0.2),
    ('"category"', 3, True, True, 0.05),
    ('"conservative"', 5, True, False, 0.1),
    ('"probabilistic"', 3, False, True, 0.1),
    ("0.5", 3, True, True, 0.1),
]


@pytest.fixture
def one_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's key combinations in one order, sorted by their values: a parallel
    group-by may list them in another order from one run to the next, and the sums of
    risks then differ in their last bits (in the job as well)."""
    from microsdc.backends import patterns

    grouped = patterns.aggregate

    def sorted_aggregate(nwf: Any, qi: list[Any], w: str | None) -> Any:
        table = grouped(nwf, qi, w)
        return table.sort_by([(str(c), "ascending") for c in qi])

    monkeypatch.setattr(patterns, "aggregate", sorted_aggregate)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize(("missing", "k", "weighted", "codes", "threshold"), CASES)
def test_risk_summary_of_a_lazy_frame_is_the_engine_jobs_risk(
    tmp_path: Path,
    one_order: None,
    engine: str,
    missing: str,
    k: int,
    weighted: bool,
    codes: bool,
    threshold: float,
) -> None:
    """The dict the engine job's risk step returns (job.engine.Patterns.risk), key
    for key and bit for bit (from the same group-by), including missing_qi_cells with
    declared missing codes."""
    from microsdc.job.config import parse_job
    from microsdc.job.engine import Patterns

    df = _frame()
    path = tmp_path / "people.parquet"
    df.to_parquet(path, index=False)
    text = JOB.format(
        engine=engine,
        missing_values="missing_values = [-9]" if codes else "",
        weights='weights = "w"' if weighted else "",
        k=k,
        missing=missing,
        threshold=threshold,
    )
    cfg = parse_job(text, tmp_path / "job.toml")
    want = Patterns(_lazy(engine, path), cfg).risk()
    policy: Any = float(missing) if missing[0].isdigit() else missing.strip('"')
    got = risk_summary(
        _lazy(engine, path),
        QI,
        k,
        weights="w" if weighted else None,
        risk_threshold=threshold,
        missing=policy,
        missing_values=[-9] if codes else None,
    )
    assert got == want
    assert got["missing_qi_cells"] > 0
    if codes:  # the declared code counts as missing: more than the nulls alone
        nulls = int(df["age"].isna().sum() + df["sex"].isna().sum())
        assert got["missing_qi_cells"] == nulls + int((df["region"] == -9).sum())


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("missing", ["wildcard", "category", "probabilistic", 0.25])
def test_risk_summary_of_a_lazy_frame_is_the_pandas_summary(
    tmp_path: Path, engine: str, missing: Any
) -> None:
    """Counted on the engine's key combinations or on the records: the same figures
    (sums of risks over records to the last bits)."""
    df = _frame(seed=11)
    path = tmp_path / "people.parquet"
    df.to_parquet(path, index=False)
    options = {"weights": "w", "missing": missing, "missing_values": [-9]}
    want = risk_summary(pd.read_parquet(path), QI, 3, **options)
    got = risk_summary(_lazy(engine, path), QI, 3, **options)
    assert got.keys() == want.keys()
    for key, value in want.items():
        if isinstance(value, float):
            assert math.isclose(got[key], value, rel_tol=1e-12), key
        else:
            assert got[key] == value, key
    assert want["n_at_risk"] > 0 and want["missing_qi_cells"] > 0


def test_risk_summary_by_hand_on_a_lazy_frame() -> None:
    """Five records: (m, 1) twice, (f, 2), (f, missing), (m, 3). Under the wildcard the
    blank matches (f, 2) only: fk = 2, 2, 2, 2, 1."""
    lf = pl.LazyFrame({"sex": ["m", "m", "f", "f", "m"], "age": [1, 1, 2, None, 3]})
    s = risk_summary(lf, ["sex", "age"], 2)
    assert (s["n_records"], s["n_at_risk"], s["n_unique"]) == (5, 1, 1)
    assert s["missing_qi_cells"] == 1
    assert s["expected_reidentifications"] == pytest.approx(4 * 0.5 + 1.0)
    assert s["max_risk"] == 1.0
    assert s["household"] is None and s["l_diversity"] == {}


@pytest.mark.parametrize(
    ("param", "value", "why"),
    [
        ("hid", "hh", "the household risk combines the individual risks"),
        ("sensitive", ["dis"], "l-diversity counts the sensitive values"),
    ],
)
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_risk_summary_refuses_what_needs_the_records_on_a_lazy_frame(
    engine: str, param: str, value: Any, why: str
) -> None:
    """The household risk and l-diversity need the records: refused by name, with the
    reason of the capability table and how to collect the frame; the same call on the
    collected frame works."""
    df = pd.DataFrame(
        {"sex": ["m", "f", "m"], "age": [1, 2, 1], "hh": [1, 1, 2], "dis": ["a", "b", "a"]}
    )
    lazy = pl.from_pandas(df).lazy() if engine == "polars" else duckdb.connect().from_df(df)
    with pytest.raises(InvalidParameterError) as info:
        risk_summary(lazy, ["sex", "age"], 2, **{param: value})
    err = info.value
    assert (err.func, err.param) == ("risk_summary", param)
    text = str(err)
    assert text.startswith(
        f"The '{param}' parameter of risk_summary is not supported on a lazy frame: {why}"
    )
    collect = "polars: .collect()" if engine == "polars" else "DuckDB: .pl() or .df()"
    assert text.endswith(f"Collect the frame first ({collect}) to use it.")
    collected = lazy.collect() if engine == "polars" else lazy.df()
    assert risk_summary(collected, ["sex", "age"], 2, **{param: value})[
        "household" if param == "hid" else "l_diversity"
    ]


def test_risk_summary_checks_a_lazy_frame_before_reading_a_row() -> None:
    """Column errors come from the schema, in the pandas order, before the refusal of
    a household id and before any count."""
    lf = pl.LazyFrame({"sex": ["m"], "age": [1]})
    with pytest.raises(ColumnNotFoundError) as info:
        risk_summary(lf, ["sex", "agee"], 2, hid="hh")
    assert info.value.param == "quasi_identifiers"
    with pytest.raises(ColumnNotFoundError) as info:
        risk_summary(lf, ["sex", "age"], 2, hid="hh")
    assert info.value.param == "hid"
    with pytest.raises(InvalidParameterError) as info:
        risk_summary(lf, ["sex", "age"], 0)
    assert info.value.param == "k"
