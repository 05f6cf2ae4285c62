"""Benchmark of targeted record swapping on synthetic censuses.

Reproduce with::

    python benchmarks/bench_swap.py            # 10k, 100k and 1M households
    python benchmarks/bench_swap.py 10000      # chosen sizes only

Settings: hierarchy nuts1 > nuts2 > nuts3 > lau2, similar = hsize, swaprate 0.05,
risk variables ageGroup + national, k = 0 and k = 3. Each (size, k) case runs in a
fresh subprocess: the census is generated first (not timed), a tiny swap loads the
compiled kernels, then the swap is timed (median of 3 runs). Memory is reported two
ways: the growth of the process peak resident set (``ru_maxrss``) over the
baseline after generation and warm-up, and the peak of memory allocated during
one swap as traced by ``tracemalloc`` (numpy and Python allocations).
"""

from __future__ import annotations

import json
import subprocess
import sys

SIZES = (10_000, 100_000, 1_000_000)
KS = (0, 3)

CHILD = r"""
import gc, json, resource, statistics, sys, time, tracemalloc
from microsdc.datasets import synthetic_census
from microsdc.swapping import record_swap

n, k = int(sys.argv[1]), int(sys.argv[2])
kw = dict(hid="hid", hierarchy=["nuts1", "nuts2", "nuts3", "lau2"], similar=["hsize"],
          swaprate=0.05, k_anonymity=k, risk_variables=["ageGroup", "national"])
record_swap(synthetic_census(500, seed=0), seed=0, **kw)  # load compiled kernels
data = synthetic_census(n, seed=2021)
gc.collect()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
times = []
for rep in range(3):
    t0 = time.perf_counter()
    out = record_swap(data, seed=rep, **kw)
    times.append(time.perf_counter() - t0)
    del out
    gc.collect()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
out = record_swap(data, seed=0, **kw)
traced = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
print(json.dumps({"households": n, "persons": len(data), "k": k,
                  "seconds": statistics.median(times),
                  "rss_mb": (peak - base) / 1024, "traced_mb": traced / 2**20}))
"""


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or list(SIZES)
    print(
        f"{'households':>10} {'persons':>10} {'k':>2} {'wall s':>8} "
        f"{'peak RSS +MB':>13} {'traced MB':>10}"
    )
    for n in sizes:
        for k in KS:
            proc = subprocess.run(
                [sys.executable, "-c", CHILD, str(n), str(k)],
                capture_output=True,
                text=True,
                check=True,
            )
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            print(
                f"{r['households']:>10,} {r['persons']:>10,} {r['k']:>2} {r['seconds']:>8.3f} "
                f"{r['rss_mb']:>13.0f} {r['traced_mb']:>10.0f}",
                flush=True,
            )
    print(
        "wall s: median of 3 swaps, census generation excluded; peak RSS +MB: growth of "
        "ru_maxrss over the baseline after generation; traced MB: tracemalloc peak of one swap."
    )


if __name__ == "__main__":
    main()
