"""The real-data tests say where they looked and how to point them at the data."""

from __future__ import annotations

from pathlib import Path

import pytest

import real_data


def test_missing_data_skips_naming_the_folder_and_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MICROSDC_DATA", raising=False)
    monkeypatch.setattr(real_data, "DEFAULT", tmp_path)
    with pytest.raises(pytest.skip.Exception) as skip:
        real_data.real_data_file("testdata.csv")
    reason = str(skip.value)
    assert reason.startswith(real_data.SKIP_PREFIX)
    assert str(tmp_path) in reason
    assert "MICROSDC_DATA" in reason and "testdata.csv" in reason


def test_variable_set_to_a_folder_without_the_data_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MICROSDC_DATA", str(tmp_path))
    with pytest.raises(pytest.fail.Exception, match="MICROSDC_DATA"):
        real_data.real_data_file("testdata.csv")


def test_variable_names_the_folder_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "testdata.csv").write_text("a\n1\n", encoding="utf-8")
    monkeypatch.setenv("MICROSDC_DATA", str(tmp_path))
    assert real_data.real_data_file("testdata.csv") == tmp_path / "testdata.csv"


def test_the_summary_counts_the_skips() -> None:
    import conftest

    class Report:
        def __init__(self, reason: str) -> None:
            self.longrepr = ("x.py", 1, f"Skipped: {reason}")

    class Terminal:
        def __init__(self, reasons: list[str]) -> None:
            self.stats = {"skipped": [Report(r) for r in reasons]}
            self.lines: list[str] = []

        def write_sep(self, sep: str, title: str, **_: object) -> None:
            self.lines.append(title)

    term = Terminal([f"{real_data.SKIP_PREFIX}: a", f"{real_data.SKIP_PREFIX}: b", "other"])
    conftest.pytest_terminal_summary(term)
    assert len(term.lines) == 1
    assert term.lines[0].startswith("2 real-data test(s) skipped")
    assert "MICROSDC_DATA" in term.lines[0]
    quiet = Terminal(["other"])
    conftest.pytest_terminal_summary(quiet)
    assert quiet.lines == []
