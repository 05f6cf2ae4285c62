"""A whole job (risk, local suppression to k = 3, audit record, report) on the same Parquet
data through pandas, polars and DuckDB: time, peak memory, equality of the releases.

Reproduce (needs ``pip install -e ".[polars,duckdb]"``):
    python benchmarks/bench_job_engine.py                  # 1M rows, every engine
    python benchmarks/bench_job_engine.py --rows 200000 --engines pandas,duckdb

Data: the file of ``bench_backends.py`` (6 QIs with 100, 2, 400, 6, 8 and 50
categories, uniform, 5 % missing per QI), in a folder. The pandas job reads the
file into memory (``input.path`` is the file); the engine jobs read the folder
(``input.engine``) and the engine writes the released Parquet file. Each job
runs in its own subprocess (``microsdc.job.run_job``), so its peak RSS is its
own. The table gives wall seconds of the whole job (reading, both risk
measurements, suppression, report, writing), peak RSS, the cells suppressed,
and whether the released file equals the pandas job's (compared as counts per
distinct released QI tuple, since DuckDB writes in its own order).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_backends import QI, make_parquet

JOB = """steps = ["risk", "suppression"]
[input]
path = "{path}"
{engine}
[variables]
quasi_identifiers = {qi}
[risk]
k = 3
[suppression]
[output]
directory = "out_{name}"
"""

CHILD = """
import json, resource, sys, time
from microsdc.job import run_job
t0 = time.perf_counter()
res = run_job(sys.argv[1])
seconds = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "rss_mb": rss, "cells": res.audit["suppression"]["total"],
                  "data": str(res.written["data"])}))
"""


def run(job: Path) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(job)], check=True, capture_output=True, text=True
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def same_release(a: str, b: str) -> bool:
    import duckdb

    cols = ", ".join(QI)
    query = (
        f"SELECT {cols}, count(*) FROM read_parquet('{{}}') GROUP BY ALL "
        f"EXCEPT SELECT {cols}, count(*) FROM read_parquet('{{}}') GROUP BY ALL"
    )
    one = duckdb.sql(query.format(a, b)).fetchall()
    two = duckdb.sql(query.format(b, a)).fetchall()
    return not one and not two


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--engines", default="pandas,polars,duckdb")
    args = parser.parse_args()
    engines = args.engines.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "data").mkdir()
        make_parquet(root / "data" / "part-0.parquet", args.rows, 0.05)
        rows = []
        for name in engines:
            path = "data/part-0.parquet" if name == "pandas" else "data"
            engine = "" if name == "pandas" else f'engine = "{name}"'
            job = root / f"{name}.toml"
            job.write_text(JOB.format(path=path, engine=engine, qi=json.dumps(QI), name=name))
            rows.append((name, run(job)))
        print(f"Whole job, {args.rows:,} rows x {len(QI)} QIs, k = 3 (shared machine)")
        print(f"{'engine':8} {'seconds':>9} {'peak RSS MB':>12} {'cells':>10}  same release")
        ref = dict(rows).get("pandas")
        for name, r in rows:
            same = "-" if ref is None or name == "pandas" else same_release(ref["data"], r["data"])
            print(f"{name:8} {r['seconds']:9.1f} {r['rss_mb']:12.0f} {r['cells']:10,}  {same}")


if __name__ == "__main__":
    main()
