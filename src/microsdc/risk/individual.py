"""Individual, global and household re-identification risk.

The individual risk of a record is the probability that an intruder who knows
its quasi-identifiers links it correctly to a person of the population. With
sampling weights it is estimated with the Benedetti-Franconi approximation
from the sample frequency ``fk`` and the estimated population frequency ``Fk``
(:func:`microsdc.risk.kanonymity.sample_frequencies`); without weights the
sample is taken as the population and the risk is ``1 / fk``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import MissingPolicy, parse_policy
from microsdc._validation import check_columns, check_frame, incomplete_column_error, param_error
from microsdc.backends.dispatch import accepts_frames
from microsdc.encode import MissingValues, missing_mask
from microsdc.exceptions import DataValidationError
from microsdc.risk.kanonymity import frequencies_for

__all__ = [
    "GlobalRisk",
    "global_risk",
    "household_risk",
    "household_risk_from_individual",
    "individual_risk",
    "risk_from_frequencies",
    "whole_matches",
]


def whole_matches(fk: Any) -> np.ndarray:
    """The whole matches a fractional ``fk`` holds (its own record included), for
    :func:`risk_from_frequencies`, which is defined for counts only: under
    ``"probabilistic"`` or alpha a record counts the matches it has in full.
    Whole counts come back as they are.

    >>> whole_matches(np.array([1.0, 2.999999999999, 3.5])).tolist()
    [1.0, 3.0, 3.0]
    """
    fk = np.asarray(fk)
    return np.floor(fk + 1e-9) if fk.dtype.kind == "f" else fk


def risk_from_frequencies(fk: Any, Fk: Any = None) -> np.ndarray:
    """Individual risk from sample and population frequencies.

    Parameters
    ----------
    fk : array-like of shape (n,), int >= 1
        Sample frequency of each record (the record itself included).
    Fk : array-like of shape (n,), float >= 0, optional
        Estimated population frequency (sum of the sampling weights of the
        records counted in ``fk``). Without it the risk is ``1 / fk``.

    Returns
    -------
    numpy.ndarray of shape (n,), float64
        Risk in [0, 1] of each record.

    Raises
    ------
    InvalidParameterError
        If the shapes differ, or an ``fk`` is not a whole number >= 1 (the
        approximation is defined for counts only; alpha policies give
        fractional ``fk``).

    Notes
    -----
    With ``p = fk / Fk`` and ``q = 1 - p`` (Benedetti-Franconi approximation,
    as in sdcMicro ``measure_risk``)::

        fk = 1:   r = p / q * ln(1 / p)
        fk = 2:   r = p / q - (p / q)**2 * ln(1 / p)
        fk >= 3:  r = p / (fk - q)

    The three expressions tend to ``1 / fk`` as ``p`` tends to 1 (population
    as large as the sample). Where ``Fk <= fk`` (weights of 1 or less, or a
    census) ``p`` is set to 1 and the risk is ``1 / fk``. Near ``p = 1`` the
    first two cases are evaluated with their power series in ``q``,
    ``r = p * sum_j q**j / (j + 1)`` and ``r = p - p**2 * sum_j q**j / (j + 2)``,
    which avoid the cancellation of the closed forms.

    References
    ----------
    Benedetti, R. and Franconi, L. (1998). Statistical and technological
    solutions for controlled data dissemination. *Pre-proceedings of New
    Techniques and Technologies for Statistics*, 1, 225-232.

    Franconi, L. and Polettini, S. (2004). Individual risk estimation in
    mu-Argus: a review. *Privacy in Statistical Databases*, LNCS 3050, 262-272.

    sdcMicro ``measure_risk`` and ``indivRisk`` (method "approx").

    Examples
    --------
    >>> risk_from_frequencies([1, 2, 4]).tolist()
    [1.0, 0.5, 0.25]
    >>> risk_from_frequencies([1, 2, 3], [4.0, 4.0, 6.0]).round(4).tolist()
    [0.4621, 0.3069, 0.2]
    """
    f = np.asarray(fk, dtype=np.float64).reshape(-1)
    if f.size and (not np.all(np.isfinite(f)) or np.any(f < 1) or np.any(f != np.floor(f))):
        raise param_error(
            "fk",
            "risk_from_frequencies",
            "whole numbers >= 1 (counts of records)",
            f[(f < 1) | (f != np.floor(f))][:5].tolist(),
        )
    if Fk is None:
        return 1.0 / f
    big = np.asarray(Fk, dtype=np.float64).reshape(-1)
    if big.shape != f.shape:
        raise param_error(
            "Fk", "risk_from_frequencies", f"an array of shape {f.shape}", f"shape {big.shape}"
        )
    out = 1.0 / f  # the value where Fk <= fk
    sampled = big > f
    p = np.ones_like(f)
    q = np.zeros_like(f)
    p[sampled] = f[sampled] / big[sampled]
    q[sampled] = (big[sampled] - f[sampled]) / big[sampled]
    series = sampled & (q < 0.05)
    closed = sampled & ~series
    terms = np.arange(16, dtype=np.float64)

    one = f == 1
    two = f == 2
    many = f >= 3
    # fk = 1
    m = closed & one
    out[m] = p[m] / q[m] * -np.log(p[m])
    m = series & one
    qp = q[m][:, None] ** terms
    out[m] = p[m] * (qp / (terms + 1.0)).sum(axis=1)
    # fk = 2
    m = closed & two
    ratio = p[m] / q[m]
    out[m] = ratio - ratio**2 * -np.log(p[m])
    m = series & two
    qp = q[m][:, None] ** terms
    out[m] = p[m] - p[m] ** 2 * (qp / (terms + 2.0)).sum(axis=1)
    # fk >= 3
    m = sampled & many
    out[m] = p[m] / (f[m] - q[m])
    return np.clip(out, 0.0, 1.0)


def _check_counting_policy(missing: Any, func: str) -> None:
    policy = parse_policy(missing, func)
    if policy.fractional:
        raise param_error(
            "missing",
            func,
            "'wildcard', 'category' or 'conservative' (alpha weights and 'probabilistic' "
            "give fractional fk, for which the risk approximation is not defined)",
            missing,
        )


@accepts_frames()
def individual_risk(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[Hashable],
    *,
    weights: Hashable | Sequence[float] | np.ndarray | None = None,
    missing: MissingPolicy = "wildcard",
    missing_values: MissingValues = None,
) -> pd.Series:
    """Re-identification risk of every record.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        The microdata. Never modified.
    quasi_identifiers : list of column names
        Key variables, categorical.
    weights : column name or array-like of shape (n_rows,), optional
        Sampling weights (>= 0, none missing). Without weights the sample is
        treated as the population and the risk is ``1 / fk``. A Series is
        matched to the records by its index; an array or list by position.
    missing : {"wildcard", "category", "conservative"}, default "wildcard"
        How a missing QI value is counted in ``fk`` and ``Fk``
        (see :func:`microsdc.risk.kanonymity.sample_frequencies`). Alpha
        policies are refused: they give fractional counts.
    missing_values : sequence or dict, optional
        Codes that mean "missing" besides NaN/None/pd.NA/NaT.

    Returns
    -------
    pandas.Series of shape (n_rows,), float64, named "risk"
        Indexed like ``df``; values in [0, 1].

    Raises
    ------
    InvalidParameterError
        If ``df`` is not a DataFrame, the QI list is empty or repeats a name,
        or ``missing`` is unknown or an alpha.
    ColumnNotFoundError
        Naming every QI or weight column not in ``df``.
    DataValidationError
        If the weights have missing or negative values, a weights Series is
        indexed otherwise than ``df``, or ``df`` has duplicate column names.

    Notes
    -----
    See :func:`risk_from_frequencies` for the formula. A missing QI value is
    a wildcard by default, so a record with missing values is compatible with
    more records and has a lower risk.

    References
    ----------
    Franconi, L. and Polettini, S. (2004). Individual risk estimation in
    mu-Argus: a review. *Privacy in Statistical Databases*, LNCS 3050, 262-272.
    sdcMicro ``measure_risk``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["m", "m", "f"], "w": [10.0, 10.0, 4.0]})
    >>> individual_risk(df, ["sex"]).tolist()
    [0.5, 0.5, 1.0]
    >>> individual_risk(df, ["sex"], weights="w").round(4).tolist()
    [0.0827, 0.0827, 0.4621]
    """
    risk = _risk(df, quasi_identifiers, weights, missing, missing_values, "individual_risk")
    return pd.Series(risk, index=df.index, name="risk")


def _risk(
    df: pd.DataFrame,
    quasi_identifiers: Any,
    weights: Any,
    missing: Any,
    missing_values: MissingValues,
    func: str,
) -> np.ndarray:
    """The individual risk per record, the errors naming ``func``."""
    check_frame(df, "df", func)
    _check_counting_policy(missing, func)
    fk, Fk = frequencies_for(df, quasi_identifiers, missing, weights, missing_values, func)
    return risk_from_frequencies(fk, Fk)


def _household_codes(df: pd.DataFrame, hid: Hashable, func: str) -> np.ndarray:
    check_columns(df, [hid], "hid", func)
    col = df[hid]
    bad = missing_mask(col)
    if bad.any():
        where = f"The 'hid' parameter of {func} names the household id column {hid!r}, which"
        fix = "Every person needs a household."
        raise incomplete_column_error(where, bad, df.index, func, fix, param="hid")
    codes, _ = pd.factorize(col, sort=False)
    return np.asarray(codes, dtype=np.int64)


def _household_from_risk(risk: np.ndarray, codes: np.ndarray) -> np.ndarray:
    if not len(risk):
        return np.zeros(0, dtype=np.float64)
    n_h = int(codes.max()) + 1
    # 1 - prod(1 - r) = 1 - exp(sum log(1 - r)); a member with risk 1 makes it 1
    full = risk >= 1.0
    sure = np.bincount(codes, weights=full.astype(np.float64), minlength=n_h) > 0
    log_keep = np.zeros(len(risk))
    log_keep[~full] = np.log1p(-risk[~full])
    total = np.bincount(codes, weights=log_keep, minlength=n_h)
    hh = -np.expm1(total)
    hh[sure] = 1.0
    return np.asarray(np.clip(hh, 0.0, 1.0)[codes], dtype=np.float64)


@accepts_frames()
def household_risk(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[Hashable],
    hid: Hashable,
    *,
    weights: Hashable | Sequence[float] | np.ndarray | None = None,
    missing: MissingPolicy = "wildcard",
    missing_values: MissingValues = None,
) -> pd.Series:
    """Household risk of every record: the risk that at least one member is re-identified.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        Person-level microdata. Never modified.
    quasi_identifiers : list of column names
        Key variables.
    hid : column name
        Household identifier (no missing values). Members need not be
        adjacent.
    weights, missing, missing_values
        As in :func:`individual_risk`.

    Returns
    -------
    pandas.Series of shape (n_rows,), float64, named "household_risk"
        Indexed like ``df``; every member of a household carries the
        household's value.

    Raises
    ------
    InvalidParameterError, ColumnNotFoundError
        As in :func:`individual_risk`; also for an unknown ``hid``.
    DataValidationError
        If the household id has missing values, or the weights are invalid.

    Notes
    -----
    ``hr(h) = 1 - prod_{i in h} (1 - r_i)`` with ``r_i`` the individual risk
    (:func:`individual_risk`): re-identifying one member discloses the whole
    household, and members are taken as independent.

    References
    ----------
    sdcMicro ``measure_risk`` (argument ``hid``, "hierarchical risk").

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"hh": [1, 1, 2], "sex": ["m", "f", "f"]})
    >>> household_risk(df, ["sex"], "hh").tolist()
    [1.0, 1.0, 0.5]
    """
    func = "household_risk"
    check_frame(df, "df", func)
    codes = _household_codes(df, hid, func)
    risk = _risk(df, quasi_identifiers, weights, missing, missing_values, func)
    return pd.Series(_household_from_risk(risk, codes), index=df.index, name="household_risk")


def household_risk_from_individual(risk: Any, households: Any) -> np.ndarray:
    """Household risk of every record from the individual risks already measured.

    The risk that at least one member of a record's household is re-identified,
    for a caller that has counted the key variables itself (under any missing-value
    policy, on binned columns, in chunks); :func:`household_risk` measures and
    combines in one call.

    Parameters
    ----------
    risk : array-like of shape (n_rows,), float in [0, 1]
        Individual risk of each record (:func:`individual_risk`,
        :func:`risk_from_frequencies`).
    households : array-like of shape (n_rows,)
        Household id of each record, in the same order; no missing values.
        Members need not be adjacent. A Series' index labels name the rows in
        the error about a missing id (else their positions).

    Returns
    -------
    numpy.ndarray of shape (n_rows,), float64
        Every member of a household carries the household's value, in [0, 1].

    Raises
    ------
    InvalidParameterError
        If ``risk`` is not a 1-d array of numbers in [0, 1], or ``households``
        is not 1-d or has another length.
    DataValidationError
        If a household id is missing, naming the first rows.

    Notes
    -----
    ``hr(h) = 1 - prod_{i in h} (1 - r_i)``: re-identifying one member discloses
    the whole household, and members are taken as independent. A member with
    risk 1 makes the household's risk 1 exactly.

    References
    ----------
    sdcMicro ``measure_risk`` (argument ``hid``): ``1 - prod(1 - x)`` over the
    members' risks, ``hier_risk_ER`` their sum over persons.

    Examples
    --------
    >>> household_risk_from_individual([0.5, 0.5, 0.2], [1, 1, 2]).tolist()
    [0.75, 0.75, 0.2]
    """
    func = "household_risk_from_individual"
    try:
        r = np.asarray(risk, dtype=np.float64)
    except (TypeError, ValueError):
        r = None
    if r is None or r.ndim != 1:
        raise param_error("risk", func, "a 1-d array of numbers in [0, 1]", type(risk).__name__)
    bad = ~((r >= 0) & (r <= 1))
    if bad.any():
        raise param_error("risk", func, "numbers in [0, 1]", r[bad][:5].tolist())
    if not isinstance(households, pd.Series | pd.Index | np.ndarray | list | tuple) or (
        np.ndim(households) != 1
    ):
        what = type(households).__name__
        raise param_error("households", func, "a 1-d array of household ids", what)
    ids = pd.Series(np.asarray(households, dtype=object))
    labels = households.index if isinstance(households, pd.Series) else ids.index
    if len(ids) != len(r):
        raise param_error("households", func, f"one id per record ({len(r)})", f"{len(ids)} ids")
    missing = np.asarray(missing_mask(ids), dtype=bool)
    if missing.any():
        where = "rows" if isinstance(households, pd.Series) else "positions"
        raise DataValidationError(
            f"The 'households' parameter of {func} has {int(missing.sum())} missing "
            f"household id(s) (first {where}: {list(labels[missing][:5])}). "
            "Every person needs a household.",
            failure_cases=list(labels[missing]),
            func=func,
            param="households",
        )
    codes, _ = pd.factorize(ids, sort=False)
    return _household_from_risk(r, np.asarray(codes, dtype=np.int64))


@dataclass(frozen=True)
class GlobalRisk:
    """File-level risk figures.

    Attributes
    ----------
    n_records : int
        Number of records.
    expected_reidentifications : float
        ``ER = sum_i r_i``, expected number of correctly re-identified records.
    global_risk : float in [0, 1]
        ``ER / n``, the mean individual risk (0 for an empty frame).
    max_risk : float in [0, 1]
        Largest individual risk (0 for an empty frame).
    n_households : int or None
        Number of households, when a household id was given.
    household_expected_reidentifications : float or None
        ``sum_i hr_i`` over persons: expected number of persons whose
        household has at least one re-identified member.
    household_global_risk : float or None
        ``household_expected_reidentifications / n``.
    """

    n_records: int
    expected_reidentifications: float
    global_risk: float
    max_risk: float
    n_households: int | None = None
    household_expected_reidentifications: float | None = None
    household_global_risk: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The figures as a JSON-ready dict."""
        return asdict(self)

    def summary(self) -> str:
        """A few lines of plain text."""
        lines = [
            f"records: {self.n_records:,}",
            f"expected re-identifications: {self.expected_reidentifications:,.2f} "
            f"({100 * self.global_risk:.3f} % of records)",
            f"highest individual risk: {self.max_risk:.4f}",
        ]
        if self.household_expected_reidentifications is not None:
            assert self.household_global_risk is not None
            lines.append(
                f"household risk: {self.household_expected_reidentifications:,.2f} persons "
                f"expected in a re-identified household ({100 * self.household_global_risk:.3f} %)"
            )
        return "\n".join(lines)


@accepts_frames()
def global_risk(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[Hashable],
    *,
    weights: Hashable | Sequence[float] | np.ndarray | None = None,
    hid: Hashable | None = None,
    missing: MissingPolicy = "wildcard",
    missing_values: MissingValues = None,
) -> GlobalRisk:
    """Expected number of re-identifications and global risk of a file.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        Never modified.
    quasi_identifiers : list of column names
    weights : column name or array-like of shape (n_rows,), optional
        Sampling weights; see :func:`individual_risk`.
    hid : column name, optional
        Household identifier; adds the household figures.
    missing, missing_values
        As in :func:`individual_risk`.

    Returns
    -------
    GlobalRisk

    Raises
    ------
    InvalidParameterError, ColumnNotFoundError, DataValidationError
        As in :func:`individual_risk` and :func:`household_risk`.

    Notes
    -----
    ``ER = sum_i r_i`` and ``global risk = ER / n`` with ``r_i`` the
    individual risk. With households, ``ER_h = sum_i hr_i`` over persons,
    ``hr_i`` the risk of person i's household (:func:`household_risk`).

    References
    ----------
    sdcMicro ``measure_risk`` (``risk_ER``, ``global_risk``, ``hier_risk_ER``).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["m", "m", "f", "f"], "age": [1, 1, 1, 2]})
    >>> g = global_risk(df, ["sex", "age"])
    >>> g.expected_reidentifications, g.global_risk
    (3.0, 0.75)
    """
    func = "global_risk"
    check_frame(df, "df", func)
    codes = _household_codes(df, hid, func) if hid is not None else None
    risk = _risk(df, quasi_identifiers, weights, missing, missing_values, func)
    n = len(risk)
    er = float(risk.sum())
    out: dict[str, Any] = {
        "n_records": n,
        "expected_reidentifications": er,
        "global_risk": er / n if n else 0.0,
        "max_risk": float(risk.max()) if n else 0.0,
    }
    if codes is not None:
        hh = _household_from_risk(risk, codes)
        her = float(hh.sum())
        out["n_households"] = int(codes.max()) + 1 if n else 0
        out["household_expected_reidentifications"] = her
        out["household_global_risk"] = her / n if n else 0.0
    return GlobalRisk(**out)
