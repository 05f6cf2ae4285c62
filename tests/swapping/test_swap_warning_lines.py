"""Every warning of record_swap_result points at the caller's line, whichever stage raises it."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from microsdc.exceptions import DisclosureRiskWarning, HouseholdLevelWarning, SDCWarning
from microsdc.swapping import record_swap_result

HIER = ["nuts1", "nuts2", "nuts3"]
KW = dict(hid="hid", hierarchy=HIER, similar="hsize", carry_along=["lau2"], seed=1)


def _user_risk(df: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    risk = np.random.default_rng(0).random((len(df), len(HIER)))  # differs inside households
    return df, dict(risk=pd.DataFrame(risk, index=df.index), risk_threshold=0.5)


def _hids_by_area(df: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    out = df.sort_values([*HIER, "hid"], kind="stable")
    return out.assign(hid=pd.factorize(out["hid"])[0]), dict(risk_variables=["ageGroup"])


CASES = {
    "user risk varies in households": (_user_risk, HouseholdLevelWarning),
    "a level splits nothing": (
        lambda df: (
            df.assign(n1b=df["nuts1"]),
            dict(hierarchy=["nuts1", "n1b", "nuts2", "nuts3"], risk_variables=["ageGroup"]),
        ),
        SDCWarning,
    ),
    "hids follow the geography": (_hids_by_area, DisclosureRiskWarning),
    "households at risk without a donor": (
        lambda df: (
            df,
            dict(similar=["hsize", "htype", "hincome"], k_anonymity=5, risk_variables=["ageGroup"]),
        ),
        DisclosureRiskWarning,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_warning_points_at_the_caller(small_census, case):
    prepare, category = CASES[case]
    df, kw = prepare(small_census)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        record_swap_result(df, **{**KW, **kw})
    found = [w for w in caught if issubclass(w.category, category)]
    assert found
    assert {w.filename for w in found} == {__file__}
