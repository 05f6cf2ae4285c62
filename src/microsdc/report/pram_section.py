"""The PRAM section of the report: every transition matrix, its invariance error and change
rate, the frequencies before and after PRAM with their unbiased estimate, and the risk of
the key variables measured again after PRAM.

:func:`pram_figures` turns a :class:`~microsdc.postrandomisation.PramResult` into the
audit record's ``pram`` entry (JSON-ready; no seed, no record); :func:`pram_section_html`
draws that entry as a section of the HTML report, and :func:`pram_protection_text` says
in one sentence what PRAM protects and what it does not.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from microsdc.postrandomisation import LazyPramResult, PramResult, pram_estimate
from microsdc.postrandomisation.estimate import estimate_from_counts
from microsdc.report._format import _p

__all__ = ["pram_figures", "pram_protection_text", "pram_section_html"]


def _label(value: Any) -> str:
    """A category as shown: a group's tuple of values joined by " / "."""
    if isinstance(value, tuple):
        return " / ".join(map(str, value))
    return str(value)


def _plain(value: Any) -> Any:
    """A stratum value as JSON can hold it (numpy scalars as Python numbers)."""
    if isinstance(value, np.generic):
        return value.item()
    return value if isinstance(value, str | int | float | bool) or value is None else str(value)


def _posterior_min(counts: np.ndarray, matrix: np.ndarray) -> float:
    """The lowest probability, over the released categories, that a record released as
    ``b`` truly is ``b``: ``n_b R[b, b] / sum_a n_a R[a, b]`` (1 when nothing is released)."""
    reached = counts @ matrix
    present = reached > 0
    if not present.any():
        return 1.0
    post = counts[present] * matrix.diagonal()[present] / reached[present]
    return float(post.min())


def _matrix_entry(
    m: Any, rows: Sequence[Mapping[Any, Any]], strata: Sequence[Hashable]
) -> dict[str, Any]:
    counts = m.counts.to_numpy(dtype=np.float64)
    r = m.matrix.to_numpy(dtype=np.float64)
    present = counts > 0
    return {
        "variables": " + ".join(map(str, m.variables)),
        "stratum": {str(c): _plain(v) for c, v in zip(strata, m.stratum, strict=True)},
        "kind": m.kind,
        "categories": [_label(c) for c in m.matrix.index],
        "matrix": r.tolist(),
        "invariance_error": float(m.invariance_error),
        "n_records": m.n_records,
        "n_changed": int(m.n_changed),
        "change_rate": float(m.change_rate),
        "diagonal_min": float(r.diagonal()[present].min()) if present.any() else 1.0,
        "posterior_min": _posterior_min(counts, r),
        "frequencies": [
            {
                "category": _label(row["category"]),
                "before": int(m.counts.iloc[j]),
                "after": int(m.released.iloc[j]),
                "estimate": float(row["estimate"]),
                "standard_error": float(row["standard_error"]),
            }
            for j, row in enumerate(rows)
        ],
    }


def pram_figures(result: PramResult) -> dict[str, Any]:
    """The audit record's ``pram`` entry of a PRAM step.

    Parameters
    ----------
    result : PramResult or LazyPramResult
        What :func:`microsdc.pram` returned (for a lazy frame, the estimates come from
        the released counts the engine returned with each matrix).

    Returns
    -------
    dict
        ``variables`` (the PRAMmed columns), ``strata``, ``per_variable``
        (:meth:`PramResult.summary` as records) and ``matrices``: per variable (or
        group) and stratum, the ``categories``, the transition ``matrix`` (a list of
        rows), ``invariance_error`` (``max |p R - p|``), ``n_records``, ``n_changed``,
        ``change_rate``, ``diagonal_min`` (lowest probability of keeping a category
        present), ``posterior_min`` (lowest probability, over released categories, that
        a released category is the true one, ``n_b R[b, b] / (n R)_b``) and
        ``frequencies``: per category the records ``before`` and ``after`` PRAM and the
        unbiased ``estimate`` of the original count with its ``standard_error``
        (:func:`microsdc.pram_estimate`). No seed and no record.

    Raises
    ------
    InvalidParameterError
        If ``result`` is not a :class:`PramResult` or :class:`LazyPramResult`.
    """
    from microsdc.exceptions import InvalidParameterError

    estimates: list[dict[Any, Any]]
    if isinstance(result, LazyPramResult):  # no records: the engine's released counts
        estimates = [
            row
            for m in result.matrices
            for row in estimate_from_counts(m, m.released.to_numpy(), result.strata)
        ]
    elif isinstance(result, PramResult):
        estimates = pram_estimate(result.data, result).to_dict(orient="records")
    else:
        raise InvalidParameterError(
            "The 'result' parameter of pram_figures must be a PramResult or a LazyPramResult "
            f"(what pram returns). Got {type(result).__name__} instead.",
            func="pram_figures",
            param="result",
        )
    matrices = []
    start = 0
    for m in result.matrices:  # pram_estimate gives each matrix's categories in turn
        stop = start + len(m.matrix.index)
        matrices.append(_matrix_entry(m, estimates[start:stop], result.strata))
        start = stop
    variables: list[str] = []
    for m in result.matrices:
        variables += [str(v) for v in m.variables if str(v) not in variables]
    return {
        "variables": variables,
        "strata": [str(s) for s in result.strata],
        "per_variable": result.summary().to_dict(orient="records"),
        "matrices": matrices,
    }


def pram_protection_text(pram: dict[str, Any]) -> str:
    """One plain sentence on what PRAM protects (uncertainty about a value) and what it
    does not (k-anonymity), with the risk of the key variables after PRAM when measured."""
    post = min((m["posterior_min"] for m in pram.get("matrices", [])), default=1.0)
    text = (
        "PRAM protects by uncertainty: whoever finds a person in the release cannot be sure "
        f"that a PRAMmed value is the true one (for some released categories the chance is "
        f"only {_p(post, 0)}), but it does not make records k-anonymous"
    )
    risk = pram.get("risk")
    if risk:
        b, a = risk["before"], risk["after"]
        same = b["n_at_risk"] == a["n_at_risk"] and b["n_unique"] == a["n_unique"]
        text += (
            f": on the key variables, {a['n_at_risk']:,} records are still in groups smaller "
            f"than k = {a['k']} after PRAM ({b['n_at_risk']:,} before it)"
            + (", as PRAM left the key variables unchanged" if same else "")
        )
    return text + "."


def pram_section_html(audit: dict[str, Any], env: Any) -> str:
    """The PRAM section of the report (empty when no PRAM step ran), drawn with the
    report's jinja2 environment ``env`` (its filters)."""
    from importlib import resources

    pram = audit.get("pram")
    if not pram or "matrices" not in pram:
        return ""
    text = (
        resources.files("microsdc.report")
        .joinpath("templates/pram_section.html.j2")
        .read_text("utf-8")
    )
    settings = audit.get("parameters", {}).get("pram") or {}
    return str(
        env.from_string(text).render(
            pram=pram, settings=settings, protection=pram_protection_text(pram)
        )
    )
