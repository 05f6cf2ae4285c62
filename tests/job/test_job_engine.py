"""Job files on an engine input (``[input] engine``): a Parquet folder or glob, or a DuckDB
table, in; Parquet written by the engine out; the pandas job's cells and figures."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from microsdc.exceptions import DataValidationError
from microsdc.job import run_job
from microsdc.job.config import JobFileError, parse_job
from nested_close import assert_close

duckdb = pytest.importorskip("duckdb")
pytest.importorskip("polars")
pytest.importorskip("narwhals")
jsonschema = pytest.importorskip("jsonschema")

QI = ["age", "sex", "region"]

JOB = """title = "engine test"
steps = {steps}

[input]
path = "{path}"
missing_values = [-9]
{engine}

[variables]
quasi_identifiers = ["age", "sex", "region"]
weights = "w"
drop = ["code"]
{extra}

[risk]
k = 3
{risk}

{sections}

[output]
directory = "{out}"
"""

SUPPRESSION = '[suppression]\nimportance = ["sex", "region", "age"]\n'


def _frame(n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    age = pd.array(rng.integers(0, 12, n), dtype="Int64")
    age[rng.random(n) < 0.05] = pd.NA
    region = rng.integers(0, 15, n).astype("int32")
    region[rng.random(n) < 0.03] = -9  # a declared missing code
    return pd.DataFrame(
        {
            "age": age,
            "sex": rng.choice(["f", "m"], n),
            "region": region,
            "w": rng.uniform(20, 80, n).round(1),
            "code": rng.integers(0, 99, n),
            "hid": np.arange(n) // 2,
            "income": rng.integers(0, 5, n),
            "rid": np.arange(n),
            "zone": rng.choice(["n", "s"], n),
        }
    )


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``parts/a.parquet`` and ``parts/b.parquet`` (the rows in the order the engines read
    them), the same rows in ``whole.parquet`` and in table ``people`` of ``db.duckdb``."""
    root = tmp_path_factory.mktemp("engine_job")
    df = _frame()
    (root / "parts").mkdir()
    df.iloc[:250].to_parquet(root / "parts" / "a.parquet", index=False)
    df.iloc[250:].to_parquet(root / "parts" / "b.parquet", index=False)
    df.to_parquet(root / "whole.parquet", index=False)
    con = duckdb.connect(str(root / "db.duckdb"))
    con.execute(f"CREATE TABLE people AS SELECT * FROM read_parquet('{root / 'whole.parquet'}')")
    con.close()
    return root


def _job(
    root: Path,
    name: str,
    path: str,
    engine: str = "",
    *,
    steps: str = '["risk", "suppression"]',
    sections: str = SUPPRESSION,
    risk: str = 'missing = "wildcard"',  # the greedy the engines and pandas share
    extra: str = "",
) -> Path:
    text = JOB.format(
        steps=steps,
        path=path,
        engine=engine,
        extra=extra,
        risk=risk,
        sections=sections,
        out=f"out_{name}",
    )
    job = root / f"{name}.toml"
    job.write_text(text, encoding="utf-8")
    return job


def _released(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path).sort_values("rid").reset_index(drop=True)


def _same_cells(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert list(got.columns) == list(want.columns)
    for col in want.columns:
        a, b = got[col], want[col]
        np.testing.assert_array_equal(a.isna().to_numpy(), b.isna().to_numpy(), err_msg=col)
        observed = b.notna().to_numpy()
        assert a[observed].astype(object).tolist() == b[observed].astype(object).tolist(), col


@pytest.fixture(scope="module")
def pandas_job(data: Path) -> Any:
    return run_job(_job(data, "pandas", "whole.parquet"))


@pytest.mark.parametrize(
    ("engine", "path"),
    [("duckdb", "parts"), ("polars", "parts/*.parquet"), ("duckdb", "db.duckdb")],
)
def test_engine_job_releases_the_pandas_cells(
    data: Path, pandas_job: Any, engine: str, path: str
) -> None:
    table = '\ntable = "people"' if path.endswith(".duckdb") else ""
    name = f"{engine}_{path.split('.')[0].split('/')[0]}"
    res = run_job(_job(data, name, path, f'engine = "{engine}"{table}'))
    out = res.written["data"]
    assert out.suffix == ".parquet" and out.parent == data / f"out_{name}"
    assert out.name == ("people" if table else "parts") + "_anonymised.parquet"
    got, want = _released(out), _released(pandas_job.written["data"])
    _same_cells(got, want)
    assert "code" not in got.columns  # variables.drop
    assert int(want[QI].isna().sum().sum()) > int(_frame()[QI].isna().sum().sum())
    from microsdc.report import audit_schema

    jsonschema.validate(res.audit, audit_schema())
    a, b = res.audit, pandas_job.audit
    assert_close(a["risk"], b["risk"])
    assert a["risk"]["before"]["n_at_risk"] == 115 and a["risk"]["after"]["n_at_risk"] == 0
    # the prosecutor risk from the patterns is the one from the records
    assert_close(a["suppression"], b["suppression"])
    assert_close(a["intruder"], b["intruder"])
    assert_close(a["key_variables"], b["key_variables"])
    assert_close(a["variables"], b["variables"])
    assert a["input"]["n_records"] == 400 and a["input"]["n_columns"] == b["input"]["n_columns"]
    assert a["parameters"]["engine"] == {"name": engine, "table": "people" if table else None}
    assert "engine" not in b["parameters"] and "not_computed" not in b
    # the engine checks whether other columns give blanked cells back, as pandas: here
    # none does (tests/job/test_job_engine_recoverable.py has one that does)
    assert a["not_computed"] == []
    assert a["suppression"]["total"] > 0
    for audit in (a, b):
        said = [w for w in audit["warnings"] if "blanked values back" in w["message"]]
        assert said == [] and not [w for w in audit["warnings"] if "read back" in w["message"]]
    text = html.unescape(re.sub(r"<[^>]+>", " ", res.report_html))
    assert "give blanked values back" not in text and "Not checked here: whether" not in text
    assert res.written["report"].read_text(encoding="utf-8") == res.report_html
    hidden = [p.name for p in out.parent.iterdir() if p.name.startswith(".")]
    assert hidden == []  # no temporary file or folder is left


def test_input_digest_follows_the_files(data: Path) -> None:
    job = parse_job(
        JOB.format(
            steps='["risk"]',
            path="parts",
            engine='engine = "duckdb"',
            extra="",
            risk="",
            sections="",
            out="o",
        ),
        data / "x.toml",
    )
    from microsdc.job.engine import sha256_input

    first = sha256_input(job)
    assert len(first) == 64 and sha256_input(job) == first
    moved = data / "parts" / "b.parquet"
    moved.rename(data / "parts" / "c.parquet")  # same bytes, another name
    try:
        assert sha256_input(job) != first
    finally:
        (data / "parts" / "c.parquet").rename(moved)


@pytest.mark.parametrize("policy", ["category"])
def test_risk_only_job_measures_as_pandas(data: Path, policy: str) -> None:
    extra = 'household_id = "hid"\nsensitive = ["income"]'
    kw = {"steps": '["risk"]', "sections": "", "risk": f'missing = "{policy}"', "extra": extra}
    want = run_job(_job(data, f"p_{policy}", "whole.parquet", **kw), write=False).audit
    res = run_job(_job(data, f"e_{policy}", "parts", 'engine = "polars"', **kw), write=False)
    got = res.audit
    assert res.written == {}
    for when in ("before", "after"):
        g, w = dict(got["risk"][when]), dict(want["risk"][when])
        assert g.pop("household") is None and w.pop("household") is not None
        assert g.pop("l_diversity") == {} and w.pop("l_diversity")
        assert_close(g, w)
    assert got["suppression"] is None
    assert [s.split(":")[0] for s in got["not_computed"]] == [
        "The household risk was not computed",
        "l-diversity was not computed",
    ]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engine_job_bins_as_the_pandas_job(data: Path, engine: str) -> None:
    sections = SUPPRESSION + "\n[recode.age]\nwidth = 4\nstart = 1\n"
    want = run_job(_job(data, f"bin_pandas_{engine}", "whole.parquet", sections=sections))
    got = run_job(_job(data, f"bin_{engine}", "parts", f'engine = "{engine}"', sections=sections))
    a, b = _released(got.written["data"]), _released(want.written["data"])
    _same_cells(a, b)
    assert set(a["age"].dropna()) <= {"-3-0", "1-4", "5-8", "9-12"}
    assert (
        got.audit["recode"]
        == want.audit["recode"]
        == [{"column": "age", "bins": 4, "distinct_before": 12}]
    )
    assert_close(got.audit["risk"], want.audit["risk"])


BAD = [
    ({"sections": '[suppression]\nmethod = "exact"'}, "suppression.method", "exact"),
    ({"sections": '[suppression]\nlinked = { sex = ["code"] }'}, "suppression.linked", "linked"),
    (
        {"sections": "[suppression]\ndis_suda_threshold = 0.1"},
        "suppression.dis_suda_threshold",
        "special uniques",
    ),
    ({"risk": 'missing = "probabilistic"'}, "risk.missing", "probabilistic"),
    (
        {"sections": "[recode.age]\nbreaks = [0, 5, 12]"},
        "recode.age.breaks",
        "bands of one 'width' run in the engine",
    ),
    (
        {
            "steps": '["risk", "swapping"]',
            "sections": "[swapping]\nswaprate = 0.1",
            "extra": 'household_id = "hid"\nhierarchy = ["region"]',
        },
        "steps",
        "swapping step needs the records in memory",
    ),
]


@pytest.mark.parametrize(("change", "key", "text"), BAD)
def test_options_that_need_the_records_are_refused(
    data: Path, change: dict[str, str], key: str, text: str
) -> None:
    with pytest.raises(JobFileError, match=text) as info:
        run_job(_job(data, "bad", "parts", 'engine = "duckdb"', **change))
    assert info.value.key == key
    assert "needs the records in memory" in str(info.value)
    assert not (data / "out_bad").exists()
    # the same job on pandas is accepted (swapping needs its columns there, not here)
    if key != "steps":
        parse_job(_job(data, "ok", "whole.parquet", **change).read_text(), data / "ok.toml")


@pytest.mark.parametrize(
    ("path", "engine", "output", "key", "text"),
    [
        ("parts", "duckdb", 'directory = "parts/sub"', "output", "inside the input folder"),
        (
            "parts/*.parquet",
            "polars",
            'directory = "parts"\ndata = "a.parquet"',
            "output.data",
            "one of the input files",
        ),
        ("parts", "duckdb", 'data = "safe.csv"', "output.data", "must be a .parquet file"),
        (
            "db.duckdb",
            "duckdb",
            "",
            "input.path",
            r"name the table to read with 'input.table' \(its tables: 'people'\)",
        ),
        (
            'db.duckdb"\ntable = "people',
            "polars",
            "",
            "input.engine",
            'needs input.engine = "duckdb"',
        ),
        ('parts"\ntable = "people', "duckdb", "", "input.table", "is for a DuckDB database file"),
        ("nowhere", "duckdb", "", "input.path", "does not exist"),
        ("parts/*.csv", "duckdb", "", "input.path", "matches no file"),
        ('parts"\nsep = ";', "duckdb", "", "input.sep", "is for CSV files"),
    ],
)
def test_engine_inputs_and_outputs_checked_at_parse_time(
    data: Path, path: str, engine: str, output: str, key: str, text: str
) -> None:
    body = JOB.format(
        steps='["risk"]',
        path=path,
        engine=f'engine = "{engine}"',
        extra="",
        risk="",
        sections="",
        out="o",
    ).replace('[output]\ndirectory = "o"', f"[output]\n{output}")
    with pytest.raises(JobFileError, match=text) as info:
        parse_job(body, data / "job.toml")
    assert info.value.key == key


def test_table_without_engine_is_refused(data: Path) -> None:
    body = JOB.format(
        steps='["risk"]',
        path="db.duckdb",
        engine='table = "people"',
        extra="",
        risk="",
        sections="",
        out="o",
    )
    with pytest.raises(JobFileError, match=r'goes with input\.engine = "duckdb"') as info:
        parse_job(body, data / "job.toml")
    assert info.value.key == "input.table"


def test_unknown_table_and_column_named_by_key(data: Path) -> None:
    job = _job(data, "t", "db.duckdb", 'engine = "duckdb"\ntable = "nobody"')
    with pytest.raises(JobFileError, match=r"no table 'nobody' .*; its tables: 'people'") as info:
        run_job(job)
    assert info.value.key == "input.table"
    job = _job(data, "c", "parts", 'engine = "polars"', extra='sensitive = ["salary"]')
    with pytest.raises(JobFileError, match="'salary'") as info:
        run_job(job)
    assert info.value.key == "variables.sensitive"


def test_strata_and_combs_as_pandas(data: Path) -> None:
    sections = SUPPRESSION + 'strata = ["zone"]\ncombs = [2, 3]\n'
    want = run_job(_job(data, "ps", "whole.parquet", sections=sections))
    got = run_job(_job(data, "es", "parts", 'engine = "polars"', sections=sections))
    _same_cells(_released(got.written["data"]), _released(want.written["data"]))
    a, b = got.audit["suppression"], want.audit["suppression"]
    assert a["total"] == b["total"] > 38  # more cells than the full set alone needs
    assert a["per_variable"] == b["per_variable"]


def test_output_folder_given_at_run_time_is_checked(data: Path) -> None:
    job = _job(data, "od", "parts", 'engine = "duckdb"', steps='["risk"]', sections="")
    with pytest.raises(JobFileError, match="inside the input folder") as info:
        run_job(job, output_dir=data / "parts" / "out")
    assert info.value.key == "output"
    assert not (data / "parts" / "out").exists()


def test_cli_run_prints_what_was_not_computed(data: Path) -> None:
    from click.testing import CliRunner

    from microsdc.cli import cli

    job = _job(data, "cli", "parts", 'engine = "duckdb"', extra='household_id = "hid"')
    result = CliRunner().invoke(cli, ["run", str(job), "--no-progress"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "The household risk was not computed" in result.output
    assert (data / "out_cli" / "parts_anonymised.parquet").is_file()


@pytest.mark.parametrize(
    ("path", "table", "title", "data_name"),
    [
        ("parts/*.parquet", "", "parts/*.parquet", "parts_anonymised.parquet"),
        ("parts", "", "parts", "parts_anonymised.parquet"),
        ("db.duckdb", 'table = "people"', "db.duckdb, table people", "people_anonymised.parquet"),
    ],
)
def test_default_title_and_output_names(
    data: Path, path: str, table: str, title: str, data_name: str
) -> None:
    body = (
        f'steps = ["risk"]\n[input]\npath = "{path}"\nengine = "duckdb"\n{table}\n'
        '[variables]\nquasi_identifiers = ["sex"]\n'
    )
    job = parse_job(body, data / "job.toml")
    assert job.title == title
    assert job.output.data == data / data_name
    assert job.output.report.name == data_name.replace("anonymised.parquet", "report.html")


def _csv_with_missing_texts(path: Path) -> None:
    """``_frame`` as a ';'-separated CSV whose missing cells read NA, NULL or nothing."""
    df = _frame(120).drop(columns=["hid", "income", "zone"])
    df.loc[::7, "sex"] = None
    text = df.to_csv(sep=";", index=False, na_rep="NA").splitlines()
    out = [text[0]]
    for i, line in enumerate(text[1:]):
        out.append(line.replace(";NA;", [";NA;", ";NULL;", ";;"][i % 3]))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engine_job_reads_csv_missing_texts_and_sep_as_pandas(tmp_path: Path, engine: str) -> None:
    _csv_with_missing_texts(tmp_path / "d.csv")
    text = (tmp_path / "d.csv").read_text()
    assert ";NULL;" in text and ";;" in text and ";NA;" in text
    path = 'd.csv"\nsep = ";'
    kw: dict[str, Any] = {"steps": '["risk"]', "sections": ""}

    def declared(job: Path) -> Path:  # NA and NULL mean missing here: declared so
        text = job.read_text().replace(
            "missing_values = [-9]", 'missing_values = [-9, "NA", "NULL"]'
        )
        job.write_text(text)
        return job

    want = run_job(declared(_job(tmp_path, "p", path, **kw)), write=False).audit
    engine_job = _job(tmp_path, engine, path, f'engine = "{engine}"', **kw)
    got = run_job(declared(engine_job), write=False).audit
    assert want["risk"]["before"]["missing_qi_cells"] > 0
    assert_close(got["risk"]["before"], want["risk"]["before"])
    assert_close(got["key_variables"], want["key_variables"])


@pytest.mark.parametrize("encoding", ["latin-1", "utf-16"])
def test_engine_job_reads_latin1_and_utf16_on_duckdb_as_pandas(
    tmp_path: Path, encoding: str
) -> None:
    df = _frame(120).drop(columns=["hid", "income", "zone"])
    # 'é' and 'è' are distinct values that a lossy UTF-8 reading would merge
    df["sex"] = np.where(df["sex"] == "f", "fé", "fè")
    df.to_csv(tmp_path / "d.csv", sep=";", index=False, encoding=encoding)
    path = f'd.csv"\nencoding = "{encoding}'
    kw: dict[str, Any] = {"steps": '["risk"]', "sections": ""}
    want = run_job(_job(tmp_path, "p", path, **kw), write=False).audit
    got = run_job(_job(tmp_path, "d", path, 'engine = "duckdb"', **kw), write=False).audit
    assert want["key_variables"][1]["categories_input"] == 2
    assert_close(got["risk"]["before"], want["risk"]["before"])
    assert_close(got["key_variables"], want["key_variables"])


def test_engine_job_refuses_other_encodings_and_outputs_the_glob_reads(
    data: Path, tmp_path: Path
) -> None:
    (tmp_path / "d.csv").write_text("age,sex,region,w,code\n", encoding="utf-8")
    for engine, encoding, text in (
        ("polars", "latin-1", "the duckdb engine, which reads latin-1"),
        ("duckdb", "cp1252", "latin-1 (ISO-8859-1) and UTF-16 little-endian only"),
    ):
        job = _job(tmp_path, "e", f'd.csv"\nencoding = "{encoding}', f'engine = "{engine}"')
        with pytest.raises(JobFileError, match=re.escape(text)) as info:
            parse_job(job.read_text(), job)
        assert info.value.key == "input.encoding"
    body = _job(data, "g", "parts/*.parquet", 'engine = "polars"').read_text()
    body = body.replace('directory = "out_g"', 'directory = "parts"')
    with pytest.raises(JobFileError, match="would be read by the input pattern") as info:
        parse_job(body, data / "g.toml")
    assert info.value.key == "output"


@pytest.mark.parametrize("case", ["differ", "empty"])
def test_engine_job_parquet_folder_checked(tmp_path: Path, case: str) -> None:
    folder = tmp_path / "parts"
    folder.mkdir()
    if case == "differ":
        _frame(20).to_parquet(folder / "a.parquet", index=False)
        _frame(20).drop(columns=["zone"]).to_parquet(folder / "b.parquet", index=False)
    job = _job(tmp_path, case, "parts", 'engine = "duckdb"')
    message = "'zone'" if case == "differ" else "holds no Parquet file"
    with pytest.raises(JobFileError, match=message) as info:
        run_job(job)
    assert info.value.key == "input.path"
    assert not (tmp_path / f"out_{case}").exists()


def test_engine_job_without_narwhals_gives_the_install_command(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "narwhals", None)
    with pytest.raises(JobFileError, match=r'pip install "microsdc\[duckdb\]"') as info:
        run_job(_job(data, "nw", "parts", 'engine = "duckdb"'), write=False)
    assert info.value.key == "input.engine"


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engine_job_without_records_is_refused_as_on_pandas(tmp_path: Path, engine: str) -> None:
    (tmp_path / "parts").mkdir()
    _frame(0).to_parquet(tmp_path / "parts" / "a.parquet", index=False)
    _frame(0).to_parquet(tmp_path / "none.parquet", index=False)
    message = r"none\.parquet has a header \(9 column\(s\)\) but no records; nothing to anonymise"
    with pytest.raises(DataValidationError, match=message):
        run_job(_job(tmp_path, "p", "none.parquet"), write=False)  # pandas
    for path, name in (("none.parquet", "none.parquet"), ("parts/*.parquet", r"\*\.parquet")):
        job = _job(tmp_path, engine, path, f'engine = "{engine}"')
        with pytest.raises(DataValidationError, match=f"{name} has a header .* but no records"):
            run_job(job)
        assert not (tmp_path / f"out_{engine}").exists()
    (tmp_path / "d.csv").write_text("", encoding="utf-8")
    job = _job(tmp_path, "csv", "d.csv", f'engine = "{engine}"', steps='["risk"]', sections="")
    with pytest.raises(JobFileError, match=r"d\.csv is empty: it has no header line") as info:
        run_job(job)
    assert info.value.key == "input.path"


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engine_job_warns_once_about_a_key_variable_missing_in_every_record(
    tmp_path: Path, engine: str
) -> None:
    df = _frame(60)
    df["sex"] = None
    df.to_parquet(tmp_path / "d.parquet", index=False)
    notes = {}
    for name, line in (("p", ""), (engine, f'engine = "{engine}"')):
        audit = run_job(_job(tmp_path, name, "d.parquet", line), write=False).audit
        notes[name] = [w["message"] for w in audit["warnings"] if "every record" in w["message"]]
    assert notes[engine] == notes["p"]
    assert len(notes["p"]) == 1 and "key variable 'sex' is missing" in notes["p"][0]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engine_recode_keeps_codes_declared_as_text(tmp_path: Path, engine: str) -> None:
    frame = _frame()
    frame.loc[frame.index[:30], "age"] = -9
    frame.to_parquet(tmp_path / "d.parquet", index=False)
    sections = SUPPRESSION + "\n[recode.age]\nwidth = 5\nstart = 2\n"

    def job(name: str, engine_line: str) -> Path:
        path = _job(tmp_path, name, "d.parquet", engine_line, sections=sections)
        text = path.read_text().replace("missing_values = [-9]", 'missing_values = ["-9", "."]')
        path.write_text(text)
        return path

    want = run_job(job("pandas", ""))
    got = run_job(job(engine, f'engine = "{engine}"'))
    a, b = _released(got.written["data"]), _released(want.written["data"])
    _same_cells(a, b)
    assert (b["age"].astype(object) == "-9").sum() >= 25  # codes kept as written
    assert got.audit["recode"] == want.audit["recode"]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engine_job_runs_the_default_guarantee_on_patterns(data: Path, engine: str) -> None:
    from oracles.intruder import records_above

    job = _job(data, f"cat_{engine}", "parts", f'engine = "{engine}"', risk="")
    got = run_job(job)
    assert got.config.missing == "category"
    released = _released(Path(got.written["data"]))
    original = pd.read_parquet(data / "whole.parquet").sort_values("rid").reset_index(drop=True)
    assert records_above(original, released, QI, 3) == 0
    assert got.audit["intruder"]["after"]["n_above_1_over_k"] == 0
    assert got.audit["intruder"]["before"]["n_above_1_over_k"] == records_above(
        original, original, QI, 3
    )


def test_engine_job_refuses_columns_that_differ_only_in_case(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text("fk,Fk,x\n1,2,3\n1,2,3\n", encoding="utf-8")
    job = tmp_path / "j.toml"
    job.write_text(
        'steps = ["risk"]\n[input]\npath = "d.csv"\nengine = "duckdb"\n'
        '[variables]\nquasi_identifiers = ["fk", "Fk"]\n',
        encoding="utf-8",
    )
    with pytest.raises(JobFileError) as info:
        run_job(job)
    assert str(info.value).endswith(
        "d.csv has columns whose names differ only in case: 'fk', 'Fk'. DuckDB's column names "
        "are case-insensitive: it renames 'Fk' to 'Fk_1', so a column named as in the file "
        "could be read as another one. Rename them in the file so that no two differ only in "
        "case, or use the polars engine (or leave out the engine: pandas reads them as they "
        "are)."
    )
