"""Running a job: outputs, audit record against its schema, figures against the library."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

from microsdc.job import JobFileError, load_job, run_job
from microsdc.job.runner import RISK_BANDS, measure_risk
from microsdc.report import audit_schema
from microsdc.risk.individual import global_risk, individual_risk
from microsdc.risk.kanonymity import sample_frequencies
from microsdc.risk.ldiversity import l_diversity

SEED = "987654321"


def _validate(audit: dict[str, object]) -> None:
    jsonschema.Draft202012Validator(audit_schema()).validate(audit)


def test_swapping_job_writes_four_files(write_job: Callable[..., Path], tmp_path: Path) -> None:
    res = run_job(write_job())
    out = tmp_path / "out"
    assert set(res.written) == {"data", "audit", "report", "release"}
    assert sorted(p.name for p in out.iterdir()) == [
        "survey_anonymised.csv",
        "survey_audit.json",
        "survey_release.json",
        "survey_report.html",
    ]
    audit = json.loads((out / "survey_audit.json").read_text())
    _validate(audit)
    assert audit["parameters"]["swapping"]["seed_given"] is True
    data = pd.read_csv(out / "survey_anonymised.csv")
    assert len(data) == audit["input"]["n_records"] == res.audit["swapping"]["n_persons"]
    assert "hid_swapped" not in data.columns
    # age was released in bands, not in years
    assert set(data["age"].dropna()) <= {f"{lo}-{lo + 9}" for lo in range(0, 90, 10)}
    for path in out.iterdir():
        assert SEED not in path.read_text(encoding="utf-8"), path.name
    swp = audit["swapping"]
    assert swp["n_swapped_households"] > 0
    assert swp["share_households"] == pytest.approx(
        swp["n_swapped_households"] / swp["n_households"]
    )
    assert [lv["hierarchy"] for lv in swp["levels"]] == ["nuts1", "nuts2"]
    assert [t["step"] for t in audit["timings"]] == [
        "read",
        "recode",
        "risk_before",
        "risk_recoded",
        "swapping",
        "risk_after",
        "report",
        "write",
        "total",
    ]
    assert audit["environment"]["packages"]["microsdc"]


def test_risk_figures_match_the_library(write_job: Callable[..., Path]) -> None:
    path = write_job(steps='["risk"]')
    text = path.read_text()
    text = text[: text.index("[swapping]")] + text[text.index("[output]") :]
    path.write_text(text)
    res = run_job(path, write=False)
    assert res.written == {}
    assert not (path.parent / "out").exists()
    cfg = res.config
    data = res.data  # recoded, otherwise unchanged
    qi = list(cfg.quasi_identifiers)
    r = individual_risk(data, qi, weights="w", missing=cfg.missing)
    g = global_risk(data, qi, weights="w", hid="hid", missing=cfg.missing)
    fk = sample_frequencies(data, qi, missing=cfg.missing)["fk"]  # the job's default
    assert cfg.missing == "category"
    # no protection step: "after" is the recoded data ("before" is the file as read)
    before = res.audit["risk"]["after"]
    assert res.audit["risk"]["before"]["n_at_risk"] > before["n_at_risk"]
    assert before["n_records"] == len(data)
    assert before["n_at_risk"] == int((fk < 3).sum())
    assert before["n_unique"] == int((fk == 1).sum())
    assert before["fk_counts"]["counts"] == [
        int((fk == 1).sum()),
        int((fk == 2).sum()),
        int((fk >= 3).sum()),
    ]
    assert before["expected_reidentifications"] == pytest.approx(r.sum())
    assert before["global_risk"] == pytest.approx(g.global_risk)
    assert before["max_risk"] == pytest.approx(r.max())
    assert before["n_high_risk"] == int((r > 0.1).sum())
    assert sum(before["risk_bands"]["counts"]) == len(data)
    assert before["risk_bands"]["upper_edges"] == list(RISK_BANDS)
    assert before["household"]["expected_reidentifications"] == pytest.approx(
        g.household_expected_reidentifications
    )
    ld = l_diversity(data, qi, "hincome", missing=cfg.missing)["hincome"]
    assert before["l_diversity"]["hincome"]["n_failing"] == int((ld < 2).sum())
    assert before["missing_qi_cells"] == int(data[qi].isna().sum().sum())
    _validate(res.audit)


def test_measure_risk_entropy_and_recursive(write_job: Callable[..., Path]) -> None:
    base = write_job(steps='["risk"]').read_text()
    base = base[: base.index("[swapping]")]
    for extra, kind in (
        ('l_diversity = "entropy"\nl = 2\n', "entropy"),
        ('l_diversity = "recursive"\nc = 2.0\nl = 2\n', "recursive"),
    ):
        path = write_job(base.replace("k = 3\n", "k = 3\n" + extra))
        cfg = load_job(path)
        res = run_job(cfg, write=False)
        data = res.data
        fig = measure_risk(data, cfg)["l_diversity"]["hincome"]
        assert fig["kind"] == kind
        vals = l_diversity(
            data,
            list(cfg.quasi_identifiers),
            "hincome",
            kind=kind,
            c=cfg.c if kind == "recursive" else None,
            l=cfg.l if kind == "recursive" else None,
            missing=cfg.missing,
        )["hincome"]
        expected = int((~vals).sum()) if kind == "recursive" else int((vals < 2).sum())
        assert fig["n_failing"] == expected
        _validate(res.audit)


def test_recode_breaks_and_labels(tmp_path: Path) -> None:
    df = pd.DataFrame({"age": [3, 17, 18, 40, 64, 65, 90, None], "sex": list("mfmfmfmf")})
    df.to_csv(tmp_path / "d.csv", index=False)
    job = tmp_path / "j.toml"
    job.write_text(
        'steps = ["risk"]\n[input]\npath = "d.csv"\n[variables]\n'
        'quasi_identifiers = ["age", "sex"]\n[recode.age]\nbreaks = [0, 18, 65, 120]\n'
        'labels = ["child", "adult", "senior"]\n'
    )
    res = run_job(job, write=False)
    assert res.data["age"].astype(object).where(res.data["age"].notna(), None).tolist() == [
        "child",
        "child",
        "adult",
        "adult",
        "adult",
        "senior",
        "senior",
        None,
    ]
    assert res.audit["recode"] == [{"column": "age", "bins": 3, "distinct_before": 7}]
    job.write_text(job.read_text().replace("[0, 18, 65, 120]", "[0, 18, 65, 80]"))
    with pytest.raises(JobFileError, match=r"line 7: .*outside the edges") as e:
        run_job(job, write=False)
    assert e.value.key == "recode.age.breaks"


def test_recode_keeps_declared_missing_codes(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text("age,sex\n31,m\n.,m\n47,f\n,f\n-9,m\n", encoding="utf-8")
    job = tmp_path / "j.toml"
    job.write_text(
        'steps = ["risk"]\n[input]\npath = "d.csv"\nmissing_values = [".", -9]\n'
        '[variables]\nquasi_identifiers = ["age", "sex"]\n[recode.age]\nwidth = 10\n'
    )
    res = run_job(job, write=True)
    # the codes stay as they came, apart from the empty cell (and from cells blanked later)
    assert res.written["data"].read_text(encoding="utf-8").splitlines() == [
        "age,sex",
        "30-39,m",
        ".,m",
        "40-49,f",
        ",f",
        "-9,m",
    ]
    assert res.audit["recode"] == [{"column": "age", "bins": 2, "distinct_before": 2}]
    assert res.audit["risk"]["before"]["n_records"] == 5


def test_recode_of_text_is_an_error(tmp_path: Path) -> None:
    pd.DataFrame({"a": ["x", "y"], "b": [1, 2]}).to_csv(tmp_path / "d.csv", index=False)
    job = tmp_path / "j.toml"
    job.write_text(
        'steps = ["risk"]\n[input]\npath = "d.csv"\n[variables]\n'
        'quasi_identifiers = ["a", "b"]\n[recode.a]\nwidth = 5\n'
    )
    with pytest.raises(JobFileError, match=r"line 6: key 'recode.a' bins column 'a'.*non-numeric"):
        run_job(job)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv", "j.toml"]


def test_unknown_column_names_the_key(write_job: Callable[..., Path], tmp_path: Path) -> None:
    path = write_job()
    path.write_text(
        path.read_text().replace(
            'risk_variables = ["age", "national"]', 'risk_variables = ["age", "nation"]'
        )
    )
    with pytest.raises(JobFileError, match=r"line 25: key .swapping.risk_variables. names column"):
        run_job(path)
    assert not (tmp_path / "out").exists()


def test_output_dir_override_and_missing_values(tmp_path: Path) -> None:
    df = pd.DataFrame({"a": ["x", "x", "?", "y"], "b": [1, 1, 2, 2]})
    df.to_csv(tmp_path / "d.csv", index=False)
    job = tmp_path / "j.toml"
    job.write_text(
        'steps = ["risk"]\n[input]\npath = "d.csv"\nmissing_values = ["?"]\n[variables]\n'
        'quasi_identifiers = ["a", "b"]\n[risk]\nk = 2\nmissing = "wildcard"\n'
    )
    res = run_job(job, output_dir=tmp_path / "elsewhere")
    assert res.written["report"] == tmp_path / "elsewhere" / "d_report.html"
    before = res.audit["risk"]["before"]
    # "?" is a wildcard: (?, 2) matches (y, 2); (y, 2) matches it back
    assert before["n_at_risk"] == 0
    assert before["missing_qi_cells"] == 1
    _validate(res.audit)


def test_audit_schema_rejects_a_seed(write_job: Callable[..., Path]) -> None:
    res = run_job(write_job(), write=False)
    audit = json.loads(json.dumps(res.audit))
    _validate(audit)
    audit["parameters"]["swapping"]["seed"] = 1
    with pytest.raises(jsonschema.ValidationError):
        _validate(audit)


def test_job_file_hash_does_not_give_the_seed_back(
    write_job: Callable[..., Path], tmp_path: Path
) -> None:
    import hashlib

    job = write_job()
    text = job.read_text()
    assert "seed = " in text
    res = run_job(job, write=False)
    got = res.audit["job_file"]["sha256"]
    # the hash of the file as written would let anyone try seeds until it matches
    assert got != hashlib.sha256(job.read_bytes()).hexdigest()
    # the file with the seed's value blanked, as the report says to check it
    blanked = re.sub(r"(?m)^(seed\s*=\s*)\d+", r'\1""', text)
    assert blanked != text
    assert got == hashlib.sha256(blanked.encode()).hexdigest()
    # another seed: the same hash
    other = write_job(re.sub(r"(?m)^(seed\s*=\s*)\d+", r"\g<1>987654", text), name="b.toml")
    assert run_job(other, write=False).audit["job_file"]["sha256"] == got


@pytest.mark.parametrize(
    ("form", "blanked"),
    [
        ("seed = 0x{:X}", 'seed = ""'),
        ("seed = +{}", 'seed = ""'),
        ('"seed" = {}', '"seed" = ""'),
        ("seed={}  # private", 'seed=""  # private'),
        ("seed = 1_{}", 'seed = ""'),
    ],
)
def test_job_file_hash_blanks_the_seed_in_every_toml_form(
    write_job: Callable[..., Path], form: str, blanked: str
) -> None:
    import hashlib

    text = write_job().read_text()
    hashes = set()
    for i, seed in enumerate((7, 2022)):
        job = write_job(re.sub(r"(?m)^seed = \d+", form.format(seed), text), name=f"s{i}.toml")
        hashes.add(run_job(job, write=False).audit["job_file"]["sha256"])
    expected = re.sub(r"(?m)^seed = \d+", blanked, text)
    assert hashes == {hashlib.sha256(expected.encode()).hexdigest()}


def test_input_is_not_modified(write_job: Callable[..., Path], survey_csv: Path) -> None:
    before = survey_csv.read_bytes()
    run_job(write_job())
    assert survey_csv.read_bytes() == before


def test_same_seed_same_output(write_job: Callable[..., Path]) -> None:
    a = run_job(write_job(), write=False)
    b = run_job(write_job(), write=False)
    pd.testing.assert_frame_equal(a.data, b.data)
    assert a.audit["risk"] == b.audit["risk"]
    assert np.isfinite(a.audit["risk"]["after"]["expected_reidentifications"])


def test_warnings_go_into_the_audit_and_the_report(tmp_path: Path) -> None:
    pd.DataFrame({"code": range(1200), "sex": ["m", "f"] * 600}).to_csv(
        tmp_path / "d.csv", index=False
    )
    job = tmp_path / "j.toml"
    job.write_text(
        'steps = ["risk"]\n[input]\npath = "d.csv"\n[variables]\n'
        'quasi_identifiers = ["code", "sex"]\n'
    )
    res = run_job(job, write=False)  # filterwarnings = error: nothing escapes as a warning
    (entry,) = res.audit["warnings"]
    assert entry["category"] == "HighCardinalityWarning"
    assert entry["step"] == "risk_before"
    assert "'code' has 1,200 distinct values" in entry["message"]
    assert "1,200 distinct values" in res.report_html
    _validate(res.audit)


def test_risk_bands_are_closed_on_the_right() -> None:
    from microsdc.risk.summary import count_bands

    counts = count_bands(np.array([0.0, 1e-5, 2e-5, 0.1, 0.10001, 0.5, 1.0]))
    assert RISK_BANDS[:2] == (1e-5, 1e-4) and RISK_BANDS[-4:] == (0.1, 0.2, 0.5, 1.0)
    assert counts == [2, 1, 0, 0, 0, 1, 1, 1, 1]
