"""Local suppression under missing="probabilistic" on wide data with many categories.

Reproduce (from the repository root):

    python benchmarks/bench_probabilistic_wide.py                   # 2,000, 5,000, 10,000 rows
    python benchmarks/bench_probabilistic_wide.py --rows 5000 30000
    python benchmarks/bench_probabilistic_wide.py --missing wildcard probabilistic
    python benchmarks/bench_probabilistic_wide.py --step 2 5 --rows 5000   # fewer categories

Data: 10 quasi-identifiers with 500, 1,000, ..., 5,000 categories (with
``--step s``: s, 2s, ..., 10s categories), values drawn uniformly (seed
12345), stored as float64 columns with 30 % of the cells set to NaN
independently; k = 3, default importance. Almost every record is at risk on
such data. Each case runs in a fresh subprocess after a warm-up call on 300
rows that loads the compiled kernels, so the peak resident memory
(``ru_maxrss``) is that of the case alone, data included.
"calls" is the number of times the ``progress`` callback was called; "check"
is the number of records with fk < k after suppression, recounted by
``sample_frequencies`` under the same policy (0 expected).

Before and after the bounds of the probabilistic greedy (single columns and
pairs of columns, then a list of the compatible records for a record that
fails many counts); 2 cores shared with other work while timing, so the
seconds vary by about a third from run to run. The same cells are blanked
and no record is left at risk:

    categories   rows     cells blanked   before: s / peak MB   after: s / peak MB
    500-5,000    2,000         11,942        12.9 / 438              0.3 / 331
    500-5,000    5,000         29,918       103.9 / 389              0.8 / 268
    500-5,000    10,000        59,677       342.3 / 531              1.9 / 289
    500-5,000    30,000       179,681     not run (> 20 min)         7.1 / 385
    2-20         5,000         16,073        27.0 / 390              6.3 / 272
    2-20         10,000        29,157        76.1 / 512             19.6 / 393
    5-50         5,000         21,620        35.2 / 392              9.0 / 275
    5-50         10,000        41,164        88.3 / 514             24.5 / 339

The wildcard policy on the files of 500 to 5,000 categories: 0.4, 1.4 and
22.0 s at 5,000, 10,000 and 30,000 rows.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

N_QI = 10
P_MISSING = 0.3
K = 3


def make_data(n_rows: int, seed: int = 12345, step: int = 500):  # type: ignore[no-untyped-def]
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    cols = {}
    for j in range(N_QI):
        v = rng.integers(0, step * (j + 1), size=n_rows).astype(np.float64)
        v[rng.random(n_rows) < P_MISSING] = np.nan
        cols[f"q{j}"] = v
    return pd.DataFrame(cols)


def run_case(n_rows: int, missing: str, step: int) -> dict[str, float]:
    import resource

    import numpy as np

    from microsdc.risk import sample_frequencies
    from microsdc.suppression import local_suppression

    qi = [f"q{j}" for j in range(N_QI)]
    # warm-up: loads the compiled kernels (with and without a progress counter)
    local_suppression(make_data(300, seed=1), qi, K, missing=missing, progress=lambda d, t: None)
    df = make_data(n_rows, step=step)
    calls = []
    t0 = time.perf_counter()
    res = local_suppression(df, qi, K, missing=missing, progress=lambda d, t: calls.append(d))
    t_sup = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    fk = np.asarray(sample_frequencies(res.data, qi, missing=missing)["fk"], dtype=np.float64)
    return {
        "rows": n_rows,
        "time": t_sup,
        "peak_mb": peak,
        "cells": res.n_cells,
        "at_risk": res.n_at_risk_before,
        "after": res.n_at_risk_after,
        "check": int((fk < K - 1e-9).sum()),
        "calls": len(calls),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[2000, 5000, 10000])
    parser.add_argument("--missing", nargs="*", default=["probabilistic"])
    parser.add_argument(
        "--step", type=int, nargs="*", default=[500], help="QI j has step x (j + 1) categories"
    )
    parser.add_argument("--case", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case is not None:
        print(json.dumps(run_case(args.case, args.missing[0], args.step[0])))
        return
    print(f"local_suppression, k={K}, {N_QI} QIs, {P_MISSING:.0%} missing")
    print(f"cores: {os.cpu_count()}")
    print(
        "| categories | missing | rows | at risk before | cells blanked | at risk after | check "
        "| progress calls | time (s) | peak RSS (MB) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    runs = [(st, p, n) for st in args.step for p in args.missing for n in args.rows]
    for step, missing, n in runs:
        out = subprocess.run(
            [sys.executable, __file__, "--case", str(n), "--missing", missing, "--step", str(step)],
            capture_output=True,
            text=True,
            check=True,
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"| {step:,} to {step * N_QI:,} | {missing} | {n:,} | {r['at_risk']:,} "
            f"| {r['cells']:,} | {r['after']} "
            f"| {r['check']} | {r['calls']} | {r['time']:.1f} | {r['peak_mb']:,.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
