"""A synthetic census: persons in households in a four-level geography.

Distributions follow sdcMicro's ``createDat`` (the dummy data of its record
swapping tests and vignette); every value is an independent discrete uniform draw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from microsdc._random import SeedLike, check_random_state
from microsdc._validation import check_int

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CENSUS_COLUMNS", "synthetic_census"]

#: Column order of :func:`synthetic_census`.
CENSUS_COLUMNS = (
    "nuts1",
    "nuts2",
    "nuts3",
    "lau2",
    "hid",
    "hsize",
    "ageGroup",
    "gender",
    "national",
    "htype",
    "hincome",
)


def synthetic_census(n_households: int = 10000, *, seed: SeedLike = None) -> pd.DataFrame:
    """Generate a synthetic census of ``n_households`` households.

    Parameters
    ----------
    n_households : int >= 1, default 10000
        Number of households; persons are about 3.5 times as many.
    seed : int >= 0, numpy.random.Generator or None, default None
        Randomness; the same seed gives the same frame.

    Returns
    -------
    pandas.DataFrame of shape (n_persons, 11), all columns int32
        One row per person, grouped and sorted by ``hid`` (1..n_households):

        * household level: ``nuts1`` in 1..3; ``nuts2 = 10 * nuts1 + d`` with d in 1..5;
          ``nuts3 = 100 * nuts2 + d`` with d in 1..15; ``lau2 = 10 * nuts3 + d`` with d
          in 1..5 (3, 15, 225 and 1,125 areas); ``hsize`` in 1..6 (the number of rows of
          the household); ``htype`` and ``hincome`` in 1..10;
        * person level: ``ageGroup`` in 1..7, ``gender`` in 1..2, ``national`` in 1..5.

    Raises
    ------
    InvalidParameterError
        If ``n_households`` is not an int >= 1 or ``seed`` is invalid.

    References
    ----------
    .. [1] sdcMicro, ``createDat`` (dummy data for ``recordSwap``),
       https://github.com/sdcTools/sdcMicro

    Examples
    --------
    >>> df = synthetic_census(100, seed=1)
    >>> list(df.columns)[:5]
    ['nuts1', 'nuts2', 'nuts3', 'lau2', 'hid']
    >>> int(df["hid"].nunique()), bool((df.groupby("hid")["hsize"].agg(["first", "size"])
    ...                                  .pipe(lambda t: t["first"] == t["size"]).all()))
    (100, True)
    """
    import numpy as np
    import pandas as pd

    n = check_int(n_households, "n_households", "synthetic_census", min_value=1)
    rng = check_random_state(seed, func="synthetic_census")
    i32 = np.int32
    nuts1 = rng.integers(1, 4, n, dtype=i32)
    nuts2 = nuts1 * 10 + rng.integers(1, 6, n, dtype=i32)
    nuts3 = nuts2 * 100 + rng.integers(1, 16, n, dtype=i32)
    lau2 = nuts3 * 10 + rng.integers(1, 6, n, dtype=i32)
    hsize = rng.integers(1, 7, n, dtype=i32)
    htype = rng.integers(1, 11, n, dtype=i32)
    hincome = rng.integers(1, 11, n, dtype=i32)
    hid = np.arange(1, n + 1, dtype=i32)
    n_persons = int(hsize.sum())
    age = rng.integers(1, 8, n_persons, dtype=i32)
    gender = rng.integers(1, 3, n_persons, dtype=i32)
    national = rng.integers(1, 6, n_persons, dtype=i32)
    rep = np.repeat(np.arange(n), hsize)
    return pd.DataFrame(
        {
            "nuts1": nuts1[rep],
            "nuts2": nuts2[rep],
            "nuts3": nuts3[rep],
            "lau2": lau2[rep],
            "hid": hid[rep],
            "hsize": hsize[rep],
            "ageGroup": age,
            "gender": gender,
            "national": national,
            "htype": htype[rep],
            "hincome": hincome[rep],
        }
    )
