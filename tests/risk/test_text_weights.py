"""Weights held as text are refused on pandas as on the engines, in the same words.

A pandas weight column of texts ("1", "2.5") was converted to numbers without a word,
where a polars or DuckDB String column is refused ("must be numeric: it is String").
A weight column named by a command or a job, read from a CSV file as text only to
keep codes ("12.50"), still comes as numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import microsdc
from microsdc.exceptions import DataValidationError
from microsdc.io.text_types import weights_as_numbers
from microsdc.risk.individual import global_risk, household_risk
from microsdc.risk.summary import risk_summary
from microsdc.utility.continuous import continuous_utility, lorenz_curve

DF = pd.DataFrame(
    {
        "a": [1, 1, 2, 2, 2],
        "b": ["x", "x", "y", "y", "y"],
        "hid": [1, 1, 2, 3, 3],
        "v": [1.0, 2.0, 3.0, 4.0, 5.0],
    }
)
TEXTS = ["1", "2", "3.5", "4", "5"]

CALLS: dict[str, Callable[[pd.DataFrame], Any]] = {
    "sample_frequencies": lambda d: microsdc.sample_frequencies(d, ["a", "b"], weights="w"),
    "check_k_anonymity": lambda d: microsdc.check_k_anonymity(d, ["a", "b"], 2, weights="w"),
    "individual_risk": lambda d: microsdc.individual_risk(d, ["a", "b"], weights="w"),
    "global_risk": lambda d: global_risk(d, ["a", "b"], weights="w"),
    "household_risk": lambda d: household_risk(d, ["a", "b"], hid="hid", weights="w"),
    "risk_summary": lambda d: risk_summary(d, ["a", "b"], 2, weights="w"),
    "add_noise": lambda d: microsdc.add_noise(d, ["v"], weights="w", seed=1),
    "continuous_utility": lambda d: continuous_utility(d, d, ["v"], weights="w"),
}


@pytest.mark.parametrize("dtype", [object, "string"])
@pytest.mark.parametrize("func", sorted(CALLS))
def test_text_weights_are_refused_naming_the_column_and_the_fix(func: str, dtype: Any) -> None:
    df = DF.assign(w=pd.Series(TEXTS, dtype=dtype))
    before = df.copy()
    with pytest.raises(DataValidationError) as caught:
        CALLS[func](df)
    message = str(caught.value)
    assert message.startswith(f"The weight column 'w' of {func} must be numeric: it is text (dtype")
    assert "with values such as '1', '2', '3.5', '4', '5'." in message
    assert message.endswith("Convert it to numbers first, e.g. df['w'].astype(float).")
    assert caught.value.func == func
    pd.testing.assert_frame_equal(df, before)


@pytest.mark.parametrize("func", sorted(CALLS))
def test_numeric_weights_give_what_text_weights_gave_before(func: str) -> None:
    CALLS[func](DF.assign(w=[float(t) for t in TEXTS]))  # accepted
    CALLS[func](DF.assign(w=pd.Series([float(t) for t in TEXTS], dtype=object)))


def test_one_text_among_numbers_is_refused() -> None:
    df = DF.assign(w=pd.Series([1, 2, "3", 4, 5], dtype=object))
    with pytest.raises(
        DataValidationError, match=r"it is text \(dtype object\), with values such as '3'\."
    ):
        microsdc.sample_frequencies(df, ["a", "b"], weights="w")


def test_texts_that_are_not_numbers_still_name_their_rows() -> None:
    df = DF.assign(w=["1", "2,5", "x", "4", "5"])
    with pytest.raises(
        DataValidationError,
        match=r"2 value\(s\) that are not numbers \(first rows: 1: '2,5', 2: 'x'\)",
    ):
        microsdc.sample_frequencies(df, ["a", "b"], weights="w")


def test_an_array_of_texts_is_refused() -> None:
    with pytest.raises(
        DataValidationError, match=r"Pass numbers, e\.g\. np\.asarray\(weights, dtype=float\)\."
    ):
        microsdc.sample_frequencies(DF, ["a", "b"], weights=np.array(TEXTS))


def test_utility_weights_with_words_are_refused_not_read_as_zero() -> None:
    # before: 'x' became a weight of 0 in continuous_utility, NaN in lorenz_curve
    df = DF.assign(w=["1", "x", "3", "4", "5"])
    with pytest.raises(DataValidationError, match="with values such as 'x'"):
        continuous_utility(df, df, ["v"], weights="w")
    with pytest.raises(DataValidationError, match="with values such as 'x'"):
        lorenz_curve(df["v"], df["w"])


def test_pandas_and_polars_say_the_same() -> None:
    pl = pytest.importorskip("polars")
    pytest.importorskip("narwhals")
    messages = []
    for frame in (
        DF.assign(w=["1", "x", "3", "4", "y"]),
        pl.from_pandas(DF).with_columns(w=pl.Series(["1", "x", "3", "4", "y"])),
    ):
        try:
            microsdc.sample_frequencies(
                frame.assign(w=TEXTS) if isinstance(frame, pd.DataFrame) else frame.lazy(),
                ["a", "b"],
                weights="w",
            )
        except DataValidationError as exc:
            messages.append(str(exc))
    assert len(messages) == 2
    head = "The weight column 'w' of sample_frequencies must be numeric: it is "
    assert all(m.startswith(head) for m in messages)
    assert messages[1].startswith(
        head + "String, with values such as 'x', 'y'. Cast it to numbers first"
    )


def test_a_weight_column_read_as_text_comes_as_numbers() -> None:
    df = DF.assign(w=["12.50", "0012", ".5", "1e1", None])
    out = weights_as_numbers(df, "w")
    assert out["w"].tolist()[:4] == [12.5, 12.0, 0.5, 10.0] and np.isnan(out["w"].iloc[4])
    assert df["w"].tolist()[0] == "12.50"  # the input is not changed
    words = DF.assign(w=["12.50", "x", "1", "1", "1"])
    assert weights_as_numbers(words, "w") is words


def test_the_cli_reads_csv_weights_written_with_trailing_zeros(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from microsdc.cli import main

    rows = ["sex,w", "m,12.50", "f,2.50", "m,3.00", "f,1.20"]
    (tmp_path / "a.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "o.csv"
    main(["risk", str(tmp_path / "a.csv"), "--qi", "sex", "--weight", "w", "--out", str(out)])
    assert pd.read_csv(out)["Fk"].tolist() == [15.5, 3.7, 15.5, 3.7]


def test_a_job_reads_csv_weights_written_with_trailing_zeros(tmp_path: Path) -> None:
    rows = ["sex,age,w", "m,30,12.50", "f,30,2.50", "m,30,3.00", "f,40,1.20", "m,40,0.50"]
    (tmp_path / "a.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    job = tmp_path / "job.toml"
    job.write_text(
        'title = "t"\nsteps = ["risk"]\n[input]\npath = "a.csv"\n'
        '[variables]\nquasi_identifiers = ["sex", "age"]\nweights = "w"\n'
        '[risk]\nk = 2\n[output]\ndirectory = "out"\n',
        encoding="utf-8",
    )
    result = microsdc.run_job(job, write=False)
    assert result.data["w"].tolist() == [12.5, 2.5, 3.0, 1.2, 0.5]
