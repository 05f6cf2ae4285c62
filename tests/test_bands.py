"""Bands of numbers: one label per band, each naming the band its values lie in, and the
number of bands counted (and refused above a limit) before any is built."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_runner import run_cli
from microsdc import InvalidParameterError, JobFileError
from microsdc.recoding import bin_numeric
from microsdc.recoding.bands import MAX_BANDS, bin_labels, check_band_count


def _bounds(label: str) -> tuple[float, float, bool]:
    """``[lo, hi)`` or ``[lo, hi]`` as (lo, hi, closed on the right)."""
    found = re.fullmatch(r"\[(\S+), (\S+)([)\]])", label)
    assert found is not None, label
    return float(found[1]), float(found[2]), found[3] == "]"


def test_quarter_bands_above_100000_get_labels_of_their_own() -> None:
    s = pd.Series([100000.1, 100000.3, 100000.6, 100000.9], name="income")
    out = bin_numeric(s, width=0.25)
    assert list(out.cat.categories) == [
        "[100000, 100000.25)",
        "[100000.25, 100000.5)",
        "[100000.5, 100000.75)",
        "[100000.75, 100001)",
    ]
    assert out.tolist() == list(out.cat.categories)


def test_six_digits_kept_where_they_tell_the_edges_apart() -> None:
    out = bin_numeric(pd.Series([0.0, 0.5, 1.0]), bins=3)
    assert list(out.cat.categories) == ["[0, 0.333333)", "[0.333333, 0.666667)", "[0.666667, 1]"]


@settings(max_examples=60, deadline=None)
@given(
    base=st.sampled_from([1e5, 123456.0, 2.5e6, 1e8, 987654321.0, -1e7]),
    width=st.sampled_from([0.25, 0.1, 0.01, 0.3, 0.05, 0.125]),
    steps=st.lists(st.integers(0, 40), min_size=2, max_size=10),
    jitter=st.lists(st.sampled_from([0.0, 0.2, 0.5, 0.9]), min_size=10, max_size=10),
)
def test_labels_unique_and_each_names_its_values_band(
    base: float, width: float, steps: list[int], jitter: list[float]
) -> None:
    values = [base + (i + j) * width for i, j in zip(steps, jitter, strict=False)]
    out = bin_numeric(pd.Series(values, name="x"), width=width)
    cats = list(out.cat.categories)
    assert len(set(cats)) == len(cats)
    for v, label in zip(values, out.tolist(), strict=True):
        lo, hi, _ = _bounds(label)
        # the label's edges are the band's, to within a thousandth of its width
        assert lo - width * 1e-3 <= v < hi + width * 1e-3, (v, label)
        assert abs((hi - lo) - width) <= width * 2e-3, label


def test_bin_labels_of_close_edges_differ() -> None:
    edges = np.array([1e9, 1e9 + 0.001, 1e9 + 0.002, 1e9 + 0.003])
    labels = bin_labels(edges, integer=False)
    assert labels == [
        "[1000000000, 1000000000.001)",
        "[1000000000.001, 1000000000.002)",
        "[1000000000.002, 1000000000.003]",
    ]


def test_tiny_width_refused_with_the_count_before_building() -> None:
    with pytest.raises(InvalidParameterError) as err:
        bin_numeric(pd.Series([1, 2, 50]), width=1e-7)
    message = str(err.value)
    assert err.value.param == "width"
    assert "490,000,001 bands" in message
    assert f"{MAX_BANDS:,}" in message
    assert message.endswith("Give a width of at least 0.0005.")


def test_suggested_width_fits() -> None:
    s = pd.Series([0.0, 0.3, 1.0])
    with pytest.raises(InvalidParameterError) as err:
        bin_numeric(s, width=1e-6)
    found = re.search(r"at least (\S+)\.$", str(err.value))
    assert found is not None, str(err.value)
    least = float(found[1])
    assert check_band_count(0.0, 1.0, least, 0.0, "f") <= MAX_BANDS
    out = bin_numeric(s, width=least)
    assert len(out.cat.categories) <= MAX_BANDS


@pytest.mark.parametrize("method", ["width", "quantile"])
def test_bin_count_above_the_limit_refused(method: str) -> None:
    with pytest.raises(InvalidParameterError) as err:
        bin_numeric(pd.Series([1.0, 2.0]), bins=10**9, method=method)
    assert err.value.param == "bins"
    assert "[1, 100000]" in str(err.value)


@pytest.mark.parametrize(
    ("values", "width"), [([1e15, 1e15 + 1], 1e-3), ([0.0, 1e-13], 1e-15), ([5.0], 1e-20)]
)
def test_width_too_fine_for_the_values_refused(values: list[float], width: float) -> None:
    with pytest.raises(InvalidParameterError, match="cannot be told apart"):
        bin_numeric(pd.Series(values), width=width)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engines_refuse_the_count_too(engine: str) -> None:
    pytest.importorskip("narwhals")
    from microsdc.recoding.lazy import bin_width_lazy

    frame = pd.DataFrame({"x": [1.0, 2.0, 50.0]})
    if engine == "polars":
        pl = pytest.importorskip("polars")
        native = pl.from_pandas(frame).lazy()
    else:
        duckdb = pytest.importorskip("duckdb")
        native = duckdb.connect().from_df(frame)
    with pytest.raises(InvalidParameterError, match="490,000,001 bands"):
        bin_width_lazy(native, "x", 1e-7)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_engines_label_large_values_apart(engine: str) -> None:
    pytest.importorskip("narwhals")
    from microsdc.recoding.lazy import bin_width_lazy

    frame = pd.DataFrame({"x": [100000.1, 100000.3, 100000.6], "i": [0, 1, 2]})
    if engine == "polars":
        pl = pytest.importorskip("polars")
        out, _ = bin_width_lazy(pl.from_pandas(frame).lazy(), "x", 0.25)
        got = out.collect().sort("i")["x"].to_list()
    else:
        duckdb = pytest.importorskip("duckdb")
        out, _ = bin_width_lazy(duckdb.connect().from_df(frame), "x", 0.25)
        got = [r[0] for r in out.order("i").select("x").fetchall()]
    assert got == ["[100000, 100000.25)", "[100000.25, 100000.5)", "[100000.5, 100000.75)"]


def test_cli_tiny_bin_width_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.csv"
    src.write_text("age,sex\n23,m\n24,f\n27,m\n", encoding="utf-8")
    args = ["suppress", str(src), "--qi", "age,sex", "--out", str(tmp_path / "o.csv")]
    code, _, err = run_cli([*args, "--bin", "age=1e-9"], capsys)
    assert code == 2
    assert "Option --bin is 1e-09" in err
    assert "4,000,000,001 bands" in err
    assert "Traceback" not in err and "method" not in err
    assert not (tmp_path / "o.csv").exists()


def test_cli_zero_bin_width_shown_as_typed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.csv"
    src.write_text("age,sex\n23,m\n24,f\n27,m\n", encoding="utf-8")
    args = ["suppress", str(src), "--qi", "age,sex", "--out", str(tmp_path / "o.csv")]
    code, _, err = run_cli([*args, "--bin", "age=0"], capsys)
    assert code == 2
    assert "Got 0 instead" in err and "0.0" not in err


def test_job_tiny_width_is_a_job_file_error(tmp_path: Path) -> None:
    from microsdc.job import run_job

    (tmp_path / "in.csv").write_text("age,sex\n23,m\n24,f\n27,m\n", encoding="utf-8")
    job = tmp_path / "job.toml"
    job.write_text(
        'steps = ["risk"]\n[input]\npath = "in.csv"\n'
        '[variables]\nquasi_identifiers = ["age", "sex"]\n'
        '[recode.age]\nwidth = 1e-9\n[output]\ndirectory = "out"\n',
        encoding="utf-8",
    )
    with pytest.raises(JobFileError) as err:
        run_job(job)
    assert err.value.key == "recode.age"
    assert "4,000,000,001 bands" in str(err.value)
    assert "'recode.age.width'" in str(err.value)


def test_given_label_that_is_a_kept_missing_code_is_refused() -> None:
    s = pd.Series([1, 5, -9, 30], name="age")
    with pytest.raises(InvalidParameterError) as err:
        bin_numeric(
            s, bins=[0, 18, 100], method="edges", labels=["-9", "adult"], missing_values=[-9]
        )
    assert err.value.param == "labels"
    assert "'-9'" in str(err.value) and "column 'age'" in str(err.value)


def test_auto_labels_and_kept_codes_stay_apart() -> None:
    # width 1 on integers: the band "-9" holds no value (every -9 is the code)
    s = pd.Series([-10, 5, -9, 30], name="age")
    out = bin_numeric(s, width=1, missing_values=[-9])
    assert out.tolist() == ["-10", "5", "-9", "30"]
    assert len(set(out.cat.categories)) == len(out.cat.categories)
