"""l-diversity of sensitive variables within the key combinations of the quasi-identifiers.

k-anonymity hides who a record is; l-diversity asks whether the records an
intruder cannot tell apart still differ in what he wants to learn (a
sensitive variable such as income class or diagnosis). If every record
compatible with a person's key shares one sensitive value, that value is
disclosed without re-identification (attribute disclosure).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import MissingPolicy, parse_policy
from microsdc._validation import (
    check_columns,
    check_frame,
    check_int,
    check_number,
    check_one_of,
    param_error,
)
from microsdc.backends.dispatch import accepts_frames
from microsdc.encode import (
    MissingValues,
    combine_codes,
    encode_column,
    encode_qis,
    missing_values_for,
)

__all__ = ["KINDS", "l_diversity"]

#: The measures offered by :func:`l_diversity`.
KINDS = ("distinct", "entropy", "recursive")


def _ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(starts[i], ends[i])`` over i."""
    lengths = ends - starts
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.arange(total, dtype=np.int64) - offsets + np.repeat(starts, lengths)


def _class_value_counts(
    codes: np.ndarray, n_categories: np.ndarray, s_codes: np.ndarray, wildcard: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts of each sensitive value among the records compatible with each QI pattern.

    Returns ``(pattern, count, inverse)``: one entry per (QI pattern, observed
    sensitive value) with a count > 0 (the missing value never counted), and
    the pattern of every record.
    """
    n, m = codes.shape
    if m:
        patterns, inverse = np.unique(codes, axis=0, return_inverse=True)
    else:
        patterns, inverse = np.zeros((1 if n else 0, 0), dtype=codes.dtype), np.zeros(n, np.int64)
    inverse = np.asarray(inverse, dtype=np.int64).reshape(-1)
    observed = s_codes >= 0
    n_values = int(s_codes.max(initial=-1)) + 1
    if not wildcard:
        key = inverse[observed] * n_values + s_codes[observed]
        uniq, cnt = np.unique(key, return_counts=True)
        return uniq // max(n_values, 1), cnt.astype(np.float64), inverse
    bits = (1 << np.arange(m, dtype=np.int64)) if m else np.zeros(0, dtype=np.int64)
    pat_mask = (
        ((patterns >= 0).astype(np.int64) * bits).sum(axis=1)
        if m
        else np.zeros(len(patterns), np.int64)
    )
    row_codes = codes[observed]
    row_mask = pat_mask[inverse[observed]]
    row_s = s_codes[observed].astype(np.int64)
    row_groups = {int(mb): np.flatnonzero(row_mask == mb) for mb in np.unique(row_mask)}
    pat_parts: list[np.ndarray] = []
    cell_parts: list[np.ndarray] = []
    cnt_parts: list[np.ndarray] = []
    for ma in np.unique(pat_mask):
        a_ids = np.flatnonzero(pat_mask == ma)
        for mb, b_rows in row_groups.items():
            common = [j for j in range(m) if (int(ma) & mb) >> j & 1]
            if common:
                both = np.vstack([patterns[a_ids][:, common], row_codes[b_rows][:, common]])
                key = combine_codes(both, n_categories[common])
                _, dense = np.unique(key, return_inverse=True)
                dense = dense.reshape(-1).astype(np.int64)
            else:
                dense = np.zeros(len(a_ids) + len(b_rows), dtype=np.int64)
            key_a, key_b = dense[: len(a_ids)], dense[len(a_ids) :]
            # (key, value) cells of the rows of mask mb, sorted by key
            cells, cnt = np.unique(key_b * n_values + row_s[b_rows], return_counts=True)
            cell_key = cells // n_values
            starts = np.searchsorted(cell_key, key_a, side="left")
            ends = np.searchsorted(cell_key, key_a, side="right")
            take = _ranges(starts, ends)
            if not len(take):
                continue
            pat_parts.append(np.repeat(a_ids, ends - starts))
            cell_parts.append(cells[take] % n_values)
            cnt_parts.append(cnt[take])
    if not pat_parts:
        return np.zeros(0, np.int64), np.zeros(0), inverse
    pat = np.concatenate(pat_parts)
    key = pat * n_values + np.concatenate(cell_parts)
    uniq, where = np.unique(key, return_inverse=True)
    total = np.bincount(where.reshape(-1), weights=np.concatenate(cnt_parts).astype(np.float64))
    return uniq // n_values, total, inverse


#: Dtypes of the result, each able to say "not applicable" (a class without observed values).
_NA_DTYPES = {"distinct": "Int64", "entropy": "float64", "recursive": "boolean"}


@accepts_frames()
def l_diversity(
    df: pd.DataFrame,
    quasi_identifiers: Sequence[Hashable],
    sensitive: Hashable | Sequence[Hashable],
    *,
    kind: str = "distinct",
    c: float | None = None,
    l: int | None = None,  # noqa: E741 - the name of the parameter in the literature
    missing: MissingPolicy = "wildcard",
    missing_values: MissingValues = None,
) -> pd.DataFrame:
    """l-diversity of one or more sensitive variables for every record.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        The microdata. Never modified.
    quasi_identifiers : list of column names
        Key variables.
    sensitive : column name or list of column names
        Sensitive variables; each is treated as categorical. None may be a
        quasi-identifier.
    kind : {"distinct", "entropy", "recursive"}, default "distinct"
        - ``"distinct"``: number of distinct observed sensitive values among
          the records compatible with the record (nullable ``Int64``).
        - ``"entropy"``: ``exp(H)``, H the Shannon entropy (natural log) of
          those values' relative frequencies (float64). The class is entropy
          l-diverse when ``exp(H) >= l``.
        - ``"recursive"``: whether the class satisfies recursive (c, l)-
          diversity (nullable ``boolean``); needs ``c`` and ``l``.

        Missing (``<NA>``/``NaN``) where the class has no observed sensitive
        value (see Notes).
    c : float > 0, optional
        Constant of recursive (c, l)-diversity. Required for (and only for)
        ``kind="recursive"``.
    l : int >= 1, optional
        Number of well-represented values of recursive (c, l)-diversity.
        Required for (and only for) ``kind="recursive"``.
    missing : {"wildcard", "category"}, default "wildcard"
        Which records form the class of a record r:

        - ``"wildcard"``: every record compatible with r (a missing QI value
          matches any value, on either side); the same records that are
          counted in r's ``fk``. With missing values these classes overlap.
        - ``"category"``: records with exactly r's key, missing being one more
          category.
    missing_values : sequence or dict, optional
        Codes that mean "missing" besides NaN/None/pd.NA/NaT, for the
        quasi-identifiers and the sensitive variables alike (one sequence for
        all, or ``{column: sequence}``).

    Returns
    -------
    pandas.DataFrame of shape (n_rows, n_sensitive)
        Indexed like ``df``, one column per sensitive variable, dtype by
        ``kind`` as above.

    Raises
    ------
    InvalidParameterError
        If ``kind`` is unknown; ``c``/``l`` are missing, out of range, or given
        for another kind; ``missing`` is not "wildcard" or "category"; the QI or
        sensitive lists are empty or repeat a name; a sensitive variable is
        also a quasi-identifier.
    ColumnNotFoundError
        Naming every unknown column.
    DataValidationError
        If ``df`` has duplicate column names.

    Notes
    -----
    **Missing sensitive values** are not a value: a record whose sensitive
    value is missing belongs to classes (through its quasi-identifiers) but
    adds no value to them. For a class whose sensitive values are all missing
    l-diversity is *not applicable*: the result is missing (``<NA>``, or
    ``NaN`` for entropy), not a violation of l >= 2, since there is no value
    to disclose. Count such records apart (``result.isna()``).

    **Missing quasi-identifiers** follow ``missing`` (above).

    With ``n_1 >= n_2 >= ... >= n_m`` the counts of the observed sensitive
    values in a class and ``p_i = n_i / sum n``:

    - distinct l-diversity: ``m``;
    - entropy l-diversity: ``exp(-sum p_i ln p_i)``;
    - recursive (c, l)-diversity: ``n_1 < c * (n_l + n_{l+1} + ... + n_m)``
      (false when m < l).

    References
    ----------
    Machanavajjhala, A., Kifer, D., Gehrke, J. and Venkitasubramaniam, M.
    (2007). l-diversity: Privacy beyond k-anonymity. *ACM Transactions on
    Knowledge Discovery from Data*, 1(1), 3.
    sdcMicro ``ldiversity``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({
    ...     "sex": ["m", "m", "m", "f", "f"],
    ...     "income": ["low", "high", None, "low", "low"],
    ... })
    >>> l_diversity(df, ["sex"], "income")["income"].tolist()
    [2, 2, 2, 1, 1]
    >>> l_diversity(df, ["sex"], "income", kind="recursive", c=2, l=2)["income"].tolist()
    [True, True, True, False, False]
    """
    func = "l_diversity"
    check_frame(df, "df", func)
    check_one_of(kind, "kind", func, KINDS)
    if kind == "recursive":
        if c is None or l is None:
            raise param_error("c", func, "given together with 'l' for kind='recursive'", (c, l))
        c_val = check_number(c, "c", func, low=0.0, low_open=True)
        l_val = check_int(l, "l", func, min_value=1)
    elif c is not None or l is not None:
        if c is None:  # 'l' alone
            raise param_error("l", func, "None unless kind='recursive'", l)
        raise param_error("c", func, "None unless kind='recursive'", (c, l))
    policy = parse_policy(missing, func)
    if policy.kind not in ("wildcard", "category"):
        raise param_error("missing", func, "one of 'wildcard', 'category'", missing)
    sens = check_columns(df, sensitive, "sensitive", func)
    enc = encode_qis(df, quasi_identifiers, missing_values=missing_values, func=func)
    overlap = [s for s in sens if s in set(enc.columns)]
    if overlap:
        raise param_error(
            "sensitive",
            func,
            "columns that are not quasi-identifiers",
            overlap if len(overlap) > 1 else overlap[0],
        )
    n = len(df)
    out: dict[int, Any] = {}
    for pos, s in enumerate(sens):
        s_codes, _ = encode_column(df[s], missing_values_for(missing_values, s))
        pat, cnt, inverse = _class_value_counts(
            enc.codes, enc.n_categories, s_codes, policy.kind == "wildcard"
        )
        n_patterns = int(inverse.max()) + 1 if n else 0
        n_distinct = np.bincount(pat, minlength=n_patterns).astype(np.int64)
        applicable = n_distinct > 0  # the class holds at least one observed sensitive value
        if kind == "distinct":
            per = n_distinct
        elif kind == "entropy":
            total = np.bincount(pat, weights=cnt, minlength=n_patterns)
            prob = cnt / total[pat] if len(pat) else cnt
            h = np.bincount(pat, weights=-prob * np.log(prob), minlength=n_patterns)
            per = np.exp(h)
        else:
            per = _recursive(pat, cnt, n_patterns, c_val, l_val)
        rows = per[inverse] if n else per[:0]
        na = ~applicable[inverse] if n else np.zeros(0, dtype=bool)
        out[pos] = pd.array(np.asarray(rows), dtype=_NA_DTYPES[kind])  # type: ignore[call-overload]
        if na.any():
            out[pos][na] = np.nan if kind == "entropy" else pd.NA
    frame = pd.DataFrame(out, index=df.index)
    frame.columns = pd.Index(sens, dtype=object)
    return frame


def _recursive(pat: np.ndarray, cnt: np.ndarray, n_patterns: int, c: float, l: int) -> np.ndarray:  # noqa: E741
    """Recursive (c, l)-diversity per pattern from (pattern, count) rows."""
    ok = np.zeros(n_patterns, dtype=bool)
    if not len(pat):
        return ok
    order = np.lexsort((-cnt, pat))
    pat_s, cnt_s = pat[order], cnt[order]
    starts = np.flatnonzero(np.r_[True, pat_s[1:] != pat_s[:-1]])
    rank = np.arange(len(pat_s)) - np.repeat(starts, np.diff(np.r_[starts, len(pat_s)]))
    top = np.zeros(n_patterns)
    top[pat_s[rank == 0]] = cnt_s[rank == 0]
    tail = np.bincount(pat_s[rank >= l - 1], weights=cnt_s[rank >= l - 1], minlength=n_patterns)
    m = np.bincount(pat_s, minlength=n_patterns)
    ok = (m >= l) & (top < c * tail)
    return ok
