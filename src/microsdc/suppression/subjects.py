"""Local suppression of longitudinal data: one row per subject, carried back to its records."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd

from microsdc.encode import MissingValues, encode_qis
from microsdc.longitudinal import Collapsed, restore_subjects
from microsdc.suppression.result import SuppressionResult

__all__ = ["subjects_result"]


def subjects_result(
    df: pd.DataFrame,
    qi: list[Hashable],
    col: Collapsed,
    res: SuppressionResult,
    *,
    subject_id: Hashable,
    rule: str,
    missing_values: MissingValues = None,
) -> SuppressionResult:
    """The suppression ``res`` of one row per subject (``col``, from
    :func:`microsdc.longitudinal.collapse_subjects`) carried back to every record of ``df``.

    Used by ``local_suppression(..., subject_id=...)``; the figures of the
    result are per subject (fk, records at risk) and repeated on each record,
    while ``data``, ``cells_per_qi`` and ``cells_per_row`` describe the records.
    """
    out = restore_subjects(df, col, res.data)
    enc0 = encode_qis(df, qi, missing_values=missing_values, func="local_suppression")
    was_missing = enc0.codes < 0
    now_missing = out[qi].isna().to_numpy()
    blank = now_missing & ~was_missing
    rs = col.row_subject
    per_qi = pd.Series(blank.sum(axis=0).astype(np.int64), index=pd.Index(qi, dtype=object))
    per_qi.name = "cells"
    per_row = pd.Series(blank.sum(axis=1).astype(np.int64), index=df.index, name="cells")
    subj_true = np.full(col.n_subjects, -1, dtype=np.int64)
    if len(res.true_fk):
        subj_true[res.true_fk.index.to_numpy(dtype=np.int64)] = res.true_fk.to_numpy()
    hit = np.flatnonzero(blank.any(axis=1))
    true_rows = subj_true[rs[hit]]
    # records blanked only by the "missing_if_differs" rule: their subject row was not suppressed
    true_fk = pd.Series(true_rows, index=df.index[hit], name="true_fk", dtype="int64")
    true_fk = true_fk[true_fk >= 0]
    return SuppressionResult(
        data=out,
        qi=list(qi),
        k=res.k,
        missing=res.missing,
        method=res.method,
        cells_per_qi=per_qi,
        cells_per_row=per_row,
        fk_before=pd.Series(res.fk_before.to_numpy()[rs], index=df.index, name="fk"),
        fk_after=pd.Series(res.fk_after.to_numpy()[rs], index=df.index, name="fk"),
        true_fk=true_fk,
        n_at_risk_before=res.n_at_risk_before,
        n_at_risk_after=res.n_at_risk_after,
        combs=res.combs,
        seconds=res.seconds,
        details={
            **res.details,  # what method="exact" used, when it was
            "subject_id": str(subject_id),
            "rule": rule,
            "n_subjects": col.n_subjects,
            "unit_of_fk": "subject",
            "cells_from_rule": int((col.differing[rs] & ~was_missing).sum())
            if rule == "missing_if_differs"
            else 0,
        },
    )
