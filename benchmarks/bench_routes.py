"""Which counting route is fastest, and which one the cost model picks.

Reproduce:
    python benchmarks/bench_routes.py

For a few shapes (rows, categories per QI, share missing per QI), the wildcard fk
is computed from the code matrix through each route forced in turn ("dense",
"pairs", "bitset"; "pairs" also with the complete-pattern pass switched off) and
timed (CPU seconds, best of 3, kernels compiled first). The last columns give
the route of ``choose_route`` and whether it is the fastest one allowed. Routes
that the model does not allow (dense array or bit sets too large) show "-".
Small inputs take the bit sets on purpose (one kernel to compile for a first
call), even where another route is a few milliseconds faster: "small input".
"""

from __future__ import annotations

import time

import numpy as np

SHAPES = [
    (200_000, (18, 2, 7, 16, 41, 14), 0.05),
    (200_000, (18, 2, 7, 16, 41, 14), 0.2),
    (200_000, (100, 2, 400, 6, 8, 50), 0.05),
    (200_000, (100, 2, 400, 6, 8, 50), 0.2),
    (200_000, (90, 2, 5, 7, 16, 41, 9, 15), 0.05),
    (20_000, (3,) * 20, 0.3),
    (20_000, (10,) * 8, 0.2),
    (5_000, (4,) * 12, 0.1),
]


def _codes(n: int, cards: tuple[int, ...], p: float, seed: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, c, size=n) for c in cards]).astype(np.int32)
    codes[rng.random(codes.shape) < p] = -1
    return codes


def main() -> None:
    import microsdc.risk.frequencies as kan
    from microsdc._kernels.patterns import distinct_patterns
    from microsdc._kernels.route import SMALL_NS, choose_route, route_costs

    routes = ["dense", "pairs", "pairs, no complete pass", "bitset"]
    print(
        f"{'rows':>8} {'QIs':>4} {'miss':>5} {'masks':>6} | "
        + " ".join(f"{r:>12.12}" for r in routes)
        + " | chosen  fastest?"
    )
    for n, cards, p in SHAPES:
        codes = _codes(n, cards, p)
        card = np.array(cards, dtype=np.int64)
        pat = distinct_patterns(codes, card)
        full = (1 << len(cards)) - 1
        n_masks = len(np.unique(pat.mask))
        n_complete = int(np.count_nonzero(pat.mask == full))
        costs = route_costs(len(pat.count), len(pat.count), n_masks, card, n_complete=n_complete)
        chosen = choose_route(len(pat.count), len(pat.count), n_masks, card, n_complete=n_complete)
        times: dict[str, float] = {}
        for r in routes:
            forced = r.split(",")[0]
            if not np.isfinite(costs[forced]):
                continue
            saved = kan._CROSS_MIN_COMPLETE
            if r != "pairs":
                kan._CROSS_MIN_COMPLETE = 1 << 62
            try:
                kan.frequencies_from_codes(codes[:2000], card, route=forced)
                best = np.inf
                for _ in range(3):
                    t0 = time.process_time()
                    kan.frequencies_from_codes(codes, card, route=forced)
                    best = min(best, time.process_time() - t0)
                    if best > 20:
                        break
            finally:
                kan._CROSS_MIN_COMPLETE = saved
            times[r] = best
        fastest = min(times, key=lambda r: times[r])
        cells = " ".join(f"{times[r]:>12.3f}" if r in times else f"{'-':>12}" for r in routes)
        ok = "yes" if times.get(chosen, np.inf) <= 1.2 * times[fastest] else f"no ({fastest})"
        if ok != "yes" and chosen == "bitset" and costs["bitset"] <= SMALL_NS:
            ok = f"small input ({fastest})"
        print(
            f"{n:>8,} {len(cards):>4} {p:>5.0%} {n_masks:>6} | {cells} | {chosen:>6}  {ok}",
            flush=True,
        )
    print(
        "\nCPU seconds, best of 3; 'yes' when the chosen route is within 20 % of the fastest; "
        "'small input' when the bit sets were taken as one kernel to compile (see "
        "microsdc._kernels.route)."
    )


if __name__ == "__main__":
    main()
