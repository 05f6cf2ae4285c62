"""Special uniques: SUDA scores and DIS-SUDA (SUDA2 search of minimal sample uniques)."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from microsdc._validation import (
    check_bool,
    check_columns,
    check_frame,
    check_int,
    check_number,
    param_error,
)
from microsdc.backends.dispatch import accepts_frames
from microsdc.encode import EncodedQIs, MissingValues, encode_qis
from microsdc.exceptions import DataValidationError, InvalidParameterError
from microsdc.risk.suda_core import (
    MISSING_RULES,
    StratumSuda,
    msu_contributions,
    score_weights,
    suda_codes,
)

__all__ = ["SudaResult", "suda"]

FUNC = "suda"
#: bit masks of int64 hold the MSU columns
MAX_KEYS = 62

SudaMissing = Literal["wildcard", "category", "sdcmicro"]


@dataclass(frozen=True)
class SudaResult:
    """Special uniques of every record: SUDA and DIS-SUDA scores, MSUs and contributions.

    Attributes
    ----------
    scores : pandas.DataFrame
        Indexed like the data: ``suda`` (float64, the SUDA score, 0 for a record
        with no MSU), ``dis_suda`` (float64 in [0, 1]) and ``n_msu`` (int64, the
        record's number of minimal sample uniques).
    msu_counts : pandas.DataFrame
        Indexed like the data, one int32 column per MSU size ``1 .. max size``:
        the record's number of MSUs of that size.
    variable_contributions : pandas.DataFrame
        Indexed by key variable: ``contribution`` (percent of the total score; each
        MSU's score is split evenly among its variables, so the column adds up to
        100), ``in_msus`` (percent of the total score that comes from MSUs holding
        the variable; adds up to more than 100 when MSUs have several variables,
        like sdcMicro's ``attribute_contributions``) and ``n_msus`` (MSUs holding it).
    level_contributions : pandas.DataFrame
        One row per (variable, level) that occurs in an MSU: ``variable``,
        ``level`` (the value; missing under ``missing="category"``),
        ``contribution`` (percent of the total score, as above; adds up to 100 over
        all rows), ``in_msus`` (percent) and ``n_msus``.
    dis : float or pandas.Series
        The DIS value (Skinner & Elliot); with ``strata``, a Series of one value per
        stratum, indexed by the strata values (a MultiIndex for several columns).
    n_sample_uniques : int
        Records unique on the whole key (summed over strata).
    n_pairs : int
        Records whose key is shared with exactly one other record.
    total_score : float
        Sum of the SUDA scores.
    msus : dict
        For each row label given in ``msus_of``: the record's MSUs, each a dict
        ``{variable: value}``, by size and then in the order of the key variables.
        :meth:`list_msus` gives those of any other record.
    max_msu : int
        Largest MSU size searched.
    missing : str
        The missing-value rule used.
    original_scores : bool
        Whether the scores use the original weights (else the IHSN weights).
    """

    scores: pd.DataFrame
    msu_counts: pd.DataFrame
    variable_contributions: pd.DataFrame
    level_contributions: pd.DataFrame
    dis: float | pd.Series
    n_sample_uniques: int
    n_pairs: int
    total_score: float
    msus: dict[Hashable, list[dict[Hashable, Any]]] = field(default_factory=dict)
    max_msu: int = 0
    missing: str = "wildcard"
    original_scores: bool = True
    _lookup: _MsuLookup | None = field(default=None, repr=False, compare=False)

    def summary(self, top_levels: int = 10) -> dict[str, Any]:
        """The aggregates as a JSON-ready dict (for a job's audit and report).

        Parameters
        ----------
        top_levels : int, default 10
            How many levels (variable = value) to list, largest contribution first.

        Returns
        -------
        dict
            ``max_msu``, ``missing``, ``n_records``, ``records_with_msu``,
            ``share_with_msu``, ``n_sample_uniques``, ``n_pairs``, ``dis`` (None with
            strata), ``dis_suda_bins`` (``upper_edges`` and ``counts``: records with a
            DIS-SUDA of 0, in (0, 0.1], ..., (0.6, 0.7] and above 0.7), ``max_dis_suda``,
            ``variables`` (``variable``, ``contribution``, ``in_msus`` in percent, largest
            first) and ``levels`` (``variable``, ``level`` as text, ``contribution``).
        """
        ds = self.scores["dis_suda"].to_numpy()
        n = len(ds)
        edges = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]
        eps = np.finfo(float).eps
        counts = [int((ds <= eps).sum())]
        for lo, hi in itertools.pairwise(edges):
            counts.append(int(((ds > lo + eps) & (ds <= hi + eps)).sum()))
        counts.append(int((ds > edges[-1] + eps).sum()))
        with_msu = int((self.scores["n_msu"] > 0).sum())
        vc = self.variable_contributions.sort_values("contribution", ascending=False)
        lc = self.level_contributions
        if len(lc):
            lc = lc.sort_values("contribution", ascending=False, kind="stable").head(top_levels)
        return {
            "max_msu": int(self.max_msu),
            "missing": self.missing,
            "n_records": n,
            "records_with_msu": with_msu,
            "share_with_msu": with_msu / n if n else 0.0,
            "n_sample_uniques": int(self.n_sample_uniques),
            "n_pairs": int(self.n_pairs),
            "dis": float(self.dis) if isinstance(self.dis, float) else None,
            "dis_suda_bins": {"upper_edges": [*edges, 1.0], "counts": counts},
            "max_dis_suda": float(ds.max()) if n else 0.0,
            "variables": [
                {
                    "variable": str(name),
                    "contribution": float(row["contribution"]),
                    "in_msus": float(row["in_msus"]),
                }
                for name, row in vc.iterrows()
            ],
            "levels": [
                {
                    "variable": str(row["variable"]),
                    "level": "(missing)" if pd.isna(row["level"]) else str(row["level"]),
                    "contribution": float(row["contribution"]),
                }
                for _, row in lc.iterrows()
            ],
        }

    def list_msus(self, labels: Sequence[Hashable]) -> dict[Hashable, list[dict[Hashable, Any]]]:
        """The MSUs of the records with the given row labels, as in ``msus``.

        Parameters
        ----------
        labels : list of row labels
            Labels of the data's index, each held by one record.

        Returns
        -------
        dict
            Row label -> list of MSUs, each a dict ``{variable: value}``, by size and
            then in the order of the key variables.

        Raises
        ------
        InvalidParameterError
            If a label is not in the index or the index holds it more than once.
        """
        if self._lookup is None:
            return {}
        frame = pd.DataFrame(index=self._lookup.enc.index)
        return self._lookup.listed(_msu_rows(frame, labels, "list_msus", "labels"))


@accepts_frames()
def suda(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[Hashable],
    *,
    max_msu: int | None = None,
    dis_fraction: float | Mapping[Any, float] = 0.01,
    missing: SudaMissing = "wildcard",
    original_scores: bool = True,
    strata: Hashable | Sequence[Hashable] | None = None,
    missing_values: MissingValues = None,
    msus_of: Sequence[Hashable] | None = None,
    threads: int | None = None,
) -> SudaResult:
    """SUDA and DIS-SUDA scores: which records are special uniques, and why.

    A minimal sample unique (MSU) of a record is a set of its key values that no
    other record shares, while every smaller subset of it is shared. The fewer
    values an MSU needs, the more easily an intruder can single the record out.
    All MSUs are found by a recursive search (SUDA2), not by trying every subset.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns), or a polars DataFrame or pyarrow Table
        The microdata. Never modified. A polars ``DataFrame`` or pyarrow ``Table`` is
        searched as its pandas conversion (records numbered from 0), and the result's
        frames are pandas frames. A lazy frame (polars ``LazyFrame``, DuckDB relation,
        Spark DataFrame) is refused with how to collect it: the search needs the records.
    quasi_identifiers : list of column names
        Key variables, categorical (bin numeric ones first); at most 62. One or two
        are fine (no dummy columns are added).
    max_msu : int >= 1, optional
        Largest MSU size searched (all key variables by default). With 10-15 key
        variables a limit of 4-6 keeps the search short. It is also the ``M`` of the
        score weights (a limit at or above the number of keys changes nothing).
    dis_fraction : float in (0, 1) or dict, default 0.01
        Sampling fraction f of the DIS value (sdcMicro ``DisFraction``). With
        ``strata``, a dict gives each stratum its own fraction: stratum value (a tuple of
        values for several strata columns) -> fraction; every stratum needs one.
    missing : {"wildcard", "category", "sdcmicro"}, default "wildcard"
        How a missing key value counts:

        - ``"wildcard"``: a missing value matches every value (as in
          :func:`~microsdc.sample_frequencies`), so a blank never makes a
          combination more unique; a record's MSUs hold only its known values.
        - ``"category"``: missing is one more category, matched exactly; it can be
          part of an MSU.
        - ``"sdcmicro"``: the rule of sdcMicro's ``suda2``: a missing value matches
          nothing, neither another record's value nor another missing value, and is
          never part of an MSU. A record whose uniqueness rests on its own missing
          value gets score 0. Use it to reproduce sdcMicro's scores.
    original_scores : bool, default True
        Score weights. True: an MSU of size s adds ``(M - s)!`` (Elliot et al.;
        sdcMicro's default). False: the legacy IHSN weight
        ``(2^(M-s) - 1) s! (M-s)! / M!``. M is the number of key variables, or
        ``max_msu`` when it is smaller.
    strata : column name or list of column names, optional
        Search each stratum on its own (MSUs, scores, DIS and DIS-SUDA within the
        stratum). Strata columns must have no missing values.
    missing_values : sequence or dict, optional
        Codes that mean "missing" besides NaN/None, as in
        :func:`~microsdc.sample_frequencies`.
    msus_of : list of row labels, optional
        Records whose MSUs are listed in ``msus`` (the labels of ``df``'s index).
    threads : {1, 2} or None, default None
        Threads of the search. With 2, the sets that start with the first key variable
        are searched at the same time as the others (the same MSUs and scores; on two
        free cores the wall time drops by up to a half; the search holds two sets of
        working arrays, about a tenth more peak memory at 100,000 records x 9 keys).
        None picks 2 when the key has at least 20,000 distinct value combinations, the
        process may use two CPUs and one of them is free (load average of the last
        minute), else 1; on a busy machine a second thread makes the search slower.

    Returns
    -------
    SudaResult

    Raises
    ------
    InvalidParameterError
        If ``df`` is not a DataFrame (or is a lazy frame), the key list is empty,
        repeats a name or has more than 62 names, ``max_msu`` is not an int >= 1,
        ``dis_fraction`` is not in (0, 1) (as a dict: misses a stratum, or is given
        without strata),
        ``missing`` is unknown, ``original_scores`` is not a bool, ``threads`` is not
        1 or 2, or ``msus_of`` names a row label that is not in the index (or the
        index repeats a label it names).
    ColumnNotFoundError
        For key or strata columns not in ``df``.
    DataValidationError
        If ``df`` has duplicate column names, a key holds values that cannot be
        compared, or a strata column has missing values.

    Notes
    -----
    The SUDA score of a record is the sum of the weights of its MSUs. With U the
    records unique on the whole key and P the records in pairs (key shared with
    exactly one other record), ``DIS = U f / (U f + P (1 - f))`` and the DIS-SUDA
    of a record with score S > 0 is ``1 / (1 + (U/DIS - U) / (S^Q sum_j S_j^-Q))``
    with ``Q = 1 + (8 - m) / 20`` and m the number of key variables; 0 for S = 0.
    The DIS formula assumes that every key value is known and matched exactly:
    with missing values U and P are an approximation. Under ``"wildcard"`` a missing
    value matches every value; under ``"category"`` and ``"sdcmicro"`` U and P count
    records with the same key, a blank equal to a blank (the count sdcMicro makes of
    its missing code before its search), although the MSU search under
    ``"sdcmicro"`` lets a blank match nothing.

    Differences from sdcMicro's ``suda2`` (5.8), whose scores agree record by record
    under ``missing="sdcmicro"``: sdcMicro's U counts only the uniques that sit alone
    in a bucket of its hash table, so its DIS and DIS-SUDA are too low; microsdc
    counts every unique. sdcMicro's per-variable ``contributionPercent`` are
    fractions of each record's score that add up to more than 1 and its level
    contributions are derived from them; microsdc sums the MSU lists themselves
    (``contribution`` adds up to 100 %, ``in_msus`` is sdcMicro's measure). sdcMicro
    pads one or two key variables with constant dummy columns, which changes M in
    the weights and Q; microsdc needs none.

    The search works on the distinct key patterns with their counts: a pattern
    held by two or more records has no MSU, and only patterns of one record are
    followed down the search tree (the other patterns count for uniqueness).

    References
    ----------
    Elliot, Manning & Ford (2002), A computational algorithm for handling the
    special uniques problem, *IJUFKS* 10(5). Manning, Haglin & Keane (2008), A
    recursive search algorithm for statistical disclosure assessment, *Data Min.
    Knowl. Disc.* 16. Skinner & Elliot (2002), A measure of disclosure risk for
    microdata, *JRSS B* 64(4). sdcMicro ``suda2``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["m", "m", "f", "f"], "age": [20, 30, 20, 20],
    ...                    "region": ["a", "a", "a", "b"]})
    >>> res = suda(df, ["sex", "age", "region"], msus_of=[0, 1])
    >>> res.scores["suda"].tolist()  # one MSU each: size 1 weighs (3-1)! = 2, size 2 weighs 1
    [1.0, 2.0, 1.0, 2.0]
    >>> res.msus
    {0: [{'sex': 'm', 'age': 20}], 1: [{'age': 30}]}
    >>> res.variable_contributions["contribution"].round(1).tolist()
    [16.7, 41.7, 41.7]
    """
    check_frame(df, "df", FUNC)
    rule = _check_missing(missing)
    check_bool(original_scores, "original_scores", FUNC)
    if not isinstance(dis_fraction, Mapping):
        _fraction(dis_fraction)
    if max_msu is not None:
        max_msu = check_int(max_msu, "max_msu", FUNC, min_value=1)
    n_threads = (
        0 if threads is None else check_int(threads, "threads", FUNC, min_value=1, max_value=2)
    )
    strata_cols = check_columns(df, strata, "strata", FUNC, allow_empty=True)
    enc = encode_qis(df, quasi_identifiers, missing_values=missing_values, func=FUNC)
    m = len(enc.columns)
    if m > MAX_KEYS:
        raise param_error(
            "quasi_identifiers", FUNC, f"a list of at most {MAX_KEYS} column names", m
        )
    positions = _msu_rows(df, msus_of, FUNC, "msus_of")
    max_size = m if max_msu is None else min(max_msu, m)
    big_m = max_size  # a limit at or above the number of keys is no limit
    weights = score_weights(big_m, bool(original_scores))
    codes, ncat = _rule_codes(enc, rule)
    if rule != "category":  # the same codes, in rows: keep one copy of them, not two
        enc = dataclasses.replace(enc, codes=codes)
    groups, labels = _strata(df, strata_cols)
    fractions = _fractions(dis_fraction, labels, len(groups))
    parts = [
        suda_codes(
            codes if len(groups) == 1 else codes[g],  # one stratum: no copy of the codes
            ncat,
            rule=rule,
            max_size=max_size,
            weights=weights,
            fraction=f,
            n_keys=m,
            n_threads=n_threads,
        )
        for g, f in zip(groups, fractions, strict=True)
    ]
    return _assemble(
        enc, rule, groups, labels, parts, weights, max_size, positions, bool(original_scores)
    )


def _fraction(value: Any) -> float:
    return check_number(
        value, "dis_fraction", FUNC, low=0.0, high=1.0, low_open=True, high_open=True
    )


def _fractions(dis_fraction: Any, labels: pd.Index, n_groups: int) -> list[float]:
    """The sampling fraction of each stratum (one for the whole file without strata)."""
    if not isinstance(dis_fraction, Mapping):
        return [_fraction(dis_fraction)] * n_groups
    if len(labels) == 0:
        raise InvalidParameterError(
            f"The 'dis_fraction' parameter of {FUNC} is a dict of fractions per stratum, "
            "but no strata are given: pass strata=, or one number.",
            func=FUNC,
            param="dis_fraction",
        )
    out = []
    for label in labels:
        if label not in dis_fraction:
            raise InvalidParameterError(
                f"The 'dis_fraction' parameter of {FUNC} gives no fraction for the stratum "
                f"{label!r}: give one for every stratum "
                f"({', '.join(repr(x) for x in list(labels)[:10])}).",
                func=FUNC,
                param="dis_fraction",
                value=label,
            )
        out.append(_fraction(dis_fraction[label]))
    return out


def _check_missing(missing: Any) -> str:
    if isinstance(missing, str) and missing in MISSING_RULES:
        return missing
    names = ", ".join(repr(r) for r in MISSING_RULES)
    hint = ""
    if isinstance(missing, str) and missing in ("probabilistic", "conservative"):
        hint = (
            f" (a record is unique under {missing!r} exactly when it is unique under 'wildcard'"
            if missing == "probabilistic"
            else " ('conservative' completes missing values, which has no MSU meaning"
        ) + ")"
    raise param_error("missing", FUNC, f"one of {names}{hint}", missing)


def _rule_codes(enc: EncodedQIs, rule: str) -> tuple[np.ndarray, np.ndarray]:
    """The codes the search runs on: under "category" a missing value becomes a
    category of its own (code ``n_categories``)."""
    ncat = enc.n_categories.astype(np.int64)
    codes = np.ascontiguousarray(enc.codes, dtype=np.int32)
    if rule == "category":
        miss = codes < 0
        if miss.any():
            codes = np.where(miss, ncat.astype(np.int32)[None, :], codes).astype(np.int32)
            ncat = ncat + miss.any(axis=0)
    return codes, ncat


def _strata(df: pd.DataFrame, strata_cols: list[Hashable]) -> tuple[list[np.ndarray], pd.Index]:
    """Row positions of each stratum (sorted by stratum value) and the strata as an index
    named after the strata columns (empty without strata)."""
    n = len(df)
    if not strata_cols:
        return [np.arange(n)], pd.Index([])
    keys = df[strata_cols]
    bad = keys.isna().any(axis=1).to_numpy()
    if bad.any():
        col = next(c for c in strata_cols if df[c].isna().any())
        raise DataValidationError(
            f"The strata column {col!r} of {FUNC} has {int(df[col].isna().sum())} missing "
            f"value(s) (first rows: {list(df.index[df[col].isna().to_numpy()][:5])}). Give "
            "every record a stratum, or fill the blanks with a stratum of their own.",
            failure_cases=list(df.index[bad]),
            func=FUNC,
        )
    index: pd.Index
    if len(strata_cols) == 1:
        codes, uniques = pd.factorize(keys.iloc[:, 0], sort=True)
        index = pd.Index(uniques, name=strata_cols[0])
    else:
        mi = pd.MultiIndex.from_frame(keys.astype(object))
        codes, tuples = mi.factorize(sort=True)
        index = pd.MultiIndex.from_tuples(list(tuples), names=strata_cols)
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    return [np.sort(g) for g in np.split(order, bounds)], index


def _msu_rows(df: pd.DataFrame, msus_of: Any, func: str, name: str) -> dict[Hashable, int]:
    """Row position of each label in ``msus_of`` (parameter ``name`` of ``func``)."""
    if msus_of is None:
        return {}
    if isinstance(msus_of, np.ndarray) and msus_of.ndim == 1:
        msus_of = msus_of.tolist()
    if isinstance(msus_of, str | bytes) or not isinstance(msus_of, Sequence | pd.Index):
        raise param_error(name, func, "a list of row labels or None", msus_of)
    out: dict[Hashable, int] = {}
    for label in msus_of:
        try:
            pos = df.index.get_loc(label)
        except (KeyError, TypeError):
            raise InvalidParameterError(
                f"The '{name}' parameter of {func} names the row label {label!r}, which "
                "is not in the data's index.",
                func=func,
                param=name,
                value=label,
            ) from None
        if not isinstance(pos, int | np.integer):
            raise InvalidParameterError(
                f"The '{name}' parameter of {func} names the row label {label!r}, which "
                "the data's index holds more than once; reset the index first.",
                func=func,
                param=name,
                value=label,
            )
        out[label] = int(pos)
    return out


def _assemble(
    enc: EncodedQIs,
    rule: str,
    groups: list[np.ndarray],
    labels: pd.Index,
    parts: list[StratumSuda],
    weights: np.ndarray,
    max_size: int,
    positions: dict[Hashable, int],
    original: bool,
) -> SudaResult:
    n = enc.n_rows
    where = np.zeros(n, dtype=np.int64)  # the stratum of each row
    if len(parts) == 1:  # the whole file: its arrays as they are, no copies
        score, dis_suda, counts = parts[0].score, parts[0].dis_suda, parts[0].msu_counts
        local = np.arange(n)
    else:
        score = np.zeros(n)
        dis_suda = np.zeros(n)
        counts = np.zeros((n, max(max_size, 1)), dtype=np.int32)
        local = np.zeros(n, dtype=np.int64)  # its position in the stratum
    by_level = None
    for i, (g, part) in enumerate(zip(groups, parts, strict=True)):
        if len(parts) > 1:
            score[g] = part.score
            dis_suda[g] = part.dis_suda
            counts[g] = part.msu_counts
            where[g] = i
            local[g] = np.arange(len(g))
        by_level = part.by_level if by_level is None else by_level + part.by_level
    scores = pd.DataFrame(
        {"suda": score, "dis_suda": dis_suda, "n_msu": counts.sum(axis=1, dtype=np.int64)},
        index=enc.index,
        copy=False,  # arrays made for this result
    )
    msu_counts = pd.DataFrame(counts[:, :max_size], index=enc.index, copy=False)
    msu_counts.columns = pd.RangeIndex(1, max_size + 1)
    total = float(counts.sum(axis=0, dtype=np.int64).astype(np.float64) @ weights[1 : max_size + 1])
    var_c, lev_c = _contributions(enc, by_level, weights[: max_size + 1], total)
    dis: float | pd.Series = (
        parts[0].dis
        if len(labels) == 0
        else pd.Series([p.dis for p in parts], index=labels, name="dis")
    )
    # the lookup keeps the codes of the strata (to search a record's MSUs), not their scores
    empty = np.zeros(0)
    slim = [dataclasses.replace(p, score=empty, dis_suda=empty, msu_counts=empty) for p in parts]
    lookup = _MsuLookup(enc, slim, where, local)
    return SudaResult(
        scores=scores,
        msu_counts=msu_counts,
        variable_contributions=var_c,
        level_contributions=lev_c,
        dis=dis,
        n_sample_uniques=sum(p.n_uniques for p in parts),
        n_pairs=sum(p.n_pairs for p in parts),
        total_score=total,
        msus=lookup.listed(positions),
        max_msu=max_size,
        missing=rule,
        original_scores=original,
        _lookup=lookup,
    )


@dataclass(frozen=True)
class _MsuLookup:
    """The codes of every stratum and where each row sits, for listing the MSUs of
    chosen records."""

    enc: EncodedQIs
    parts: list[StratumSuda]
    where: np.ndarray
    local: np.ndarray

    def listed(self, positions: dict[Hashable, int]) -> dict[Hashable, list[dict[Hashable, Any]]]:
        out: dict[Hashable, list[dict[Hashable, Any]]] = {}
        m = len(self.enc.columns)
        for label, pos in positions.items():
            mine = self.parts[int(self.where[pos])].masks_of(int(self.local[pos]))
            cols = [[j for j in range(m) if (int(mk) >> j) & 1] for mk in mine]
            cols.sort(key=lambda c: (len(c), c))
            out[label] = [{self.enc.columns[j]: _value(self.enc, pos, j) for j in c} for c in cols]
        return out


def _contributions(
    enc: EncodedQIs, by_level: np.ndarray | None, weights: np.ndarray, total: float
) -> tuple[pd.DataFrame, pd.DataFrame]:
    m = len(enc.columns)
    if by_level is None:
        by_level = np.zeros((m, 1, len(weights)), dtype=np.int64)
    share, in_msus, n_msus, levels = msu_contributions(by_level, weights, enc.n_categories)
    scale = 100.0 / total if total > 0 else 0.0
    var_c = pd.DataFrame(
        {"contribution": share * scale, "in_msus": in_msus * scale, "n_msus": n_msus},
        index=pd.Index(enc.columns, dtype=object, name="variable", tupleize_cols=False),
    )
    frames = []
    for j, (codes, sh, im, nm) in enumerate(levels):
        cats = enc.categories[j]
        values = [
            (v.item() if isinstance(v, np.generic) else v)
            for v in (cats[c] if c < len(cats) else np.nan for c in codes)
        ]
        frames.append(
            pd.DataFrame(
                {
                    "variable": [enc.columns[j]] * len(codes),
                    "level": pd.Series(values, dtype=object),
                    "contribution": sh * scale,
                    "in_msus": im * scale,
                    "n_msus": nm.astype(np.int64),
                }
            )
        )
    lev_c = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return var_c, lev_c


def _value(enc: EncodedQIs, pos: int, j: int) -> Any:
    code = enc.codes[pos, j]
    value = enc.categories[j][code] if code >= 0 else np.nan
    return value.item() if isinstance(value, np.generic) else value
