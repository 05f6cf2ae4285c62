"""Local suppression under ``missing="category"``: cells against proven lower bounds.

Reproduce (from the repository root, data in ../shared/data):

    python benchmarks/bench_category.py                # the table (bounds take ~1-2 min)
    python benchmarks/bench_category.py --exact T2     # also the exact optimum of T2 (HiGHS)
    python benchmarks/bench_category.py --scale        # also 1,000,000 rows

Cases as in bench_guarantees.py (S1, S2 on adult_missing with age in 5-year
bands; T1, T2 on testdata), k = 3 and 5, default importance. "before" is the
number of cells blanked by ``local_suppression(..., missing="category")`` before
the local-improvement pass (commit 8d1a40a). Each run is one call of
local_suppression (encoding, counts, prosecutor risk included) after a warm-up
that loads the compiled kernels; "s wall" is the elapsed time, "s cpu" the
process's CPU time (on a shared machine the wall time includes waiting for a
core). The first call of the session (compile or load of the cached kernels) is
printed separately.

Bounds (each a lower bound on the cells of any solution, see
``microsdc.suppression._category_bound``):
- "comb.": ``bench_guarantees.category_lower_bound`` (the bound used before);
- "record": every record of a class below k costs at least the cheapest target
  of support >= k;
- "LP dual": the value of a feasible dual solution of the linear relaxation,
  rounded up;
- "exact" (with --exact): the optimum of the integer program, solved by HiGHS to
  optimality (a gap of 0).
"ratio" is cells / the best of these.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_guarantees import CASES, category_lower_bound, load

from microsdc.exceptions import DisclosureRiskWarning
from microsdc.suppression import local_suppression
from microsdc.suppression._category_bound import category_bounds

#: cells of missing="category" before the improvement pass (commit 8d1a40a)
BEFORE = {
    ("S1", 3): 5180,
    ("S1", 5): 7370,
    ("S2", 3): 18772,
    ("S2", 5): 25965,
    ("T1", 3): 1146,
    ("T1", 5): 1925,
    ("T2", 3): 302,
    ("T2", 5): 554,
}


def codes_of(df: pd.DataFrame, qi: list[str]) -> tuple[np.ndarray, np.ndarray]:
    cols = [pd.factorize(df[c])[0] for c in qi]
    codes = np.column_stack(cols).astype(np.int64)
    return codes, codes.max(axis=0) + 1


def exact_optimum(codes: np.ndarray, k: int, time_limit: float) -> float:
    """The integer program's proven lower bound (its optimum when solved to gap 0).

    Variables: records of each distinct tuple released as each target of support >= k
    (integer), and whether each target is used (binary); every record released once,
    a used target holds at least k records.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_array

    tuples, counts = np.unique(codes, axis=0, return_counts=True)
    m = tuples.shape[1]
    obs = tuples >= 0
    radix = np.cumprod(np.r_[1, tuples.max(axis=0)[:-1] + 2]).astype(np.int64)
    pt, pu, pa = [], [], []
    n_t = 0
    for blank in range(1 << m):
        in_b = np.array([(blank >> j) & 1 == 1 for j in range(m)])
        elig = np.flatnonzero(obs[:, ~in_b].all(axis=1))
        proj = tuples[elig].copy()
        proj[:, in_b] = -1
        _, inv = np.unique((proj + 1) @ radix, return_inverse=True)
        inv = inv.reshape(-1)
        support = np.bincount(inv, weights=counts[elig])
        tid = np.cumsum(support >= k) - 1 + n_t
        on = (support >= k)[inv]
        n_t += int((support >= k).sum())
        pt.append(tid[inv][on])
        pu.append(elig[on])
        pa.append(obs[elig][on][:, in_b].sum(axis=1))
    t, u, a = (np.concatenate(x) for x in (pt, pu, pa))
    n_p, n_u = len(t), len(tuples)
    rows = np.concatenate([u, n_u + np.arange(n_p), n_u + np.arange(n_p), n_u + n_p + t])
    cols = np.concatenate([np.arange(n_p), np.arange(n_p), n_p + t, np.arange(n_p)])
    vals = np.concatenate([np.ones(n_p), np.ones(n_p), -counts[u], np.ones(n_p)])
    rows = np.concatenate([rows, n_u + n_p + np.arange(n_t)])
    cols = np.concatenate([cols, n_p + np.arange(n_t)])
    vals = np.concatenate([vals, np.full(n_t, -float(k))])
    a_mat = coo_array((vals, (rows, cols)), shape=(n_u + n_p + n_t, n_p + n_t)).tocsr()
    lb = np.concatenate([counts, np.full(n_p, -np.inf), np.zeros(n_t)])
    ub = np.concatenate([counts, np.zeros(n_p), np.full(n_t, np.inf)])
    res = milp(
        np.concatenate([a, np.zeros(n_t)]).astype(float),
        integrality=np.ones(n_p + n_t),
        bounds=Bounds(0, np.concatenate([counts[u], np.ones(n_t)])),
        constraints=LinearConstraint(a_mat, lb, ub),
        options={"time_limit": time_limit, "mip_rel_gap": 0.0},
    )
    print(f"  exact: {res.message} value {res.fun} dual bound {res.mip_dual_bound}", flush=True)
    return float(np.ceil(res.mip_dual_bound - 1e-6))


def first_call() -> float:
    """Seconds of the first category run in a fresh process (kernel compile or cache load)."""
    code = (
        "import time, pandas as pd; t = time.perf_counter(); "
        "from microsdc.suppression import local_suppression; "
        "df = pd.DataFrame({'a': [1, 1, 2, 3] * 50, 'b': [1, 2, 2, 3] * 50}); "
        "df.loc[0, 'a'] = 9; local_suppression(df, ['a', 'b'], 3, missing='category'); "
        "print(time.perf_counter() - t)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    here = Path(__file__).resolve().parents[1]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=here.parent / "shared" / "data")
    parser.add_argument("--exact", nargs="*", default=[], help="cases to solve exactly")
    parser.add_argument("--iterations", type=int, default=300, help="dual ascent steps")
    parser.add_argument("--scale", action="store_true", help="also 1,000,000 rows")
    args = parser.parse_args()
    print(f"first call in a fresh process (import + kernels): {first_call():.2f} s")
    frames = load(args.data_dir)
    local_suppression(frames["testdata"].head(300), CASES[3][2], 3, missing="category")
    warnings.simplefilter("ignore", DisclosureRiskWarning)
    print(
        "| case | k | before | after | comb. | record | LP dual | exact | best bound "
        "| ratio | s wall | s cpu |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, key, qi, _, _ in CASES:
        df = frames[key]
        codes, ncat = codes_of(df, qi)
        for k in (3, 5):
            t0, c0 = time.perf_counter(), time.process_time()
            res = local_suppression(df, qi, k, missing="category")
            sec, cpu = time.perf_counter() - t0, time.process_time() - c0
            comb = category_lower_bound(df, qi, k)
            b = category_bounds(codes, ncat, k, upper=res.n_cells, iterations=args.iterations)
            ex = exact_optimum(codes, k, 3600.0) if name in args.exact else float("nan")
            best = max(comb, b["record"], b["dual"], 0 if np.isnan(ex) else ex)
            which = "exact" if best == ex else "LP dual" if best == b["dual"] else "other"
            print(
                f"| {name} | {k} | {BEFORE[(name, k)]:,} | {res.n_cells:,} | {comb:,} "
                f"| {b['record']:,.0f} | {b['dual']:,.0f} | "
                f"{'-' if np.isnan(ex) else f'{ex:,.0f}'} | {best:,.0f} ({which}) "
                f"| {res.n_cells / best:.3f} | {sec:.2f} | {cpu:.2f} |",
                flush=True,
            )
    if args.scale:
        from bench_suppression_scale import make_data

        qi6 = [f"q{j}" for j in range(6)]
        for dist in ("uniform", "skewed"):
            df = make_data(1_000_000, dist=dist)
            t0, c0 = time.perf_counter(), time.process_time()
            res = local_suppression(df, qi6, 3, missing="category")
            print(
                f"1,000,000 rows {dist}: {res.n_cells:,} cells, "
                f"{time.perf_counter() - t0:.2f} s wall, {time.process_time() - c0:.2f} s cpu",
                flush=True,
            )
    print(f"numpy {np.__version__}, pandas {pd.__version__}")


if __name__ == "__main__":
    main()
