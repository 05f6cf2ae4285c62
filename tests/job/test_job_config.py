"""Job files: every mistake is reported with the key's name and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from microsdc.exceptions import SDCError
from microsdc.job.config import JobFileError, key_lines, load_job, parse_job

BASE = """steps = ["risk"]
[input]
path = "data.csv"
[variables]
quasi_identifiers = ["sex", "age"]
"""


def _err(text: str) -> JobFileError:
    with pytest.raises(JobFileError) as info:
        parse_job(text, "/jobs/job.toml", check_files=False)
    return info.value


def test_minimal_job_and_defaults() -> None:
    job = parse_job(BASE, "/jobs/job.toml", check_files=False)
    assert job.steps == ("risk",)
    assert job.quasi_identifiers == ("sex", "age")
    assert job.k == 3
    assert job.missing == "category"
    assert job.l_diversity == "distinct" and job.l == 2 and job.c is None
    assert job.input_path == Path("/jobs/data.csv")
    assert job.output.directory == Path("/jobs")
    assert job.output.data == Path("/jobs/data_anonymised.csv")
    assert job.output.audit == Path("/jobs/data_audit.json")
    assert job.output.report == Path("/jobs/data_report.html")
    assert job.title == "data.csv"
    assert job.weights is None and job.household_id is None and job.hierarchy == ()


def test_paths_are_relative_to_the_job_file() -> None:
    text = BASE.replace('"data.csv"', '"../data/in.parquet"') + (
        '[output]\ndirectory = "out"\ndata = "x.csv"\nreport = "r.html"\n'
    )
    job = parse_job(text, "/a/b/job.toml", check_files=False)
    assert job.input_path == Path("/a/data/in.parquet")
    assert job.output.data == Path("/a/b/out/x.csv")
    assert job.output.report == Path("/a/b/out/r.html")
    assert job.output.audit == Path("/a/b/out/in_audit.json")


def test_unknown_top_level_key() -> None:
    err = _err(BASE + "swaprate = 0.1\n")
    # a key after [variables] belongs to that table
    assert err.key == "variables.swaprate"
    assert err.line == 6
    assert "job.toml, line 6: Unknown key 'variables.swaprate'" in str(err)


def test_unknown_key_with_suggestion() -> None:
    err = _err(BASE + "[swapping]\nswaprat = 0.1\n")
    assert err.line == 7
    assert "Unknown key 'swapping.swaprat'" in str(err)
    assert "Did you mean 'swaprate'?" in str(err)
    err = _err('stepz = ["risk"]\n' + BASE)
    assert err.line == 1 and "Did you mean 'steps'?" in str(err)


def test_unknown_section() -> None:
    err = _err(BASE + "[swap]\nswaprate = 0.1\n")
    assert err.key == "swap" and err.line == 6


@pytest.mark.parametrize(
    ("extra", "key", "line", "wanted"),
    [
        ('[risk]\nk = "3"\n', "risk.k", 7, "must be an integer >= 1, got '3'"),
        ("[risk]\nk = 0\n", "risk.k", 7, "integer >= 1"),
        ("[risk]\nk = true\n", "risk.k", 7, "got true."),  # as the job file writes it
        (
            "[suppression]\nimportance = {a = 0}\n",
            "suppression.importance",
            7,
            "weights > 0 per quasi-identifier (the cost of blanking one cell), or sdcMicro's "
            "importance vector (1 to n, one per quasi-identifier in their order, 1 = blanked "
            "last), got {a = 0}.",
        ),
        ('[risk]\nmissing = "blank"\n', "risk.missing", 7, '"wildcard", "category"'),
        ("[risk]\nrisk_threshold = 2\n", "risk.risk_threshold", 7, "(0, 1]"),
        ('[output]\nreport = "r.pdf"\n', "output.report", 7, "ending in .html"),
        ('[output]\ndata = "r.xlsx"\n', "output.data", 7, "must end in one of"),
        ("[recode.age]\nwidth = -5\n", "recode.age.width", 7, "number > 0"),
        ("[recode.age]\nbreaks = [0, 10, 5]\n", "recode.age.breaks", 7, "increasing"),
        ("[recode.age]\nwidth = 5\nbreaks = [0, 5]\n", "recode.age", 6, "exactly one of"),
        ("[recode.age]\nbreaks = [0, 5, 9]\nlabels = ['a']\n", "recode.age.labels", 8, "one label"),
        ("[recode]\nage = 5\n", "recode.age", 7, "must be a table"),
        ("[input.x]\ny = 1\n", "input.x", 6, "Unknown key"),
    ],
)
def test_wrong_values(extra: str, key: str, line: int, wanted: str) -> None:
    err = _err(BASE + extra)
    assert err.key == key
    assert err.line == line
    assert wanted in str(err)
    assert f"line {line}:" in str(err)


def test_wrong_types_in_earlier_sections() -> None:
    err = _err(BASE.replace('["sex", "age"]', '"sex"'))
    assert err.key == "variables.quasi_identifiers" and err.line == 5
    assert "non-empty list" in str(err)
    err = _err(BASE.replace('["sex", "age"]', '["sex", "sex"]'))
    assert "distinct" in str(err)
    err = _err(BASE.replace('["risk"]', '["risk", "zap"]'))
    assert err.key == "steps" and err.line == 1 and '"suppression"' in str(err)
    err = _err(BASE.replace('"data.csv"', "3"))
    assert err.key == "input.path" and err.line == 3


def test_missing_required_keys_and_sections() -> None:
    err = _err(BASE.replace('steps = ["risk"]\n', ""))
    assert "missing required key 'steps'" in str(err)
    err = _err(BASE.replace('path = "data.csv"\n', ""))
    assert err.key == "input" and err.line == 2
    assert "missing required key 'input.path' in [input]" in str(err)
    err = _err('steps = ["risk"]\n[input]\npath = "a.csv"\n')
    assert "missing required section [variables]" in str(err)


def test_invalid_toml_reports_the_line() -> None:
    err = _err(BASE + "[risk]\nk = = 3\n")
    assert err.line == 7
    assert "not a valid TOML file" in str(err)


@pytest.mark.parametrize(
    ("lines", "line", "fixed"),
    [
        ("[recode.âge]\nwidth = 10\n", 6, '[recode."âge"]'),
        ("[recode.civil status]\nwidth = 10\n", 6, '[recode."civil status"]'),
        ("[recode.x]\nnoms.âge = 1\n", 7, 'noms."âge" = 1'),
    ],
)
def test_invalid_toml_key_with_accents_says_to_quote_it(lines: str, line: int, fixed: str) -> None:
    err = _err(BASE + lines)
    assert err.line == line
    assert str(err).endswith(
        ". A bare key (or table name) holds only A-Z, a-z, 0-9, _ and -: quote a column "
        f"name with other characters, as in {fixed}."
    )


def test_invalid_toml_without_a_key_to_quote_gives_no_quoting_hint() -> None:
    assert "quote" not in str(_err(BASE + "[risk]\nk = = 3\n"))


def test_steps_and_sections_must_agree() -> None:
    err = _err(BASE + "[swapping]\nswaprate = 0.1\n")
    assert err.key == "swapping" and err.line == 6
    assert "\"swapping\" is not in 'steps'" in str(err)
    err = _err(BASE.replace('["risk"]', '["risk", "swapping"]'))
    assert "household_id" in str(err) and err.line == 4


def test_swapping_defaults_risk_variables_to_non_geographic_qis() -> None:
    text = BASE.replace('["risk"]', '["swapping"]').replace(
        '["sex", "age"]', '["region", "sex", "age"]\nhousehold_id = "hh"\nhierarchy = ["region"]'
    )
    job = parse_job(text + "[swapping]\nseed = 5\n", "/j/job.toml", check_files=False)
    assert job.swapping["risk_variables"] == ["sex", "age"]
    params = job.parameters()
    assert "seed" not in params["swapping"]
    assert params["swapping"]["seed_given"] is True
    assert "5" not in repr(params)


def test_cross_checks() -> None:
    err = _err(BASE + '[risk]\nl_diversity = "recursive"\n')
    assert "needs key 'risk.c'" in str(err)
    err = _err(BASE.replace('["risk"]', '["suppression"]') + '[suppression]\nimportance = ["x"]\n')
    assert err.key == "suppression.importance" and "not quasi-identifiers" in str(err)
    err = _err(BASE.replace('["sex", "age"]', '["sex", "age"]\nweights = "sex"'))
    assert err.key == "variables.weights"
    err = _err(BASE.replace('["sex", "age"]', '["sex", "age"]\nsensitive = ["age"]'))
    assert err.key == "variables.sensitive"
    err = _err(BASE + "[recode.age]\nwidth = 5\nstart = 0\nbreaks = [0, 1]\n")
    assert err.key == "recode.age"


def test_outputs_must_not_overwrite_the_input() -> None:
    err = _err(BASE + '[output]\ndata = "data.csv"\n')
    assert err.key == "output" and "differ" in str(err)


def test_missing_input_file(tmp_path: Path) -> None:
    job = tmp_path / "job.toml"
    job.write_text(BASE, encoding="utf-8")
    with pytest.raises(JobFileError, match=r"job.toml, line 3: key 'input.path' names a file") as e:
        load_job(job)
    assert e.value.key == "input.path"
    assert isinstance(e.value, SDCError) and isinstance(e.value, ValueError)


def test_load_job_errors(tmp_path: Path) -> None:
    with pytest.raises(JobFileError, match="does not exist"):
        load_job(tmp_path / "nope.toml")
    with pytest.raises(JobFileError, match="folder"):
        load_job(tmp_path)
    bad = tmp_path / "latin.toml"
    bad.write_bytes(b'title = "\xe9"\n')
    with pytest.raises(JobFileError, match="UTF-8"):
        load_job(bad)


def test_key_lines_follows_tables_and_dotted_keys() -> None:
    text = """# comment
title = "x"
[a]
b = 1
"c d".e = 2
f = \"\"\"
g = 3
\"\"\"
[[h.i]]
j = {k = 1}
[ l . "m" ]
n=4
"""
    lines = key_lines(text)
    assert lines[("title",)] == 2
    assert lines[("a",)] == 3
    assert lines[("a", "b")] == 4
    assert lines[("a", "c d", "e")] == 5
    assert lines[("a", "f")] == 6
    assert ("a", "g") not in lines  # inside a multi-line string
    assert lines[("h", "i")] == 9
    assert lines[("h", "i", "j")] == 10
    assert lines[("l", "m")] == 11
    assert lines[("l", "m", "n")] == 12


def test_importance_ranks_every_qi_or_weighs_them() -> None:
    sup = BASE.replace('["risk"]', '["suppression"]')
    err = _err(sup + '[suppression]\nimportance = ["sex"]\n')
    assert err.key == "suppression.importance" and "leaves out 'age'" in str(err)
    job = parse_job(sup + "[suppression]\nimportance = {sex = 1, age = 2.5}\n", check_files=False)
    assert job.suppression["importance"] == {"sex": 1, "age": 2.5}
    err = _err(sup + "[suppression]\nimportance = {sex = 0, age = 1}\n")
    assert "weights > 0" in str(err)
    err = _err(sup + '[suppression]\nimportance = ["sex", "agee"]\n')
    assert "not quasi-identifiers: 'agee'" in str(err)
    assert "variables.quasi_identifiers lists 'age' instead" in str(err)
    err = _err(sup + '[suppression]\nmethod = "fast"\n')
    assert err.key == "suppression.method" and '"greedy", "exact"' in str(err)


def test_linked_and_drop_keys() -> None:
    sup = BASE.replace('["risk"]', '["risk", "suppression"]') + "[suppression]\n"
    job = parse_job(sup + 'linked = { sex = ["rel", "kin"] }\n', "/j/job.toml", check_files=False)
    assert job.suppression["linked"] == {"sex": ["rel", "kin"]}
    assert job.parameters()["suppression"]["linked"] == {"sex": ["rel", "kin"]}
    err = _err(sup + 'linked = { rel = ["sex"] }\n')
    assert err.key == "suppression.linked" and "'rel' is not one" in str(err)
    err = _err(sup + 'linked = { sex = ["age"] }\n')
    assert err.key == "suppression.linked" and "'age'" in str(err)
    err = _err(sup + 'linked = { sex = "rel" }\n')
    assert err.key == "suppression.linked" and "a table {key variable" in str(err)
    job = parse_job(BASE + 'drop = ["code"]\n', "/j/job.toml", check_files=False)
    assert job.drop == ("code",) and job.parameters()["drop"] == ["code"]
    err = _err(BASE + 'drop = ["age"]\n')
    assert err.key == "variables.drop" and "'age'" in str(err) and err.line == 6
