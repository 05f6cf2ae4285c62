"""Records at risk on the Adult data under each missing-value policy, and the safe QI combinations.

Reproduce:
    python benchmarks/adult_risk_table.py [path/to/adult_missing.csv]

Default path: ../shared/data/adult_missing.csv relative to the repository. Age is put in
5-year bands (floor(age / 5) * 5). QIs: age band, sex, race, marital-status, education,
native-country, workclass, occupation (missing values only in the last three).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd

from microsdc import safe_combinations, sample_frequencies

QI6 = ["age", "sex", "race", "marital-status", "education", "native-country"]
QI8 = [*QI6, "workclass", "occupation"]
POLICIES = ["wildcard", "category", "conservative", 0.5, 0.0]


def main() -> None:
    default = Path(__file__).resolve().parents[2] / "shared" / "data" / "adult_missing.csv"
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else default
    df = pd.read_csv(path)
    df["age"] = (df["age"] // 5) * 5
    print(f"{path.name}: {len(df):,} records; age in 5-year bands\n")
    for qi in (QI6, QI8):
        print(f"QIs ({len(qi)}): {', '.join(qi)}")
        print(f"{'policy':>14} | {'fk<2':>7} {'fk<3':>7} {'fk<5':>7} | {'time s':>7}")
        for pol in POLICIES:
            t0 = time.perf_counter()
            fk = sample_frequencies(df, qi, missing=pol)["fk"]
            dt = time.perf_counter() - t0
            label = pol if isinstance(pol, str) else f"alpha={pol}"
            counts = [int((fk < k).sum()) for k in (2, 3, 5)]
            print(f"{label:>14} | {counts[0]:>7,} {counts[1]:>7,} {counts[2]:>7,} | {dt:>7.3f}")
        print()
    t0 = time.perf_counter()
    safe = safe_combinations(df, QI8, 5, min_combi_size=1)
    maximal = safe_combinations(df, QI8, 5, min_combi_size=1, maximal=True)
    dt = time.perf_counter() - t0
    print(f"safe_combinations, k=5, wildcard: {len(safe)} safe subsets ({dt:.2f} s for both calls)")
    for size in range(1, len(QI8) + 1):
        n = sum(len(s) == size for s in safe)
        if n:
            print(f"  size {size}: {n}")
    print("maximal safe subsets:")
    for s in maximal:
        print("  " + ", ".join(s))


if __name__ == "__main__":
    main()
