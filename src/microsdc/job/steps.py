"""Running the steps of a job: the progress it reports, its timings and warnings, and
the library's errors worded with the job-file keys."""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

from microsdc.exceptions import SDCError, SDCWarning
from microsdc.job.columns import similar_columns
from microsdc.job.config import JobConfig
from microsdc.job.methods import KEYS as _METHOD_KEYS

__all__ = [
    "RISK_STAGE_KEYS",
    "JobProgress",
    "NoProgress",
    "ProgressDisplay",
    "as_read",
    "no_display",
    "risk_stage",
    "step_timer",
]

#: The figures of the risk after each step kept in the audit's ``risk.steps``.
RISK_STAGE_KEYS = (
    "n_records",
    "n_at_risk",
    "share_at_risk",
    "n_unique",
    "expected_reidentifications",
    "global_risk",
    "n_high_risk",
)


def as_read(cfg: JobConfig, measure: Callable[[], Any]) -> Any:
    """``measure()``, the risk of the file as read, without the advice to bin a key
    variable that the job's ``[recode]`` bins (it would tell the user to do what the
    job does); its other warnings pass on."""
    from microsdc._core.warn import warn
    from microsdc.exceptions import HighCardinalityWarning

    binned = [f"'{r.column}'" for r in cfg.recode]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figures = measure()
    for w in caught:
        text = str(w.message)
        if issubclass(w.category, HighCardinalityWarning) and any(c in text for c in binned):
            continue
        warn(text, w.category)
    return figures


def risk_stage(step: str, figures: dict[str, Any]) -> dict[str, Any]:
    """One entry of the audit's ``risk.steps``: the risk after ``step`` ("read" for the
    file as read), from the full figures of :func:`microsdc.job.measures.measure_risk`."""
    return {"step": step, **{key: figures[key] for key in RISK_STAGE_KEYS}}


class JobProgress(Protocol):
    """What a job tells its progress display.

    The job calls it with the description of each step as the step starts, and asks
    it for the callbacks of the long steps (None: the step reports nothing).
    """

    def __call__(self, desc: str) -> None:
        """A step starts."""

    def records(self) -> Callable[[int, int], None] | None:
        """``progress(processed, total)`` for local suppression."""

    def levels(self, names: list[str]) -> Callable[[int, float], None] | None:
        """``on_progress(level, done)`` for record swapping (``names``: the levels)."""


#: ``display(n_steps)``: a context manager giving the :class:`JobProgress` of a job of
#: ``n_steps`` steps, the display open while it runs.
ProgressDisplay = Callable[[int], AbstractContextManager[JobProgress]]


class NoProgress:
    """A :class:`JobProgress` that shows nothing."""

    def __call__(self, desc: str) -> None:
        """A step starts: nothing to show."""

    def records(self) -> None:
        """No callback for local suppression."""
        return None

    def levels(self, names: list[str]) -> None:
        """No callback for record swapping."""
        return None


@contextmanager
def no_display(total: int) -> Iterator[JobProgress]:
    """The :data:`ProgressDisplay` that shows nothing."""
    yield NoProgress()


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
    "risk_read": _RISK_KEYS,
    "risk_recoded": _RISK_KEYS,
    "risk_swapped": _RISK_KEYS,
    "risk_after": _RISK_KEYS,
    "suppression": {
        **_RISK_KEYS,
        **{p: f"suppression.{p}" for p in ("importance", "combs", "strata", "method", "linked")},
    },
    **{
        step: {
            "weights": "variables.weights",
            **{param: f"{step}.{key}" for key, param in keys.items()},
            **({"allowed": "pram.neighbours"} if step == "pram" else {}),
        }
        for step, keys in _METHOD_KEYS.items()
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
            ("swapping.similar", similar_columns(cfg), "used as similar"),
            (
                "swapping.risk_variables",
                list(cfg.swapping.get("risk_variables", [])),
                "used as risk_variables",
            ),
            ("suppression.strata", list(cfg.suppression.get("strata", [])), "stratum column"),
            *(
                (f"{step}.{key}", list(cfg.methods[step].get(key, [])), "")
                for key in ("variables", "strata")
                if step in cfg.methods
            ),
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


def _in_job_keys(message: Warning | str, step: str) -> str:
    """A warning's text with the library's parameters named by the job-file keys of
    ``step`` ("Use 'suppression.method' = \"greedy\"", not "Use method='greedy'")."""
    from microsdc._core.messages import render

    keys = _STEP_KEYS.get(step)
    if keys is None or not isinstance(message, Warning):
        return str(message)
    return render(message, {p: f"'{key}'" for p, key in keys.items()}, "Key")


def step_timer(
    step: JobProgress, cfg: JobConfig, timings: list[dict[str, Any]], notes: list[dict[str, str]]
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
                text = _in_job_keys(w.message, name)
                entry = {"step": name, "category": w.category.__name__, "message": text}
                if all(e["message"] != entry["message"] for e in notes):
                    notes.append(entry)
            else:  # not ours: pass it on
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return value

    return timed
