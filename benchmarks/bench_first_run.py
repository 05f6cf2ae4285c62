"""Wall time of the first and second ``microsdc demo`` after ``pip install .`` in a fresh venv.

Reproduce (from the repository root):

    python benchmarks/bench_first_run.py
    python benchmarks/bench_first_run.py --keep /tmp/venv-demo   # keep the venv

A virtual environment is created in a temporary directory, the package is
installed from this checkout with ``pip install .`` (not editable, so the
numba kernels live in site-packages, where their on-disk cache must work),
then ``microsdc demo`` runs twice, each in a new process writing to its own
output folder; then a first ``sample_frequencies`` call on 1,000 records runs
in a new process with an empty numba cache of its own (NUMBA_CACHE_DIR), and
once more with that cache filled. Install time is reported but is not part of the targets
(first demo <= 15 s, second <= 5 s). CPU time (user + system) is printed next
to the wall time: on a shared machine the wall time also measures the load.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

FIRST_FK = """
import time
t0 = time.perf_counter()
import numpy as np, pandas as pd
from microsdc import sample_frequencies
rng = np.random.default_rng(0)
df = pd.DataFrame({f"q{j}": rng.integers(0, 5, 1000).astype(float) for j in range(4)})
df.iloc[rng.random((1000, 4)) < 0.05] = np.nan
sample_frequencies(df, list(df.columns))
print(f"{time.perf_counter() - t0:.2f}")
"""


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of a command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    sec = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stdout}\n{out.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return sec, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="create the venv here and keep it")
    args = parser.parse_args()
    repo = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp) / "venv"
        venv.create(root, with_pip=True, clear=True)
        py = root / "bin" / "python"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "PYTHON"))}
        env["PATH"] = f"{root / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        install = [str(py), "-m", "pip", "install", "-q", str(repo)]
        rows = [("pip install .", *timed(install, env, Path(tmp)))]
        for label in ("first microsdc demo", "second microsdc demo"):
            out_dir = Path(tmp) / label.split()[0]
            cmd = [str(root / "bin" / "microsdc"), "demo", "--output-dir", str(out_dir)]
            rows.append((label, *timed(cmd, env, Path(tmp))))
        # a first sample_frequencies call, with a cache of its own (cold)
        cold = {**env, "NUMBA_CACHE_DIR": str(Path(tmp) / "numba-cold")}
        label = "first sample_frequencies, 1,000 rows (cold cache)"
        rows.append((label, *timed([str(py), "-c", FIRST_FK], cold, Path(tmp))))
        label = "sample_frequencies again, new process"
        rows.append((label, *timed([str(py), "-c", FIRST_FK], cold, Path(tmp))))
    print(f"cores: {os.cpu_count()}")
    print("| step | wall time (s) | CPU time (s) |")
    print("|---|---|---|")
    for label, sec, cpu in rows:
        print(f"| {label} | {sec:.1f} | {cpu:.1f} |")


if __name__ == "__main__":
    main()
