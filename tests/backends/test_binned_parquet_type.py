"""A binned column is written with the Parquet type pandas writes for it (an ordered
dictionary of text), whichever engine ran: ``microsdc suppress``/``risk --bin`` and a
job's ``[recode]``."""

from __future__ import annotations

import glob
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cli_runner import run_cli
from microsdc.io import parquet_categories
from microsdc.io.parquet_categories import category_type, write_with_categories

ENGINES = ["pandas", "duckdb", "polars"]


@pytest.mark.parametrize("n", [1, 126, 127, 128, 32766, 32767])
def test_the_type_is_the_one_a_pandas_categorical_is_written_with(tmp_path: Path, n: int) -> None:
    labels = [f"c{i}" for i in range(n)]
    column = pd.Categorical(labels[:1], categories=labels, ordered=True)
    pd.DataFrame({"x": column}).to_parquet(tmp_path / "p.parquet")
    assert category_type(n) == pq.read_schema(tmp_path / "p.parquet").field("x").type


def test_copied_batch_by_batch_with_codes_after_the_labels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parquet_categories, "_BATCH_ROWS", 3)  # four batches
    values = ["20-29", None, "-9", "10-19", "20-29", "-8", "10-19", None, "20-29", "-9"]
    source, target = tmp_path / "in.parquet", tmp_path / "out.parquet"
    pq.write_table(pa.table({"age": values, "n": list(range(10))}), source)
    write_with_categories(str(source), str(target), {"age": ["10-19", "20-29"]}, n_extra=2)
    assert pq.read_schema(target).field("age").type == category_type(4)
    back = pd.read_parquet(target)
    assert back["age"].astype(object).where(back["age"].notna(), None).tolist() == values
    assert back["n"].tolist() == list(range(10))
    # each batch's dictionary: the labels in order, then its other values sorted
    first = pq.ParquetFile(target).read_row_group(0).column("age").chunk(0)
    assert first.dictionary.to_pylist() == ["10-19", "20-29", "-9"]
    assert first.type.ordered


def _data(tmp_path: Path) -> Path:
    rng = np.random.default_rng(3)
    n = 400
    age = rng.integers(15, 90, n).astype(float)
    age[:5] = -999.0  # a declared missing code, kept as written
    age[5:8] = np.nan
    frame = pd.DataFrame({"age": age, "sex": rng.choice(["f", "m"], n), "id": range(n)})
    path = tmp_path / "in.parquet"
    frame.to_parquet(path)
    return path


def _age(path: Path) -> tuple[pa.DataType, list[str], list[object]]:
    column = pq.read_table(path).column("age").combine_chunks()
    back = pd.read_parquet(path)["age"]
    return column.type, list(back.cat.categories), back.astype(object).tolist()


@pytest.mark.parametrize("command", ["suppress", "risk"])
def test_cli_bin_writes_the_pandas_type_on_every_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    src = _data(tmp_path)
    found = {}
    for engine in ENGINES:
        if engine != "pandas":
            pytest.importorskip(engine)
        out = tmp_path / f"{engine}.parquet"
        args = [command, str(src), "--qi", "age,sex", "-k", "2", "--bin", "age=10"]
        args += ["--missing-values", "-999", "--engine", engine, "--out", str(out)]
        code, _, err = run_cli(args, capsys)
        assert code == 0, err
        found[engine] = _age(out)
    kind, categories, values = found["pandas"]
    assert kind == pa.dictionary(pa.int8(), pa.string(), ordered=True)
    assert categories[0] == "10-19" and categories[-1] == "-999.0"
    for engine in ("duckdb", "polars"):
        assert found[engine][:2] == (kind, categories), engine
        if command == "risk":  # nothing blanked: the same values too
            assert found[engine][2] == values, engine


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_job_recode_writes_the_pandas_type(tmp_path: Path, engine: str) -> None:
    from microsdc.job import run_job

    pytest.importorskip(engine)
    src = _data(tmp_path)
    written = {}
    for name, line in (("pandas", ""), (engine, f'engine = "{engine}"\n')):
        job = tmp_path / f"{name}.toml"
        job.write_text(
            f'steps = ["risk"]\n[input]\npath = "{src.name}"\nmissing_values = [-999]\n{line}'
            '[variables]\nquasi_identifiers = ["sex", "age"]\n[recode.age]\nwidth = 5\n'
            f'[output]\ndirectory = "out_{name}"\n',
            encoding="utf-8",
        )
        run_job(job)
        (data,) = glob.glob(str(tmp_path / f"out_{name}" / "*.parquet"))
        written[name] = _age(Path(data))
    assert written[engine] == written["pandas"]
    assert written["pandas"][0] == pa.dictionary(pa.int8(), pa.string(), ordered=True)
