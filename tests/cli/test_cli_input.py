"""Reading input files from the command line: separators, encodings, empty files, typos, Ctrl-C."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from cli_runner import run_cli
from microsdc.io import detect_separator, read_table


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run_cli(args, capsys)


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


ROWS = "age{s}sex{s}town\n30{s}m{s}a\n30{s}m{s}b\n40{s}f{s}a\n"


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_separator_detected_from_header(tmp_path: Path, sep: str) -> None:
    path = write(tmp_path / "d.csv", ROWS.format(s=sep))
    assert detect_separator(path) == sep
    df = read_table(path)
    assert df.columns.tolist() == ["age", "sex", "town"]
    assert df["sex"].tolist() == ["m", "m", "f"]


def test_separator_detection_respects_quotes(tmp_path: Path) -> None:
    # the commas inside the quoted name do not count
    path = write(tmp_path / "d.csv", '"a,b,c";x;y\n1;2;3\n')
    assert detect_separator(path) == ";"
    assert detect_separator(write(tmp_path / "one.csv", "age\n1\n")) == ","


def test_cli_reads_semicolon_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "d.csv", ROWS.format(s=";"))
    code, out, err = run(["risk", str(path), "--qi", "age,sex"], capsys)
    assert code == 0, err
    assert "3 records" in out


def test_wrong_separator_is_pointed_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "d.csv", ROWS.format(s=";"))
    code, _, err = run(["risk", str(path), "--qi", "age,sex", "--sep", ","], capsys)
    assert code == 2
    assert "looks ';'-separated" in err and "--sep ';'" in err


def test_latin1_needs_and_takes_encoding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "d.csv", "town,sex\nBéziers,m\nBéziers,m\n", encoding="latin-1")
    code, _, err = run(["risk", str(path), "--qi", "town,sex"], capsys)
    assert code == 2 and "--encoding latin-1" in err
    out_file = tmp_path / "o.csv"
    code, _, err = run(
        ["risk", str(path), "--qi", "town,sex", "--encoding", "latin-1", "--out", str(out_file)],
        capsys,
    )
    assert code == 0, err
    # released in the encoding it came in
    assert "Béziers".encode("latin-1") in out_file.read_bytes()
    assert pd.read_csv(out_file, encoding="latin-1")["town"].tolist() == ["Béziers", "Béziers"]
    safe = tmp_path / "safe.csv"
    code, _, err = run(
        [
            *("suppress", str(path), "--qi", "town,sex", "-k", "2"),
            *("--encoding", "latin-1", "--out", str(safe)),
        ],
        capsys,
    )
    assert code == 0, err
    assert safe.read_bytes() == "town,sex\nBéziers,m\nBéziers,m\n".encode("latin-1")


def test_utf8_byte_order_mark_is_written_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # spreadsheet programs write (and need) the mark to read a CSV file as UTF-8
    text = "town,sex\nBéziers,m\nBéziers,m\n"
    path = write(tmp_path / "d.csv", text, encoding="utf-8-sig")
    safe = tmp_path / "safe.csv"
    code, _, err = run(
        ["suppress", str(path), "--qi", "town,sex", "-k", "2", "--out", str(safe)], capsys
    )
    assert code == 0, err
    assert safe.read_bytes() == text.encode("utf-8-sig")
    # without the mark in the input, none in the output
    plain = write(tmp_path / "p.csv", text)
    code, _, err = run(
        ["suppress", str(plain), "--qi", "town,sex", "-k", "2", "--out", str(safe)], capsys
    )
    assert code == 0, err
    assert safe.read_bytes() == text.encode()


def test_codes_are_kept_as_written_and_na_is_a_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "NA" is Namibia and "01" is not "1": each record is unique, all 3 at risk
    path = write(tmp_path / "d.csv", "country,region,sex\nNA,01,m\nDE,1,m\nFR,1,m\n")
    out_file = tmp_path / "o.csv"
    code, _, err = run(
        ["risk", str(path), "--qi", "country,sex", "-k", "2", "--out", str(out_file)], capsys
    )
    assert code == 0, err
    assert pd.read_csv(out_file, keep_default_na=False)["at_risk"].tolist() == [True, True, True]
    # the text that often means missing is pointed out, with the option that declares it
    text = " ".join(err.split())
    assert "key variable 'country' holds 'NA' (1 record(s)): read as a value" in text
    assert "--missing-values 'NA'" in text
    code, _, err = run(
        ["risk", str(path), "--qi", "region,sex", "-k", "2", "--out", str(out_file)], capsys
    )
    assert code == 0, err
    assert pd.read_csv(out_file, dtype=str)["at_risk"].tolist() == ["True", "False", "False"]
    # declared, NA is missing and matches every record; no warning then
    code, _, err = run(
        [
            *("risk", str(path), "--qi", "country,sex", "-k", "2"),
            "--missing-values",
            "NA",
            "--out",
            str(out_file),
        ],
        capsys,
    )
    assert code == 0, err
    assert "read as a value" not in err
    assert pd.read_csv(out_file, keep_default_na=False)["fk"].tolist() == [3, 2, 2]
    # suppression writes the other columns back as they came
    safe = tmp_path / "safe.csv"
    code, _, err = run(
        ["suppress", str(path), "--qi", "sex", "-k", "2", "--out", str(safe)], capsys
    )
    assert code == 0, err
    assert safe.read_text() == "country,region,sex\nNA,01,m\nDE,1,m\nFR,1,m\n"


def test_importance_weight_must_be_positive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "d.csv", ROWS.format(s=","))
    for bad in ("sex=-1,age=2", "sex=0,age=2", "sex=nan,age=2"):
        code, _, err = run(
            [
                *("suppress", str(path), "--qi", "age,sex", "--importance", bad),
                "--out",
                str(tmp_path / "o.csv"),
            ],
            capsys,
        )
        assert code == 2
        assert "--importance: a weight is a positive number" in " ".join(err.split())
        assert "dict" not in err


def test_rows_in_messages_are_those_of_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the record with the negative weight is on line 4 of the CSV file (row 4 in a
    # spreadsheet), the third record of the Parquet file
    path = write(tmp_path / "d.csv", "age,sex,w\n30,m,1\n30,m,2\n40,f,-2\n")
    code, _, err = run(["risk", str(path), "--qi", "age,sex", "--weight", "w"], capsys)
    assert code == 2 and "(first rows: 4: -2)" in err
    # empty lines, which the reader skips, and a quoted line break are counted
    # as a spreadsheet shows them: an empty line, which the reader skips, is a row, a
    # record whose quoted cell spans lines one row; with or without empty lines
    for body, row in [
        ('age,sex,w\n\n30,"m\nx",1\n\n40,f,-2\n', 5),
        ('age,sex,w\n30,"m\nx",1\n40,f,-2\n', 3),
        ('age,sex,w\n30,"m\nx",1\n40,f,-2\n\n', 3),
        ("age,sex,w\n30,m,1\n   \n40,f,-2\n", 4),
        ("age,sex,w\r30,m,1\r\r40,f,-2\r", 4),
    ]:
        spaced = write(tmp_path / "s.csv", body)
        code, _, err = run(["risk", str(spaced), "--qi", "age,sex", "--weight", "w"], capsys)
        assert code == 2 and f"(first rows: {row}: -2)" in err, (body, err)
    parquet = tmp_path / "d.parquet"
    pd.read_csv(path).to_parquet(parquet)
    code, _, err = run(["risk", str(parquet), "--qi", "age,sex", "--weight", "w"], capsys)
    assert code == 2 and "(first rows: 3: -2)" in err


def test_tab_separator_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "d.txt", ROWS.format(s="\t"))
    code, _, err = run(["risk", str(path), "--qi", "age,sex", "--sep", "tab"], capsys)
    assert code == 0, err
    code, _, err = run(["risk", str(path), "--qi", "age", "--sep", ";;"], capsys)
    assert code == 2 and "--sep" in err


def test_empty_csv_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "nothing.csv", "")
    for cmd in (["risk", str(path), "--qi", "a"], ["suppress", str(path), "--qi", "a"]):
        code, _, err = run([*cmd, "--out", str(tmp_path / "o.csv")], capsys)
        assert code == 2
        assert "nothing.csv is empty" in err
        assert "EmptyDataError" not in err


def test_header_only_csv_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "head.csv", "age,sex,town\n")
    for command in ("risk", "suppress"):  # risk reads the key variables only
        code, _, err = run(
            [command, str(path), "--qi", "age,sex", "--out", str(tmp_path / "o.csv")], capsys
        )
        assert code == 2
        assert "head.csv has a header (3 column(s)) but no records" in " ".join(err.split())


def test_all_missing_key_variable_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "d.csv", "age,sex\n,m\n,m\n,f\n")
    code, _, err = run(["risk", str(path), "--qi", "age,sex"], capsys)
    assert code == 0
    assert "key variable 'age' is missing in every record" in err
    assert "'sex'" not in err


@pytest.mark.parametrize("command", ["risk", "suppress"])
def test_qi_typo_suggests_the_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    path = write(tmp_path / "d.csv", ROWS.format(s=","))
    code, _, err = run(
        [command, str(path), "--qi", "Age,sex", "--out", str(tmp_path / "o.csv")], capsys
    )
    assert code == 2
    assert "Did you mean 'age'?" in err


def test_ctrl_c_exits_130_and_leaves_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "d.csv", ROWS.format(s=","))
    real = pd.DataFrame.to_csv

    def interrupted(self: pd.DataFrame, target: object, *args: object, **kw: object) -> None:
        real(self.head(1), target, *args, **kw)  # half a file on disk, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", interrupted)
    out = tmp_path / "out" / "safe.csv"
    out.parent.mkdir()
    code, _, err = run(
        ["suppress", str(path), "--qi", "age,sex", "-k", "2", "--out", str(out)], capsys
    )
    assert code == 130
    assert "Interrupted" in err
    assert list(out.parent.iterdir()) == []


def test_a_key_variable_whose_name_holds_a_comma(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "d.csv", 'age,"income, net",sex\n30,low,m\n30,low,m\n40,high,f\n')
    out = tmp_path / "safe.csv"
    qi = 'age, "income, net",sex'
    wildcard = ["--missing", "wildcard"]  # one cell for the lone record, as sdcMicro counts
    code, _, err = run(
        ["suppress", str(path), "--qi", qi, "-k", "2", *wildcard, "--out", str(out)], capsys
    )
    assert code == 0, err
    safe = pd.read_csv(out)
    assert safe.columns.tolist() == ["age", "income, net", "sex"]
    assert safe.iloc[2].isna().sum() >= 1 and safe.iloc[:2].notna().all().all()
    code, _, err = run(["risk", str(path), "--qi", 'age,"income'], capsys)
    flat = " ".join(err.split())
    assert code == 2 and "'--qi'" in flat
    assert 'holds a comma goes in double quotes: A,"B, C"' in flat
    # the options that take NAME=VALUE take the quotes too; spaces after a quote are fine
    code, _, err = run(
        [
            *("suppress", str(path), "--qi", 'age ,"income, net" ', "-k", "2"),
            *("--importance", '"income, net"=1,age=3', *wildcard, "--out", str(out)),
        ],
        capsys,
    )
    assert code == 0, err
    assert pd.read_csv(out)["income, net"].isna().sum() >= 1  # the less important one


def test_a_key_variable_whose_name_has_spaces_at_its_ends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # an exported header such as "age, sex": the second name is " sex"
    path = write(tmp_path / "d.csv", "age, sex\n30, F\n30, F\n40, M\n")
    code, _, err = run(["risk", str(path), "--qi", 'age," sex"', "-k", "2"], capsys)
    assert code == 0, err
    code, _, err = run(["risk", str(path), "--qi", "age,sex"], capsys)
    assert code == 2 and "' sex'" in err


def test_suppress_help_offers_only_the_policies_it_takes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(["suppress", "--help"], capsys)
    assert code == 0
    text = " ".join(out.split())
    assert "Missing-value policy: category (the guarantee against an intruder" in text
    assert "wildcard, probabilistic (measures" in text and "or alpha in [0, 1]" in text
    assert "[default: category]" in text
    assert "conservative" not in text
    code, out, _ = run(["risk", "--help"], capsys)
    assert "conservative (a measure only)" in " ".join(out.split())


def test_values_in_square_brackets_are_shown_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # console output is rich markup: a value such as "[x]" or "[/]" is text, not a tag
    path = write(tmp_path / "b.csv", "age,[/reg]\n30,[x]\n30,[bold]y\n41,[/]\n")
    code, out, err = run(["risk", str(path), "--qi", "age,[/reg]", "-k", "2"], capsys)
    assert code == 0, err
    assert "[x]" in out and "[bold]y" in out and "[/]" in out and "[/reg]" in out


@pytest.mark.parametrize(("sep", "line"), [(";", "\r\n"), ("|", "\n"), ("\t", "\r")])
@pytest.mark.parametrize("given", [False, True])
def test_csv_output_keeps_the_separator_and_line_breaks(
    tmp_path: Path, sep: str, line: str, given: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    # a decimal comma in a ;-separated file is text, written back unquoted
    text = line.join(["age;sex;w", "30;m;2,5", "30;m;1", "40;f;1", ""]).replace(";", sep)
    path = write(tmp_path / "d.csv", text)
    out = tmp_path / "o.csv"
    flags = ["--sep", "tab" if sep == "\t" else sep] if given else []
    code, _, err = run(
        [
            *("suppress", str(path), "--qi", "age,sex", "-k", "2", *flags),
            *("--missing", "wildcard", "--out", str(out)),  # the lone record: two cells
        ],
        capsys,
    )
    assert code == 0, err
    want = line.join(["age;sex;w", "30;m;2,5", "30;m;1", ";;1", ""]).replace(";", sep)
    assert out.read_bytes() == want.encode()
    # a TSV output is tab-separated whatever the input; its line breaks follow the input
    code, _, err = run(["risk", str(path), "--qi", "age", *flags, "--out", str(out)], capsys)
    assert code == 0, err
    assert (
        out.read_bytes().split(line.encode())[0]
        == sep.join(["age", "sex", "w", "fk", "at_risk"]).encode()
    )
    tsv = tmp_path / "o.tsv"
    code, _, err = run(["risk", str(path), "--qi", "age", *flags, "--out", str(tsv)], capsys)
    assert code == 0, err
    assert tsv.read_bytes().startswith(b"age\tsex\tw\tfk\tat_risk" + line.encode())


def test_decimal_comma_weights_get_a_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "d.csv", 'sex,w\nm,"2,5"\nf,"1,0"\nm,3\n')
    code, _, err = run(["risk", str(path), "--qi", "sex", "--weight", "w"], capsys)
    assert code == 2
    text = " ".join(err.split())
    assert "(first rows: 2: '2,5', 3: '1,0'). They look like decimal commas" in text
    path = write(tmp_path / "e.csv", "sex,w\nm,heavy\nf,1\n")
    code, _, err = run(["risk", str(path), "--qi", "sex", "--weight", "w"], capsys)
    assert code == 2 and "(first rows: 2: 'heavy')." in err and "decimal" not in err
    for engine in ("duckdb", "polars"):  # the engines read the column as text
        pytest.importorskip(engine)
        path = write(tmp_path / "d.csv", 'sex,w\nm,"2,5"\nf,"1,0"\nm,3\n')
        args = ["risk", str(path), "--qi", "sex", "--weight", "w", "--engine", engine]
        code, _, err = run(args, capsys)
        text = " ".join(err.split())
        assert code == 2 and "such as '1,0', '2,5'. They look like decimal commas" in text


def test_long_texts_are_cut_in_the_riskiest_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "d.csv", f"d,s\n{'x' * 500},m\nz,f\n")
    code, out, err = run(["risk", str(path), "--qi", "d,s"], capsys)
    assert code == 0, err
    assert "x" * 59 + "…" in out and "x" * 60 not in out
