"""A lower bound on the cells any missing="probabilistic" suppression needs, by a linear program.

Reproduce (from the repository root, data in ../shared/data; scipy's HiGHS):

    python benchmarks/bench_probabilistic_bound.py            # T2, k = 3 and 5
    python benchmarks/bench_probabilistic_bound.py --case T1  # larger: minutes

Relaxation. Variables z[s, c] in [0, 1]: cell c of record s blanked. Suppose
a solution blanks at most X cells. Then no share can exceed
p+_c(v) = count_c(v) / (observed_c - X). For a record r at risk, let D(s) be
the columns where record s differs from r (both observed). Without a blank
of its own, r's final count is at most the sum over s of
V(s) = prod over D(s) and over the columns s misses of p+_c(r_c), and s adds
to it only if s blanks every column of D(s); so the part of the count that
r lacks, need(r) = k - (sum of V(s) over s with D(s) empty), is covered by

    need(r) * sum_c z[r, c] + sum_{s: D(s) non-empty} V(s) / |D(s)| * sum_{c in D(s)} z[s, c]

(one own blank suffices in the relaxation; a record s that helps has all of
D(s) blanked, so its average is 1; blanks that lower counts are ignored).
Every solution with at most X cells satisfies these constraints, so the LP
minimum of sum z, computed with X = the greedy's own count G, bounds the
optimum from below whenever it is at most G. It is weak (fractional helpers
spread over many records), but it is a bound.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.optimize import linprog

from microsdc.encode import encode_qis
from microsdc.exceptions import DisclosureRiskWarning
from microsdc.risk import sample_frequencies
from microsdc.suppression import local_suppression

T1 = ["urbrur", "water", "sex", "age", "relat"]
T2 = ["roof", "walls", "water", "electcon", "relat", "sex"]
CASES = {"T1": (T1, 1099, 1844), "T2": (T2, 216, 392)}


def lp_bound(codes: np.ndarray, k: int, budget: int) -> tuple[int, float]:
    """(records at risk, LP lower bound) for solutions of at most ``budget`` cells."""
    n, m = codes.shape
    observed = (codes >= 0).sum(axis=0)
    width = int(codes.max()) + 1
    p_max = np.zeros((m, width))
    for j in range(m):
        col = codes[:, j]
        tally = np.bincount(col[col >= 0], minlength=width)
        p_max[j] = np.minimum(1.0, tally / max(int(observed[j]) - budget, 1))
    frame = pd.DataFrame(np.where(codes >= 0, codes, np.nan))
    fk = sample_frequencies(frame, list(frame.columns), missing="probabilistic")["fk"]
    risky = np.flatnonzero(fk.to_numpy() < k - 1e-9)
    src_missing = codes < 0
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    rhs: list[float] = []
    for r in risky:
        v = codes[r]
        obs = v >= 0
        share = np.where(obs, p_max[np.arange(m), np.maximum(v, 0)], 1.0)
        diff = (codes != v) & ~src_missing & obs
        weight = np.where((src_missing & obs) | diff, share, 1.0).prod(axis=1)
        n_diff = diff.sum(axis=1)
        need = k - float(weight[n_diff == 0].sum())
        if need <= 1e-9:
            continue
        i = len(rhs)
        own = np.flatnonzero(obs)
        helpers, hcols = np.nonzero(diff)
        keep = helpers != r
        helpers, hcols = helpers[keep], hcols[keep]
        coef = np.minimum(weight[helpers] / n_diff[helpers], need)
        rows.append(np.full(len(own) + len(helpers), i))
        cols.append(np.concatenate([r * m + own, helpers * m + hcols]))
        vals.append(np.concatenate([np.full(len(own), need), coef]))
        rhs.append(need)
    if not rhs:
        return len(risky), 0.0
    a = sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(len(rhs), n * m),
    )
    used = np.unique(a.indices)
    a = a[:, used]
    res = linprog(np.ones(len(used)), A_ub=-a, b_ub=-np.array(rhs), bounds=(0, 1), method="highs")
    return len(risky), float(res.fun)


def main() -> None:
    here = Path(__file__).resolve().parents[1]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=here.parent / "shared" / "data")
    parser.add_argument("--case", choices=sorted(CASES), default="T2")
    args = parser.parse_args()
    warnings.simplefilter("ignore", DisclosureRiskWarning)  # columns linked to the QIs
    df = pd.read_csv(args.data_dir / "testdata.csv")
    qi, ref3, ref5 = CASES[args.case]
    codes = np.asarray(encode_qis(df, qi, warn_cardinality=False).codes, dtype=np.int64)
    print("| case | k | sdcMicro (wildcard) | at risk before | greedy cells | LP bound | seconds |")
    print("|---|---|---|---|---|---|---|")
    for k, ref in ((3, ref3), (5, ref5)):
        greedy = local_suppression(df, qi, k, missing="probabilistic").n_cells
        t0 = time.perf_counter()
        at_risk, bound = lp_bound(codes, k, greedy)
        sec = time.perf_counter() - t0
        print(
            f"| {args.case} | {k} | {ref:,} | {at_risk:,} | {greedy:,} | {bound:,.1f} | {sec:.1f} |"
        )


if __name__ == "__main__":
    main()
