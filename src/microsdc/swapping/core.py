"""Targeted record swapping (TRS) of households across a geographic hierarchy."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from microsdc._random import SeedLike, check_random_state
from microsdc._validation import check_callable
from microsdc.backends.dispatch import accepts_frames
from microsdc.risk.kanonymity import DEFAULT_K

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SwapResult", "record_swap", "record_swap_result"]


@dataclass(frozen=True)
class SwapResult:
    """Outcome of :func:`record_swap_result`.

    Attributes
    ----------
    data : pandas.DataFrame of shape (n_rows, n_columns [+ 1])
        The swapped data, sorted by hid (stable); what :func:`record_swap` returns.
    pairs : pandas.DataFrame
        One row per swap: ``sampled_hid`` (the household sampled or at risk),
        ``donor_hid``, ``level`` (0-based hierarchy level at which the pair was
        formed) and ``level_name`` (that hierarchy column). Never release it.
    no_donor : pandas.Index
        Hids of sampled households for which no donor was found; they keep
        their geography. Never release it (it points at risky households).
    counts_per_level : pandas.DataFrame
        One row per level: ``level``, ``hierarchy`` (column name),
        ``households_at_risk`` (coarsest level of risk is this one),
        ``households_swapped`` and ``persons_swapped`` (both sides of the pairs
        formed at this level), ``households_without_donor``.
    hierarchy : list
        Hierarchy column names, coarsest first.
    n_households, n_persons : int
        Size of the input.
    target_pairs : int
        Pairs the swaprate asks for (``n_households * swaprate / 2``, randomly
        rounded, at most ``n_households // 2``). The pairs formed at every level
        count toward it; when areas run out of households, the pairs missing are
        drawn again in the areas with households left. :attr:`missing_pairs`
        says how many could still not be formed (a warning says so too).
    parameters : dict
        The settings used (swaprate, k_anonymity, effective risk threshold, risk
        source, similarity profiles, ...). Only whether a seed was given is
        recorded, never the seed itself.
    skipped_levels : list
        Hierarchy columns of the levels that split no area of the level above
        them: a level holding a single area (no household can be moved out of
        it), or one with the same areas as a coarser level. They are skipped:
        their rows in ``counts_per_level`` show no household at risk, and a
        household at risk there is swapped at the level with the same areas, or
        at the first level that splits the file (a warning says so).
    input_index : pandas.Index or None
        The input's row label of each row of ``data`` (``data`` itself has a
        fresh ``RangeIndex``), to join the release back to the input. Never
        release it: the labels are the input's row order, and for an input
        sorted by area they give back the original area of every swapped
        person.
    """

    data: pd.DataFrame
    pairs: pd.DataFrame
    no_donor: pd.Index
    counts_per_level: pd.DataFrame
    hierarchy: list[Hashable]
    n_households: int
    n_persons: int
    target_pairs: int
    parameters: dict[str, Any] = field(default_factory=dict)
    skipped_levels: list[Hashable] = field(default_factory=list)
    input_index: pd.Index | None = None

    @property
    def n_swapped_households(self) -> int:
        """Households that changed geography (both sides of every pair)."""
        return int(self.counts_per_level["households_swapped"].sum())

    @property
    def n_swapped_persons(self) -> int:
        """Persons in swapped households."""
        return int(self.counts_per_level["persons_swapped"].sum())

    @property
    def missing_pairs(self) -> int:
        """Pairs the swaprate asks for that could not be formed (0 when the rate is met):
        ``target_pairs`` minus the pairs formed at every level, at least 0."""
        return max(0, self.target_pairs - len(self.pairs))

    @property
    def n_no_donor(self) -> int:
        """Sampled households without a donor."""
        return len(self.no_donor)

    def summary(self) -> str:
        """A short plain-text report of what changed (no hids, no seed)."""
        p = self.parameters
        hh_share = self.n_swapped_households / self.n_households if self.n_households else 0.0
        pp_share = self.n_swapped_persons / self.n_persons if self.n_persons else 0.0
        lines = [
            f"Targeted record swapping of {self.n_households:,} households "
            f"({self.n_persons:,} persons); hierarchy "
            + " > ".join(str(h) for h in self.hierarchy),
            f"swaprate {p.get('swaprate')} (target {self.target_pairs:,} pairs), risk: "
            + str(p.get("risk")),
            "",
            f"{'level':<6}{'column':<14}{'at risk':>10}{'hh swapped':>12}"
            f"{'persons':>10}{'no donor':>10}",
        ]
        for row in self.counts_per_level.itertuples(index=False):
            lines.append(
                f"{row.level:<6}{str(row.hierarchy)[:13]:<14}{row.households_at_risk:>10,}"
                f"{row.households_swapped:>12,}{row.persons_swapped:>10,}"
                f"{row.households_without_donor:>10,}"
            )
        if self.missing_pairs:
            lines.append(
                f"Swap rate not met: {self.missing_pairs:,} of {self.target_pairs:,} pairs "
                "could not be formed (no partner left in another area)."
            )
        if self.skipped_levels:
            lines.append(
                "Skipped (they split no area of the level above): "
                + ", ".join(str(h) for h in self.skipped_levels)
            )
        lines.append(
            f"Swapped {self.n_swapped_households:,} households ({hh_share:.1%}) and "
            f"{self.n_swapped_persons:,} persons ({pp_share:.1%}); "
            f"{self.n_no_donor:,} sampled household(s) without a donor."
        )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Aggregate figures only (safe for a report): no hids, no pairs, no seed."""
        return {
            "method": "targeted_record_swapping",
            "n_households": self.n_households,
            "n_persons": self.n_persons,
            "hierarchy": [str(h) for h in self.hierarchy],
            "target_pairs": self.target_pairs,
            "n_pairs": len(self.pairs),
            "n_swapped_households": self.n_swapped_households,
            "n_swapped_persons": self.n_swapped_persons,
            "n_no_donor": self.n_no_donor,
            "missing_pairs": self.missing_pairs,
            "skipped_levels": [str(h) for h in self.skipped_levels],
            "parameters": dict(self.parameters),
            "counts_per_level": [
                {k: (v if isinstance(v, str) else int(v)) for k, v in row.items()}
                for row in self.counts_per_level.astype({"hierarchy": str}).to_dict("records")
            ],
        }


_PARAMS_DOC = """
    Parameters
    ----------
    data : pandas.DataFrame of shape (n_rows, n_columns)
        Micro data, one row per person. Never modified.
    hid : column name (or 0-based position)
        Household id. Any type: integers of any width, strings, categoricals.
        All members of a household must share the finest-level area. In every
        column parameter, a value that is a column label names that column;
        otherwise an int is a 0-based column position.
    hierarchy : list of column names (or 0-based positions), coarsest first
        Geographic levels, e.g. ``["nuts1", "nuts2", "nuts3", "lau2"]``. An area at
        level ``h`` is the tuple of the first ``h + 1`` values, so codes need not be
        unique across parents. A level that splits no area of the level above it
        (a single area, or the same areas as a coarser level) is skipped with a
        warning (see :attr:`SwapResult.skipped_levels`): a household at risk there
        is swapped at the level with the same areas, or at the first level that
        splits the file.
    similar : None, column name, list of column names, or list of lists
        Similarity profiles: a donor must equal the sampled household on every
        column of a profile. Household-level columns only (one value per
        household, such as its size or type): a column that differs between
        the members of a household is an error. A flat list is one
        profile; a list of lists gives profiles tried in turn until one yields a
        donor (e.g. ``[["hsize", "htype"], ["hsize"]]``). ``None`` or ``[]``
        means no similarity constraint; an empty profile ``[]`` inside the list
        matches every household.
    swaprate : float in [0, 1], default 0.05
        Smallest fraction of households to swap, counting both households of a
        pair: ``n_households * swaprate / 2`` pairs (rounded down or up at random,
        at most ``n_households // 2``), spread over the finest areas in
        proportion to their households. Households at risk are swapped in
        addition when they exceed an area's target. When areas run out of
        households (taken as donors by other areas), the pairs still missing are
        drawn again in the areas with households left; if the rate still cannot
        be met, a warning gives the numbers (:attr:`SwapResult.missing_pairs`).
    risk : None, DataFrame or ndarray of shape (n_rows, n_levels), or list of column names
        User risk per person and level (finite, >= 0), row-aligned with ``data`` as
        given (a DataFrame whose index is a permutation of ``data.index`` is
        aligned by label; a polars or pyarrow frame, as :func:`level_risk` returns for
        such data, by position). Each household uses the maximum over its members.
        ``None`` (default) computes the k-anonymity risk from ``risk_variables``.
    risk_threshold : float >= 0, optional
        A household is at risk at level ``h`` when its risk there is strictly above
        the threshold. Required with a user ``risk`` and used literally. With the
        default risk, ``None`` means ``1 / k_anonymity`` (nobody at risk for
        ``k_anonymity`` 0 or 1); a value overrides it and must be below 1 (the
        default risk is at most 1).
    k_anonymity : int >= 0, default 3
        With the default risk, a household is at risk at level ``h`` when one of its
        members shares its risk variables and level-``h`` area with fewer than
        ``k_anonymity`` persons (itself included). Not used with a user ``risk``;
        a value other than the default is refused with it (see Raises).
    risk_variables : list of column names (or positions), optional
        Person variables an intruder may know (age group, sex, ...). Required when
        ``risk`` is None, even with ``k_anonymity`` 0: their ``1 / count`` also
        weights the sampling and the donor choice. Not used with a user ``risk``,
        and refused with it (see Raises).
    carry_along : list of column names (or positions), optional
        Columns exchanged together with the hierarchy (e.g. a finer geography not
        in the hierarchy, area names). Columns also in ``hierarchy`` are ignored.
        Missing values are allowed and travel with their household.
        A column that varies inside some household (a person-level column) is
        exchanged member by member: the i-th member of a swapped household gets
        the value of the i-th member of its partner, so no value is lost or
        duplicated; for this, households are then only paired with households of
        the same size (the size joins every similarity profile).
    return_swapped_id : bool, default False
        Append a column ``"<hid>_swapped"`` (last) holding the partner household's
        id (own id when not swapped). It undoes the swap: never release it.
    log_file_name : str or path-like, optional
        Write the hids of sampled households without a donor to this file in
        sdcMicro's format, only when there are such households. ``None`` (default)
        writes nothing; the list is also in :attr:`SwapResult.no_donor`.
    seed : int >= 0, numpy.random.Generator or None, default None
        Randomness; the same seed gives the same output. Never release the seed:
        with the data it reproduces the pairs.
    checked_columns : list of column names (or positions), optional, keyword only
        Columns you have checked and keep in place although they look like
        geography (see Raises). Every other column that gives back the
        geography must be in ``hierarchy`` or ``carry_along``.
    progress : callable, optional, keyword only
        Called as ``progress(level, done)`` while households are paired, to show
        progress: ``level`` (int) is the 0-based hierarchy level being paired
        (coarsest first, as in ``hierarchy``) and ``done`` (float in (0, 1]) the
        share of that level's areas handled so far. Levels come in order; within
        a level ``done`` increases and ends at 1.0 (a level with no household at
        risk reports 1.0 at once). Not called when ``data`` has no rows. Its
        return value is ignored, and an exception it raises stops the swap.
        ``None`` (default) reports nothing; the result does not depend on it.
"""

_RAISES_DOC = """
    Raises
    ------
    InvalidParameterError
        A parameter of the wrong type or range (``swaprate`` outside [0, 1],
        negative or non-integer ``k_anonymity``, negative ``risk_threshold``, a
        ``risk`` of the wrong shape or with negative values, ``risk`` without
        ``risk_threshold``, ``risk_threshold`` >= 1 with the default risk,
        ``risk_variables`` missing while ``risk`` is None, a user ``risk`` given
        together with ``risk_variables`` or a ``k_anonymity`` other than 3 (they
        would be unused; the message names them and says to drop one), a column
        position out of range, a non-bool ``return_swapped_id``, an unwritable
        ``log_file_name``, a bad ``seed``).
    ColumnNotFoundError
        A column name not in ``data``; the message names the parameter.
    DataValidationError
        A hierarchy whose every level holds a single area (no household can be
        moved). Missing values in a used column (hid, hierarchy, similar, risk_variables;
        ``carry_along`` columns may hold them), naming the column, the number of
        rows and the first row labels; a household id
        whose rows lie in different finest-level areas (the hids are listed,
        nothing is swapped); a ``similar`` column whose values differ between
        the members of a household (a similarity profile compares households;
        the column is named with the number of such households); missing
        values in ``risk``. A column left in place
        (not in ``hierarchy``, ``carry_along`` or ``checked_columns``) that gives
        back the geography of swapped households, named with the reason:
        one that takes a single value inside every finest-level area holding
        two or more households and differs between them (an area name), or one
        that gives back the area of at least half of the households at some
        level (a finer geography such as a municipality, names or postcodes
        with a few shared or wrong values): read from the other households with
        the same value, the area is wrong at most a quarter as often as a blind
        guess of it, and not by accident (binomial tail at most 5 %; see
        :mod:`microsdc.risk.readback`), or an id-like column
        (distinct for half the households or more) that, sorted, visits the
        areas in runs at most half as many as a random order gives (a code
        embedding the area, such as ``"<area>-<serial>"``); the area-name
        test needs at least 10 households beyond the first of its areas (and
        the id test 20 expected runs) as evidence. Person-level columns (differing inside more than
        1 % of households) are not tested. Nothing is swapped.

    Warns
    -----
    SDCWarning
        A hierarchy level splits no area of the level above it (a single area,
        or the same areas as a coarser level): it is skipped, and the warning
        says at which level its households at risk are swapped instead.
    HouseholdLevelWarning
        The user ``risk`` varies inside households (the household maximum is
        used).
    DisclosureRiskWarning
        Fewer pairs were formed than the swaprate asks for (the numbers are
        given); some households at risk found no donor and keep their geography; or the
        household ids follow the geography (numbered area by area, by the same
        runs rule), so that an id range gives the original area back: renumber
        the households at random before release.
"""

_NOTES_DOC = """
    Notes
    -----
    Rows are sorted by hid (stable) and numbered afresh. For each level ``h`` (coarse to fine) the
    default risk of person ``i`` is ``1 / c_ih`` where ``c_ih`` counts persons with
    the same risk variables and level-``h`` area; a household's risk is the maximum
    over its members. Its level is the coarsest ``h`` with risk above the threshold.
    Households at risk at level ``h`` are swapped with a household outside their
    level-``h`` area; at the finest level each area is topped up to its target by
    sampling in proportion to finest-level risk. Donors are drawn in proportion to
    level-``h`` risk among unused households outside the area that match the first
    feasible similarity profile. A household takes part in at most one swap, and
    both households exchange the hierarchy and ``carry_along`` values of their first
    members for every member.

    Differences from sdcMicro: ``swaprate = 0`` with nobody at risk swaps nobody;
    a household that found no donor is never a donor later; a user ``risk`` follows
    its rows through the sort and its threshold is used literally; a user ``risk``
    given with ``risk_variables`` or a ``k_anonymity`` other than 3 is an error
    (sdcMicro drops them silently, so the swap would not be the one asked for); ties in donor
    priority never merge donors; categorical, string and 64-bit columns come back
    unchanged; ``similar=None`` means no constraint; a person-level ``carry_along``
    column is exchanged member by member between households of equal size instead
    of being flattened to the partner's first member (which loses values); a
    ``similar`` column that differs inside households is an error (sdcMicro
    compares the first members); a hierarchy level that splits nothing is skipped
    (sdcMicro leaves its households at risk without a donor); pairs an area cannot
    reach are drawn again elsewhere, so the swap rate is met where the data allow
    (sdcMicro swaps fewer households, silently).

    References
    ----------
    .. [1] sdcMicro, ``recordSwap`` (targeted record swapping), R package by
       J. Gussenbauer, M. Templ, A. Meindl and others, https://github.com/sdcTools/sdcMicro
    .. [2] sdcMicro vignette "Targeted Record Swapping" (``recordSwapping.Rmd``).
"""


@accepts_frames()
def record_swap_result(
    data: pd.DataFrame,
    hid: Any,
    hierarchy: Any,
    similar: Any,
    swaprate: float = 0.05,
    risk: Any = None,
    risk_threshold: float | None = None,
    k_anonymity: int = DEFAULT_K,
    risk_variables: Any = None,
    carry_along: Any = None,
    return_swapped_id: bool = False,
    log_file_name: Any = None,
    seed: SeedLike = None,
    *,
    checked_columns: Any = None,
    progress: Callable[[int, float], None] | None = None,
) -> SwapResult:
    from microsdc.swapping import stages
    from microsdc.swapping._checks import check_swap_params

    p = check_swap_params(
        data,
        hid,
        hierarchy,
        similar,
        swaprate,
        risk,
        risk_threshold,
        k_anonymity,
        risk_variables,
        carry_along,
        return_swapped_id,
        log_file_name,
        checked_columns,
    )
    rng = check_random_state(seed, func="record_swap")
    check_callable(progress, "progress", "record_swap")
    hh = stages.households(data, p)
    at_risk = stages.select_at_risk(data, hh, p)
    profiles = stages.similarity_profiles(data, hh, p)
    pairing = stages.pair_households(hh, at_risk, profiles, p.swaprate, rng, progress)
    out = stages.swapped_data(data, hh, p, pairing, profiles)
    summary = stages.summarise(data, hh, p, at_risk, pairing)
    stages.warn_unmatched(p, at_risk, pairing, profiles)
    stages.warn_rate_missed(p, hh, pairing)
    stages.write_no_donor_log(p, summary.no_donor)
    return SwapResult(
        data=out,
        pairs=summary.pairs,
        no_donor=summary.no_donor,
        counts_per_level=summary.counts_per_level,
        hierarchy=list(p.hierarchy),
        n_households=hh.n_households,
        n_persons=len(data),
        target_pairs=pairing.target_pairs,
        parameters=stages.recorded_parameters(p, at_risk, profiles, seed is not None),
        skipped_levels=[p.hierarchy[h] for h in at_risk.skipped],
        input_index=stages.input_labels(data, hh),
    )


@accepts_frames()
def record_swap(
    data: pd.DataFrame,
    hid: Any,
    hierarchy: Any,
    similar: Any,
    swaprate: float = 0.05,
    risk: Any = None,
    risk_threshold: float | None = None,
    k_anonymity: int = DEFAULT_K,
    risk_variables: Any = None,
    carry_along: Any = None,
    return_swapped_id: bool = False,
    log_file_name: Any = None,
    seed: SeedLike = None,
    *,
    checked_columns: Any = None,
    progress: Callable[[int, float], None] | None = None,
) -> pd.DataFrame:
    return record_swap_result(**dict(locals())).data


record_swap_result.__doc__ = (
    """Targeted record swapping, returning the swapped data and what changed.

    Same parameters and behaviour as :func:`record_swap`; the result also holds
    the pairs, the households without a donor and the counts per level.
"""
    + _PARAMS_DOC
    + """
    Returns
    -------
    SwapResult
        ``.data`` (as :func:`record_swap` returns), ``.pairs``, ``.no_donor``,
        ``.counts_per_level``, ``.n_swapped_households``, ``.n_swapped_persons``,
        ``.summary()``, ``.to_dict()``.
"""
    + _RAISES_DOC
    + _NOTES_DOC
    + """
    Examples
    --------
    >>> from microsdc.datasets import synthetic_census
    >>> from microsdc.swapping import record_swap_result
    >>> census = synthetic_census(2000, seed=1)
    >>> res = record_swap_result(census, "hid", ["nuts1", "nuts2"], "hsize",
    ...                          swaprate=0.1, k_anonymity=0,
    ...                          risk_variables=["ageGroup", "national"],
    ...                          carry_along=["nuts3", "lau2"], seed=7)
    >>> res.n_swapped_households
    200
"""
)

record_swap.__doc__ = (
    """Targeted record swapping of households across a geographic hierarchy.

    Households at risk of re-identification (few persons share their key
    variables within their area) exchange their whole geography with a similar
    household of another area; more households are swapped at random so that a
    ``swaprate`` fraction of households is swapped overall.
"""
    + _PARAMS_DOC
    + """
    Returns
    -------
    pandas.DataFrame of shape (n_rows, n_columns [+ 1])
        Same rows and columns, sorted by hid (stable), under a fresh
        ``RangeIndex``: the input's row labels would give back where each
        swapped household stood in the input (for an input sorted by area, its
        original area); :attr:`SwapResult.input_index` of
        :func:`record_swap_result` keeps them for the statistician. Only
        ``hierarchy`` and ``carry_along`` columns change, dtypes and
        categories unchanged; ``"<hid>_swapped"`` appended last when asked. Use
        :func:`record_swap_result` for the pairs and counts.
"""
    + _RAISES_DOC
    + _NOTES_DOC
    + """
    Examples
    --------
    >>> from microsdc.datasets import synthetic_census
    >>> from microsdc.swapping import record_swap
    >>> census = synthetic_census(2000, seed=1)
    >>> out = record_swap(census, "hid", ["nuts1", "nuts2"], "hsize", swaprate=0.1,
    ...                   k_anonymity=0, risk_variables=["ageGroup", "national"],
    ...                   carry_along=["nuts3", "lau2"], return_swapped_id=True, seed=7)
    >>> int((out.groupby("hid")["hid_swapped"].first() != out["hid"].unique()).sum())
    200

    Columns finer than the hierarchy must move with it (or be checked):

    >>> record_swap(census, "hid", ["nuts1", "nuts2"], "hsize", k_anonymity=0,
    ...             risk_variables=["ageGroup"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    microsdc.exceptions.DataValidationError: 2 column(s) left in place ... 'lau2' (...). ...
"""
)
