"""The ``microsdc microaggregate`` and ``microsdc noise`` commands."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_runner import run_cli


@pytest.fixture
def amounts_csv(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame(
        {
            "region": rng.choice([1, 2], n),
            "wage": rng.lognormal(9, 1, n).round(2),
            "pension": rng.lognormal(7, 1, n).round(2),
        }
    )
    frame["income"] = frame["wage"] + frame["pension"]
    path = tmp_path / "amounts.csv"
    frame.to_csv(path, index=False)
    return path


def test_microaggregate_command(
    amounts_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.csv"
    code, stdout, err = run_cli(
        [
            "microaggregate",
            str(amounts_csv),
            "--vars",
            "wage,pension",
            "-k",
            "4",
            "--strata",
            "region",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0, err
    original, released = pd.read_csv(amounts_csv), pd.read_csv(out)
    for col in ("wage", "pension"):
        sizes = released.groupby(["region", col]).size()
        assert sizes.min() >= 4
    assert released["income"].equals(original["income"])
    assert "at least 4 values" in stdout and "linked to their original" in stdout
    code, _, err = run_cli(
        [
            "microaggregate",
            str(amounts_csv),
            "--vars",
            "wage",
            "-k",
            "400",
            "--strata",
            "region",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 2 and "'region' = 1" in err and "k = 400" in err


def test_noise_command(
    amounts_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.csv"
    code, stdout, err = run_cli(
        [
            "noise",
            str(amounts_csv),
            "--vars",
            "wage,pension",
            "--relative-sd",
            "0.5",
            "--lower",
            "0",
            "--total",
            "income=wage,pension",
            "--seed",
            "3",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0, err
    released = pd.read_csv(out)
    assert (released[["wage", "pension"]] >= 0).all().all()
    np.testing.assert_allclose(released["income"], released["wage"] + released["pension"])
    assert "relative sd" in stdout
    code, _, err = run_cli(
        ["noise", str(amounts_csv), "--vars", "wage", "--keep-covariance", "--out", str(out)],
        capsys,
    )
    assert code == 2 and "--keep-covariance" in err


def test_noise_total_format(
    amounts_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(
        [
            "noise",
            str(amounts_csv),
            "--vars",
            "wage",
            "--total",
            "bad",
            "--out",
            str(tmp_path / "o.csv"),
        ],
        capsys,
    )
    assert code == 2 and "AGGREGATE=COMPONENT" in err


def test_groups_without_the_quantile_method_is_refused(
    amounts_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --groups sets the groups of --method quantile only: alone it used to be taken and
    # change nothing
    out = tmp_path / "out.csv"
    args = ["microaggregate", str(amounts_csv), "--vars", "wage", "--out", str(out)]
    for method in ([], ["--method", "mdav"]):
        code, _, err = run_cli([*args, *method, "--groups", "5"], capsys)
        message = " ".join(err.split())
        assert code == 2
        assert "--groups applies only with --method quantile (" in message
        assert "add --method quantile or leave --groups out." in message
        assert not out.exists()
    code, _, err = run_cli([*args, "--method", "quantile", "--groups", "5"], capsys)
    assert code == 0, err
    released = pd.read_csv(out)["wage"]
    assert released.nunique() == 5  # five groups of 60, each its mean
