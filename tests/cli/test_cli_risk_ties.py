"""``microsdc risk`` lists the same riskiest key combinations on every engine when
many combinations tie on fk and count: the order breaks ties by the key values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_runner import run_cli

pytest.importorskip("narwhals")


def _table(out: str) -> list[str]:
    """The rows of the riskiest-combinations table (header first), cells joined by one
    space."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if "riskiest key combinations" in line)
    rows = []
    for line in lines[start + 1 :]:
        if line.startswith("└"):
            break
        if line.startswith(("┃", "│")):
            cells = [c.strip() for c in line.replace("┃", "│").split("│")]
            rows.append(" ".join(c for c in cells if c))
    return rows


def _ties(path: Path) -> None:
    rng = np.random.default_rng(3)
    n = 2000
    pd.DataFrame(
        {
            "region": rng.choice([f"r{i:03d}" for i in range(300)], n),
            "job": rng.choice(np.array(["clerk", "farmer", "nurse", None], dtype=object), n),
            "age": rng.integers(20, 70, n),
            "w": rng.choice([1.5, 2.0, 2.5], n),
        }
    ).to_parquet(path)


@pytest.mark.parametrize("weighted", [False, True], ids=["fk", "Fk"])
def test_the_riskiest_rows_are_the_same_on_every_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], weighted: bool
) -> None:
    src = tmp_path / "ties.parquet"
    _ties(src)
    args = ["risk", str(src), "--qi", "region,job,age", "-k", "3", "--top", "15"]
    args += ["--weight", "w"] if weighted else []
    tables = {}
    for engine in ("pandas", "duckdb", "polars"):
        if engine != "pandas":
            pytest.importorskip(engine)
        code, out, err = run_cli([*args, "--engine", engine], capsys)
        assert code == 0, err
        tables[engine] = _table(out)
    want = tables["pandas"]
    assert len(want) == 16  # the header and 15 combinations
    assert want[0].startswith("region job age records fk")
    assert tables["duckdb"] == want
    assert tables["polars"] == want
    # every listed combination is unique (fk = 1): the key values decide, region first
    regions = [row.split()[0] for row in want[1:]]
    assert regions == sorted(regions)
