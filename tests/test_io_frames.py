"""write_table and file_metadata on polars DataFrames and pyarrow Tables: the file holds
what the same rows in pandas would give, with nothing lost on the way (integers with
nulls, NaN apart from null, the labels a pyarrow table carries)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import microsdc
from microsdc.exceptions import InvalidParameterError
from microsdc.io import file_metadata, read_table, write_table

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pyreadstat = pytest.importorskip("pyreadstat")


def _with_nulls() -> object:
    return pl.DataFrame(
        {
            "n": [1, None, 3],
            "b": [True, None, False],
            "x": [1.5, float("nan"), None],
            "s": ["p", None, "q"],
            "c": ["u", "v", "u"],
        }
    ).with_columns(pl.col("c").cast(pl.Categorical))


@pytest.mark.parametrize("kind", ["polars", "pyarrow"])
def test_a_csv_file_writes_integers_with_nulls_as_integers(kind: str, tmp_path: Path) -> None:
    frame = _with_nulls()
    native = frame if kind == "polars" else frame.to_arrow()
    write_table(native, tmp_path / "out.csv")
    # not "1.0" and "3.0", as the float column pandas' default conversion makes
    assert (tmp_path / "out.csv").read_text() == "n,b,x,s,c\n1,True,1.5,p,u\n,,,,v\n3,False,,q,u\n"


@pytest.mark.parametrize("kind", ["polars", "pyarrow"])
def test_a_parquet_file_keeps_the_types_and_nan_apart_from_null(kind: str, tmp_path: Path) -> None:
    frame = _with_nulls()
    native = frame if kind == "polars" else frame.to_arrow()
    write_table(native, tmp_path / "out.parquet")
    back = pq.read_table(tmp_path / "out.parquet")
    assert [str(t) for t in back.schema.types[:4]] == ["int64", "bool", "double", "large_string"]
    assert pa.types.is_dictionary(back.schema.types[4])
    assert back.column("n").to_pylist() == [1, None, 3]
    assert back.column("b").to_pylist() == [True, None, False]
    x = back.column("x").to_pylist()
    assert x[0] == 1.5 and np.isnan(x[1]) and x[2] is None  # NaN stays NaN, null stays null
    assert pl.read_parquet(tmp_path / "out.parquet").equals(frame, null_equal=True)


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".sav", ".dta"])
def test_the_file_is_the_one_pandas_writes(suffix: str, tmp_path: Path) -> None:
    df = microsdc.synthetic_census(30, seed=2)
    write_table(df, tmp_path / f"pandas{suffix}")
    want = read_table(tmp_path / f"pandas{suffix}")
    for kind, native in (("polars", pl.from_pandas(df)), ("pyarrow", pa.Table.from_pandas(df))):
        write_table(native, tmp_path / f"{kind}{suffix}")
        got = read_table(tmp_path / f"{kind}{suffix}")
        pd.testing.assert_frame_equal(got, want)
        if suffix == ".csv":
            assert (tmp_path / f"{kind}{suffix}").read_bytes() == (
                tmp_path / f"pandas{suffix}"
            ).read_bytes()


def _labelled(tmp_path: Path) -> pd.DataFrame:
    df = pd.DataFrame({"sex": [1.0, 2.0, 1.0], "age": [30.0, 40.0, 50.0]})
    pyreadstat.write_sav(
        df,
        str(tmp_path / "in.sav"),
        column_labels={"sex": "Sex of the person", "age": "Age"},
        variable_value_labels={"sex": {1: "male", 2: "female"}},
    )
    return read_table(tmp_path / "in.sav")


def test_a_pyarrow_table_of_a_labelled_frame_keeps_its_labels(tmp_path: Path) -> None:
    """pyarrow stores a pandas frame's attrs (through JSON, which makes the codes texts:
    they are made numbers again, else the labels would no longer fit the column)."""
    df = _labelled(tmp_path)
    table = pa.Table.from_pandas(df)
    assert file_metadata(table) == file_metadata(df)
    assert file_metadata(table)["value_labels"] == {"sex": {1.0: "male", 2.0: "female"}}
    write_table(table, tmp_path / "out.sav")
    _, meta = pyreadstat.read_sav(str(tmp_path / "out.sav"))
    assert meta.variable_value_labels == {"sex": {1.0: "male", 2.0: "female"}}
    assert meta.column_names_to_labels == {"sex": "Sex of the person", "age": "Age"}


def test_a_labelled_pandas_frame_keeps_its_labels_through_the_dispatch(tmp_path: Path) -> None:
    df = _labelled(tmp_path)
    write_table(df, tmp_path / "out.sav")
    _, meta = pyreadstat.read_sav(str(tmp_path / "out.sav"))
    assert meta.variable_value_labels == {"sex": {1.0: "male", 2.0: "female"}}
    assert meta.column_names_to_labels["sex"] == "Sex of the person"


def test_stata_letters_survive_a_pyarrow_table(tmp_path: Path) -> None:
    df = pd.DataFrame(
        {"sex": [1, 2, 1, 2], "q": pd.array([1, "a", 2, "b"], dtype=object)},
    )
    labels = {1: "yes", 2: "no", "a": "refused", "b": "don't know"}
    pyreadstat.write_dta(
        df,
        tmp_path / "in.dta",
        missing_user_values={"q": ["a", "b"]},
        variable_value_labels={"q": labels},
    )
    table = pa.Table.from_pandas(read_table(tmp_path / "in.dta"))
    write_table(table, tmp_path / "out.dta")
    back, meta = pyreadstat.read_dta(str(tmp_path / "out.dta"), user_missing=True)
    assert [v if isinstance(v, str) else int(v) for v in back["q"]] == [1, "a", 2, "b"]
    assert meta.variable_value_labels["q"] == labels


def test_frames_without_labels_have_no_metadata() -> None:
    df = pd.DataFrame({"a": [1, 2]})
    assert file_metadata(pl.from_pandas(df)) == {}
    assert file_metadata(pl.from_pandas(df).lazy()) == {}
    assert file_metadata(pa.Table.from_pandas(df)) == {}
    assert file_metadata(pa.table({"a": [1, 2]})) == {}


def test_a_lazy_frame_is_refused_with_how_to_collect(tmp_path: Path) -> None:
    with pytest.raises(InvalidParameterError) as info:
        write_table(_with_nulls().lazy(), tmp_path / "out.csv")  # type: ignore[attr-defined]
    assert str(info.value) == (
        "write_table needs the rows in memory; got a lazy polars frame. "
        "Collect it first (polars: .collect())."
    )
    assert not (tmp_path / "out.csv").exists()
