"""Run a job: read, recode, measure, swap and/or suppress, measure again, write.

Nothing is written until every step has succeeded: the anonymised file, the
audit record (JSON) and the report (HTML) are produced in memory and written
at the end, each through a temporary file renamed into place.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import tempfile
import time
import warnings
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from microsdc.exceptions import SDCError, SDCWarning
from microsdc.job.config import JobConfig, load_job
from microsdc.job.schema import default_of
from microsdc.risk.summary import RISK_BANDS

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "AUDIT_SCHEMA_VERSION",
    "RISK_BANDS",
    "JobResult",
    "describe_variables",
    "measure_risk",
    "run_job",
]

#: Version of the audit record layout (``report/audit.schema.json``).
AUDIT_SCHEMA_VERSION = "1.0"


_PACKAGES = (
    "microsdc",
    "numpy",
    "pandas",
    "scipy",
    "numba",
    "pyarrow",
    "matplotlib",
    "jinja2",
    "rich",
    "click",
)


@dataclass(frozen=True)
class JobResult:
    """Outcome of :func:`run_job`.

    Attributes
    ----------
    config : JobConfig
        The job that ran.
    data : pandas.DataFrame
        The anonymised data (what was, or would be, written); for a job with
        ``input.engine``, the engine's lazy frame (polars ``LazyFrame`` or
        DuckDB relation).
    audit : dict
        The audit record (JSON-ready; validates against ``report/audit.schema.json``).
    report_html : str
        The report, one self-contained HTML page.
    written : dict of str to pathlib.Path
        ``data``, ``audit`` and ``report`` paths, when written.
    """

    config: JobConfig
    data: pd.DataFrame | Any
    audit: dict[str, Any]
    report_html: str
    written: dict[str, Path] = field(default_factory=dict)

    def summary(self) -> str:
        """Before/after figures as plain text."""
        from microsdc.report import format_percent

        before = self.audit["risk"]["before"]
        after = self.audit["risk"]["after"]
        k = self.config.k
        lines = [
            f"{'':34}{'before':>14}{'after':>14}",
            f"{'records':34}{before['n_records']:>14,}{after['n_records']:>14,}",
            f"{f'records with fk < {k}':34}{before['n_at_risk']:>14,}{after['n_at_risk']:>14,}",
            f"{'unique records (fk = 1)':34}{before['n_unique']:>14,}{after['n_unique']:>14,}",
            f"{'expected re-identifications':34}"
            f"{before['expected_reidentifications']:>14,.1f}"
            f"{after['expected_reidentifications']:>14,.1f}",
            f"{'global risk':34}{format_percent(before['global_risk'], 3):>14}"
            f"{format_percent(after['global_risk'], 3):>14}",
            f"{'records with risk > ' + format(self.config.risk_threshold, 'g'):34}"
            f"{before['n_high_risk']:>14,}{after['n_high_risk']:>14,}",
        ]
        if before.get("household") and after.get("household"):
            lines.append(
                f"{'household risk (persons)':34}"
                f"{before['household']['expected_reidentifications']:>14,.1f}"
                f"{after['household']['expected_reidentifications']:>14,.1f}"
            )
        for name, lb in before.get("l_diversity", {}).items():
            la = after["l_diversity"][name]
            lines.append(
                f"{f'records failing l-div. ({name})'[:33]:34}"
                f"{lb['n_failing']:>14,}{la['n_failing']:>14,}"
            )
        sup = self.audit.get("suppression")
        if sup:
            lines.append(
                f"suppressed cells: {sup['total']:,} ({sup['share']:.2%} of QI cells) in "
                f"{sup['records_with_suppression']:,} records"
            )
        swp = self.audit.get("swapping")
        if swp:
            lines.append(
                f"swapped: {swp['n_swapped_households']:,} households "
                f"({swp['share_households']:.2%}), {swp['n_swapped_persons']:,} persons "
                f"({swp['share_persons']:.2%})"
            )
        return "\n".join(lines)


# --------------------------------------------------------------------------- helpers


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


#: A TOML assignment of the key seed (bare, quoted, or the last part of a dotted key) and
#: its value: an integer in any TOML notation, or a string.
_SEED_VALUE = re.compile(
    rb"""((?:\bseed|"seed"|'seed')\s*=\s*)"""
    rb"""(?:[+-]?(?:0x[0-9A-Fa-f_]+|0o[0-7_]+|0b[01_]+|[0-9][0-9_]*)|"[^"]*"|'[^']*')"""
)


def job_file_sha256(cfg: JobConfig) -> str:
    """SHA-256 of the job file, the value of ``swapping.seed`` blanked first.

    The audit record and the report go out with the data; the seed must not (it would
    let anyone redo the random swaps). A hash of the file as it is would give a small
    seed back to whoever tries the values, the rest of the file being in the audit
    record. To check it, blank the seed's value (``seed = ""``) and hash the file.
    When the seed cannot be found on its line and blanked (checked by reading the
    blanked file again), the hash is of the job's settings instead (the file read as
    TOML, the seed left out, as sorted JSON), never of the file as written.
    """
    import json
    import tomllib

    raw = cfg.source.read_bytes()
    if "seed" not in cfg.swapping:
        return hashlib.sha256(raw).hexdigest()
    line = cfg.line_of("swapping.seed")
    lines = raw.split(b"\n")
    if line is not None and 0 < line <= len(lines):
        lines[line - 1] = _SEED_VALUE.sub(rb'\1""', lines[line - 1], count=1)
        blanked = b"\n".join(lines)
        try:
            doc = tomllib.loads(blanked.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            doc = {}
        if doc.get("swapping", {}).get("seed") == "":
            return hashlib.sha256(blanked).hexdigest()
    settings = tomllib.loads(raw.decode("utf-8"))
    settings.get("swapping", {}).pop("seed", None)
    text = json.dumps(settings, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            continue
    return out


def _missing_values(cfg: JobConfig) -> list[Any] | None:
    return list(cfg.missing_values) or None


def _read(cfg: JobConfig) -> pd.DataFrame:
    from microsdc.exceptions import DataValidationError
    from microsdc.io import number_records, read_table

    try:
        df = number_records(  # rows named in messages as in the file
            read_table(cfg.input_path, sep=cfg.sep, encoding=cfg.encoding),
            cfg.input_path,
            cfg.sep,
            cfg.encoding,
        )
    except FileNotFoundError:
        raise cfg.error(
            "input.path", f"names a file that does not exist: {cfg.input_path}"
        ) from None
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise cfg.error("input.path", f"names a file that cannot be read: {first}") from None
    if len(df) == 0:
        raise DataValidationError(
            f"{cfg.input_path.name} has a header ({len(df.columns)} column(s)) but no records; "
            "nothing to anonymise."
        )
    return df


def _check_columns(cfg: JobConfig, df: pd.DataFrame) -> None:
    present = set(df.columns)
    roles: list[tuple[str, list[Hashable]]] = [
        ("variables.quasi_identifiers", list(cfg.quasi_identifiers)),
        ("variables.weights", [cfg.weights] if cfg.weights else []),
        ("variables.household_id", [cfg.household_id] if cfg.household_id else []),
        ("variables.hierarchy", list(cfg.hierarchy)),
        ("variables.sensitive", list(cfg.sensitive)),
    ]
    roles += [(f"recode.{r.column}", [r.column]) for r in cfg.recode]
    for key in ("importance", "strata"):
        roles.append((f"suppression.{key}", list(cfg.suppression.get(key, []))))
    linked = cfg.suppression.get("linked", {})
    roles.append(("suppression.linked", [c for cols in linked.values() for c in cols]))
    roles.append(("variables.drop", list(cfg.drop)))
    roles.append(("swapping.similar", _similar_columns(cfg)))
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
                + (separator_hint(columns) or close_matches_hint(unknown, columns)),
            )


def _read_checked(cfg: JobConfig) -> pd.DataFrame:
    """Read the input, check that the job's columns exist, warn about empty key variables."""
    from microsdc.data.quality import (
        warn_all_missing,
        warn_suspect_key_texts,
        warn_user_missing_codes,
    )

    df = _read(cfg)
    _check_columns(cfg, df)
    warn_all_missing(df, list(cfg.quasi_identifiers), _missing_values(cfg))
    for warn in (warn_suspect_key_texts, warn_user_missing_codes):
        warn(
            df,
            list(cfg.quasi_identifiers),
            _missing_values(cfg),
            "missing_values = [{1}] in [input]",
        )
    return df


#: Library parameter -> job-file key, for the errors of each step.
_RISK_KEYS = {
    "quasi_identifiers": "variables.quasi_identifiers",
    "qi": "variables.quasi_identifiers",
    "weights": "variables.weights",
    "sensitive": "variables.sensitive",
    "hid": "variables.household_id",
    "k": "risk.k",
    "l": "risk.l",
    "c": "risk.c",
    "kind": "risk.l_diversity",
    "missing": "risk.missing",
    "missing_values": "input.missing_values",
}
_STEP_KEYS: dict[str, dict[str, str]] = {
    "risk_before": _RISK_KEYS,
    "risk_after": _RISK_KEYS,
    "suppression": {
        **_RISK_KEYS,
        **{p: f"suppression.{p}" for p in ("importance", "combs", "strata", "method", "linked")},
    },
    "swapping": {
        **_RISK_KEYS,
        "hierarchy": "variables.hierarchy",
        **{
            p: f"swapping.{p}"
            for p in (
                "similar",
                "swaprate",
                "k_anonymity",
                "risk_variables",
                "risk_threshold",
                "carry_along",
                "seed",
            )
        },
    },
}


def _with_job_keys(exc: Exception, cfg: JobConfig, step: str) -> Exception:
    """``exc`` with the library's parameter names replaced by the job-file keys they come from."""
    from microsdc._core.messages import render
    from microsdc.exceptions import JobFileError

    keys = _STEP_KEYS.get(step)
    if keys is None or isinstance(exc, JobFileError) or not exc.args:
        return exc
    names = {p: f"'{key}'" for p, key in keys.items()}
    message = render(exc, names, "Key")
    # where the first key the message names is set in the job file, as for its own errors
    named = [key for key in dict.fromkeys(keys.values()) if f"'{key}'" in message]
    about = ""
    if not named:  # a message about a column: the key that names it in its role
        by_column = [
            ("variables.weights", [cfg.weights] if cfg.weights else [], "weight column"),
            (
                "variables.household_id",
                [cfg.household_id] if cfg.household_id else [],
                "used as hid",
            ),
            ("variables.hierarchy", list(cfg.hierarchy), "used as hierarchy"),
            ("swapping.similar", _similar_columns(cfg), "used as similar"),
            (
                "swapping.risk_variables",
                list(cfg.swapping.get("risk_variables", [])),
                "used as risk_variables",
            ),
            ("suppression.strata", list(cfg.suppression.get("strata", [])), "stratum column"),
            ("variables.sensitive", list(cfg.sensitive), ""),
            ("variables.quasi_identifiers", list(cfg.quasi_identifiers), ""),
        ]
        mentioned = [
            (k, role) for k, cols, role in by_column if any(f"'{c}'" in message for c in cols)
        ]
        # the key whose role the message names first ("used as similar"), else the first
        in_role = [k for k, role in mentioned if role and role in message]
        named = (in_role or [k for k, _ in mentioned])[:1]
        about = f" (key '{named[0]}')" if named else ""
    line = cfg.line_of(named[0]) if named else None
    if line is not None and cfg.source is not None:
        message = f"{os.path.basename(cfg.source)}, line {line}{about}: {message}"
    exc.args = (message, *exc.args[1:])
    return exc


def _similar_columns(cfg: JobConfig) -> list[Any]:
    """The columns of ``swapping.similar``, its profiles flattened (a profile is a column
    or a list of columns)."""
    similar = cfg.swapping.get("similar", [])
    return [c for prof in similar for c in (prof if isinstance(prof, list) else [prof])]


def _recode(cfg: JobConfig, df: pd.DataFrame) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """Bin numeric columns (global recoding) with :func:`microsdc.recoding.bin_numeric`."""
    import pandas as pd

    from microsdc.encode import missing_mask
    from microsdc.recoding import bin_numeric

    out = df.copy()
    notes = []
    for spec in cfg.recode:
        key = f"recode.{spec.column}"
        col = df[spec.column]
        miss = missing_mask(col, list(cfg.missing_values))
        values = pd.to_numeric(col.where(~miss), errors="coerce")
        bad = values.isna().to_numpy() & ~miss
        if bad.any():
            example = col[bad].iloc[0]
            raise cfg.error(
                key,
                f"bins column {spec.column!r}, which holds {int(bad.sum()):,} non-numeric "
                f"value(s) such as {example!r}.",
            )
        kwargs: dict[str, Any]
        if spec.breaks is not None:
            kwargs = {"method": "edges", "bins": list(spec.breaks)}
            if spec.labels:
                kwargs["labels"] = list(spec.labels)
        else:
            kwargs = {"method": "width", "width": spec.width, "origin": spec.start or 0.0}
        try:
            # declared codes stay as they are: apart from the cells blanked later
            binned = bin_numeric(col, missing_values=list(cfg.missing_values), **kwargs)
        except SDCError as exc:
            from microsdc._core.messages import render

            where = f"{key}.breaks" if spec.breaks is not None else key
            names = {
                "bins": f"'{key}.breaks'",
                "labels": f"'{key}.labels'",
                "width": f"'{key}.width'",
                "origin": f"'{key}.start'",
            }
            message = render(exc, names, "Key")
            raise cfg.error(where, f"cannot be applied: {message}") from None
        out[spec.column] = binned
        notes.append(
            {
                "column": spec.column,
                "bins": len(binned.cat.categories) - len(pd.unique(col[miss & col.notna()])),
                "distinct_before": int(values.nunique()),
            }
        )
    return out, notes


def _roles(cfg: JobConfig) -> dict[str, list[str]]:
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
    add(cfg.hierarchy, "hierarchy")
    add(cfg.sensitive, "sensitive")
    add(cfg.suppression.get("strata", []), "stratum")
    add(_similar_columns(cfg), "similarity")
    add(cfg.swapping.get("carry_along", []), "carried along")
    linked = cfg.suppression.get("linked", {}) or {}
    add([c for cols in linked.values() for c in cols], "linked")
    return roles


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


def describe_variables(
    cfg: JobConfig, raw: pd.DataFrame, start: pd.DataFrame, final: pd.DataFrame
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

    Returns
    -------
    variables : list of dict
        ``name``, ``roles`` (key, weight, household id, hierarchy, sensitive,
        stratum, similarity, carried along, linked; "other" when none;
        "dropped" when it is not released), ``released`` and ``cells_changed`` (from the input
        to the release).
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
    import numpy as np
    import pandas as pd

    from microsdc.encode import missing_mask

    mv = list(cfg.missing_values)
    roles = _roles(cfg)
    touched = {*map(str, cfg.quasi_identifiers), *map(str, cfg.hierarchy)}
    touched |= {str(c) for c in cfg.swapping.get("carry_along", [])}
    touched |= {r.column for r in cfg.recode}
    touched |= {str(c) for cols in (cfg.suppression.get("linked", {}) or {}).values() for c in cols}
    variables = []
    for col in raw.columns:
        name = str(col)
        released = col in final.columns
        entry_roles = list(roles.get(name, [])) or ["other"]
        if not released:
            entry_roles.append("dropped")
        changed = _changed_cells(raw[col], final[col]) if released and name in touched else 0
        variables.append(
            {"name": name, "roles": entry_roles, "released": released, "cells_changed": changed}
        )
    keys = []
    for col in cfg.quasi_identifiers:
        miss_raw = missing_mask(raw[col], mv)
        miss_b = missing_mask(start[col], mv)
        miss_a = missing_mask(final[col], mv)
        b = start[col].astype(object).where(~miss_b, None).astype(str)
        a = final[col].astype(object).where(~miss_a, None).astype(str)
        b[miss_b] = "\x00missing"
        a[miss_a] = "\x00missing"
        n = len(start)
        table = pd.concat(
            [b.value_counts().rename("b"), a.value_counts().rename("a")], axis=1
        ).fillna(0)
        if n:
            p, q = table["b"].to_numpy() / n, table["a"].to_numpy() / n
            hell = float(np.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2)))
        else:
            hell = 0.0
        observed = int((~miss_b).sum())
        suppressed = int((~miss_b & miss_a).sum())
        keys.append(
            {
                "name": str(col),
                "categories_input": int(raw[col][~miss_raw].nunique()),
                "categories_before": int(start[col][~miss_b].nunique()),
                "categories_after": int(final[col][~miss_a].nunique()),
                "missing_before": int(miss_b.sum()),
                "missing_after": int(miss_a.sum()),
                "cells_changed": _changed_cells(start[col], final[col]),
                "share_suppressed": suppressed / observed if observed else 0.0,
                "hellinger": hell,
            }
        )
    return variables, keys


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
    return risk_summary(
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
        missing_values=_missing_values(cfg),
    )


def _suppress(
    cfg: JobConfig, df: pd.DataFrame, progress: Callable[[int, int], None] | None = None
) -> tuple[pd.DataFrame, dict[str, Any]]:
    try:
        from microsdc.suppression import local_suppression
    except ImportError as exc:  # the suppression module is not installed in this build
        raise cfg.error(
            "steps", f"asks for suppression, which this installation lacks ({exc})."
        ) from None
    from microsdc.utility import suppressed_cells

    s = cfg.suppression
    kwargs: dict[str, Any] = {"missing": cfg.missing, "missing_values": _missing_values(cfg)}
    for key in ("importance", "combs", "strata", "method", "linked"):
        if key in s:
            kwargs[key] = s[key]
    res = local_suppression(df, list(cfg.quasi_identifiers), cfg.k, progress=progress, **kwargs)
    cells = suppressed_cells(
        df, res.data, list(cfg.quasi_identifiers), missing_values=_missing_values(cfg)
    )
    figures = cells.to_dict()
    figures["method"] = s.get("method", default_of("suppression.method"))
    true_fk = res.true_fk.to_numpy()
    figures["true_fk_below_k"] = int((true_fk < cfg.k).sum())
    figures["guarantee"] = cfg.missing
    figures["prosecutor_risk"] = res.to_dict()["prosecutor_risk"]
    if "linked" in s:
        figures["linked_cells"] = res.details.get("linked_cells", {})
    return res.data, figures


def _swap(
    cfg: JobConfig, df: pd.DataFrame, on_progress: Callable[[int, float], None] | None = None
) -> tuple[pd.DataFrame, dict[str, Any]]:
    from microsdc.swapping import record_swap_result, swap_utility
    from microsdc.utility import swap_utility_summary

    s = cfg.swapping
    similar = s.get("similar", [])
    kwargs: dict[str, Any] = {
        "swaprate": s.get("swaprate", default_of("swapping.swaprate")),
        "k_anonymity": s.get("k_anonymity", cfg.k),
        "risk_variables": list(s["risk_variables"]),
        "carry_along": list(s.get("carry_along", [])) or None,
        "checked_columns": list(s.get("checked_columns", [])) or None,
        "seed": s.get("seed"),
    }
    renumber = bool(s.get("renumber_households", default_of("swapping.renumber_households")))
    if renumber:  # the ids are replaced below: their order may follow the geography
        kwargs["checked_columns"] = [*(kwargs["checked_columns"] or []), cfg.household_id]
    if "risk_threshold" in s:
        kwargs["risk_threshold"] = s["risk_threshold"]
    hierarchy = list(cfg.hierarchy)
    res = record_swap_result(
        df, cfg.household_id, hierarchy, similar or None, **kwargs, progress=on_progress
    )
    util = swap_utility(df, res.data, cfg.household_id, hierarchy, list(s["risk_variables"]))
    summary = swap_utility_summary(util)
    n_hh = res.n_households
    figures = {
        "n_households": n_hh,
        "n_persons": res.n_persons,
        "target_pairs": res.target_pairs,
        "n_swapped_households": res.n_swapped_households,
        "n_swapped_persons": res.n_swapped_persons,
        "share_households": res.n_swapped_households / n_hh if n_hh else 0.0,
        "share_persons": res.n_swapped_persons / res.n_persons if res.n_persons else 0.0,
        "n_no_donor": res.n_no_donor,
        "counts_per_level": res.to_dict()["counts_per_level"],
        "levels": summary["levels"],
        "areas": summary["areas"],
    }
    if renumber:
        import numpy as np

        from microsdc.swapping import renumber_households

        # new ids from a stream of their own: not the swap's
        stream = np.random.SeedSequence(s.get("seed")).spawn(2)[1]
        released = renumber_households(res.data, cfg.household_id, np.random.default_rng(stream))
        return released, figures
    return res.data, figures


class _Steps:
    """Progress of a job: one line for the steps, one for the records of a long step."""

    def __init__(self, bar: Any = None, total: int = 0) -> None:
        self.bar = bar
        self.total = total
        self.task = bar.add_task("starting", total=total, info="") if bar is not None else None
        self.first = True
        self.detail: Any = None

    def __call__(self, desc: str) -> None:
        if self.bar is None:
            return
        if self.first:
            self.first = False
        else:
            self.bar.advance(self.task)
        info = f"step {min(self.bar.tasks[0].completed + 1, self.total):.0f} of {self.total}"
        self.bar.update(self.task, description=desc, info=info)
        if self.detail is not None:
            self.bar.remove_task(self.detail)
            self.detail = None

    def records(self) -> Callable[[int, int], None] | None:
        """``progress(processed, total)`` for local suppression, or None without a display."""
        if self.bar is None:
            return None
        bar = self

        def update(done: int, total: int) -> None:
            info = f"{done:,} of {total:,} records at risk handled, at most {total - done:,} left"
            if bar.detail is None:
                bar.detail = bar.bar.add_task("  records at risk", total=max(total, 1), info=info)
            elif done == 0:
                bar.bar.reset(bar.detail, total=max(total, 1), info=info)
            bar.bar.update(bar.detail, completed=done, total=max(total, 1), info=info)

        return update

    def levels(self, names: list[str]) -> Callable[[int, float], None] | None:
        """``on_progress(level, done)`` for record swapping, or None without a display."""
        if self.bar is None:
            return None
        bar = self

        def update(level: int, done: float) -> None:
            info = f"level {level + 1} of {len(names)} ({names[level]}): {done:.0%} of the areas"
            overall = (level + done) / max(len(names), 1)
            if bar.detail is None:
                bar.detail = bar.bar.add_task("  households", total=1.0, info=info)
            bar.bar.update(bar.detail, completed=overall, info=info)

        return update


@contextmanager
def _progress(enabled: bool, total: int, console: Any) -> Iterator[_Steps]:
    if not enabled or (console is not None and not console.is_terminal):
        yield _Steps()
        return
    from rich.progress import Progress

    from microsdc.cli._common import progress_columns

    with Progress(*progress_columns(), console=console, transient=True) as bar:
        steps = _Steps(bar, total)
        yield steps
        if steps.task is not None:
            bar.update(steps.task, completed=total, description="done")


def _step_timer(
    step: _Steps, cfg: JobConfig, timings: list[dict[str, Any]], notes: list[dict[str, str]]
) -> Callable[[str, str, Callable[[], Any]], Any]:
    """``timed(name, description, fn)``: run one step of a job under the progress
    display, appending its seconds to ``timings`` and the microsdc warnings it
    raised to ``notes`` (each message once); errors name the job keys of the step."""

    def timed(name: str, desc: str, fn: Callable[[], Any]) -> Any:
        step(desc)
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                value = fn()
            except SDCError as exc:
                raise _with_job_keys(exc, cfg, name) from exc.__cause__
        timings.append({"step": name, "seconds": round(time.perf_counter() - t0, 4)})
        for w in caught:
            if issubclass(w.category, SDCWarning):
                entry = {"step": name, "category": w.category.__name__, "message": str(w.message)}
                if all(e["message"] != entry["message"] for e in notes):
                    notes.append(entry)
            else:  # not ours: pass it on
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return value

    return timed


def _write_atomic(path: Path, writer: Callable[[Path], object]) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        writer(tmp_path)
        umask = os.umask(0)
        os.umask(umask)
        tmp_path.chmod(0o666 & ~umask)
        os.replace(tmp_path, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def audit_header(cfg: JobConfig, now: datetime | None, inputs: dict[str, Any]) -> dict[str, Any]:
    """The first entries of an audit record: schema, time, job file, input, parameters and
    environment (``inputs``: sha256, n_records, n_columns of the input)."""
    return {
        "schema_version": AUDIT_SCHEMA_VERSION,
        "created": (now or datetime.now(UTC)).isoformat(timespec="seconds"),
        "title": cfg.title,
        "job_file": {"name": cfg.source.name, "sha256": job_file_sha256(cfg)}
        if cfg.source.is_file()
        else {"name": cfg.source.name, "sha256": None},
        "input": {"path": str(cfg.input_path), **inputs},
        "parameters": cfg.parameters(),
        "environment": {
            "packages": _versions(),
            "platform": platform.platform(terse=True),
        },
    }


def audit_outputs(cfg: JobConfig) -> dict[str, str]:
    """The ``outputs`` entry of an audit record."""
    return {
        "data": str(cfg.output.data),
        "audit": str(cfg.output.audit),
        "report": str(cfg.output.report),
    }


def finish_job(
    cfg: JobConfig,
    audit: dict[str, Any],
    timed: Callable[[str, str, Callable[[], Any]], Any],
    step: Any,
    write: bool,
    write_data: tuple[str, Callable[[], None]],
    started: float,
) -> tuple[str, dict[str, Path]]:
    """Draw the report and, with ``write``, write the data (``write_data``: the step's
    label and the writer), the audit record and the report; the total time goes into
    the audit's timings either way. Returns the report's HTML and the files written."""
    import json

    def render() -> str:
        from microsdc.report import render_report

        return render_report(audit)

    html = timed("report", "drawing the report", render)
    written: dict[str, Path] = {}
    timings = audit["timings"]
    if write:
        label, writer = write_data
        step(label)
        t0 = time.perf_counter()
        out = cfg.output
        for path in (out.data, out.audit, out.report):  # output.data may name a subfolder
            path.parent.mkdir(parents=True, exist_ok=True)
        writer()
        timings.append({"step": "write", "seconds": round(time.perf_counter() - t0, 4)})
    timings.append({"step": "total", "seconds": round(time.perf_counter() - started, 4)})
    if write:
        _write_atomic(
            out.audit,
            lambda p: p.write_text(json.dumps(audit, indent=2, default=_json_default) + "\n"),
        )
        _write_atomic(out.report, lambda p: p.write_text(html, encoding="utf-8"))
        written = {"data": out.data, "audit": out.audit, "report": out.report}
    return html, written


def run_job(
    job: JobConfig | str | Path,
    *,
    output_dir: str | Path | None = None,
    write: bool = True,
    progress: bool = False,
    console: Any = None,
    now: datetime | None = None,
) -> JobResult:
    """Run an anonymisation job.

    Parameters
    ----------
    job : JobConfig, str or pathlib.Path
        A checked job, or the path of a job file.
    output_dir : str or pathlib.Path, optional
        Write the outputs here instead of the job's ``output.directory``
        (file names unchanged).
    write : bool, default True
        Whether to write the anonymised file, the audit record and the report.
    progress : bool, default False
        Show rich progress bars.
    console : rich.console.Console, optional
        Where progress goes (default: standard error).
    now : datetime.datetime, optional
        Time stamp of the audit record (default: the current UTC time).

    Returns
    -------
    JobResult

    Raises
    ------
    JobFileError
        If the job file is invalid, the input file is missing or unreadable,
        or names columns it does not hold, or a recoding does not fit the data.
    SDCError
        From a step (invalid data for suppression or swapping).

    Notes
    -----
    Steps run in this order: recoding of numeric variables (``[recode]``),
    risk before, record swapping, local suppression, risk after. Swapping
    runs before suppression because it needs complete geography and household
    variables; suppression then treats whatever risk is left. Risk "before"
    is measured on the recoded data, the starting point of protection.

    Nothing is written unless every step succeeded.
    """
    started = time.perf_counter()
    cfg = job if isinstance(job, JobConfig) else load_job(job)
    if output_dir is not None:
        from dataclasses import replace

        directory = Path(output_dir).resolve()
        cfg = replace(
            cfg,
            output=replace(
                cfg.output,
                directory=directory,
                data=directory / cfg.output.data.name,
                audit=directory / cfg.output.audit.name,
                report=directory / cfg.output.report.name,
            ),
        )
    if console is None and progress:
        from rich.console import Console

        console = Console(stderr=True)
    if cfg.engine is not None:  # the rows stay in the engine
        from microsdc.job.engine import run_engine_job

        return run_engine_job(
            cfg, write=write, progress=progress, console=console, now=now, started=started
        )
    timings: list[dict[str, Any]] = []
    notes: list[dict[str, str]] = []
    protect = [s for s in ("swapping", "suppression") if s in cfg.steps]
    n_steps = 4 + len(protect) + (1 if cfg.recode else 0) + (1 if write else 0)

    with _progress(progress, n_steps, console) as step:
        timed = _step_timer(step, cfg, timings, notes)

        raw = timed("read", f"reading {cfg.input_path.name}", lambda: _read_checked(cfg))
        read = raw
        if cfg.drop:  # never used, never released
            raw = raw.drop(columns=list(cfg.drop))
        data, recode_notes = raw, []
        if cfg.recode:
            data, recode_notes = timed("recode", "recoding", lambda: _recode(cfg, raw))
        before = timed("risk_before", "measuring risk (before)", lambda: measure_risk(data, cfg))
        current = data
        swap_fig = None
        sup_fig = None
        if "swapping" in cfg.steps:
            levels = step.levels(list(cfg.hierarchy))
            current, swap_fig = timed(
                "swapping", "swapping households", lambda: _swap(cfg, data, levels)
            )
        if "suppression" in cfg.steps:
            base = current
            records = step.records()
            current, sup_fig = timed(
                "suppression", "local suppression", lambda: _suppress(cfg, base, records)
            )
        final = current
        after = timed("risk_after", "measuring risk (after)", lambda: measure_risk(final, cfg))
        variables, key_variables = describe_variables(cfg, read, data, final)
        audit: dict[str, Any] = {
            **audit_header(
                cfg,
                now,
                {
                    "sha256": _sha256(cfg.input_path),
                    "n_records": len(raw),
                    "n_columns": raw.shape[1],
                },
            ),
            "recode": recode_notes,
            "variables": variables,
            "key_variables": key_variables,
            "risk": {"before": before, "after": after},
            "suppression": sup_fig,
            "swapping": swap_fig,
            "warnings": notes,
            "timings": timings,
            "outputs": audit_outputs(cfg),
        }

        def write_data() -> None:
            from microsdc.io import release_style, write_table

            style = release_style(cfg.input_path, cfg.sep, cfg.encoding)
            _write_atomic(cfg.output.data, lambda p: write_table(final, p, **style))

        html, written = finish_job(
            cfg, audit, timed, step, write, ("writing files", write_data), started
        )
    return JobResult(config=cfg, data=final, audit=audit, report_html=html, written=written)


def _json_default(value: Any) -> Any:
    import numpy as np

    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
