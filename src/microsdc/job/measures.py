"""What a job measures on data held in memory (pandas): the risk figures under the job's
settings, the risk around PRAM, the intruder's headline, and every variable before and
after protection."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from microsdc.job.columns import column_roles
from microsdc.job.config import JobConfig

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = [
    "KeyCounts",
    "describe",
    "describe_variables",
    "hellinger",
    "intruder_of",
    "measure_risk",
    "missing_values_of",
    "pram_risk",
    "value_labels",
    "variable_roles",
]


def missing_values_of(cfg: JobConfig) -> list[Any] | None:
    """The job's ``input.missing_values`` as a library argument (None: none declared)."""
    return list(cfg.missing_values) or None


def _changed_cells(before: pd.Series, after: pd.Series) -> int:
    """Cells whose value (or missingness) differs between two aligned columns."""
    import numpy as np

    b_na = before.isna().to_numpy()
    a_na = after.isna().to_numpy()
    both = ~b_na & ~a_na
    differ = b_na != a_na
    if both.any():
        b = before.to_numpy(dtype=object)[both]
        a = after.to_numpy(dtype=object)[both]
        differ[both] = np.array([str(x) != str(y) for x, y in zip(b, a, strict=True)], dtype=bool)
    return int(differ.sum())


def value_labels(values: pd.Series, missing: np.ndarray) -> pd.Series:
    """``values`` as text, the missing ones (``missing``) as one category of their own: the
    distribution :func:`hellinger` compares."""
    out = values.astype(object).where(~missing, None).astype(str)
    out[missing] = "\x00missing"
    return out


def variable_roles(
    cfg: JobConfig, roles: dict[str, list[str]], name: str, released: bool
) -> list[str]:
    """The audit's ``roles`` of the input's column ``name``: those the job gives it
    (``roles``, :func:`microsdc.job.columns.column_roles`; "other" when none), then
    "recoded" when ``[recode]`` grouped it into bands and "dropped" when it is not
    released."""
    entry_roles = list(roles.get(name, [])) or ["other"]
    if any(r.column == name for r in cfg.recode):
        entry_roles.append("recoded")
    if not released:
        entry_roles.append("dropped")
    return entry_roles


def hellinger(before: pd.Series, after: pd.Series, n: int) -> float:
    """The Hellinger distance between two distributions of ``n`` records, each given as
    records per value: ``sqrt(sum((sqrt(p) - sqrt(q)) ** 2) / 2)``, 0 for no change (and
    for no records), 1 for disjoint distributions."""
    import numpy as np
    import pandas as pd

    both = pd.concat([before.rename("b"), after.rename("a")], axis=1).fillna(0)
    if not n:
        return 0.0
    p, q = both["b"].to_numpy() / n, both["a"].to_numpy() / n
    return float(np.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2)))


@dataclass(frozen=True)
class KeyCounts:
    """One key variable's values with the records behind each: one row per record
    (``records`` None), or one per distinct key combination of an engine with its
    records (``records``); ``missing`` marks the missing values (declared codes
    included)."""

    values: pd.Series
    missing: np.ndarray
    records: np.ndarray | None = None

    @classmethod
    def of(cls, values: pd.Series, codes: Sequence[Any], records: Any = None) -> KeyCounts:
        """The counts of ``values``, ``codes`` being the declared missing codes."""
        import numpy as np

        from microsdc.encode import missing_mask

        return cls(values, np.asarray(missing_mask(values, list(codes)), dtype=bool), records)

    def _sum(self, mask: np.ndarray) -> int:
        return int(mask.sum() if self.records is None else self.records[mask].sum())

    @property
    def n_records(self) -> int:
        """The records."""
        return len(self.values) if self.records is None else int(self.records.sum())

    @property
    def n_missing(self) -> int:
        """The records whose value is missing."""
        return self._sum(self.missing)

    @property
    def n_observed(self) -> int:
        """The records that hold a value."""
        return self._sum(~self.missing)

    @property
    def n_categories(self) -> int:
        """Distinct values held (the missing ones left out)."""
        return int(self.values[~self.missing].nunique())

    def per_value(self) -> pd.Series:
        """Records per value, the missing ones as one category (:func:`value_labels`)."""
        import pandas as pd

        labels = value_labels(self.values, self.missing)
        if self.records is None:
            return labels.value_counts()
        return pd.Series(self.records).groupby(labels.to_numpy()).sum()


def describe(
    cfg: JobConfig,
    columns: Sequence[tuple[str, bool]],
    counts: Callable[[Hashable], tuple[KeyCounts, KeyCounts, KeyCounts]],
    changed: Mapping[str, int],
    suppressed: Callable[[Hashable, KeyCounts, KeyCounts], int | None],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The audit's ``variables`` and ``key_variables`` (see :func:`describe_variables`),
    however the input holds its rows.

    Parameters
    ----------
    cfg : JobConfig
    columns : list of (str, bool)
        The input's columns: name, and whether released.
    counts : callable
        ``counts(key_variable)``: its :class:`KeyCounts` as read, before protection
        (after recoding) and after.
    changed : dict
        The cells protection changed per column (after recoding).
    suppressed : callable
        ``suppressed(key_variable, before, after)``: its cells that held a value
        before and are missing after (None: not known, and ``share_suppressed`` is
        None).
    """
    roles = column_roles(cfg)
    variables = [
        {
            "name": name,
            "roles": variable_roles(cfg, roles, name, released),
            "released": released,
            "cells_changed": int(changed.get(name, 0)) if released else 0,
        }
        for name, released in columns
    ]
    keys = []
    for col in cfg.quasi_identifiers:
        read, before, after = counts(col)
        observed = before.n_observed
        made = suppressed(col, before, after)
        share = None if made is None else made / observed if observed else 0.0
        keys.append(
            {
                "name": str(col),
                "categories_input": read.n_categories,
                "categories_before": before.n_categories,
                "categories_after": after.n_categories,
                "missing_before": before.n_missing,
                "missing_after": after.n_missing,
                "cells_changed": int(changed.get(str(col), 0)),
                "share_suppressed": share,
                "hellinger": hellinger(before.per_value(), after.per_value(), before.n_records),
            }
        )
    return variables, keys


def describe_variables(
    cfg: JobConfig,
    raw: pd.DataFrame,
    start: pd.DataFrame,
    final: pd.DataFrame,
    *,
    origin: np.ndarray | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every variable of the input with its role, and the key variables before and after.

    Parameters
    ----------
    cfg : JobConfig
    raw : pandas.DataFrame
        The input as read.
    start : pandas.DataFrame
        The data protection starts from (after recoding).
    final : pandas.DataFrame
        The released data.
    origin : numpy.ndarray of int, optional
        When the release holds the records in another order (swapping returns them in
        household order; renumbered households are sorted by their new ids): the
        position in ``raw`` and ``start`` of each row of ``final``. Cells are then
        compared record by record, never row by row.

    Returns
    -------
    variables : list of dict
        ``name``, ``roles`` (key, weight, household id, hierarchy, sensitive,
        stratum, similarity, carried along, linked; "other" when none;
        "recoded" when ``[recode]`` grouped it into bands, "dropped" when it is not
        released), ``released`` and ``cells_changed`` (from ``start``, the data
        protection starts from after recoding, to the release: the same count as
        ``key_variables``).
    key_variables : list of dict
        Per key variable: ``categories_input`` (distinct values in the input),
        ``categories_before`` (after recoding) and ``categories_after``,
        ``missing_before``/``missing_after`` (cells), ``cells_changed`` (from
        ``start`` to the release), ``share_suppressed`` (cells observed before
        and missing after, over the cells observed before) and ``hellinger``,
        the Hellinger distance between the distributions of the variable
        (missing as a category of its own) before and after:
        ``sqrt(sum((sqrt(p) - sqrt(q)) ** 2) / 2)``, 0 for no change, 1 for
        disjoint distributions.
    """
    mv = list(cfg.missing_values)
    if origin is not None:  # each released record beside itself as read
        raw = raw.iloc[origin].reset_index(drop=True)
        start = start.iloc[origin].reset_index(drop=True)
        final = final.reset_index(drop=True)
    touched = {*map(str, cfg.quasi_identifiers), *map(str, cfg.hierarchy)}
    touched |= {str(c) for c in cfg.swapping.get("carry_along", [])}
    touched |= {r.column for r in cfg.recode}
    touched |= {str(c) for cols in (cfg.suppression.get("linked", {}) or {}).values() for c in cols}
    for section in cfg.methods.values():
        touched |= {str(c) for c in section.get("variables", [])}
        touched |= {str(c) for c in (section.get("totals") or {})}
        touched |= {str(c) for cols in (section.get("linked") or {}).values() for c in cols}
    columns = [(str(col), col in final.columns) for col in raw.columns]
    changed = {}
    for col in raw.columns:
        if col in final.columns and str(col) in touched:
            # what protection changed, after recoding: the count of the key variables' table
            base = start[col] if col in start.columns else raw[col]
            changed[str(col)] = _changed_cells(base, final[col])
    return describe(
        cfg,
        columns,
        lambda col: (
            KeyCounts.of(raw[col], mv),
            KeyCounts.of(start[col], mv),
            KeyCounts.of(final[col], mv),
        ),
        changed,
        lambda col, before, after: int((~before.missing & after.missing).sum()),
    )


def measure_risk(
    df: pd.DataFrame,
    cfg: JobConfig,
) -> dict[str, Any]:
    """Risk figures of a frame under a job's settings (aggregates only):
    :func:`microsdc.risk.summary.risk_summary` with the job's variables and risk keys.

    Parameters
    ----------
    df : pandas.DataFrame
        Data with the job's columns (after recoding).
    cfg : JobConfig

    Returns
    -------
    dict
        As :func:`microsdc.risk.summary.risk_summary`.
    """
    from microsdc.risk.summary import risk_summary

    missing: Any = cfg.missing  # a policy name or an alpha, checked when the job was read
    figures = risk_summary(
        df,
        list(cfg.quasi_identifiers),
        cfg.k,
        weights=cfg.weights,
        hid=cfg.household_id or None,
        sensitive=list(cfg.sensitive),
        kind=cfg.l_diversity,
        l=cfg.l,
        c=cfg.c,
        risk_threshold=cfg.risk_threshold,
        missing=missing,
        missing_values=missing_values_of(cfg),
    )
    if cfg.suda:
        figures["suda"] = _special_uniques(df, cfg)
    return figures


def pram_risk(cfg: JobConfig, before: pd.DataFrame, after: pd.DataFrame) -> dict[str, Any]:
    """The risk of the key variables just before and just after PRAM (``k``, records in
    groups smaller than k, unique records, expected re-identifications): PRAM of the
    other variables leaves it as it was, which the report says."""
    from dataclasses import replace

    plain = replace(cfg, suda=False, sensitive=())
    keys = ("n_records", "k", "n_at_risk", "n_unique", "expected_reidentifications")
    return {
        when: {key: figures[key] for key in keys}
        for when, figures in (
            ("before", measure_risk(before, plain)),
            ("after", measure_risk(after, plain)),
        )
    }


def _special_uniques(df: pd.DataFrame, cfg: JobConfig) -> dict[str, Any]:
    """:meth:`~microsdc.risk.suda.SudaResult.summary` under the job's settings; missing
    values count as ``risk.missing`` says (alpha > 0 and "probabilistic" as wildcards:
    a record is unique under them exactly when it is unique under "wildcard")."""
    from microsdc.risk.suda import suda

    rule = cfg.missing if cfg.missing in ("wildcard", "category") else "wildcard"
    res = suda(
        df,
        list(cfg.quasi_identifiers),
        max_msu=cfg.max_msu,
        missing=rule,  # type: ignore[arg-type]
        missing_values=missing_values_of(cfg),
    )
    return res.summary()


def intruder_of(cfg: JobConfig, start: pd.DataFrame, final: pd.DataFrame) -> dict[str, Any]:
    """The release's headline (:func:`microsdc.risk.prosecutor.intruder_figures`): records
    an intruder who knows their key values picks with probability above 1/k, from the
    data protection starts from to the release, within the suppression's strata."""
    from microsdc.risk.prosecutor import intruder_figures

    strata = cfg.suppression.get("strata") if "suppression" in cfg.steps else None
    return intruder_figures(start, final, list(cfg.quasi_identifiers), cfg.k, strata=strata)
