"""The stages of a swap, in the order :func:`~microsdc.swapping.record_swap_result` runs them.

1. :func:`households`: code the households and their areas; stop when a column
   left in place gives the geography back.
2. :func:`select_at_risk`: each household's risk per level and the coarsest
   level at which it is at risk.
3. :func:`similarity_profiles`: the similarity profiles as household codes.
4. :func:`pair_households`: the swap loop, level by level (see ``donors``).
5. :func:`swapped_data`: the hid-sorted data with the pairs' geography exchanged.
6. :func:`summarise`: the pairs, the households without a donor and the counts
   per level, by hid.
7. :func:`warn_unmatched`, :func:`warn_rate_missed` and :func:`write_no_donor_log`:
   what is said about households at risk that found no donor, and about a swap
   rate that could not be met.

Each stage takes the validated :class:`~microsdc.swapping._checks.SwapParams` and
what the stages before it returned (small frozen values), and nothing else.
Warnings point at the caller's line however deep a stage raises them
(:func:`microsdc._core.warn.warn`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.warn import warn
from microsdc.exceptions import (
    DataValidationError,
    DisclosureRiskWarning,
    HouseholdLevelWarning,
    SDCWarning,
)
from microsdc.swapping._checks import SwapParams
from microsdc.swapping._prepare import (
    Households,
    combine_codes,
    household_codes,
    prepare_households,
    row_codes,
)

__all__ = [
    "AtRisk",
    "Pairing",
    "Profiles",
    "Summary",
    "households",
    "pair_households",
    "recorded_parameters",
    "select_at_risk",
    "similarity_profiles",
    "summarise",
    "swapped_data",
    "warn_rate_missed",
    "warn_unmatched",
    "write_no_donor_log",
]


@dataclass(frozen=True)
class AtRisk:
    """Risk of each household (hid order).

    Attributes
    ----------
    level : ndarray of shape (n_households,), int64
        Coarsest level at which the household is at risk; ``n_levels`` if never.
    risk : ndarray of shape (n_households, n_levels), float64
        Household risk per level (donor priority, sampling weight at the finest level).
    threshold : float or None
        The effective risk threshold (None: nobody is at risk).
    source : str
        Where the risk comes from, in words (recorded in the parameters).
    skipped : list of int
        Levels that split no area of the level above them (a single area, or the
        same areas as a coarser level): no household's level is one of them.
    """

    level: np.ndarray
    risk: np.ndarray
    threshold: float | None
    source: str
    skipped: list[int]


@dataclass(frozen=True)
class Profiles:
    """Similarity profiles as household codes.

    Attributes
    ----------
    codes : list of (ndarray of int64, int)
        One (codes, number of codes) per profile; at least one (a constant code
        means no constraint). The household size joins every profile when a
        ``carry_along`` column is person-level.
    person_columns : list
        The ``carry_along`` columns exchanged member by member.
    """

    codes: list[tuple[np.ndarray, int]]
    person_columns: list[Hashable]


@dataclass(frozen=True)
class Pairing:
    """Outcome of the swap loop, one entry per household (hid order).

    Attributes
    ----------
    partner, pair_level, fail_level : ndarray of int64
        The other household of the pair, the level of the pair and the level at
        which a sampled household found no donor (-1 where none).
    sampled : ndarray of uint8
        1 for the sampled side of a pair.
    target_pairs : int
        Pairs the swaprate asks for.
    """

    partner: np.ndarray
    pair_level: np.ndarray
    fail_level: np.ndarray
    sampled: np.ndarray
    target_pairs: int


@dataclass(frozen=True)
class Summary:
    """What changed, by hid: the tables of :class:`~microsdc.swapping.SwapResult`."""

    pairs: pd.DataFrame
    no_donor: pd.Index
    counts_per_level: pd.DataFrame


def _check_nested(data: pd.DataFrame, hh: Households, p: SwapParams) -> None:
    """Stop when a column left in place would give the geography back (see ``_geography``).

    Household ids that follow the geography (sorted by id, households come area
    by area) cannot be carried along: a warning says to renumber them.
    """
    from microsdc.swapping._geography import nested_columns, order_follows_geography

    skip = [p.hid, *p.hierarchy, *p.carry_along, *p.checked_columns]
    found = nested_columns(data, hh, p.hierarchy, skip)
    if found:
        listed = "; ".join(f"{f.column!r} ({f.reason})" for f in found)
        names = ", ".join(repr(f.column) for f in found)
        plain = ",".join(str(f.column) for f in found)
        raise DataValidationError(
            f"{len(found)} column(s) left in place by the swap would give back the original "
            f"geography of swapped households: {listed}. Carry them along with the "
            f"geography (carry_along=[{names}]; command line --carry-along {plain}; job key "
            f"swapping.carry_along), drop them before swapping, or, if they are safe to keep, "
            f"list them in checked_columns (--checked). Nothing was swapped.",
            failure_cases=[f.column for f in found],
        )
    if p.hid not in p.checked_columns:
        level, runs, expected = order_follows_geography(np.arange(hh.n_households), hh)
        if level >= 0:
            warn(
                f"The household ids in {p.hid!r} follow the geography: sorted by id, households "
                f"form {runs:,} runs of {p.hierarchy[level]!s} areas where a random numbering "
                f"gives about {expected:,.0f}, so an id range tells the original area of a "
                "swapped household. Renumber the households at random before release (or list "
                f"{p.hid!r} in checked_columns).",
                DisclosureRiskWarning,
            )


def same_partition_as(n_areas: list[int]) -> list[int]:
    """For each level, the coarsest level with the same areas: itself for a level that
    splits an area of the level above it, -1 for a level that holds a single area.

    Areas are hierarchy prefixes, so a level refines the one above it, and two levels
    have the same areas exactly when they have as many.
    """
    out: list[int] = []
    for h, n in enumerate(n_areas):
        if n == (n_areas[h - 1] if h else 1):
            out.append(out[h - 1] if h else -1)
        else:
            out.append(h)
    return out


def _check_some_level_splits(hh: Households, p: SwapParams) -> None:
    """Stop when every level holds one area: no household can be moved anywhere."""
    if hh.n_households and all(n == 1 for n in hh.n_areas):
        names = ", ".join(repr(h) for h in p.hierarchy)
        raise DataValidationError(
            f"Every level of the hierarchy ({names}) holds a single area, so a swap cannot "
            "move any household to another area. Give a hierarchy whose finest level has "
            "at least two areas (for example regions within the country). Nothing was swapped.",
            failure_cases=list(p.hierarchy),
            func="record_swap",
            param="hierarchy",
        )


def households(data: pd.DataFrame, p: SwapParams) -> Households:
    """The households in hid order with their area codes, after the geography checks."""
    hh = prepare_households(data, p.hid, p.hierarchy)
    _check_some_level_splits(hh, p)
    _check_nested(data, hh, p)
    return hh


def _warn_levels_that_split_nothing(
    hh: Households, hierarchy: list[Any], canon: list[int], risky: np.ndarray
) -> None:
    """Warn about each level that splits no area of the level above it (one area, or
    the same areas as a coarser level): it is skipped, and the households at risk
    there are swapped at the level with the same areas, or at the first level that
    splits the file."""
    first = next(h for h, c in enumerate(canon) if c == h)
    for h, c in enumerate(canon):
        if c == h:
            continue
        if c < 0:
            n_risky = int(risky[:, h].sum())  # every level above it holds one area too
            moved = (
                f" {n_risky:,} household(s) at risk there (rare in the whole file, which no "
                f"swap can change) are swapped at level {hierarchy[first]!r} instead."
                if n_risky
                else ""
            )
            warn(
                f"Hierarchy level {hierarchy[h]!r} holds a single area, so no household can "
                f"be moved out of it: the level protects nobody and is skipped.{moved} Leave "
                f"{hierarchy[h]!r} out of the hierarchy.",
                SDCWarning,
            )
        else:
            warn(
                f"Hierarchy level {hierarchy[h]!r} splits no area of {hierarchy[c]!r} "
                f"({hh.n_areas[h]:,} areas at both levels), so it is skipped: households at "
                f"risk there are swapped at level {hierarchy[c]!r}. The hierarchy goes from "
                "the coarsest level to the finest; list it in that order, or leave out a "
                "level that repeats the one above it.",
                SDCWarning,
            )


def _coarsest_level(risky: np.ndarray, canon: list[int]) -> np.ndarray:
    """Coarsest level at which each household is at risk, levels that split nothing
    left out: at risk there means at risk at the level with the same areas, or, for a
    level of one area, at the first level that splits the file."""
    n_levels = risky.shape[1]
    first = next(h for h, c in enumerate(canon) if c == h)
    kept = np.zeros_like(risky)
    for h, c in enumerate(canon):
        kept[:, first if c < 0 else c] |= risky[:, h]
    return np.where(kept.any(axis=1), kept.argmax(axis=1), n_levels).astype(np.int64)


def select_at_risk(data: pd.DataFrame, hh: Households, p: SwapParams) -> AtRisk:
    """Household risk per level: k-anonymity on the risk variables, or the user's risk."""
    from microsdc.swapping.risk import household_min_counts

    n_levels = len(p.hierarchy)
    threshold: float | None
    if p.risk is None:
        rv_code, n_rv = row_codes(data, p.risk_variables, hh)
        counts = household_min_counts(rv_code, n_rv, hh)
        risk_hh = 1.0 / np.maximum(counts, 1)
        if p.risk_threshold is None:
            threshold = 1.0 / p.k_anonymity if p.k_anonymity >= 2 else None
            risky = counts < p.k_anonymity if p.k_anonymity >= 2 else np.zeros_like(counts, bool)
        else:
            threshold = p.risk_threshold
            risky = risk_hh > threshold
        source = "k-anonymity on " + ", ".join(str(c) for c in p.risk_variables)
    else:
        user = p.risk if hh.order is None else p.risk[hh.order]
        if hh.n_households:
            risk_hh = np.maximum.reduceat(user, hh.first, axis=0)
        else:
            risk_hh = np.zeros((0, n_levels))
        if (user != risk_hh[hh.hh_of_row]).any():
            warn(
                "The 'risk' values differ between members of some households; each household "
                "uses the maximum over its members.",
                HouseholdLevelWarning,
            )
        threshold = p.risk_threshold
        risky = risk_hh > threshold
        source = "user-supplied"
    canon = same_partition_as(hh.n_areas)
    skipped = [h for h, c in enumerate(canon) if c != h] if hh.n_households else []
    if skipped:
        _warn_levels_that_split_nothing(hh, p.hierarchy, canon, risky)
        level = _coarsest_level(risky, canon)
    else:
        level = np.where(risky.any(axis=1), risky.argmax(axis=1), n_levels).astype(np.int64)
    return AtRisk(level=level, risk=risk_hh, threshold=threshold, source=source, skipped=skipped)


def similarity_profiles(data: pd.DataFrame, hh: Households, p: SwapParams) -> Profiles:
    """The similarity profiles as household codes, with the household size joined to
    every profile when a ``carry_along`` column is person-level."""
    from microsdc.swapping.apply import (
        check_household_level_similar,
        person_level_columns,
        warn_person_level_carry_along,
    )

    check_household_level_similar(data, p.profiles, hh, p.hid)
    codes = [household_codes(data, prof, hh) for prof in p.profiles] or [
        (np.zeros(hh.n_households, dtype=np.int64), 1)
    ]
    # A person-level carry_along column is exchanged member by member, so partners
    # must have the same size: the household size joins every similarity profile.
    person_cols = person_level_columns(data, p.carry_along, hh)
    if person_cols:
        warn_person_level_carry_along(data, person_cols, hh)
    if person_cols and hh.n_households:
        n_size = int(hh.size.max()) + 1
        codes = [combine_codes(code, ncode, hh.size, n_size) for code, ncode in codes]
    return Profiles(codes=codes, person_columns=person_cols)


def pair_households(
    hh: Households,
    at_risk: AtRisk,
    profiles: Profiles,
    swaprate: float,
    rng: np.random.Generator,
    progress: Callable[[int, float], None] | None = None,
) -> Pairing:
    """Draw the number of pairs, spread it over the finest areas and run the swap loop."""
    from microsdc.swapping.donors import run_levels
    from microsdc.swapping.targets import distribute_targets, total_pairs

    rng_targets, rng_loop = rng.spawn(2)
    # never more pairs than the households can form (swaprate 1 with an odd number)
    n_pairs = min(total_pairs(hh.n_households, swaprate, rng_targets), hh.n_households // 2)
    per_area = np.bincount(hh.area[-1], minlength=hh.n_areas[-1])
    targets = distribute_targets(per_area, n_pairs, rng_targets)
    if not hh.n_households:
        none = np.zeros(0, dtype=np.int64)
        return Pairing(none, none, none, np.zeros(0, dtype=np.uint8), n_pairs)
    state = run_levels(hh, at_risk.level, at_risk.risk, profiles.codes, targets, rng_loop, progress)
    return Pairing(state.partner, state.pair_level, state.fail_level, state.sampled, n_pairs)


def swapped_data(
    data: pd.DataFrame, hh: Households, p: SwapParams, pairing: Pairing, profiles: Profiles
) -> pd.DataFrame:
    """The rows in hid order, with the hierarchy and ``carry_along`` values of the pairs
    exchanged (and the partner's hid appended when asked), under a fresh ``RangeIndex``:
    the input's row labels (its positions, by pandas' default) would tell where each
    swapped household stood in the input, which for an input sorted by area is its
    original area. :func:`input_labels` gives them to the statistician."""
    from microsdc.swapping.apply import apply_pairs, sorted_copy

    out = apply_pairs(
        sorted_copy(data, hh),
        hh,
        pairing.partner,
        [*p.carry_along, *p.hierarchy],
        p.swapped_id_name if p.return_swapped_id else None,
        p.hid,
        profiles.person_columns,
    )
    return out.reset_index(drop=True)


def input_labels(data: pd.DataFrame, hh: Households) -> pd.Index:
    """The input's row labels in the order of the swapped rows (hid order)."""
    return data.index if hh.order is None else data.index.take(hh.order)


def summarise(
    data: pd.DataFrame, hh: Households, p: SwapParams, at_risk: AtRisk, pairing: Pairing
) -> Summary:
    """The pairs and the households without a donor by hid, and the counts per level."""
    first_rows = hh.first if hh.order is None else hh.order[hh.first]
    hids = data[p.hid].iloc[first_rows].array  # one hid per household, original dtype
    plevel, flevel = pairing.pair_level, pairing.fail_level
    s = np.flatnonzero(pairing.sampled == 1)
    s = s[np.lexsort((s, plevel[s]))]
    pairs = pd.DataFrame(
        {
            "sampled_hid": hids.take(s),
            "donor_hid": hids.take(pairing.partner[s]),
            "level": plevel[s],
            "level_name": pd.array([p.hierarchy[h] for h in plevel[s]], dtype=object),
        }
    )
    no_donor = pd.Index(hids.take(np.flatnonzero(flevel >= 0)), name=p.hid)
    rows = []
    for h, name in enumerate(p.hierarchy):
        at_h = plevel == h
        rows.append(
            {
                "level": h,
                "hierarchy": name,
                "households_at_risk": int((at_risk.level == h).sum()),
                "households_swapped": int(at_h.sum()),
                "persons_swapped": int(hh.size[at_h].sum()),
                "households_without_donor": int((flevel == h).sum()),
            }
        )
    return Summary(pairs=pairs, no_donor=no_donor, counts_per_level=pd.DataFrame(rows))


def warn_unmatched(p: SwapParams, at_risk: AtRisk, pairing: Pairing, profiles: Profiles) -> None:
    """Warn when households at risk found no donor, with what to change."""
    n_levels = len(p.hierarchy)
    risky_failed = int(((pairing.fail_level >= 0) & (at_risk.level < n_levels)).sum())
    if not risky_failed:
        return
    person_cols = profiles.person_columns
    relaxable = any(len(prof) for prof in p.profiles)
    if person_cols:
        names = ", ".join(repr(c) for c in person_cols)
        advice = (
            f"a donor must have the same household size, since the carry_along "
            f"column(s) {names} differ between members of a household and are exchanged "
            "member by member; fill a household-level column's blanks with the "
            "household's value" + (", or relax the similarity profiles" if relaxable else "")
        )
    elif relaxable:
        advice = "relax the similarity profiles or add a coarser fallback profile"
    else:
        advice = (
            "other areas hold too few households to pair them with (each household takes "
            "part in at most one swap); lower k, use fewer or coarser risk variables, or "
            "a hierarchy with more areas"
        )
    warn(
        f"{risky_failed} household(s) at risk found no donor and keep their geography; {advice}.",
        DisclosureRiskWarning,
    )


def warn_rate_missed(p: SwapParams, hh: Households, pairing: Pairing) -> None:
    """Warn, with the numbers, when fewer pairs were formed than the swap rate asks for."""
    formed = int(pairing.sampled.sum())
    missing = pairing.target_pairs - formed
    if missing <= 0:
        return
    relaxable = any(len(prof) for prof in p.profiles)
    where = " with the same similarity profile" if relaxable else ""
    advice = "lower the swaprate" + (", relax the similarity profiles" if relaxable else "")
    warn(
        f"The swaprate {p.swaprate:g} asks for at least {pairing.target_pairs:,} pairs "
        f"({2 * pairing.target_pairs:,} of {hh.n_households:,} households) but "
        f"{formed:,} pair(s) ({2 * formed:,} households) were formed: {missing:,} pair(s) "
        "short. Households were drawn again in every area with households left, but no "
        f"more of them has a partner{where} in another area (each household takes part in "
        f"at most one swap). To reach the rate, {advice} or use a hierarchy whose finest "
        "level has more, evenly sized areas.",
        DisclosureRiskWarning,
    )


def write_no_donor_log(p: SwapParams, no_donor: pd.Index) -> None:
    """Write the hids without a donor to ``log_file_name`` in sdcMicro's format, if any."""
    if p.log_file_name is None or not len(no_donor):
        return
    hids = list(no_donor)
    lines = [
        f"{len(hids)} household IDs for which a suitable donor for swapping was not found",
        " " + "-" * 43,
        *(f" {h}" for h in hids),
    ]
    with open(p.log_file_name, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def recorded_parameters(
    p: SwapParams, at_risk: AtRisk, profiles: Profiles, seed_given: bool
) -> dict[str, Any]:
    """The settings recorded in :attr:`SwapResult.parameters` (whether a seed was given, never
    the seed)."""
    return {
        "swaprate": p.swaprate,
        "k_anonymity": p.k_anonymity,
        "risk": at_risk.source,
        "risk_threshold": at_risk.threshold,
        "similar": [[str(c) for c in prof] for prof in p.profiles],
        "carry_along": [str(c) for c in p.carry_along],
        "carry_along_per_person": [str(c) for c in profiles.person_columns],
        "seed_given": seed_given,
    }
