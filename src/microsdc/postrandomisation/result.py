"""What :func:`microsdc.pram` returns: the released data and every transition matrix."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from microsdc.exceptions import InvalidParameterError
from microsdc.postrandomisation.matrices import invariance_error

__all__ = ["LazyPramResult", "PramResult", "TransitionMatrix", "stratum_matrices"]


def stratum_matrices(
    variables: tuple[Hashable, ...],
    labels: pd.Index,
    stratum_values: list[tuple[Any, ...]],
    mats: list[np.ndarray],
    counts: np.ndarray,
    released: np.ndarray,
    n_changed: np.ndarray,
    kind: str,
) -> list[TransitionMatrix]:
    """One :class:`TransitionMatrix` per stratum of a unit, from its matrices, the records
    PRAMmed per stratum and category (``counts``, ``released``: shape (n_strata, L)) and
    the records changed per stratum (the pandas and the engine routes alike)."""
    return [
        TransitionMatrix(
            variables=variables,
            stratum=stratum_values[s],
            matrix=pd.DataFrame(mats[s], index=labels, columns=labels),
            counts=pd.Series(counts[s], index=labels, name="records"),
            released=pd.Series(released[s], index=labels, name="records"),
            invariance_error=invariance_error(counts[s], mats[s]),
            n_changed=int(n_changed[s]),
            kind=kind,
        )
        for s in range(len(stratum_values))
    ]


@dataclass(frozen=True)
class TransitionMatrix:
    """The transition matrix of one variable (or group of variables) in one stratum.

    Attributes
    ----------
    variables : tuple
        The PRAMmed column, or the columns PRAMmed together (``together=``), whose
        categories are then tuples of their values.
    stratum : tuple
        The values of the strata columns of this stratum; ``()`` without strata.
    matrix : pandas.DataFrame of shape (L, L)
        ``matrix.loc[a, b]``: probability that a record of category ``a`` is released
        as ``b``. Rows sum to 1.
    counts : pandas.Series of length L
        Records PRAMmed per original category (those in ``where=`` with a value).
    released : pandas.Series of length L
        The same records per released category.
    invariance_error : float
        ``max |p R - p|`` for the original shares ``p``: 0 up to rounding for the
        invariant matrices, whatever it is for a matrix you gave.
    n_changed : int
        Records whose category changed.
    kind : {"invariant", "invariant, masked", "given"}
        How the matrix was made.
    """

    variables: tuple[Hashable, ...]
    stratum: tuple[Any, ...]
    matrix: pd.DataFrame
    counts: pd.Series
    released: pd.Series
    invariance_error: float
    n_changed: int
    kind: str

    @property
    def n_records(self) -> int:
        """Records PRAMmed with this matrix."""
        return int(self.counts.sum())

    @property
    def change_rate(self) -> float:
        """Share of the PRAMmed records whose category changed (0 when there are none)."""
        return self.n_changed / self.n_records if self.n_records else 0.0


class _Matrices:
    """What a PRAM result says about its matrices (pandas and lazy engines alike)."""

    matrices: tuple[TransitionMatrix, ...]

    def matrix(self, variable: Hashable, stratum: Any = ()) -> TransitionMatrix:
        """The transition matrix of ``variable`` (a column or a group's first column).

        Parameters
        ----------
        variable : hashable
        stratum : value or tuple, default ()
            The stratum's value (a tuple of values for several strata columns).

        Raises
        ------
        InvalidParameterError
            If no matrix has that variable and stratum; the message lists the strata.
        """
        key = stratum if isinstance(stratum, tuple) else (stratum,)
        for m in self.matrices:
            if variable in m.variables and m.stratum == key:
                return m
        known = sorted({m.stratum for m in self.matrices if variable in m.variables}, key=repr)
        raise InvalidParameterError(
            f"PramResult.matrix has no matrix for variable {variable!r} in stratum {key!r}. "
            f"Its strata for that variable: {known!r}.",
            func="PramResult.matrix",
            param="variable",
        )

    def summary(self) -> pd.DataFrame:
        """One row per PRAMmed variable (or group): records, changes and the invariance error.

        Columns ``variables``, ``records``, ``changed``, ``change_rate`` (a share),
        ``diagonal_min`` (the lowest probability of keeping a category, over strata and
        categories present) and ``invariance_error`` (the largest over strata).
        """
        rows: dict[tuple[Hashable, ...], dict[str, Any]] = {}
        for m in self.matrices:
            row = rows.setdefault(
                m.variables,
                {"records": 0, "changed": 0, "diagonal_min": 1.0, "invariance_error": 0.0},
            )
            row["records"] += m.n_records
            row["changed"] += m.n_changed
            present = m.counts.to_numpy() > 0
            if present.any():
                diag = m.matrix.to_numpy().diagonal()[present]
                row["diagonal_min"] = min(row["diagonal_min"], float(diag.min()))
            row["invariance_error"] = max(row["invariance_error"], m.invariance_error)
        out = pd.DataFrame(
            [
                {"variables": " + ".join(map(str, v)), **r, "change_rate": _rate(r)}
                for v, r in rows.items()
            ],
            columns=[
                "variables",
                "records",
                "changed",
                "change_rate",
                "diagonal_min",
                "invariance_error",
            ],
        )
        return out


@dataclass(frozen=True)
class PramResult(_Matrices):
    """The result of :func:`microsdc.postrandomisation.pram`.

    Attributes
    ----------
    data : pandas.DataFrame
        The released data: the input's rows and columns, in the same order and with
        the same index, the PRAMmed columns (and their linked columns) changed.
    matrices : tuple of TransitionMatrix
        One per variable (or group) and stratum, in the order of ``columns`` and of
        the strata's sorted values.
    changed : pandas.DataFrame of bool, shape (n_rows, n_columns)
        One column per PRAMmed column: whether the record's value changed.
    pramed : pandas.DataFrame of bool, shape (n_rows, n_units)
        One column per matrix variable (a group is named by its first column): whether
        the record was PRAMmed (in ``where=`` and, unless ``missing="state"``, not
        missing). :func:`pram_estimate` counts these records.
    strata : tuple
        The strata columns.
    hid : column name or None
        The household id column when households were PRAMmed as units (``hid=``): the
        matrices' counts are then households.
    """

    data: pd.DataFrame
    matrices: tuple[TransitionMatrix, ...]
    changed: pd.DataFrame
    pramed: pd.DataFrame
    strata: tuple[Hashable, ...]
    hid: Hashable | None = None


def _rate(row: dict[str, Any]) -> float:
    return row["changed"] / row["records"] if row["records"] else 0.0


@dataclass(frozen=True)
class LazyPramResult(_Matrices):
    """The result of :func:`microsdc.postrandomisation.pram` on a lazy frame (polars
    ``LazyFrame``, DuckDB relation, Spark DataFrame).

    Attributes
    ----------
    data : polars.LazyFrame, duckdb.DuckDBPyRelation or pyspark.sql.DataFrame
        The release, of the input's kind and still lazy: its columns in the same order,
        the PRAMmed columns changed. Rows come in the engine's order.
    matrices : tuple of TransitionMatrix
        As :attr:`PramResult.matrices`; ``released`` and ``n_changed`` come from one
        count in the engine of the records by original and released category.
    strata : tuple
        The strata columns.
    hid : None
        Always None: PRAM by household (``hid=``) needs the records in memory.
    """

    data: Any
    matrices: tuple[TransitionMatrix, ...]
    strata: tuple[Hashable, ...]
    hid: Hashable | None = None
