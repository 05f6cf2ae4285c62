"""Cost of the check for columns that give the geography back, next to the swap itself.

Reproduce with::

    python benchmarks/bench_swap_geography.py            # 100k, 1M and 2.9M households
    python benchmarks/bench_swap_geography.py 100000     # chosen sizes only

Settings: synthetic census, hierarchy nuts1 > nuts2 > nuts3, lau2 carried along,
similar = hsize, swaprate 0.05, k = 3, risk variables ageGroup + national. The
check tests every other column (8 of the census's 11); it is timed on its own
(``nested_columns`` after ``prepare_households``), then the whole swap, which
includes it. Best of 2 runs.
"""

from __future__ import annotations

import sys
import time
import warnings

from microsdc.datasets import synthetic_census
from microsdc.swapping import record_swap
from microsdc.swapping._geography import nested_columns
from microsdc.swapping._prepare import prepare_households

SIZES = (100_000, 1_000_000, 2_900_000)
HIER = ["nuts1", "nuts2", "nuts3"]
KW = dict(
    similar=["hsize"],
    swaprate=0.05,
    k_anonymity=3,
    risk_variables=["ageGroup", "national"],
    carry_along=["lau2"],
    seed=1,
)


def main(sizes: tuple[int, ...]) -> None:
    warnings.simplefilter("ignore")  # households without a donor: not the point here
    record_swap(synthetic_census(500, seed=0), "hid", HIER, **KW)  # load compiled kernels
    print(f"{'households':>12}{'persons':>12}{'check s':>10}{'swap s':>10}{'share':>8}")
    for n in sizes:
        data = synthetic_census(n, seed=2021)
        check, swap = [], []
        for _ in range(2):
            hh = prepare_households(data, "hid", HIER)
            t1 = time.perf_counter()
            nested_columns(data, hh, HIER, ["hid", *HIER, "lau2"])
            check.append(time.perf_counter() - t1)
            t2 = time.perf_counter()
            record_swap(data, "hid", HIER, **KW)
            swap.append(time.perf_counter() - t2)
        c, s = min(check), min(swap)
        print(f"{n:>12,}{len(data):>12,}{c:>10.2f}{s:>10.2f}{c / s:>8.0%}")


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or SIZES)
