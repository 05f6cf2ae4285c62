"""The count follows what is written: values equal to each other but written apart
(-0.0 and 0.0; 1, 1.0 and True in an object column) are separate categories."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microsdc
from microsdc.exceptions import DataValidationError, SDCWarning

POOL = [-0.0, 0.0, 1, 1.0, True, False, 0, "1", "x", Decimal("1"), Decimal("1.0"),
        np.float64(1.0), np.int64(1), None]  # fmt: skip


def _written(df: pd.DataFrame, path: Path) -> list[str]:
    microsdc.write_table(df, path)
    with open(path, newline="", encoding="utf-8") as fh:
        return [row[0] for row in list(csv.reader(fh))[1:]]


def test_object_column_hand_computed(tmp_path: Path) -> None:
    df = pd.DataFrame({"a": pd.array([-0.0, 0.0, 1, 1.0, True, "x"], dtype=object)})
    assert _written(df, tmp_path / "a.csv") == ["-0.0", "0.0", "1", "1.0", "True", "x"]
    with pytest.warns(SDCWarning, match=r"key variable 'a' mixes numbers and texts .*\(1 / 1\.0\)"):
        assert microsdc.sample_frequencies(df, ["a"], k=2)["fk"].tolist() == [1] * 6
    with pytest.warns(SDCWarning, match="mixes numbers and texts"):
        n_at_risk, summary = microsdc.check_k_anonymity(df, ["a"], 2)
    assert n_at_risk == 6 and len(summary) == 6


def test_float_column_negative_zero() -> None:
    df = pd.DataFrame({"a": [-0.0, 0.0, 0.0, 1.0, 1.0], "b": ["p"] * 5})
    assert microsdc.sample_frequencies(df, ["a", "b"], k=2)["fk"].tolist() == [1, 2, 2, 2, 2]
    res = microsdc.local_suppression(df, ["a", "b"], 2, missing="wildcard")
    out = res.data["a"].tolist()
    assert np.isnan(out[0]) and out[1:] == [0.0, 0.0, 1.0, 1.0]
    enc = microsdc.encode_qis(df, ["a"])
    decoded = enc.decode()["a"].tolist()
    assert [np.signbit(v) for v in decoded] == [True, False, False, False, False]


def test_a_declared_missing_code_covers_both_zeros() -> None:
    df = pd.DataFrame({"a": [-0.0, 0.0, 1.0]})
    fk = microsdc.sample_frequencies(df, ["a"], k=2, missing_values=[0])["fk"].tolist()
    assert fk == [3, 3, 3]  # both zeros are missing: wildcards


@pytest.mark.filterwarnings("ignore:key variable .* mixes numbers and texts:UserWarning")
@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.sampled_from(POOL), min_size=1, max_size=12))
def test_one_category_is_one_written_text(values: list[object]) -> None:
    df = pd.DataFrame({"a": pd.array(values, dtype=object)})
    buffer = io.StringIO()
    df.to_csv(buffer, index=False)
    texts = [row[0] for row in list(csv.reader(io.StringIO(buffer.getvalue())))[1:]]
    codes = microsdc.encode_qis(df, ["a"]).codes[:, 0]
    for i in range(len(values)):
        for j in range(len(values)):
            if codes[i] >= 0 and codes[i] == codes[j]:
                assert texts[i] == texts[j], (values[i], values[j])
    # fk counts the records of the same category, never more than share the text
    fk = microsdc.sample_frequencies(df, ["a"], k=1, missing="category")["fk"].tolist()
    for i in range(len(values)):
        assert fk[i] <= sum(t == texts[i] for t in texts)


@pytest.mark.parametrize("kind", ["polars", "pyarrow"])
def test_eager_engines_count_zeros_apart(kind: str) -> None:
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"a": [-0.0, 0.0, 0.0, 1.0, 1.0]})
    df = frame if kind == "polars" else frame.to_arrow()
    fk = pl.from_arrow(microsdc.sample_frequencies(df, ["a"], k=2)["fk"]).to_list()
    assert fk == [1, 2, 2, 2, 2]


@pytest.mark.parametrize("kind", ["polars lazy", "duckdb"])
@pytest.mark.parametrize("func", ["sample_frequencies", "check_k_anonymity", "local_suppression"])
def test_lazy_engines_refuse_both_zeros(kind: str, func: str) -> None:
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    frame = pl.DataFrame({"a": [-0.0, 0.0, 0.0, 1.0, 1.0]})
    df = frame.lazy() if kind == "polars lazy" else duckdb.from_arrow(frame.to_arrow())
    call = getattr(microsdc, func)
    with pytest.raises(DataValidationError, match=r"'a' .* -0\.0 in 1 record\(s\) and 0\.0 in 2"):
        call(df, ["a"], k=2) if func == "sample_frequencies" else call(df, ["a"], 2)
    # one zero only: nothing to refuse
    same = frame.with_columns(pl.col("a").abs())
    ok = same.lazy() if kind == "polars lazy" else duckdb.from_arrow(same.to_arrow())
    call(ok, ["a"], k=2) if func == "sample_frequencies" else call(ok, ["a"], 2)
