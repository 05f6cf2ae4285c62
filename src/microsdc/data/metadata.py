"""The SPSS/Stata metadata that travel with a data frame in ``DataFrame.attrs``.

:mod:`microsdc.io` writes them when it reads a labelled file and writes them out
again; everything else only reads them, through :func:`file_metadata`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["METADATA", "file_metadata"]


#: Key of ``DataFrame.attrs`` under which the metadata of an SPSS or Stata file travel.
METADATA = "microsdc_metadata"


def file_metadata(df: pd.DataFrame) -> dict[str, Any]:
    """The SPSS/Stata metadata travelling with ``df`` (empty for other sources).

    Parameters
    ----------
    df : pandas.DataFrame, or (through :func:`microsdc.io.file_metadata`) a polars,
        pyarrow, DuckDB or Spark frame
        A pyarrow ``Table`` made from a labelled pandas frame keeps its metadata
        (``pyarrow.Table.from_pandas`` stores ``attrs``); polars and lazy frames
        carry none (an empty dict).

    Returns
    -------
    dict
        ``format`` ("spss" or "stata"), ``column_labels`` ({column: label}),
        ``value_labels`` ({column: {code: label}}), ``missing_ranges`` (SPSS
        user-missing: {column: [value or {"lo", "hi"}]}) and
        ``variable_measure`` (SPSS: nominal, ordinal, scale).

    Raises
    ------
    InvalidParameterError
        From :func:`microsdc.io.file_metadata`, if ``df`` is not a data frame.

    Examples
    --------
    >>> import pandas as pd
    >>> file_metadata(pd.DataFrame({"a": [1]}))
    {}
    """
    meta = df.attrs.get(METADATA)
    return meta if isinstance(meta, dict) else {}
