"""What PRAM computes per unit from the data's categories, the same for every frame.

A frame adapter (:mod:`~microsdc.postrandomisation.records` for pandas,
:mod:`~microsdc.postrandomisation.lazy` for the engines) gives each unit's rows: the
records themselves on pandas (each of weight 1), or the engine's distinct patterns of
``where``, strata and the unit's columns with their numbers of records. From them
:func:`plan_unit` encodes the unit, numbers the strata, counts the records per stratum
and category and builds the matrices; the adapter draws and writes back; then
:func:`unit_transitions` turns the counts of the records by original and released
category into the :class:`~microsdc.postrandomisation.result.TransitionMatrix` entries.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd

from microsdc.data.strata import stratum_ids
from microsdc.postrandomisation.build import unit_matrices
from microsdc.postrandomisation.params import Unit
from microsdc.postrandomisation.result import TransitionMatrix, stratum_matrices
from microsdc.postrandomisation.units import EncodedUnit, encode_unit, is_ordered

__all__ = ["PramFrame", "Tally", "UnitPlan", "UnitRows", "plan_unit", "unit_transitions"]


@dataclass(frozen=True)
class UnitRows:
    """A unit's rows as a frame adapter gives them.

    Attributes
    ----------
    rows : pandas.DataFrame
        The records (pandas), or one row per distinct pattern (an engine); it holds the
        unit's and the strata's columns.
    chosen : numpy.ndarray of bool, or True
        The rows that ``where=`` selects (True: all).
    records : numpy.ndarray of int64 or None
        The records behind each row (None: one each).
    strata : tuple (ids, values) or None
        The rows' stratum ids and each id's values when the adapter has them already
        (None: computed from ``rows``).
    """

    rows: pd.DataFrame
    chosen: np.ndarray | bool
    records: np.ndarray | None = None
    strata: tuple[np.ndarray, list[tuple[Any, ...]]] | None = None


@dataclass(frozen=True)
class UnitPlan:
    """One unit's codes, strata, counts and matrices, per row of its :class:`UnitRows`."""

    unit: Unit
    enc: EncodedUnit
    sid: np.ndarray
    stratum_values: list[tuple[Any, ...]]
    selected: np.ndarray
    counts: np.ndarray  # records PRAMmed per stratum and category, shape (n_strata, L)
    mats: list[np.ndarray]
    kind: str


#: Per PRAMmed row: its stratum, original code and released code, and its records (None:
#: one each), from which :func:`unit_transitions` counts.
Tally = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]


class PramFrame(Protocol):
    """What :func:`~microsdc.postrandomisation.pram` asks of a frame."""

    @property
    def schema(self) -> pd.DataFrame:
        """A frame with the data's columns, to check column names against."""
        ...

    def check_where(self, where: Any) -> None:
        """Check ``where=`` (after the other parameters)."""
        ...

    def start(self, strata: list[Hashable]) -> None:
        """Read what every unit needs (the records' keys), before the first unit."""
        ...

    def rows(self, unit: Unit, index: int) -> UnitRows:
        """The rows to plan unit number ``index`` on."""
        ...

    def draw(self, plan: UnitPlan, rng: np.random.Generator, index: int) -> None:
        """Draw the unit's released categories (the uniform numbers' salt from ``rng``)
        and write them back."""
        ...

    def released(self, n_units: int) -> list[Tally]:
        """Per unit, its PRAMmed rows' strata, original and released codes."""
        ...

    def result(self, matrices: tuple[TransitionMatrix, ...], strata: list[Hashable]) -> Any:
        """The release and its matrices, as the frame's kind of result."""
        ...


def _tally(flat: np.ndarray, records: np.ndarray | None, size: int) -> np.ndarray:
    """Records per value of ``flat`` in ``0 .. size - 1`` (each row ``records`` of them)."""
    if records is None:
        return np.bincount(flat, minlength=size)
    return np.bincount(flat, weights=records, minlength=size).astype(np.int64)


def plan_unit(
    given: UnitRows, unit: Unit, strata: list[Hashable], state: bool, rng: np.random.Generator
) -> UnitPlan:
    """Encode the unit, number the strata, count the records per stratum and category,
    and build the matrices (the diagonals drawn from ``rng``, strata in order)."""
    rows = given.rows
    enc = encode_unit(rows, unit.columns, state)
    sid, stratum_values = given.strata if given.strata is not None else stratum_ids(rows, strata)
    selected = given.chosen & (enc.codes >= 0)
    n_cat, n_strata = len(enc.labels), len(stratum_values)
    records = None if given.records is None else given.records[selected]
    counts = _tally(sid[selected] * n_cat + enc.codes[selected], records, n_strata * n_cat)
    counts = counts.reshape(n_strata, n_cat)
    mats, kind = unit_matrices(unit, enc.labels, counts, rng, is_ordered(rows[unit.columns[0]]))
    return UnitPlan(unit, enc, sid, stratum_values, selected, counts, mats, kind)


def unit_transitions(
    plan: UnitPlan,
    strata: np.ndarray,
    old: np.ndarray,
    new: np.ndarray,
    records: np.ndarray | None = None,
) -> list[TransitionMatrix]:
    """The unit's :class:`TransitionMatrix` per stratum: its matrices, the records per
    original category (``plan.counts``), and the records per released category and
    changed, counted from the PRAMmed rows' ``strata``, ``old`` and ``new`` codes."""
    n_strata, n_cat = plan.counts.shape
    released = _tally(strata * n_cat + new, records, n_strata * n_cat)
    moved = old != new
    n_changed = _tally(strata[moved], None if records is None else records[moved], n_strata)
    return stratum_matrices(
        plan.unit.columns,
        plan.enc.labels,
        plan.stratum_values,
        plan.mats,
        plan.counts,
        released.reshape(n_strata, n_cat),
        n_changed,
        plan.kind,
    )
