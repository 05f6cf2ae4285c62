"""Time of the read-back check that local suppression runs after blanking.

Reproduce:
    python benchmarks/bench_linked.py

Synthetic frames: 6 key variables (8 values each) with 1 % of their cells blanked, and 6 other
columns (integers 0-49 and normal floats), plus one column that is a code of the first key
variable (its blanked cells are all read back). Prints the time of
``recoverable_cells`` and of ``linked_columns`` per size.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from microsdc.risk.linked import linked_columns, recoverable_cells


def frames(n: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({f"q{i}": rng.integers(0, 8, n) for i in range(6)})
    for j in range(6):
        df[f"x{j}"] = rng.normal(size=n) if j % 2 else rng.integers(0, 50, n)
    df["code"] = df["q0"] * 10
    released = df.copy()
    for i in range(6):
        released[f"q{i}"] = released[f"q{i}"].mask(rng.random(n) < 0.01)
    return df, released


def main() -> None:
    keys = [f"q{i}" for i in range(6)]
    print(f"{'rows':>10} | {'recoverable_cells s':>19} | {'linked_columns s':>16} | read back")
    for n in (10_000, 100_000, 1_000_000):
        df, released = frames(n)
        t0 = time.perf_counter()
        found = recoverable_cells(df, released, keys)
        t1 = time.perf_counter()
        linked_columns(df, keys)
        t2 = time.perf_counter()
        pairs = ", ".join(f"{r.key_variable}<-{r.column}" for r in found.itertuples())
        print(f"{n:>10,} | {t1 - t0:>19.2f} | {t2 - t1:>16.2f} | {pairs}")


if __name__ == "__main__":
    main()
