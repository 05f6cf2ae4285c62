"""Local suppression at scale: time, peak memory and cells blanked, next to a pandas group-by.

Reproduce (from the repository root):

    python benchmarks/bench_suppression_scale.py            # 300,000 and 1,000,000 rows
    python benchmarks/bench_suppression_scale.py --big      # also 10,000,000 rows
    python benchmarks/bench_suppression_scale.py --rows 300000
    python benchmarks/bench_suppression_scale.py --missing wildcard   # the wildcard greedy

Data: 6 categorical QIs with 20, 2, 5, 7, 16 and 40 categories, values drawn
uniformly or skewed (Zipf-like, P(value r) proportional to 1 / r), seed
12345, stored as float64 columns with 2 % of the cells of each QI set to NaN
independently; k = 3, default importance, missing values under ``--missing``:
``"category"`` by default (the library's default: a blank is one more value),
``"wildcard"`` for the hash-table greedy of the wildcard policy.
Uniform values spread 10M records over the 896,000 combinations, so none is
at risk there; the skewed values keep records at risk at every size. Each
case runs in a fresh subprocess (after a warm-up call on 2,000 rows that
loads the compiled kernels), so the peak resident memory
(``ru_maxrss``) is that of the case alone, data included. "pandas" is
``df.groupby(qi, dropna=False)[qi[0]].transform("size")`` in the same
process: a plain count of exact patterns, for scale only (it neither treats a
missing value as a wildcard nor suppresses anything).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CARDINALITIES = (20, 2, 5, 7, 16, 40)
P_MISSING = 0.02
K = 3


def make_data(n_rows: int, seed: int = 12345, dist: str = "uniform"):  # type: ignore[no-untyped-def]
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    cols = {}
    for j, c in enumerate(CARDINALITIES):
        if dist == "uniform":
            v = rng.integers(0, c, size=n_rows).astype(np.float64)
        else:
            p = 1.0 / np.arange(1, c + 1)
            v = rng.choice(c, size=n_rows, p=p / p.sum()).astype(np.float64)
        v[rng.random(n_rows) < P_MISSING] = np.nan
        cols[f"q{j}"] = v
    return pd.DataFrame(cols)


def run_case(n_rows: int, dist: str, missing: str) -> dict[str, float]:
    import resource

    from microsdc.suppression import local_suppression

    warm = make_data(2000, seed=1)
    local_suppression(warm, [f"q{j}" for j in range(6)], K, missing=missing)  # warm-up
    df = make_data(n_rows, dist=dist)
    qi = list(df.columns)
    t0 = time.perf_counter()
    df.groupby(qi, dropna=False)[qi[0]].transform("size")
    t_pandas = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = local_suppression(df, qi, K, missing=missing)
    t_sup = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "rows": n_rows,
        "time": t_sup,
        "pandas": t_pandas,
        "peak_mb": peak,
        "cells": res.n_cells,
        "at_risk": res.n_at_risk_before,
        "after": res.n_at_risk_after,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=None)
    parser.add_argument("--big", action="store_true", help="add 10,000,000 rows")
    parser.add_argument("--dist", nargs="*", default=["uniform", "zipf"])
    parser.add_argument("--missing", choices=["category", "wildcard"], default="category")
    parser.add_argument("--case", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case is not None:
        print(json.dumps(run_case(args.case, args.dist[0], args.missing)))
        return
    sizes = args.rows or [300_000, 1_000_000]
    if args.big:
        sizes.append(10_000_000)
    print(
        f"local_suppression, k={K}, missing={args.missing!r}, 6 QIs {CARDINALITIES}, "
        f"{P_MISSING:.0%} missing per QI"
    )
    print(f"cores: {os.cpu_count()}")
    print(
        "| values | rows | at risk before | cells blanked | at risk after | time (s) "
        "| pandas group-by (s) | ratio | peak RSS (MB) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for dist, n in [(d, n) for d in args.dist for n in sizes]:
        out = subprocess.run(
            [sys.executable, __file__, "--case", str(n), "--dist", dist, "--missing", args.missing],
            capture_output=True,
            text=True,
            check=True,
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"| {dist} | {n:,} | {r['at_risk']:,} | {r['cells']:,} | {r['after']} "
            f"| {r['time']:.2f} | {r['pandas']:.2f} | {r['time'] / r['pandas']:.1f} "
            f"| {r['peak_mb']:,.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
