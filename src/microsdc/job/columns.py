"""The columns a job names, by role: checked against the input, listed in the audit record."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from microsdc.job.config import JobConfig

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["check_columns", "column_roles", "similar_columns", "warn_suspect_keys"]


def similar_columns(cfg: JobConfig) -> list[Any]:
    """The columns of ``swapping.similar``, its profiles flattened (a profile is a column
    or a list of columns)."""
    similar = cfg.swapping.get("similar", [])
    return [c for prof in similar for c in (prof if isinstance(prof, list) else [prof])]


def column_roles(cfg: JobConfig) -> dict[str, list[str]]:
    """Roles of the columns named in a job (a column can have several)."""
    roles: dict[str, list[str]] = {}

    def add(cols: Any, role: str) -> None:
        for c in cols:
            roles.setdefault(str(c), [])
            if role not in roles[str(c)]:
                roles[str(c)].append(role)

    add(cfg.quasi_identifiers, "key")
    add([cfg.weights] if cfg.weights else [], "weight")
    add([cfg.household_id] if cfg.household_id else [], "household id")
    pram_hid = cfg.methods.get("pram", {}).get("household_id")
    add([pram_hid] if pram_hid else [], "household id")
    add(cfg.hierarchy, "hierarchy")
    add(cfg.sensitive, "sensitive")
    add([cfg.compare_by] if cfg.compare_by else [], "compared by")
    add(cfg.suppression.get("strata", []), "stratum")
    add(similar_columns(cfg), "similarity")
    add(cfg.swapping.get("carry_along", []), "carried along")
    linked = cfg.suppression.get("linked", {}) or {}
    add([c for cols in linked.values() for c in cols], "linked")
    for step, role in (
        ("pram", "PRAMmed"),
        ("microaggregation", "microaggregated"),
        ("noise", "noised"),
    ):
        section = cfg.methods.get(step, {})
        add(section.get("variables", []), role)
        add(section.get("strata", []), "stratum")
        add([c for c in (section.get("totals") or {})], "recomputed total")
        add([c for cols in (section.get("linked") or {}).values() for c in cols], "linked")
    return roles


def check_columns(cfg: JobConfig, df: pd.DataFrame) -> None:
    present = set(df.columns)
    roles: list[tuple[str, list[Hashable]]] = [
        ("variables.quasi_identifiers", list(cfg.quasi_identifiers)),
        ("variables.weights", [cfg.weights] if cfg.weights else []),
        ("variables.household_id", [cfg.household_id] if cfg.household_id else []),
        ("variables.hierarchy", list(cfg.hierarchy)),
        ("variables.sensitive", list(cfg.sensitive)),
        ("variables.compare_by", [cfg.compare_by] if cfg.compare_by else []),
    ]
    roles += [(f"recode.{r.column}", [r.column]) for r in cfg.recode]
    for key in ("importance", "strata"):
        roles.append((f"suppression.{key}", list(cfg.suppression.get(key, []))))
    linked = cfg.suppression.get("linked", {})
    roles.append(("suppression.linked", [c for cols in linked.values() for c in cols]))
    roles.append(("variables.drop", list(cfg.drop)))
    for step, section in cfg.methods.items():
        for key in ("variables", "strata", "neighbours"):
            roles.append((f"{step}.{key}", list(section.get(key, []))))
        if section.get("household_id"):
            roles.append((f"{step}.household_id", [section["household_id"]]))
        roles.append((f"{step}.totals", list(section.get("totals") or {})))
        for parts in (section.get("totals") or {}).values():
            roles.append((f"{step}.totals", list(parts)))
        for group in section.get("together", []):
            roles.append((f"{step}.together", list(group)))
    roles.append(("swapping.similar", similar_columns(cfg)))
    for key in ("risk_variables", "carry_along", "checked_columns"):
        roles.append((f"swapping.{key}", list(cfg.swapping.get(key, []))))
    for key, cols in roles:
        unknown = [c for c in cols if c not in present]
        if unknown:
            shown = ", ".join(repr(c) for c in list(df.columns)[:30])
            from microsdc._validation import close_matches_hint
            from microsdc.io import separator_hint

            columns = [str(c) for c in df.columns]
            raise cfg.error(
                key,
                f"names column(s) not in the input file: {', '.join(repr(c) for c in unknown)}. "
                f"Columns of {cfg.input_path.name}: {shown}."
                + (
                    separator_hint(columns)
                    or close_matches_hint(unknown, columns, taken=[c for c in cols if c in present])
                ),
            )


def warn_suspect_keys(cfg: JobConfig, table: pd.DataFrame, records: Any = None) -> None:
    """Warn about key-variable texts that often mean missing ("NA", "?") and are not
    declared so, or that have spaces around them
    (:func:`microsdc.data.quality.warn_suspect_key_texts`), naming the job key that
    declares them: in the records of ``table``, or, with ``records``, in an engine's
    distinct key combinations and the records behind each."""
    from microsdc.data.quality import warn_suspect_key_texts

    codes = list(cfg.missing_values) or None
    option = "missing_values = [{1}] in [input]"
    warn_suspect_key_texts(table, list(cfg.quasi_identifiers), codes, option, records)
