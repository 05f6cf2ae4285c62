"""The Adult sample shipped with microsdc.

Source and licence: ``datasets/data/README.md``.
"""

from __future__ import annotations

from importlib.resources import files
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ADULT_QUASI_IDENTIFIERS", "load_adult"]

#: Quasi-identifiers used in microsdc's examples of the Adult data.
ADULT_QUASI_IDENTIFIERS = [
    "age",
    "sex",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]


def load_adult() -> pd.DataFrame:
    """10,000 records of the UCI "Adult" extract (1994 US Current Population Survey).

    Returns
    -------
    pandas.DataFrame of shape (10000, 15)
        Missing values (originally ``?``) in workclass, occupation and
        native-country are ``NaN``. ``fnlwgt`` is the sampling weight.

    Notes
    -----
    Becker, B. and Kohavi, R. (1996). Adult. UCI Machine Learning Repository,
    doi:10.24432/C5XW20. CC BY 4.0. A random sample of 10,000 of its 32,561
    records, in their original order.

    Examples
    --------
    >>> df = load_adult()
    >>> df.shape
    (10000, 15)
    """
    import pandas as pd

    path = files("microsdc.datasets").joinpath("data/adult_sample.csv.gz")
    with path.open("rb") as fh:
        return pd.read_csv(fh, compression="gzip")
