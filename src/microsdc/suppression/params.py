"""The parameters of :func:`microsdc.local_suppression`, checked in one place for
every engine: key variables, k and combs, importance, strata, method, policy, time
limit and linked columns; and the costs and strata they turn into."""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import Policy, parse_policy
from microsdc._core.warn import warn
from microsdc._validation import (
    check_callable,
    check_columns,
    check_int,
    check_missing_values,
    check_missing_values_columns,
    check_one_of,
    given_alone_error,
    incomplete_column_error,
    param_error,
)
from microsdc.backends.adapters import FrameAdapter
from microsdc.encode import MissingValues
from microsdc.exceptions import DataValidationError, DisclosureRiskWarning, InvalidParameterError

__all__ = [
    "DIS_FRACTION",
    "DIS_SUDA_THRESHOLD",
    "METHODS",
    "RARE_MAX_SHARE",
    "RARE_MIN_DISTINCT",
    "TIME_LIMIT",
    "Call",
    "NumberParameter",
    "check_call",
    "check_declared_codes",
    "check_dis_suda",
    "check_exact",
    "check_guarantee",
    "check_passed_on",
    "check_rare_values",
    "costs_of",
    "counted_missing_values",
    "dis_fraction_of",
    "strata_groups",
    "subject_rule_default",
    "time_limit_of",
    "warn_declared_all_missing",
    "warn_measure_policy",
]

_FUNC = "local_suppression"
METHODS = ("greedy", "exact", "random")


@dataclass(frozen=True)
class NumberParameter:
    """A number parameter of :func:`~microsdc.local_suppression`, declared once: its name,
    range and meaning give the library's check, the job key ``suppression.<name>`` and
    the command-line option ``--<name with dashes>``.

    The range is open at ``high`` when ``high_open`` and at ``low`` when ``low_open``.
    """

    name: str
    low: float
    high: float
    high_open: bool
    meaning: str
    low_open: bool = False
    #: the default of the library parameter (its signature reads it from here)
    default: float | None = None

    @property
    def flag(self) -> str:
        """The command-line option, e.g. ``--dis-suda-threshold``."""
        return "--" + self.name.replace("_", "-")

    @property
    def wanted(self) -> str:
        """What the parameter accepts, in words: ``a number in [0, 1)``."""
        lo = "(" if self.low_open else "["
        return f"a number in {lo}{self.low:g}, {self.high:g}{')' if self.high_open else ']'}"

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` (None excluded) is in the range."""
        try:
            self.check(value, _FUNC)
        except InvalidParameterError:
            return False
        return True

    def check(self, value: Any, func: str) -> float:
        """``value`` as a float, or :class:`InvalidParameterError` naming it and the range."""
        from microsdc._validation import check_number

        return check_number(
            value,
            self.name,
            func,
            low=self.low,
            high=self.high,
            low_open=self.low_open,
            high_open=self.high_open,
        )


#: Records whose DIS-SUDA score is above this value are at risk.
DIS_SUDA_THRESHOLD = NumberParameter(
    "dis_suda_threshold",
    0.0,
    1.0,
    True,
    "Records whose DIS-SUDA score (special uniques, Skinner & Elliot) is above this value "
    "are at risk too: cells are blanked, the variables in most of a record's minimal "
    "sample uniques first, until the released file, measured again, has none above it.",
)

#: The sampling fraction of the DIS value behind the DIS-SUDA scores of the threshold.
DIS_FRACTION = NumberParameter(
    "dis_fraction",
    0.0,
    1.0,
    True,
    "Sampling fraction of the DIS value behind the DIS-SUDA scores that the threshold "
    "compares (the share of the population in the file; sdcMicro's DisFraction); used "
    "with the DIS-SUDA threshold.",
    low_open=True,
    default=0.01,
)


def _check_importance(importance: Any, qi: list[Hashable], df: pd.DataFrame, func: str) -> Any:
    """Normalise ``importance`` to ("rank", list) or ("weight", dict), or None."""
    if importance is None:
        return None
    if isinstance(importance, Mapping):
        names = list(importance)
        check_columns(df, names, "importance", func)
        _cover(names, qi, func)
        weights = {}
        for name in qi:
            w = importance[name]
            ok = isinstance(w, numbers.Real) and not isinstance(w, bool)
            if not ok or not np.isfinite(w) or w <= 0:
                raise param_error(
                    "importance", func, "a dict of positive finite weights", importance
                )
            weights[name] = float(w)
        return ("weight", weights)
    ranked = _sdcmicro_priorities(importance, qi, df, func)
    if ranked is not None:
        return ("rank", ranked)
    names = check_columns(df, importance, "importance", func, allow_single=False)
    _cover(names, qi, func)
    return ("rank", names)


def _sdcmicro_priorities(
    importance: Any, qi: list[Hashable], df: pd.DataFrame, func: str
) -> list[Hashable] | None:
    """sdcMicro's ``importance = c(3, 1, 2)`` (one priority per quasi-identifier, in
    their order, 1 = blanked last) as the names most important first; None when
    ``importance`` is not a list of whole numbers, or when its numbers are all column
    names of ``df`` (a frame whose columns are numbers)."""
    if isinstance(importance, str | bytes) or not isinstance(importance, Iterable):
        return None
    values = list(importance)
    whole = all(
        isinstance(v, numbers.Real) and not isinstance(v, bool) and float(v).is_integer()
        for v in values
    )
    if not values or not whole:
        return None
    present = set(df.columns)
    if all(v in present for v in values):
        return None
    m = len(qi)
    priorities = [int(v) for v in values]
    if sorted(priorities) != list(range(1, m + 1)):
        raise InvalidParameterError(
            f"The 'importance' parameter of {func} is {', '.join(map(str, priorities))}: "
            "numbers, read as "
            f"sdcMicro's importance vector (one priority per quasi-identifier, in their "
            f"order, 1 = blanked last), but it does not give each of 1 to {m} to one of the "
            f"{m} quasi-identifiers once. Give each of 1 to {m} once, or name the "
            "quasi-identifiers, most important first.",
            func=func,
            param="importance",
            requirement="column names, most important first, or priorities 1..n in QI order",
            value=importance,
        )
    order = sorted(range(m), key=lambda i: priorities[i])
    return [qi[i] for i in order]


def _cover(names: list[Hashable], qi: list[Hashable], func: str) -> None:
    extra = [c for c in names if c not in set(qi)]
    lacking = [c for c in qi if c not in set(names)]
    if extra or lacking:
        parts = []
        if extra:
            parts.append(f"names columns that are not quasi-identifiers: {extra!r}")
        if lacking:
            parts.append(f"does not cover the quasi-identifiers {lacking!r}")
        raise InvalidParameterError(
            f"The 'importance' parameter of {func} "
            + " and ".join(parts)
            + ". Give every quasi-identifier exactly once.",
            func=func,
            param="importance",
        )


def costs_of(importance: Any, qi: list[Hashable], n_categories: np.ndarray) -> Any:
    from microsdc.suppression._engine import Costs, ranked_costs

    m = len(qi)
    if importance is None:
        # sdcMicro's default: variables with more categories are blanked first
        order = np.lexsort((-np.arange(m), -np.asarray(n_categories)))
        rank = np.empty(m, dtype=np.int64)
        rank[order] = np.arange(m)
        return ranked_costs(rank)
    kind, value = importance
    if kind == "rank":
        position = {name: i for i, name in enumerate(value)}  # 0 = most important
        rank = np.array([m - 1 - position[name] for name in qi], dtype=np.int64)
        return ranked_costs(rank)
    return Costs(np.array([value[name] for name in qi], dtype=np.float64), False)


def _check_k_combs(k: Any, combs: Any, m: int, func: str) -> tuple[list[tuple[int, int]], Any]:
    """(size, k) pairs to enforce, and the k to report."""
    if combs is None:
        return [(m, check_int(k, "k", func, min_value=1))], check_int(k, "k", func, min_value=1)
    if not isinstance(combs, numbers.Integral | Iterable) or isinstance(combs, str | bytes):
        raise param_error("combs", func, "an int or a non-empty list of ints", combs)
    given: list[Any] = [combs] if isinstance(combs, numbers.Integral) else list(combs)
    if not given:
        raise param_error("combs", func, "an int or a non-empty list of ints", combs)
    sizes = [check_int(s, "combs", func, min_value=1, max_value=m) for s in given]
    if isinstance(k, Sequence) and not isinstance(k, str):
        ks = [check_int(x, "k", func, min_value=1) for x in k]
        if len(ks) != len(sizes):
            raise InvalidParameterError(
                f"The 'k' parameter of {func} must be an int or a list with one k per entry "
                f"of 'combs' ({len(sizes)}). Got {len(ks)} values instead.",
                func=func,
                param="k",
            )
        return list(zip(sizes, ks, strict=True)), ks
    kk = check_int(k, "k", func, min_value=1)
    return [(s, kk) for s in sizes], kk


def _no_missing(df: pd.DataFrame, col: Hashable, what: str, func: str) -> None:
    bad = df[col].isna().to_numpy()
    if bad.any():
        where = f"The {what} column {col!r} of {func}"
        fix = f"Every record needs a known {what}."
        if what == "stratum":
            fix = (
                "Every record needs a known stratum: recode the missing values to a stratum "
                f"of their own first (df[{col!r}].fillna('unknown'))."
            )
        raise incomplete_column_error(where, bad, df.index, func, fix)


def _check_linked(
    linked: Any, cols: list[Hashable], df: pd.DataFrame, reserved: list[Any], func: str
) -> dict[Hashable, list[Hashable]]:
    """``linked`` as ``{linked column: [key variables]}`` after checking it."""
    if linked is None:
        return {}
    if not isinstance(linked, Mapping):
        raise param_error(
            "linked", func, "a dict {key variable: [linked columns]}", type(linked).__name__
        )
    out: dict[Hashable, list[Hashable]] = {}
    for key, columns in linked.items():
        if key not in set(cols):
            raise InvalidParameterError(
                f"The 'linked' parameter of {func} names {key!r}, which is not a "
                "quasi-identifier; its keys are the key variables whose blanks are copied.",
                func=func,
                param="linked",
            )
        names = check_columns(df, columns, "linked", func, allow_empty=True)
        for name in names:
            if name in set(cols) or name in set(reserved):
                what = "a quasi-identifier" if name in set(cols) else "a strata or subject column"
                raise InvalidParameterError(
                    f"The 'linked' parameter of {func} links {name!r} to {key!r}, but "
                    f"{name!r} is {what}.",
                    func=func,
                    param="linked",
                )
            out.setdefault(name, []).append(key)
    return out


def check_call(
    df: pd.DataFrame,
    qi: Any,
    k: Any,
    importance: Any,
    combs: Any,
    strata: Any,
    missing: Any,
    method: Any,
    time_limit: Any,
    linked: Any,
    subject_id: Any,
    *,
    values: bool = True,
) -> tuple[Policy, str, list[Hashable], Any, Any, Any, list[Hashable], Any]:
    """The parameter checks of :func:`local_suppression`, in their order: policy,
    method, key variables, k and combs, importance, strata, time limit, linked
    columns. With ``values=False`` (an empty frame standing for a lazy frame's
    schema) the strata are not checked for missing values.

    Returns the policy, method, key variables, k per subset size, k as reported,
    the importance, the strata columns and the linked columns.
    """
    policy = parse_policy(missing, _FUNC, suppression=True)
    check_guarantee(policy, _FUNC)
    method = check_one_of(method, "method", _FUNC, METHODS)
    cols = check_columns(df, qi, "quasi_identifiers", _FUNC)
    if len(cols) > 62:
        raise param_error("qi", _FUNC, "a list of at most 62 columns", f"{len(cols)} columns")
    jobs_spec, k_report = _check_k_combs(k, combs, len(cols), _FUNC)
    imp = _check_importance(importance, cols, df, _FUNC)
    strata_cols = check_columns(df, strata, "strata", _FUNC, allow_empty=True)
    for c in strata_cols:
        if c in set(cols):
            raise InvalidParameterError(
                f"The 'strata' parameter of {_FUNC} names a quasi-identifier: {c!r}.",
                func=_FUNC,
                param="strata",
            )
        if values:
            _no_missing(df, c, "stratum", _FUNC)
    time_limit_of(time_limit, method)
    if subject_id is not None:
        check_columns(df, [subject_id], "subject_id", _FUNC)
    ghosts = _check_linked(linked, cols, df, [*strata_cols, subject_id], _FUNC)
    return policy, method, cols, jobs_spec, k_report, imp, strata_cols, ghosts


def check_dis_suda(
    threshold: Any, fraction: Any, method: str, subject_id: Any
) -> tuple[float, float] | None:
    """The DIS-SUDA threshold and sampling fraction of :func:`local_suppression` (None:
    no threshold asked for), the threshold refused with the random baseline and with
    subjects (and the fraction refused without a threshold, see :func:`dis_fraction_of`)."""
    dis_fraction = dis_fraction_of(threshold, fraction)
    if threshold is None:
        return None
    value = DIS_SUDA_THRESHOLD.check(threshold, _FUNC)
    other = "method='random'" if method == "random" else None
    if subject_id is not None:
        other = "subject_id"
    if other is not None:
        raise InvalidParameterError(
            f"The 'dis_suda_threshold' parameter of {_FUNC} cannot be combined with "
            f"{other}: the special uniques are measured record by record on the released "
            "file. Leave one of them out.",
            func=_FUNC,
            param="dis_suda_threshold",
            value=threshold,
        )
    return value, dis_fraction


def dis_fraction_of(threshold: Any, fraction: Any) -> float:
    """The sampling fraction of :func:`local_suppression`'s DIS-SUDA threshold: ``None``
    is the documented default (:data:`DIS_FRACTION`); a fraction given is checked for
    its range and refused without a threshold, where it would change nothing.

    Raises
    ------
    InvalidParameterError
        Naming ``dis_fraction``: out of (0, 1), or given while ``dis_suda_threshold``
        is None (``related`` names the threshold).
    """
    if fraction is None:
        return float(DIS_FRACTION.default)  # type: ignore[arg-type]
    value = DIS_FRACTION.check(fraction, _FUNC)
    if threshold is None:
        raise given_alone_error(
            _FUNC,
            "dis_fraction",
            value,
            "no 'dis_suda_threshold' is given",
            "the sampling fraction only sets the DIS-SUDA scores that the threshold compares",
            ("dis_suda_threshold", "'dis_suda_threshold'"),
        )
    return value


#: Wall-clock seconds of ``method="exact"`` when ``time_limit`` is not given
TIME_LIMIT = 60.0


def time_limit_of(time_limit: Any, method: str) -> float:
    """The time limit of :func:`local_suppression`'s exact method: None is
    :data:`TIME_LIMIT`; a limit given is checked (a real number > 0) and refused with
    another method, where it would change nothing.

    Raises
    ------
    InvalidParameterError
        Naming ``time_limit``: not a number > 0, or given without ``method="exact"``
        (``related`` names ``method``).
    """
    if time_limit is None:
        return TIME_LIMIT
    if isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real) or time_limit <= 0:
        raise param_error("time_limit", _FUNC, "a real number > 0", time_limit)
    if method != "exact":
        raise given_alone_error(
            _FUNC,
            "time_limit",
            time_limit,
            f"method is {method!r}, not 'exact'",
            "only the exact method runs a solver against the clock",
            ("method", "method='exact'"),
        )
    return float(time_limit)


def subject_rule_default() -> str:
    """The subject rule :func:`local_suppression` uses when ``subject_rule`` is None:
    :func:`microsdc.longitudinal.collapse_subjects`' default, ``"mode"``."""
    import inspect

    from microsdc.longitudinal import collapse_subjects

    return str(inspect.signature(collapse_subjects).parameters["rule"].default)


def check_passed_on(
    subject_rule: Any, seed: Any, progress: Any, method: str, subject_id: Any
) -> str:
    """The options :func:`local_suppression` hands to other steps, checked up front:
    each for its type, then ``subject_rule`` refused without ``subject_id`` and ``seed``
    without ``method="random"``, where they would change nothing. Returns the subject
    rule (None: :func:`subject_rule_default`).

    Raises
    ------
    InvalidParameterError
        Naming ``subject_rule``, ``seed`` or ``progress``: of the wrong type or value, or
        (``subject_rule``, ``seed``) given alone (``related`` names ``subject_id`` or
        ``method``).
    """
    from microsdc._random import check_random_state
    from microsdc.longitudinal import RULES

    if subject_rule is not None:
        check_one_of(subject_rule, "subject_rule", _FUNC, RULES)
    check_random_state(seed, "seed", _FUNC)
    check_callable(progress, "progress", _FUNC)
    if subject_rule is not None and subject_id is None:
        raise given_alone_error(
            _FUNC,
            "subject_rule",
            subject_rule,
            "no 'subject_id' is given",
            "it says how the records of one subject are collapsed",
            ("subject_id", "'subject_id'"),
        )
    if seed is not None and method != "random":
        raise given_alone_error(
            _FUNC,
            "seed",
            seed,
            f"method is {method!r}, not 'random'",
            "only the random baseline draws its blanks at random",
            ("method", "method='random'"),
        )
    return subject_rule_default() if subject_rule is None else str(subject_rule)


def check_guarantee(policy: Policy, func: str) -> None:
    """Refuse a policy that blank records can satisfy as the target of suppression."""
    if policy.kind == "conservative":
        raise InvalidParameterError(
            f"The 'missing' parameter of {func} cannot be 'conservative': k - 1 entirely "
            "blank records satisfy it for every record, so it guarantees nothing. It remains "
            "a measure of risk (sample_frequencies; on the command line, microsdc risk). Use "
            "'category' (every released record in a "
            "class of >= k identical QI tuples) or 'probabilistic' (other records' blanks "
            "count with the share of the value).",
            func=func,
            param="missing",
        )


def strata_groups(df: pd.DataFrame, strata_cols: list[Hashable]) -> list[np.ndarray]:
    n = len(df)
    if not strata_cols:
        return [np.arange(n)]
    keys = df[strata_cols].astype(object)
    codes = (
        pd.MultiIndex.from_frame(keys).factorize()[0]
        if len(strata_cols) > 1
        else (pd.factorize(keys.iloc[:, 0])[0])
    )
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    return [np.sort(g) for g in np.split(order, bounds)] if n else [np.arange(0)]


# --------------------------------------------------------------------------- what is counted

#: A key variable is checked for rare values from this many distinct values on.
RARE_MIN_DISTINCT = 100
#: Largest share of the records whose value of one key variable fewer than k records
#: hold, before suppression is refused for that variable.
RARE_MAX_SHARE = 0.05


def check_declared_codes(df: pd.DataFrame, missing_values: Any, func: str) -> None:
    """Check ``missing_values`` (a sequence, or a dict naming columns of ``df``) whatever
    the policy makes of it.

    Raises
    ------
    InvalidParameterError
        For a value of the wrong type, or a dict naming columns not in ``df``.
    """
    check_missing_values(missing_values, "missing_values", func)
    check_missing_values_columns(missing_values, df.columns, func)


def warn_declared_all_missing(
    frame: pd.DataFrame, cols: Sequence[Hashable], missing_values: Any, policy: Policy
) -> None:
    """Under ``"category"`` (declared codes counted as values): warn, as the other
    policies do, for a key variable whose every cell is missing or a declared code (one
    that is empty everywhere is warned about when it is encoded)."""
    if missing_values is None or counted_missing_values(policy, missing_values) is not None:
        return
    from microsdc.encode import missing_mask, missing_values_for, warn_all_missing

    if not len(frame):
        return
    for c in cols:
        col = frame[c]
        if missing_mask(col, missing_values_for(missing_values, c)).all() and not col.isna().all():
            warn_all_missing(c)


def counted_missing_values(policy: Policy, missing_values: Any) -> Any:
    """The ``missing_values`` a guarantee counts as missing.

    Under ``"category"`` the guarantee is counted on the file as released, where a
    declared code (``-7``) stays and a blanked cell is empty: two different values,
    so the code is a category of its own (None: nothing besides true missing
    values is missing). The other policies match a code as a missing value.

    >>> counted_missing_values(Policy("category"), [-7]) is None
    True
    >>> counted_missing_values(Policy("wildcard"), [-7])
    [-7]
    """
    return None if policy.kind == "category" else missing_values


def check_rare_values(
    codes: np.ndarray,
    cols: Sequence[Hashable],
    k: int,
    records: np.ndarray | None = None,
    *,
    accept: bool = False,
    func: str = _FUNC,
) -> None:
    """Refuse a key variable that suppression cannot protect, before any cell is blanked.

    A value that fewer than k records hold must be blanked in each of them for an
    intruder who knows it not to find the record (no other record can take the
    value on). When such cells make more than :data:`RARE_MAX_SHARE` (5 %) of the
    records of a variable with at least :data:`RARE_MIN_DISTINCT` (100) distinct
    values (free text, an income in units, an identifier), suppression blanks the
    column rather than protects it, and a policy that blanks less (a wildcard
    count) leaves the rare values in the release. The thresholds are a judgement:
    a key variable that loses more than 5 % of its cells to suppression is
    distorted enough that recoding it first (global recoding before local
    suppression, the order sdcMicro's guidelines teach) serves the analyst
    better, and below 100 distinct values a variable is categorical enough for
    suppression to work on it.

    Parameters
    ----------
    codes : ndarray of shape (n, m), -1 = missing
    cols : the key variables' names
    k : int, the smallest k asked for
    records : ndarray of shape (n,), optional
        Records behind each row (an engine's distinct patterns).
    accept : bool
        Do not check (the user's ``accept_rare_values=True``).
    func : str

    Raises
    ------
    DataValidationError
        Naming the column, its distinct values, the records holding rare values,
        and the fixes (bin, recode, drop, or ``accept_rare_values=True``).
    """
    if accept or k <= 1 or not len(codes):
        return
    w = np.ones(len(codes)) if records is None else np.asarray(records, dtype=np.float64)
    n = float(w.sum())
    for j, name in enumerate(cols):
        col = codes[:, j]
        seen = col >= 0
        tally = np.bincount(col[seen], weights=w[seen])
        distinct = int(np.count_nonzero(tally))
        if distinct < RARE_MIN_DISTINCT:
            continue
        rare = round(float(tally[(tally > 0) & (tally < k)].sum()))
        if rare > RARE_MAX_SHARE * n:
            raise DataValidationError(
                f"Key variable {name!r} has {distinct:,} distinct values in {int(n):,} "
                f"records, and {rare:,} records ({100 * rare / n:.1f} %) hold a value that "
                f"fewer than k={k} records hold. Suppression cannot protect such a variable: "
                "every one of those cells must be blanked for an intruder who knows the "
                "value not to find the record. Bin it (bin_numeric, --bin on the command "
                "line), recode it into fewer categories, or drop it from the key variables; "
                f"to suppress it anyway, set the 'accept_rare_values' parameter of {func} "
                "to True.",
                func=func,
                param="quasi_identifiers",
                value=name,
            )


def warn_measure_policy(result: Any, policy: Policy) -> None:
    """Say how many records an intruder who knows their key values still picks with
    probability above 1/k, and how many of them suppression left unchanged: under a
    measure policy (not ``"category"``), after ``method="random"``, or with ``combs``
    (k on subsets of the key variables only)."""
    if result.prosecutor_after is None:
        return
    from microsdc.risk.prosecutor import prosecutor_figures

    k = int(min(result.k)) if isinstance(result.k, list) else int(result.k)
    records = result.record_weights()
    after = prosecutor_figures(result.prosecutor_after, k, records)
    if after["n_above_1_over_k"] == 0:
        return
    risk = result.prosecutor_after.to_numpy(dtype=np.float64)
    above = risk > 1.0 / k + 1e-12
    untouched = above & (result.cells_per_row.to_numpy() == 0)
    w = np.ones(len(risk)) if records is None else np.asarray(records, dtype=np.float64)
    unchanged = round(float(w[untouched].sum()))
    left = (
        f"{after['n_above_1_over_k']:,} records can still be picked with probability above "
        f"1/{k} (up to {after['max']:.2f}) by an intruder who knows their key values, "
        f"{unchanged:,} of them left unchanged."
    )
    if policy.kind != "category":
        head = f"missing={policy.label!r} is a measure, not a protection: after suppression "
        tail = (
            " The default missing='category' leaves none (the prosecutor risk of each "
            "record is at most 1/k)."
        )
    elif result.method == "random":
        head = "method='random' does not reach the guarantee: after suppression "
        tail = " Use method='greedy' to release."
    else:  # combs: k on subsets of the key variables, not on all of them
        head = "The guarantee holds on the subsets of 'combs', not on all key variables: "
        tail = " Leave 'combs' out to protect against an intruder who knows them all."
    warn(head + left + tail, DisclosureRiskWarning)


def check_exact(method: str, policy: Policy, missing: Any, combs: Any) -> None:
    """Refuse ``method="exact"`` with another policy than wildcard, or with ``combs``.

    Raises
    ------
    InvalidParameterError
        Naming ``method`` (and ``missing`` or ``combs``).
    """
    if method != "exact":
        return
    if policy.kind != "wildcard":
        raise InvalidParameterError(
            f"method='exact' of {_FUNC} solves missing='wildcard' only, not "
            f"missing='{missing}' (it measures how far the greedy is from the optimum of that "
            "count, which leaves records an intruder who knows their key values picks). Use "
            "method='greedy' for the default guarantee, or pass missing='wildcard' explicitly "
            "to measure.",
            func=_FUNC,
            param="method",
            related=("missing",),
        )
    if combs is not None:
        raise InvalidParameterError(
            f"method='exact' of {_FUNC} takes no 'combs' (it makes the whole set of "
            "quasi-identifiers k-anonymous). Use method='greedy' with 'combs'.",
            func=_FUNC,
            param="method",
            related=("combs",),
        )


@dataclass(frozen=True)
class Call:
    """A call of :func:`~microsdc.suppression.local.local_suppression`, checked.

    Attributes
    ----------
    frame : FrameAdapter
        The data frame's adapter (``frame.lazy`` for an engine's frame).
    schema : pandas.DataFrame
        The frame the columns were checked in: the data, or for a lazy frame an
        empty frame with its column names.
    checked : tuple
        :func:`~microsdc.suppression.params.check_call`'s values: the policy, method,
        key variables, k per subset size, k as reported, importance, strata columns
        and linked columns.
    limit : float
        Seconds per stratum for the exact method.
    rule : str
        How the records of a subject are collapsed.
    threshold : tuple of (float, float) or None
        The DIS-SUDA threshold and sampling fraction (None: none asked for).
    missing_values, counted
        The missing values declared, and those the policy counts as missing
        (:func:`~microsdc.suppression.params.counted_missing_values`).
    t0 : float
        ``time.perf_counter()`` when the call began.
    """

    frame: FrameAdapter
    schema: pd.DataFrame
    checked: tuple[Any, ...]
    limit: float
    rule: str
    threshold: tuple[float, float] | None
    missing_values: MissingValues
    counted: MissingValues
    t0: float
