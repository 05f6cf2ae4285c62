"""Each job key passed on to a library parameter accepts exactly what that parameter accepts.

The pairs (job key -> library function and parameter) come from the schema
(:func:`microsdc.job.schema.library_keys`); every pair is tried with one pool of
TOML values. A value is refused by the library when the call raises
:class:`~microsdc.exceptions.InvalidParameterError` naming the parameter.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

from microsdc.exceptions import InvalidParameterError
from microsdc.job.schema import KEY_DOCS, SCHEMA, _Key, _shown, default_of, library_keys

#: Values a TOML file can hold, of every kind the job's keys take and refuse.
POOL: list[Any] = [
    -1,
    0,
    1,
    2,
    3,
    10,
    -0.5,
    0.0,
    0.05,
    0.5,
    1.0,
    1.5,
    math.nan,
    math.inf,
    True,
    False,
    "",
    "x",
    "wildcard",
    "category",
    "probabilistic",
    "conservative",
    "alpha=0.5",
    "alpha=2",
    "greedy",
    "exact",
    "random",
    "distinct",
    "entropy",
    "recursive",
    "keep",
    "state",
    "mdav",
    "optimal",
    "mean",
    "median",
    "additive",
    "correlated",
    [],
    [2],
    {"a": 1},
]

_RNG = np.random.default_rng(7)
_N = 60
DATA = pd.DataFrame(
    {
        "hid": np.repeat(np.arange(_N // 3), 3),
        "region": np.repeat(_RNG.integers(0, 3, _N // 3), 3),
        "sex": _RNG.integers(0, 2, _N),
        "age": _RNG.integers(0, 4, _N),
        "income": _RNG.integers(0, 3, _N),
    }
)
QI = ["sex", "age"]

#: A valid call of each library function a job key is passed to, but for one parameter.
CALLS: dict[str, Callable[..., Any]] = {
    "check_k_anonymity": lambda **kw: __import__("microsdc").check_k_anonymity(
        DATA, QI, **{"k": 2, **kw}
    ),
    "sample_frequencies": lambda **kw: __import__("microsdc").sample_frequencies(DATA, QI, **kw),
    "l_diversity": lambda **kw: __import__("microsdc").l_diversity(
        DATA, QI, "income", **{"kind": "recursive", "c": 2.0, "l": 2, **kw}
    ),
    # the sampling fraction goes with a DIS-SUDA threshold (refused alone)
    "local_suppression": lambda **kw: __import__("microsdc").local_suppression(
        DATA, QI, 2, **({"dis_suda_threshold": 0.5} if "dis_fraction" in kw else {}), **kw
    ),
    "suda": lambda **kw: __import__("microsdc").suda(DATA, QI, **kw),
    "record_swap_result": lambda **kw: __import__("microsdc").record_swap_result(
        DATA, "hid", ["region"], None, **{"risk_variables": QI, "seed": 1, **kw}
    ),
    "pram": lambda **kw: __import__("microsdc").pram(DATA, ["age"], **{"seed": 1, **kw}),
    # the number of groups goes with the quantile method (refused with another)
    "microaggregate": lambda **kw: __import__("microsdc").microaggregate(
        DATA, ["income"], **{"k": 2, **({"method": "quantile"} if "n_groups" in kw else {}), **kw}
    ),
    "group_categories": lambda **kw: __import__("microsdc").group_categories(
        DATA, "age", **{"groups": {"low": [0, 1]}, **kw}
    ),
    "merge_rare_categories": lambda **kw: __import__("microsdc").merge_rare_categories(
        DATA, "age", **{"min_count": 2, **kw}
    ),
    "top_code": lambda **kw: __import__("microsdc").top_code(
        DATA, "income", **{"threshold": 1, **kw}
    ),
    "bottom_code": lambda **kw: __import__("microsdc").bottom_code(
        DATA, "income", **{"threshold": 1, **kw}
    ),
    "add_noise": lambda **kw: __import__("microsdc").add_noise(
        DATA, ["income"], **{"seed": 1, "method": "correlated", **kw}
    ),
}

PAIRS = library_keys()


def _spec(dotted: str) -> _Key:
    spec: Any = SCHEMA
    for part in dotted.split("."):
        spec = spec[part]
    assert isinstance(spec, _Key)
    return spec


def _library_accepts(func: Callable[..., Any], param: str, value: Any) -> bool:
    call = CALLS[func.__name__]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call(**{param: value})
        except InvalidParameterError as exc:
            if f"'{param}' parameter" in str(exc):
                return False
    return True


def test_pairs_come_from_the_schema() -> None:
    keys = {dotted for dotted, _, _ in PAIRS}
    assert {"risk.missing", "suppression.method", "swapping.swaprate"} <= keys
    for _, func, param in PAIRS:
        assert func.__name__ in CALLS
        assert param in inspect.signature(func).parameters


@pytest.mark.parametrize(("dotted", "func", "param"), PAIRS, ids=[p[0] for p in PAIRS])
def test_default_is_the_signature_default(dotted: str, func: Any, param: str) -> None:
    default = inspect.signature(func).parameters[param].default
    if default is inspect.Parameter.empty:  # the library has none: the job's own
        assert _spec(dotted).default is not inspect.Parameter.empty
        return
    assert default_of(dotted) == default
    shown = KEY_DOCS[dotted][0]
    if default is not None and _spec(dotted).follows is None:
        assert shown == _shown(default)


@pytest.mark.parametrize(("dotted", "func", "param"), PAIRS, ids=[p[0] for p in PAIRS])
def test_job_key_accepts_what_the_library_accepts(dotted: str, func: Any, param: str) -> None:
    spec = _spec(dotted)
    differ = []
    for value in POOL:
        job = spec.check(value)
        library = _library_accepts(func, param, value)
        if value in spec.refused:  # taken by the library, refused by the job on purpose
            assert library and not job, value
        elif value in spec.extra:  # taken by the job for a reason of its own
            assert job and not library, value
        elif job != library:
            differ.append((value, job, library))
    assert not differ, f"{dotted} -> {func.__name__}({param}=): (value, job, library) {differ}"
