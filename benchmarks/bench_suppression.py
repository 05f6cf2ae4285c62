"""Local suppression on real data, against sdcMicro 5.8.1 and the random-missingness baseline.

Reproduce (from the repository root, data in ../shared/data):

    python benchmarks/bench_suppression.py
    python benchmarks/bench_suppression.py --data-dir /path/to/data --trials 25

Data: adult_missing.csv (UCI Adult, 32,561 records; missing workclass,
occupation and native-country) with age in 5-year bands, age5 =
floor(age / 5) * 5 (17 -> 15, 24 -> 20, 90 -> 90); testdata.csv (sdcMicro's
testdata, 4,580 records) with age as given, as sdcMicro was run.

sdcMicro figures: localSuppression() of sdcMicro 5.8.1 with its default
importance, the same key variables and k (cells blanked and run time as
reported with the task). microsdc runs local_suppression() with its default
importance (QIs with more categories are blanked first, as in sdcMicro) and
missing values as wildcards; times are wall-clock for the whole call
(encoding, counts before and after, true-value frequencies) after one warm-up
run that loads the compiled kernels. The random method is
min_missingness_max_deid() (kanonymity 0.1.0 semantics) with step 0.001 and
--trials random placements per share, seed 0.

Cells blanked by the greedy on distinct QI patterns (identical records get the
same blanks; restore and improve passes) against the earlier per-record greedy,
default importance, wildcards:

    case (QIs)                         k=3 before / after   k=5 before / after
    adult_missing, 6 QIs (S1)          1,720 / 1,705        2,593 / 2,570
    adult_missing, 8 QIs (S2)          5,325 / 5,266        7,832 / 7,740
    testdata, urbrur ... relat (T1)      207 /   203          356 /   354
    testdata, roof ... sex (T2)          118 /   118          219 /   209

A second table compares the greedy with the exact integer program (HiGHS,
30 s limit per instance) on random samples of testdata small enough for it.
Under the wildcard policy the optimum is degenerate: k - 1 records with every
QI blanked are compatible with every record, so (k - 1) x (number of QIs)
cells always reach k; the exact model finds such solutions, the greedy (which
fixes each record at risk with its own cheapest cells) does not look for them.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from microsdc.exceptions import PerformanceWarning
from microsdc.risk import sample_frequencies
from microsdc.suppression import local_suppression, min_missingness_max_deid

ADULT_QI = ["age5", "sex", "race", "marital-status", "education", "native-country"]
ADULT_QI8 = [*ADULT_QI, "workclass", "occupation"]
TEST_QI1 = ["urbrur", "water", "sex", "age", "relat"]
TEST_QI2 = ["roof", "walls", "water", "electcon", "relat", "sex"]

# (name, data, QIs, rows fk<3, rows fk<5, sdcMicro cells k=3, time, k=5, time, random k=3, k=5)
CASES = [
    ("adult_missing: age5, sex, race, marital-status, education, native-country", "adult",
     ADULT_QI, 3371, 4957, 3511, 23.0, 5612, 36.0, 21684, 29304),
    ("adult_missing: the same + workclass, occupation", "adult",
     ADULT_QI8, 8733, 12053, 9465, 168.0, 14560, 278.0, None, None),
    ("testdata: urbrur, water, sex, age, relat", "testdata",
     TEST_QI1, 1087, 1781, 1099, 1.8, 1844, 3.1, None, None),
    ("testdata: roof, walls, water, electcon, relat, sex", "testdata",
     TEST_QI2, 211, 368, 216, 0.4, 392, 0.7, 2004, 2556),
]  # fmt: skip


def load(data_dir: Path) -> dict[str, pd.DataFrame]:
    adult = pd.read_csv(data_dir / "adult_missing.csv")
    adult["age5"] = (adult["age"] // 5) * 5
    testdata = pd.read_csv(data_dir / "testdata.csv")
    return {"adult": adult, "testdata": testdata}


def timed(func, *args, **kwargs):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = func(*args, **kwargs)
    return out, time.perf_counter() - t0


def main_table(frames: dict[str, pd.DataFrame], trials: int, skip_random: bool) -> None:
    print(
        "| data, QIs | rows fk<3 / fk<5 | microsdc cells k=3 (time) | x sdcMicro "
        "| microsdc cells k=5 (time) | x sdcMicro | random method k=3 / k=5 (time) |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, key, qi, r3, r5, s3, _t3, s5, _t5, rnd3, _rnd5 in CASES:
        df = frames[key]
        fk = sample_frequencies(df, qi)["fk"]
        n3, n5 = int((fk < 3).sum()), int((fk < 5).sum())
        check = "" if (n3, n5) == (r3, r5) else f" (table: {r3:,} / {r5:,})"
        cells = []
        for k, ref in ((3, s3), (5, s5)):
            res, sec = timed(local_suppression, df, qi, k, missing="wildcard")
            assert res.n_at_risk_after == 0
            cells.append(f"{res.n_cells:,} ({sec:.2f} s) | {res.n_cells / ref:.2f}")
        if rnd3 is None or skip_random:
            rnd = "—"
        else:
            parts = []
            total = 0.0
            for k in (3, 5):
                (out, _pct, left), sec = timed(
                    min_missingness_max_deid, df, qi, k, n_random_trials=trials, seed=0
                )
                blanked = int((out[qi].isna() & df[qi].notna()).to_numpy().sum())
                parts.append(f"{blanked:,}" + ("" if left == 0 else f" ({left} at risk)"))
                total += sec
            rnd = f"{parts[0]} / {parts[1]} ({total:.1f} s)"
        print(f"| {name} | {n3:,} / {n5:,}{check} | {cells[0]} | {cells[1]} | {rnd} |")
    print()
    print("sdcMicro 5.8.1 localSuppression (default importance), for reference:")
    for name, _key, _qi, _r3, _r5, s3, t3, s5, t5, rnd3, rnd5 in CASES:
        rnd = f"{rnd3:,} / {rnd5:,}" if rnd3 else "—"
        print(f"  {name}: k=3 {s3:,} ({t3:g} s), k=5 {s5:,} ({t5:g} s), random {rnd}")


def gap_table(frames: dict[str, pd.DataFrame], seeds: int) -> None:
    print()
    print(
        "Greedy vs exact (integer program, HiGHS) on random samples of testdata, "
        "QIs roof, walls, water, electcon, relat, sex:"
    )
    print(
        "| records | k | samples | at risk | cells greedy | cells exact | gap (greedy/exact - 1) "
        "| proven optimal | mean exact time |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    df = frames["testdata"]
    for n in (12, 16, 20):
        for k in (2, 3):
            g_tot = e_tot = risk = proven = 0
            sec_tot = 0.0
            for seed in range(seeds):
                sample = df.sample(n=n, random_state=seed)
                g = local_suppression(sample, TEST_QI2, k, missing="wildcard")
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", PerformanceWarning)
                    e, sec = timed(
                        local_suppression,
                        sample,
                        TEST_QI2,
                        k,
                        method="exact",
                        time_limit=30,
                        missing="wildcard",
                    )
                proven += not caught
                risk += g.n_at_risk_before
                g_tot += g.n_cells
                e_tot += e.n_cells
                sec_tot += sec
            gap = g_tot / e_tot - 1 if e_tot else 0.0
            print(
                f"| {n} | {k} | {seeds} | {risk} | {g_tot} | {e_tot} | {gap:+.0%} "
                f"| {proven}/{seeds} | {sec_tot / seeds:.1f} s |"
            )


def main() -> None:
    here = Path(__file__).resolve().parents[1]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=here.parent / "shared" / "data")
    parser.add_argument("--trials", type=int, default=25, help="random placements per share")
    parser.add_argument("--seeds", type=int, default=5, help="samples per size for the gap")
    parser.add_argument("--skip-random", action="store_true")
    args = parser.parse_args()
    frames = load(args.data_dir)
    # warm-up: load the compiled kernels once
    local_suppression(frames["testdata"].head(200), TEST_QI2, 3, missing="wildcard")
    main_table(frames, args.trials, args.skip_random)
    gap_table(frames, args.seeds)
    print()
    print(f"numpy {np.__version__}, pandas {pd.__version__}")


if __name__ == "__main__":
    main()
