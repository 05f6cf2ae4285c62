"""Reading and writing data files: round trips, missing strings, bad files, safe writes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microsdc import ColumnNotFoundError, DataValidationError, InvalidParameterError
from microsdc.io import check_output_path, read_columns, read_table, write_table

FRAME = pd.DataFrame(
    {
        "region": ["north", None, "south", "south"],
        "age": [23.0, 41.0, np.nan, 41.0],
        "sex": ["f", "m", "f", None],
    }
)


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz", ".tsv", ".parquet", ".sav", ".zsav", ".dta"])
def test_round_trip_keeps_values_and_missing(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"data{suffix}"
    write_table(FRAME, path)
    back = read_table(path)
    assert list(back.columns) == list(FRAME.columns)
    assert read_columns(path) == list(FRAME.columns)
    # a missing string comes back missing in every format (SPSS and Stata store it as "")
    assert back["region"].isna().tolist() == [False, True, False, False]
    assert back["sex"].isna().tolist() == [False, False, False, True]
    assert back["age"].isna().tolist() == [False, False, True, False]
    assert back["region"].dropna().tolist() == ["north", "south", "south"]
    assert [f for f in tmp_path.iterdir() if f.name.startswith(".")] == []


def test_read_only_some_columns_and_unknown_ones_listed(tmp_path: Path) -> None:
    path = tmp_path / "d.parquet"
    write_table(FRAME, path)
    assert list(read_table(path, columns=["sex"]).columns) == ["sex"]
    with pytest.raises(ColumnNotFoundError, match=r"2 column\(s\) not in d.parquet: 'x', 'y'"):
        read_table(path, columns=["sex", "x", "y"])


def test_duplicate_csv_header_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "dup.csv"
    path.write_text("a,b,a\n1,2,3\n")
    with pytest.raises(DataValidationError, match="duplicate column names: 'a'"):
        read_table(path)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.parquet", b"not parquet at all", "Cannot read bad.parquet as a Parquet file"),
        ("bad.sav", b"\x00\x01garbage", "Cannot read bad.sav as an SPSS file"),
        ("bad.dta", b"garbage", "Cannot read bad.dta as a Stata file"),
        ("empty.csv", b"", "empty.csv is empty: it has no header line"),
        ("latin.csv", "a,b\n1,\xe9t\xe9\n".encode("latin-1"), "is not UTF-8"),
    ],
)
def test_unreadable_files_give_one_clear_error(
    tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DataValidationError, match=message):
        read_table(path)


def test_latin1_readable_with_encoding(tmp_path: Path) -> None:
    path = tmp_path / "latin.csv"
    path.write_bytes("a,b\n1,\xe9t\xe9\n".encode("latin-1"))
    assert read_table(path, encoding="latin-1")["b"].tolist() == ["été"]


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
def test_a_byte_that_is_not_utf8_is_placed_in_the_file(tmp_path: Path, suffix: str) -> None:
    # pandas decodes by blocks and reports a position within its block; the message
    # gives the offset and the line in the file (here past the first MiB)
    import gzip

    lines = ["a,b"] + [f"{i},x{i:07d}" for i in range(120_000)] + ["1,caf\xe9"]
    raw = "\n".join(lines).encode("latin-1")
    path = tmp_path / f"late{suffix}"
    path.write_bytes(gzip.compress(raw) if suffix.endswith(".gz") else raw)
    offset = raw.index(b"\xe9")
    assert offset > 1 << 20
    with pytest.raises(DataValidationError) as err:
        read_table(path)
    assert f"the byte 0xe9 at byte offset {offset:,} (line 120,002) is not UTF-8" in str(err.value)


def test_first_undecodable_across_blocks(tmp_path: Path) -> None:
    from microsdc.io import first_undecodable

    path = tmp_path / "t.csv"
    # a two-byte UTF-8 letter split by the 1 MiB block boundary is fine; a stray
    # continuation byte on line 3 is not
    body = b"a" * ((1 << 20) - 1) + "\u00e9".encode() + b"\nok\n\x80\n"
    path.write_bytes(body)
    assert first_undecodable(path, "utf-8") == (len(body) - 2, 3, 0x80)
    path.write_bytes(b"all fine\n")
    assert first_undecodable(path, "utf-8") is None


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_first_undecodable_counts_lines_of_any_ending(tmp_path: Path, newline: bytes) -> None:
    from microsdc.io import first_undecodable

    path = tmp_path / "t.csv"
    body = newline.join([b"a,b", b"1,2", b"3,\xe9", b"5,6"])
    path.write_bytes(body)
    assert first_undecodable(path, "utf-8") == (body.index(b"\xe9"), 3, 0xE9)


def test_first_undecodable_crlf_split_by_the_block_boundary(tmp_path: Path) -> None:
    from microsdc.io import first_undecodable

    path = tmp_path / "t.csv"
    # CR ends the first 1 MiB block, its LF opens the next: one line break, not two
    body = b"a" * ((1 << 20) - 1) + b"\r\nok\r\n\x80\r\n"
    path.write_bytes(body)
    assert first_undecodable(path, "utf-8") == (len(body) - 3, 3, 0x80)


def test_csv_written_in_the_encoding_asked(tmp_path: Path) -> None:
    df = pd.DataFrame({"town": ["Liège", "Namur"], "n": [1, 2]})
    path = tmp_path / "out.csv"
    write_table(df, path, encoding="latin-1")
    assert path.read_bytes() == "town,n\nLiège,1\nNamur,2\n".encode("latin-1")
    write_table(df, path)  # UTF-8 by default
    assert path.read_bytes() == "town,n\nLiège,1\nNamur,2\n".encode()


def test_csv_text_is_read_as_written(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text(
        "code,country,rate,n,w,price,same,blank\n"
        "01,NA,1.10,3,1,2.5,2,\n"
        "1,DE,1.1,,2,3,2.0,\n"
        "-0,NULL,0.5,-4,3,0.25,3,\n"
    )
    df = read_table(path)
    # "01", "1" and "-0" are three codes; "NA" and "NULL" are values (Namibia); "1.10"
    # and "1.1" are two codes; "2" and "2.0" too
    assert df["code"].tolist() == ["01", "1", "-0"]
    assert df["country"].tolist() == ["NA", "DE", "NULL"]
    assert df["rate"].tolist() == ["1.10", "1.1", "0.5"]
    assert df["same"].tolist() == ["2", "2.0", "3"]
    # numbers where no text is lost: integers (nullable with a blank), floats
    assert str(df["n"].dtype) == "Int64" and df["n"].isna().tolist() == [False, True, False]
    assert str(df["w"].dtype) == "int64" and df["w"].tolist() == [1, 2, 3]
    assert str(df["price"].dtype) == "float64" and df["price"].tolist() == [2.5, 3.0, 0.25]
    assert df["blank"].isna().all()
    out = tmp_path / "out.csv"
    write_table(df, out)
    lines = out.read_text().splitlines()
    assert lines[1] == "01,NA,1.10,3,1,2.5,2,"
    assert lines[2] == "1,DE,1.1,,2,3,2.0,"  # a whole number among decimals: as written
    assert lines[3] == "-0,NULL,0.5,-4,3,0.25,3,"


_TOKENS = [
    "",
    "0",
    "1",
    "01",
    "-0",
    "-1",
    "2",
    "2.0",
    "2.00",
    "1.1",
    "1.10",
    "0.5",
    ".5",
    "+5",
    " 5",
    "1e3",
    "0.0001",
    "0.00001",
    "123456789012345678",
    "9223372036854775808",
    "12345678901234.5",
    "89.26178223326362",  # Python's to_csv of a float: 16 digits, its shortest form
    "0.10000000000000001",  # 17 digits, not the shortest form of its float
    "-15147133610243.357",  # a shortest form Arrow would write with an exponent
    "1234567890123456",  # a whole number of 16 digits: a float would not hold it beside 0.5
    "3.7697703564765206e-05",  # exponent forms as Python writes them
    "1e-05",
    "1.0e-05",  # not as Python writes it
    "NA",
    "NULL",
    "nan",
    "inf",
    "True",
    "x",
]


def test_floats_written_by_python_are_read_as_floats(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    x = rng.random(50)
    x[:3] = [3.7697703564765206e-05, 1e-05, 2.5e20]  # to_csv writes these with an exponent
    df = pd.DataFrame({"inc": rng.normal(1000, 100, 50), "x": x})
    path = tmp_path / "w.csv"
    df.to_csv(path, index=False)
    back = read_table(path)
    assert back.dtypes.tolist() == ["float64", "float64"]
    np.testing.assert_array_equal(back.to_numpy(), df.to_numpy())
    write_table(back, tmp_path / "o.csv")
    assert (tmp_path / "o.csv").read_text() == path.read_text()


@given(
    st.lists(st.lists(st.sampled_from(_TOKENS), min_size=3, max_size=3), min_size=1, max_size=12)
)
@settings(max_examples=150, deadline=None)
def test_csv_texts_never_merge_and_come_back(
    tmp_path_factory: pytest.TempPathFactory, rows: list[list[str]]
) -> None:
    """Two cells of a column hold the same value after reading exactly when their texts
    are equal, and a written column gives its texts back."""
    path = tmp_path_factory.mktemp("csv") / "t.csv"
    path.write_text("a,b,c\n" + "".join(",".join(r) + "\n" for r in rows))
    if all(all(t == "" for t in r) for r in rows):
        return  # only blank lines: no records
    df = read_table(path)
    assert len(df) == len(rows)
    for j, col in enumerate(df.columns):
        texts = [r[j] for r in rows]
        values = df[col].tolist()
        for x in range(len(rows)):
            assert pd.isna(values[x]) == (texts[x] == "")
            for y in range(len(rows)):
                if texts[x] and texts[y]:
                    assert (values[x] == values[y]) == (texts[x] == texts[y])
    out = path.with_name("out.csv")
    write_table(df, out)
    back = pd.read_csv(out, dtype=str, keep_default_na=False).to_numpy().tolist()
    assert back == rows


@pytest.mark.parametrize(
    ("text", "blank"),
    [
        ("a\n1\n", False),
        ("a\r\n1\r\n", False),
        ("\na\n1\n", True),
        ("a\n  \n1\n", True),
        ("a\r1\r\r2\r", True),
        ("a\n1\n\n", True),
        # past the first 1 MiB block: a line break ending one block is not an empty line
        ("a\n" + "x" * ((1 << 20) - 2) + "\ny\n", False),
        ("a\n" + "x" * ((1 << 20) - 5) + "\nxyz\n", False),
        ("a\n" + "x" * ((1 << 20) - 3) + "\n\ny\n", True),
    ],
)
def test_has_blank_lines(tmp_path: Path, text: str, blank: bool) -> None:
    from microsdc.io import has_blank_lines

    path = tmp_path / "t.csv"
    path.write_bytes(text.encode())
    assert has_blank_lines(path) is blank


def test_gzip_header_names_the_final_file(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "out.csv.gz"
    write_table(FRAME.head(2), path, encoding="latin-1")
    raw = path.read_bytes()
    assert raw[3] & 0x08  # FNAME set: the original name follows the 10-byte header
    assert raw[10 : raw.index(b"\0", 10)] == b"out.csv"
    assert gzip.decompress(raw).decode("latin-1").splitlines()[0] == "region,age,sex"


def test_a_value_the_encoding_cannot_hold_is_named(tmp_path: Path) -> None:
    df = pd.DataFrame({"town": ["Namur", "Łódź"], "n": [1, 2]})
    path = tmp_path / "out.csv"
    with pytest.raises(DataValidationError, match="the value 'Łódź' of column 'town'"):
        write_table(df, path, encoding="latin-1")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("suffix", [".sav", ".dta"])
def test_names_the_format_cannot_hold_are_an_error_and_nothing_is_written(
    tmp_path: Path, suffix: str
) -> None:
    path = tmp_path / f"out{suffix}"
    df = FRAME.rename(columns={"region": "home-region", "age": "1age"})
    with pytest.raises(DataValidationError, match=r"2 column name\(s\) cannot be stored") as e:
        write_table(df, path)
    assert e.value.failure_cases == ["home-region", "1age"]
    assert list(tmp_path.iterdir()) == []


def test_spss_holds_names_in_any_alphabet(tmp_path: Path) -> None:
    df = pd.DataFrame({"miejscowość": ["Łódź", "東京"], "n": [1, 2]})
    write_table(df, tmp_path / "out.sav")
    assert read_table(tmp_path / "out.sav").columns.tolist() == ["miejscowość", "n"]
    with pytest.raises(DataValidationError, match="cannot be stored"):
        write_table(df.rename(columns={"n": "ł" * 33}), tmp_path / "long.sav")  # 66 bytes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.sav"]


def test_stata_holds_any_alphabet_and_long_texts(tmp_path: Path) -> None:
    df = pd.DataFrame(
        {"miejscowość": ["Łódź", "東京"], "note": ["x" * 3000, "y" * 300], "n": [1, 2]}
    )
    path = tmp_path / "out.dta"
    write_table(df, path)
    back = pd.read_stata(path)
    assert back.columns.tolist() == ["miejscowość", "note", "n"]
    assert back["miejscowość"].tolist() == ["Łódź", "東京"]
    assert back["note"].str.len().tolist() == [3000, 300]


def test_unknown_extension_and_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(InvalidParameterError, match="an Excel workbook, which microsdc does not"):
        write_table(FRAME, tmp_path / "x.xlsx")
    with pytest.raises(InvalidParameterError, match="Cannot tell the format"):
        write_table(FRAME, tmp_path / "x.foo")
    with pytest.raises(FileNotFoundError):
        write_table(FRAME, tmp_path / "nope" / "x.csv")
    with pytest.raises(FileNotFoundError):
        read_table(tmp_path / "absent.csv")


def test_output_may_not_replace_the_input(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    write_table(FRAME, src)
    with pytest.raises(InvalidParameterError, match="is the input file"):
        check_output_path(src, src)
    assert check_output_path(tmp_path / "out.csv", src) == tmp_path / "out.csv"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_byte_order_mark_is_named(tmp_path: Path, codec: str) -> None:
    from microsdc.io import utf16_without_bom

    path = tmp_path / "w.csv"
    path.write_bytes("town,sex\nBéziers,m\nSète,f\n".encode(codec))
    assert utf16_without_bom(path) == codec
    for encoding in (None, "latin-1", "utf-16"):
        with pytest.raises(DataValidationError, match=f"encoding='{codec}'"):
            read_table(path, encoding=encoding)
    assert read_table(path, encoding=codec)["town"].tolist() == ["Béziers", "Sète"]
    path.write_bytes("town,sex\nBéziers,m\n".encode("utf-16"))  # with the mark
    assert utf16_without_bom(path) is None
    path.write_bytes(b"a,b\n1,\x00\x00\n")  # a few zero bytes are not UTF-16
    assert utf16_without_bom(path) is None
