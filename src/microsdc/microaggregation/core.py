"""Microaggregation of continuous variables: :func:`microaggregate`."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from microsdc._core.warn import warn
from microsdc._validation import (
    check_columns,
    check_frame,
    check_int,
    check_one_of,
    given_alone_error,
)
from microsdc.data.numeric import numeric_columns, positive_weights
from microsdc.data.rowkeys import record_keys
from microsdc.data.strata import stratum_ids
from microsdc.exceptions import DataValidationError, DisclosureRiskWarning, InvalidParameterError
from microsdc.microaggregation.groups import METHODS, multivariate_groups, univariate_groups
from microsdc.microaggregation.result import MicroaggregationResult, information_loss

__all__ = ["BLOCK_SIZE", "MEASURES", "N_GROUPS", "microaggregate"]

_FUNC = "microaggregate"
#: ``measure=`` options: what replaces a group's values
MEASURES = ("mean", "median")
#: Groups of ``method="quantile"`` per stratum when ``n_groups`` is not given ("decile means")
N_GROUPS = 10
#: Records MDAV groups in one part when ``block_size`` is not given
BLOCK_SIZE = 50_000


def microaggregate(
    df: pd.DataFrame,
    columns: Hashable | Sequence[Hashable],
    k: int = 3,
    *,
    method: str = "mdav",
    weights: Hashable | None = None,
    strata: Hashable | Sequence[Hashable] | None = None,
    measure: str = "mean",
    n_groups: int | None = None,
    block_size: int | None = None,
) -> MicroaggregationResult:
    """Replace continuous values by the mean (or median) of a group of at least k records.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        Never modified.
    columns : column name or list of column names
        Numeric variables to microaggregate.
    k : int >= 1, default 3
        Least number of records whose values make up each released value.
    method : {"mdav", "individual", "optimal", "quantile"}, default "mdav"
        ``"mdav"``: multivariate groups of similar records, by MDAV (Domingo-Ferrer &
        Torra 2005) on the variables standardised by their population standard
        deviation, as sdcMicro's ``microaggregation(method="mdav")``. ``"individual"``:
        individual ranking, each variable on its own, runs of k consecutive values.
        ``"optimal"``: each variable on its own, the groups of k to 2k - 1 consecutive
        values with the least within-group sum of squares (Hansen & Mukherjee 2003,
        *IEEE TKDE* 15(4)), provably optimal. ``"quantile"``: each variable on its own,
        ``n_groups`` groups of equal size ("decile means" with 10, as the SDC Practice
        Guide's public-use file).
    weights : column name, optional
        Sampling weights (finite numbers > 0): released means are weighted means, and
        ``"optimal"`` minimises the weighted sum of squares. Groups are formed without
        weights (sdcMicro accepts ``weights`` but ignores it). A group where one record
        holds more than half of the weight releases a value close to that record's own:
        a ``DisclosureRiskWarning`` says how many groups do.
    strata : column name or list, optional
        Groups never mix strata; each stratum needs k records or more.
    measure : {"mean", "median"}, default "mean"
        What replaces a group's values (``"median"`` needs no weights).
    n_groups : int >= 1, optional
        Number of groups of ``method="quantile"`` per stratum. Default (None): 10
        (:data:`N_GROUPS`). Only with ``method="quantile"``: given with another method,
        it is refused, since it would change nothing.
    block_size : int >= 2, optional
        MDAV on more records than this runs in parts split at the median of the most
        spread variable (a group never spans parts), so that a million records take
        seconds, not hours; every part has far more than k records. Default (None):
        50000 (:data:`BLOCK_SIZE`). Only with ``method="mdav"``: given with another
        method, it is refused, since it would change nothing.

    Returns
    -------
    MicroaggregationResult
        ``data`` (the release: the microaggregated columns as floats, missing values
        kept), ``groups`` (per column, each record's group; -1 for a missing value),
        ``min_group_size`` (checked >= k) and the information loss SSE/SST.

    Raises
    ------
    InvalidParameterError
        For a parameter of the wrong type or range, naming it, ``measure="median"``
        with weights, or ``n_groups`` without ``method="quantile"`` or ``block_size``
        without ``method="mdav"`` (the message names both).
    ColumnNotFoundError
        For a column of ``columns``, ``weights`` or ``strata`` not in ``df``.
    DataValidationError
        For a column that is not numeric or holds an infinite value (or one beyond
        1e150), a weight that is missing, not finite or not > 0, or a stratum (or
        ``"quantile"`` groups) with fewer than k values of a column, naming it and the
        count.

    Warns
    -----
    DisclosureRiskWarning
        When one record holds more than half of a group's weight.

    Notes
    -----
    Missing values are kept and do not place a record: MDAV's distances use the
    variables both records observe (scaled up to all), a record missing every column
    takes no place in a group, and each variable's released
    value is the aggregate of the group's observed values. A group with fewer than k
    observed values of a variable (some of its records miss it) is merged, for that
    variable, with the group whose mean is nearest, so every released value comes from
    k or more values. How it differs from sdcMicro: weights are used for the means;
    the last group's mean divides by its observed values, not its size; records are
    ordered by their values first, so the groups do not depend on the order of rows.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"income": [10.0, 11, 12, 50, 52, 54, 200]})
    >>> res = microaggregate(df, "income", k=3, method="optimal")
    >>> res.data["income"].tolist()
    [20.75, 20.75, 20.75, 20.75, 102.0, 102.0, 102.0]
    >>> res.min_group_size
    3
    """
    check_frame(df, "df", _FUNC)
    cols = check_columns(df, columns, "columns", _FUNC)
    k = check_int(k, "k", _FUNC, min_value=1)
    method = check_one_of(method, "method", _FUNC, METHODS)
    measure = check_one_of(measure, "measure", _FUNC, MEASURES)
    n_groups, block_size = _sizes(method, n_groups, block_size)
    strata_cols = check_columns(df, strata, "strata", _FUNC, allow_empty=True)
    # every computation runs in a canonical order of the records (by their values), so
    # that neither the groups nor a rounding of a sum depends on the order of the rows
    order = np.argsort(record_keys(df), kind="stable")
    w = _weights(df, weights, measure)[order]
    values = _numeric(df, cols)[:, order]
    sid, labels = stratum_ids(df, strata_cols)
    sid = sid[order]
    center, scale = _standardise(values)
    z = (values - center) / scale
    groups = np.full((len(cols), len(df)), -1, dtype=np.int64)
    offset = 0
    plan = _Plan(k, method, n_groups, block_size, strata_cols, cols)
    for s in range(len(labels)):
        offset = _group_stratum(z, w, np.flatnonzero(sid == s), groups, offset, plan, labels[s])
    released = np.full_like(values, np.nan)
    for j in range(len(cols)):
        groups[j] = _merge_small(groups[j], z[j], sid, plan, j, labels)
        released[j] = _aggregate(values[j], w, groups[j], measure)
    if weights is not None:
        _warn_dominant(groups, w, cols)
    loss, overall = information_loss(z, (released - center) / scale, cols)
    back = np.empty_like(order)
    back[order] = np.arange(len(order))
    released, groups = released[:, back], groups[:, back]
    data = df.copy()
    for j, c in enumerate(cols):
        data[c] = released[j]
    group_frame = pd.DataFrame({c: groups[j] for j, c in enumerate(cols)}, index=df.index)
    sizes = [np.bincount(g[g >= 0]) for g in groups]
    smallest = min((int(s[s > 0].min()) for s in sizes if (s > 0).any()), default=0)
    if smallest and smallest < k:  # pragma: no cover - a defect, never a silent release
        raise AssertionError(f"{_FUNC} formed a group of {smallest} < k = {k} values")
    return MicroaggregationResult(
        data=data,
        groups=group_frame,
        k=k,
        method=method,
        min_group_size=smallest,
        information_loss=loss,
        sse_sst=overall,
    )


def _sizes(method: str, n_groups: object, block_size: object) -> tuple[int, int]:
    """``n_groups`` and ``block_size`` checked, None read as :data:`N_GROUPS` and
    :data:`BLOCK_SIZE`; each refused given with a method that does not use it."""
    sizes = []
    for name, value, default, low, user in (
        ("n_groups", n_groups, N_GROUPS, 1, "quantile"),
        ("block_size", block_size, BLOCK_SIZE, 2, "mdav"),
    ):
        if value is None:
            sizes.append(default)
            continue
        sizes.append(check_int(value, name, _FUNC, min_value=low))
        if method != user:
            why = (
                "only the quantile method forms groups by number"
                if user == "quantile"
                else "only MDAV groups the records in parts of this size"
            )
            raise given_alone_error(
                _FUNC, name, value, f"method is {method!r}, not {user!r}", why,
                ("method", f"method={user!r}"),
            )  # fmt: skip
    return sizes[0], sizes[1]


@dataclass(frozen=True)
class _Plan:
    k: int
    method: str
    n_groups: int
    block_size: int
    strata: list[Hashable]
    cols: list[Hashable]


def _standardise(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each variable's mean and population standard deviation (1 for a constant one)."""
    if values.shape[1] == 0 or np.isnan(values).all(axis=1).any():
        center = np.zeros((values.shape[0], 1))
        scale = np.ones((values.shape[0], 1))
        seen = ~np.isnan(values).all(axis=1)
        if seen.any():
            center[seen, 0] = np.nanmean(values[seen], axis=1)
            sd = np.nanstd(values[seen], axis=1)
            scale[seen, 0] = np.where(sd > 0, sd, 1.0)
        return center, scale
    center = np.nanmean(values, axis=1, keepdims=True)
    sd = np.nanstd(values, axis=1, keepdims=True)
    return center, np.where(sd > 0, sd, 1.0)


def _numeric(df: pd.DataFrame, cols: list[Hashable]) -> np.ndarray:
    """The columns as a (p, n) float array (rows = variables)."""
    return numeric_columns(df, cols, _FUNC, "microaggregation averages numbers").T


def _weights(df: pd.DataFrame, weights: Hashable | None, measure: str) -> np.ndarray:
    if weights is None:
        return np.ones(len(df))
    (col,) = check_columns(df, weights, "weights", _FUNC)
    if measure == "median":
        raise InvalidParameterError(
            f"The 'measure' parameter of {_FUNC} is 'median' with weights; a weighted group "
            "value is a weighted mean. Use measure='mean' or leave weights out.",
            func=_FUNC,
            param="measure",
            related=("weights",),
        )
    return positive_weights(df, col, _FUNC)


def _group_stratum(
    z: np.ndarray,
    w: np.ndarray,
    members: np.ndarray,
    groups: np.ndarray,
    offset: int,
    plan: _Plan,
    label: tuple,
) -> int:
    """Group the stratum's records (``members``) into ``groups``; return the next group id."""
    k = plan.k
    if plan.method == "mdav":
        # a record with none of the columns has nothing to release: it takes no place
        members = members[~np.isnan(z[:, members]).all(axis=0)]
        if not len(members):
            return offset
        _enough(len(members), plan, label, "records")
        g = multivariate_groups(np.ascontiguousarray(z[:, members]), k, plan.block_size)
        groups[:, members] = g + offset
        return offset + int(g.max(initial=-1)) + 1
    for j, c in enumerate(plan.cols):
        obs = members[~np.isnan(z[j, members])]
        if not len(obs):
            continue
        _enough(len(obs), plan, label, f"values of {c!r}")
        if plan.method == "quantile":
            _enough(len(obs) // plan.n_groups, plan, label, f"values of {c!r} per group")
        g = univariate_groups(z[j, obs], w[obs], k, plan.method, plan.n_groups)
        groups[j, obs] = g + offset
        offset += int(g.max(initial=-1)) + 1
    return offset


def _enough(n: int, plan: _Plan, label: tuple, what: str) -> None:
    if n >= plan.k:
        return
    where = (
        "the stratum "
        + ", ".join(f"{c!r} = {v!r}" for c, v in zip(plan.strata, label, strict=True))
        if plan.strata
        else "the data"
    )
    raise DataValidationError(
        f"{_FUNC} cannot form groups of k = {plan.k} in {where}: it has {n} {what} "
        f"(method={plan.method!r}). Merge strata, lower k, or use fewer groups.",
        func=_FUNC,
        param="k",
    )


def _merge_small(
    g: np.ndarray, z: np.ndarray, sid: np.ndarray, plan: _Plan, j: int, labels: list[tuple]
) -> np.ndarray:
    """Merge each group with 1 to k - 1 observed values of variable ``j`` into the group
    of nearest mean in its stratum, until none is left (a released value then always
    comes from k values or more)."""
    g = g.copy()
    obs = (g >= 0) & ~np.isnan(z)
    g[~obs] = -1
    if not obs.any():
        return g
    stratum_of = np.zeros(int(g.max()) + 1, dtype=np.int64)
    stratum_of[g[obs]] = sid[obs]
    while True:
        counts = np.bincount(g[obs], minlength=len(stratum_of))
        small = np.flatnonzero((counts > 0) & (counts < plan.k))
        if not len(small):
            return g
        a = small[0]
        sums = np.bincount(g[obs], weights=z[obs], minlength=len(stratum_of))
        others = np.flatnonzero((counts > 0) & (stratum_of == stratum_of[a]))
        others = others[others != a]
        if not len(others):
            _enough(int(counts[a]), plan, labels[stratum_of[a]], f"values of {plan.cols[j]!r}")
        means = sums[others] / counts[others]
        target = others[np.argmin(np.abs(means - sums[a] / counts[a]))]
        g[g == a] = target


def _warn_dominant(groups: np.ndarray, w: np.ndarray, cols: list[Hashable]) -> None:
    """Warn when one record holds more than half of its group's weight: the weighted mean
    is then closer to that record's own value than to the others'."""
    for j, c in enumerate(cols):
        g = groups[j]
        obs = g >= 0
        if not obs.any():
            continue
        total = np.bincount(g[obs], weights=w[obs])
        top = np.zeros(len(total))
        np.maximum.at(top, g[obs], w[obs])
        n_dominated = int(((top > 0.5 * total) & (total > 0)).sum())
        if n_dominated:
            warn(
                f"In {n_dominated} group(s) of {c!r} one record holds more than half of the "
                f"group's weight, so the weighted mean released there is close to that "
                f"record's own value. Leave weights out (plain means) or raise k.",
                DisclosureRiskWarning,
            )


def _aggregate(x: np.ndarray, w: np.ndarray, g: np.ndarray, measure: str) -> np.ndarray:
    out = np.full(len(x), np.nan)
    obs = g >= 0
    if not obs.any():
        return out
    if measure == "median":
        med = pd.Series(x[obs]).groupby(g[obs]).median()
        out[obs] = med.reindex(g[obs]).to_numpy()
        return out
    sw = np.bincount(g[obs], weights=w[obs])  # weights are > 0
    swx = np.bincount(g[obs], weights=w[obs] * x[obs])
    means = swx / np.where(sw > 0, sw, 1.0)
    out[obs] = means[g[obs]]
    return out
