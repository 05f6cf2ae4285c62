"""Benchmark of PRAM against sdcMicro's ``pram``, in one run.

Reproduce with::

    python benchmarks/bench_pram.py                 # 1,000,000 rows
    python benchmarks/bench_pram.py 100000 1000000  # chosen sizes

Data: three categorical variables with 5, 8 and 12 equally likely categories and a
stratum variable with 10 values (integers), PRAMmed within strata with pd = 0.8,
alpha = 0.5. microsdc runs in a fresh subprocess: a small PRAM loads the compiled
kernel, then the median of 3 timed runs, and the peak memory traced during one run
(``tracemalloc``) next to the size of the input columns. sdcMicro's ``pramWORK`` (the
function ``pram`` calls) is taken from its sources, ``R/pram.R`` of sdcTools/sdcMicro
(path in ``SDCMICRO_PRAM_R``, default: the git mirror below), and run by ``Rscript``
with data.table on the same kind of data (factors), once, when R is installed; its
memory is the peak of R's garbage collector (``gc()`` "max used").
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SIZES = (1_000_000,)
MIRROR = Path("/work/.mirror/sdcTools+sdcMicro/repo")

CHILD = r"""
import gc, json, statistics, sys, time, tracemalloc
import numpy as np, pandas as pd
from microsdc import pram

n = int(sys.argv[1])
rng = np.random.default_rng(1)
df = pd.DataFrame({"v1": rng.integers(0, 5, n), "v2": rng.integers(0, 8, n),
                   "v3": rng.integers(0, 12, n), "s": rng.integers(0, 10, n)})
kw = dict(strata="s", pd=0.8, alpha=0.5)
pram(df.head(100), ["v1", "v2", "v3"], seed=0, **kw)  # load the compiled kernel
times = []
for rep in range(3):
    gc.collect()
    t0 = time.perf_counter()
    res = pram(df, ["v1", "v2", "v3"], seed=rep, **kw)
    times.append(time.perf_counter() - t0)
    del res
gc.collect()
tracemalloc.start()
res = pram(df, ["v1", "v2", "v3"], seed=0, **kw)
traced = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
worst = float(res.summary()["invariance_error"].max())
print(json.dumps({"seconds": statistics.median(times), "traced_mb": traced / 2**20,
                  "input_mb": df.memory_usage(index=False).sum() / 2**20,
                  "invariance_error": worst}))
"""

R_SCRIPT = r"""
suppressMessages(library(data.table))
exprs <- parse(Sys.getenv("SDCMICRO_PRAM_R"))
for (e in exprs) {
  if (is.call(e) && identical(e[[1]], as.name("<-")) &&
      as.character(e[[2]]) %in% c("pramWORK", "inputs_pram")) eval(e, globalenv())
}
n <- as.integer(commandArgs(TRUE)[1])
set.seed(1)
df <- data.frame(v1 = factor(sample(0:4, n, TRUE)), v2 = factor(sample(0:7, n, TRUE)),
                 v3 = factor(sample(0:11, n, TRUE)), s = sample(0:9, n, TRUE))
params <- inputs_pram(pd = 0.8, alpha = 0.5, levList = lapply(df[, 1:3], levels))
invisible(gc(reset = TRUE))
t <- system.time(pramWORK(data = df, variables = c("v1", "v2", "v3"),
                          strata_variables = "s", params = params))[["elapsed"]]
cat(sprintf('{"seconds": %.3f, "gc_max_mb": %.1f}\n', t, sum(gc()[, 6])))
"""


def _pram_source() -> Path | None:
    given = os.environ.get("SDCMICRO_PRAM_R")
    if given:
        return Path(given)
    if not (MIRROR / "HEAD").exists() or shutil.which("git") is None:
        return None
    text = subprocess.run(
        ["git", f"--git-dir={MIRROR}", "show", "HEAD:R/pram.R"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    if not text:
        return None
    path = Path(tempfile.mkdtemp()) / "pram.R"
    path.write_text(text, encoding="utf-8")
    return path


def _sdcmicro(n: int, source: Path | None) -> dict | None:
    if source is None or shutil.which("Rscript") is None:
        return None
    script = source.parent / "bench_pram.R"
    script.write_text(R_SCRIPT, encoding="utf-8")
    proc = subprocess.run(
        ["Rscript", str(script), str(n)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "SDCMICRO_PRAM_R": str(source)},
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    return json.loads(lines[-1]) if lines else None


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or list(SIZES)
    source = _pram_source()
    print(f"cores: {os.cpu_count()}; load average: {os.getloadavg()[0]:.2f}")
    print(
        f"{'rows':>10} {'microsdc s':>11} {'traced MB':>10} {'input MB':>9} "
        f"{'max |pR-p|':>11} {'sdcMicro s':>11} {'R gc MB':>8} {'speed-up':>9}"
    )
    for n in sizes:
        child = subprocess.run(
            [sys.executable, "-c", CHILD, str(n)], capture_output=True, text=True, check=True
        )
        ours = json.loads(child.stdout.strip().splitlines()[-1])
        theirs = _sdcmicro(n, source)
        r_s = f"{theirs['seconds']:11.2f}" if theirs else f"{'n/a':>11}"
        r_mb = f"{theirs['gc_max_mb']:8.0f}" if theirs else f"{'n/a':>8}"
        ratio = f"{theirs['seconds'] / ours['seconds']:8.0f}x" if theirs else f"{'n/a':>9}"
        print(
            f"{n:>10,} {ours['seconds']:11.3f} {ours['traced_mb']:10.0f} "
            f"{ours['input_mb']:9.0f} {ours['invariance_error']:11.1e} {r_s} {r_mb} {ratio}"
        )


if __name__ == "__main__":
    main()
