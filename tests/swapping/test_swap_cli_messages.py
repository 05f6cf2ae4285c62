"""What ``microsdc swap`` says when it swaps more than the swap rate or finds no donor."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from microsdc.cli import cli as main
from microsdc.exceptions import DisclosureRiskWarning
from microsdc.report.sections import swap_rate_note
from microsdc.swapping import record_swap_result
from real_data import real_data_file


def _frame() -> pd.DataFrame:
    """20 households in 2 areas; area b has 2 households, all 10 households of area a are unique."""
    rows = []
    for h in range(12):
        area = "a" if h < 10 else "b"
        rows.append({"hid": h, "area": area, "age": h if area == "a" else 99, "size": h % 2})
    return pd.DataFrame(rows)


def test_note_says_why_and_what_to_change() -> None:
    note = swap_rate_note(300, 1000, 0.05, 363, 3, ["water", "sex", "age"])
    assert note is not None
    assert "300 of 1,000 households (30.0 %)" in note
    assert "swap rate of 5 %" in note and "the rate is a minimum" in note
    assert "every household at risk is swapped" in note and "363 households" in note
    assert "lower -k" in note and "coarser risk variables" in note
    assert "similarity" not in note
    # at the rate (25 pairs = 50 households, plus rounding) nothing is said
    assert swap_rate_note(50, 1000, 0.05, 30, 3, ["age"]) is None
    assert swap_rate_note(0, 0, 0.05, 0, 3, ["age"]) is None


@pytest.mark.parametrize(("similar", "relax"), [(None, False), ([["size"]], True)])
def test_no_donor_warning_mentions_profiles_only_when_given(similar, relax) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        record_swap_result(
            _frame(), "hid", ["area"], similar, k_anonymity=2, risk_variables=["age"], seed=1
        )
    messages = [str(w.message) for w in caught if issubclass(w.category, DisclosureRiskWarning)]
    assert any("found no donor" in m for m in messages), messages
    text = " ".join(messages)
    assert ("similarity profiles" in text) is relax
    if not relax:
        assert "too few households" in text and "lower k" in text


def test_issue_command_explains_the_share(tmp_path: Path) -> None:
    testdata = real_data_file("testdata.csv")
    res = CliRunner().invoke(
        main,
        [
            "swap",
            str(testdata),
            "--hid",
            "ori_hid",
            "--hierarchy",
            "urbrur",
            "--risk-variables",
            "water,sex,age",
            "-k",
            "3",
            "--seed",
            "1",
            "--out",
            str(tmp_path / "s.csv"),
        ],
    )
    assert res.exit_code == 0, res.output
    out = " ".join(res.stdout.split())
    assert "more than the swap rate of 5 %" in out
    assert "the rate is a minimum" in out
    err = " ".join(res.stderr.split())
    assert "found no donor" in err and "similarity" not in err


def test_column_typo_gets_a_suggestion(tmp_path: Path) -> None:
    data = tmp_path / "d.csv"
    _frame().to_csv(data, index=False)
    res = CliRunner().invoke(
        main,
        [
            "swap",
            str(data),
            "--hid",
            "HID",
            "--hierarchy",
            "area",
            "--risk-variables",
            "age",
            "--out",
            str(tmp_path / "o.csv"),
        ],
    )
    assert res.exit_code == 2
    assert "Did you mean 'hid'?" in res.stderr
