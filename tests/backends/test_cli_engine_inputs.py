"""What an engine (``--engine duckdb|polars|spark``, ``[input] engine``) reads: CSV cells
read as missing (empty ones, and the codes declared), ``--sep`` and ``--encoding``,
Parquet files that differ, empty folders, outputs a glob would read back, and the
messages."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from cli_runner import run_cli
from microsdc.backends.files import check_output_location
from microsdc.exceptions import InvalidParameterError, OutputError
from microsdc.io.engines import write_parquet

pytest.importorskip("duckdb")
pl = pytest.importorskip("polars")
pytest.importorskip("narwhals")

# A numeric and a text column with NA, NULL and empty cells (the empty ones are missing;
# NA and NULL too once declared with --missing-values).
CSV_ROWS = [
    ("1", "x"),
    ("2", "NA"),
    ("NA", "y"),
    ("", "x"),
    ("NULL", ""),
    ("1", "x"),
    ("2", "NULL"),
    ("1", "y"),
]


def write_csv(path: Path, sep: str = ",") -> Path:
    lines = [sep.join(["A", "B", "rid"])]
    lines += [sep.join([a, b, str(i)]) for i, (a, b) in enumerate(CSV_ROWS)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run_cli(args, capsys)


def fk_of(args: list[str], out: Path, capsys: pytest.CaptureFixture[str]) -> list[int]:
    code, _, err = run([*args, "--out", str(out)], capsys)
    assert code == 0, err
    return [int(v) for v in pd.read_parquet(out).sort_values("rid")["fk"]]


def engine_schema(path: Path, text: str, engine: str) -> Any:
    """The column types ``engine`` gives the CSV file ``path`` written with ``text``."""
    import narwhals as nw

    from microsdc.io.engines import scan

    path.write_text(text, encoding="utf-8")
    return nw.from_native(scan(str(path), engine, None)).collect_schema()


def fk_as_pandas(
    args: list[str], engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str = ""
) -> list[int]:
    """fk of ``args`` on pandas (written to ``pandas{name}.parquet``), checked equal on
    ``engine`` (``{engine}{name}.parquet``)."""
    want = fk_of(args, tmp_path / f"pandas{name}.parquet", capsys)
    got = fk_of([*args, "--engine", engine], tmp_path / f"{engine}{name}.parquet", capsys)
    assert got == want, engine
    return want


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("sep", [",", ";"])
@pytest.mark.parametrize("give_sep", [True, False])
def test_csv_missing_cells_and_separator_as_pandas(
    tmp_path: Path, engine: str, sep: str, give_sep: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = write_csv(tmp_path / "d.csv", sep)
    flags = ["--sep", sep] if give_sep else []
    base = ["risk", str(csv), "--qi", "A,B", "-k", "2", *flags, "--missing-values", "NA,NULL"]
    # hand-computed: a missing A or B matches any value (e.g. (2, ?) meets rows 1-4 and 6)
    assert fk_as_pandas(base, engine, tmp_path, capsys) == [4, 5, 5, 6, 8, 4, 5, 3]
    # undeclared, NA and NULL are values: only the empty cells (rows 3 and 4) are missing
    plain = base[:-2]
    assert fk_as_pandas(plain, engine, tmp_path, capsys, "_plain") == [3, 1, 1, 4, 2, 3, 1, 1]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_codes_as_written_on_every_engine(
    tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import narwhals as nw

    # "01" and "1", "1.10" and "1.1", "2" and "2.0" are distinct codes; n and w are numbers
    csv = tmp_path / "c.csv"
    schema = engine_schema(
        csv,
        "region,rate,same,n,w,rid\n01,1.10,2,3,1.5,0\n1,1.1,2.0,,2,1\n1,1.1,2.0,5,1,2\n"
        "01,1.10,2,7,0.5,3\n",
        engine,
    )
    assert schema["region"] == nw.String and schema["same"] == nw.String
    assert schema["n"] == nw.Int64 and schema["w"] == nw.Float64
    # a whole number of 17 digits beside a decimal would lose digits as a float: text
    long = "big,small\n12345678901234567,0.5\n0.5,0.00001\n3,2\n"
    schema = engine_schema(tmp_path / "long.csv", long, engine)
    assert schema["big"] == nw.String and schema["small"] == nw.String
    base = ["risk", str(csv), "--qi", "region,rate,same", "-k", "2", "--weight", "w"]
    assert fk_as_pandas(base, engine, tmp_path, capsys) == [2, 2, 2, 2]
    base2 = ["risk", str(csv), "--qi", "region,same", "-k", "2"]
    assert fk_of(base2, tmp_path / "p2.parquet", capsys) == [2, 2, 2, 2]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_empty_lines_are_no_records(
    tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "e.csv"
    csv.write_text("a,b,rid\nx,1,0\n\ny,2,1\nx,1,2\n\n", encoding="utf-8")
    base = ["risk", str(csv), "--qi", "a,b", "-k", "2"]
    assert fk_of(base, tmp_path / "p.parquet", capsys) == [2, 1, 2]
    if engine == "duckdb":  # skipped, as pandas skips them
        assert fk_of([*base, "--engine", engine], tmp_path / "d.parquet", capsys) == [2, 1, 2]
    else:  # polars would read a record of blanks, matching every record: refused
        code, _, err = run(
            [*base, "--engine", engine, "--out", str(tmp_path / "o.parquet")], capsys
        )
        assert code == 2 and "has empty lines" in " ".join(err.split())


def write_text_csv(path: Path, encoding: str, byte_order_mark: bytes = b"") -> Path:
    """CSV_ROWS with accented values ('é' and 'è' are distinct: a lossy UTF-8 reading
    would merge them) in ``encoding``."""
    rows = [(a, {"x": "é", "y": "è"}.get(b, b)) for a, b in CSV_ROWS]
    lines = ["A;B;rid"] + [f"{a};{b};{i}" for i, (a, b) in enumerate(rows)]
    path.write_bytes(byte_order_mark + ("\n".join(lines) + "\n").encode(encoding))
    return path


@pytest.mark.parametrize("encoding", ["latin-1", "ISO-8859-1", "utf-16", "utf-16-le"])
def test_duckdb_reads_latin1_and_utf16_as_pandas(
    tmp_path: Path, encoding: str, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = write_text_csv(tmp_path / "l.csv", encoding)
    base = ["risk", str(csv), "--qi", "A,B", "-k", "2", "--encoding", encoding]
    base += ["--missing-values", "NA,NULL"]
    want = fk_as_pandas(base, "duckdb", tmp_path, capsys)
    assert want == [4, 5, 5, 6, 8, 4, 5, 3]  # as the UTF-8 file of the test above
    values = pd.read_parquet(tmp_path / "duckdb.parquet").sort_values("rid")["B"]
    assert values.tolist() == pd.read_parquet(tmp_path / "pandas.parquet")["B"].tolist()
    assert set(values.dropna()) == {"é", "è", "NA", "NULL"}  # declared codes are kept


@pytest.mark.parametrize("engine", ["duckdb", "polars", "spark"])
@pytest.mark.parametrize(
    ("encoding", "byte_order_mark", "polars_text", "duckdb_text"),
    [
        ("latin-1", b"", "use --engine duckdb, which reads latin-1", None),
        ("utf-16", b"", "use --engine duckdb, which reads utf-16", None),
        ("cp1252", b"", "UTF-16 little-endian only", "UTF-16 little-endian only"),
        ("utf-16-be", b"", "UTF-16 little-endian only", "UTF-16 little-endian only"),
        ("utf-16-be", b"\xfe\xff", "use --engine duckdb, which reads utf-16", "big-endian"),
    ],
)
def test_encodings_an_engine_cannot_read_are_refused_naming_one_that_can(
    tmp_path: Path,
    engine: str,
    encoding: str,
    byte_order_mark: bytes,
    polars_text: str,
    duckdb_text: str | None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    csv = write_text_csv(tmp_path / "l.csv", encoding, byte_order_mark)
    given = "utf-16" if byte_order_mark else encoding  # a big-endian file given as utf-16
    text = polars_text if engine == "polars" else duckdb_text
    if text is None:
        return  # read: see the test above
    code, _, err = run(
        ["risk", str(csv), "--qi", "A", "--engine", engine, "--encoding", given], capsys
    )
    assert code == 2, err
    if engine == "spark":  # CSV is refused on spark whatever the encoding
        assert "Parquet" in err and "Traceback" not in err
        return
    assert text in " ".join(err.split()) and "Parquet" in err


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_bytes_that_are_not_utf8_are_named(
    tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "l.csv"
    csv.write_bytes("A,B\ncaf\xe9,1\n".encode("latin-1"))
    code, _, err = run(["risk", str(csv), "--qi", "A", "--engine", engine], capsys)
    text = " ".join(err.split())
    assert code == 2 and "is not UTF-8 (the byte 0xe9 at byte offset 7, line 2)" in text
    assert "--encoding latin-1" in text


def test_spark_refuses_csv_before_starting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = write_csv(tmp_path / "d.csv")
    for cmd in ("risk", "suppress"):
        args = [cmd, str(csv), "--qi", "A,B", "--engine", "spark"]
        code, _, err = run([*args, "--out", str(tmp_path / "o.parquet")], capsys)
        assert code == 2 and "convert the file to parquet" in " ".join(err.lower().split())


def test_sep_on_parquet_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pd.DataFrame({"A": [1]}).to_parquet(tmp_path / "a.parquet")
    code, _, err = run(
        ["risk", str(tmp_path / "a.parquet"), "--qi", "A", "--engine", "duckdb", "--sep", ";"],
        capsys,
    )
    assert code == 2 and "--sep is for a CSV file" in err


@pytest.fixture
def parts(tmp_path: Path) -> Path:
    folder = tmp_path / "pq"
    folder.mkdir()
    pd.DataFrame({"A": [1, 1, 2], "B": ["x", "x", "y"]}).to_parquet(folder / "a.parquet")
    pd.DataFrame({"A": [2, 3], "B": ["y", "z"]}).to_parquet(folder / "b.parquet")
    return folder


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_output_the_glob_would_read_is_refused(
    parts: Path, tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (parts / "sub").mkdir()
    for source, out in (
        (parts / "*.parquet", parts / "z.parquet"),
        (tmp_path / "pq*" / "*.parquet", parts / "z.parquet"),
        (parts / "**" / "*.parquet", parts / "sub" / "z.parquet"),
    ):
        code, _, err = run(
            ["suppress", str(source), "--qi", "A,B", "--engine", engine, "--out", str(out)],
            capsys,
        )
        assert code == 2 and "would be read by the input pattern" in " ".join(err.split())
        assert not out.exists()
    # outside the pattern: accepted
    beside = str(parts / "sub" / "fk.parquet")
    code, _, err = run(
        ["risk", str(parts / "*.parquet"), "--qi", "A,B", "--engine", engine, "--out", beside],
        capsys,
    )
    assert code == 0, err


def test_check_output_location_on_patterns(tmp_path: Path) -> None:
    pq = str(tmp_path / "pq")
    check_output_location(f"{tmp_path}/other/z.parquet", f"{pq}/*.parquet", "out")
    check_output_location(f"{pq}/z.csv.parquet.bak.parquet", f"{pq}/a*.parquet", "out")
    for out, pattern in (
        (f"{pq}/z.parquet", f"{pq}/*.parquet"),
        (f"{pq}/x/y/z.parquet", f"{pq}/**/*.parquet"),
        (f"{pq}/part-9.parquet", f"{pq}/part-?.parquet"),
    ):
        with pytest.raises(InvalidParameterError, match="would be read by the input pattern"):
            check_output_location(out, pattern, "out")


@pytest.mark.parametrize("engine", ["duckdb", "polars", "spark"])
@pytest.mark.parametrize("change", ["column", "type"])
def test_parquet_files_that_differ_are_refused_before_any_work(
    parts: Path, tmp_path: Path, engine: str, change: str, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = (
        pd.DataFrame({"A": [4], "C": ["w"]})
        if change == "column"
        else pd.DataFrame({"A": ["4"], "B": ["w"]})
    )
    odd.to_parquet(parts / "c.parquet")
    out = tmp_path / "o.parquet"
    for cmd in ("risk", "suppress"):
        code, stdout, err = run(
            [cmd, str(parts), "--qi", "A", "--engine", engine, "--out", str(out)], capsys
        )
        text = " ".join(err.split())
        assert code == 2, err
        assert "a.parquet" in text and "c.parquet" in text
        assert ("'B'" if change == "column" else "'A'") in text
        assert "records" not in stdout and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pq"]


@pytest.mark.parametrize("engine", ["duckdb", "polars", "spark"])
def test_empty_folder_is_a_usage_error(
    tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    code, _, err = run(["risk", str(tmp_path / "empty"), "--qi", "A", "--engine", engine], capsys)
    assert code == 2 and "holds no Parquet file" in err


def test_failed_write_leaves_no_partial_file(tmp_path: Path) -> None:
    out = tmp_path / "o.parquet"
    bad = pl.LazyFrame({"a": ["x"]}).select(pl.col("a").cast(pl.Int64, strict=True))
    with pytest.raises(OutputError, match=r"^polars could not write .*o\.parquet: ") as err:
        write_parquet(bad, str(out))
    assert isinstance(err.value.__cause__, pl.exceptions.InvalidOperationError)
    assert list(tmp_path.iterdir()) == []


def test_failed_engine_write_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import microsdc.io.engines as engines

    def full_disk(frame: object, path: str) -> None:
        raise RuntimeError("IO Error: could not write: No space left on device\nmore lines")

    monkeypatch.setattr(engines, "_write_spark", full_disk)
    monkeypatch.setattr(pl.LazyFrame, "sink_parquet", lambda self, path: full_disk(self, path))
    csv = write_csv(tmp_path / "d.csv")
    out = tmp_path / "o.parquet"
    args = ["suppress", str(csv), "--qi", "A,B", "-k", "2", "--engine", "polars"]
    code, _, err = run([*args, "--missing-values", "NA,NULL", "--out", str(out)], capsys)
    assert code == 2
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"Error: polars could not write {out}: IO Error: could not")
    assert "Traceback" not in err and "more lines" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv"]


def test_a_spark_write_error_names_its_deepest_cause() -> None:
    from microsdc.io.engines import _cause

    java = (
        "An error occurred while calling o96.parquet.\n: org.apache.spark.SparkException: "
        "Job aborted.\n\tat a.b(c)\nCaused by: org.apache.spark.SparkException: Task failed"
        "\n\tat d.e(f)\nCaused by: java.io.IOException: File too large\n\tat g.h(i)"
    )
    assert _cause(RuntimeError(java)) == "java.io.IOException: File too large"
    assert _cause(RuntimeError("IO Error: disk full\nmore")) == "IO Error: disk full"
    assert _cause(RuntimeError("")) == "RuntimeError"


def test_missing_narwhals_gives_the_install_command(
    parts: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "narwhals", None)
    code, _, err = run(["risk", str(parts), "--qi", "A", "--engine", "polars"], capsys)
    text = " ".join(err.split())
    assert code == 2 and 'pip install "microsdc[polars]"' in text
    assert "to_pandas" not in text


@pytest.mark.parametrize(("engine", "fk_name"), [("duckdb", "Fk_pop"), ("polars", "Fk")])
def test_weight_message_names_the_columns_written(
    tmp_path: Path, engine: str, fk_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "w.parquet"
    pd.DataFrame({"A": [1, 1, 2], "w": [2.0, 3.0, 4.0]}).to_parquet(src)
    out = tmp_path / "o.parquet"
    code, stdout, err = run(
        ["risk", str(src), "--qi", "A", "--weight", "w", "--engine", engine, "--out", str(out)],
        capsys,
    )
    assert code == 0, err
    written = list(pd.read_parquet(out).columns)
    assert written == ["A", "w", "fk", fk_name, "at_risk"]
    assert f"columns fk, {fk_name}, at_risk appended" in " ".join(stdout.split())


def test_missing_texts_are_those_of_the_default_reader() -> None:
    from microsdc.backends.files import NA_VALUES
    from microsdc.io import NA_TEXTS

    assert NA_VALUES == NA_TEXTS == ("",)


def _engine_fixtures(request: pytest.FixtureRequest, engine: str) -> None:
    """The shared local Spark session for ``engine == "spark"`` (skipped without Java)."""
    if engine == "spark":
        request.getfixturevalue("spark")


@pytest.mark.parametrize("engine", ["duckdb", "polars", "spark"])
@pytest.mark.parametrize("source", ["file", "folder", "glob"])
def test_input_without_records_is_refused_as_on_pandas(
    tmp_path: Path,
    engine: str,
    source: str,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _engine_fixtures(request, engine)
    empty = pd.DataFrame({"A": pd.Series([], dtype="int64"), "B": pd.Series([], dtype=object)})
    folder = tmp_path / "pq"
    folder.mkdir()
    empty.to_parquet(folder / "a.parquet")
    empty.to_parquet(folder / "b.parquet")
    path = {
        "file": folder / "a.parquet",
        "folder": folder,
        "glob": folder / "*.parquet",
    }[source]
    code, _, err = run(["risk", str(folder / "a.parquet"), "--qi", "A,B"], capsys)  # pandas
    assert code == 2 and "a.parquet has a header (2 column(s)) but no records" in err
    out = tmp_path / "o.parquet"
    for cmd in ("risk", "suppress"):
        args = [cmd, str(path), "--qi", "A,B", "--engine", engine, "--out", str(out)]
        code, stdout, err = run(args, capsys)
        text = " ".join(err.split())
        assert code == 2, err
        assert f"{path} has a header (2 column(s)) but no records; nothing to do." in text
        assert "records at risk" not in stdout.lower() and "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("A,B\n", "has a header (2 column(s)) but no records; nothing to do."),
        ("", "is empty: it has no header line and no records."),
        ("\n\r\n", "is empty: it has no header line and no records."),
    ],
)
def test_empty_csv_is_refused_as_on_pandas(
    tmp_path: Path, engine: str, content: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "d.csv"
    csv.write_bytes(content.encode("utf-8"))
    code, _, err = run(["risk", str(csv), "--qi", "A,B"], capsys)  # pandas
    assert code == 2 and message in " ".join(err.split())
    for cmd in ("risk", "suppress"):
        args = [cmd, str(csv), "--qi", "A,B", "--engine", engine]
        code, _, err = run([*args, "--out", str(tmp_path / "o.parquet")], capsys)
        assert code == 2, err
        assert f"d.csv {message}" in " ".join(err.split())
        assert "column0" not in err and "Traceback" not in err


@pytest.fixture
def partitioned(tmp_path: Path) -> Path:
    """A Hive-partitioned folder: ``hive/year=2020/part.parquet`` and ``year=2021``."""
    rows = {
        2020: pd.DataFrame({"a": [1, 1, 2], "b": ["x", "y", "x"], "rid": [0, 1, 2]}),
        2021: pd.DataFrame({"a": [1, 2, 2], "b": ["x", "x", None], "rid": [3, 4, 5]}),
    }
    for year, frame in rows.items():
        (tmp_path / "hive" / f"year={year}").mkdir(parents=True)
        frame.to_parquet(tmp_path / "hive" / f"year={year}" / "part.parquet", index=False)
    return tmp_path / "hive"


@pytest.mark.parametrize("engine", ["duckdb", "polars", "spark"])
@pytest.mark.parametrize("source", ["folder", "glob", "deep glob"])
def test_partition_columns_are_columns_of_the_data_as_pandas_reads_the_folder(
    partitioned: Path,
    tmp_path: Path,
    engine: str,
    source: str,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import microsdc

    _engine_fixtures(request, engine)
    want = pd.read_parquet(partitioned)  # pyarrow: the partition column 'year' comes last
    assert list(want.columns) == ["a", "b", "rid", "year"]
    want_fk = microsdc.sample_frequencies(want, ["a", "year"])["fk"].tolist()
    # hand-computed: (1, 2020) twice, (2, 2020) once, (1, 2021) once, (2, 2021) twice
    assert want_fk == [2, 2, 1, 1, 2, 2]
    path = {
        "folder": partitioned,
        "glob": partitioned / "*" / "*.parquet",
        "deep glob": partitioned / "**" / "*.parquet",
    }[source]
    out = tmp_path / "o.parquet"
    args = ["risk", str(path), "--qi", "a,year", "--engine", engine, "--out", str(out)]
    code, _, err = run(args, capsys)
    assert code == 0, err
    got = pd.read_parquet(out).sort_values("rid")
    assert list(got.columns) == [*want.columns, "fk", "at_risk"]
    assert got["fk"].tolist() == want_fk
    assert got["year"].astype(int).tolist() == want["year"].astype(int).tolist()
    code, _, err = run(
        ["suppress", str(path), "--qi", "a,year", "-k", "2", "--engine", engine, "--out", str(out)],
        capsys,
    )
    assert code == 0, err
    assert list(pd.read_parquet(out).columns) == list(want.columns)


@pytest.mark.parametrize("engine", ["duckdb", "polars", "spark"])
def test_partition_folder_given_itself_is_not_a_column(
    partitioned: Path,
    tmp_path: Path,
    engine: str,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _engine_fixtures(request, engine)
    one = partitioned / "year=2020"
    assert list(pd.read_parquet(one).columns) == ["a", "b", "rid"]  # as pandas reads it
    out = tmp_path / "o.parquet"
    for path in (one, one / "*.parquet"):
        code, _, err = run(
            ["risk", str(path), "--qi", "a", "--engine", engine, "--out", str(out)], capsys
        )
        assert code == 0, err
        assert list(pd.read_parquet(out).columns) == ["a", "b", "rid", "fk", "at_risk"]


@pytest.mark.parametrize("engine", ["duckdb", "polars", "spark"])
@pytest.mark.parametrize("change", ["unpartitioned file", "column named like a folder"])
def test_partition_folders_that_differ_are_refused(
    partitioned: Path, engine: str, change: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if change == "unpartitioned file":
        pd.DataFrame({"a": [1], "b": ["x"], "rid": [6]}).to_parquet(partitioned / "c.parquet")
        text = "lie below different partition folders"
    else:
        for part in partitioned.glob("*/*.parquet"):
            pd.read_parquet(part).assign(year=0).to_parquet(part, index=False)
        text = "the partition folder year= of"
    code, _, err = run(["risk", str(partitioned), "--qi", "a", "--engine", engine], capsys)
    assert code == 2 and text in " ".join(err.split()), err


@pytest.mark.parametrize("engine", ["pandas", "duckdb", "polars"])
def test_key_variable_missing_in_every_record_is_warned_once(
    tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "d.csv"
    csv.write_text("A,B,C\n1,,x\n1,NA,y\n2,,x\n2,NULL,y\n", encoding="utf-8")
    for cmd in ("risk", "suppress"):
        args = [cmd, str(csv), "--qi", "A,B,C", "-k", "2", "--engine", engine]
        args += ["--missing-values", "NA,NULL"]
        code, _, err = run([*args, "--out", str(tmp_path / f"{cmd}.parquet")], capsys)
        assert code == 0, err
        text = " ".join(err.split())
        assert text.count("key variable 'B' is missing in every record") == 1, err
        assert "'A'" not in text and "'C'" not in text


@pytest.mark.parametrize("engine", ["duckdb", "polars", "spark"])
def test_file_that_is_not_parquet_is_named_before_any_work(
    parts: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (parts / "notes.json").write_text("{}\n", encoding="utf-8")
    for path in (parts / "*", parts / "notes.json"):
        code, _, err = run(["risk", str(path), "--qi", "A", "--engine", engine], capsys)
        text = " ".join(err.split())
        assert code == 2, err
        assert "notes.json is not a Parquet file that can be read" in text
        assert "Traceback" not in err


@pytest.mark.parametrize("engine", ["duckdb", "polars", "spark"])
def test_default_partition_is_a_missing_value(
    tmp_path: Path, engine: str, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    _engine_fixtures(request, engine)
    rows = {"N": ([1, 1], [0, 1]), "__HIVE_DEFAULT_PARTITION__": ([1], [2]), "S": ([2], [3])}
    for value, (a, rid) in rows.items():
        (tmp_path / "hive" / f"reg={value}").mkdir(parents=True)
        pd.DataFrame({"a": a, "rid": rid}).to_parquet(
            tmp_path / "hive" / f"reg={value}" / "part.parquet", index=False
        )
    out = tmp_path / "o.parquet"
    args = ["risk", str(tmp_path / "hive"), "--qi", "a,reg", "--engine", engine]
    code, _, err = run([*args, "--out", str(out)], capsys)
    assert code == 0, err
    got = pd.read_parquet(out).sort_values("rid")
    assert got["reg"].isna().tolist() == [False, False, True, False]
    # hand-computed, missing as a wildcard: (1, N) twice and (1, ?) match each other
    assert got["fk"].tolist() == [3, 3, 3, 1]


@pytest.mark.parametrize("engine", ["pandas", "duckdb", "polars"])
def test_repeated_column_name_is_refused_on_every_engine(
    tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # the engines would rename the second 'a' (a_1, a_duplicated_0) and release it unprotected
    path = tmp_path / "dup.csv"
    path.write_text("a,a,b\n1,2,3\n1,2,3\n1,2,3\n4,5,6\n", encoding="utf-8")
    args = ["suppress", str(path), "--qi", "a,b", "-k", "2"]
    args += ["--out", str(tmp_path / "out.csv")] if engine == "pandas" else [
        "--engine", engine, "--out", str(tmp_path / "out.parquet")
    ]  # fmt: skip
    code, _, err = run(args, capsys)
    assert code == 2 and "dup.csv has duplicate column names: 'a'" in err
    assert not list(tmp_path.glob("out*"))


@pytest.mark.parametrize("engine", ["pandas", "polars"])
def test_utf16_file_read_as_utf8_suggests_utf16(
    tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "wide.csv"
    path.write_bytes("a,b\n1,x\n".encode("utf-16"))  # with its byte-order mark
    args = ["risk", str(path), "--qi", "a,b"]
    args += [] if engine == "pandas" else ["--engine", engine]
    code, _, err = run(args, capsys)
    assert code == 2 and "--encoding utf-16" in err and "latin-1;" not in err
    assert err.count("--encoding") == 1


@pytest.mark.parametrize("weighted", [True, False])
def test_expected_reidentifications_as_on_pandas(
    tmp_path: Path, weighted: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    # A = 1 twice (weights 2, 3: Fk 5), A = 2 once (weight 4); without weights 1/fk
    src = tmp_path / "w.parquet"
    pd.DataFrame({"A": [1, 1, 2], "w": [2.0, 3.0, 4.0]}).to_parquet(src)
    lines = {}
    for engine in ("pandas", "duckdb", "polars"):
        args = ["risk", str(src), "--qi", "A", "--engine", engine]
        code, stdout, err = run(args + (["--weight", "w"] if weighted else []), capsys)
        assert code == 0, err
        text = " ".join(stdout.split())
        start = text.index("Expected re-identifications")
        lines[engine] = text[start : text.index(".", text.index("individual risk ", start) + 16)]
        assert (" Fk " in text or "┃ Fk" in stdout) == weighted
    assert lines["duckdb"] == lines["pandas"] == lines["polars"]
    if not weighted:  # 1/2 + 1/2 + 1/1
        assert "Expected re-identifications: 2.0;" in lines["pandas"]


@pytest.mark.parametrize(
    ("codec", "encoding", "text"),
    [
        ("utf-16-le", None, "give --encoding utf-16-le"),
        ("utf-16-be", None, "encoding='utf-16-be').to_parquet"),
        ("utf-16-be", "utf-16", "reads UTF-16 little-endian only"),
    ],
)
def test_utf16_without_byte_order_mark_on_duckdb(
    tmp_path: Path, codec: str, encoding: str | None, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "w.csv"
    csv.write_bytes("A,B\n1,2\n1,2\n".encode(codec))
    args = ["risk", str(csv), "--qi", "A,B", "--engine", "duckdb"]
    code, _, err = run(args + (["--encoding", encoding] if encoding else []), capsys)
    flat = " ".join(err.split())
    assert code == 2 and "without a byte-order mark" in flat and text in flat, flat
    if codec == "utf-16-le":  # read once the encoding is given
        code, _, err = run([*args, "--encoding", "utf-16-le"], capsys)
        assert code == 0, err


def test_compressed_csv_on_the_engines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import bz2
    import gzip

    text = "A,B\n1,2\n1,2\n1,3\n2,\n"
    gz = tmp_path / "d.csv.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    plain = tmp_path / "d.csv"
    plain.write_text(text)
    outs = {}
    for path, engine in ((plain, None), (gz, "duckdb")):
        out = tmp_path / f"fk_{engine}.parquet"
        args = ["risk", str(path), "--qi", "A,B", "--out", str(out)]
        code, _, err = run(args + (["--engine", engine] if engine else []), capsys)
        assert code == 0, err
        outs[engine] = pd.read_parquet(out).sort_values(["A", "B"]).reset_index(drop=True)
    assert outs["duckdb"]["fk"].tolist() == outs[None]["fk"].tolist() == [2, 2, 1, 1]
    code, _, err = run(["risk", str(gz), "--qi", "A", "--engine", "polars"], capsys)
    assert code == 2 and "gzip-compressed CSV file" in err and "decompress it first" in err
    bz = tmp_path / "d.csv.bz2"
    bz.write_bytes(bz2.compress(text.encode()))
    code, _, err = run(["risk", str(bz), "--qi", "A", "--engine", "duckdb"], capsys)
    assert code == 2 and "reads gzip only" in " ".join(err.split())
    zst = tmp_path / "d.csv.zst"  # DuckDB reads it, microsdc's checks of the file could not
    zst.write_bytes(b"\x28\xb5\x2f\xfd" + bytes(20))
    code, _, err = run(["risk", str(zst), "--qi", "A", "--engine", "duckdb"], capsys)
    flat = " ".join(err.split())
    assert code == 2 and "zstd-compressed" in flat and "pandas reads it" not in flat


@pytest.mark.parametrize("engine", ["pandas", "duckdb", "polars"])
@pytest.mark.parametrize("command", ["risk", "suppress"])
def test_texts_that_often_mean_missing_are_pointed_out(
    tmp_path: Path, engine: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = write_csv(tmp_path / "d.csv")
    out = tmp_path / "o.parquet"
    base = [command, str(csv), "--qi", "A,B", "-k", "2", "--engine", engine, "--out", str(out)]
    code, _, err = run(base, capsys)
    assert code == 0, err
    text = " ".join(err.split())
    for col in "AB":
        assert (
            f"key variable {col!r} holds 'NA' (1 record(s)), 'NULL' (1 record(s)): read as a "
            "value, not as missing. If it means missing, declare it: --missing-values 'NA,NULL'."
        ) in text
    code, _, err = run([*base, "--missing-values", "NA"], capsys)
    assert code == 0, err
    text = " ".join(err.split())
    assert "'A' holds 'NULL' (1 record(s)): read" in text and "'NA' (1" not in text
    code, _, err = run([*base, "--missing-values", "NA,NULL"], capsys)
    assert code == 0 and "read as a value" not in err


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("command", ["risk", "suppress"])
def test_output_rows_stay_in_the_input_order(
    tmp_path: Path, engine: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # DuckDB's hash join built on this input's side and gave the rows 0, 2, 1
    csv = tmp_path / "d.csv"
    csv.write_text("a,b,rid\n2,x,0\n3.0,x,1\n2.5,y,2\n2,x,3\n", encoding="utf-8")
    out = tmp_path / "o.parquet"
    args = [command, str(csv), "--qi", "a,b", "-k", "2", "--engine", engine, "--out", str(out)]
    code, _, err = run(args, capsys)
    assert code == 0, err
    got = pd.read_parquet(out)
    assert got["rid"].tolist() == [0, 1, 2, 3]
    if command == "risk":
        assert got["fk"].tolist() == [2, 1, 1, 2]


@pytest.mark.parametrize("engine", ["pandas", "duckdb", "polars"])
@pytest.mark.parametrize(
    ("text", "qi"),
    [
        (",sex,region\n0,m,north\n1,m,north\n2,f,south\n", "sex,region"),  # pandas to_csv
        ('"","sex","region"\n"1","m","north"\n"2","m","north"\n"3","f","south"\n', "sex,region"),
        ("1,2\n3,4\n5,4\n6,7\n", "1,2"),  # a header of numbers is still the header
    ],
)
def test_first_line_is_always_the_header(
    tmp_path: Path, engine: str, text: str, qi: str, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "d.csv"
    csv.write_text(text, encoding="utf-8")
    code, out, err = run(["risk", str(csv), "--qi", qi, "-k", "2", "--engine", engine], capsys)
    assert code == 0, err
    assert f"{csv}{'' if engine == 'pandas' else f' ({engine})'}: 3 records" in " ".join(
        out.split()
    )


@pytest.mark.parametrize("engine", ["pandas", "duckdb", "polars"])
def test_texts_with_spaces_around_are_pointed_out(
    tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # the raw UCI adult file writes " Male" and " ?"
    csv = tmp_path / "d.csv"
    rows = ["Male", "Male", " Male", "Male ", "Female", "Female", " ?", " ?"]
    csv.write_text("sex,rid\n" + "".join(f"{s},{i}\n" for i, s in enumerate(rows)))
    out = tmp_path / "o.parquet"
    base = ["risk", str(csv), "--qi", "sex", "-k", "2", "--engine", engine, "--out", str(out)]
    code, _, err = run(base, capsys)
    assert code == 0, err
    text = " ".join(err.split())
    assert "'sex' holds ' ?' (2 record(s)): read as a value" in text
    assert "declare it: --missing-values '?'." in text
    assert (
        "'sex' holds 2 record(s) with spaces at the start or end of the text (' Male', "
        "'Male '): each is another value" in text
    )
    # declared without its space, " ?" is missing and matches every record
    code, _, err = run([*base, "--missing-values", "?"], capsys)
    assert code == 0 and "read as a value" not in err
    fk = pd.read_parquet(out).sort_values("rid")["fk"].tolist()
    assert fk == [4, 4, 3, 3, 4, 4, 8, 8]


@pytest.mark.parametrize("engine", ["pandas", "duckdb", "polars"])
def test_riskiest_table_tells_a_dot_from_a_missing_value(
    tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "d.csv"
    csv.write_text("sex,region\nm,.\nm,\nf,b\n", encoding="utf-8")
    code, out, err = run(["risk", str(csv), "--qi", "sex,region", "--engine", engine], capsys)
    assert code == 0, err
    lines = [" ".join(line.replace("│", " ").split()) for line in out.splitlines()]
    assert "m . 1 2" in lines and "m (missing) 1 2" in lines
    assert "(missing) = a missing value (matches any value)." in lines
    # no legend when the rows shown hold no missing value
    code, out, err = run(
        ["risk", str(csv), "--qi", "sex,region", "--engine", engine, "--top", "1"], capsys
    )
    assert code == 0 and "(missing)" not in out


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_floats_written_by_python_are_floats_on_every_engine(tmp_path: Path, engine: str) -> None:
    import narwhals as nw

    from microsdc.io import read_table

    csv = tmp_path / "w.csv"
    schema = engine_schema(
        csv,
        "inc,x,odd,big\n89.26178223326362,3.7697703564765206e-05,0.10000000000000001,1.5\n"
        "1000.5,0.5,0.2,1234567890123456\n-15147133610243.357,0.25,0.3,2.5\n",
        engine,
    )
    pandas = read_table(csv).dtypes
    for col, want in (("inc", nw.Float64), ("x", nw.Float64), ("odd", nw.String)):
        assert schema[col] == want, col
        assert (pandas[col] == "float64") == (want == nw.Float64), col
    # a whole number of 16 digits beside decimals would not survive as a float
    assert schema["big"] == nw.String and pandas["big"] != "float64"


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_duckdb_refuses_columns_that_differ_only_in_case(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # DuckDB would rename Fk to Fk_1 and FK to FK_2, and 'did you mean' then offered fk
    frame = pd.DataFrame({"records": [1, 2, 2], "fk": [1, 1, 2], "Fk": [3, 3, 4]})
    frame["FK"] = [5, 6, 6]
    path = tmp_path / f"odd.{kind}"
    if kind == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path)
    args = ["risk", str(path), "--qi", "records,fk,Fk,FK"]
    code, _, err = run([*args, "--engine", "duckdb"], capsys)
    assert code == 2
    assert (
        f"odd.{kind} has columns whose names differ only in case: 'fk', 'Fk', 'FK'. DuckDB's "
        "column names are case-insensitive: it renames 'Fk' to 'Fk_1', 'FK' to 'FK_2', so a "
        "column named as in the file could be read as another one. Rename them in the file "
        "so that no two differ only in case, or use --engine polars (or leave out the "
        "engine: pandas reads them as they are)"
    ) in " ".join(err.split())
    assert "Did you mean" not in err
    assert run([*args, "--engine", "polars"], capsys)[0] == 0


def test_duckdb_keeps_columns_that_differ_in_accents_only(tmp_path: Path) -> None:
    from microsdc.io.engines import scan

    path = tmp_path / "acc.parquet"
    pd.DataFrame({"âge": [1, 2], "ÂGE": [3, 4]}).to_parquet(path)
    assert scan(str(path), "duckdb", None).columns == ["âge", "ÂGE"]


def test_out_refuses_only_the_names_the_engine_appends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # polars appends fk, Fk and at_risk: FK (or Fk_pop) is no clash there; DuckDB's names are
    # case-insensitive, so FK is one with fk there
    path = tmp_path / "in.parquet"
    pd.DataFrame({"a": [1, 1, 2, 2], "FK": [5, 6, 7, 8], "Fk_pop": [1, 2, 3, 4]}).to_parquet(path)
    args = ["risk", str(path), "--qi", "a"]
    out = tmp_path / "out.parquet"
    code, _, err = run([*args, "--engine", "polars", "--out", str(out)], capsys)
    assert code == 0, err
    assert list(pd.read_parquet(out).columns) == ["a", "FK", "Fk_pop", "fk", "at_risk"]
    out.unlink()
    code, _, err = run([*args, "--engine", "duckdb", "--out", str(out)], capsys)
    assert code == 2 and not out.exists()
    assert (
        "microsdc risk appends the columns fk, Fk_pop, at_risk to a lazy frame, but it already "
        "has 'FK', 'Fk_pop'. Rename or drop them first."
    ) in " ".join(err.split())


def test_out_help_names_the_columns_and_the_refusal(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["risk", "--help"], capsys)
    assert code == 0
    assert (
        "Write the data with fk (Fk with --weight; Fk_pop with --engine duckdb or spark, whose "
        "column names are case-insensitive) and at_risk columns appended. An input that "
        "already has a column of these names is refused: rename it first."
    ) in " ".join(out.split())


def test_duckdb_refuses_a_csv_header_it_would_trim(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # DuckDB reads the header 'sex ' as 'sex': the release would carry another name, and
    # --qi sex would be taken where pandas and polars refuse it and suggest 'sex '
    path = tmp_path / "spaced.csv"
    path.write_text("sex ,age\n1,30\n1,30\n2,40\n")
    code, _, err = run(["risk", str(path), "--qi", "sex ", "--engine", "duckdb"], capsys)
    assert code == 2
    assert (
        "spaced.csv has column names that DuckDB does not keep as written: it renames 'sex ' "
        "to 'sex', so a column named as in the file could be read as another one. Rename "
        "them in the file without spaces around them"
    ) in " ".join(err.split())
    assert run(["risk", str(path), "--qi", "age", "--engine", "polars"], capsys)[0] == 0
