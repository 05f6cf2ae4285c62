"""What the engine's read-back check costs: local suppression of a Parquet file on polars
and DuckDB with other columns beside the key variables (the check runs), next to the same
file with the key variables only (nothing to check) and next to pandas (which runs
``recoverable_cells`` on the records), in the same run.

Reproduce (from the repository root; needs ``pip install -e ".[polars,duckdb]"``):

    python benchmarks/bench_engine_readback.py                 # 1,000,000 rows
    python benchmarks/bench_engine_readback.py --rows 200000

Data: 6 key variables drawn Zipf-like (P(value r) proportional to r^-1.6) and capped at
100, 2, 400, 6, 8 and 50 categories, seed 1; four other columns: ``id`` (a value per
record: it gives nothing back and is left out after one count of distinct values),
``amount`` (log-normal, 2 decimals: nearly one value per record), ``code_a`` (a
one-to-one code of the third key variable: it gives back every blanked cell of it) and
``code_b`` (20 values drawn at random). k = 3 under the default policy. Each case runs in
its own subprocess after a warm-up call on 2,000 rows (the kernels compiled), and the
table gives wall seconds of the ``local_suppression`` call, the cells blanked and the
pairs found.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

CARDINALITIES = (100, 2, 400, 6, 8, 50)
QI = [f"q{i}" for i in range(len(CARDINALITIES))]

CHILD = r"""
import json, sys, time, warnings
import microsdc
path, engine, keys_only = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
qi = json.loads(sys.argv[4])
warnings.simplefilter("ignore")

def frame(p):
    if engine == "polars":
        import polars as pl
        lf = pl.scan_parquet(p)
        return lf.select(qi) if keys_only else lf
    if engine == "duckdb":
        import duckdb
        rel = duckdb.read_parquet(p)
        return rel.select(*qi) if keys_only else rel
    import pandas as pd
    df = pd.read_parquet(p)
    return df[qi] if keys_only else df

small = path.replace(".parquet", "_small.parquet")
microsdc.local_suppression(frame(small), qi, 3)
data = frame(path)
t = time.perf_counter()
res = microsdc.local_suppression(data, qi, 3)
seconds = time.perf_counter() - t
pairs = [f"{r['key_variable']}<-{r['column']}" for r in res.details.get("recoverable") or []]
print(json.dumps({"seconds": seconds, "cells": int(res.n_cells), "pairs": pairs}))
"""


def make_parquet(rows: int, folder: Path) -> Path:
    import numpy as np
    import pandas as pd

    for n, name in ((rows, "data.parquet"), (2000, "data_small.parquet")):
        rng = np.random.default_rng(1)
        keys = zip(QI, CARDINALITIES, strict=True)
        df = pd.DataFrame({q: rng.zipf(1.6, n).clip(max=c).astype("int64") for q, c in keys})
        df["id"] = np.arange(n)
        df["amount"] = rng.lognormal(8, 1, n).round(2)
        df["code_a"] = df["q2"] * 7 + 3
        df["code_b"] = rng.integers(0, 20, n)
        df.to_parquet(folder / name)
    return folder / "data.parquet"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--engines", default="pandas,polars,duckdb")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = make_parquet(args.rows, Path(tmp))
        print(f"{args.rows:,} rows, 6 key variables, k = 3")
        print(f"{'engine':8} {'columns':22} {'seconds':>8} {'cells':>10}  pairs found")
        for engine in args.engines.split(","):
            for keys_only in (True, False):
                out = subprocess.run(
                    [sys.executable, "-c", CHILD, str(path), engine, "1" if keys_only else "0",
                     json.dumps(QI)],
                    capture_output=True, text=True, check=True,
                )  # fmt: skip
                got = json.loads(out.stdout.strip().splitlines()[-1])
                what = "key variables only" if keys_only else "+ id, amount, codes"
                print(
                    f"{engine:8} {what:22} {got['seconds']:8.2f} {got['cells']:10,}  "
                    f"{', '.join(got['pairs']) or '-'}"
                )


if __name__ == "__main__":
    main()
