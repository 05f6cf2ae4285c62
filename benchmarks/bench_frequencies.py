"""Per-record sample frequency fk: microsdc against a pandas group-by, time and peak memory.

Reproduce:
    python benchmarks/bench_frequencies.py            # 1M and 10M rows
    python benchmarks/bench_frequencies.py --rows 1000000

Each case runs in a fresh subprocess pinned to one core (taskset, when available),
so peak memory is that of the case alone. Data: 6 categorical QIs with 18, 2, 7,
16, 41 and 14 categories drawn from skewed (Zipf-like) distributions, stored as
int64 columns; with "5 %" missing, each QI independently has 5 % of its cells
set to NaN (float64 columns then). microsdc's time includes encoding the
columns; pandas' is ``df.groupby(qi, dropna=False)[qi[0]].transform("size")``,
which does not treat a missing value as a wildcard (so with missing values the
two compute different things, and the ratio only says what the wildcard costs).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

CARDINALITIES = (18, 2, 7, 16, 41, 14)


def make_data(n_rows: int, p_missing: float, seed: int = 12345):  # type: ignore[no-untyped-def]
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    cols = {}
    for j, c in enumerate(CARDINALITIES):
        p = 1.0 / np.arange(1, c + 1) ** 0.8
        p /= p.sum()
        values = rng.choice(c, size=n_rows, p=p).astype(np.int64)
        if p_missing > 0:
            v = values.astype(np.float64)
            v[rng.random(n_rows) < p_missing] = np.nan
            cols[f"q{j}"] = v
        else:
            cols[f"q{j}"] = values
    return pd.DataFrame(cols)


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def run_case(engine: str, n_rows: int, p_missing: float, repeat: int) -> dict[str, float]:
    import resource

    df = make_data(n_rows, p_missing)
    qi = list(df.columns)
    if engine == "microsdc":
        from microsdc import sample_frequencies

        sample_frequencies(make_data(2000, p_missing, seed=1), qi)  # load compiled kernels

        def call():  # type: ignore[no-untyped-def]
            return sample_frequencies(df, qi)["fk"]
    else:

        def call():  # type: ignore[no-untyped-def]
            return df.groupby(qi, dropna=False)[qi[0]].transform("size")

    base = _rss_mb()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - t0)
        del out
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"time": min(times), "peak_mb": peak, "base_mb": base}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[1_000_000, 10_000_000])
    parser.add_argument("--missing", type=float, nargs="*", default=[0.0, 0.05])
    parser.add_argument("--case", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        engine, n, p, rep = args.case.split(":")
        print(json.dumps(run_case(engine, int(n), float(p), int(rep))))
        return
    env = dict(os.environ, NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    header = (
        f"{'rows':>11} {'missing':>8} | {'microsdc s':>10} {'peak MB':>8} | "
        f"{'pandas s':>9} {'peak MB':>8} | {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    for n in args.rows:
        for p in args.missing:
            repeat = 3 if n <= 2_000_000 else 1
            res = {}
            for engine in ("microsdc", "pandas"):
                cmd = [*pin, sys.executable, __file__, "--case", f"{engine}:{n}:{p}:{repeat}"]
                out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
                res[engine] = json.loads(out.stdout.strip().splitlines()[-1])
            ms, pd_ = res["microsdc"], res["pandas"]
            print(
                f"{n:>11,} {p:>7.0%} | {ms['time']:>10.2f} {ms['peak_mb']:>8.0f} | "
                f"{pd_['time']:>9.2f} {pd_['peak_mb']:>8.0f} | {ms['time'] / pd_['time']:>6.2f}"
            )
    print(
        "\ntime: best of 3 (1M) or one run (10M) after loading compiled kernels; one core.\n"
        "peak MB: peak resident memory of the whole process (data included).\n"
        "ratio: microsdc time / pandas time."
    )


if __name__ == "__main__":
    main()
