"""Bad input to record_swap (reference section 3, property 19): clear errors naming the culprit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microsdc.exceptions import (
    ColumnNotFoundError,
    DataValidationError,
    HouseholdLevelWarning,
    InvalidParameterError,
)
from microsdc.swapping import record_swap

HIER = ["nuts1", "nuts2", "nuts3"]
RV = ["ageGroup", "national"]


@pytest.fixture(scope="module")
def dat(small_census: pd.DataFrame) -> pd.DataFrame:
    return small_census


def swap(dat: pd.DataFrame, **kw):
    args = dict(
        hid="hid",
        hierarchy=HIER,
        similar=["hsize"],
        k_anonymity=0,
        risk_variables=RV,
        seed=2021,
        checked_columns=["lau2"],
    )
    args.update(kw)
    return record_swap(dat, **args)


def test_data_must_be_a_frame(dat):
    with pytest.raises(InvalidParameterError, match=r"'data'"):
        record_swap(list(range(10)), "hid", HIER, "hsize", risk_variables=RV)
    assert len(
        record_swap(
            pd.DataFrame(dat),
            "hid",
            HIER,
            "hsize",
            k_anonymity=0,
            risk_variables=RV,
            carry_along=["lau2"],
        )
    ) == len(dat)


def test_duplicate_column_names(dat):
    df = dat.copy()
    df.columns = [*df.columns[:-1], "htype"]
    with pytest.raises(DataValidationError, match="duplicate column names"):
        swap(df)


@pytest.mark.parametrize(
    ("kw", "exc", "pattern"),
    [
        ({"hid": -1}, InvalidParameterError, "'hid'.*0-based"),
        ({"hid": "hhids"}, ColumnNotFoundError, "'hid'.*'hhids'"),
        ({"hid": ["hid", "hsize"]}, InvalidParameterError, "'hid'.*single column"),
        ({"hid": 99}, InvalidParameterError, "'hid'.*positions in \\[0, 10\\]"),
        ({"hierarchy": list(range(10, 100))}, InvalidParameterError, "'hierarchy'"),
        ({"hierarchy": ["nuts1", "nuts9"]}, ColumnNotFoundError, "'hierarchy'.*'nuts9'"),
        ({"hierarchy": []}, InvalidParameterError, "'hierarchy'.*non-empty"),
        ({"hierarchy": ["hid", "nuts1"]}, InvalidParameterError, "'hierarchy'"),
        ({"hierarchy": ["nuts1", "nuts1"]}, InvalidParameterError, "'hierarchy'.*more than once"),
        ({"similar": -1}, InvalidParameterError, "'similar'"),
        ({"similar": ["hsize", "hstatus"]}, ColumnNotFoundError, "'similar'.*'hstatus'"),
        ({"similar": [["hsize", "hstatus"]]}, ColumnNotFoundError, "'similar'.*'hstatus'"),
        ({"risk_variables": [-1, 100]}, InvalidParameterError, "'risk_variables'"),
        ({"risk_variables": ["age", "sex"]}, ColumnNotFoundError, "'risk_variables'.*'age'"),
        (
            {"risk_variables": None},
            InvalidParameterError,
            "'risk_variables'.*when 'risk' is None",
        ),
        ({"risk_variables": []}, InvalidParameterError, "'risk_variables'"),
        ({"carry_along": -1}, InvalidParameterError, "'carry_along'"),
        ({"carry_along": "lau3"}, ColumnNotFoundError, "'carry_along'.*'lau3'"),
        ({"carry_along": ["hid"]}, InvalidParameterError, "'carry_along'"),
        ({"swaprate": "0.1"}, InvalidParameterError, "'swaprate'.*\\[0.0, 1.0\\]"),
        ({"swaprate": [0.1, 0.5]}, InvalidParameterError, "'swaprate'"),
        ({"swaprate": -0.1}, InvalidParameterError, "'swaprate'"),
        ({"swaprate": 1.5}, InvalidParameterError, "'swaprate'"),
        ({"swaprate": float("nan")}, InvalidParameterError, "'swaprate'"),
        ({"k_anonymity": -1}, InvalidParameterError, "'k_anonymity'.*>= 0"),
        ({"k_anonymity": [1, 6]}, InvalidParameterError, "'k_anonymity'"),
        ({"k_anonymity": 2.5}, InvalidParameterError, "'k_anonymity'"),
        ({"return_swapped_id": [True, True]}, InvalidParameterError, "'return_swapped_id'"),
        ({"return_swapped_id": "HID"}, InvalidParameterError, "'return_swapped_id'"),
        ({"seed": 1.5}, InvalidParameterError, "'seed'"),
        ({"seed": ["a", "b"]}, InvalidParameterError, "'seed'"),
        ({"seed": -1}, InvalidParameterError, "'seed'"),
        ({"risk_threshold": "A"}, InvalidParameterError, "'risk_threshold'"),
        ({"risk_threshold": [0.5, 2]}, InvalidParameterError, "'risk_threshold'"),
        ({"risk_threshold": -1}, InvalidParameterError, "'risk_threshold'.*>= 0"),
        ({"log_file_name": 3}, InvalidParameterError, "'log_file_name'"),
        ({"log_file_name": "/no/such/dir/log.txt"}, InvalidParameterError, "'log_file_name'"),
    ],
)
def test_bad_parameter(dat, kw, exc, pattern):
    with pytest.raises(exc, match=pattern):
        swap(dat, **kw)


def test_log_file_name_that_is_a_directory(dat, tmp_path):
    with pytest.raises(InvalidParameterError, match=r"'log_file_name'"):
        swap(dat, log_file_name=tmp_path)


@pytest.mark.parametrize(
    "kw",
    [
        {"similar": [["hsize", "htype"], "hsize"]},
        {"carry_along": "lau2"},
        {"carry_along": ["nuts3"]},  # also in the hierarchy: ignored
        {"hid": 4, "hierarchy": [0, 1, 2], "similar": 5, "risk_variables": [6, 8]},  # positions
        {"similar": None},
        {"k_anonymity": np.int64(1)},
    ],
)
def test_accepted(dat, kw):
    assert len(swap(dat, **kw)) == len(dat)


def test_positions_equal_names(dat):
    by_pos = swap(dat, hid=4, hierarchy=[0, 1, 2], similar=5, risk_variables=[6, 8], swaprate=0.2)
    by_name = swap(dat, swaprate=0.2)
    pd.testing.assert_frame_equal(by_pos, by_name)


def test_risk_variables_as_data_frame(dat):
    with pytest.raises(InvalidParameterError, match=r"'risk_variables'"):
        swap(dat, risk_variables=dat[RV])


def test_any_value_types_in_used_columns(dat):
    df = dat.copy()
    df["nuts2"] = df["nuts2"] + 0.5  # decimals are labels like any other
    df["nuts3"] = "area-" + df["nuts3"].astype(str)
    out = swap(df, swaprate=0.2)
    assert out["nuts2"].dtype == np.float64
    assert set(out["nuts3"]) == set(df["nuts3"])


class TestRisk:
    hier = ("nuts1", "nuts2")

    def run(self, dat, risk, **kw):
        args = dict(risk=risk, risk_threshold=0.5, risk_variables=None, k_anonymity=3)
        args.update(kw)
        return swap(dat, hierarchy=list(self.hier), **args)

    def test_vector_of_nrow(self, dat):
        with pytest.raises(InvalidParameterError, match=r"'risk'.*shape"):
            self.run(dat, np.full(len(dat), 0.1))

    def test_vector_of_nrow_says_how_to_build_the_shape(self, dat):
        n = len(dat)
        with pytest.raises(InvalidParameterError) as info:
            self.run(dat, np.full(n, 0.1))
        assert str(info.value) == (
            f"The 'risk' parameter of record_swap must be an array of shape (n_rows, n_levels) "
            f"= ({n}, 2). Got shape ({n},) instead: one value per record is a risk for one "
            "level: to use it at every level, pass risk=np.column_stack([values] * 2) (or a "
            "DataFrame with one column per level, in the order of 'hierarchy') (numpy "
            "imported as np)."
        )

    @pytest.mark.parametrize("nested", [False, True])
    def test_list_of_numbers_is_cut_short_and_says_how_to_pass_it(self, dat, nested):
        n = len(dat)
        values = np.linspace(0.01, 0.9, n)
        risk = np.column_stack([values, values]).tolist() if nested else values.tolist()
        with pytest.raises(InvalidParameterError) as info:
            self.run(dat, risk)
        message = str(info.value)
        assert len(message) < 700
        shape, first = (f"({n}, 2)", "[0.01, 0.01]") if nested else (f"({n},)", "0.01")
        assert message.startswith(
            "The 'risk' parameter of record_swap must be None, a DataFrame or ndarray of "
            f"shape (n_rows, n_levels) = ({n}, 2), or a list of column names. Got a list of "
            f"numbers of shape {shape} (a list of {n} values [{first}, "
        )
        fix = (
            "pass it as an array: risk=np.asarray(values, dtype=float)"
            if nested
            else "one value per record is a risk for one level: to use it at every level, "
            "pass risk=np.column_stack([values] * 2)"
        )
        assert (
            ", ...]) instead: a list of numbers is read as column names, not as a risk; " + fix
        ) in message
        assert (info.value.func, info.value.param) == ("record_swap", "risk")

    def test_long_list_of_column_names_is_cut_short(self, dat):
        with pytest.raises(InvalidParameterError) as info:
            self.run(dat, ["hsize", "nuts3", "lau2", "hid", "nuts1", "nuts2"])
        assert str(info.value) == (
            "The 'risk' parameter of record_swap must be a list of 2 column names (one per "
            "hierarchy level). Got a list of 6 values ['hsize', 'nuts3', 'lau2', 'hid', "
            "'nuts1', ...] instead."
        )

    def test_scalar(self, dat):
        with pytest.raises(InvalidParameterError, match=r"'risk'"):
            self.run(dat, 1)

    def test_named_list_of_unknown_columns(self, dat):
        with pytest.raises(ColumnNotFoundError, match=r"'risk'.*'r1'"):
            self.run(dat, ["r1", "r2"])

    def test_list_of_wrong_length(self, dat):
        with pytest.raises(InvalidParameterError, match=r"'risk'.*2 column names"):
            self.run(dat, ["hsize"])

    def test_columns_of_data(self, dat):
        df = dat.assign(r1=0.01, r2=0.02)
        assert len(
            swap(
                df,
                hierarchy=list(self.hier),
                risk=["r1", "r2"],
                risk_threshold=0.5,
                risk_variables=None,
                k_anonymity=3,
                checked_columns=["nuts3", "lau2"],
            )
        ) == len(df)

    def test_wrong_number_of_columns(self, dat):
        with pytest.raises(InvalidParameterError, match=r"'risk'.*\(1000|'risk'.*shape"):
            self.run(dat, np.full((len(dat), 3), 0.1))

    def test_wrong_number_of_rows(self, dat):
        with pytest.raises(InvalidParameterError, match=r"'risk'.*shape"):
            self.run(dat, np.full((len(dat) - 1, 2), 0.1))

    def test_negative(self, dat):
        with pytest.raises(InvalidParameterError, match=r"'risk'.*>= 0"):
            self.run(dat, np.full((len(dat), 2), -1.0))

    def test_missing(self, dat):
        r = np.full((len(dat), 2), 0.1)
        r[3, 1] = np.nan
        with pytest.raises(DataValidationError, match=r"'risk'.*1 row"):
            self.run(dat, r)

    def test_non_numeric(self, dat):
        with pytest.raises(InvalidParameterError, match=r"'risk'"):
            self.run(dat, pd.DataFrame({"a": ["x"] * len(dat), "b": 0.1}))

    def test_threshold_required(self, dat):
        with pytest.raises(InvalidParameterError, match=r"'risk_threshold'.*'risk' is given"):
            self.run(dat, np.full((len(dat), 2), 0.1), risk_threshold=None)

    @pytest.mark.parametrize("thr", ["A", [0.5, 2], -1])
    def test_bad_threshold(self, dat, thr):
        with pytest.raises(InvalidParameterError, match=r"'risk_threshold'"):
            self.run(dat, np.full((len(dat), 3), 0.1), risk_threshold=thr)


@pytest.mark.parametrize("column", ["hid", "nuts1", "hsize", "national", "lau2"])
def test_missing_values_name_the_column_and_rows(dat, column):
    df = dat.copy()
    df[column] = df[column].astype("Int64")
    df.loc[df.index[:7], column] = pd.NA
    if column == "lau2":  # carried along: its blanks travel with their household
        # the first 7 rows blank half a household: exchanged member by member then
        with pytest.warns(HouseholdLevelWarning, match=r"'lau2' .* blanks next to values"):
            out = swap(df, carry_along=["lau2"])
        assert int(out["lau2"].isna().sum()) == 7
        return
    with pytest.raises(DataValidationError, match=rf"'{column}'.*7 row") as err:
        swap(df, carry_along=["lau2"])
    assert len(err.value.failure_cases) == 7


def test_swapped_id_column_already_present(dat):
    with pytest.raises(InvalidParameterError, match=r"'hid_swapped'"):
        swap(dat.assign(hid_swapped=1), return_swapped_id=True)


def test_hierarchy_listed_from_the_finest_level_is_pointed_out(dat):
    import warnings

    from microsdc.exceptions import SDCWarning

    n3 = dat["nuts3"].nunique()
    with pytest.warns(SDCWarning, match=rf"level 'nuts1' splits no area of 'nuts3' \({n3:,} "):
        swap(dat, hierarchy=["nuts3", "nuts1"], carry_along=["nuts2"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        swap(dat, hierarchy=["nuts1", "nuts3"], carry_along=["nuts2"])


@pytest.mark.parametrize("threshold", [1, 2.5])
def test_threshold_no_household_can_exceed_is_refused(dat, threshold):
    with pytest.raises(InvalidParameterError, match=r"'risk_threshold'.*below 1 when the risk"):
        swap(dat, carry_along=["lau2"], risk_threshold=threshold)
    swap(dat, carry_along=["lau2"], risk_threshold=0.5)  # below 1: taken


@pytest.mark.parametrize(
    ("kw", "unused", "param"),
    [
        (
            {"risk_variables": RV, "k_anonymity": 3},
            "risk_variables=['ageGroup', 'national']",
            "risk_variables",
        ),
        ({"risk_variables": None, "k_anonymity": 0}, "k_anonymity=0", "k_anonymity"),
        ({}, "risk_variables=['ageGroup', 'national'] and k_anonymity=0", "risk_variables"),
    ],
)
def test_a_user_risk_with_risk_variables_or_k_is_refused_naming_both(dat, kw, unused, param):
    """sdcMicro's recordSwap drops risk_variables and k_anonymity silently when a risk
    is given; here the call is refused, so that nobody believes they were used."""
    risk = np.full((len(dat), 2), 0.1)
    with pytest.raises(InvalidParameterError) as info:
        swap(dat, hierarchy=["nuts1", "nuts2"], risk=risk, risk_threshold=0.5, **kw)
    left_out = " and ".join(f"'{u.split('=')[0]}'" for u in unused.split(" and "))
    assert str(info.value) == (
        f"The 'risk' parameter of record_swap is given together with {unused}, which a user "
        "risk leaves unused: the households at risk are those whose 'risk' is above "
        f"'risk_threshold'. Drop one: leave out {left_out} to swap on the given risk, or "
        "leave out 'risk' (and 'risk_threshold') to count the k-anonymity risk on the risk "
        "variables."
    )
    assert (info.value.func, info.value.param) == ("record_swap", param)


def test_a_user_risk_with_the_default_k_and_no_risk_variables_swaps(dat):
    risk = np.full((len(dat), 2), 0.1)
    kw = dict(hierarchy=["nuts1", "nuts2"], risk=risk, risk_threshold=0.5)
    kw["checked_columns"] = ["nuts3", "lau2"]
    out = swap(dat, **kw, risk_variables=None, k_anonymity=3)
    assert out.equals(swap(dat, **kw, risk_variables=[], k_anonymity=3))
    assert len(out) == len(dat)
