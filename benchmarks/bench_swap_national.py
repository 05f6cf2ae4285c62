"""Record swapping at national scale on one machine: Parquet in, swap, Parquet out.

Reproduce:
    python benchmarks/bench_swap_national.py                 # 1M and 10M households
    python benchmarks/bench_swap_national.py 2000000         # chosen sizes only

A synthetic census (``microsdc.synthetic_census``, about 3.5 persons per
household; hierarchy nuts1 > nuts2 > nuts3 > lau2, similar = hsize, swap rate
5 %, risk variables ageGroup + national, k = 3) is written to Parquet first (not
timed). Each size runs in a fresh subprocess, which reads the file with pyarrow,
swaps, and writes the result with pyarrow. The table gives the seconds of each
stage and the peak resident set of the process (``ru_maxrss``), and the peak per
million households. No cluster is needed at this size: the swap works on
integer columns held in memory, about 30 bytes a person per column.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SIZES = (1_000_000, 10_000_000)

CHILD = r"""
import json, resource, sys, time
import pyarrow.parquet as pq
from microsdc.swapping import record_swap

src, dst = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
data = pq.read_table(src).to_pandas()
t1 = time.perf_counter()
out = record_swap(data, hid="hid", hierarchy=["nuts1", "nuts2", "nuts3", "lau2"],
                  similar=["hsize"], swaprate=0.05, k_anonymity=3,
                  risk_variables=["ageGroup", "national"], seed=2021)
t2 = time.perf_counter()
pq.write_table(__import__("pyarrow").Table.from_pandas(out, preserve_index=False), dst)
t3 = time.perf_counter()
moved = int((out["nuts1"].to_numpy() != data["nuts1"].to_numpy()).sum())
print(json.dumps({"read": t1 - t0, "swap": t2 - t1, "write": t3 - t2, "persons": len(out),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "moved_nuts1": moved}))
"""


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or list(SIZES)
    print(f"cores: {os.cpu_count()}\n")
    print(
        "| households | persons | read s | swap s | write s | peak RSS MB | MB per 1M households |"
    )
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            src, dst = Path(tmp) / "census.parquet", Path(tmp) / "swapped.parquet"
            gen = (
                "import sys, pyarrow as pa, pyarrow.parquet as pq\n"
                "from microsdc.datasets import synthetic_census\n"
                f"d = synthetic_census({n}, seed=2021)\n"
                "pq.write_table(pa.Table.from_pandas(d, preserve_index=False), sys.argv[1])\n"
            )
            subprocess.run([sys.executable, "-c", gen, str(src)], check=True)
            proc = subprocess.run(
                [sys.executable, "-c", CHILD, str(src), str(dst)], capture_output=True, text=True
            )
            if proc.returncode != 0:
                print(f"| {n:,} | failed: {proc.stderr.strip().splitlines()[-1]} |")
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            print(
                f"| {n:,} | {r['persons']:,} | {r['read']:.1f} | {r['swap']:.1f} | "
                f"{r['write']:.1f} | {r['rss_mb']:,.0f} | {r['rss_mb'] / (n / 1e6):,.0f} |"
            )


if __name__ == "__main__":
    main()
