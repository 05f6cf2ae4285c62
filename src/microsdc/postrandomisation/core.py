"""PRAM, the post-randomisation method: :func:`pram`."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import pandas

from microsdc._random import SeedLike, check_random_state
from microsdc._validation import check_columns
from microsdc.backends.adapters import adapt
from microsdc.backends.dispatch import accepts_frames
from microsdc.backends.frequencies import nullable_integers
from microsdc.postrandomisation.households import check_hid, pram_by_household
from microsdc.postrandomisation.lazy import EnginePram
from microsdc.postrandomisation.params import FUNC, check_missing, plan_units
from microsdc.postrandomisation.plan import PramFrame, plan_unit, unit_transitions
from microsdc.postrandomisation.records import PandasPram
from microsdc.postrandomisation.result import LazyPramResult, PramResult

__all__ = ["pram"]


def _in_memory(**arguments: Any) -> Any:
    """:func:`pram` of a polars ``DataFrame`` or pyarrow ``Table``: on its pandas form with
    integers kept as integers where they have missing values (the draws of the same data
    as a lazy frame, and as microsdc reads a file), the release back as its kind."""
    frame = adapt(arguments["df"], FUNC)
    data = nullable_integers(frame.to_pandas(FUNC), frame.native)
    return frame.from_pandas(pram(**{**arguments, "df": data}), data)


@accepts_frames(lazy=True, eager=_in_memory)  # one driver: the adapter groups, draws, joins
def pram(
    df: pandas.DataFrame,
    columns: Hashable | Sequence[Hashable],
    *,
    pd: float | Mapping[Any, float] = 0.8,
    alpha: float | Mapping[Any, float] = 0.5,
    strata: Hashable | Sequence[Hashable] | None = None,
    hid: Hashable | None = None,
    transition: Mapping[Any, pandas.DataFrame] | None = None,
    allowed: Mapping[Any, Any] | None = None,
    where: Any = None,
    together: Sequence[Sequence[Hashable]] | None = None,
    linked: Mapping[Hashable, Sequence[Hashable]] | None = None,
    missing: str = "keep",
    seed: SeedLike = None,
) -> PramResult | LazyPramResult:
    """Post-randomise categorical variables (PRAM), invariant by default.

    Each record's category is replaced by a draw from the row of its category in a
    transition matrix ``R`` (``R[a, b]``: probability that ``a`` is released as ``b``).
    The default matrix is invariant, ``p R = p`` for the shares ``p`` of the stratum, so
    the expected frequencies of the release are the original ones, and it is built as
    sdcMicro's ``pram`` builds it (Gouweleeuw, Kooiman, Willenborg & de Wolf 1998, *JOS*
    14(4)): a matrix ``P`` keeping category ``i`` with a probability drawn uniformly in
    ``[pd, 1]`` and spreading the rest evenly, its Bayes reverse ``Q`` under ``p``,
    ``R = P Q``, then ``alpha R + (1 - alpha) I``.

    PRAM protects by uncertainty, not by k-anonymity: an intruder cannot tell whether a
    released category is the true one, but a combination can still be unique.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns), or a polars, pyarrow, DuckDB or Spark frame
        Never modified. A polars ``DataFrame`` or pyarrow ``Table`` is PRAMmed in memory
        and comes back as its kind. A polars ``LazyFrame``, DuckDB relation or Spark
        DataFrame is PRAMmed inside its engine (see Notes) and comes back lazy.
    columns : column name or list of column names
        The categorical variables to PRAM, each with its own matrices (unless grouped by
        ``together``).
    pd : float in [0, 1] or dict {column: float}, default 0.8
        Lowest probability of ``P``'s diagonal (sdcMicro's ``pd``). The realised
        probability of keeping a category, the diagonal of ``R``, is lower for rare
        categories (``PramResult.summary()["diagonal_min"]`` shows it).
    alpha : float in [0, 1] or dict {column: float}, default 0.5
        Weight of ``R`` against the identity (sdcMicro's ``alpha``); 0 changes nothing.
    strata : column name or list, optional
        Each stratum (combination of values, a missing value being one) gets its own
        matrices from its own frequencies, and records never move across strata. Unlike
        sdcMicro, every stratum's matrix is returned.
    hid : column name, optional
        The household id column: PRAM household-level variables (roof, walls: one value
        per household) by household. Each household is one unit: one draw per household,
        from the row of its category in a matrix built from the **household** frequencies,
        and every member gets the household's new value (linked columns follow). Without
        it, members are PRAMmed one by one and get different values: a release that says
        something impossible, and an intruder who groups the members takes the majority
        and gets much of the original value back. Every member of a household must hold
        the same value in each PRAMmed, linked and stratum column (a missing value being
        one); a household is PRAMmed when ``where`` holds for any of its members.
    transition : dict {column: pandas.DataFrame}, optional
        A matrix of your own for a column (or a group of ``together``, keyed by the tuple
        of its columns): rows and columns named by the categories (a group's by tuples),
        rows summing to 1 within 1e-6. It is used for every stratum, restricted there to
        the categories the stratum has (their columns kept, each row scaled back to 1),
        so that nothing moves into a category a stratum lacks.
    allowed : dict {column: "neighbours" | list of pairs | boolean DataFrame}, optional
        Transitions allowed besides staying: ``"neighbours"`` (next category in the
        order of the values, for ordered variables), pairs ``(a, b)`` (both ways), or a
        symmetric boolean DataFrame (a category it leaves out stays put). Neighbours
        need numbers, dates or an ordered categorical. The invariant
        matrix is then built by a Metropolis-Hastings chain on ``p`` that proposes a move
        with probability ``1 - d`` (``d`` drawn in ``[pd, 1]``) to an allowed category
        of the stratum; its diagonal is at least ``d``, also for rare categories.
    where : column name, boolean Series or array, optional
        PRAM only these records (for instance the records at risk); the matrices come
        from their frequencies. The others are released unchanged.
    together : list of lists of column names, optional
        Groups of ``columns`` PRAMmed jointly: one matrix over the combinations of values
        that occur, so a record never gets a combination the data lacks.
    linked : dict {column: list of column names}, optional
        Columns that follow a PRAMmed column: where its value changes, each linked
        column takes the value that goes with the new category (each category must go
        with one value of a linked column; a region code and its name, say).
    missing : {"keep", "state"}, default "keep"
        ``"keep"``: missing values stay missing and are not PRAMmed (as sdcMicro).
        ``"state"``: a missing value is a category that can change and be reached.
    seed : int, numpy.random.Generator or None
        The random numbers. The same seed gives the same release whatever the order of
        the rows: each record's uniform number is a hash of its values (and of its number
        among identical records) salted by a draw from the seed's Generator. With ``hid``,
        each household's number is a hash of its id and household-level values.

    Returns
    -------
    PramResult or LazyPramResult
        ``data`` (the release), ``matrices`` (every transition matrix with its invariance
        error and change rate), ``changed``, ``pramed`` and ``summary()`` (per record;
        with ``hid``, ``changed`` and ``pramed`` give each member their household's flag);
        for a lazy frame a :class:`LazyPramResult`: the lazy ``data``, ``matrices`` and
        ``summary()``.

    Raises
    ------
    InvalidParameterError
        For a parameter of the wrong type or range, naming it: ``pd`` or ``alpha`` outside
        [0, 1], a stratum that is PRAMmed, a group or link that is not a PRAMmed column,
        an ``allowed`` mask that is not symmetric, a given matrix it contradicts, or a
        ``hid`` that is not one column name (or is PRAMmed or a stratum); on a lazy
        frame, a ``where`` that is not one of its columns, or a ``hid``, before a row is
        read.
    ColumnNotFoundError
        For a column of ``columns``, ``strata``, ``hid``, ``together`` or ``linked`` not
        in ``df``.
    DataValidationError
        For a given matrix that is not a square table of probabilities with rows summing
        to 1 and one row per category of the data; a ``where`` with missing or
        non-boolean values; a linked column with two values for one category; duplicate
        column names; a column whose values cannot be compared (lists). With ``hid``: a
        missing household id, or a PRAMmed, linked or stratum column whose values differ
        between the members of a household (naming the column, the number of such
        households and a few ids).

    Warns
    -----
    DisclosureRiskWarning
        Without ``hid`` on a pandas frame, for a PRAMmed column that another column of
        the frame groups as a household id (its groups of two or more records held one
        value of the PRAMmed column in at least 95 % of them before PRAM, and some no
        longer do): naming both columns, the groups now split, and the fix (``hid=``,
        or drop the column). Only columns with between ``n / 50`` and ``n / 1.2``
        distinct values are looked at (:mod:`microsdc.postrandomisation.grouped`).

    See Also
    --------
    pram_estimate : unbiased estimates of the original frequencies from the release.

    Notes
    -----
    With ``hid``, the frequencies ``p`` that make the matrix invariant are household
    counts, so ``p R = p`` holds for the households' frequencies and the release keeps
    them in expectation; ``counts``, ``released``, ``n_changed`` and ``summary()``'s
    ``records`` and ``changed`` count households. The persons' frequencies are kept in
    expectation only when household size does not depend on the category (otherwise a
    category of large households gains or loses persons as it exchanges households with
    smaller ones); :func:`pram_estimate` estimates household counts. This is how the SDC
    Practice Guide PRAMs household variables with sdcMicro (``selectHouseholdData``,
    ``pram`` on the household file, merged back to the persons).

    The invariant matrices are built from each stratum's category frequencies, and give
    them back exactly to whoever solves ``p R = p``: publish the matrices (for analysts'
    estimates) only where those frequency tables may be published.

    On a lazy frame the engine counts the categories per stratum (a group-by), the
    matrices are built from those counts in Python, and each record's draw is made in
    the engine: its key and uniform number are computed there as on pandas, and a join
    with the small table of cumulative transition rows picks its released category.
    The rows never enter Python. The release equals, value for value, that of the same
    seed on the engine's own pandas conversion (polars ``.to_pandas()``, DuckDB
    ``.df()``, Spark ``.toArrow().to_pandas()``) with the integer columns that hold
    missing values as pandas' nullable integers (``Int64``, ...), as microsdc reads a file
    (pandas hashes them otherwise than the floats polars and pyarrow convert them to; a
    polars ``DataFrame`` or pyarrow ``Table`` in memory is PRAMmed as its lazy frame), as
    long as every text, decimal, date or nullable column has at most
    :data:`~microsdc.postrandomisation.enginekeys.MAX_MAPPED` distinct values; above
    that, such a column enters the key through the engine's own hash, which gives the
    same distribution but other draws. ``where`` must then be a boolean column of the
    frame; ``linked`` columns are checked on the engine's (key, linked value) pairs.

    How the result differs from sdcMicro's ``pram``: all matrices are returned (sdcMicro
    keeps the last stratum's); the records' order does not change the release; nothing
    moves into a category absent from a stratum (as sdcMicro, and also under
    ``allowed``); the draws come from ``seed``'s Generator, not R's, so numbers match in
    distribution, not draw for draw.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"roof": ["tin"] * 6 + ["tile"] * 3 + ["straw"], "x": range(10)})
    >>> res = pram(df, "roof", pd=0.8, seed=1)
    >>> res.data.shape, bool((res.data["x"] == df["x"]).all())
    ((10, 2), True)
    >>> round(res.matrices[0].invariance_error, 12)
    0.0
    """
    frame = _frame(df, hid)  # on a lazy frame, hid is refused before anything is read
    cols = check_columns(frame.schema, columns, "columns", FUNC)
    strata_cols = check_columns(frame.schema, strata, "strata", FUNC, allow_empty=True)
    if hid is not None:  # each household one unit: PRAM the household file
        name = check_hid(df, hid, cols, strata_cols)
        kwargs: dict[str, Any] = dict(pd=pd, alpha=alpha, transition=transition)
        kwargs.update(allowed=allowed)
        kwargs.update(together=together, missing=missing, seed=seed)
        return pram_by_household(
            pram, df, cols, name, strata=strata_cols, linked=linked, where=where, kwargs=kwargs
        )
    state = check_missing(missing) == "state"
    units = plan_units(
        frame.schema,
        cols,
        pd_=pd,
        alpha=alpha,
        strata=strata_cols,
        transition=transition,
        allowed=allowed,
        together=together,
        linked=linked,
    )
    frame.check_where(where)
    rng = check_random_state(seed, func=FUNC)
    frame.start(strata_cols)
    plans = []
    for index, unit in enumerate(units):  # the Generator: each unit's matrices, then salt
        plan = plan_unit(frame.rows(unit, index), unit, strata_cols, state, rng)
        frame.draw(plan, rng, index)
        plans.append(plan)
    tallies = frame.released(len(units))
    matrices = [m for p, t in zip(plans, tallies, strict=True) for m in unit_transitions(p, *t)]
    return frame.result(tuple(matrices), strata_cols)


def _frame(df: Any, hid: Hashable | None) -> PramFrame:
    """The adapter of ``df``: the engine's for a lazy frame, pandas' otherwise."""
    if adapt(df, FUNC).lazy:
        return EnginePram(df, hid)
    return PandasPram(df)
