"""Cost of reporting the progress of local suppression.

Reproduce (from the repository root):

    python benchmarks/bench_progress.py
    python benchmarks/bench_progress.py --rows 100000 500000 --repeats 3

Synthetic data: six uniformly drawn categorical key variables with 6 to 11
categories, k = 3, missing values as wildcards; below 400,000 records the
greedy uses its bit-set kernel, above it the hash-table kernel. Each size
runs ``local_suppression`` without and with a ``progress=`` callback (a
helper thread reads the kernels' record counter five times a second) after
one warm-up run that loads the compiled kernels; the best of ``--repeats``
wall-clock times is shown, with the number of progress reports received.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from microsdc import local_suppression


def frame(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({f"q{j}": rng.integers(0, 6 + j, n) for j in range(6)})


def best(df: pd.DataFrame, repeats: int, with_progress: bool) -> tuple[float, int, int]:
    """Best wall-clock time, progress reports of the last run, records at risk."""
    times, reports, at_risk = [], 0, 0
    for _ in range(repeats):
        calls: list[tuple[int, int]] = []

        def record(done: int, total: int, calls: list[tuple[int, int]] = calls) -> None:
            calls.append((done, total))

        t0 = time.perf_counter()
        res = local_suppression(df, list(df.columns), 3, progress=record if with_progress else None)
        times.append(time.perf_counter() - t0)
        reports, at_risk = len(calls), res.n_at_risk_before
    return min(times), reports, at_risk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[50_000, 200_000, 500_000])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    local_suppression(frame(2_000), [f"q{j}" for j in range(6)], 3, progress=lambda d, t: None)
    print(f"{'records':>10} {'at risk':>9} {'without (s)':>12} {'with (s)':>9} {'reports':>8}")
    for n in args.rows:
        df = frame(n)
        plain, _, at_risk = best(df, args.repeats, False)
        timed, reports, _ = best(df, args.repeats, True)
        print(f"{n:>10,} {at_risk:>9,} {plain:>12.2f} {timed:>9.2f} {reports:>8,}")


if __name__ == "__main__":
    main()
