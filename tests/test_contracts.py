"""The parameter contract of every public function (after scikit-learn's
``sklearn/tests/test_public_functions.py``).

Each public function gets a small call that works. Then each of its parameters in
turn is given an object of no valid type (``object()``), and numeric parameters
also one value out of range: the call must raise
:class:`~microsdc.exceptions.InvalidParameterError` (or
:class:`~microsdc.exceptions.ColumnNotFoundError` for a parameter that names
columns) whose ``param`` is that parameter, as the message names it, and whose
``func`` is the function. The data frames are left out, and so are the
parameters that accept any object; each such exception is listed with its reason.
"""

from __future__ import annotations

import importlib
import inspect
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import microsdc
from microsdc.exceptions import ColumnNotFoundError, InvalidParameterError

#: the modules whose ``__all__`` lists public functions
MODULES = (
    "microsdc",
    "microsdc.risk",
    "microsdc.suppression",
    "microsdc.swapping",
    "microsdc.postrandomisation",
    "microsdc.microaggregation",
    "microsdc.noise",
    "microsdc.recoding",
    "microsdc.longitudinal",
    "microsdc.utility",
)

ANY_LABEL = "any value is a valid label for the merged categories"
ANY_CONSOLE = "any object with rich's Console interface is used as it is (duck-typed)"


def people() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": [20, 20, 30, 30, 40, 40, 20, 30],
            "sex": ["m", "f", "m", "f", "m", "f", "m", "f"],
            "region": ["a", "a", "b", "b", "a", "b", "a", "b"],
            "hid": [1, 1, 2, 2, 3, 3, 4, 4],
            "town": ["p", "p", "q", "q", "r", "r", "s", "s"],
            "w": [10.0, 12.0, 9.0, 11.0, 10.0, 10.0, 8.0, 7.0],
            "income": [100.0, 250.0, 300.0, 120.0, 80.0, 500.0, 90.0, 60.0],
            "dis": ["x", "y", "x", "z", "y", "x", "z", "y"],
        }
    )


def census() -> pd.DataFrame:
    return microsdc.synthetic_census(40, seed=1)


HIER = ["nuts1", "nuts2"]


def _swap_call() -> dict[str, Any]:
    return {
        "data": census(),
        "hid": "hid",
        "hierarchy": HIER,
        "similar": "hsize",
        "swaprate": 0.1,
        "risk_variables": ["ageGroup"],
        "carry_along": ["nuts3", "lau2"],
        "seed": 1,
    }


def _collapsed() -> dict[str, Any]:
    df = people()
    collapsed = microsdc.collapse_subjects(df, "hid", ["age", "sex"])
    return {"original_df": df, "collapsed": collapsed, "anonymised": collapsed.data}


def _swap_utility() -> dict[str, Any]:
    data = census()
    swapped = microsdc.record_swap(
        data,
        "hid",
        HIER,
        "hsize",
        swaprate=0.2,
        risk_variables=["ageGroup"],
        carry_along=["nuts3", "lau2"],
        seed=1,
    )
    return {
        "original": data,
        "swapped": swapped,
        "hid": "hid",
        "hierarchy": HIER,
        "risk_variables": ["ageGroup"],
    }


def _summary() -> dict[str, Any]:
    from microsdc.swapping import swap_utility

    return {"utility": swap_utility(**_swap_utility()), "max_areas": 5}


def _write(tmp: Path) -> dict[str, Any]:
    return {"df": people(), "path": tmp / "out.csv", "encoding": "utf-8", "sep": ","}


def _read(tmp: Path) -> dict[str, Any]:
    people().to_csv(tmp / "in.csv", index=False)
    return {"path": tmp / "in.csv", "columns": ["age"], "sep": ",", "encoding": "utf-8"}


JOB = """title = "contract"
steps = ["risk", "suppression"]

[input]
path = "people.csv"

[variables]
quasi_identifiers = ["age", "sex", "region"]

[risk]
k = 2

[output]
directory = "out"
"""


def _job(tmp: Path) -> Path:
    people().to_csv(tmp / "people.csv", index=False)
    (tmp / "job.toml").write_text(JOB, encoding="utf-8")
    return tmp / "job.toml"


def _audit(tmp: Path) -> dict[str, Any]:
    return {"audit": microsdc.run_job(_job(tmp), write=False).audit}


@dataclass(frozen=True)
class Contract:
    """A valid call of one public function and what its parameters must reject."""

    #: the keyword arguments of a call that works (``tmp`` is a scratch folder)
    valid: Callable[[Path], dict[str, Any]]
    #: the data-frame parameters (the contract is about the others)
    frames: tuple[str, ...] = ()
    #: parameters that accept any object -> why
    any_value: dict[str, str] = field(default_factory=dict)
    #: parameters naming columns: ColumnNotFoundError is a valid answer for them
    columns: tuple[str, ...] = ()
    #: parameter -> one value out of range
    out_of_range: dict[str, Any] = field(default_factory=dict)
    #: parameter -> the name the message gives it (a documented alias)
    aliases: dict[str, str] = field(default_factory=dict)
    #: parameter -> arguments changed while it is tested (DROP leaves one out), for
    #: parameters that exclude or need another
    alongside: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the function the errors name, when the documentation says they are another's
    reports_as: str | None = None


def _kw(**kwargs: Any) -> Callable[[Path], dict[str, Any]]:
    return lambda tmp: {k: (v() if callable(v) else v) for k, v in kwargs.items()}


RISK_COLUMNS = ("quasi_identifiers", "weights")
QI = {"qi": "quasi_identifiers"}  # the message names the documented role of `qi`
DROP = object()

CONTRACTS: dict[str, Contract] = {
    "check_k_anonymity": Contract(
        _kw(df=people, quasi_identifier_cols=["age", "sex"], k=2, weights="w"),
        frames=("df",),
        columns=("quasi_identifier_cols", "weights"),
        out_of_range={"k": 0},
        aliases={"quasi_identifier_cols": "quasi_identifiers"},
    ),
    "sample_frequencies": Contract(
        _kw(df=people, quasi_identifiers=["age", "sex"], k=2, weights="w"),
        frames=("df",),
        columns=RISK_COLUMNS,
        out_of_range={"k": 0},
    ),
    "safe_combinations": Contract(
        _kw(df=people, quasi_identifiers=["age", "sex", "region"], k=2, max_combi_size=3),
        frames=("df",),
        columns=("quasi_identifiers",),
        out_of_range={"k": 0, "min_combi_size": 0, "max_combi_size": 0},
    ),
    "local_suppression": Contract(
        _kw(df=people, qi=["age", "sex", "region"], k=2),
        frames=("df",),
        columns=("qi", "strata", "subject_id"),
        out_of_range={"k": 0, "combs": 0, "time_limit": -1.0},
        aliases=QI,
    ),
    "demo_suppression": Contract(
        _kw(df=people, qi=["age", "sex", "region"], k=2),
        frames=("df",),
        columns=("qi",),
        out_of_range={"k": 0},
        aliases=QI,
        # documented as local_suppression with the demo's settings, raising its errors
        reports_as="local_suppression",
    ),
    "min_missingness_max_deid": Contract(
        _kw(df=people, QI=["age", "sex", "region"], k=2, n_random_trials=2, seed=1),
        frames=("df",),
        columns=("QI", "excluded_features"),
        out_of_range={"k": 0, "maximum_missingness": 101, "step": 0, "n_random_trials": 0},
    ),
    "bin_numeric": Contract(
        _kw(data=people, column="income", width=100.0),
        frames=("data",),
        columns=("column",),
        out_of_range={"width": 0.0, "bins": 0},
        alongside={"bins": {"width": DROP}},  # 'bins' or 'width', not both
    ),
    "top_code": Contract(
        _kw(data=people, column="income", threshold=300.0, value=300.0),
        frames=("data",),
        columns=("column",),
        out_of_range={"value": float("inf")},
    ),
    "bottom_code": Contract(
        _kw(data=people, column="income", threshold=80.0, value=80.0),
        frames=("data",),
        columns=("column",),
        out_of_range={"value": float("nan")},
    ),
    "group_categories": Contract(
        _kw(data=people, column="dis", groups={"xy": ["x", "y"]}),
        frames=("data",),
        columns=("column",),
        out_of_range={"groups": {"xy": []}},
    ),
    "merge_rare_categories": Contract(
        _kw(data=people, column="dis", min_count=3),
        frames=("data",),
        any_value={"other_label": ANY_LABEL},
        columns=("column",),
        out_of_range={"min_count": 0},
    ),
    "collapse_subjects": Contract(
        _kw(df=people, subject_id="hid", qi=["age", "sex"], keep=["town"]),
        frames=("df",),
        columns=("subject_id", "qi", "keep"),
        aliases=QI,
    ),
    "restore_subjects": Contract(
        lambda tmp: _collapsed(),
        frames=("original_df", "anonymised"),
    ),
    "risk_summary": Contract(
        _kw(
            df=people,
            quasi_identifiers=["age", "sex"],
            k=2,
            weights="w",
            hid="hid",
            sensitive=["dis"],
        ),
        frames=("df",),
        columns=(*RISK_COLUMNS, "hid", "sensitive"),
        out_of_range={"k": 0, "risk_threshold": -0.5, "l": 0},
    ),
    "pattern_risk_summary": Contract(
        _kw(
            fk=lambda: np.array([1.0, 2.0, 3.0]),
            Fk=lambda: np.array([5.0, 10.0, 20.0]),
            records=lambda: np.array([1, 2, 3]),
            k=2,
        ),
        out_of_range={"k": 0, "risk_threshold": -0.5, "missing_qi_cells": -1},
    ),
    "suda": Contract(
        _kw(
            df=people,
            quasi_identifiers=["age", "sex", "region"],
            max_msu=2,
            strata="town",
            msus_of=[0],
        ),
        frames=("df",),
        columns=("quasi_identifiers", "strata"),
        out_of_range={"max_msu": 0, "dis_fraction": 1.0, "msus_of": [99], "threads": 3},
    ),
    "individual_risk": Contract(
        _kw(df=people, quasi_identifiers=["age", "sex"], weights="w"),
        frames=("df",),
        columns=RISK_COLUMNS,
    ),
    "global_risk": Contract(
        _kw(df=people, quasi_identifiers=["age", "sex"], weights="w", hid="hid"),
        frames=("df",),
        columns=(*RISK_COLUMNS, "hid"),
    ),
    "household_risk": Contract(
        _kw(df=people, quasi_identifiers=["age", "sex"], hid="hid", weights="w"),
        frames=("df",),
        columns=(*RISK_COLUMNS, "hid"),
    ),
    "household_risk_from_individual": Contract(
        _kw(risk=[0.5, 0.2, 0.1], households=[1, 1, 2]),
        out_of_range={"risk": [1.5, 0.2, 0.1], "households": [1, 1]},
    ),
    "l_diversity": Contract(
        _kw(
            df=people,
            quasi_identifiers=["age", "sex"],
            sensitive="dis",
            kind="recursive",
            c=2.0,
            l=1,
        ),
        frames=("df",),
        columns=("quasi_identifiers", "sensitive"),
        out_of_range={"c": 0.0, "l": 0},
    ),
    "linked_columns": Contract(
        _kw(df=people, key_variables=["age", "sex"], columns=["region"], share=0.9, min_count=1),
        frames=("df",),
        columns=("key_variables", "columns"),
        out_of_range={"share": 1.5, "min_count": 0},
    ),
    "recoverable_cells": Contract(
        _kw(
            original=people,
            released=people,
            key_variables=["age", "sex"],
            columns=["region"],
            share=0.9,
            min_count=1,
        ),
        frames=("original", "released"),
        columns=("key_variables", "columns"),
        out_of_range={"share": 1.5, "min_count": 0},
    ),
    "prosecutor_risk": Contract(
        _kw(original=people, released=people, quasi_identifiers=["age", "sex"]),
        frames=("original", "released"),
        columns=("quasi_identifiers",),
    ),
    "linkage_risk": Contract(
        _kw(original=people, released=people, columns=["income", "w"]),
        frames=("original", "released"),
        columns=("columns",),
    ),
    "interval_risk": Contract(
        _kw(original=people, released=people, columns=["income"], fraction_of_sd=0.1),
        frames=("original", "released"),
        columns=("columns",),
        out_of_range={"fraction_of_sd": 0.0},
    ),
    "continuous_utility": Contract(
        _kw(original=people, released=people, columns=["income", "w"], by="region", weights="w"),
        frames=("original", "released"),
        columns=("columns", "by", "weights"),
    ),
    "lorenz_curve": Contract(
        lambda tmp: {"values": people()["income"], "weights": people()["w"]},
        any_value={"values": "a Series of amounts", "weights": "a Series of weights"},
    ),
    "suppressed_cells": Contract(
        _kw(original=people, anonymised=people, columns=["age"]),
        frames=("original", "anonymised"),
        columns=("columns",),
    ),
    "microaggregate": Contract(
        _kw(df=people, columns=["income"], k=2, weights="w", strata="region", block_size=100),
        frames=("df",),
        columns=("columns", "weights", "strata"),
        out_of_range={"k": 0, "n_groups": 0, "block_size": 1},
    ),
    "add_noise": Contract(
        _kw(df=people, columns=["income"], weights="w", lower=0.0, upper=1000.0, seed=1),
        frames=("df",),
        columns=("columns", "weights", "totals"),
        out_of_range={"relative_sd": -1.0, "outlier_threshold": 0.0},
    ),
    "pram": Contract(
        _kw(df=people, columns=["dis", "town"], strata="region", seed=1),
        frames=("df",),
        columns=("columns", "strata", "hid", "together", "linked", "where"),
        out_of_range={"pd": 1.5, "alpha": 1.5},
    ),
    "pram_estimate": Contract(
        lambda tmp: {"released": people(), "result": microsdc.pram(people(), "dis", seed=1)},
        frames=("released",),
    ),
    "record_swap": Contract(
        lambda tmp: _swap_call(),
        frames=("data",),
        columns=("hid", "hierarchy", "similar", "risk_variables", "carry_along", "checked_columns"),
        out_of_range={"swaprate": 1.5, "k_anonymity": -1, "risk_threshold": -1.0},
        alongside={"risk": {"risk_threshold": 0.5}},  # a risk goes with its threshold
    ),
    "record_swap_result": Contract(
        lambda tmp: _swap_call(),
        frames=("data",),
        columns=("hid", "hierarchy", "similar", "risk_variables", "carry_along", "checked_columns"),
        out_of_range={"swaprate": 1.5, "k_anonymity": -1, "risk_threshold": -1.0},
        alongside={"risk": {"risk_threshold": 0.5}},
        # documented as record_swap returning the whole result, raising its errors
        reports_as="record_swap",
    ),
    "level_risk": Contract(
        _kw(data=census, hid="hid", hierarchy=HIER, risk_variables=["ageGroup"]),
        frames=("data",),
        columns=("hid", "hierarchy", "risk_variables"),
    ),
    "renumber_households": Contract(
        _kw(data=census, hid="hid", seed=1),
        frames=("data",),
        columns=("hid",),
    ),
    "swap_utility": Contract(
        lambda tmp: _swap_utility(),
        frames=("original", "swapped"),
        columns=("hid", "hierarchy", "risk_variables"),
    ),
    "swap_utility_summary": Contract(
        lambda tmp: _summary(),
        out_of_range={"max_areas": -1},
    ),
    "synthetic_census": Contract(
        _kw(n_households=20, seed=1),
        out_of_range={"n_households": 0},
    ),
    "load_adult": Contract(_kw()),
    "encode_qis": Contract(
        _kw(df=people, qi=["age", "sex"], func="encode_qis", warn_cardinality=True),
        frames=("df",),
        columns=("qi",),
        aliases=QI,
    ),
    "read_table": Contract(
        _read,
        columns=("columns",),
    ),
    "write_table": Contract(
        _write,
        frames=("df",),
    ),
    "load_job": Contract(
        lambda tmp: {"path": _job(tmp), "check_files": True},
    ),
    "run_job": Contract(
        lambda tmp: {"job": _job(tmp), "output_dir": tmp / "elsewhere"},
        any_value={"console": ANY_CONSOLE},
    ),
    "render_report": Contract(_audit),
}


def _public_functions() -> dict[str, Callable[..., Any]]:
    found: dict[str, Callable[..., Any]] = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for public in module.__all__:
            obj = getattr(module, public)
            if inspect.isfunction(obj):
                found.setdefault(public, obj)
    return found


PUBLIC = _public_functions()


def _parameters(name: str) -> list[str]:
    """The parameters the contract checks: the signature's, less frames, any-value ones
    and ``**kwargs``."""
    contract = CONTRACTS[name]
    return [
        p.name
        for p in inspect.signature(PUBLIC[name]).parameters.values()
        if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
        and p.name not in contract.frames
        and p.name not in contract.any_value
    ]


WRONG_TYPE = [(name, param) for name in sorted(CONTRACTS) for param in _parameters(name)]
OUT_OF_RANGE = [
    (name, param, value)
    for name in sorted(CONTRACTS)
    for param, value in CONTRACTS[name].out_of_range.items()
]


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_every_public_function_has_a_contract() -> None:
    assert sorted(PUBLIC) == sorted(CONTRACTS)


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_exceptions_name_real_parameters(name: str) -> None:
    contract = CONTRACTS[name]
    params = set(inspect.signature(PUBLIC[name]).parameters)
    listed = {*contract.frames, *contract.any_value, *contract.columns, *contract.out_of_range}
    assert listed <= params


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_the_valid_call_works(name: str, tmp_path: Path) -> None:
    PUBLIC[name](**CONTRACTS[name].valid(tmp_path))


def _expect(name: str, param: str, value: Any, tmp: Path) -> None:
    contract = CONTRACTS[name]
    kwargs = contract.valid(tmp)
    for other, given in contract.alongside.get(param, {}).items():
        if given is DROP:
            del kwargs[other]
        else:
            kwargs[other] = given
    kwargs[param] = value
    allowed: tuple[type[Exception], ...] = (InvalidParameterError,)
    if param in contract.columns:
        allowed = (InvalidParameterError, ColumnNotFoundError)
    with pytest.raises(allowed) as info:
        PUBLIC[name](**kwargs)
    assert info.value.param == contract.aliases.get(param, param), str(info.value)
    assert info.value.func == (contract.reports_as or name), str(info.value)


@pytest.mark.parametrize(("name", "param"), WRONG_TYPE)
def test_an_object_of_no_valid_type_is_refused(name: str, param: str, tmp_path: Path) -> None:
    _expect(name, param, object(), tmp_path)


@pytest.mark.parametrize(("name", "param", "value"), OUT_OF_RANGE)
def test_a_value_out_of_range_is_refused(name: str, param: str, value: Any, tmp_path: Path) -> None:
    _expect(name, param, value, tmp_path)
