"""Unbiased estimates of the original frequencies from a PRAM release: :func:`pram_estimate`."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from microsdc._validation import check_frame, check_instance
from microsdc.data.strata import stratum_ids
from microsdc.exceptions import DataValidationError, InvalidParameterError
from microsdc.postrandomisation.result import LazyPramResult, PramResult, TransitionMatrix

__all__ = ["pram_estimate"]

_FUNC = "pram_estimate"


def pram_estimate(released: pd.DataFrame, result: PramResult) -> pd.DataFrame:
    """Estimate the original category frequencies from a PRAM release.

    With ``q`` the released counts of the PRAMmed records of a stratum and ``R`` its
    transition matrix, ``E[q] = n R`` for the original counts ``n``, so ``q R^-1`` is an
    unbiased estimate of ``n`` (Gouweleeuw et al. 1998, *JOS* 14(4), section 3). Its
    standard error comes from the multinomial covariance of ``q``,
    ``sum_c n_c (diag(R_c) - R_c' R_c)``, with the estimate (negative values as 0) in
    place of ``n``, carried through ``R^-1``.

    After ``pram(..., hid=...)`` the draws are per household, and so are the counts:
    each household is counted once (by its first member in ``result.data``) and the
    estimates are of the original **household** frequencies.

    Parameters
    ----------
    released : pandas.DataFrame
        The release: ``result.data``, or it after later steps that kept its rows in order
        (the records counted are ``result.pramed``'s).
    result : PramResult
        What :func:`pram` returned.

    Returns
    -------
    pandas.DataFrame
        One row per variable (a group named ``"a + b"``), stratum and category: columns
        ``variables``, the strata columns, ``category``, ``released`` (count of records,
        or of households after ``hid=``),
        ``estimate`` and ``standard_error``. Sum ``estimate`` over strata for a total
        (and add the squared standard errors).

    Raises
    ------
    InvalidParameterError
        If ``released`` is not a DataFrame with ``result.data``'s index, or ``result`` is
        not a :class:`PramResult` (the result of pram on a lazy frame is named, with how
        to get one).
    DataValidationError
        If a PRAMmed record holds a value its matrix does not know.
    """
    if isinstance(result, LazyPramResult):
        raise InvalidParameterError(
            f"The 'result' parameter of {_FUNC} is the result of pram on a lazy frame, which "
            "keeps no per-record flags. Collect the frame, run pram on it with the same "
            "seed (it gives the same release) and pass that result.",
            func=_FUNC,
            param="result",
        )
    check_frame(released, "released", _FUNC)
    check_instance(result, PramResult, "result", _FUNC, "a PramResult (what pram returns)")
    if not released.index.equals(result.data.index):
        raise InvalidParameterError(
            f"The 'released' parameter of {_FUNC} must keep the rows of result.data in their "
            "order (the same index); the records PRAMmed are known by position.",
            func=_FUNC,
            param="released",
        )
    sid, values = stratum_ids(released, list(result.strata))
    where_stratum = {v: sid == i for i, v in enumerate(values)}
    # with households as units, each household is counted once (by its first member)
    unit = (
        np.ones(len(sid), dtype=bool)
        if result.hid is None
        else ~result.data[result.hid].duplicated().to_numpy()
    )
    rows: list[dict[str, Any]] = []
    for m in result.matrices:
        take = (
            result.pramed[m.variables[0]].to_numpy()
            & unit
            & where_stratum.get(m.stratum, np.zeros(len(sid), bool))
        )
        rows.extend(_estimate(released, m, take, result.strata))
    columns = ["variables", *result.strata, "category", "released", "estimate", "standard_error"]
    return pd.DataFrame(rows, columns=columns)


def _estimate(
    released: pd.DataFrame, m: TransitionMatrix, take: np.ndarray, strata: tuple[Any, ...]
) -> list[dict[str, Any]]:
    labels = m.matrix.index
    if len(m.variables) == 1:
        keys: Any = released[m.variables[0]].to_numpy()[take]
    else:
        keys = pd.MultiIndex.from_frame(released[list(m.variables)][take])
    codes = labels.get_indexer(keys)
    if (codes < 0).any():
        bad = keys[int(np.flatnonzero(codes < 0)[0])]
        raise DataValidationError(
            f"{_FUNC}: a PRAMmed record of {' + '.join(map(str, m.variables))} holds {bad!r}, "
            "which its transition matrix does not know; was the release changed after PRAM?",
            func=_FUNC,
            param="released",
        )
    q = np.bincount(codes, minlength=len(labels)).astype(np.float64)
    return estimate_from_counts(m, q, strata)


def estimate_from_counts(
    m: TransitionMatrix, q: np.ndarray, strata: tuple[Any, ...]
) -> list[dict[str, Any]]:
    """The unbiased estimate ``q R^-1`` of matrix ``m``'s original counts from its released
    counts ``q`` (one per category of ``m``, in order), with standard errors: one row per
    category, as :func:`pram_estimate` gives them. A lazy result's ``m.released`` is its
    ``q``."""
    labels = m.matrix.index
    q = np.asarray(q, dtype=np.float64)
    r = m.matrix.to_numpy()
    inverse = np.linalg.pinv(r)
    estimate = q @ inverse
    n = np.clip(estimate, 0.0, None)
    cov_q = np.diag(n @ r) - (r.T * n) @ r
    cov = inverse.T @ cov_q @ inverse
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    name = " + ".join(map(str, m.variables))
    return [
        {
            "variables": name,
            **dict(zip(strata, m.stratum, strict=True)),
            "category": labels[j],
            "released": int(q[j]),
            "estimate": float(estimate[j]),
            "standard_error": float(se[j]),
        }
        for j in range(len(labels))
    ]
