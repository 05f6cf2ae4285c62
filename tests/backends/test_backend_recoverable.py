"""``local_suppression`` on a lazy frame checks in the engine, on counts, whether other
columns give blanked values back: ``details["recoverable"]`` and the warning are those
``recoverable_cells`` gives on the records of the same release (and those of pandas when
the engine blanks the same cells)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import microsdc
from microsdc.exceptions import DisclosureRiskWarning
from microsdc.risk.linked import recoverable_cells

pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")
pytest.importorskip("narwhals")

ENGINES = ["polars", "duckdb"]
_RID = "rid"


def _lazy(kind: str, df: pd.DataFrame) -> Any:
    if kind == "polars":
        return pl.from_pandas(df).lazy()
    return duckdb.connect().from_df(df)


def _run(kind: str, df: pd.DataFrame, qi: list[str], **kw: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = microsdc.local_suppression(_lazy(kind, df), qi, **kw)
    said = [str(w.message) for w in caught if issubclass(w.category, DisclosureRiskWarning)]
    return res, [s for s in said if "blanked values back" in s or "read back" in s]


def _released(kind: str, res: Any) -> pd.DataFrame:
    out = res.data.collect().to_pandas() if kind == "polars" else res.data.df()
    return out.sort_values(_RID).reset_index(drop=True)  # the input's order, by its row id


def _expected(df: pd.DataFrame, kind: str, res: Any, qi: list[str], mv: Any = None) -> Any:
    """recoverable_cells on the records of the engine's release (the row id aside: a
    column with a value per record gives nothing back)."""
    others = [c for c in df.columns if c not in qi and c != _RID]
    released = _released(kind, res)
    found = recoverable_cells(df, released, qi, columns=others, missing_values=mv)
    return found.to_dict("records")


def _with_id(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(**{_RID: np.arange(len(df))})


def _pairs(found: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[int, int]]:
    return {(r["key_variable"], r["column"]): (r["n_blanked"], r["n_recoverable"]) for r in found}


#: edu with a one-to-one code ``num`` (14 + 14 + 2 records: 10 per value, a code), a
#: column that is always the same (``sal``) and one that repeats the most frequent
#: value of ``nat`` (``lang``). The two ``z`` records are unique: blanked, ``z`` vanishes
#: from the release; ``num`` = 9 gives it back through the codebook.
CODE = pd.DataFrame(
    {
        "sex": ["m", "f"] * 7 + ["m", "f"] * 7 + ["m", "f"],
        "edu": ["a"] * 14 + ["b"] * 14 + ["z", "z"],
        "num": [1] * 14 + [2] * 14 + [9, 9],
        "nat": ["US"] * 26 + ["US", "MX", "CA", "US"],
        "lang": ["en"] * 30,
        "sal": ["<=50K"] * 30,
    }
)


@pytest.mark.parametrize("kind", ENGINES)
def test_a_code_gives_back_the_blanked_value_that_vanished(kind: str) -> None:
    df = _with_id(CODE)
    res, said = _run(kind, df, ["sex", "edu", "nat"], k=3)
    found = res.details["recoverable"]
    assert found == _expected(df, kind, res, ["sex", "edu", "nat"])
    pairs = _pairs(found)
    released = _released(kind, res)
    blanked = int(released["edu"].isna().sum())
    assert blanked >= 2 and released["edu"].isna()[28:].all()  # both z records
    assert pairs[("edu", "num")] == (blanked, blanked)  # every blanked edu cell
    # a column that repeats the most frequent value (or a constant) gives nothing back
    assert not [p for p in pairs if p[1] in ("lang", "sal", _RID)]
    assert len(said) == 1
    assert f"'edu' from 'num' ({blanked} of {blanked})" in said[0]
    assert said[0].startswith("Blanked cells can be read back from other columns: ")
    assert "Not checked here" not in " ".join(said)


@pytest.mark.parametrize("kind", ENGINES)
def test_the_pairs_are_those_of_pandas_on_the_same_cells(kind: str) -> None:
    df = _with_id(CODE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DisclosureRiskWarning)
        pandas = microsdc.local_suppression(df, ["sex", "edu", "nat"], k=3)
    res, _ = _run(kind, df, ["sex", "edu", "nat"], k=3)
    same = _released(kind, res)[["sex", "edu", "nat"]].astype(object)
    assert same.fillna("-").equals(pandas.data[["sex", "edu", "nat"]].astype(object).fillna("-"))
    assert res.details["recoverable"] == pandas.details["recoverable"]
    assert res.summary().count("can be read back from num") == 1


#: Declared missing codes: -9 is missing in the key ``edu`` (3 records) and in the column
#: ``num`` (4 records, first in row order); edu 3 (2 records) is unique per sex.
DECLARED = pd.DataFrame(
    {
        "sex": [1, 2] * 15,
        "edu": [-9, -9, -9] + [1] * 12 + [2] * 12 + [3, 3, 1],
        "num": [-9, -9, -9, -9] + [10] * 11 + [20] * 12 + [30, 30, 10],
        "other": [5] * 30,
    }
)


@pytest.mark.parametrize("kind", ENGINES)
def test_declared_missing_codes_count_as_missing(kind: str) -> None:
    """Under a measure policy a declared code is missing: the three -9 stay, one edu 3
    is blanked and the other (num 30 beside it) gives it back."""
    df = _with_id(DECLARED)
    res, said = _run(kind, df, ["sex", "edu"], k=3, missing_values=[-9], missing="wildcard")
    released = _released(kind, res)
    assert released["edu"].isna().tolist() == [False] * 27 + [True, False, False]
    assert (released["edu"] == -9).sum() == 3  # the codes stay
    found = res.details["recoverable"]
    assert found == _expected(df, kind, res, ["sex", "edu"], [-9])
    assert found == [
        {"key_variable": "edu", "column": "num", "n_blanked": 1, "n_recoverable": 1, "share": 1.0}
    ]
    assert len(said) == 1 and "'edu' from 'num' (1 of 1)" in said[0]


@pytest.mark.parametrize("kind", ENGINES)
def test_declared_codes_are_values_under_category(kind: str) -> None:
    """Under "category" a declared code is a value (as pandas counts it): the rare -9
    cells are blanked with the edu 3 ones, six cells, one given back (edu 3 by num 30)."""
    df = _with_id(DECLARED)
    res, said = _run(kind, df, ["sex", "edu"], k=3, missing_values=[-9])
    released = _released(kind, res)
    assert released["edu"].isna().tolist() == [True] * 3 + [False] * 24 + [True] * 3
    found = res.details["recoverable"]
    assert found == _expected(df, kind, res, ["sex", "edu"], None)
    assert _pairs(found) == {("edu", "num"): (6, 1)}
    assert len(said) == 1 and "'edu' from 'num' (1 of 6)" in said[0]


#: Under missing="category" the engine blanks the two records of (0, 1, 0) differently
#: (tests/backends/test_backend_category_split.py); ``cc`` is a copy of ``c``.
SPLIT = pd.DataFrame(
    {
        "a": [2, 0, 0, 0, 0, 2, 2, 1, 0, 0, 0, 1],
        "b": [1, 1, 0, 0, 2, 2, 0, 0, 1, 1, 2, 1],
        "c": [0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1],
    }
)


@pytest.mark.parametrize("kind", ENGINES)
def test_category_pieces(kind: str) -> None:
    df = _with_id(SPLIT.assign(cc=SPLIT["c"], x=[f"v{i}" for i in range(12)]))
    res, said = _run(kind, df, ["a", "b", "c"], k=3)
    assert res.n_cells == 21 and len(res.patterns) == 10  # (0, 1, 0) in two pieces
    assert res.cells_per_qi.tolist() == [6, 12, 3]
    found = res.details["recoverable"]
    assert found == _expected(df, kind, res, ["a", "b", "c"])
    # of the 3 blanked c cells, cc gives back the two whose value 3 or more shown
    # records share
    assert _pairs(found) == {("c", "cc"): (3, 2)}
    assert len(said) == 1 and "'c' from 'cc' (2 of 3)" in said[0]


@pytest.mark.parametrize("kind", ENGINES)
def test_adult_education_num_gives_education_back(kind: str) -> None:
    """The engine job of the report: every blanked education cell is given back by
    education-num, found and named as pandas finds them (not an arbitrary column)."""
    from microsdc.datasets import load_adult

    df = _with_id(load_adult().reset_index(drop=True))
    qi = ["age", "sex", "race", "marital-status", "education"]
    res, said = _run(kind, df, qi, k=3)
    found = res.details["recoverable"]
    assert found == _expected(df, kind, res, qi)
    n = int(_released(kind, res)["education"].isna().sum() - df["education"].isna().sum())
    assert n > 100
    assert found[0] == {
        "key_variable": "education",
        "column": "education-num",
        "n_blanked": n,
        "n_recoverable": n,
        "share": 1.0,
    }
    assert len(said) == 1 and f"'education' from 'education-num' ({n:,} of {n:,})" in said[0]
    assert "workclass" not in said[0] and "Not checked here" not in said[0]


_KEY = st.sampled_from([None, 0, 1, 2])


@st.composite
def _frames(draw: Any) -> pd.DataFrame:
    n = draw(st.integers(6, 40))
    k1 = draw(st.lists(_KEY, min_size=n, max_size=n))
    k2 = draw(st.lists(st.sampled_from([-9, 0, 1, 2, 3]), min_size=n, max_size=n))
    noise = draw(st.lists(st.sampled_from([None, -9, 0, 1]), min_size=n, max_size=n))
    code = {None: 7, 0: 10, 1: 11, 2: 12}
    return pd.DataFrame(
        {
            "k1": pd.array(k1, dtype="Int64"),
            "k2": k2,
            "f": [code[v] for v in k1],  # a code of k1
            "g": [f"t{v}" for v in k2],  # a code of k2
            "noise": pd.array(noise, dtype="Int64"),
            "const": ["x"] * n,
        }
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    df=_frames(),
    k=st.integers(2, 3),
    declared=st.booleans(),
    missing=st.sampled_from(["category", "wildcard"]),
)
def test_engines_agree_with_recoverable_cells(
    df: pd.DataFrame, k: int, declared: bool, missing: str
) -> None:
    """pandas, polars and DuckDB: details["recoverable"] is recoverable_cells on each
    release (declared codes missing as the policy counts them), and where an engine
    blanks the cells pandas blanks, the pairs are those of pandas."""
    qi = ["k1", "k2"]
    mv = [-9] if declared else None
    counted = mv if missing == "wildcard" else None
    data = _with_id(df)
    kw: dict[str, Any] = {"missing_values": mv, "missing": missing}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DisclosureRiskWarning)
        pandas = microsdc.local_suppression(data, qi, k, **kw)
    for kind in ENGINES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DisclosureRiskWarning)
            res = microsdc.local_suppression(_lazy(kind, data), qi, k, **kw)
        found = res.details["recoverable"]
        event("pairs found" if found else "no pair")
        assert found == _expected(data, kind, res, qi, counted)
        released = _released(kind, res)[qi].astype(object).fillna("-")
        if released.equals(pandas.data[qi].astype(object).fillna("-")):
            assert found == pandas.details["recoverable"]


def test_spark_finds_what_the_records_give(spark: Any) -> None:
    """Spark runs the same group-bys: the pairs of recoverable_cells on its release."""
    import pyarrow as pa

    df = _with_id(CODE)
    sdf = spark.createDataFrame(pa.Table.from_pandas(df, preserve_index=False))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = microsdc.local_suppression(sdf, ["sex", "edu", "nat"], k=3)
    released = res.data.toArrow().to_pandas().sort_values(_RID).reset_index(drop=True)
    others = ["num", "lang", "sal"]
    want = recoverable_cells(df, released, ["sex", "edu", "nat"], columns=others)
    found = res.details["recoverable"]
    assert found == want.to_dict("records")
    blanked = int(released["edu"].isna().sum())
    assert _pairs(found)[("edu", "num")] == (blanked, blanked) and blanked >= 2
    said = [str(w.message) for w in caught if "read back from other columns" in str(w.message)]
    assert len(said) == 1 and f"'edu' from 'num' ({blanked} of {blanked})" in said[0]


@pytest.mark.parametrize("kind", ENGINES)
def test_a_column_of_distinct_values_is_not_counted_and_changes_nothing(kind: str) -> None:
    # 'serial' holds a value per record (nothing to give back: no other record shares a
    # blanked cell's value), so the engine leaves it out without counting it; 'years'
    # repeats its values (one per education) and is counted and found; 'twice' is
    # distinct but for one shared value, so it is counted.
    from microsdc.risk.engine_readback import _repeated

    educ = ["BA"] * 30 + ["MA"] * 30 + ["PhD"]
    df = _with_id(
        pd.DataFrame(
            {
                "educ": educ,
                "years": [{"BA": 16, "MA": 18, "PhD": 21}[e] for e in educ],
                "serial": np.arange(100, 161),
                "twice": [0, *range(60)],
            }
        )
    )
    frame = _lazy(kind, df)
    assert _repeated(frame, ["years", "serial", "twice", _RID]) == ["years", "twice"]
    res, said = _run(kind, df, ["educ"], k=2)
    # under "category" the PhD's blank needs a blank companion: a BA or an MA, whose
    # years (16 or 18, shared with 29 others) give it back; the PhD's 21 is its own
    assert res.n_cells == 2
    assert res.details["recoverable"] == _expected(df, kind, res, ["educ"])
    assert res.details["recoverable"][0] == {
        "key_variable": "educ", "column": "years", "n_blanked": 2, "n_recoverable": 1,
        "share": 0.5,
    }  # fmt: skip
    assert "'educ' from 'years' (1 of 2)" in said[0]
