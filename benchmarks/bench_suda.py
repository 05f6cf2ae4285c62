"""SUDA2 side by side: sdcMicro's C++ ``suda2`` and :func:`microsdc.suda`, in one run.

sdcMicro's ``Suda2.h`` is compiled from a git checkout of sdcTools/sdcMicro with
Debian's R (``apt-get install r-base-core r-cran-rcpp``), called through ``.Call`` as
``suda2()`` calls it (missing values coded -999), with one line added that prints
the number of uniques and pairs behind its DIS value. Each tool runs in a fresh
process per case; the time is the wall time of the call, the memory is the peak
resident memory above the process's memory before the call (Linux ``VmHWM`` reset
through ``/proc/self/clear_refs``); before it, each tool runs once on the first 2,000
rows, so that neither counts loading its code and first buffers. microsdc runs with
``missing="sdcmicro"`` (a missing value matches nothing), the rule of sdcMicro's code.

Cases: sdcMicro's ``testdata`` (keys urbrur, roof, walls, water, electcon, relat,
sex), ``adult`` (age in 5-year bands, sex, race, marital-status, education,
native-country; text columns given to sdcMicro as integer codes, since ``suda2``
turns text columns into missing values) and Zipf-like synthetic keys (marginals
proportional to 1/i^1.1; cardinalities 2, 5, 8, 10, 12, 20, 4, 6, 15, ...).

Run from the repository root::

    python benchmarks/bench_suda.py                 # real data and 100,000 rows
    python benchmarks/bench_suda.py --large         # adds 1,000,000 x 7, and x 12 keys with
                                                    # max_msu 4 (microsdc alone)
    python benchmarks/bench_suda.py --threads 2     # microsdc with two threads
    python benchmarks/bench_suda.py --cases testdata adult
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
SDCMICRO_GIT = Path("/work/.mirror/sdcTools+sdcMicro/repo")
CARD = [2, 5, 8, 10, 12, 20, 4, 6, 15, 3, 7, 9]
MISSING = -999

R_RUNNER = r"""
args <- commandArgs(trailingOnly = TRUE)
suppressMessages(library(Rcpp))
dyn.load(args[1])
m <- as.integer(args[4]); n <- as.integer(args[5])
codes <- readBin(args[2], "integer", n = n * m)
mat <- matrix(as.numeric(codes), nrow = n, ncol = m)
status <- function(key) {
  s <- readLines("/proc/self/status")
  as.numeric(sub("[^0-9]*([0-9]+).*", "\\1", s[startsWith(s, key)])) / 1024
}
warm <- mat[seq_len(min(n, 2000)), , drop = FALSE]  # the same calls once, on a sample
invisible(.Call("Suda2", warm, -999L, ncol(warm), as.numeric(args[6]), TRUE))
invisible(gc())
cat("5", file = "/proc/self/clear_refs")
before <- status("VmRSS:")
t0 <- proc.time()[["elapsed"]]
res <- .Call("Suda2", mat, -999L, ncol(mat), as.numeric(args[6]), TRUE)$Res
elapsed <- proc.time()[["elapsed"]] - t0
peak <- status("VmHWM:") - before
writeBin(c(res[, m + 1], res[, m + 2]), args[3])
score <- res[, m + 1]
contrib <- 100 * colSums(res[, 1:m, drop = FALSE] * score) / sum(score)
cat(sprintf("TIME %.4f\nMB %.1f\nCONTRIB %s\n", elapsed, peak, paste(contrib, collapse = " ")))
"""

PATCH_AFTER = "  float Dis = NbUniqueTotal * DisFraction"
PATCH_LINE = '  REprintf("sdcMicro U=%d P=%d\\n", NbUniqueTotal, NbDuplicatePair);\n'


def build_sdcmicro(git_dir: Path, work: Path) -> Path:
    """Compile sdcMicro's Suda2.h (with a line that prints U and P) into a shared library."""
    for name in ("Framework.h", "Suda2.h"):
        text = subprocess.run(
            ["git", f"--git-dir={git_dir}", "show", f"HEAD:src/{name}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        if name == "Suda2.h":
            head, tail = text.split(PATCH_AFTER, 1)
            text = head + PATCH_LINE + PATCH_AFTER + tail
        (work / name).write_text(text)
    (work / "suda_main.cpp").write_text(
        "#include <Rcpp.h>\n#include <math.h>\n#include <string.h>\n#include <stdio.h>\n"
        "#include <float.h>\n#include <limits.h>\n#include <malloc.h>\n"
        '#include "Framework.h"\n#include "Suda2.h"\n'
    )
    rcpp = subprocess.run(
        ["Rscript", "-e", 'cat(system.file("include", package="Rcpp"))'],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    env = {**os.environ, "PKG_CPPFLAGS": f"-I{rcpp}"}
    subprocess.run(
        ["R", "CMD", "SHLIB", "-o", "suda2.so", "suda_main.cpp"],
        cwd=work,
        env=env,
        check=True,
        capture_output=True,
    )
    (work / "runner.R").write_text(R_RUNNER)
    return work / "suda2.so"


# --- cases ------------------------------------------------------------------------------------


def zipf_frame(n: int, m: int, missing: float, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cols = {}
    for j in range(m):
        k = CARD[j]
        p = 1.0 / np.arange(1, k + 1) ** 1.1
        c = rng.choice(k, size=n, p=p / p.sum()).astype(float) + 1
        if missing:
            c[rng.random(n) < missing] = np.nan
        cols[f"k{j + 1}"] = c
    return pd.DataFrame(cols)


def testdata() -> tuple[pd.DataFrame, list[str]]:
    keys = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]
    return pd.read_csv(DATA / "testdata.csv", usecols=keys), keys


def adult() -> tuple[pd.DataFrame, list[str]]:
    keys = ["age", "sex", "race", "marital-status", "education", "native-country"]
    df = pd.read_csv(DATA / "adult_missing.csv", usecols=keys)
    df["age"] = (df["age"] // 5) * 5
    return df, keys


def make_case(name: str) -> tuple[pd.DataFrame, list[str]]:
    if name == "testdata":
        return testdata()
    if name == "adult":
        return adult()
    _, rows, keys, miss = name.split("-")[:4]  # zipf-100k-9-5 (-m4: max_msu 4)
    n = int(rows.replace("k", "000").replace("M", "000000"))
    df = zipf_frame(n, int(keys), int(miss) / 100)
    return df, list(df.columns)


def as_codes(df: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """Integer codes for sdcMicro: numbers kept, text as 1-based codes, missing -999."""
    out = np.empty((len(df), len(keys)), dtype=np.int32)
    for j, k in enumerate(keys):
        col = df[k]
        if pd.api.types.is_numeric_dtype(col):
            vals = col.to_numpy(dtype=float)
        else:
            codes, _ = pd.factorize(col, sort=True)
            vals = np.where(codes < 0, np.nan, codes + 1.0)
        out[:, j] = np.where(np.isnan(vals), MISSING, vals).astype(np.int32)
    return out


# --- the two tools ----------------------------------------------------------------------------


def _status_mb(key: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key):
            return int(line.split()[1]) / 1024
    return float("nan")


def microsdc_worker(
    frame_path: str, out_path: str, keys: list[str], fraction: float, threads: int, max_msu: int
) -> None:
    """Run in a fresh process: time one suda() call and print TIME and MB."""
    sys.path.insert(0, str(REPO / "src"))
    import microsdc

    df = pd.read_pickle(frame_path)
    microsdc.suda(df.head(2000), keys, missing="sdcmicro", threads=threads)  # once, on a sample
    Path("/proc/self/clear_refs").write_text("5")
    before = _status_mb("VmRSS:")
    t0 = time.perf_counter()
    res = microsdc.suda(
        df,
        keys,
        missing="sdcmicro",
        dis_fraction=fraction,
        threads=threads,
        max_msu=max_msu or None,
    )
    elapsed = time.perf_counter() - t0
    peak = _status_mb("VmHWM:") - before
    np.save(out_path, np.stack([res.scores["suda"], res.scores["dis_suda"]]))
    print(f"TIME {elapsed:.4f}\nMB {peak:.1f}")
    print("CONTRIB " + " ".join(str(x) for x in res.variable_contributions["in_msus"]))
    print(f"UNIQUES {res.n_sample_uniques}\nPAIRS {res.n_pairs}")


def _parse(out: str) -> dict[str, str]:
    return dict(line.split(" ", 1) for line in out.splitlines() if " " in line)


def run_case(name: str, so: Path, work: Path, fraction: float, threads: int) -> dict[str, object]:
    df, keys = make_case(name)
    n, m = len(df), len(keys)
    max_msu = int(name.split("-m")[1]) if "-m" in name else 0
    if max_msu:  # sdcMicro's suda2 has no maximum MSU size: microsdc alone
        return _microsdc_only(name, df, keys, work, fraction, threads, max_msu)
    codes = as_codes(df, keys)
    codes.T.copy().tofile(work / "codes.bin")  # column-major, as R fills a matrix
    r = subprocess.run(
        ["Rscript", str(work / "runner.R"), str(so), str(work / "codes.bin"),
         str(work / "r_out.bin"), str(m), str(n), str(fraction)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    r_info = _parse(r.stdout)
    found = re.findall(r"sdcMicro U=(\d+) P=(\d+)", r.stderr)  # the last: the measured call
    u_sdc = found[-1][0] if found else "?"
    r_out = np.fromfile(work / "r_out.bin", dtype=np.float64).reshape(2, n)
    df.to_pickle(work / "frame.pkl")
    env = {**os.environ, "NUMBA_NUM_THREADS": str(threads)}
    py = subprocess.run(
        [sys.executable, __file__, "--worker", str(work / "frame.pkl"), str(work / "py.npy"),
         str(fraction), str(threads), "0", *keys],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    p_info = _parse(py.stdout)
    p_out = np.load(work / "py.npy")
    same = np.array_equal(r_out[0], p_out[0])
    contrib_r = np.array(r_info["CONTRIB"].split(), dtype=float)
    contrib_p = np.array(p_info["CONTRIB"].split(), dtype=float)
    return {
        "case": f"{name} ({n:,} x {m})",
        "sdcMicro s": float(r_info["TIME"]),
        "sdcMicro MB": float(r_info["MB"]),
        "microsdc s": float(p_info["TIME"]),
        "microsdc MB": float(p_info["MB"]),
        "scores equal": "yes" if same else f"no ({int((r_out[0] != p_out[0]).sum())} differ)",
        "DIS-SUDA max diff": float(np.max(np.abs(r_out[1] - p_out[1]))) if n else 0.0,
        "U sdcMicro / true": f"{u_sdc} / {p_info['UNIQUES']}",
        "contrib max diff (pp)": float(np.max(np.abs(contrib_r - contrib_p))),
    }


def _microsdc_only(
    name: str,
    df: pd.DataFrame,
    keys: list[str],
    work: Path,
    fraction: float,
    threads: int,
    max_msu: int,
) -> dict[str, object]:
    df.to_pickle(work / "frame.pkl")
    env = {**os.environ, "NUMBA_NUM_THREADS": str(threads)}
    py = subprocess.run(
        [sys.executable, __file__, "--worker", str(work / "frame.pkl"), str(work / "py.npy"),
         str(fraction), str(threads), str(max_msu), *keys],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    p_info = _parse(py.stdout)
    return {
        "case": f"{name} ({len(df):,} x {len(keys)}, max_msu {max_msu})",
        "sdcMicro s": float("nan"),
        "sdcMicro MB": float("nan"),
        "microsdc s": float(p_info["TIME"]),
        "microsdc MB": float(p_info["MB"]),
        "scores equal": "(no max MSU size in sdcMicro)",
        "DIS-SUDA max diff": float("nan"),
        "U sdcMicro / true": f"- / {p_info['UNIQUES']}",
        "contrib max diff (pp)": float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--cases",
        nargs="*",
        default=["testdata", "adult", "zipf-100k-7-0", "zipf-100k-9-0", "zipf-100k-9-5"],
    )
    parser.add_argument(
        "--large",
        action="store_true",
        help="add 1,000,000 x 7 and 1,000,000 x 12 with max_msu 4 (microsdc alone)",
    )
    parser.add_argument("--threads", type=int, default=1, help="threads of microsdc.suda")
    parser.add_argument("--fraction", type=float, default=0.01)
    parser.add_argument("--sdcmicro-git", type=Path, default=SDCMICRO_GIT)
    args = parser.parse_args()
    cases = list(args.cases) + (["zipf-1M-7-0", "zipf-1M-12-0-m4"] if args.large else [])
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        so = build_sdcmicro(args.sdcmicro_git, work)
        rows = [run_case(c, so, work, args.fraction, args.threads) for c in cases]
    table = pd.DataFrame(rows)
    print(
        f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}, "
        f"microsdc threads: {args.threads}"
    )
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.3g}"))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        microsdc_worker(
            sys.argv[2],
            sys.argv[3],
            sys.argv[7:],
            float(sys.argv[4]),
            int(sys.argv[5]),
            int(sys.argv[6]),
        )
    else:
        main()
