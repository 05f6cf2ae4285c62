"""Benchmark of PRAM inside the lazy engines against pandas, on the same data.

Reproduce with::

    python benchmarks/bench_pram_engines.py            # 1,000,000 rows
    python benchmarks/bench_pram_engines.py 200000     # another size

Data: three categorical variables with 5, 8 and 12 equally likely categories and a
stratum variable with 10 values (integers), PRAMmed within strata with pd = 0.8,
alpha = 0.5, as ``bench_pram.py``. pandas: ``pram`` on the pandas frame. polars: on a
``LazyFrame``, the release collected. DuckDB: on a relation over an in-memory arrow
table, the release fetched as arrow. Median of 3 runs after one warm-up, and a check
that each engine released the same values as pandas.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np
import pandas as pd


def _time(run, reps: int = 3) -> tuple[float, object]:
    run()
    times, out = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main(n: int) -> None:
    import duckdb
    import polars as pl

    from microsdc import pram

    rng = np.random.default_rng(1)
    df = pd.DataFrame({"v1": rng.integers(0, 5, n), "v2": rng.integers(0, 8, n),
                       "v3": rng.integers(0, 12, n), "s": rng.integers(0, 10, n)})  # fmt: skip
    kw = dict(strata="s", pd=0.8, alpha=0.5, seed=7)
    cols = ["v1", "v2", "v3"]
    lf = pl.from_pandas(df).lazy()
    table = pl.from_pandas(df).to_arrow()
    rel = duckdb.from_arrow(table)
    t_pd, want = _time(lambda: pram(df, cols, **kw).data)
    t_pl, got_pl = _time(lambda: pram(lf, cols, **kw).data.collect())
    t_dd, got_dd = _time(lambda: pram(rel, cols, **kw).data.to_arrow_table())
    same_pl = got_pl.to_pandas().equals(want)
    same_dd = got_dd.to_pandas().equals(want)
    print(f"rows={n:,} x 3 variables (5, 8, 12 categories), 10 strata")
    print(f"pandas : {t_pd:6.2f} s")
    print(f"polars : {t_pl:6.2f} s  (LazyFrame, collected)  same values as pandas: {same_pl}")
    print(f"DuckDB : {t_dd:6.2f} s  (relation, fetched)     same values as pandas: {same_dd}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
