"""Per-record sample frequency fk: microsdc against a pandas group-by, time and peak memory.

Reproduce:
    python benchmarks/bench_frequencies.py                 # 1M rows (and the many-masks cases)
    python benchmarks/bench_frequencies.py --big           # also 10M rows
    python benchmarks/bench_frequencies.py --rows 200000 --cases 6qi

Cases (issue 8): 6 QIs of 100, 2, 400, 6, 8, 50 categories; 8 QIs of 90, 2, 5, 7, 16,
41, 9, 15 (adult-like); 12 QIs of 2 to 60 categories (wide); each at 0 %, 5 % and 20 %
missing per QI, uniform and skewed (Zipf-like) values. Many masks: 20 QIs of 3
categories at 30 % missing, 20,000 and 200,000 rows, every policy. Columns are nullable
``Int64`` (a blanked integer column as a user holds it).

Each case runs in a fresh subprocess. In it, microsdc's ``sample_frequencies`` (encoding
included, after calls on small data that load every counting kernel) and pandas
``df.groupby(qi, dropna=False).size()`` are timed in the same process (CPU seconds, best
of 3; 1 run at 10M rows). pandas does not treat a missing value as a wildcard, so with
missing values the ratio says what the wildcard costs over a plain group-by. Peak memory
is microsdc's: the peak resident size of the subprocess after microsdc ran (before
pandas), minus the resident size once the data were built; ``--pandas-memory`` measures
pandas alone in one more subprocess.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CASES = {
    "6qi": (100, 2, 400, 6, 8, 50),
    "8qi": (90, 2, 5, 7, 16, 41, 9, 15),
    "12qi": (2, 3, 4, 6, 8, 10, 12, 16, 20, 30, 45, 60),
    "masks": (3,) * 20,
}


def make_data(case: str, n_rows: int, p_missing: float, dist: str, seed: int = 12345):  # type: ignore[no-untyped-def]
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    cols = {}
    for j, c in enumerate(CASES[case]):
        if dist == "zipf":
            p = 1.0 / np.arange(1, c + 1) ** 1.1
            p /= p.sum()
            values = rng.choice(c, size=n_rows, p=p)
        else:
            values = rng.integers(0, c, size=n_rows)
        arr = pd.array(values, dtype="Int64")
        if p_missing > 0:
            arr[rng.random(n_rows) < p_missing] = pd.NA
        cols[f"q{j}"] = arr
    return pd.DataFrame(cols)


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _warm_up(case: str, p_missing: float, dist: str, pol: object) -> None:
    """Load (or compile, after a change) every counting kernel on small data, so that
    the timed call pays none: the route of the big call may differ from the small one's."""
    from microsdc import sample_frequencies
    from microsdc._core.policy import parse_policy
    from microsdc.encode import encode_qis
    from microsdc.risk.frequencies import frequencies_from_codes

    small = make_data(case, 3000, max(p_missing, 0.05), dist, seed=1)
    sample_frequencies(small, list(small.columns), missing=pol)  # type: ignore[arg-type]
    enc = encode_qis(small, list(small.columns))
    policy = parse_policy(pol, "sample_frequencies")
    for route in ("pairs", "bitset", "split"):
        if route == "split" and policy.kind not in ("wildcard", "alpha"):
            continue
        frequencies_from_codes(enc.codes, enc.n_categories, policy=policy, route=route)


def run_case(spec: str) -> dict[str, float]:
    import resource

    engine, case, n, p, dist, policy, repeat = spec.split(":")
    n_rows, p_missing, n_repeat = int(n), float(p), int(repeat)
    pol: object = float(policy) if policy[0].isdigit() else policy
    df = make_data(case, n_rows, p_missing, dist)
    qi = list(df.columns)
    from microsdc import sample_frequencies

    if engine != "pandas":
        _warm_up(case, p_missing, dist, pol)

    def ours():  # type: ignore[no-untyped-def]
        return sample_frequencies(df, qi, missing=pol)["fk"]  # type: ignore[arg-type]

    def theirs():  # type: ignore[no-untyped-def]
        return df.groupby(qi, dropna=False).size()

    def best(call):  # type: ignore[no-untyped-def]
        times = []
        for _ in range(n_repeat):
            t0 = time.process_time()
            out = call()
            times.append(time.process_time() - t0)
            del out
            if times[-1] > 10.0:  # slow cases: one run
                break
        return min(times)

    def peak() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - base

    base = _rss_mb()
    res: dict[str, float] = {}
    if engine in ("microsdc", "both"):
        res["microsdc"] = best(ours)
        res["microsdc_peak_mb"] = peak()
    if engine in ("pandas", "both"):
        res["pandas"] = best(theirs)
        res["pandas_peak_mb"] = peak()
    return res


def _sub(spec: str) -> dict[str, float]:
    env = dict(os.environ, NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    cmd = [sys.executable, __file__, "--spec", spec]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[1_000_000])
    parser.add_argument("--big", action="store_true", help="also 10,000,000 rows")
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    parser.add_argument("--missing", type=float, nargs="*", default=[0.0, 0.05, 0.2])
    parser.add_argument("--dist", nargs="*", default=["uniform", "zipf"])
    parser.add_argument(
        "--policies", nargs="*", default=["wildcard", "0.5", "conservative", "category"]
    )
    parser.add_argument(
        "--pandas-memory", action="store_true", help="also measure pandas' peak (one more run)"
    )
    parser.add_argument("--spec", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.spec:
        print(json.dumps(run_case(args.spec)))
        return
    rows = list(args.rows) + ([10_000_000] if args.big else [])
    print(f"cores (nproc): {os.cpu_count()}")
    header = (
        f"{'case':>5} {'rows':>10} {'miss':>5} {'dist':>7} {'policy':>12} | "
        f"{'microsdc s':>10} {'peak MB':>8} | {'pandas s':>8} {'peak MB':>8} | {'ratio':>5}"
    )
    print(header)
    print("-" * len(header))
    runs = []
    for case in args.cases:
        if case == "masks":
            for n in (20_000, 200_000):
                for pol in args.policies:
                    runs.append((case, n, 0.3, "uniform", pol))
            continue
        for n in rows:
            for p in args.missing:
                for dist in args.dist:
                    runs.append((case, n, p, dist, "wildcard"))
    for case, n, p, dist, pol in runs:
        repeat = 3 if n <= 2_000_000 else 1
        both = _sub(f"both:{case}:{n}:{p}:{dist}:{pol}:{repeat}")
        mem_ours = both["microsdc_peak_mb"]
        if args.pandas_memory:
            mem_pd = _sub(f"pandas:{case}:{n}:{p}:{dist}:{pol}:1")["pandas_peak_mb"]
        else:
            mem_pd = float("nan")
        ratio = both["microsdc"] / max(both["pandas"], 1e-9)
        print(
            f"{case:>5} {n:>10,} {p:>5.0%} {dist:>7} {pol:>12} | {both['microsdc']:>10.2f} "
            f"{mem_ours:>8.0f} | {both['pandas']:>8.2f} {mem_pd:>8.0f} | {ratio:>5.2f}",
            flush=True,
        )
    print(
        "\ntime: CPU seconds, best of 3 (one run at 10M rows), encoding included, compiled\n"
        "kernels loaded first; microsdc and pandas timed in the same process.\n"
        "peak MB: peak resident memory above the data (microsdc before pandas ran; pandas\n"
        "in a process of its own, with --pandas-memory).\n"
        "ratio: microsdc time / pandas time."
    )


if __name__ == "__main__":
    main()
