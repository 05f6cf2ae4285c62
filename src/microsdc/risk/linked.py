"""Columns that give back a key variable: linked ("ghost") variables.

A column that is not a key variable can still tell its value: ``education-num``
is a one-to-one code of ``education``, ``relationship = "Husband"`` says
``sex = "Male"``. Blanking ``education`` while releasing ``education-num``
protects nothing. sdcMicro calls such columns *ghost variables* and suppresses
them wherever their key variable is suppressed; :func:`local_suppression`
does the same with ``linked=``. The two functions here find such columns:
:func:`linked_columns` before suppression, :func:`recoverable_cells` after it.

The rule (:mod:`microsdc.risk.readback`): a protected value of a record is
*given back* by a column C when the other records that share its value of C
hold it so often that the guess read from C is wrong at most a quarter as often as
the same guess made blind (share of the value among all records), and that
agreement is no accident (binomial tail at most 5 %). The intruder learns the
relation and the value's share from what the release shows (the records that
show both), and a value the release no longer shows at all from outside (a
codebook: only for a column with at least :data:`CODE_SIZE` records per value
on average, a code rather than an identifier), so rare values count: two
records sharing a code suffice. A column is judged by the share of the
protected values it gives back: flagged from ``share`` (default 10 %) on. A
column that only repeats the most frequent value (``Salary`` for
``native-country``: "United-States") gains the intruder nothing and is not
flagged, however many cells it "agrees" with.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.warn import warn
from microsdc._validation import (
    check_columns,
    check_frame,
    check_int,
    check_missing_values,
    check_number,
)
from microsdc.encode import MissingValues, missing_values_for
from microsdc.exceptions import InvalidParameterError
from microsdc.risk.readback import CHANCE, SHARE, given_back

__all__ = [
    "linked_columns",
    "recoverable_by_order",
    "recoverable_cells",
    "warn_row_order",
    "warn_row_order_unchecked",
]

#: Default number of other records with the same value of the column needed for a guess.
MIN_COUNT = 1
#: Records per value (on average) from which a column counts as a code whose meaning an
#: intruder knows from outside the release (a codebook), not as an identifier.
CODE_SIZE = 10


def _codes(series: pd.Series, missing: list[Any]) -> np.ndarray:
    """Dense integer codes of a column in order of appearance, -1 for missing (unsorted: fast)."""
    from microsdc.data.hashable import factorize_any
    from microsdc.encode import missing_mask

    values = series.astype(object) if isinstance(series.dtype, pd.CategoricalDtype) else series
    codes, _ = factorize_any(values)  # lists and dicts by their contents
    if missing:
        codes = np.where(missing_mask(series, missing), -1, codes)
    return codes


def _check(share: Any, min_count: Any, func: str) -> tuple[float, int]:
    s = check_number(share, "share", func, low=0.0, high=1.0, low_open=True)
    m = check_int(min_count, "min_count", func, min_value=1)
    return float(s), int(m)


def _others(df: pd.DataFrame, keys: list[Hashable], columns: Any, func: str) -> list[Hashable]:
    if columns is None:
        return [c for c in df.columns if c not in set(keys)]
    cols = check_columns(df, columns, "columns", func, allow_empty=True)
    both = [c for c in cols if c in set(keys)]
    if both:
        raise InvalidParameterError(
            f"The 'columns' parameter of {func} names key variables: "
            f"{', '.join(repr(c) for c in both)}.",
            func=func,
            param="columns",
        )
    return cols


def _checked(
    df: pd.DataFrame,
    key_variables: Sequence[Hashable],
    columns: Sequence[Hashable] | None,
    share: float,
    min_count: int,
    missing_values: MissingValues,
    func: str,
    original: pd.DataFrame | None = None,
) -> tuple[list[Hashable], list[Hashable], float, int]:
    """The parameters of :func:`linked_columns` and :func:`recoverable_cells` checked
    against ``df`` (and the key variables against ``original`` too, when given): the key
    variables, the columns to examine, ``share`` and ``min_count``."""
    keys = check_columns(df, key_variables, "key_variables", func)
    if original is not None:
        check_columns(original, keys, "key_variables", func)
    share, min_count = _check(share, min_count, func)
    check_missing_values(missing_values, "missing_values", func)
    return keys, _others(df, keys, columns, func), share, min_count


def linked_columns(
    df: pd.DataFrame,
    key_variables: Sequence[Hashable],
    *,
    columns: Sequence[Hashable] | None = None,
    share: float = SHARE,
    min_count: int = MIN_COUNT,
    missing_values: MissingValues = None,
) -> pd.DataFrame:
    """Non-key columns from which the value of a key variable can be read.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        The data to be released. Never modified.
    key_variables : list of column names
        The key variables (quasi-identifiers).
    columns : list of column names, optional
        The columns to examine; default every column that is not a key
        variable.
    share : float in (0, 1], default 0.1
        A pair is reported when the column gives back at least this share of
        the records that show both (each record judged as if its key value
        were blanked, by the rule of the module docstring).
    min_count : int >= 1, default 1
        Other records with the record's value of the column needed for a
        guess (1: two records sharing a code suffice).
    missing_values : sequence or dict, optional
        Codes that mean "missing" besides NaN/None/pd.NA/NaT.

    Returns
    -------
    pandas.DataFrame
        One row per (key variable, column) pair through which at least
        ``share`` of the records' key values can be read, with columns
        ``key_variable``, ``column``, ``n_records`` (records whose key value
        the column gives back, each judged against the other records) and
        ``share`` (of the records with both observed); sorted by decreasing
        ``n_records``.

    Raises
    ------
    InvalidParameterError
        For a bad ``share`` or ``min_count``, or ``columns`` naming a key
        variable.
    ColumnNotFoundError
        For unknown columns.

    Notes
    -----
    Such a column undoes local suppression: pass it to
    :func:`microsdc.local_suppression` as ``linked={key: [column]}`` (it is
    then blanked wherever the key variable is), recode it, or leave it out of
    the release.

    References
    ----------
    sdcMicro ``localSuppression`` and ``createSdcObj`` (``ghostVars``).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"educ": ["BA"] * 30 + ["MA"] * 30, "years": [16] * 30 + [18] * 30})
    >>> linked_columns(df, ["educ"]).values.tolist()
    [['educ', 'years', 60, 1.0]]
    """
    func = "linked_columns"
    check_frame(df, "df", func)
    keys, others, share, min_count = _checked(
        df, key_variables, columns, share, min_count, missing_values, func
    )
    rows = []
    coded = {c: _codes(df[c], missing_values_for(missing_values, c)) for c in others}
    for key in keys:
        k = _codes(df[key], missing_values_for(missing_values, key))
        shown = k[k >= 0]
        for col in others:
            c = coded[col]
            both = (c >= 0) & (k >= 0)
            cb, kb = c[both], k[both]
            in_ref = np.ones(len(cb), dtype=bool)
            hit = int(given_back(cb, kb, shown, cb, kb, in_ref, min_count=min_count).sum())
            if hit and hit >= share * len(cb):
                rows.append((key, col, hit, float(hit / len(cb))))
    out = pd.DataFrame(rows, columns=["key_variable", "column", "n_records", "share"])
    return out.sort_values("n_records", ascending=False, kind="stable").reset_index(drop=True)


def recoverable_cells(
    original: pd.DataFrame,
    released: pd.DataFrame,
    key_variables: Sequence[Hashable],
    *,
    columns: Sequence[Hashable] | None = None,
    share: float = SHARE,
    min_count: int = MIN_COUNT,
    missing_values: MissingValues = None,
) -> pd.DataFrame:
    """Blanked key-variable cells whose original value other released columns give back.

    Parameters
    ----------
    original, released : pandas.DataFrame
        The data before and after suppression: same index and row order.
        Never modified.
    key_variables : list of column names
        The key variables that were suppressed.
    columns : list of column names, optional
        Released columns to examine; default every released column that is
        not a key variable.
    share : float in (0, 1], default 0.1
        A pair is reported when the column gives back at least this share of
        the blanked cells of the key variable.
    min_count : int >= 1, default 1
        Other records with the cell's value of the column needed for a guess.
    missing_values : sequence or dict, optional
        Codes that mean "missing" besides NaN/None/pd.NA/NaT.

    Notes
    -----
    A blanked cell is recoverable from a column when the column's value in the
    released record gives it back by the rule of the module docstring: the
    other records with that value hold the cell's original
    value so often that the guess is wrong at most a quarter as often as a blind
    one, and the agreement is no accident. Both guesses are learned from the
    released records that show the key variable (the column as released:
    renumbered, swapped); a key value that no released record shows any more
    is learned from the original values of the records that held it (a
    codebook says what a code means; only for a column with at least 10
    records per value on average, not an identifier), each record left out
    of its own guess. The intruder's guesses
    are scored on the blanked cells themselves: a column that "agrees" with
    many cells only because it repeats the most frequent value gives nothing
    back, and a code whose rare values were all blanked gives them back all
    the same.

    Returns
    -------
    pandas.DataFrame
        One row per (key variable, column) pair whose column gives back at
        least ``share`` of the blanked cells: ``key_variable``, ``column``,
        ``n_blanked`` (cells of the key variable blanked), ``n_recoverable``
        (of them, given back by the column) and ``share`` (their ratio);
        sorted by decreasing ``n_recoverable``.

    Raises
    ------
    InvalidParameterError
        For frames of different lengths, a bad ``share`` or ``min_count``.
    ColumnNotFoundError
        For unknown columns.

    Examples
    --------
    >>> import pandas as pd
    >>> before = pd.DataFrame({"educ": ["BA"] * 30 + ["MA"] * 30, "years": [16] * 30 + [18] * 30})
    >>> after = before.assign(educ=[None] + ["BA"] * 29 + ["MA"] * 30)
    >>> recoverable_cells(before, after, ["educ"]).values.tolist()
    [['educ', 'years', 1, 1, 1.0]]
    """
    func = "recoverable_cells"
    check_frame(original, "original", func)
    check_frame(released, "released", func)
    if len(original) != len(released):
        raise InvalidParameterError(
            f"The frames of {func} must have the same records: {len(original)} rows in "
            f"'original', {len(released)} in 'released'.",
            func=func,
            param="released",
            related=("original",),
        )
    keys, others, share, min_count = _checked(
        released, key_variables, columns, share, min_count, missing_values, func, original
    )
    rows = []
    coded: dict[Hashable, np.ndarray] = {}
    is_code: dict[Hashable, bool] = {}
    for key in keys:
        before, after = _before_after(original[key], released[key], missing_values, key)
        blanked = np.flatnonzero((before >= 0) & (after < 0))
        if not len(blanked):
            continue
        # what the intruder sees: the released values; a value the release no longer
        # shows at all is known from outside (a codebook), with the records that held it
        shown = after[after >= 0]
        vanished = np.zeros(int(before.max(initial=-1)) + 2, dtype=bool)
        vanished[before[before >= 0]] = True
        vanished[shown] = False
        gone = (before >= 0) & vanished[np.maximum(before, 0)] & (after < 0)
        known = (after >= 0) | gone
        for col in others:
            if col not in coded:
                coded[col] = _codes(released[col], missing_values_for(missing_values, col))
            rel_c = coded[col]
            observed = rel_c >= 0
            if col not in is_code:
                is_code[col] = _is_code(rel_c[observed], int(observed.sum()))
            code = is_code[col]
            ref = observed & (known if code else after >= 0)
            tgt_c = rel_c[blanked]
            hit = int(
                given_back(
                    rel_c[ref],
                    before[ref],
                    shown,
                    tgt_c,
                    before[blanked],
                    (tgt_c >= 0) & gone[blanked] & code,
                    min_count=min_count,
                    in_shown=False,
                ).sum()
            )
            if hit and hit >= share * len(blanked):
                rows.append((key, col, len(blanked), hit, hit / len(blanked)))
    out = pd.DataFrame(
        rows, columns=["key_variable", "column", "n_blanked", "n_recoverable", "share"]
    )
    return out.sort_values("n_recoverable", ascending=False, kind="stable").reset_index(drop=True)


def _is_code(observed_codes: np.ndarray, n_observed: int) -> bool:
    """Whether a column whose observed values have the codes ``observed_codes`` (one per
    distinct value, or one per record) and ``n_observed`` records is a code an intruder
    knows from outside: at least :data:`CODE_SIZE` records per distinct value. The
    codes are :func:`_codes`' (dense, >= 0), so they are told apart by counting."""
    distinct = int(np.count_nonzero(np.bincount(observed_codes))) if len(observed_codes) else 0
    return CODE_SIZE * distinct <= n_observed


def recoverable_counted(
    before: pd.DataFrame,
    after: pd.DataFrame,
    key: Hashable,
    column: Hashable,
    *,
    missing_values: MissingValues = None,
    min_count: int = MIN_COUNT,
    count: Hashable = "n",
) -> tuple[int, int]:
    """:func:`recoverable_cells` for one (key variable, column) pair, from counts.

    Parameters
    ----------
    before, after : pandas.DataFrame
        The distinct (column, key variable) combinations of the records before and
        after suppression, with their numbers of records: columns ``column``, ``key``
        and ``count``, as an engine's group-by gives them (missing values kept as
        groups).
        The suppression blanks cells and changes nothing else: a record that shows
        the key variable after shows its value before, and the column is unchanged.
    key, column : column names
    missing_values : sequence or dict, optional
        Codes that mean "missing" besides NaN/None/pd.NA/NaT.
    min_count : int >= 1
        As in :func:`recoverable_cells`.
    count : column name, default "n"
        The column of ``before`` and ``after`` with the numbers of records.

    Returns
    -------
    (int, int)
        The blanked cells of the key variable, and of them those the column gives
        back: the figures :func:`recoverable_cells` gives on the records.
    """
    m = len(before)
    both = pd.concat([before[[column, key]], after[[column, key]]], ignore_index=True)
    weight = np.r_[before[count].to_numpy(np.int64), after[count].to_numpy(np.int64)]
    is_after = np.r_[np.zeros(m, dtype=bool), np.ones(len(after), dtype=bool)]
    c = _codes(both[column], missing_values_for(missing_values, column))
    v = _codes(both[key], missing_values_for(missing_values, key))
    # the column as released: a code (known from outside) by its observed values
    seen = is_after & (c >= 0)
    code = _is_code(c[seen], int(weight[seen].sum()))
    ok = v >= 0
    n_v = int(v.max(initial=-1)) + 1
    pairs, inverse = np.unique((c[ok] + 1) * n_v + v[ok], return_inverse=True)
    n_before = np.bincount(inverse, weights=np.where(is_after[ok], 0, weight[ok]))
    n_after = np.bincount(inverse, weights=np.where(is_after[ok], weight[ok], 0))
    n_before, n_after = n_before.astype(np.int64), n_after.astype(np.int64)
    pc, pv = pairs // max(n_v, 1) - 1, pairs % max(n_v, 1)
    blank = n_before - n_after  # records that held the value and show nothing now
    if (blank < 0).any():
        raise ValueError(f"the release of {key!r} shows values its records did not hold")
    shown = np.bincount(pv, weights=n_after, minlength=n_v).astype(np.int64)
    held = np.bincount(pv, weights=n_before, minlength=n_v)
    gone = (held > 0) & (shown == 0)  # no released record shows the value any more
    n_blanked = int(blank.sum())
    if not n_blanked:
        return 0, 0
    ref_w = n_after + np.where(gone[pv] & code, blank, 0)
    ref = pc >= 0
    tgt = np.flatnonzero(blank > 0)
    hit = given_back(
        pc[ref],
        pv[ref],
        np.arange(n_v, dtype=np.int64),
        pc[tgt],
        pv[tgt],
        (pc[tgt] >= 0) & gone[pv[tgt]] & code,
        min_count=min_count,
        in_shown=False,
        ref_weights=ref_w[ref],
        shown_weights=shown,
    )
    return n_blanked, int(blank[tgt][hit].sum())


def _before_after(
    before: pd.Series, after: pd.Series, missing_values: MissingValues, key: Hashable
) -> tuple[np.ndarray, np.ndarray]:
    """Codes of a key variable before and after, in one code space."""
    from microsdc.encode import missing_mask

    missing = missing_values_for(missing_values, key)
    codes = _codes(before, missing)
    gone = missing_mask(after, missing)
    kept = ~gone & (codes >= 0)
    try:
        a, b = np.asarray(before)[kept], np.asarray(after)[kept]
        same = bool(np.all(a == b))
    except (TypeError, ValueError):
        same = False
    if same and not (~gone & (codes < 0)).any():  # only blanked: the codes carry over
        return codes, np.where(gone, -1, codes)
    n = len(before)
    both = pd.concat(
        [before.reset_index(drop=True), after.reset_index(drop=True)], ignore_index=True
    )
    codes = _codes(both, missing)
    return codes[:n], codes[n:]


def _order_carries(after: np.ndarray) -> bool:
    """Whether the row order carries a variable: next-door records that both show it
    differ at most half as often as in a random order (``1 - sum p**2``), and their
    agreement is no accident (binomial tail at most :data:`~microsdc.risk.readback.CHANCE`)."""
    from scipy.special import betainc

    pair = (after[:-1] >= 0) & (after[1:] >= 0)
    m = int(pair.sum())
    if m < 2:
        return False
    same = int((after[:-1][pair] == after[1:][pair]).sum())
    shown = after[after >= 0]
    chance = float(((np.bincount(shown) / len(shown)) ** 2).sum())
    if 2 * (m - same) > m * (1.0 - chance) or same == 0:
        return False
    return bool(betainc(float(same), float(m - same + 1), chance) <= CHANCE)


def recoverable_by_order(
    original: pd.DataFrame,
    released: pd.DataFrame,
    key_variables: Sequence[Hashable],
    *,
    share: float = SHARE,
    missing_values: MissingValues = None,
) -> pd.DataFrame:
    """Blanked key-variable cells that the row order of the release gives back.

    A release that keeps the input's row order shows, next to each blanked
    cell, the records that stood next to it; in a file sorted by the key
    variable, or by a column that goes with it (persons sorted by household,
    a household variable), they hold its value. A variable's order is
    *informative* when next-door records that both show it differ at most half
    as often as they would in a random order (``1 - sum p**2``, ``p`` the
    shares of its values in the release) and their agreement is no accident
    (binomial tail at most 5 %). In an informative order, a blanked cell is
    given back when the previous or the next record shows its true value (the
    intruder tells which of the two belongs with it by the other columns). Same
    frames, parameters and result as :func:`recoverable_cells`, the column
    being ``"(row order)"``: a variable is listed when it has cells given back
    and they are at least a share ``share`` of its blanked cells.
    """
    func = "recoverable_by_order"
    check_frame(original, "original", func)
    check_frame(released, "released", func)
    keys = check_columns(released, key_variables, "key_variables", func)
    share, _ = _check(share, 1, func)
    rows = []
    for key in keys:
        before, after = _before_after(original[key], released[key], missing_values, key)
        blanked = np.flatnonzero((before >= 0) & (after < 0))
        if not len(blanked) or not _order_carries(after):
            continue
        last = len(after) - 1
        truth = before[blanked]  # >= 0, so a missing neighbour (-1) never matches
        above = np.where(blanked > 0, after[np.maximum(blanked - 1, 0)], -1)
        below = np.where(blanked < last, after[np.minimum(blanked + 1, last)], -1)
        hit = int(((above == truth) | (below == truth)).sum())
        if hit and hit >= share * len(blanked):
            rows.append((key, "(row order)", len(blanked), hit, hit / len(blanked)))
    out = pd.DataFrame(
        rows, columns=["key_variable", "column", "n_blanked", "n_recoverable", "share"]
    )
    return out.sort_values("n_recoverable", ascending=False, kind="stable").reset_index(drop=True)


def warn_row_order(
    original: pd.DataFrame,
    released: pd.DataFrame,
    key_variables: Sequence[Hashable],
    *,
    missing_values: MissingValues = None,
) -> pd.DataFrame:
    """:func:`recoverable_by_order`, with a ``DisclosureRiskWarning`` naming every variable
    found, its count and the fix (rows in random order)."""
    from microsdc.exceptions import DisclosureRiskWarning

    found = recoverable_by_order(original, released, key_variables, missing_values=missing_values)
    if len(found):
        listed = "; ".join(
            f"{r.key_variable!r} ({r.n_recoverable:,} of {r.n_blanked:,})"
            for r in found.itertuples()
        )
        warn(
            f"The row order of the release gives blanked cells back: {listed} (the previous or "
            "next record shows the blanked value). The input is sorted by these variables (or "
            "by columns that go with them, such as a household id), and the release keeps its "
            "order. Write the rows in random order (command line: --random-order; job file: "
            "output.random_order = true; Release(..., random_order=True)).",
            DisclosureRiskWarning,
        )
    return found


def warn_row_order_unchecked(engine: str, n_blanked: int) -> None:
    """A ``DisclosureRiskWarning`` that a release written by a lazy ``engine`` in the
    input's row order, with ``n_blanked`` cells blanked, was not checked for blanked
    cells its neighbours give back (:func:`warn_row_order` needs the records), and the
    fix (rows in random order). Nothing when no cell was blanked."""
    from microsdc.exceptions import DisclosureRiskWarning

    if n_blanked <= 0:
        return
    warn(
        f"The release keeps the input's row order, and {n_blanked:,} cell(s) were blanked. "
        f"Not checked here ({engine} does not read the records): whether the row order gives "
        "blanked cells back. A file sorted or grouped by a key variable (or by columns that "
        "go with one, such as a household id) gives a blanked value back through the records "
        "next to it. Write the rows in random order (command line: --random-order; job "
        "file: output.random_order = true).",
        DisclosureRiskWarning,
    )


def warn_recoverable(
    original: pd.DataFrame,
    released: pd.DataFrame,
    key_variables: Sequence[Hashable],
    *,
    missing_values: MissingValues = None,
) -> pd.DataFrame:
    """:func:`recoverable_cells`, with a ``DisclosureRiskWarning`` naming every pair found."""
    found = recoverable_cells(original, released, key_variables, missing_values=missing_values)
    warn_found(found)
    return found


def merge_found(found: list[pd.DataFrame]) -> pd.DataFrame:
    """Results of :func:`recoverable_cells` under several readings of the missing values,
    as one: each (key variable, column) pair once, with the reading that gives back the
    most cells, sorted as :func:`recoverable_cells` sorts."""
    if len(found) == 1:
        return found[0]
    out = pd.concat(found, ignore_index=True).sort_values(
        "n_recoverable", ascending=False, kind="stable"
    )
    return out.drop_duplicates(["key_variable", "column"]).reset_index(drop=True)


def warn_found(found: pd.DataFrame) -> None:
    """The ``DisclosureRiskWarning`` of :func:`warn_recoverable` for the pairs ``found``
    (a result of :func:`recoverable_cells`); nothing when it is empty."""
    from microsdc.exceptions import DisclosureRiskWarning

    if len(found):
        pairs = "; ".join(
            f"{r.key_variable!r} from {r.column!r} ({r.n_recoverable:,} of {r.n_blanked:,})"
            for r in found.itertuples()
        )
        warn(
            f"Blanked cells can be read back from other columns: {pairs}. Blank those columns "
            "with their key variable (linked={key: columns}; job file: suppression.linked; "
            "command line: --linked KEY=COLUMN), recode them, or drop them from the release.",
            DisclosureRiskWarning,
        )
