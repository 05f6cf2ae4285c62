"""Benchmark of MDAV microaggregation against sdcMicro's C++ ``Mdav``, in one run.

Reproduce with::

    python benchmarks/bench_microaggregation.py                # all cases
    python benchmarks/bench_microaggregation.py --no-sdcmicro  # microsdc only

Cases: ``testdata`` (income, expend, savings; k = 3) and ``francdat`` (Num1-Num3; k = 3)
from ``../shared/data``, and synthetic lognormal data with 3 variables at 20,000, 50,000
and 1,000,000 rows (k = 3). Both tools get the same values. SSE/SST is computed by this
script, the same way for both releases: within-group sum of squares of the variables
standardised by their population standard deviation, over the total. microsdc runs in
this process after a warm-up (median of 3 runs); sdcMicro's ``src/Mdav.cpp`` (with
``Mdav.h`` and ``Framework.h``, from the git mirror of sdcTools/sdcMicro or
``SDCMICRO_SRC``) is compiled with ``R CMD SHLIB`` against Rcpp and called as its ``mdav()``
calls it, once per case (skipped at 1,000,000 rows, where it takes hours: quadratic).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from microsdc import microaggregate

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
MIRROR = Path(os.environ.get("SDCMICRO_SRC", "/work/.mirror/sdcTools+sdcMicro/repo"))

R_SCRIPT = r"""
suppressMessages(library(Rcpp))
args <- commandArgs(TRUE)
dyn.load(args[1])
x <- as.matrix(read.csv(args[2]))
data2 <- x
data2[, ] <- NA
t <- system.time(res <- .Call("Mdav", x, data2, -999, rep(1, ncol(x)), as.integer(args[4])))
write.csv(res$Res, args[3], row.names = FALSE)
cat(sprintf("%.3f\n", t[["elapsed"]]))
"""


def sse_sst(original: np.ndarray, released: np.ndarray) -> float:
    """SSE/SST on standardised variables (rows = records)."""
    center = original.mean(axis=0)
    scale = original.std(axis=0)
    scale[scale == 0] = 1.0
    z, r = (original - center) / scale, (released - center) / scale
    return float(((z - r) ** 2).sum() / ((z - z.mean(axis=0)) ** 2).sum())


def _compile(work: Path) -> Path | None:
    if shutil.which("R") is None or shutil.which("Rscript") is None:
        return None
    for name in ("Mdav.cpp", "Mdav.h", "Framework.h"):
        text = subprocess.run(
            ["git", f"--git-dir={MIRROR}", "show", f"HEAD:src/{name}"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        if not text:
            return None
        (work / name).write_text(text, encoding="utf-8")
    include = subprocess.run(
        ["Rscript", "-e", 'cat(system.file("include", package="Rcpp"))'],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if not include:
        return None
    subprocess.run(
        ["R", "CMD", "SHLIB", "-o", "mdav.so", "Mdav.cpp"],
        cwd=work,
        env={**os.environ, "PKG_CPPFLAGS": f"-I{include}"},
        capture_output=True,
        check=False,
    )
    lib = work / "mdav.so"
    return lib if lib.exists() else None


def _sdcmicro(lib: Path, x: np.ndarray, k: int, work: Path) -> tuple[float, np.ndarray]:
    src, out, script = work / "in.csv", work / "out.csv", work / "run.R"
    pd.DataFrame(x).to_csv(src, index=False)
    script.write_text(R_SCRIPT, encoding="utf-8")
    proc = subprocess.run(
        ["Rscript", str(script), str(lib), str(src), str(out), str(k)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(proc.stdout.strip().splitlines()[-1]), pd.read_csv(out).to_numpy()


def _ours(x: np.ndarray, k: int) -> tuple[float, np.ndarray, int]:
    frame = pd.DataFrame(x, columns=[f"v{j}" for j in range(x.shape[1])])
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        res = microaggregate(frame, list(frame.columns), k=k)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), res.data[list(frame.columns)].to_numpy(), res.min_group_size


def cases() -> list[tuple[str, np.ndarray]]:
    out = []
    if (DATA / "testdata.csv").exists():
        td = pd.read_csv(DATA / "testdata.csv")
        out.append(("testdata", td[["income", "expend", "savings"]].to_numpy(float)))
    if (DATA / "francdat.csv").exists():
        fd = pd.read_csv(DATA / "francdat.csv")
        out.append(("francdat", fd[["Num1", "Num2", "Num3"]].to_numpy(float)))
    rng = np.random.default_rng(1)
    for n in (20_000, 50_000, 1_000_000):
        out.append((f"lognormal {n:,}", rng.lognormal(10, 1, (n, 3))))
    return out


def main() -> None:
    use_r = "--no-sdcmicro" not in sys.argv
    microaggregate(pd.DataFrame({"a": np.arange(10.0)}), "a", k=3)  # load the kernels
    work = Path(tempfile.mkdtemp())
    lib = _compile(work) if use_r else None
    print(f"cores: {os.cpu_count()}; load average: {os.getloadavg()[0]:.2f}; k = 3")
    print(
        f"{'case':>20} {'rows':>10} {'microsdc s':>11} {'SSE/SST':>9} {'min group':>9} "
        f"{'sdcMicro s':>11} {'SSE/SST':>9} {'speed-up':>9}"
    )
    for name, x in cases():
        seconds, released, smallest = _ours(x, 3)
        ours = sse_sst(x, released)
        r_s = r_q = ratio = "n/a"
        if lib is not None and len(x) <= 50_000:
            r_seconds, r_released = _sdcmicro(lib, x, 3, work)
            r_s, r_q = f"{r_seconds:.3f}", f"{sse_sst(x, r_released):.5f}"
            ratio = f"{r_seconds / seconds:.1f}x"
        print(
            f"{name:>20} {len(x):>10,} {seconds:11.3f} {ours:9.5f} {smallest:9d} "
            f"{r_s:>11} {r_q:>9} {ratio:>9}"
        )


if __name__ == "__main__":
    main()
