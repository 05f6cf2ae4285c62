"""SPSS and Stata files keep codes, value labels, variable labels and user-missing values."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyreadstat
import pytest
from click.testing import CliRunner

from microsdc.cli import cli
from microsdc.io import file_metadata, read_table, write_table

VALUE_LABELS = {
    "sex": {1: "male", 2: "female"},
    "region": {1: "north", 2: "south", 3: "east"},
    "water": {1: "pipe", 2: "well", -99: "refused"},
}
COLUMN_LABELS = {"sex": "Sex of the person", "region": "Region of residence", "age": "Age"}


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    n = 60
    return pd.DataFrame(
        {
            "hid": np.repeat(np.arange(30), 2).astype(float),
            "region": np.repeat(rng.choice([1.0, 2.0, 3.0], 30), 2),
            "sex": rng.choice([1.0, 2.0], n),
            "water": np.r_[[-99.0] * 3, rng.choice([1.0, 2.0], n - 3)],
            "age": rng.integers(18, 80, n).astype(float),
        }
    )


def _write(path: Path) -> None:
    """A file as SPSS or Stata would write it (not through microsdc)."""
    df = _frame()
    if path.suffix == ".sav":
        pyreadstat.write_sav(
            df,
            str(path),
            column_labels=COLUMN_LABELS,
            variable_value_labels=VALUE_LABELS,
            missing_ranges={"water": [-99]},
        )
    else:
        pyreadstat.write_dta(
            df, str(path), column_labels=COLUMN_LABELS, variable_value_labels=VALUE_LABELS
        )


def _read_raw(path: Path) -> tuple[pd.DataFrame, object]:
    if path.suffix == ".sav":
        return pyreadstat.read_sav(str(path), user_missing=True)
    return pyreadstat.read_dta(str(path))


def _check_metadata(path: Path, *, user_missing: bool) -> pd.DataFrame:
    df, meta = _read_raw(path)
    labels = {k: {float(c): v for c, v in d.items()} for k, d in meta.variable_value_labels.items()}
    assert labels["sex"] == {1.0: "male", 2.0: "female"}
    assert labels["water"][-99.0] == "refused"
    assert meta.column_names_to_labels["sex"] == "Sex of the person"
    assert meta.column_names_to_labels["region"] == "Region of residence"
    if user_missing:
        assert meta.missing_ranges["water"] == [{"lo": -99.0, "hi": -99.0}]
    # codes are the codes of the file, never renumbered
    assert set(df["sex"].dropna()) <= {1.0, 2.0}
    return df


@pytest.mark.parametrize("suffix", [".sav", ".dta"])
def test_round_trip_keeps_codes_and_labels(tmp_path: Path, suffix: str) -> None:
    src = tmp_path / f"in{suffix}"
    _write(src)
    df = read_table(src)
    assert df["sex"].tolist() == _frame()["sex"].tolist()
    assert (df["water"] == -99).sum() == 3  # user-missing read as a value, not as missing
    meta = file_metadata(df)
    assert meta["format"] == suffix.strip(".").replace("sav", "spss").replace("dta", "stata")
    assert meta["column_labels"]["sex"] == "Sex of the person"
    out = tmp_path / f"out{suffix}"
    write_table(df, out)
    back = _check_metadata(out, user_missing=suffix == ".sav")
    assert back["sex"].tolist() == df["sex"].tolist()


def test_spss_to_stata_keeps_labels(tmp_path: Path) -> None:
    src = tmp_path / "in.sav"
    _write(src)
    out = tmp_path / "out.dta"
    write_table(read_table(src), out)
    back = _check_metadata(out, user_missing=False)
    assert (back["water"] == -99).sum() == 3


def test_labels_of_a_recoded_column_are_dropped_not_misapplied(tmp_path: Path) -> None:
    src = tmp_path / "in.sav"
    _write(src)
    df = read_table(src)
    df["sex"] = df["sex"].map({1.0: "m", 2.0: "f"})  # now text: the numeric labels no longer fit
    out = tmp_path / "out.sav"
    write_table(df, out)
    _, meta = pyreadstat.read_sav(str(out))
    assert "sex" not in meta.variable_value_labels
    assert meta.column_names_to_labels["sex"] == "Sex of the person"


@pytest.mark.parametrize("suffix", [".sav", ".dta"])
def test_risk_out_keeps_metadata(tmp_path: Path, suffix: str) -> None:
    src = tmp_path / f"in{suffix}"
    _write(src)
    out = tmp_path / f"out{suffix}"
    res = CliRunner().invoke(cli, ["risk", str(src), "--qi", "region,sex", "--out", str(out)])
    assert res.exit_code == 0, res.output
    back = _check_metadata(out, user_missing=suffix == ".sav")
    assert back["fk"].notna().all()


@pytest.mark.parametrize("suffix", [".sav", ".dta"])
def test_suppressed_cells_are_system_missing_apart_from_user_missing(
    tmp_path: Path, suffix: str
) -> None:
    src = tmp_path / f"in{suffix}"
    _write(src)
    out = tmp_path / f"out{suffix}"
    args = ["suppress", str(src), "--qi", "region,sex,water,age", "-k", "3", "--out", str(out)]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    back = _check_metadata(out, user_missing=suffix == ".sav")
    before = _frame()
    blanked = back["water"].isna() & before["water"].notna()
    # a -99 "refused" stays -99 unless suppressed; a suppressed cell is system missing
    assert ((back["water"] == -99) | blanked)[before["water"] == -99].all()
    assert not (back["water"] == -99)[before["water"] != -99].any()
    assert back[["region", "sex", "water", "age"]].isna().sum().sum() > 0


@pytest.mark.parametrize("suffix", [".sav", ".dta"])
def test_job_keeps_metadata(tmp_path: Path, suffix: str) -> None:
    src = tmp_path / f"in{suffix}"
    _write(src)
    job = tmp_path / "job.toml"
    job.write_text(
        'steps = ["risk", "swapping", "suppression"]\n'
        f'[input]\npath = "in{suffix}"\n'
        '[variables]\nquasi_identifiers = ["region", "sex", "water", "age"]\n'
        'household_id = "hid"\nhierarchy = ["region"]\n'
        "[recode.age]\nwidth = 20\n"
        '[swapping]\nrisk_variables = ["sex", "water"]\nseed = 5\n'
        '[suppression]\nimportance = ["region", "sex", "water", "age"]\n'
        '[output]\ndirectory = "out"\n'
    )
    res = CliRunner().invoke(cli, ["run", str(job), "-q", "--no-progress"])
    assert res.exit_code == 0, res.output
    back = _check_metadata(
        tmp_path / "out" / f"in_anonymised{suffix}", user_missing=suffix == ".sav"
    )
    if suffix == ".dta":  # Stata keeps a categorical as codes with value labels
        back, _ = pyreadstat.read_dta(
            str(tmp_path / "out" / "in_anonymised.dta"), apply_value_formats=True
        )
    ages = [a for a in back["age"] if isinstance(a, str) and a]  # missing text is "" in the file
    assert ages and all("-" in a for a in ages)  # binned: band labels
    audit = json.loads((tmp_path / "out" / "in_audit.json").read_text())
    assert audit["input"]["n_records"] == 60


def test_text_value_labels(tmp_path: Path) -> None:
    """SPSS labels text codes too; Stata cannot, so they are left out there."""
    src = tmp_path / "s.sav"
    pyreadstat.write_sav(
        pd.DataFrame({"s": ["a", "b", "a"]}),
        str(src),
        variable_value_labels={"s": {"a": "Alpha", "b": "Beta"}},
    )
    df = read_table(src)
    write_table(df, tmp_path / "s2.sav")
    write_table(df, tmp_path / "s2.dta")
    _, meta = pyreadstat.read_sav(str(tmp_path / "s2.sav"))
    assert meta.variable_value_labels == {"s": {"a": "Alpha", "b": "Beta"}}
    back, meta = pyreadstat.read_dta(str(tmp_path / "s2.dta"))
    assert back["s"].tolist() == ["a", "b", "a"] and not meta.variable_value_labels


def test_user_missing_codes_of_a_key_variable_are_pointed_out(tmp_path: Path) -> None:
    import warnings

    from microsdc.data.quality import warn_user_missing_codes
    from microsdc.exceptions import SDCWarning

    src = tmp_path / "in.sav"
    _write(src)
    df = read_table(src)
    with pytest.warns(SDCWarning, match=r"'water' holds codes the file declares user-missing: "):
        warn_user_missing_codes(df, ["water", "sex"], None, "--missing-values '{0}'")
    with pytest.warns(SDCWarning) as got:
        warn_user_missing_codes(df, ["water"], None, "--missing-values '{0}'")
    assert str(got[0].message).endswith(
        "-99 (3 record(s)). They are read as values, not as missing. If they mean missing, "
        "declare them: --missing-values '-99'."
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_user_missing_codes(df, ["water"], [-99])  # declared: nothing to say
        warn_user_missing_codes(df, ["sex"], None)  # no user-missing codes there
