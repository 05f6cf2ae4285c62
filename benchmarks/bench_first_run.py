"""Wall time of the first and second ``microsdc demo`` after ``pip install .`` in a fresh venv.

Reproduce (from the repository root):

    python benchmarks/bench_first_run.py
    python benchmarks/bench_first_run.py --keep /tmp/venv-demo   # keep the venv

A virtual environment is created in a temporary directory, the package is
installed from this checkout with ``pip install .`` (not editable, so the
numba kernels live in site-packages, where their on-disk cache must work),
then ``microsdc demo`` runs twice, each in a new process writing to its own
output folder, then a first ``sample_frequencies`` call on 1,000 records in a
third process. Install time is reported but is not part of the targets
(first demo <= 15 s, second <= 5 s).
"""

from __future__ import annotations

import argparse
import os
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


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    sec = time.perf_counter() - t0
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stdout}\n{out.stderr}")
    return sec, out.stdout


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
        t_install, _ = timed([str(py), "-m", "pip", "install", "-q", str(repo)], env, Path(tmp))
        rows = [("pip install .", t_install)]
        for label in ("first microsdc demo", "second microsdc demo"):
            out_dir = Path(tmp) / label.split()[0]
            sec, _ = timed(
                [str(root / "bin" / "microsdc"), "demo", "--output-dir", str(out_dir)],
                env,
                Path(tmp),
            )
            rows.append((label, sec))
        sec, _ = timed([str(py), "-c", FIRST_FK], env, Path(tmp))
        rows.append(("sample_frequencies, new process (1,000 rows)", sec))
    print(f"cores: {os.cpu_count()}")
    print("| step | wall time (s) |")
    print("|---|---|")
    for label, sec in rows:
        print(f"| {label} | {sec:.1f} |")


if __name__ == "__main__":
    main()
