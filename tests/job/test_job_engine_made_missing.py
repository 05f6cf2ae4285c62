"""An engine job's ``key_variables[*].share_suppressed`` counts what the pandas job
counts: the cells that held a value (neither missing nor a declared code) and are
missing in the release, over those cells. Under ``risk.missing = "category"`` a
declared code is a value suppression may blank; blanking it leaves a missing cell
missing, so it is no cell made missing (it was counted so on an engine)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from microsdc.job import run_job

QI = ["a", "b"]
CODES = [-7, "?"]


def _run(
    tmp_path: Path, engine: str | None, qi: list[str] = QI, k: int = 2
) -> tuple[dict[str, Any], Path]:
    name = engine or "pandas"
    line = f'engine = "{engine}"' if engine else ""
    job = tmp_path / f"{name}.toml"
    job.write_text(
        f'steps = ["risk", "suppression"]\n[input]\npath = "in.parquet"\n{line}\n'
        'missing_values = [-7, "?"]\n'
        f"[variables]\nquasi_identifiers = {qi!r}\n".replace("'", '"')
        + f'[risk]\nk = {k}\nmissing = "category"\n[output]\ndirectory = "out_{name}"\n',
        encoding="utf-8",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_job(job)
    return result.audit, tmp_path / f"out_{name}" / "in_anonymised.parquet"


def _hand_frame() -> pd.DataFrame:
    """(-7, x) and (2, y) are unique; blanking their ``a`` (a declared code, then a
    value) joins each to the record whose ``a`` is empty, and no other single cell
    does: both routes blank these two cells."""
    return pd.DataFrame(
        {
            "a": pd.array([1, 1, 1, -7, None, 2, None, 3, 3], dtype="Int64"),
            "b": ["x", "x", "x", "x", "x", "y", "y", "y", "y"],
        }
    )


def _blanked(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    return before[QI].notna() & after[QI].isna()


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engine_and_pandas_count_the_same_cells_made_missing(tmp_path: Path, engine: str) -> None:
    pytest.importorskip(engine)
    pytest.importorskip("narwhals")
    df = _hand_frame()
    df.to_parquet(tmp_path / "in.parquet", index=False)
    audits, blanks = {}, {}
    for name in ("pandas", engine):
        audits[name], out = _run(tmp_path, None if name == "pandas" else engine)
        blanks[name] = _blanked(df, pd.read_parquet(out))
    # the same cells first: a of the code's record and of (2, y)
    assert blanks["pandas"].equals(blanks[engine])
    assert blanks["pandas"]["a"].tolist() == [False] * 3 + [True, False, True] + [False] * 3
    assert not blanks["pandas"]["b"].any()
    keys = {
        name: {kv["name"]: kv for kv in audit["key_variables"]} for name, audit in audits.items()
    }
    assert keys[engine] == keys["pandas"]
    a = keys["pandas"]["a"]
    # missing before: two empty cells and the code; after, the value 2 blanked as well
    assert (a["missing_before"], a["missing_after"], a["cells_changed"]) == (3, 4, 2)
    assert a["share_suppressed"] == pytest.approx(1 / 6)  # was 2 / 6 on the engine
    sup = {name: audit["suppression"] for name, audit in audits.items()}
    same = ("total", "share", "per_variable", "observed_before", "records_with_suppression")
    assert {k: sup[engine][k] for k in same} == {k: sup["pandas"][k] for k in same}
    # suppression counts the code blanked: under "category" it is a value of the file
    assert sup["pandas"]["per_variable"] == {"a": 2, "b": 0}
    assert sup["pandas"]["observed_before"] == {"a": 7, "b": 9}


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engine_share_suppressed_is_the_cells_of_its_own_release(
    tmp_path: Path, engine: str
) -> None:
    """On a larger file the engine may blank other cells than pandas (ties): its figure
    is checked against its own release, cell by cell."""
    pytest.importorskip(engine)
    pytest.importorskip("narwhals")
    import numpy as np

    rng = np.random.default_rng(4)
    n = 300
    df = pd.DataFrame(
        {
            "a": pd.array(rng.integers(0, 6, n), dtype="Int64"),
            "b": rng.choice(["x", "y", "z"], n).astype(object),
            "c": pd.array(rng.integers(0, 4, n), dtype="Int64"),
        }
    )
    for col, code in (("a", -7), ("b", "?"), ("c", -7)):
        df.loc[rng.random(n) < 0.12, col] = code
        df.loc[rng.random(n) < 0.08, col] = None
    df.to_parquet(tmp_path / "in.parquet", index=False)
    qi = ["a", "b", "c"]
    audit, out = _run(tmp_path, engine, qi, k=3)
    released = pd.read_parquet(out)
    valued = df[qi].notna() & ~df[qi].isin(CODES)
    made = valued & released[qi].isna()
    codes_blanked = (df[qi].isin(CODES) & released[qi].isna()).to_numpy().sum()
    assert codes_blanked > 0  # the case the figure went wrong on
    for kv in audit["key_variables"]:
        col = kv["name"]
        assert kv["share_suppressed"] == pytest.approx(made[col].sum() / valued[col].sum())
        assert kv["missing_after"] - kv["missing_before"] == made[col].sum()


def _pram_frame(tmp_path: Path) -> pd.DataFrame:
    import numpy as np

    rng = np.random.default_rng(7)
    n = 400
    df = pd.DataFrame(
        {
            "a": pd.array(rng.integers(0, 5, n), dtype="Int64"),
            "b": rng.choice(["x", "y", "z", "?"], n, p=[0.4, 0.3, 0.2, 0.1]).astype(object),
            "roof": rng.choice(["tin", "tile", "?"], n).astype(object),
        }
    )
    df.loc[rng.random(n) < 0.05, "b"] = None
    df.to_parquet(tmp_path / "in.parquet", index=False)
    return df


def _pram_job(tmp_path: Path, engine: str, variables: list[str], missing: str) -> dict[str, Any]:
    job = tmp_path / f"pram_{engine}.toml"
    job.write_text(
        f'steps = ["risk", "suppression", "pram"]\n[input]\npath = "in.parquet"\n'
        f'engine = "{engine}"\nmissing_values = [-7, "?"]\n'
        '[variables]\nquasi_identifiers = ["a", "b"]\n[risk]\nk = 3\nmissing = "category"\n'
        f"[pram]\nvariables = {variables!r}\n".replace("'", '"')
        + f'missing = "{missing}"\npd = 0.5\nseed = 4\n[output]\ndirectory = "out_{engine}"\n',
        encoding="utf-8",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_job(job).audit


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("missing", ["keep", "state"])
def test_engine_leaves_out_the_share_of_a_key_variable_pram_changed(
    tmp_path: Path, engine: str, missing: str
) -> None:
    """PRAM of a key variable after suppression can draw a declared code (or, with its
    missing values as a state, a missing value) for a value and a value for a blanked
    cell: the engine, which does not see the cells, leaves that share out and says so,
    and the report says "not computed"."""
    pytest.importorskip(engine)
    pytest.importorskip("narwhals")
    jsonschema = pytest.importorskip("jsonschema")
    from microsdc.report import audit_schema, render_report

    df = _pram_frame(tmp_path)
    audit = _pram_job(tmp_path, engine, ["b"], missing)
    jsonschema.Draft202012Validator(audit_schema()).validate(audit)
    keys = {kv["name"]: kv for kv in audit["key_variables"]}
    assert keys["b"]["share_suppressed"] is None
    assert any("share of cells suppressed in b" in s for s in audit["not_computed"])
    assert "not computed" in render_report(audit)
    released = pd.read_parquet(tmp_path / f"out_{engine}" / "in_anonymised.parquet")
    valued = df["a"].notna() & ~df["a"].isin(CODES)
    made = valued & released["a"].isna()
    assert keys["a"]["share_suppressed"] == pytest.approx(made.sum() / valued.sum())


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engine_counts_every_share_when_pram_leaves_the_key_variables(
    tmp_path: Path, engine: str
) -> None:
    pytest.importorskip(engine)
    pytest.importorskip("narwhals")
    df = _pram_frame(tmp_path)
    audit = _pram_job(tmp_path, engine, ["roof"], "keep")
    released = pd.read_parquet(tmp_path / f"out_{engine}" / "in_anonymised.parquet")
    assert not any("share of cells suppressed" in s for s in audit["not_computed"])
    for kv in audit["key_variables"]:
        col = kv["name"]
        valued = df[col].notna() & ~df[col].isin(CODES)
        made = valued & released[col].isna()
        assert kv["share_suppressed"] == pytest.approx(made.sum() / valued.sum())
