"""PRAM of a pandas frame: each record draws in memory, and the release is a new frame.

The frame adapter of :func:`microsdc.pram` for pandas (:class:`PandasPram`): the records
are the rows of every unit, each record's uniform number comes from its key
(:func:`microsdc.data.rowkeys.key_uniforms`), and the released codes are written back
into the unit's columns and the columns linked to them.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from microsdc._validation import check_frame
from microsdc.data.rowkeys import key_uniforms, record_keys
from microsdc.data.strata import stratum_ids
from microsdc.postrandomisation.draw import draw_codes
from microsdc.postrandomisation.grouped import warn_grouped
from microsdc.postrandomisation.linked import follow_key
from microsdc.postrandomisation.params import FUNC, Unit, check_where
from microsdc.postrandomisation.plan import Tally, UnitPlan, UnitRows
from microsdc.postrandomisation.result import PramResult, TransitionMatrix
from microsdc.postrandomisation.units import decode_column

__all__ = ["PandasPram"]


class PandasPram:
    """:func:`microsdc.pram`'s adapter for a pandas ``DataFrame`` (never modified)."""

    def __init__(self, df: Any) -> None:
        self.df: pd.DataFrame = check_frame(df, "df", FUNC)
        self.out: dict[Hashable, pd.Series] = {c: self.df[c] for c in self.df.columns}
        self.changed: dict[Hashable, np.ndarray] = {}
        self.pramed: dict[Hashable, np.ndarray] = {}
        self.tallies: list[Tally] = []
        self.pramed_columns: list[Hashable] = []

    @property
    def schema(self) -> pd.DataFrame:
        return self.df

    def check_where(self, where: Any) -> None:
        self.chosen = check_where(self.df, where)

    def start(self, strata: list[Hashable]) -> None:
        self.strata = stratum_ids(self.df, strata)
        self.keys = record_keys(self.df, self.chosen)

    def rows(self, unit: Unit, index: int) -> UnitRows:
        return UnitRows(self.df, self.chosen, None, self.strata)

    def draw(self, plan: UnitPlan, rng: np.random.Generator, index: int) -> None:
        """Each selected record's released code, from the row of its category and
        stratum with its uniform number; the unit's columns written back."""
        enc, sid, selected = plan.enc, plan.sid, plan.selected
        uniform = key_uniforms(self.keys, rng)
        if len(enc.labels):
            new = draw_codes(enc.codes, sid, selected, uniform, plan.mats)
        else:
            new = enc.codes.copy()
        self._write_back(plan, new)
        self.pramed[plan.unit.name] = selected
        self.pramed_columns += plan.unit.columns
        self.tallies.append((sid[selected], enc.codes[selected], new[selected], None))

    def _write_back(self, plan: UnitPlan, new: np.ndarray) -> None:
        """Set the unit's columns (and its linked columns) to the released categories."""
        df, enc, unit = self.df, plan.enc, plan.unit
        moved = new != enc.codes
        for j, c in enumerate(unit.columns):
            own = enc.column_codes[j]
            released = own.copy()
            released[moved] = enc.members[new[moved], j]
            self.out[c] = decode_column(df[c], own, released, enc.column_categories[j])
            self.changed[c] = own != released
            for key, link in unit.linked:
                if key == c:
                    self.out[link], self.changed[link] = follow_key(df, c, own, released, link)

    def released(self, n_units: int) -> list[Tally]:
        return self.tallies

    def result(self, matrices: tuple[TransitionMatrix, ...], strata: list[Hashable]) -> PramResult:
        """The release (copy-on-write shares the unchanged columns), after the warning
        for a column that groups the records as a household id."""
        df = self.df
        data = pd.DataFrame(self.out, index=df.index, copy=False)
        data.columns = df.columns
        warn_grouped(df, data, self.pramed_columns)
        return PramResult(
            data=data,
            matrices=matrices,
            changed=pd.DataFrame(self.changed, index=df.index),
            pramed=pd.DataFrame(self.pramed, index=df.index),
            strata=tuple(strata),
        )
