"""``microsdc suppress --engine``: without ``--random-order`` the release keeps the
input's row order, which the engine cannot check (it does not read the records), so
the command warns; with ``--random-order`` the engine writes the released rows in the
order of a hash of their values, so a file sorted by a key variable gives no blanked
value back through its neighbours, and the order says nothing of the input's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_runner import run_cli

pytest.importorskip("duckdb")
pytest.importorskip("polars")
pytest.importorskip("narwhals")

ENGINES = ["duckdb", "polars"]


def _input(path: Path, order: str) -> pd.DataFrame:
    """3,000 records (``id`` 0 to 2,999, drawn in that order) sorted by ``order`` (rare
    ages get blanked)."""
    rng = np.random.default_rng(1)
    n = 3000
    df = pd.DataFrame(
        {
            "id": np.arange(n),
            "age": rng.integers(16, 90, n),
            "sex": rng.choice(["f", "m"], n),
            "edu": rng.choice(list("abcdefgh"), n),
        }
    )
    df = df.sort_values(order, kind="stable").reset_index(drop=True)
    df.to_csv(path, index=False)
    return df


def _suppress(
    capsys: pytest.CaptureFixture[str], src: Path, out: Path, engine: str, *extra: str
) -> str:
    args = ["suppress", str(src), "--qi", "age,sex,edu", "-k", "3", "--engine", engine]
    code, stdout, stderr = run_cli([*args, *extra, "--out", str(out)], capsys)
    assert code == 0, stdout + stderr
    return " ".join((stdout + stderr).split())


def _given_back(before: pd.Series, after: pd.Series) -> tuple[int, int]:
    """(blanked ages, those the previous or next released age equals), as an intruder
    counts them on the file sorted by age."""
    truth, seen = before.to_numpy(), after.to_numpy(dtype=float)
    blanked = np.flatnonzero(np.isnan(seen))
    above = np.where(blanked > 0, seen[np.maximum(blanked - 1, 0)], np.nan)
    below = np.where(blanked < len(seen) - 1, seen[np.minimum(blanked + 1, len(seen) - 1)], np.nan)
    hit = (above == truth[blanked]) | (below == truth[blanked])
    return len(blanked), int(hit.sum())


def _rows(df: pd.DataFrame) -> list[tuple]:
    return sorted(map(tuple, df.astype(object).where(df.notna(), None).values), key=repr)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_engine_route_warns_that_the_row_order_was_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: str
) -> None:
    before = _input(tmp_path / "sorted.csv", "age")
    said = _suppress(capsys, tmp_path / "sorted.csv", tmp_path / "kept.parquet", engine)
    kept = pd.read_parquet(tmp_path / "kept.parquet")
    n_blanked, hit = _given_back(before["age"], kept["age"])
    assert n_blanked > 0 and hit >= 0.8 * n_blanked  # what the warning is about
    assert "The release keeps the input's row order" in said
    assert f"Not checked here ({engine} does not read the records)" in said
    assert "--random-order" in said
    said = _suppress(
        capsys, tmp_path / "sorted.csv", tmp_path / "shuffled.parquet", engine, "--random-order"
    )
    assert "row order" not in said


@pytest.mark.parametrize("engine", ENGINES)
def test_random_order_on_an_engine_hides_the_input_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: str
) -> None:
    by_age = _input(tmp_path / "by_age.csv", "age")
    _input(tmp_path / "by_edu.csv", "edu")
    _suppress(capsys, tmp_path / "by_age.csv", tmp_path / "kept.parquet", engine)
    for name in ("by_age", "by_edu"):
        src, out = tmp_path / f"{name}.csv", tmp_path / f"{name}.parquet"
        _suppress(capsys, src, out, engine, "--random-order")
    kept = pd.read_parquet(tmp_path / "kept.parquet")
    first = pd.read_parquet(tmp_path / "by_age.parquet")
    second = pd.read_parquet(tmp_path / "by_edu.parquet")
    assert _rows(first) == _rows(kept)  # exactly the released rows
    pd.testing.assert_frame_equal(first, second)  # the same file from either input order
    n_blanked, _ = _given_back(by_age["age"], kept["age"])
    # the intruder's count on the random-order file: the blanked rows' true ages are
    # those of the sorted input where the released age is missing, matched by row
    truth_of = by_age.set_index("id")["age"]
    seen = first["age"].to_numpy(dtype=float)
    blanked = np.flatnonzero(np.isnan(seen))
    assert len(blanked) == n_blanked > 0
    truth = truth_of.loc[first["id"].to_numpy()[blanked]].to_numpy()
    above = np.where(blanked > 0, seen[np.maximum(blanked - 1, 0)], np.nan)
    below = np.where(blanked < len(seen) - 1, seen[np.minimum(blanked + 1, len(seen) - 1)], np.nan)
    hit = int(((above == truth) | (below == truth)).sum())
    assert hit <= n_blanked // 10  # chance matches only (most of them in the input order)
