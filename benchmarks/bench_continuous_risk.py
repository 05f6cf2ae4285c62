"""Benchmark of the continuous-variable risk measures: record linkage and interval disclosure.

Reproduce with::

    python benchmarks/bench_continuous_risk.py            # 100,000 rows x 3 variables
    python benchmarks/bench_continuous_risk.py 20000      # another size

Cases (lognormal amounts, 3 variables): the release after noise of 5 % and 50 % of a
standard deviation, after MDAV microaggregation (k = 3), rounded to 1,000 and to 10,000
(many tied records), and with 50 % and 90 % of the records all zero, released unchanged
(the worst case for ties: every zero record is tied with every other). Each measure runs
once after a warm-up; the table prints the seconds, the measure, and whether
:func:`linkage_risk` gives exactly the figures of the one-query-per-record algorithm it
replaced (kept below as ``per_record_linkage``), which is timed too. Target: at most 5 s
per measure at 100,000 rows.

sdcMicro: its ``dRisk`` (``dRiskWORK`` in ``R/dRisk.R``, pure R) is read from the git
mirror of sdcTools/sdcMicro (or ``SDCMICRO_SRC``) and run by ``Rscript`` on the same values
(the time inside R, without reading the CSV), when both are there; its figure must equal
``interval_risk``'s. Its record linkage (``recordLinkage``: ``cluster::daisy`` distances of
all pairs, then an assignment) needs an n x n matrix, 80 GB at 100,000 rows, and is not run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from microsdc import add_noise, interval_risk, linkage_risk, microaggregate

COLUMNS = ["a", "b", "c"]
MIRROR = Path(os.environ.get("SDCMICRO_SRC", "/work/.mirror/sdcTools+sdcMicro/repo"))

R_SCRIPT = r"""
args <- commandArgs(TRUE)
source(args[1])
x <- as.matrix(read.csv(args[2]))
xm <- as.matrix(read.csv(args[3]))
t <- system.time(r <- dRiskWORK(x, xm))
cat(sprintf("%.3f %.10f\n", t[["elapsed"]], r))
"""


def sdcmicro_drisk(original: pd.DataFrame, released: pd.DataFrame) -> tuple[float, float] | None:
    """(seconds, dRisk) of sdcMicro's own dRiskWORK on the same values, or None."""
    if shutil.which("Rscript") is None:
        return None
    try:
        source = subprocess.run(
            ["git", "--git-dir", str(MIRROR), "show", "HEAD:R/dRisk.R"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        if not (MIRROR / "R" / "dRisk.R").is_file():
            return None
        source = (MIRROR / "R" / "dRisk.R").read_text()
    body = source[source.index("dRiskWORK <- function") :]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "drisk.R").write_text(body)
        (work / "run.R").write_text(R_SCRIPT)
        original[COLUMNS].to_csv(work / "x.csv", index=False, float_format="%.17g")
        released[COLUMNS].to_csv(work / "xm.csv", index=False, float_format="%.17g")
        files = [str(work / f) for f in ("drisk.R", "x.csv", "xm.csv")]
        out = subprocess.run(
            ["Rscript", str(work / "run.R"), *files], capture_output=True, text=True
        )
    if out.returncode != 0:
        return None
    seconds, value = out.stdout.split()
    return float(seconds), float(value)


def per_record_linkage(original: pd.DataFrame, released: pd.DataFrame) -> np.ndarray:
    """The former algorithm: one nearest query and one ball count per linked record."""
    x = original[COLUMNS].to_numpy(float)
    y = released[COLUMNS].to_numpy(float)
    center, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    xs, ys = (x - center) / scale, (y - center) / scale
    tree = cKDTree(xs)
    nearest, _ = tree.query(ys, k=1)
    own = np.sqrt(((xs - ys) ** 2).sum(axis=1))
    tol = 1e-9 * (1.0 + nearest)
    risk = np.zeros(len(x))
    for i in np.flatnonzero(own <= nearest + tol):
        tied = tree.query_ball_point(ys[i], nearest[i] + tol[i], return_length=True)
        risk[i] = 1.0 / max(int(tied), 1)
    return risk


def cases(n: int) -> list[tuple[str, pd.DataFrame, pd.DataFrame]]:
    rng = np.random.default_rng(0)
    x = pd.DataFrame(rng.lognormal(9, 1, (n, 3)), columns=COLUMNS)
    out = [
        ("noise 5 % sd", x, add_noise(x, COLUMNS, relative_sd=0.05, seed=1).data),
        ("noise 50 % sd", x, add_noise(x, COLUMNS, relative_sd=0.5, seed=2).data),
        ("MDAV k = 3", x, microaggregate(x, COLUMNS, k=3).data),
        ("rounded to 1,000", x, x.round(-3)),
        ("rounded to 10,000", x, x.round(-4)),
    ]
    for share in (0.5, 0.9):
        z = x.copy()
        z.iloc[: int(share * n)] = 0.0
        out.append((f"{share:.0%} zeros, unchanged", z, z.copy()))
    return out


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    value = fn()
    return time.perf_counter() - t0, value


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    slow = n <= 100_000
    print(f"rows {n:,} x 3 variables, cores {os.cpu_count()}, load {os.getloadavg()[0]:.1f}")
    small = cases(1_000)[0]
    linkage_risk(small[1], small[2], COLUMNS)  # warm-up
    interval_risk(small[1], small[2], COLUMNS)
    head = f"{'case':26}{'linkage s':>11}{'linked':>9}{'former s':>10}{'same':>6}"
    print(head + f"{'interval s':>12}{'at risk':>9}")
    for name, original, released in cases(n):
        t_link, link = timed(lambda o=original, r=released: linkage_risk(o, r, COLUMNS))
        t_int, inter = timed(lambda o=original, r=released: interval_risk(o, r, COLUMNS))
        if slow:
            t_old, old = timed(lambda o=original, r=released: per_record_linkage(o, r))
            same = "yes" if np.array_equal(old, link.to_numpy()) else "NO"
            former = f"{t_old:>10.2f}"
        else:
            former, same = f"{'-':>10}", "-"
        print(
            f"{name:26}{t_link:>11.2f}{link.mean():>9.4f}{former}{same:>6}"
            f"{t_int:>12.3f}{inter.mean():>9.4f}"
        )
    print()
    print("sdcMicro dRisk (its R code, same values) beside interval_risk:")
    for name, original, released in cases(n)[:3]:
        got = sdcmicro_drisk(original, released)
        if got is None:
            print("  Rscript or the sdcMicro sources not found: skipped")
            break
        t_int, inter = timed(lambda o=original, r=released: interval_risk(o, r, COLUMNS))
        print(
            f"  {name:22} sdcMicro {got[0]:.3f} s {got[1]:.4f}   "
            f"microsdc {t_int:.3f} s {inter.mean():.4f}"
        )


if __name__ == "__main__":
    main()
