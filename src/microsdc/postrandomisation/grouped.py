"""A column that groups the records by household, left in a release PRAMmed person by person.

A household-level variable (roof, walls) PRAMmed record by record gives the members of a
household different values; whoever can group the members (a household id left in the
release) takes the majority within each household and gets most original values back.
:func:`warn_grouped` finds such columns after PRAM: a column of the frame whose groups of
two or more records held one value of a PRAMmed variable (nearly all of them) before PRAM
and no longer do after. It is cheap: only columns with between ``n / 50`` and ``n / 1.2``
distinct values are looked at, by one vectorised group-by per (column, variable).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import pandas as pd

from microsdc._core.warn import warn

__all__ = ["grouping_columns", "warn_grouped"]

#: Share of a column's groups (two or more records) in which a variable must have been
#: constant before PRAM for the column to count as that variable's household id.
CONSTANT_SHARE = 0.95
#: Fewest groups of two or more records a column needs to count.
MIN_GROUPS = 5


def _codes(series: pd.Series) -> np.ndarray:
    from microsdc.data.hashable import factorize_any

    codes, _ = factorize_any(series)
    return np.asarray(codes, dtype=np.int64)


def _candidates(df: pd.DataFrame, skip: set[Hashable]) -> list[tuple[Hashable, np.ndarray]]:
    """Columns with between n/50 and n/1.2 distinct values, as group codes (-1: missing)."""
    n = len(df)
    out: list[tuple[Hashable, np.ndarray]] = []
    for c in df.columns:
        if c in skip:
            continue
        try:
            d = int(df[c].nunique(dropna=True))
        except TypeError:  # unhashable cells (lists): not an id
            continue
        if n / 50 <= d <= n / 1.2:
            out.append((c, _codes(df[c])))
    return out


def _value_codes(before: pd.Series, after: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """A variable's values before and after PRAM as codes of one factorisation."""
    both = pd.concat([before.reset_index(drop=True), after.reset_index(drop=True)])
    codes = _codes(both)
    return codes[: len(before)], codes[len(before) :]


def _disagreeing(groups: np.ndarray, codes: tuple[np.ndarray, np.ndarray]) -> int | None:
    """Groups (two or more records) that held one value of the variable (its codes before
    and after) before and do not after; None unless it held one value in nearly all
    groups before."""
    frame = pd.DataFrame({"g": groups, "b": codes[0], "a": codes[1]})[groups >= 0]
    sizes = frame.groupby("g")["b"].transform("size")
    frame = frame[sizes >= 2]
    if frame["g"].nunique() < MIN_GROUPS:
        return None
    spread = frame.groupby("g").agg(
        bl=("b", "min"), bh=("b", "max"), al=("a", "min"), ah=("a", "max")
    )
    constant = spread["bl"] == spread["bh"]
    if constant.mean() < CONSTANT_SHARE:
        return None
    return int((constant & (spread["al"] != spread["ah"])).sum())


def grouping_columns(
    before: pd.DataFrame, after: pd.DataFrame, columns: Sequence[Hashable]
) -> list[tuple[Hashable, Hashable, int]]:
    """(variable, grouping column, groups whose members now disagree) for every PRAMmed
    ``columns`` variable and every other unchanged column that behaves as its household
    id (see the module docstring)."""
    skip: set[Hashable] = {
        c for c in before.columns if c in set(columns) or not before[c].equals(after[c])
    }
    found: list[tuple[Hashable, Hashable, int]] = []
    candidates = _candidates(before, skip)
    if not candidates:
        return found
    coded = {c: _value_codes(before[c], after[c]) for c in columns}  # once per variable
    for name, groups in candidates:
        for c in columns:
            k = _disagreeing(groups, coded[c])
            if k:
                found.append((c, name, k))
    return found


def warn_grouped(before: pd.DataFrame, after: pd.DataFrame, columns: Sequence[Hashable]) -> None:
    """Warn (``DisclosureRiskWarning``) for every :func:`grouping_columns` finding, naming
    the variable, the column, the groups whose members now disagree and the fix."""
    from microsdc.exceptions import DisclosureRiskWarning

    for c, name, k in grouping_columns(before, after, columns):
        warn(
            f"PRAM of {c!r} can be undone through {name!r}: {c!r} was the same for the "
            f"records of (nearly) every {name!r} value, and now differs within {k:,} of them; "
            f"the majority of each group gives the original value back. If {name!r} is a "
            f"household id, PRAM by household (hid={name!r}; job file: pram.household_id), "
            f"or drop {name!r} from the release.",
            DisclosureRiskWarning,
        )
