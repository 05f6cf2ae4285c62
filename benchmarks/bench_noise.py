"""Speed of ``add_noise`` on 1,000,000 rows x 3 columns, before and after, in one run.

Reproduce (from the repository root)::

    python benchmarks/bench_noise.py                            # this checkout against /work/main
    python benchmarks/bench_noise.py --before /path/to/other/src --rounds 3
    python benchmarks/bench_noise.py --rows 200000 --cases additive,correlated

Each tree (``--before``, default ``/work/main/src``, and this checkout's ``src``) is timed
in its own fresh process (``PYTHONPATH`` set to it), the two alternating ``--rounds`` times,
so that both meet the same load; the best figure of the rounds is printed. In a process:
``first s`` is the first call after ``import microsdc`` (numba kernels loaded from their
on-disk cache, so compilation is excluded; the import itself is ``import s``), then a
warm-up call, then ``before s``/``after s`` is the best of 5 calls (``time.perf_counter``);
``cpu`` is the process time of that best call (all threads: OpenBLAS's second thread
counts). ``--blas-threads 1`` runs both trees with one OpenBLAS thread: on a loaded
machine a two-thread BLAS call waits for its second thread's turn on a core; the
figures' BLAS sums then round differently from a two-thread run, the same in both trees.
The compile time is the first call in a process with an empty numba cache
(``NUMBA_CACHE_DIR`` in a new temporary folder): what a user pays once.
The releases of the two trees (data, outliers, bounded counts) are compared bit for bit,
case by case: ``data same`` must read ``yes``. ``figs same`` compares the figures and the
correlation change the same way; it reads ``no`` against a tree whose figures were summed
by BLAS in row order (their last bits changed once when they moved to key-order pairwise
sums). The machine's cores are shared, so the load average (``/proc/loadavg``) is printed
before and after.

sdcMicro, in the same run (``--no-sdcmicro`` to skip): its ``addNoiseWORK`` (the R code
of ``addNoise``, read from the git mirror of sdcTools/sdcMicro or ``SDCMICRO_SRC``, with
MASS for ``mvrnorm``; sdcMicro itself need not be installed) runs by ``Rscript`` on the
same columns a, b, c (no weights, no missing values), best of 3 calls timed by
``system.time``. It asks for the same noise: sdcMicro's ``noise`` is a percentage of the
column's sd for ``"additive"`` (``noise = 100 * relative_sd``) and of its covariance
matrix for ``"correlated"`` (``noise = 100 * relative_sd**2``); ``"correlated2"`` with
``delta = relative_sd`` is printed beside ``correlated exact`` as the nearest method, not
the same one. sdcMicro has no multiplicative noise; ``"outdect"`` needs robustbase and
``"ROMM"`` builds an n x n matrix, so neither is run here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

#: case name -> keyword arguments of add_noise (columns are a, b, c unless "columns")
CASES: dict[str, dict] = {
    "additive": {"method": "additive", "relative_sd": 0.1},
    "additive weights missing": {"method": "additive", "weights": "w", "missing": True},
    "additive bounds totals": {
        "method": "additive",
        "relative_sd": 0.5,
        "lower": 0.0,
        "totals": {"total": ["a", "b", "c"]},
    },
    "correlated": {"method": "correlated", "relative_sd": 0.3},
    "correlated exact": {"method": "correlated", "relative_sd": 0.3, "keep_covariance": True},
    "multiplicative": {"method": "multiplicative", "relative_sd": 0.2},
    "outliers": {"method": "outliers", "relative_sd": 0.5},
}


def _frame(n: int, missing: bool):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(20)
    df = pd.DataFrame(
        {
            "a": rng.lognormal(9, 0.8, n),
            "b": rng.lognormal(7, 1.0, n) * (rng.random(n) < 0.4),
            "c": rng.gamma(2.0, 300.0, n),
            "w": rng.uniform(0.5, 3.0, n),
        }
    )
    df["total"] = df["a"] + df["b"] + df["c"]
    if missing:
        for c in ("a", "b", "c"):
            df.loc[rng.random(n) < 0.05, c] = np.nan
    return df


def _digest(res, part: str) -> str:
    """SHA-256 (16 hex digits) of the release (``part="data"``: data, outliers, bounded
    counts) or of its figures (``"figures"``: figures and correlation change)."""
    import numpy as np

    h = hashlib.sha256()
    frames = (res.data, res.outliers) if part == "data" else (res.figures, res.correlation_change)
    for frame in frames:
        h.update(repr((list(frame.columns), list(frame.index[:5]), frame.shape)).encode())
        for c in frame.columns:
            values = frame[c].to_numpy()
            if values.dtype.kind in "fiub":
                h.update(np.ascontiguousarray(values).tobytes())
            else:
                h.update(repr(values.tolist()).encode())
    if part == "data":
        h.update(res.n_bounded.to_numpy().tobytes())
    return h.hexdigest()[:16]


def worker(rows: int, names: list[str], seed: int) -> None:
    """Time the cases in this process (microsdc from PYTHONPATH); print JSON."""
    t0 = time.perf_counter()
    import microsdc

    import_s = time.perf_counter() - t0
    out: dict = {"import": import_s, "path": str(Path(microsdc.__file__).parent), "cases": {}}
    frames = {m: _frame(rows, m) for m in (False, True)}
    for name in names:
        kw = dict(CASES[name])
        df = frames[bool(kw.pop("missing", False))]
        t = time.perf_counter()
        res = microsdc.add_noise(df, ["a", "b", "c"], seed=seed, **kw)
        first = time.perf_counter() - t
        microsdc.add_noise(df, ["a", "b", "c"], seed=seed, **kw)  # warm-up
        best, cpu = float("inf"), 0.0
        for _ in range(5):
            t, c = time.perf_counter(), time.process_time()
            microsdc.add_noise(df, ["a", "b", "c"], seed=seed, **kw)
            seconds = time.perf_counter() - t
            if seconds < best:
                best, cpu = seconds, time.process_time() - c
        # what relative_sd asks for: the noise's sd over the column's, the log factor's sd
        # (multiplicative); outliers are noised at a multiple of it
        column = "log_factor_sd" if "log_factor_sd" in res.figures else "relative_sd"
        figures = res.figures[column].to_numpy()
        out["cases"][name] = {
            "first": first,
            "best": best,
            "cpu": cpu,
            "digest": _digest(res, "data"),
            "figures": _digest(res, "figures"),
            "relative_sd": [float(v) for v in figures],
        }
    print(json.dumps(out))


MIRROR = Path(os.environ.get("SDCMICRO_SRC", "/work/.mirror/sdcTools+sdcMicro/repo"))

#: case -> sdcMicro's addNoise method and the argument that asks for the same noise, as
#: (method, argument shown, argument name, value from the case's relative_sd)
SDCMICRO: dict[str, tuple[str, str, str, float]] = {
    # sdcMicro: x + rnorm(N, 0, noise/100 * sd(x)), so noise = 100 * relative_sd
    "additive": ("additive", "noise = 10", "noise", 10.0),
    # sdcMicro: x + mvrnorm(N, 0, noise/100 * cov(x)), variance-scaled: noise = 100 * rsd^2
    "correlated": ("correlated", "noise = 9", "noise", 9.0),
    # sdcMicro: x * sqrt(1 - delta^2) + delta * rnorm(N, c * mean(x), sd(x)) per column
    "correlated exact": ("correlated2", "delta = 0.3", "delta", 0.3),
}
SDC_NOTE = {
    "additive": "noise sd noise/100 = 0.1 of sample sd per column, as relative_sd = 0.1",
    "correlated": "noise covariance noise/100 = 0.09 times cov(x), noise sd 0.3 of the column's",
    "correlated exact": "nearest method, not the same: keeps each column's mean and variance "
    "in expectation (noise sd 0.3 sd, values shrunk by sqrt(1 - 0.09)); microsdc keeps the "
    "mean vector and covariance matrix exactly",
}

R_NOISE = r"""
suppressMessages(library(MASS))  # mvrnorm, which addNoiseWORK calls unqualified
args <- commandArgs(TRUE)
src <- readLines(args[1])
eval(parse(text = src[grep("^addNoiseWORK <- function", src):length(src)]))
n <- as.integer(args[3])
x <- as.data.frame(matrix(readBin(args[2], "double", n * 3), ncol = 3))
colnames(x) <- c("a", "b", "c")
for (spec in strsplit(args[4], ",")[[1]]) {
  p <- strsplit(spec, ":")[[1]]
  best <- Inf
  for (r in 1:3) {
    set.seed(as.integer(args[5]))
    call <- list(x = x, method = p[1])
    call[[p[2]]] <- as.numeric(p[3])
    t <- system.time(res <- do.call(addNoiseWORK, call))[["elapsed"]]
    best <- min(best, t)
    if (t > 60) break
  }
  xm <- as.matrix(res$xm)
  rel <- sapply(1:3, function(j) sd(xm[, j] - x[[j]]) / sd(x[[j]]))
  cat(p[1], sprintf("%.4f", best), sprintf("%.6f", rel), "\n")
}
"""


def sdcmicro(rows: int, names: list[str], seed: int) -> dict:
    """sdcMicro's ``addNoiseWORK`` (R code from its git mirror, MASS for ``mvrnorm``) on the
    same a, b, c columns, by Rscript: case -> best of 3 seconds and realised relative sds."""
    import numpy as np

    todo = [n for n in names if n in SDCMICRO]
    if not todo:
        return {}
    if shutil.which("Rscript") is None:
        return {"skipped": "no Rscript"}
    code = subprocess.run(
        ["git", f"--git-dir={MIRROR}", "show", "HEAD:R/addNoise.r"],
        capture_output=True,
        text=True,
        check=False,
    )
    if code.returncode:
        return {"skipped": f"no sdcMicro R code at {MIRROR}"}
    spec = ",".join(f"{SDCMICRO[n][0]}:{SDCMICRO[n][2]}:{SDCMICRO[n][3]}" for n in todo)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "addNoise.r").write_text(code.stdout)
        (work / "run.R").write_text(R_NOISE)
        df = _frame(rows, False)
        np.ascontiguousarray(df[["a", "b", "c"]].to_numpy().T).tofile(work / "x.bin")
        cmd = ["Rscript", str(work / "run.R"), str(work / "addNoise.r"), str(work / "x.bin")]
        proc = subprocess.run(
            [*cmd, str(rows), spec, str(seed)], capture_output=True, text=True, check=False
        )
    if proc.returncode:
        return {"skipped": f"Rscript failed: {proc.stderr.strip()[-300:]}"}
    out: dict = {}
    for name, line in zip(todo, proc.stdout.strip().splitlines(), strict=True):
        fields = line.split()
        out[name] = {"best": float(fields[1]), "relative_sd": [float(v) for v in fields[2:5]]}
    return out


def _run(src: str, args: argparse.Namespace, names: list[str], env_extra: dict) -> dict:
    env = {**os.environ, "PYTHONPATH": src, **env_extra}
    cmd = [sys.executable, __file__, "--worker", "--rows", str(args.rows)]
    cmd += ["--cases", ",".join(names), "--seed", str(args.seed)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode:
        raise SystemExit(f"worker for {src} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__repr__()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="/work/main/src")
    parser.add_argument("--after", default=str(HERE / "src"))
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument(
        "--blas-threads",
        type=int,
        default=None,
        help="OPENBLAS_NUM_THREADS of both trees (the figures' BLAS sums round differently "
        "with another thread count, so compare trees at the same setting only)",
    )
    parser.add_argument("--no-sdcmicro", action="store_true", help="microsdc only")
    parser.add_argument("--worker", action="store_true")
    args = parser.parse_args()
    names = [c for c in args.cases.split(",") if c]
    if args.worker:
        worker(args.rows, names, args.seed)
        return
    print(f"cores: {os.cpu_count()}; load average before: {_load()}")
    print(f"before: {args.before}\nafter:  {args.after}\nrows: {args.rows:,} x 3 columns")
    blas = {} if args.blas_threads is None else {"OPENBLAS_NUM_THREADS": str(args.blas_threads)}
    print(f"OPENBLAS_NUM_THREADS: {blas.get('OPENBLAS_NUM_THREADS', 'default')}")
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for _ in range(args.rounds):
        for which in ("before", "after"):
            runs[which].append(_run(getattr(args, which), args, names, blas))
    with tempfile.TemporaryDirectory() as cache:
        cold = _run(args.after, args, names[:1], {"NUMBA_CACHE_DIR": cache, **blas})
        compile_s = cold["cases"][names[0]]["first"]
    sdc = {} if args.no_sdcmicro else sdcmicro(args.rows, names, args.seed)
    print(f"load average after: {_load()}")
    _table(args, names, runs, sdc)
    imports = [min(r["import"] for r in runs[w]) for w in ("before", "after")]
    print(f"import microsdc s: before {imports[0]:.3f}, after {imports[1]:.3f}")
    print(f"first call of '{names[0]}' with an empty numba cache (compile): {compile_s:.3f} s")
    for name, (method, arg, *_) in SDCMICRO.items():
        if name in names:
            print(f"sdcMicro for {name!r}: addNoise(method={method!r}, {arg}) - {SDC_NOTE[name]}")
    if sdc.get("skipped"):
        print(f"sdcMicro not run: {sdc['skipped']}")


def _table(args: argparse.Namespace, names: list[str], runs: dict, sdc: dict) -> None:
    head = (
        f"{'case':>26} {'rows':>10} {'before s':>9} {'after s':>9} {'cpu before':>10} {'after':>6} "
        f"{'first s':>8} {'speed-up':>8} {'data same':>9} {'figs same':>9} {'sdcMicro s':>10}  "
        "relative sd (asked vs realised; sdcMicro's)"
    )
    print(head)
    for name in names:
        before = min(r["cases"][name]["best"] for r in runs["before"])
        after = min(r["cases"][name]["best"] for r in runs["after"])
        best_after = min(runs["after"], key=lambda r: r["cases"][name]["best"])["cases"][name]
        best_before = min(runs["before"], key=lambda r: r["cases"][name]["best"])["cases"][name]
        first = min(r["cases"][name]["first"] for r in runs["after"])
        same = {
            key: all(
                r["cases"][name][key] == runs["before"][0]["cases"][name][key]
                for r in runs["before"] + runs["after"]
            )
            for key in ("digest", "figures")
        }
        asked = CASES[name].get("relative_sd", 0.1)
        realised = ", ".join(f"{v:.4f}" for v in best_after["relative_sd"])
        if CASES[name]["method"] == "outliers":
            asked = "(outliers only)"
        theirs = sdc.get(name)
        sdc_s = f"{theirs['best']:10.3f}" if theirs else f"{'-':>10}"
        sdc_sd = (
            "; sdcMicro " + ", ".join(f"{v:.4f}" for v in theirs["relative_sd"]) if theirs else ""
        )
        print(
            f"{name:>26} {args.rows:>10,} {before:9.3f} {after:9.3f} {best_before['cpu']:10.3f} "
            f"{best_after['cpu']:6.3f} {first:8.3f} {before / after:7.1f}x "
            f"{'yes' if same['digest'] else 'NO':>9} {'yes' if same['figures'] else 'no':>9} "
            f"{sdc_s}  {asked} vs {realised}{sdc_sd}"
        )


if __name__ == "__main__":
    main()
