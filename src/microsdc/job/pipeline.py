"""A release built step by step in Python, with the report a job writes:
:class:`Release`.

A job file runs its steps itself (:func:`microsdc.run_job`); a statistician working in
Python calls the library's functions one after the other. :class:`Release` records each
step's result as it is done (recodes, local suppression, record swapping, PRAM,
microaggregation, noise) and draws the audit record and the self-contained HTML report
with the job's own builders, so the two reports show the same figures for the same steps.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from microsdc._validation import check_columns, check_frame, check_int, param_error
from microsdc.exceptions import InvalidParameterError, SDCWarning
from microsdc.job.audit import frame_sha256
from microsdc.job.config import JobConfig, OutputPaths, RecodeSpec
from microsdc.job.methods import METHOD_STEPS, method_figures
from microsdc.job.pipeline_checks import FUNC as _FUNC
from microsdc.job.pipeline_checks import (
    check_compare_by,
    check_drop,
    check_settings,
    refuse_release_settings,
    step_of,
)
from microsdc.job.release_sections import as_names, section

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["Release"]

#: The steps a release records, in the order a job runs them.
STEPS = ("swapping", "suppression", *METHOD_STEPS)


class Release:
    """A release built in Python, step by step, and its report.

    Record each step as it is done, on :attr:`data` (the data as released so far):
    :meth:`recode` for a recode done in Python, :meth:`add` for the result of a library
    call, or the methods that call the library themselves (:meth:`local_suppression`,
    :meth:`record_swap`, :meth:`pram`, :meth:`microaggregate`, :meth:`add_noise`). Then
    :meth:`report` writes the same self-contained HTML report a job writes
    (:func:`microsdc.run_job`), drawn from :meth:`audit` with the job's builders.

    Parameters
    ----------
    df : pandas.DataFrame
        The data as read (never modified; a copy is kept). Rows with a non-unique index
        are renumbered 0..n-1.
    quasi_identifiers : list of column names
        The key variables, as ``variables.quasi_identifiers`` of a job.
    k : int >= 1, default 3
        The k of k-anonymity (``risk.k``).
    weights, household_id : column name, optional
        Sampling weights and household id, as in a job's ``[variables]``.
    hierarchy, sensitive : column name or list of column names, optional
        Geography (coarsest first) and sensitive variables, as in a job.
    drop : column name or list of column names, optional
        Columns never used and never released (removed right away, listed as dropped).
    missing : str or float, default "category"
        The missing-value policy of the risk measures (``risk.missing``).
    missing_values : list, optional
        Values that also mean missing (``input.missing_values``).
    l_diversity : {"distinct", "entropy", "recursive"}, default "distinct"
    l : int, default 2
    c : float, optional
    risk_threshold : float, default 0.1
        As the keys of a job's ``[risk]``.
    title : str, default "Release built in Python"
    name : str, default "data frame"
        What the report calls the input.
    random_order : bool, default False
        Release the rows in an order drawn from their released values (a job's
        ``output.random_order``): :attr:`released` and :meth:`write` give them so, and
        the warning that the row order gives blanked cells back is not raised. Use it
        when the input is sorted (by household, by area).
    compare_by : column name, optional
        Compare the continuous variables (of :meth:`microaggregate` and
        :meth:`add_noise`) within the groups of this column too, as a job's
        ``variables.compare_by``: the ``continuous`` entry's ``by_group`` and the
        report's table per group. Needs a microaggregation or noise step by
        :meth:`audit`.

    Raises
    ------
    InvalidParameterError
        If ``df`` is not a DataFrame, ``k`` is not an int >= 1, ``compare_by`` is not
        one column name, ``drop`` names a column the release uses (a key variable,
        weights, household id, geography, sensitive variable or ``compare_by``), or
        another setting is not of its type and range (``missing``, ``missing_values``
        not a list, ``l_diversity``, ``l``, ``c``, ``risk_threshold``, ``title`` or
        ``name`` not a str, ``random_order`` not a bool).
    ColumnNotFoundError
        If a named column is not in ``df``.

    Notes
    -----
    One step of each kind (swapping, suppression, PRAM, microaggregation, noise) is
    recorded, recodes before them. The report measures the risk as read, after the
    recodes and after the last step (and between swapping and a suppression after it),
    as a job does. No seed is kept: the report and the audit record say only whether one
    was given. The report is internal, as a job's: it holds figures of the input before
    protection.

    Examples
    --------
    >>> import pandas as pd
    >>> from microsdc import Release, bin_numeric
    >>> df = pd.DataFrame({"age": [23, 25, 41, 44, 47, 62] * 4,
    ...                    "sex": ["f", "m"] * 12, "roof": list("abcabc") * 4})
    >>> rel = Release(df, ["age", "sex"], k=2)
    >>> rel.recode("age", bin_numeric(df["age"], method="width", width=20))
    >>> res = rel.local_suppression()
    >>> res = rel.pram("roof", seed=1)
    >>> html = rel.report()
    >>> "PRAM" in html and "seed = 1" not in html
    True
    """

    def __init__(
        self,
        df: pd.DataFrame,
        quasi_identifiers: Sequence[Hashable],
        *,
        k: int = 3,
        weights: Hashable | None = None,
        household_id: Hashable | None = None,
        hierarchy: Sequence[Hashable] = (),
        sensitive: Sequence[Hashable] = (),
        drop: Sequence[Hashable] = (),
        missing: str | float = "category",
        missing_values: Sequence[Any] = (),
        l_diversity: str = "distinct",
        l: int = 2,  # noqa: E741 - the name used in the literature
        c: float | None = None,
        risk_threshold: float = 0.1,
        title: str = "Release built in Python",
        name: str = "data frame",
        random_order: bool = False,
        compare_by: Hashable | None = None,
    ) -> None:
        check_frame(df, "df", _FUNC)
        qi = check_columns(df, quasi_identifiers, "quasi_identifiers", _FUNC)
        named = [c for c in (weights, household_id) if c is not None]
        hierarchy, sensitive, drop, named = (  # one name or a list of names, as a list
            check_columns(df, cols, param, _FUNC, allow_empty=True)
            for param, cols in (
                ("hierarchy", hierarchy),
                ("sensitive", sensitive),
                ("drop", drop),
                ("weights", named),
            )
        )
        check_int(k, "k", _FUNC, min_value=1)
        risk_settings = (missing, missing_values, l_diversity, l, c, risk_threshold)
        check_settings(*risk_settings, title, name, random_order)
        by = check_compare_by(df, compare_by)
        used = [*qi, *named, *hierarchy, *sensitive] + ([compare_by] if by else [])
        check_drop(used, drop)
        raw = df if df.index.is_unique else df.reset_index(drop=True)
        self._read = raw.copy()
        self._raw = self._read.drop(columns=list(drop))
        self._data = self._raw.copy()
        self._start: pd.DataFrame | None = None  # after the recodes, at the first step
        self._origin: np.ndarray | None = None
        self._recodes: list[dict[str, Any]] = []
        self._recode_settings: list[dict[str, Any]] = []
        self._sections: dict[str, dict[str, Any]] = {}
        self._figures: dict[str, dict[str, Any]] = {}
        self._between: dict[str, Any] | None = None  # the risk after swapping, before suppression
        self._method_reference: pd.DataFrame | None = None
        self._timings: list[dict[str, Any]] = []
        self._notes: list[dict[str, str]] = []
        self._base = JobConfig(
            source=Path(f"{name}"),
            title=title,
            steps=("risk",),
            input_path=Path(name),
            missing_values=tuple(missing_values),
            sep=None,
            quasi_identifiers=tuple(map(str, qi)),
            weights=None if weights is None else str(weights),
            household_id=None if household_id is None else str(household_id),
            hierarchy=tuple(map(str, hierarchy)),
            sensitive=tuple(map(str, sensitive)),
            recode=(),
            k=k,
            missing=missing,
            l_diversity=l_diversity,
            l=l,
            c=c,
            risk_threshold=float(risk_threshold),
            suppression={},
            swapping={},
            output=OutputPaths(*(Path(name),) * 5, random_order=bool(random_order)),
            drop=tuple(map(str, drop)),
            compare_by=by,
        )

    # --- what has been done ---------------------------------------------------------

    @property
    def data(self) -> pd.DataFrame:
        """The data as released so far (a copy): run the next step on it."""
        return self._data.copy()

    @property
    def released(self) -> pd.DataFrame:
        """The data as :meth:`write` writes it: :attr:`data`, in random order with
        ``random_order``."""
        return self._final()[0].copy()

    def _final(self) -> tuple[pd.DataFrame, np.ndarray | None]:
        """The released rows and the position of each in the data as recoded (None:
        the same order)."""
        if not self._base.output.random_order:
            return self._data, self._origin
        from microsdc.job.pandas_input import in_random_order

        return in_random_order(self._data, self._origin)

    @property
    def steps(self) -> list[str]:
        """The protection steps recorded, in the order they were done."""
        return list(self._sections)

    def _config(self) -> JobConfig:
        """The job these steps make: the settings, the recodes and each step's section."""
        from dataclasses import replace

        methods = {s: self._sections[s] for s in METHOD_STEPS if s in self._sections}
        return replace(
            self._base,
            steps=("risk", *self._sections),
            recode=tuple(RecodeSpec(column=r["column"]) for r in self._recodes),
            suppression=self._sections.get("suppression", {}),
            swapping=self._sections.get("swapping", {}),
            methods=methods,
        )

    def _collect(self, step: str, run: Callable[[], Any]) -> Any:
        """``run()``, timed, its warnings passed on and kept for the report."""
        from microsdc._core.warn import warn

        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = run()
        for w in caught:  # microsdc's warnings go into the report too, each once
            entry = {"step": step, "category": w.category.__name__, "message": str(w.message)}
            if issubclass(w.category, SDCWarning) and entry not in self._notes:
                self._notes.append(entry)
            warn(str(w.message), w.category)
        seconds = time.perf_counter() - t0
        if self._timings and self._timings[-1]["step"] == step:  # the call, then its figures
            seconds += self._timings.pop()["seconds"]
        self._timings.append({"step": step, "seconds": round(seconds, 4)})
        return out

    # --- recoding -------------------------------------------------------------------

    def recode(
        self, column: Hashable, values: pd.Series, *, description: str | None = None
    ) -> None:
        """Record a recode done in Python: ``values`` replace ``column``.

        Parameters
        ----------
        column : column name
        values : pandas.Series
            The recoded column (for instance what :func:`microsdc.bin_numeric`,
            :func:`microsdc.top_code` or :func:`microsdc.merge_rare_categories`
            returned), with the rows of :attr:`data` (the same index).
        description : str, optional
            How it was recoded, for the report's settings (default: the number of
            categories before and after).

        Raises
        ------
        InvalidParameterError
            If a protection step was recorded already (recodes come first), or
            ``values`` is not a Series with the index of :attr:`data`.
        ColumnNotFoundError
            If ``column`` is not in :attr:`data`.
        """
        import pandas as pd

        func = "Release.recode"
        check_columns(self._data, [column], "column", func)
        if self._sections:
            raise InvalidParameterError(
                f"{func} came after {', '.join(self._sections)}: recodes are the data "
                "protection starts from, so record them before any protection step.",
                func=func,
                param="column",
            )
        if not isinstance(values, pd.Series) or not values.index.equals(self._data.index):
            raise param_error("values", func, "a Series with the index of Release.data", values)
        before = self._data[column]
        n_before = int(before.nunique())
        n_after = int(values.nunique())
        self._data[column] = values
        self._recodes = [r for r in self._recodes if r["column"] != str(column)]
        self._recodes.append({"column": str(column), "bins": n_after, "distinct_before": n_before})
        self._recode_settings = [r for r in self._recode_settings if r["column"] != str(column)]
        self._recode_settings.append(
            {
                "column": str(column),
                "description": description
                or f"recoded in Python: {n_before:,} values into {n_after:,} categories",
            }
        )

    # --- protection steps -----------------------------------------------------------

    def add(self, result: Any, **parameters: Any) -> None:
        """Record a protection step from the library's result, run on :attr:`data`.

        Parameters
        ----------
        result : SuppressionResult, SwapResult, PramResult, MicroaggregationResult or NoiseResult
            What :func:`~microsdc.local_suppression`,
            :func:`~microsdc.record_swap_result`, :func:`~microsdc.pram`,
            :func:`~microsdc.microaggregate` or :func:`~microsdc.add_noise` returned when
            run on :attr:`data`.
        **parameters
            The settings the step was run with, shown in the report (library
            parameter names; a seed is recorded only as given). A swap needs its
            ``risk_variables``.

        Raises
        ------
        InvalidParameterError
            If ``result`` is of none of these kinds, a step of its kind was recorded
            already, it was not run on :attr:`data` (other rows or columns), a
            suppression ran with other key variables or another k, or a swap's
            ``risk_variables`` are not given.
        """
        step = step_of(result)
        if step in self._sections:
            raise InvalidParameterError(
                f"Release.add: a {step} step is recorded already; a release records one "
                "step of each kind. Run the step once, with all its variables.",
                func="Release.add",
                param="result",
            )
        if step == "swapping":
            self._add_swap(result, parameters)
        else:
            self._check_rows(step, result.data)
            if step == "suppression":
                self._check_suppression(result)
            self._collect(step, lambda: self._record(step, result, parameters))

    def _check_rows(self, step: str, released: pd.DataFrame) -> None:
        if not (
            released.index.equals(self._data.index)
            and list(released.columns) == list(self._data.columns)
        ):
            raise InvalidParameterError(
                f"Release.add: the {step} result was not run on Release.data (its rows or "
                "columns differ). Run the step on release.data, the data as released so far.",
                func="Release.add",
                param="result",
            )

    def _check_suppression(self, res: Any) -> None:
        from microsdc._core.policy import parse_policy

        cfg = self._base
        same_keys = [str(q) for q in res.qi] == list(cfg.quasi_identifiers)
        same_policy = parse_policy(res.missing, _FUNC) == parse_policy(cfg.missing, _FUNC)
        if not (same_keys and res.k == cfg.k and same_policy):
            raise InvalidParameterError(
                f"Release.add: the suppression ran with key variables {list(res.qi)!r}, k = "
                f"{res.k!r} and missing = {res.missing!r}, the release measures "
                f"{list(cfg.quasi_identifiers)!r}, k = {cfg.k} and missing = {cfg.missing!r}. "
                "Run it with the release's settings (Release.local_suppression does).",
                func="Release.add",
                param="result",
            )

    def _started(self) -> pd.DataFrame:
        if self._start is None:
            self._start = self._data.copy()
        return self._start

    def _record(self, step: str, result: Any, parameters: Mapping[str, Any]) -> None:
        from microsdc.job.measures import pram_risk
        from microsdc.job.stepfigures import counted_codes, observed_cells, suppression_figures

        self._started()
        before = self._data
        self._sections[step] = section(step, parameters, list(before.columns))
        cfg = self._config()
        if step == "suppression":
            if "swapping" in self._sections:  # the risk between the two steps, as a job
                from microsdc.job.measures import measure_risk

                self._between = measure_risk(before, cfg)
            from microsdc.job.pandas_input import warn_row_order

            if not cfg.output.random_order:  # else the rows leave their order
                warn_row_order(cfg, before, result.data)
            observed = observed_cells(before, cfg.quasi_identifiers, counted_codes(cfg))
            figures = suppression_figures(cfg, result, observed)
        else:
            reference = self._reference()
            figures = method_figures(step, result, before, reference)
            if step == "pram":
                figures["risk"] = pram_risk(cfg, before, result.data)
        self._figures[step] = figures
        self._data = result.data.copy()

    def _reference(self) -> pd.DataFrame:
        """The values before the first release-method step (a job's reference)."""
        if self._method_reference is None:
            self._method_reference = self._data.copy()
        return self._method_reference

    def _add_swap(self, res: Any, parameters: Mapping[str, Any]) -> None:
        from microsdc.job.stepfigures import swap_figures

        if "risk_variables" not in parameters:
            raise InvalidParameterError(
                "Release.add: a swap needs the risk_variables it was run with "
                "(release.add(result, risk_variables=[...])), for its utility figures.",
                func="Release.add",
                param="risk_variables",
            )
        if self._base.household_id is None or not self._base.hierarchy:
            raise InvalidParameterError(
                "Release.add: a swap needs the release's household_id and hierarchy "
                "(Release(df, ..., household_id=..., hierarchy=[...])).",
                func="Release.add",
                param="result",
            )
        swapped = res.data if res.input_index is None else res.data.set_axis(res.input_index)
        where = self._data.index.get_indexer(swapped.index)
        if len(swapped) != len(self._data) or (where < 0).any() or len(set(where)) != len(where):
            self._check_rows("swapping", swapped)  # raises: other rows
        swapped = swapped[list(self._data.columns)]

        def record() -> None:
            import numpy as np

            self._started()
            self._sections["swapping"] = section("swapping", parameters, list(self._data.columns))
            self._figures["swapping"] = swap_figures(self._config(), self._data, swapped, res)
            self._origin = where if self._origin is None else self._origin[where]
            self._data = swapped.copy()
            if self._origin is not None and np.array_equal(self._origin, np.arange(len(where))):
                self._origin = None

        self._collect("swapping", record)

    # --- the library's steps, run on the data as released so far ---------------------

    def local_suppression(self, **kwargs: Any) -> Any:
        """:func:`microsdc.local_suppression` on :attr:`data` with the release's key
        variables, k, ``missing`` and ``missing_values``, recorded (:meth:`add`).

        Parameters
        ----------
        **kwargs
            Its other parameters (``importance``, ``strata``, ``method``, ``linked``, ...).

        Returns
        -------
        SuppressionResult

        Raises
        ------
        InvalidParameterError
            For ``df``, ``qi``, ``k``, ``missing`` or ``missing_values``: the release
            passes its own on (build the Release with the value wanted).
        """
        from microsdc.suppression import local_suppression

        cfg = self._base
        own = {
            "df": "the data the release holds",
            "qi": f"quasi_identifiers={list(cfg.quasi_identifiers)!r}",
        }
        own |= {"k": f"k={cfg.k}", "missing": f"missing={cfg.missing!r}"}
        own["missing_values"] = f"missing_values={list(cfg.missing_values)!r}"
        refuse_release_settings("local_suppression", kwargs, own)
        mv = list(cfg.missing_values) or None
        missing: Any = cfg.missing  # a policy name or an alpha, checked by the library
        res = self._collect(
            "suppression",
            lambda: local_suppression(
                self._data,
                list(cfg.quasi_identifiers),
                cfg.k,
                missing=missing,
                missing_values=mv,
                **kwargs,
            ),
        )
        self.add(res, **kwargs)
        return res

    def record_swap(
        self, risk_variables: Hashable | Sequence[Hashable] | None = None, **kwargs: Any
    ) -> Any:
        """:func:`microsdc.record_swap_result` on :attr:`data` with the release's household
        id, hierarchy and k (``k_anonymity``; not with a user ``risk``, which leaves k
        unused), recorded (:meth:`add`).

        Parameters
        ----------
        risk_variables : column name, list of column names, or None, default None
            Needed without a user ``risk=``; left out (None, or ``[]``) with one, which
            leaves them unused (``record_swap(risk=..., risk_threshold=...)``).
        **kwargs
            Its other parameters (``swaprate``, ``similar``, ``carry_along``, ``seed``, ...).

        Returns
        -------
        SwapResult

        Raises
        ------
        InvalidParameterError
            For ``data``, ``hid`` or ``hierarchy``: the release passes its own on; for
            no ``risk_variables`` without a user ``risk`` (as record_swap_result).
        """
        from microsdc.swapping import record_swap_result

        cfg = self._base
        own = {"data": "the data the release holds", "hid": f"household_id={cfg.household_id!r}"}
        own["hierarchy"] = f"hierarchy={list(cfg.hierarchy)!r}"
        refuse_release_settings("record_swap", kwargs, own)
        similar = kwargs.pop("similar", None)
        names = (
            None if risk_variables is None else as_names(risk_variables, list(self._data.columns))
        )
        if kwargs.get("risk") is None:  # a user risk leaves k unused (and refuses one)
            kwargs.setdefault("k_anonymity", cfg.k)
        res = self._collect(
            "swapping",
            lambda: record_swap_result(
                self._data,
                cfg.household_id,
                list(cfg.hierarchy),
                similar,
                risk_variables=names,
                **kwargs,
            ),
        )
        extra = {"similar": similar} if similar is not None else {}
        self.add(res, risk_variables=list(names or []), **extra, **kwargs)
        return res

    def _method(self, step: str, columns: Any, kwargs: dict[str, Any]) -> Any:
        from microsdc.job.methods import FUNCTIONS

        own = {"df": "the data the release holds"}
        refuse_release_settings(step, kwargs, own)
        cols = as_names(columns)
        if step in ("microaggregation", "noise") and self._base.weights:
            kwargs.setdefault("weights", self._base.weights)
        res = self._collect(step, lambda: FUNCTIONS[step](self._data, cols, **kwargs))
        self.add(res, columns=cols, **kwargs)
        return res

    def pram(self, columns: Hashable | Sequence[Hashable], **kwargs: Any) -> Any:
        """:func:`microsdc.pram` of ``columns`` on :attr:`data`, recorded (:meth:`add`).

        Returns
        -------
        PramResult
        """
        return self._method("pram", columns, kwargs)

    def microaggregate(self, columns: Hashable | Sequence[Hashable], **kwargs: Any) -> Any:
        """:func:`microsdc.microaggregate` of ``columns`` on :attr:`data` (with the
        release's weights), recorded (:meth:`add`).

        Returns
        -------
        MicroaggregationResult
        """
        return self._method("microaggregation", columns, kwargs)

    def add_noise(self, columns: Hashable | Sequence[Hashable], **kwargs: Any) -> Any:
        """:func:`microsdc.add_noise` to ``columns`` of :attr:`data` (with the release's
        weights), recorded (:meth:`add`).

        Returns
        -------
        NoiseResult
        """
        return self._method("noise", columns, kwargs)

    # --- the audit record and the report -------------------------------------------

    def _risk(self, cfg: JobConfig) -> dict[str, Any]:
        from microsdc.job.measures import measure_risk
        from microsdc.job.steps import as_read, risk_stage

        before = as_read(cfg, lambda: measure_risk(self._raw, cfg))
        stages = [risk_stage("read", before)]
        if self._recodes:
            stages.append(risk_stage("recode", measure_risk(self._started(), cfg)))
        if self._between is not None:
            stages.append(risk_stage("swapping", self._between))
        after = measure_risk(self._data, cfg)
        if self._sections:
            stages.append(risk_stage(list(self._sections)[-1], after))
        return {"before": before, "after": after, "steps": stages}

    def _continuous(self, cfg: JobConfig) -> dict[str, Any] | None:
        """The ``continuous`` entry as a job computes it: the values before the first
        release-method step against the released ones, record by record (None without a
        microaggregation or noise step)."""
        from microsdc.job.continuous import CONTINUOUS_STEPS, continuous_measures

        if not any(s in self._sections for s in CONTINUOUS_STEPS):
            if cfg.compare_by is not None:
                raise InvalidParameterError(
                    f"Release(compare_by={cfg.compare_by!r}) compares continuous variables "
                    "by group: it needs a microaggregation or noise step "
                    "(Release.microaggregate, Release.add_noise). Record one, or leave "
                    "compare_by out.",
                    func="Release.audit",
                    param="compare_by",
                )
            return None
        reference = self._reference()  # a later swap moves rows: align them by index
        return continuous_measures(cfg, reference, self._data.loc[reference.index])

    def audit(self, *, now: datetime | None = None) -> dict[str, Any]:
        """The audit record of the release, as :func:`microsdc.run_job` builds it.

        Parameters
        ----------
        now : datetime.datetime, optional
            Its time stamp (default: the current UTC time).

        Returns
        -------
        dict
            JSON-ready; validates against :func:`microsdc.report.audit_schema`. The
            input's ``sha256`` is of the frame's rows (pandas' row hashes), not of a
            file; ``job_file`` is None. Internal, as a job's: never publish it. With a
            microaggregation or noise step it holds the ``continuous`` entry a job
            computes (:func:`microsdc.job.continuous.continuous_measures`): the data
            before the first release-method step (PRAM, microaggregation, noise) against
            the released data, record by record, by group of ``compare_by`` when given.

        Raises
        ------
        InvalidParameterError
            If ``compare_by`` was given and neither a microaggregation nor a noise step
            was recorded (a job refuses ``variables.compare_by`` so).
        """
        from microsdc.job.audit import audit_header
        from microsdc.job.measures import describe_variables, intruder_of

        cfg = self._config()
        t0 = time.perf_counter()
        continuous = self._continuous(cfg)
        timings = [dict(t) for t in self._timings]
        if continuous is not None:
            timings.append({"step": "continuous", "seconds": round(time.perf_counter() - t0, 4)})
        start = self._started() if self._sections else self._data
        risk = self._risk(cfg)
        final, origin = self._final()
        aligned = start if origin is None else start.iloc[origin]
        variables, keys = describe_variables(cfg, self._read, start, final, origin=origin)
        inputs = {
            "sha256": frame_sha256(self._read),
            "n_records": len(self._raw),
            "n_columns": self._raw.shape[1],
        }
        header = audit_header(cfg, now, inputs)
        header["job_file"] = {"name": "(built in Python)", "sha256": None}
        header["parameters"]["recode"] = [
            {"width": None, "start": None, "breaks": None, "labels": None, **r}
            for r in self._recode_settings
        ]
        return {
            **header,
            "recode": [dict(r) for r in self._recodes],
            "variables": variables,
            "key_variables": keys,
            "risk": risk,
            "intruder": intruder_of(cfg, aligned, final),
            "suppression": self._figures.get("suppression"),
            "swapping": self._figures.get("swapping"),
            **{s: self._figures[s] for s in METHOD_STEPS if s in self._figures},
            **({} if continuous is None else {"continuous": continuous}),
            "warnings": [dict(n) for n in self._notes],
            "timings": timings,
            "outputs": {},
        }

    def report(self, path: str | Path | None = None, *, now: datetime | None = None) -> str:
        """The report of the release: the self-contained HTML page a job writes.

        Parameters
        ----------
        path : str or pathlib.Path, optional
            Write the page here too (UTF-8). Internal, as a job's report: it holds
            figures of the data before protection; publish :attr:`data` only.
        now : datetime.datetime, optional
            The report's time stamp (default: the current UTC time).

        Returns
        -------
        str
            The HTML page (:func:`microsdc.render_report` of :meth:`audit`).
        """
        from microsdc.report import render_report

        html = render_report(self.audit(now=now))
        if path is not None:
            Path(path).write_text(html, encoding="utf-8")
        return html

    def write(
        self, directory: str | Path, *, stem: str = "release", now: datetime | None = None
    ) -> dict[str, Path]:
        """Write the release as a job does: the data (CSV), the audit record (JSON), the
        report (HTML) and the release record (JSON), published together.

        Parameters
        ----------
        directory : str or pathlib.Path
            Where to write (created when missing).
        stem : str, default "release"
            The files are ``{stem}_anonymised.csv``, ``{stem}_audit.json``,
            ``{stem}_report.html`` and ``{stem}_release.json``.
        now : datetime.datetime, optional
            The time stamp (default: the current UTC time).

        Returns
        -------
        dict of str to pathlib.Path
            ``data``, ``audit``, ``report`` and ``release``. Publish the data and the
            release record only: the audit record and the report are internal.

        Notes
        -----
        When writing any of the four fails, none is replaced
        (:func:`microsdc.job.publish.publish_together`). No seed is in any of them.
        """
        from dataclasses import replace

        from microsdc.io import write_table
        from microsdc.job.audit import finish_job

        started = time.perf_counter()
        folder = Path(directory).resolve()
        output = OutputPaths(
            directory=folder,
            data=folder / f"{stem}_anonymised.csv",
            audit=folder / f"{stem}_audit.json",
            report=folder / f"{stem}_report.html",
            release=folder / f"{stem}_release.json",
            random_order=self._base.output.random_order,
        )
        cfg = replace(self._config(), output=output)
        audit = self.audit(now=now)
        audit["outputs"] = {
            k: str(getattr(output, k)) for k in ("data", "audit", "report", "release")
        }
        final = self._final()[0]

        def timed(name: str, desc: str, run: Callable[[], Any]) -> Any:
            return run()

        _, written, _ = finish_job(
            cfg,
            audit,
            timed,
            lambda desc: None,
            True,
            ("writing files", lambda path: write_table(final, path)),
            started,
        )
        return written
