"""``microsdc run``: figures printed, files written; exit code 2 and nothing written on errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pandas as pd
import pytest
from click.testing import CliRunner

from microsdc.cli import cli
from microsdc.report import audit_schema
from oracles.release import assert_no_read_back

REPO = Path(__file__).resolve().parents[2]


def _invoke(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, ["run", *args], catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


def _suppression_available() -> bool:
    try:
        from microsdc.suppression import local_suppression  # noqa: F401
    except ImportError:
        return False
    return True


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_run_prints_figures_and_paths(write_job: Callable[..., Path], tmp_path: Path) -> None:
    code, out, err = _invoke(str(write_job()), "--no-progress")
    assert code == 0, err
    assert "records with fk < 3" in out
    assert "expected re-identifications" in out
    assert "Swapped" in out and "households" in out
    assert f"Report:          {tmp_path / 'out' / 'survey_report.html'}" in out.replace("\n", " ")
    assert (tmp_path / "out" / "survey_report.html").is_file()


def test_quiet_prints_only_paths(write_job: Callable[..., Path], tmp_path: Path) -> None:
    code, out, _ = _invoke(str(write_job()), "-q", "-o", str(tmp_path / "o2"))
    assert code == 0
    assert out.split() == [
        str(tmp_path / "o2" / name)
        for name in (
            "survey_anonymised.csv",
            "survey_audit.json",
            "survey_report.html",
            "survey_release.json",
        )
    ]


def test_dry_run_writes_nothing(write_job: Callable[..., Path], tmp_path: Path) -> None:
    job = write_job()
    before = _files(tmp_path)
    code, out, _ = _invoke(str(job), "--dry-run", "--no-progress")
    assert code == 0
    assert "nothing was written" in out
    assert _files(tmp_path) == before


BAD_JOBS = [
    ("swaprat = 0.1", "swaprate = 0.1", "line 23: Unknown key 'swapping.swaprat'"),
    ('k = "3"', "k = 3", "line 20: key 'risk.k' must be an integer >= 1, got '3'"),
    ("swaprate = 1.5", "swaprate = 0.1", "line 23: key 'swapping.swaprate' must be a number in"),
    ('steps = ["risk", "swap"]', 'steps = ["risk", "swapping"]', "line 3: key 'steps' must be"),
    ("k = 3 3", "k = 3", "line 20"),
    ('"nuts1", "agee"', '"nuts1", "age"', "line 9: key 'variables.quasi_identifiers' names"),
    ('path = "/nonexistent/file.csv"', None, "line 6: key 'input.path' names a file that does"),
    ('weights = "nuts1"', 'weights = "w"', "line 10: key 'variables.weights' names a quasi-id"),
]


@pytest.mark.parametrize(("bad", "good", "message"), BAD_JOBS)
def test_bad_job_exit_2_nothing_written(
    write_job: Callable[..., Path], tmp_path: Path, bad: str, good: str | None, message: str
) -> None:
    path = write_job()
    text = path.read_text()
    if good is None:
        lines = text.splitlines()
        lines[5] = bad
        text = "\n".join(lines) + "\n"
    else:
        assert good in text
        text = text.replace(good, bad, 1)
    path.write_text(text)
    before = _files(tmp_path)
    code, out, err = _invoke(str(path))
    assert code == 2
    assert message in err, err
    assert err.lstrip().startswith("Error: job.toml")
    assert out == ""
    assert _files(tmp_path) == before


def test_missing_job_file_exit_2(tmp_path: Path) -> None:
    code, _, err = _invoke(str(tmp_path / "none.toml"))
    assert code == 2
    assert "none.toml: the job file does not exist." in err
    assert _files(tmp_path) == []


def test_unreadable_input_exit_2(write_job: Callable[..., Path], tmp_path: Path) -> None:
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet")
    path = write_job()
    lines = path.read_text().splitlines()
    lines[5] = f'path = "{broken.as_posix()}"'
    path.write_text("\n".join(lines) + "\n")
    code, _, err = _invoke(str(path), "--no-progress")
    assert code == 2
    assert "line 6: key 'input.path' names a file that cannot be read" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("job", "steps"),
    [
        ("adult.toml", ["risk", "suppression"]),
        ("testdata.toml", ["risk", "swapping", "suppression"]),
        ("testdata_release.toml", ["risk", "suppression", "pram", "microaggregation", "noise"]),
    ],
)
def test_examples_on_real_data(
    shared_data: Path, tmp_path: Path, job: str, steps: list[str]
) -> None:
    if not _suppression_available():
        pytest.skip("microsdc.suppression.local_suppression is not available")
    code, out, err = _invoke(str(REPO / "examples" / job), "-o", str(tmp_path), "--no-progress")
    assert code == 0, err
    (audit_path,) = tmp_path.glob("*_audit.json")
    audit = json.loads(audit_path.read_text())
    jsonschema.Draft202012Validator(audit_schema()).validate(audit)
    assert audit["parameters"]["steps"] == steps
    assert audit["input"]["n_records"] == {"adult.toml": 32561}.get(job, 4580)
    if "microaggregation" in steps:
        assert audit["microaggregation"]["min_group_size"] >= 3
        assert audit["pram"]["per_variable"][0]["invariance_error"] < 1e-12
        cont = audit["continuous"]
        assert cont["variables"] == ["income", "expend", "savings"]
        assert {r["group"] for r in cont["by_group"]} >= {"1", "2"}
    if "suppression" in audit["parameters"]["steps"]:
        assert audit["risk"]["after"]["n_at_risk"] == 0
        assert audit["suppression"]["total"] > 0
    if "swapping" in audit["parameters"]["steps"]:
        assert audit["swapping"]["n_swapped_households"] > 0
        # no column nested in the hierarchy is left in place (brute-force oracle)
        from microsdc.job import load_job
        from oracles.geography import nested_columns

        cfg = load_job(REPO / "examples" / job)
        source = pd.read_csv(cfg.input_path)
        nested = nested_columns(source, cfg.household_id, list(cfg.hierarchy))
        assert set(nested) <= set(cfg.swapping.get("carry_along", []))
        # household ids in the released file no longer follow the geography
        (released_path,) = tmp_path.glob("*_anonymised.csv")
        released = pd.read_csv(released_path)
        hid, first_area = cfg.household_id, cfg.hierarchy[0]
        areas = released.groupby(hid, sort=True)[first_area].first().dropna().to_numpy()
        runs = 1 + int((areas[1:] != areas[:-1]).sum())
        shares = pd.Series(areas).value_counts(normalize=True)
        assert runs > 0.5 * (1 + (len(areas) - 1) * (1 - (shares**2).sum()))
    assert "expected re-identifications" in out
    # nothing released gives a blanked key value back, but what each job warns about:
    # Adult's sampling weight (records of one weighting cell of age, sex and race share it,
    # and a released record tells the blanked values of its twin); testdata's water, a
    # household variable blanked for one member and shown by the others
    known = {
        "adult.toml": frozenset({("age", "fnlwgt"), ("race", "fnlwgt"), ("sex", "fnlwgt")}),
        "testdata.toml": frozenset({("water", "ori_hid")}),
        "testdata_release.toml": frozenset(),
    }[job]
    (released,) = tmp_path.glob("*_anonymised.*")
    assert_no_read_back(REPO / "examples" / job, released, known)
    said = " ".join(n["message"] for n in audit["warnings"] if "read back" in n["message"])
    assert {(k, c) for k, c in known if f"{k!r} from {c!r}" in said} == known


def _small_job(tmp_path: Path, csv: str, body: str) -> Path:
    (tmp_path / "d.csv").write_text(csv)
    job = tmp_path / "job.toml"
    job.write_text('steps = ["risk", "suppression"]\n[input]\npath = "d.csv"\n' + body)
    return job


def test_step_errors_name_the_job_key(tmp_path: Path) -> None:
    if not _suppression_available():
        pytest.skip("microsdc.suppression.local_suppression is not available")
    job = _small_job(
        tmp_path,
        "a,b\n1,2\n3,4\n",
        '[variables]\nquasi_identifiers = ["a"]\n[risk]\nk = 3\n[suppression]\nmethod = "greedy"\n',
    )
    code, _, err = _invoke(str(job), "--no-progress")
    assert code == 2
    assert "Key 'risk.k' must be at most the number of records" in err
    assert " parameter of " not in err


def test_recode_errors_name_the_job_key(tmp_path: Path) -> None:
    job = _small_job(
        tmp_path,
        "a,b\n1,2\n3,4\n",
        '[variables]\nquasi_identifiers = ["a"]\n[recode.a]\nbreaks = [5, 9]\n'
        'labels = ["x"]\n[suppression]\nmethod = "greedy"\n',
    )
    code, _, err = _invoke(str(job), "--no-progress")
    assert code == 2
    assert "recode.a" in err and " parameter of bin_numeric" not in err


def test_job_drops_and_links_columns(tmp_path: Path) -> None:
    if not _suppression_available():
        pytest.skip("microsdc.suppression.local_suppression is not available")
    rows = ["e,code,s,rel"]
    rows += [
        f"{e},{c},{s},{r}"
        for e, c in (("BA", 1), ("MA", 2))
        for s, r in (("m", "h"), ("f", "w"))
        for _ in range(15)
    ]
    rows += ["BA,1,x,o"]
    job = _small_job(
        tmp_path,
        "\n".join(rows) + "\n",
        '[variables]\nquasi_identifiers = ["e", "s"]\ndrop = ["code"]\n'
        '[risk]\nk = 2\nmissing = "wildcard"\n'
        '[suppression]\nimportance = ["e", "s"]\nlinked = { s = ["rel"] }\n',
    )
    code, _, err = _invoke(str(job), "-o", str(tmp_path / "out"), "--no-progress")
    assert code == 0, err
    released = pd.read_csv(tmp_path / "out" / "d_anonymised.csv")
    assert list(released.columns) == ["e", "s", "rel"]
    assert released["s"].isna().tolist() == [False] * 60 + [True]
    assert released["rel"].isna().tolist() == [False] * 60 + [True]
    audit = json.loads((tmp_path / "out" / "d_audit.json").read_text())
    jsonschema.Draft202012Validator(audit_schema()).validate(audit)
    assert audit["suppression"]["linked_cells"] == {"rel": 1}
    assert audit["parameters"]["drop"] == ["code"]
    assert_no_read_back(job, tmp_path / "out" / "d_anonymised.csv")


def test_function_names_left_out_of_job_messages() -> None:
    from microsdc._core.messages import render
    from microsdc.exceptions import DataValidationError

    def shown(message: str, func: str) -> str:
        return render(DataValidationError(message, func=func), {})

    assert (
        shown("Column 'h' (used as hid by record_swap) has missing values", "record_swap")
        == "Column 'h' (used as hid) has missing values"
    )
    assert (
        shown("The frames given to prosecutor_risk must hold the same records", "prosecutor_risk")
        == "The frames must hold the same records"
    )
    # a longer name that starts with the function's is left whole
    assert shown("a count of record_swapped ids", "record_swap") == "a count of record_swapped ids"
    # another function's name is not the error's to drop
    assert shown("as given to bin_numeric", "record_swap") == "as given to bin_numeric"
