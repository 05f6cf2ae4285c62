"""Local suppression: blank as few quasi-identifier cells as possible to reach k-anonymity."""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from microsdc._core.policy import MissingPolicy
from microsdc._random import SeedLike
from microsdc._validation import check_int
from microsdc.backends.dispatch import accepts_frames
from microsdc.encode import MissingValues, encode_qis
from microsdc.exceptions import InvalidParameterError
from microsdc.suppression.core import true_fk_of
from microsdc.suppression.driver import Records, checked_call, suppress_frame, suppress_rows
from microsdc.suppression.params import Call, check_exact, warn_measure_policy
from microsdc.suppression.released import prosecutor_per_stratum as _prosecutor
from microsdc.suppression.released import true_fk_series as _true_fk_series
from microsdc.suppression.result import SuppressionResult, record_result

__all__ = ["SuppressionResult", "local_suppression"]

_FUNC = "local_suppression"


# --------------------------------------------------------------------------- main


@accepts_frames(lazy=True)  # one driver: the engine groups and joins
def local_suppression(
    df: pd.DataFrame,
    qi: Sequence[Hashable],
    k: int | Sequence[int],
    *,
    importance: Sequence[Hashable] | Mapping[Hashable, float] | None = None,
    combs: int | Sequence[int] | None = None,
    strata: Hashable | Sequence[Hashable] | None = None,
    missing: MissingPolicy = "category",
    method: str = "greedy",
    subject_id: Hashable | None = None,
    subject_rule: str | None = None,
    missing_values: MissingValues = None,
    time_limit: float | None = None,
    seed: SeedLike = None,
    progress: Callable[[int, int], None] | None = None,
    linked: Mapping[Hashable, Sequence[Hashable]] | None = None,
    accept_rare_values: bool = False,
    dis_suda_threshold: float | None = None,
    dis_fraction: float | None = None,
) -> SuppressionResult:
    """Blank as few quasi-identifier cells as possible so that no record has fk < k.

    By default (``missing="category"``) no released record can then be picked
    with probability above 1/k by an intruder who knows a person's true key
    values and that the person is in the file (its prosecutor risk,
    :func:`microsdc.risk.prosecutor_risk`, is at most 1/k).

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        The microdata. Never modified. A polars ``DataFrame`` or pyarrow
        ``Table`` goes through pandas and ``data`` comes back as its kind. A
        polars ``LazyFrame``, DuckDB relation or Spark ``DataFrame`` stays in
        its engine: the greedy runs on its distinct patterns, with the same
        cells as pandas on the same rows in the engine's order; under
        ``"category"`` the solution for the records runs on the patterns
        expanded to their records, and records of one key combination may get
        different blanks, as on pandas. The result is a
        :class:`~microsdc.suppression.result.LazySuppressionResult` (see
        :mod:`microsdc.suppression.lazy` for the
        options it refuses and where its cells can differ from pandas').
    qi : list of column names
        The quasi-identifiers (categorical; bin numeric ones first, see
        :func:`microsdc.recoding.bin_numeric`).
    k : int >= 1, or list of int
        Minimum frequency. With ``combs``, one k for all sizes or one per size.
        k larger than the number of records (of a stratum) is an error: no
        amount of suppression can reach it.
    importance : list of column names or dict, optional
        Which cells to keep. A list ranks every QI, **most important first**
        (blanked last); fewer cells always win and the ranking breaks ties.
        A dict ``{column: weight > 0}`` gives the cost of blanking a cell of
        each QI; the total cost is minimised (a weight-3 cell costs as much as
        three weight-1 cells). sdcMicro's ``importance`` vector is taken too:
        whole numbers 1 to n, one per QI in the order of ``qi`` (1 = blanked
        last), e.g. ``[3, 1, 2]`` ranks ``qi[1]``, ``qi[2]``, ``qi[0]`` (unless
        the numbers are all column names). Default: QIs with more categories are
        blanked first (sdcMicro's default).
    combs : int or list of int, optional
        Sizes of QI subsets: every subset of each size must become k-anonymous
        (each size with its own k when ``k`` is a list), not only the full set.
        Repeated until all subsets hold together.
    strata : column name or list of column names, optional
        Anonymise each stratum (combination of these columns) on its own. The
        strata columns must have no missing values.
    missing : {"category", "wildcard", "probabilistic"} or float in [0, 1], default "category"
        The guarantee (see the table in the Notes). The default,
        ``"category"``, resists an intruder who knows every key value of a
        person: every released record shares its key values, blanks included,
        with at least k - 1 others, so its prosecutor risk is at most 1/k.
        ``"wildcard"`` (sdcMicro's and kanonymity's count, where a blank matches
        any value), ``"probabilistic"`` and an alpha are measures (see
        :func:`microsdc.sample_frequencies`); suppressing to them leaves records
        such an intruder picks with certainty, and a ``DisclosureRiskWarning``
        says how many. ``"conservative"`` is refused: k - 1 entirely blank
        records satisfy it for every record.
    method : {"greedy", "exact", "random"}, default "greedy"
        ``"exact"`` solves an integer program (small instances, wildcard policy,
        no ``combs``) to measure the greedy's distance to the optimum.
        ``"random"`` is the kanonymity baseline
        (:func:`microsdc.suppression.min_missingness_max_deid` with its
        defaults): the same share of random blanks in every QI, many more
        cells; it takes no ``importance``, ``combs``, ``strata`` or
        ``subject_id``, and uses ``seed``.
    subject_id : column name, optional
        Longitudinal data: several records per subject. The records are
        collapsed to one per subject (``subject_rule``), anonymised, and every
        suppression is carried back to all records of the subject (see
        :mod:`microsdc.longitudinal`).
    subject_rule : {"mode", "missing_if_differs"}, optional
        How a subject's records are collapsed; see
        :func:`microsdc.longitudinal.collapse_subjects`. Default (None): "mode".
        Only with ``subject_id``: given without it, it is refused.
    missing_values : sequence or dict, optional
        Values meaning "missing" besides NaN/None/pd.NA/NaT. Such cells are left
        as they are; blanked cells become true missing values. Under
        ``"category"`` the guarantee is counted on the file as released, where
        such a code (``-7``) and a blanked cell (empty) are two different
        values: the code is a category of its own there (and may be blanked
        like any value). Under the other policies it matches as a missing
        value does.
    time_limit : float > 0, optional
        Wall-clock seconds for ``method="exact"`` (per stratum, model building
        and solving). Default (None): 60. Only with that method: given with
        another, it is refused, since it would change nothing. The solver runs
        in its own process, killed 1 s + 10 % after the limit if it has not
        answered (HiGHS can overrun its own).
        Without a proof of optimality the result is the cheapest of the
        solver's best solution, the greedy's, and the k - 1 cheapest records
        blanked entirely (``details["solution"]`` says which, with a
        ``PerformanceWarning``): it never costs more than the greedy, nor than
        (k - 1) entirely blanked records.
    seed : int, numpy.random.Generator or None, default None
        Randomness of ``method="random"``. Only with that method: given with
        another, it is refused, since it would change nothing.
    progress : callable, optional
        ``progress(processed, total)`` is called while the greedy runs
        (about five times a second, from a helper thread, and once at the end
        of each pass): ``processed`` of the ``total`` records at risk at the
        start of the pass (of the stratum) have been handled, so at most
        ``total - processed`` are still at risk. Under ``"category"`` (one k
        on all QIs) the group-and-mask search reports only its start and its
        end. Not called by the exact and random methods or with
        ``subject_id``.
    linked : dict, optional
        Linked ("ghost") variables: ``{key variable: [columns]}``. Each listed
        column (not a QI) is blanked in every record where its key variable
        was blanked, so that it cannot give the value back (``education-num``
        for ``education``, ``relationship`` for ``sex``). These cells are
        counted in ``details["linked_cells"]``, not in ``cells_per_qi``.
    accept_rare_values : bool, default False
        Suppress although a key variable has so many rare values that
        suppression cannot protect it (see the Raises section): the
        suppression then blanks most of that column, or, under a measure
        policy, leaves its rare values in the release.
    dis_suda_threshold : float in [0, 1), optional
        Special uniques count as at risk too: a record whose DIS-SUDA score
        (:func:`microsdc.suda`, sampling fraction ``dis_fraction``) is above
        this value is at risk, besides those with fk < k (pass ``k=1`` for the DIS-SUDA
        criterion alone). After the k-anonymity step, each round blanks one
        cell of every record above the threshold, then runs the k-anonymity
        step again, until the released file, measured again with
        :func:`~microsdc.suda`, has no record above it. A release with k = 2 on
        the whole key has no special unique under every policy, so it meets
        any threshold: when the rounds blanked cells and the call asks for
        k = 1 on the whole key, that release is computed too (the same
        ``combs`` with their k, the same ``strata``, ``method`` and
        ``importance``) and the cheaper of the two is released (the rounds' on
        a tie). k = 1 with a threshold thus never costs more than k = 2; see
        the Notes. The figures are in ``details["dis_suda"]``. Not with
        ``subject_id``, ``method="random"`` or a lazy frame; under
        ``"category"``, not with a stratum of a single record (refused).
    dis_fraction : float in (0, 1), optional
        Sampling fraction f of the DIS value behind the DIS-SUDA scores the
        threshold compares (the share of the population in the file;
        :func:`microsdc.suda`'s ``dis_fraction``, sdcMicro's ``DisFraction``).
        The scores grow with f: the same threshold blanks more in a file
        that holds a larger share of the population. Default (None): 0.01. Only with
        ``dis_suda_threshold``: given without it, it is refused, since it would
        change nothing.

    Returns
    -------
    SuppressionResult
        (a ``LazySuppressionResult`` for a lazy frame)

    Raises
    ------
    InvalidParameterError
        For a bad ``k``, ``combs``, ``method``, ``missing`` (``"conservative"``
        included), ``importance`` (unknown columns, not covering the QIs,
        non-positive weights, numbers that are not each of 1 to n once),
        ``linked`` (keys that are not QIs, columns that
        are QIs), or k larger than the number of records; for a
        ``dis_suda_threshold`` that is not a number in [0, 1) (the message
        names the value and the range), or given with ``subject_id``,
        ``method="random"`` or a lazy frame, or under ``"category"`` with a
        stratum (or a file) of a single record, whose DIS-SUDA score is 1
        whatever is blanked (the message names the stratum); for a
        ``dis_fraction`` not in
        (0, 1), or given without ``dis_suda_threshold`` (the message names both);
        for a ``subject_rule`` given without ``subject_id``, a ``seed`` without
        ``method="random"`` or a ``time_limit`` without ``method="exact"`` (the
        message names both).
    SDCError
        With ``dis_suda_threshold``, should a round find records above the
        threshold and no cell left to blank (the guarantee's last check; the
        rules above always leave one).
    ColumnNotFoundError
        For unknown QI, strata, subject or linked columns.
    DataValidationError
        For duplicate column names, or missing values in a strata or subject
        column.
    UnprotectableKeyError
        Before anything is blanked, for a key variable that suppression cannot
        protect: at least ``RARE_MIN_DISTINCT`` (100) distinct values, and more
        than ``RARE_MAX_SHARE`` (5 %) of the records holding a value that fewer
        than k records hold. Every such cell must be blanked for an intruder who
        knows the value not to find the record, so suppression would blank the
        column rather than protect it. The error names the column, its distinct
        values and the share, and says to bin it
        (:func:`microsdc.recoding.bin_numeric`), recode it into fewer
        categories, or drop it; ``accept_rare_values=True`` suppresses anyway
        (:func:`microsdc.suppression.params.check_rare_values`).

    Warns
    -----
    DisclosureRiskWarning
        Under a policy other than ``"category"``, when records are left whose
        prosecutor risk is above 1/k (an intruder who knows their key values
        picks them with probability above 1/k), with their number and how many
        of them suppression left unchanged.
    DisclosureRiskWarning
        When another column of ``df`` gives back at least 10 % of the blanked
        cells of a key variable (see :func:`microsdc.risk.linked.recoverable_cells`:
        the released records that share a cell's value of that column hold its
        value so often that reading it from the column is wrong at most a quarter
        as often as guessing it blind, and the agreement is no accident),
        naming each (key variable, column) pair. Pass the column in ``linked``,
        recode it, or leave it out of the release. The pairs found are in
        ``details["recoverable"]`` (a list of records; empty when none). On a lazy
        frame the engine checks it on counts of the distinct (column, key variable)
        combinations before and after (the rows stay in the engine), with the same
        result as on the records.

    Notes
    -----
    Three guarantees, by what they protect against (spec section 2), the
    default first:

    +-------------------+--------------------------------+--------------------------------+
    | ``missing``       | a released record is safe when | protects against / not against |
    +===================+================================+================================+
    | ``category``      | >= k released records carry    | an intruder who knows every    |
    | (default)         | exactly its QI tuple, blanks   | key value of the person:       |
    |                   | included (ARX); its prosecutor | prosecutor risk <= 1/k for     |
    |                   | risk is then at most 1/k       | every record; costs the most   |
    |                   |                                | cells                          |
    +-------------------+--------------------------------+--------------------------------+
    | ``wildcard``      | >= k records are compatible    | a measure (sdcMicro,           |
    |                   | with it, a blank matching any  | kanonymity): k - 1 blank       |
    |                   | value (sdcMicro, kanonymity)   | records or a few "joker" cells |
    |                   |                                | "protect" records left unique  |
    +-------------------+--------------------------------+--------------------------------+
    | ``probabilistic`` | as wildcard, but another       | the same, without the blank-   |
    |                   | record's blank matches value v | record loophole; someone who   |
    |                   | only with weight p(v), its     | knows every QI may still find  |
    |                   | share in the released data     | fewer than k exact matches     |
    +-------------------+--------------------------------+--------------------------------+

    Suppressing to ``"wildcard"``, ``"probabilistic"`` or an alpha warns
    (``DisclosureRiskWarning``) with the records left above prosecutor risk
    1/k; use them to compare with sdcMicro, or for
    :func:`~microsdc.suppression.min_missingness_max_deid`.

    Whatever the guarantee, the result reports the prosecutor risk before and
    after (:func:`microsdc.risk.prosecutor_risk`): the chance that someone who
    knows a person's true QIs picks the person's released record.

    Under ``"category"`` (a single k on all QIs) records at risk are blanked in
    groups: for every set of columns, cheapest first, the records at risk that
    agree once those columns are blank are released together when they make,
    with the released records already carrying that tuple, a class of k;
    groups short of k by fewer records than they have are completed with
    surplus members of released classes (:mod:`microsdc.suppression._category`).
    Moves that lower the cost and keep every class at k then follow: records move
    together to a cheaper common tuple, and the most expensive records (or whole
    classes) to cheaper tuples with partners that can be spared
    (:mod:`microsdc.suppression._category_improve`).
    Under ``"probabilistic"`` each pass counts exactly with the current shares,
    then takes the distinct patterns at risk in ascending fk with counts
    updated after every blank: a pattern that has reached k meanwhile is
    skipped, the others get the cheapest set of their cells that brings them
    to k; passes repeat until a full count finds none at risk
    (:mod:`microsdc.suppression._probabilistic`).

    For the wildcard and alpha policies: minimum-suppression k-anonymity is
    NP-hard (Meyerson & Williams 2004). The greedy works on the distinct QI
    patterns, each standing for its records: identical records get the same
    blanks, and the cost follows the number of patterns, not of records. It
    processes the patterns at risk in ascending fk (among equal fk, those with
    fewer observed cells first), skips those that became safe meanwhile, and
    blanks for each the cheapest set of its cells (by ``importance``) that
    brings it to k; among the sets with as few cells, it prefers the one whose
    new pattern matches the most records still waiting (each weighted by its
    deficit k - fk). With wildcards the records compatible with a pattern are an
    intersection of bit sets, one per (column, value), so every candidate is
    counted exactly; otherwise counts are kept per (missingness mask, column
    set) in hash tables. Both are updated incrementally when a pattern changes.
    With wildcards a final pass gives back every blanked cell whose value can be
    restored without any record falling below k, then replaces a pattern's
    blanked cells by a cheaper set where that keeps every record at k. A full
    recount is done once at the end, and the loop resumes for any record still
    at risk (under ``"category"``, alpha < 1 and ``"conservative"`` blanking one
    record can lower another's count). A record for which no subset reaches k
    has all its QI cells blanked; under ``"category"``/``"conservative"`` more
    records are then blanked entirely until the entirely-missing records number
    k. With wildcards blanking never lowers any count, so records
    already safe stay safe.

    Under alpha < 1 a blank does lower counts: the blanked record now counts
    only alpha for the complete records it matched, so blanks can cascade (with
    alpha = 0 on skewed data, far beyond what is needed). A class of k identical
    released tuples counts 1 per member under every alpha, so the
    ``"category"`` solution satisfies the alpha guarantee too: it is computed
    as well, re-checked with the alpha count, and released instead of the
    greedy's when it costs less (``details["solution"]``). The result thus
    never blanks more cells than ``missing="category"`` on the same data (with
    a dict ``importance``: never costs more). With alpha = 0 (and no ``combs``)
    both solutions first give back blanked cells, the most important column
    first: the records of one pattern that would take back the same value
    move together when their new pattern and the one they leave keep fk >= k
    (at alpha = 0 nothing else changes; a full count checks the result). A
    lazy frame runs the greedy only under alpha; under ``"category"`` it runs
    the group-and-mask algorithm on its patterns' records and releases it, the
    engine blanking the records of one pattern differently where that
    solution does (the greedy on patterns only where it blanks fewer cells or
    the records are too many to expand,
    :mod:`microsdc.suppression.lazy`).

    sdcMicro's ``localSuppression`` instead blanks one cell per record at risk
    per pass and recounts after each pass; it needs up to twice as many cells.

    Under the wildcard policy a record with every QI missing is compatible
    with every record, so k - 1 entirely blanked records make any data set
    k-anonymous with at most (k - 1) x n_qis cells. That minimum protects
    little (the other records keep their unique values; the count only says
    the blanked records cannot be ruled out), and the greedy does not look
    for it; the exact method finds it. Look at the number of entirely missing
    records, and at ``true_fk``, before release.

    **DIS-SUDA threshold.** ``details["dis_suda"]`` holds ``threshold``,
    ``missing_rule``, ``dis_fraction``, ``max_before`` and ``max_after`` (the
    highest DIS-SUDA score of the input and of the released file),
    ``n_above_before``, ``n_above_after`` (0 on return) and ``rounds``. The
    special uniques are measured with :func:`microsdc.suda`'s rule
    ``missing="category"`` under the category guarantee (a blank is a value
    of its own: another record's blank never hides a record, and a blank that
    leaves a record alone makes it a special unique again) and
    ``missing="wildcard"`` under the measures (a blank matches any value, as
    they count fk; blanks in other records then count as possible matches, the
    loophole of the table above). The blanked cells therefore never make a
    record look less unique than the policy's own count says. In a round, the
    cell of a record above the threshold that is blanked is its known value
    whose variable carries the largest share of its SUDA score (each minimal
    sample unique, MSU, of size s weighs (M - s)!, as in the score), per unit of
    cost (``importance``); blanking it removes every MSU of the record that
    holds it. Since DIS-SUDA scores are relative (each record's score against
    the file's sum, and the file's uniques against its pairs), a blank can move
    other records' scores up, so rounds repeat until a fresh measure finds none
    above. Under ``"wildcard"`` only records with a special unique in the input
    ever lose cells. Under ``"category"`` a record whose MSUs hold only blanks
    cannot be helped by its own cells: its round takes the file to fk >= 2
    (then no record has an MSU).

    A release with fk >= 2 on the whole key (within each stratum) has no MSU,
    so every SUDA and DIS-SUDA score is 0 and it meets any threshold, under
    every policy ``local_suppression`` takes: under ``"category"`` each
    record shares its tuple, blanks included, with another record, so every
    set of its values is shared (under either rule of :func:`microsdc.suda`
    that counts a blank as a value or as a wildcard); under ``"wildcard"`` at
    least one other record agrees with it or is blank on every variable, so
    no set of its known values is unique under the wildcard rule; the
    ``"probabilistic"`` and alpha counts weigh each such record by at most 1,
    so they are never above the wildcard count and fk >= 2 there means a
    wildcard fk >= 2 as well. (It would not hold under :func:`microsdc.suda`'s
    ``"sdcmicro"`` rule, where a blank matches nothing: ``(x, u)``,
    ``(blank, u)``, ``(x, blank)`` all have wildcard fk 3, yet ``(x, u)`` is
    a special unique there; the threshold never measures with that rule.)
    The rounds, which blank cell by cell, can end at a release that costs
    more than that one: 261 cells against 198 for k = 2 on sdcMicro's
    ``testdata`` (urbrur, roof, walls, water, electcon, relat, sex; threshold
    0.05), 1,647 against 1,490 on Adult (age in 10-year bands, workclass,
    marital-status, race, sex, native-country). So, when the rounds blanked
    any cell and the call does not already ask for k >= 2 on the whole key,
    the k-anonymity step also runs on the input with k = 2 on the whole key
    (the subsets of ``combs`` given k >= 2 keep theirs; per stratum; the same
    ``method``, ``importance`` and ``time_limit``), its release is measured
    with :func:`microsdc.suda` as the rounds' is, and it is released when it
    costs less, counted as the greedy counts: fewer cells, then the cheaper
    ranking, under a ranking (the default); a smaller total weight with a
    dict ``importance``; the rounds' release on a tie. Not where a stratum
    has a single record (k = 2 is out of its reach; under ``"wildcard"`` and
    the other measures its record is safe once blanked). ``details["dis_suda"]``
    says which was released: ``solution`` is ``"rounds"`` or ``"k2"``, with
    ``cells_rounds``, ``cost_rounds`` (the total weight of the blanked cells,
    ``importance``'s weights or the ranking's ``1 + eps``), ``cells_k2`` and
    ``cost_k2`` (None when the k = 2 release was not computed); ``rounds``
    counts the rounds run either way, and ``max_after`` and
    ``n_above_after`` are those of the release. The k = 2 step adds about the
    time of one k-anonymity step and one :func:`microsdc.suda` search.

    By hand in sdcMicro one runs ``suda2``, picks the records above the
    threshold and calls ``localSupp`` or sets cells to NA oneself, usually one
    variable for all of them, and does not measure again: the scores of the
    released file (which change, since they are relative) are not checked, the
    cell blanked is not chosen from the record's own MSUs, and ``suda2``'s rule
    that a missing value matches nothing makes a blanked record look more
    unique to others (microsdc measures under the policy's rule, above).

    References
    ----------
    Skinner, C. J. & Elliot, M. J. (2002). A measure of disclosure risk for
    microdata. *JRSS B* 64(4) (DIS-SUDA, see :func:`microsdc.suda`).
    sdcMicro ``localSuppression`` (Templ, Kowarik & Meindl 2015).
    Meyerson, A. & Williams, R. (2004). On the complexity of optimal
    k-anonymity. PODS 2004.
    sdcMicro ``createSdcObj(ghostVars=)`` for linked variables.
    kanonymity 0.1.0 (``min_missingness_max_deid``, the random baseline:
    :func:`microsdc.suppression.min_missingness_max_deid`).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["m", "m", "m", "f", "f", "f", "f"],
    ...                    "age": [30, 30, 40, 30, 30, 30, 50]})
    >>> res = local_suppression(df, ["sex", "age"], k=2)
    >>> res.data["age"].tolist()
    [30, 30, <NA>, 30, 30, 30, <NA>]
    >>> res.cells_per_qi.to_dict(), res.n_at_risk_after
    ({'sex': 2, 'age': 2}, 0)
    >>> res.intruder()["after"]["n_above_1_over_k"]  # (m, 40) and (f, 50) hide together
    0
    """
    t0 = time.perf_counter()
    call = checked_call(**locals())  # every frame: the same checks, then what an engine refuses
    policy, method, cols, *_, strata_cols, ghosts = call.checked
    if method == "random":
        res = _random_baseline(
            df, cols, k, importance, combs, strata, subject_id, missing, missing_values, seed, t0
        )
        res = _finish(df, res, ghosts, missing_values)
        warn_measure_policy(res, policy)
        return res
    check_exact(method, policy, missing, combs)
    if subject_id is not None:  # one row per subject, suppressed, then carried back
        options = {
            "importance": importance,
            "combs": combs,
            "missing": missing,
            "method": method,
            "accept_rare_values": accept_rare_values,
        }
        res = _by_subject(  # the suppression of the subjects warns for them
            df, cols, k, subject_id, call.rule, strata_cols, missing_values, time_limit, options
        )
    else:  # one path: the records of a pandas frame, or a lazy frame's patterns
        res = suppress_frame(df, call, combs, progress, accept_rare_values)
        if call.threshold is not None:
            res = _below_dis_suda(df, res, call, combs, call.threshold)
    readings = _readings(call.counted, call.missing_values)
    if not call.frame.lazy:  # linked columns and the read-back check need the records
        res = _finish(df, res, ghosts, call.counted, readings)
    else:
        res = _engine_checked(df, res, list(call.schema.columns), readings)
    warn_measure_policy(res, policy)
    return res


def _below_dis_suda(
    df: pd.DataFrame,
    res: SuppressionResult,
    call: Call,
    combs: Any,
    threshold: tuple[float, float],
) -> SuppressionResult:
    """``res`` (k reached on ``df``) suppressed further until no released record has a
    DIS-SUDA score above ``threshold`` (the threshold and the sampling fraction), each
    round followed by the k step again."""
    from microsdc.suppression.dis_suda import with_dis_suda

    def k_step(frame: pd.DataFrame, spec: tuple[Any, ...]) -> SuppressionResult:
        return suppress_rows(Records(frame), replace(call, checked=spec), combs, None, True)

    return with_dis_suda(df, res, call.checked, call.counted, threshold, k_step)


def _by_subject(
    df: pd.DataFrame,
    cols: list[Hashable],
    k: Any,
    subject_id: Hashable,
    rule: str,
    strata_cols: list[Hashable],
    missing_values: MissingValues,
    time_limit: float | None,
    options: dict[str, Any],
) -> SuppressionResult:
    """Suppression of one row per subject (``rule`` where a subject's records differ),
    carried back to every record of the subject."""
    from microsdc.longitudinal import collapse_subjects
    from microsdc.suppression.subjects import subjects_result

    keep = strata_cols or None
    col = collapse_subjects(
        df, subject_id, cols, rule=rule, keep=keep, missing_values=missing_values
    )
    inner = local_suppression(
        col.data, cols, k, strata=keep, missing_values=missing_values, time_limit=time_limit,
        **options,
    )  # fmt: skip
    return subjects_result(
        df, cols, col, inner, subject_id=subject_id, rule=rule, missing_values=missing_values
    )


def _finish(
    df: pd.DataFrame,
    res: SuppressionResult,
    ghosts: dict[Hashable, list[Hashable]],
    missing_values: MissingValues,
    readings: list[MissingValues] | None = None,
) -> SuppressionResult:
    """Blank the linked columns where their key variable was blanked; warn about
    read-backs, judged under each of ``readings`` (:func:`_readings`; default
    ``missing_values`` alone)."""
    from microsdc.data.blank import blank_cells
    from microsdc.encode import missing_mask, missing_values_for
    from microsdc.risk.linked import merge_found, recoverable_cells, warn_found

    data = res.data
    details = dict(res.details)
    if ghosts:
        blanked: dict[Hashable, np.ndarray] = {}
        for key in {k for keys in ghosts.values() for k in keys}:
            mv = missing_values_for(missing_values, key)
            blanked[key] = missing_mask(data[key], mv) & ~missing_mask(df[key], mv)
        names = list(ghosts)
        blank = np.zeros((len(df), len(names)), dtype=bool)
        for j, name in enumerate(names):
            for key in ghosts[name]:
                blank[:, j] |= blanked[key]
            blank[:, j] &= ~missing_mask(data[name], missing_values_for(missing_values, name))
        data = blank_cells(data, names, blank)
        details["linked_cells"] = {str(n): int(blank[:, j].sum()) for j, n in enumerate(names)}
    found = merge_found(
        [
            recoverable_cells(df, data, res.qi, missing_values=mv)
            for mv in readings or [missing_values]
        ]
    )
    warn_found(found)
    details["recoverable"] = found.to_dict("records")
    return replace(res, data=data, details=details)


def _readings(counted: MissingValues, declared: MissingValues) -> list[MissingValues]:
    """The missing values the read-back check judges with: those the policy counts and,
    where they differ (a code declared missing, counted as a category of its own under
    ``"category"``), the codes declared, as an intruder with the codebook reads them.
    A pair found either way is warned of."""
    if declared is None or counted == declared or (not counted and not len(declared)):
        return [counted]
    return [counted, declared]


def _engine_checked(
    df: Any, res: SuppressionResult, columns: list[Hashable], readings: list[MissingValues]
) -> SuppressionResult:
    """A lazy frame's result with ``details["recoverable"]``: the pairs through which
    other columns give blanked cells back, found by the engine on counts
    (:func:`microsdc.risk.engine_readback.engine_recoverable`), warned as on pandas;
    none, without a query, when nothing was blanked or there is no other column."""
    from microsdc.risk.engine_readback import engine_recoverable
    from microsdc.risk.linked import merge_found, warn_found

    others = [c for c in columns if c not in set(res.qi)]
    found: list[Any] = []
    if res.n_cells and others:
        pairs = merge_found(
            [engine_recoverable(df, res.data, res.qi, others, missing_values=mv) for mv in readings]
        )
        warn_found(pairs)
        found = pairs.to_dict("records")
    return replace(res, details={**res.details, "recoverable": found})


def _random_baseline(
    df: pd.DataFrame,
    cols: list[Hashable],
    k: Any,
    importance: Any,
    combs: Any,
    strata: Any,
    subject_id: Any,
    missing: MissingPolicy,
    missing_values: MissingValues,
    seed: SeedLike,
    t0: float,
) -> SuppressionResult:
    """``method="random"``: the kanonymity baseline wrapped as a :class:`SuppressionResult`."""
    from microsdc.data.blank import blank_cells
    from microsdc.suppression._engine import fk_of
    from microsdc.suppression.random_missingness import random_missingness_codes

    given = [
        name
        for name, value in (
            ("importance", importance),
            ("combs", combs),
            ("strata", strata),
            ("subject_id", subject_id),
        )
        if value is not None
    ]
    if given:
        raise InvalidParameterError(
            f"method='random' of {_FUNC} takes no {', '.join(repr(g) for g in given)} "
            "(it blanks the same share of every quasi-identifier at random).",
            func=_FUNC,
            param="method",
            related=tuple(given),
        )
    kk = check_int(k, "k", _FUNC, min_value=1)
    search = random_missingness_codes(
        df, cols, kk, seed=seed, missing=missing, missing_values=missing_values
    )
    codes0, codes, ncat, policy = (
        search.codes_before,
        search.codes,
        search.n_categories,
        search.policy,
    )
    blank = search.blank
    data = blank_cells(df, cols, blank)
    fk_before = fk_of(codes0, ncat, policy)
    fk_after = fk_of(codes, ncat, policy)
    result = record_result(
        df,
        data,
        cols,
        kk,
        policy,
        "random",
        blank,
        fk_before,
        fk_after,
        _true_fk_series(true_fk_of(codes0, codes, ncat, None), blank, df.index),
        int(np.count_nonzero(fk_before < kk)),
        int(np.count_nonzero(fk_after < kk)),
        None,
        time.perf_counter() - t0,
        None,
        _shown_prosecutor(df, cols, blank),
    )
    result.details["percent_per_qi"] = search.percent
    return result


def _shown_prosecutor(
    df: pd.DataFrame, cols: list[Hashable], blank: np.ndarray
) -> tuple[pd.Series, pd.Series]:
    """Prosecutor risk before and after blanking ``blank``, on the values as released."""
    lit = encode_qis(df, cols, func=_FUNC, warn_cardinality=False)
    shown = np.ascontiguousarray(lit.codes, dtype=np.int64)
    before, after = _prosecutor(
        shown, np.where(blank, -1, shown), [np.arange(len(df))], lit.n_categories, True
    )
    return (
        pd.Series(before, index=df.index, name="prosecutor_risk"),
        pd.Series(after, index=df.index, name="prosecutor_risk"),
    )
