"""Longitudinal data: one row per subject, suppression carried back to every record."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microsdc.exceptions import DataValidationError, InvalidParameterError
from microsdc.longitudinal import collapse_subjects, restore_subjects
from microsdc.suppression import local_suppression
from oracles.kanon import fk_bruteforce, rows_of


@pytest.fixture
def panel() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    n_subj = 40
    sex = rng.choice(["f", "m"], n_subj)
    town = rng.choice(list("ABCDEFG"), n_subj)
    age = rng.integers(3, 7, n_subj) * 10
    rows = []
    for s in range(n_subj):
        for visit in range(3):
            rows.append(
                {
                    "pid": f"p{s}",
                    "sex": sex[s],
                    "town": town[s],
                    "age": int(age[s]),
                    "visit": visit,
                    "y": float(rng.normal()),
                }
            )
    df = pd.DataFrame(rows).sample(frac=1.0, random_state=1)  # records of a subject scattered
    df.index = pd.Index([f"r{i}" for i in range(len(df))])
    return df


def test_round_trip_three_rows_per_subject(panel: pd.DataFrame) -> None:
    qi = ["sex", "town", "age"]
    snapshot = panel.copy(deep=True)
    res = local_suppression(panel, qi, 3, subject_id="pid")
    pd.testing.assert_frame_equal(panel, snapshot)
    out = res.data
    assert out.index.equals(panel.index)
    for c in ["pid", "visit", "y"]:
        pd.testing.assert_series_equal(out[c], panel[c])
    # identical suppressions on all the records of a subject
    pattern = out[qi].isna()
    assert (pattern.groupby(out["pid"]).nunique() == 1).all().all()
    assert res.n_cells > 0 and res.n_cells % 3 == 0
    # k-anonymous over subjects
    one = out.drop_duplicates("pid")
    fk, _ = fk_bruteforce(rows_of(one, qi))
    assert min(fk) >= 3
    assert res.details["n_subjects"] == 40
    assert str(out["age"].dtype) == "Int64"


def test_collapse_rules() -> None:
    df = pd.DataFrame(
        {
            "id": [1, 1, 1, 2, 2, 3],
            "a": ["x", "y", "y", "z", "z", None],
            "b": [1, 2, 2, 5, None, 7],
        }
    )
    mode = collapse_subjects(df, "id", ["a", "b"])
    # the most common combination of answers: (y, 2) twice for subject 1
    assert mode.data["a"].tolist()[:2] == ["y", "z"] and mode.data["b"].tolist()[0] == 2
    assert mode.row_subject.tolist() == [0, 0, 0, 1, 1, 2]
    dif = collapse_subjects(df, "id", ["a", "b"], rule="missing_if_differs")
    assert dif.differing.tolist() == [[True, True], [False, False], [False, False]]
    assert pd.isna(dif.data["a"].iloc[0]) and dif.data["a"].iloc[1] == "z"
    assert dif.data["b"].iloc[1] == 5  # a missing answer does not differ
    anon = dif.data.copy()
    back = restore_subjects(df, dif, anon)
    # differing answers are blanked on every record of the subject
    assert back["a"].iloc[:3].isna().all() and back["b"].iloc[:3].isna().all()
    assert back["a"].iloc[3] == "z"


def test_bad_input(panel: pd.DataFrame) -> None:
    bad = panel.copy()
    bad.loc[bad.index[0], "pid"] = None
    with pytest.raises(DataValidationError, match=r"subject id column 'pid'.*1 missing"):
        local_suppression(bad, ["sex", "town"], 2, subject_id="pid")
    with pytest.raises(InvalidParameterError, match="'rule' parameter"):
        collapse_subjects(panel, "pid", ["sex"], rule="first")
    with pytest.raises(InvalidParameterError, match="must not be a quasi-identifier"):
        collapse_subjects(panel, "pid", ["pid", "sex"])
    # the QI list where the subject id goes: named as a swap of the arguments
    with pytest.raises(InvalidParameterError, match=r"one column name\. Got \['sex', 'town'\]"):
        collapse_subjects(panel, ["sex", "town"], "pid")
    with pytest.raises(DataValidationError, match="varies within"):
        collapse_subjects(panel, "pid", ["sex"], keep=["visit"])
    col = collapse_subjects(panel, "pid", ["sex"])
    with pytest.raises(InvalidParameterError, match="one row per subject"):
        restore_subjects(panel, col, col.data.iloc[:3])
