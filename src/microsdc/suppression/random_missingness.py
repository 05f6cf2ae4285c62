"""The kanonymity 0.1.0 baseline: the same share of random missing values in every QI."""

from __future__ import annotations

import inspect
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import MissingPolicy, Policy, parse_policy
from microsdc._random import SeedLike, check_random_state
from microsdc._validation import check_columns, check_frame, check_int, check_number
from microsdc.backends.dispatch import accepts_frames
from microsdc.encode import MissingValues, encode_qis
from microsdc.exceptions import InvalidParameterError

__all__ = ["RandomMissingness", "min_missingness_max_deid", "random_missingness_codes"]

_FUNC = "min_missingness_max_deid"


@accepts_frames()
def min_missingness_max_deid(
    df: pd.DataFrame,
    QI: Sequence[Hashable],
    k: int,
    maximum_missingness: float = 25,
    excluded_features: Sequence[Hashable] | None = None,
    step: float = 0.001,
    n_random_trials: int = 25,
    seed: SeedLike = None,
    *,
    missing: MissingPolicy = "wildcard",
    missing_values: MissingValues = None,
) -> tuple[pd.DataFrame, float, int]:
    """Add the smallest equal share of random missing values to every QI that reaches k.

    The baseline users of the kanonymity package know; it blanks far more
    cells than needed (several times what :func:`local_suppression` blanks on
    the same data). Prefer local suppression; use this to compare.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        Never modified.
    QI : list of column names
        The quasi-identifiers.
    k : int >= 1
    maximum_missingness : float in [0, 100], default 25
        Largest share (percent of the records) of missing values added to each
        QI.
    excluded_features : list of column names, optional
        QIs that receive no missing values (they still count for fk).
    step : float > 0, default 0.001
        Precision of the binary search, in percentage points.
    n_random_trials : int >= 1, default 25
        Random placements tried for each share; the best is kept.
    seed : int, numpy.random.Generator or None
        Randomness of the placements. The same seed gives the same result.
    missing : {"wildcard", "probabilistic", "category"} or float in [0, 1], default "wildcard"
        How missing values count (see :func:`microsdc.sample_frequencies`).
        ``"conservative"`` is refused, as in
        :func:`~microsdc.suppression.local_suppression`.
    missing_values : sequence or dict, optional
        Values meaning "missing" besides NaN/None/pd.NA/NaT.

    Returns
    -------
    frame : pandas.DataFrame
        A copy of ``df`` with the added missing values (integer columns that
        receive one become nullable).
    percentage : float
        The share p (percent) added to each QI not excluded.
    n_at_risk : int
        Records with fk < k in ``frame``; 0 unless even ``maximum_missingness``
        was not enough, in which case the trial with the fewest records at risk
        is returned.

    Raises
    ------
    InvalidParameterError
        For a bad ``k``, ``maximum_missingness`` outside [0, 100], ``step`` <= 0,
        ``n_random_trials`` < 1, a bad ``seed`` or ``missing`` (``"conservative"`` included), or
        ``excluded_features`` naming columns that are not QIs.
    ColumnNotFoundError, DataValidationError
        For unknown columns or duplicate column names.

    Warns
    -----
    DisclosureRiskWarning
        When another column gives blanked values back (as in
        :func:`microsdc.local_suppression`).

    Notes
    -----
    For a share p, ``round(p / 100 * n_rows)`` cells of each QI not excluded
    are blanked, drawn uniformly among that QI's non-missing cells. Each p is
    tried ``n_random_trials`` times (stopping at the first placement with no
    record at risk). If the data already reach k, p = 0. Otherwise p =
    ``maximum_missingness`` is tried first; if it leaves records at risk, its
    best trial is returned. Else the smallest p in [0, maximum_missingness] is
    searched by bisection until the interval is shorter than ``step``.

    References
    ----------
    kanonymity 0.1.0 ``min_missingness_max_deid`` (same name, parameters and
    return shape; seeded here).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": list("xy") * 10 + ["z", "x"], "b": list("uv") * 10 + ["u", "v"]})
    >>> out, p, n_at_risk = min_missingness_max_deid(df, ["a", "b"], k=3, seed=0)
    >>> round(p, 2), n_at_risk, int(out.isna().sum().sum())
    (6.82, 0, 4)
    """
    arguments = dict(locals())  # the parameters by name, as given
    from microsdc.data.blank import blank_cells
    from microsdc.risk.linked import warn_recoverable

    search = random_missingness_codes(**arguments)
    out = blank_cells(df, search.columns, search.blank)
    warn_recoverable(df, out, search.columns, missing_values=missing_values)
    return out, search.percent, search.n_at_risk


@dataclass(frozen=True)
class RandomMissingness:
    """The codes found by :func:`random_missingness_codes`.

    Attributes
    ----------
    columns : list, the QIs (checked)
    codes_before, codes : ndarray of shape (n_rows, n_qis), int64, -1 = missing
    n_categories : ndarray of shape (n_qis,)
    policy : Policy
    percent : float, share added to each QI, in percent
    n_at_risk : int, records with fk < k after
    """

    columns: list[Hashable]
    codes_before: np.ndarray
    codes: np.ndarray
    n_categories: np.ndarray
    policy: Policy
    percent: float
    n_at_risk: int

    @property
    def blank(self) -> np.ndarray:
        """Cells blanked by the search, shape (n_rows, n_qis)."""
        return (self.codes < 0) & (self.codes_before >= 0)


def random_missingness_codes(*args: Any, **kwargs: Any) -> RandomMissingness:
    """The search of :func:`min_missingness_max_deid` on codes: its parameters (bound to its
    signature, defaults included) and errors, no frame built and no read-back check (for
    callers that do both)."""
    call = inspect.signature(min_missingness_max_deid).bind(*args, **kwargs)
    call.apply_defaults()
    a = call.arguments
    df = a["df"]
    check_frame(df, "df", _FUNC)
    k = check_int(a["k"], "k", _FUNC, min_value=1)
    maximum = check_number(a["maximum_missingness"], "maximum_missingness", _FUNC, low=0, high=100)
    step = check_number(a["step"], "step", _FUNC, low=0, low_open=True)
    trials = check_int(a["n_random_trials"], "n_random_trials", _FUNC, min_value=1)
    rng = check_random_state(a["seed"], func=_FUNC)
    policy = parse_policy(a["missing"], _FUNC, suppression=True)
    from microsdc.suppression.params import check_guarantee

    check_guarantee(policy, _FUNC)
    missing_values = a["missing_values"]
    cols = check_columns(df, a["QI"], "QI", _FUNC)
    excluded = check_columns(
        df, a["excluded_features"], "excluded_features", _FUNC, allow_empty=True
    )
    not_qi = [c for c in excluded if c not in set(cols)]
    if not_qi:
        raise InvalidParameterError(
            f"The 'excluded_features' parameter of {_FUNC} names columns that are not "
            f"quasi-identifiers: {not_qi!r}.",
            func=_FUNC,
            param="excluded_features",
        )
    enc = encode_qis(df, cols, missing_values=missing_values, func=_FUNC)
    codes0 = np.ascontiguousarray(enc.codes, dtype=np.int64)
    ncat = enc.n_categories
    n = codes0.shape[0]
    targets = [j for j, c in enumerate(cols) if c not in set(excluded)]
    observed = [np.flatnonzero(codes0[:, j] >= 0) for j in targets]

    from microsdc.suppression._engine import fk_of

    def at_risk(codes: np.ndarray) -> int:
        return int(np.count_nonzero(fk_of(codes, ncat, policy) < k))

    def best_of(p: float) -> tuple[int, np.ndarray]:
        n_blank = int(np.floor(p / 100.0 * n + 0.5))
        best: tuple[int, np.ndarray] | None = None
        for _ in range(trials):
            codes = codes0.copy()
            for j, obs in zip(targets, observed, strict=True):
                if n_blank and len(obs):
                    pick = rng.choice(obs, size=min(n_blank, len(obs)), replace=False)
                    codes[pick, j] = -1
            risk = at_risk(codes)
            if best is None or risk < best[0]:
                best = (risk, codes)
            if risk == 0:
                break
        assert best is not None
        return best

    def found(codes: np.ndarray, percent: float, risk: int) -> RandomMissingness:
        return RandomMissingness(cols, codes0, codes, ncat, policy, percent, risk)

    risk0 = at_risk(codes0)
    if risk0 == 0:
        return found(codes0, 0.0, 0)
    risk_hi, codes_hi = best_of(maximum)
    if risk_hi > 0:
        return found(codes_hi, float(maximum), risk_hi)
    lo, hi = 0.0, maximum
    best_codes = codes_hi
    while hi - lo > step:
        mid = (lo + hi) / 2.0
        risk, codes = best_of(mid)
        if risk == 0:
            hi, best_codes = mid, codes
        else:
            lo = mid
    return found(best_codes, float(hi), 0)
