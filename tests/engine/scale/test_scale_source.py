"""Reading a table in partitions (engine.scale.source): the schema settled in one pass is the
one make_table gives the whole table, each piece encodes as encode() would, and every
failure a file causes names the file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.errors import ArborError
from engine.scale.source import describe, encode_piece, find_files, scan


def _local(function, items, *args):
    return [function(item, *args) for item in items]


def _frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "x": rng.normal(size=n),
            "count": rng.integers(0, 5, n),
            "colour": rng.choice(["red", "green", "blue"], n),
            "flag": rng.random(n) < 0.5,
            "digits": rng.choice(["1", "2", "3.5"], n),  # text that is all numbers: numeric
            "cls": rng.choice(["yes", "no", "maybe"], n),
        }
    )
    df.loc[rng.random(n) < 0.1, "x"] = np.nan
    df.loc[rng.random(n) < 0.05, "colour"] = None
    df.loc[rng.random(n) < 0.05, "cls"] = None
    return df


def _write(tmp_path, frames, name="part"):
    for k, f in enumerate(frames):
        f.to_parquet(tmp_path / f"{name}.{k}.parquet")
    return str(tmp_path)


def test_schema_and_codes_match_the_whole_table(tmp_path):
    df = _frame()
    # Written in pieces; the second lacks the category "red" until later, the third is empty.
    parts = [df.iloc[:100], df.iloc[100:100], df.iloc[100:300]]
    location = _write(tmp_path, parts)
    dataset = scan(describe(location), _local)
    whole = encode(make_table(df.reset_index(drop=True), "cls"))
    schema = dataset.schema()
    assert schema == whole.schema
    X = np.vstack([encode_piece(p, dataset, "classification")[0] for p in dataset.pieces])
    y = np.concatenate([encode_piece(p, dataset, "classification")[1] for p in dataset.pieces])
    np.testing.assert_array_equal(X, whole.X)
    np.testing.assert_array_equal(y, whole.y)
    assert dataset.n_rows == whole.n_rows and dataset.n_missing_target == len(df) - whole.n_rows
    assert any("missing target" in n for n in dataset.notes)


def test_folders_sort_naturally_and_csv_globs_read_as_text(tmp_path):
    df = _frame(120)
    for k in range(12):
        df.iloc[10 * k : 10 * (k + 1)].to_csv(tmp_path / f"part.{k}.csv", index=False)
    fmt, files = find_files(str(tmp_path / "*.csv"))
    assert fmt == "csv" and [f.name for f in files][:3] == [
        "part.0.csv",
        "part.1.csv",
        "part.2.csv",
    ]
    dataset = scan(describe(str(tmp_path / "*.csv")), _local, "cls")
    whole = make_table(
        pd.read_csv(tmp_path / "part.0.csv", dtype=str, keep_default_na=False).iloc[:0], "cls"
    )
    assert [c.name for c in dataset.attributes] == list(whole.attributes)
    kinds = {c.name: c.kind for c in dataset.attributes}
    assert kinds == {
        "x": "numeric",
        "count": "numeric",
        "colour": "nominal",
        "flag": "nominal",
        "digits": "numeric",
    }


def test_kinds_can_be_set_and_columns_left_out(tmp_path):
    location = _write(tmp_path, [_frame()])
    dataset = scan(describe(location), _local, "cls", nominal=["count"], ignored=["flag"])
    names = {c.name: c for c in dataset.attributes}
    assert "flag" not in names and names["count"].kind == "nominal"
    assert names["count"].categories == tuple(str(v) for v in pd.unique(_frame()["count"]))
    with pytest.raises(ArborError, match="unknown column"):
        scan(describe(location), _local, "cls", numeric=["nope"])
    with pytest.raises(ArborError, match="cannot be numeric"):
        scan(describe(location), _local, "cls", numeric=["colour"])


def test_a_column_of_another_type_names_the_file(tmp_path):
    df = _frame()
    other = df.iloc[150:].copy()
    other["x"] = other["x"].astype(str)
    location = _write(tmp_path, [df.iloc[:150], other])
    with pytest.raises(
        ArborError,
        match=r"part\.1\.parquet: column 'x' holds text where "
        r"part\.0\.parquet holds numbers",
    ):
        describe(location)


def test_a_corrupt_or_foreign_file_names_the_file(tmp_path):
    location = _write(tmp_path, [_frame()])
    (tmp_path / "part.1.parquet").write_bytes(b"PAR1 this is not a parquet file at all")
    with pytest.raises(ArborError, match=r"part\.1\.parquet is not a readable Parquet file"):
        describe(location)
    (tmp_path / "part.1.parquet").write_text("name,value\n")
    with pytest.raises(ArborError, match=r"part\.1\.parquet is not a Parquet file"):
        describe(location)


def test_a_damaged_page_names_the_file_when_read(tmp_path):
    df = _frame()
    df.to_parquet(tmp_path / "part.0.parquet", compression=None)
    raw = bytearray((tmp_path / "part.0.parquet").read_bytes())
    raw[4:64] = b"\xff" * 60  # the first page header, the footer intact
    (tmp_path / "part.0.parquet").write_bytes(bytes(raw))
    with pytest.raises(ArborError, match=r"part\.0\.parquet"):
        dataset = scan(describe(str(tmp_path)), _local, "cls")
        encode_piece(dataset.pieces[0], dataset, "classification")


def test_a_missing_folder_or_mixed_formats_are_refused(tmp_path):
    with pytest.raises(ArborError, match="no such file or folder"):
        describe(str(tmp_path / "nothing"))
    _write(tmp_path, [_frame(10)])
    (tmp_path / "extra.csv").write_text("a\n1\n")
    with pytest.raises(ArborError, match="one kind at a time"):
        describe(str(tmp_path / "*"))
