"""Apply the pairs: whole households exchange their geography and carry-along values."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd

from microsdc._core.warn import warn
from microsdc._random import SeedLike
from microsdc.backends.dispatch import accepts_frames
from microsdc.exceptions import DataValidationError, HouseholdLevelWarning
from microsdc.swapping._checks import FUNC
from microsdc.swapping._prepare import Households, column_codes

__all__ = [
    "apply_pairs",
    "check_household_level_similar",
    "person_level_columns",
    "renumber_households",
    "sorted_copy",
    "warn_person_level_carry_along",
]


def sorted_copy(data: pd.DataFrame, hh: Households) -> pd.DataFrame:
    """The rows of ``data`` in hid order (stable) as a new frame; index labels follow their rows."""
    if hh.order is not None:
        return data.take(hh.order)
    if int(pd.__version__.split(".")[0]) >= 3:
        return data.copy(deep=False)  # copy-on-write: the caller's frame cannot change
    return data.copy()


def _varies(data: pd.DataFrame, col: Hashable, hh: Households) -> np.ndarray:
    """Boolean per household: does ``col`` take more than one value among its members?"""
    codes, _ = column_codes(data[col])
    if hh.order is not None:
        codes = codes[hh.order]
    differs = codes != codes[hh.first][hh.hh_of_row]
    out = np.zeros(hh.n_households, dtype=bool)
    out[hh.hh_of_row[differs]] = True
    return out


def person_level_columns(
    data: pd.DataFrame, columns: list[Hashable], hh: Households
) -> list[Hashable]:
    """The columns among ``columns`` whose values differ between members of some household."""
    return [col for col in columns if _varies(data, col, hh).any()]


def warn_person_level_carry_along(
    data: pd.DataFrame, columns: list[Hashable], hh: Households
) -> None:
    """Warn about ``carry_along`` columns that are person-level only through blanks: a
    blank next to a value inside a household makes the column exchanged member by
    member, which pairs households of the same size only."""
    for col in columns:
        codes, _ = column_codes(data[col])
        if hh.order is not None:
            codes = codes[hh.order]
        # the smallest and largest value of each household, blanks (code -1) left out
        low = np.minimum.reduceat(np.where(codes < 0, np.iinfo(np.int64).max, codes), hh.first)
        high = np.maximum.reduceat(codes, hh.first)
        by_value = (high >= 0) & (low < high)
        n_hh = int((_varies(data, col, hh) & ~by_value).sum())
        if n_hh and not by_value.any():
            warn(
                f"Column {col!r} (carry_along) has blanks next to values inside {n_hh} "
                "household(s); it is exchanged member by member, so households are paired "
                "only with households of the same size. If it is a household-level column, "
                "give every member the household's value.",
                HouseholdLevelWarning,
            )


def check_household_level_similar(
    data: pd.DataFrame, profiles: list[list[Hashable]], hh: Households, hid: Hashable
) -> None:
    """Refuse similarity columns whose values differ between members of a household.

    A similarity profile compares households; a person-level column has no one
    value to compare (the first member's value would stand for the household).

    Raises
    ------
    DataValidationError
        Naming each such column, the number of households in which it varies
        and a few of their ids.
    """
    seen: list[Hashable] = []
    found: list[str] = []
    failing: list[Hashable] = []
    rows_of = hh.first if hh.order is None else hh.order[hh.first]
    for prof in profiles:
        for col in prof:
            if col in seen:
                continue
            seen.append(col)
            varies = _varies(data, col, hh)
            n_hh = int(varies.sum())
            if n_hh:
                hids = list(data[hid].iloc[rows_of[np.flatnonzero(varies)[:3]]])
                shown = ", ".join(repr(h) for h in hids) + (", ..." if n_hh > 3 else "")
                found.append(
                    f"{col!r} (in {n_hh:,} of {hh.n_households:,} households, {hid!s} {shown})"
                )
                failing.append(col)
    if found:
        raise DataValidationError(
            f"The 'similar' parameter of {FUNC} names {len(found)} column(s) whose values "
            f"differ between the members of a household: {'; '.join(found)}. A similarity "
            "profile compares households, so each of its columns must hold one value per "
            "household: use household-level columns (the household size or type), or make "
            "one from a person column (for example the value of the household's reference "
            "person) and give that. Nothing was swapped.",
            failure_cases=failing,
            func=FUNC,
            param="similar",
        )


def apply_pairs(
    out: pd.DataFrame,
    hh: Households,
    partner: np.ndarray,
    columns: list[Hashable],
    swapped_id: Hashable | None,
    hid: Hashable,
    person_columns: list[Hashable] | None = None,
) -> pd.DataFrame:
    """Exchange ``columns`` between paired households in the hid-sorted frame ``out``.

    Every member of a swapped household gets the value of the partner household's
    first member; households not swapped are left as they are. Columns in
    ``person_columns`` are exchanged member by member instead (the i-th member of
    one household gets the value of the i-th member of its partner), which needs
    paired households of equal size. With ``swapped_id``, a column of that name is
    appended holding the partner's hid (own hid for households not swapped).
    """
    person = set(person_columns or [])
    own = hh.hh_of_row
    swapped_rows = partner[own] >= 0
    source = np.arange(len(out), dtype=np.int64)
    other = partner[own[swapped_rows]]
    source[swapped_rows] = hh.first[other]
    by_member = source
    if person:
        if (hh.size[other] != hh.size[own[swapped_rows]]).any():  # pragma: no cover - invariant
            raise AssertionError("paired households of different sizes with a person-level column")
        by_member = np.arange(len(out), dtype=np.int64)
        rows = np.flatnonzero(swapped_rows)
        by_member[rows] = hh.first[other] + (rows - hh.first[own[rows]])
    if swapped_rows.any():
        for col in columns:
            out[col] = out[col].array.take(by_member if col in person else source)
    if swapped_id is not None:
        out[swapped_id] = out[hid].array.take(source)
    return out


def renumbering_generator(seed: int | None = None) -> np.random.Generator:
    """The generator of the new household ids of a release swapped with ``seed``.

    A stream of its own, spawned from the swap's seed (never the swap's own
    draws): the new ids follow neither the original ids nor the swap's choices,
    and the same seed renumbers the same way in a job and on the command line.
    ``None`` gives fresh randomness.
    """
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(2)[1])


@accepts_frames()
def renumber_households(data: pd.DataFrame, hid: Hashable, seed: SeedLike = None) -> pd.DataFrame:
    """Give the households new ids ``1 .. n_households`` in random order.

    Household ids numbered area by area (or embedding the area) tell the
    original area of a swapped household; so does the row order of a file
    sorted by such ids. This returns a new frame in which ``hid`` holds random
    new ids (int64) and the rows are sorted by them (members of a household
    keep their order).

    Parameters
    ----------
    data : pandas.DataFrame of shape (n_rows, n_columns)
        Never modified.
    hid : column name
        Household id column (no missing values).
    seed : int >= 0, numpy.random.Generator or None, default None
        Randomness. Never release it: with the data it reproduces the old ids.

    Returns
    -------
    pandas.DataFrame of shape (n_rows, n_columns)
        Same columns; ``hid`` replaced by int64 ids; rows in new-id order with
        a fresh ``RangeIndex`` (the old index would give the old order back).

    Raises
    ------
    ColumnNotFoundError
        If ``hid`` is not a column of ``data``.
    DataValidationError
        If ``hid`` has missing values.
    InvalidParameterError
        For a bad ``seed``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"hid": ["a1", "a1", "a2", "b1"], "area": [1, 1, 1, 2]})
    >>> out = renumber_households(df, "hid", seed=3)
    >>> sorted(out["hid"].unique().tolist()), int(out.groupby("hid")["area"].nunique().max())
    ([1, 2, 3], 1)
    """
    from microsdc._random import check_random_state
    from microsdc.swapping._checks import check_missing, resolve_columns

    func = "renumber_households"
    col = resolve_columns(data, hid, "hid", single=True, func=func)[0]
    check_missing(data, {col: "hid"})
    rng = check_random_state(seed, func=func)
    codes, uniques = pd.factorize(data[col])
    new_ids = rng.permutation(len(uniques)).astype(np.int64) + 1
    new = new_ids[codes]
    order = np.argsort(new, kind="stable")
    out = data.take(order).reset_index(drop=True)
    out[col] = new[order]
    return out
