"""Which subsets of the quasi-identifiers are k-anonymous (apriori search)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import MissingPolicy, Policy
from microsdc._validation import check_bool, check_int, param_error
from microsdc.backends.dispatch import accepts_frames
from microsdc.encode import EncodedQIs, MissingValues

__all__ = ["safe_combinations"]


def _on_engine(
    df: Any,
    quasi_identifiers: Sequence[Hashable],
    k: int,
    min_combi_size: int,
    max_combi_size: int | None,
    *,
    maximal: bool,
    missing: MissingPolicy,
    missing_values: MissingValues,
) -> list[list[Hashable]]:
    """:func:`safe_combinations` of a polars, pyarrow, DuckDB or Spark frame: the engine
    gives the distinct patterns with their record counts, and the search runs on them."""
    from microsdc.backends.adapters import adapt
    from microsdc.risk.counting import key_rows

    func = "safe_combinations"
    k = check_int(k, "k", func, min_value=1)
    min_size, max_size, maximal = _check_sizes(
        min_combi_size, max_combi_size, maximal, len(list(quasi_identifiers)), func
    )
    keys = key_rows(adapt(df, func), quasi_identifiers, missing, None, missing_values, func)
    return _search(keys.enc, keys.policy, k, min_size, max_size, maximal, keys.records)


@accepts_frames(lazy=_on_engine, eager=_on_engine)
def safe_combinations(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[Hashable],
    k: int,
    min_combi_size: int = 2,
    max_combi_size: int | None = None,
    *,
    maximal: bool = False,
    missing: MissingPolicy = "wildcard",
    missing_values: MissingValues = None,
) -> list[list[Hashable]]:
    """Subsets of the quasi-identifiers under which the data are k-anonymous.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        Never modified.
    quasi_identifiers : list of column names
    k : int >= 1
    min_combi_size : int >= 1, default 2
        Smallest subset size reported.
    max_combi_size : int >= min_combi_size, optional
        Largest subset size examined (all QIs by default).
    maximal : bool, default False
        Report only the maximal safe subsets: those with no safe superset of
        size <= ``max_combi_size``.
    missing, missing_values
        As in :func:`microsdc.sample_frequencies`.

    Returns
    -------
    list of lists of column names
        Each safe subset with its columns in the order of ``quasi_identifiers``;
        subsets ordered by size, then in the order of ``itertools.combinations``.

    Raises
    ------
    InvalidParameterError
        For a bad ``k``, sizes, or policy; ``max_combi_size < min_combi_size``.
    ColumnNotFoundError, DataValidationError
        As in :func:`microsdc.sample_frequencies`.

    Notes
    -----
    Adding a quasi-identifier can only lower fk (also with wildcards: a record
    compatible on more columns is compatible on fewer), so a superset of an
    unsafe subset is unsafe. The search goes level by level from single columns
    and counts a subset only when all its subsets one column smaller are safe
    (apriori pruning). Singletons are counted for pruning even when
    ``min_combi_size`` > 1.

    References
    ----------
    kanonymity 0.1.0 ``safe_combinations`` (same name, arguments and return shape);
    Agrawal & Srikant (1994), fast algorithms for mining association rules (apriori).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [1, 1, 2, 2], "b": [1, 2, 1, 2], "c": [1, 1, 1, 1]})
    >>> safe_combinations(df, ["a", "b", "c"], k=2)
    [['a', 'c'], ['b', 'c']]
    >>> safe_combinations(df, ["a", "b", "c"], k=2, min_combi_size=1, maximal=True)
    [['a', 'c'], ['b', 'c']]
    """
    func = "safe_combinations"
    from microsdc.risk.counting import prepare_with_k

    k, enc, policy, _ = prepare_with_k(
        df, quasi_identifiers, k, missing, None, missing_values, func
    )
    min_size, max_size, maximal = _check_sizes(
        min_combi_size, max_combi_size, maximal, len(enc.columns), func
    )
    return _search(enc, policy, k, min_size, max_size, maximal, None)


def _check_sizes(
    min_combi_size: Any, max_combi_size: Any, maximal: Any, m: int, func: str
) -> tuple[int, int, bool]:
    min_size = check_int(min_combi_size, "min_combi_size", func, min_value=1)
    if max_combi_size is None:
        max_size = m
    else:
        max_size = check_int(max_combi_size, "max_combi_size", func, min_value=1)
        if max_size < min_size:
            raise param_error(
                "max_combi_size",
                func,
                f"an int >= min_combi_size ({min_size}) or None",
                max_combi_size,
            )
    return min_size, min(max_size, m), check_bool(maximal, "maximal", func)


def _search(
    enc: EncodedQIs,
    policy: Policy,
    k: int,
    min_size: int,
    max_size: int,
    maximal: bool,
    counts: np.ndarray | None,
) -> list[list[Hashable]]:
    """Apriori search; ``counts`` gives each encoded row's number of records (None: 1 each)."""
    from microsdc.risk.kanonymity import frequencies_from_codes

    m = len(enc.columns)
    n_cat = enc.n_categories

    def is_safe(cols: tuple[int, ...]) -> bool:
        if enc.n_rows == 0:
            return True
        idx = list(cols)
        res = frequencies_from_codes(enc.codes[:, idx], n_cat[idx], policy=policy, counts=counts)
        return bool(np.all(res.fk >= k - 1e-9))

    safe_by_size: dict[int, list[tuple[int, ...]]] = {}
    level: list[tuple[int, ...]] = [(j,) for j in range(m)]
    size = 1
    while level and size <= max_size:
        safe_now = [c for c in level if is_safe(c)]
        safe_by_size[size] = safe_now
        safe_set = set(safe_now)
        size += 1
        nxt: list[tuple[int, ...]] = []
        for combo in combinations(range(m), size):
            if all(sub in safe_set for sub in combinations(combo, size - 1)):
                nxt.append(combo)
        level = nxt

    result: list[tuple[int, ...]] = []
    for s in range(min_size, max_size + 1):
        result.extend(safe_by_size.get(s, []))
    if maximal:
        bigger = [set(c) for s in range(2, max_size + 1) for c in safe_by_size.get(s, [])]
        result = [c for c in result if not any(set(c) < b for b in bigger)]
    return [[enc.columns[j] for j in combo] for combo in result]
