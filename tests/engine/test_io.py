"""Loading and saving tables: every format, the ARFF edge cases, kinds, missing values, errors."""

import numpy as np
import pandas as pd
import pytest

from engine.arff import read_arff
from engine.errors import ArborError
from engine.io import read_table, write_table
from engine.samples import load_sample, sample_names, sample_path
from engine.table import make_table


def write(tmp_path, name, content, mode="w"):
    path = tmp_path / name
    if mode == "wb":
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_csv_kinds_missing_and_first_appearance_order(tmp_path):
    path = write(tmp_path, "d.csv", "temp, windy ,play\n85,TRUE,no\n?,FALSE,yes\n70,,yes\n")
    table = read_table(path)
    assert list(table.frame.columns) == ["temp", "windy", "play"]
    assert dict(table.kinds) == {"temp": "numeric", "windy": "nominal", "play": "nominal"}
    assert table.frame["temp"].isna().tolist() == [False, True, False]
    assert table.frame["windy"].isna().tolist() == [False, False, True]
    assert list(table.frame["play"].cat.categories) == ["no", "yes"]
    assert table.target == "play"


def test_tsv_and_overrides(tmp_path):
    path = write(tmp_path, "d.tsv", "a\tb\tc\n1\tx\tp\n2\ty\tq\n")
    table = read_table(path, target="b", nominal=["a"], ignored=["c"])
    assert dict(table.kinds) == {"a": "nominal", "b": "nominal", "c": "ignored"}
    assert table.target == "b" and table.attributes == ["a"]


def test_numeric_override_on_text_names_the_value(tmp_path):
    path = write(tmp_path, "d.csv", "a,b\n1,x\n2,oops\n")
    with pytest.raises(ArborError, match="'b' cannot be numeric: value 'x'"):
        read_table(path, numeric=["b"])


def test_bom_and_latin1(tmp_path):
    table = read_table(write(tmp_path, "bom.csv", "\ufeffname,c\nx,p\n"))
    assert list(table.frame.columns) == ["name", "c"]
    latin = read_table(write(tmp_path, "l.csv", "name,c\ncaf\xe9,p\n".encode("latin-1"), "wb"))
    assert latin.frame["name"].iloc[0] == "café"
    assert any("Latin-1" in n for n in latin.notes)


@pytest.mark.parametrize(("name", "content", "message"), [
    ("empty.csv", "", "is empty"),
    ("ragged.csv", "a,b\n1,2\n3,4,5,6\n", "malformed"),
    ("binary.csv", b"\x00\x01\x02\xff" * 100, "binary"),
    ("fake.xlsx", "a,b\n1,2\n", "not a readable .xlsx"),
    ("fake.parquet", "a,b\n1,2\n", "not a readable Parquet"),
    ("dupes.csv", "a,a\n1,2\n", "duplicate column names"),
])
def test_bad_files_give_one_clear_message(tmp_path, name, content, message):
    path = write(tmp_path, name, content, "wb" if isinstance(content, bytes) else "w")
    with pytest.raises(ArborError, match=message):
        read_table(path)


def test_missing_directory_and_extension_errors(tmp_path):
    with pytest.raises(ArborError, match="no such file"):
        read_table(tmp_path / "nope.csv")
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(ArborError, match="is a folder"):
        read_table(tmp_path / "dir.csv")
    with pytest.raises(ArborError, match="unknown extension '.json'"):
        read_table(write(tmp_path, "d.json", "{}"))


def test_header_only_file_loads_with_no_rows(tmp_path):
    table = read_table(write(tmp_path, "h.csv", "a,b\n"))
    assert table.frame.shape == (0, 2)


ARFF = """% a comment
@RELATION 'my data'

@attribute 'out look' {sunny, 'over cast', rainy}
@attribute temp NUMERIC
@attribute note string
@attribute play {yes,no}

@data
sunny, 85, 'hello, world', no
'over cast',?,x,yes
% comment inside data
rainy , 70.5 ,"quote \\" in",yes
"""


def test_arff_edge_cases(tmp_path):
    table = read_arff(write(tmp_path, "d.arff", ARFF))
    frame = table.frame
    assert list(frame.columns) == ["out look", "temp", "note", "play"]
    assert list(frame["out look"].cat.categories) == ["sunny", "over cast", "rainy"]
    assert frame["out look"].tolist() == ["sunny", "over cast", "rainy"]
    assert np.isnan(frame["temp"].iloc[1]) and frame["temp"].iloc[2] == 70.5
    assert frame["note"].tolist() == ["hello, world", "x", 'quote " in']
    assert table.kinds["note"] == "nominal"


def test_arff_sparse_rows(tmp_path):
    text = "@relation s\n@attribute a numeric\n@attribute b numeric\n@attribute c {x,y}\n@data\n{1 5, 2 y}\n{0 2, 2 x}\n"
    frame = read_arff(write(tmp_path, "s.arff", text)).frame
    assert frame["a"].tolist() == [0, 2] and frame["b"].tolist() == [5, 0]
    assert frame["c"].tolist() == ["y", "x"]


@pytest.mark.parametrize(("text", "message"), [
    ("@relation r\n@attribute a numeric\n@data\n1,2\n", "line 4: 2 values, expected 1"),
    ("@relation r\n@attribute a {x,y}\n@data\nz\n", "value 'z' of 'a' is not among"),
    ("@relation r\n@attribute a blob\n@data\n", "line 2: unknown attribute type"),
    ("@relation r\n@attribute a numeric\n", "no @data"),
    ("hello\n", "line 1: expected @relation"),
    ("@relation r\n@attribute a {x,y\n@data\n", "not closed"),
])
def test_arff_errors_carry_line_numbers(tmp_path, text, message):
    with pytest.raises(ArborError, match=message):
        read_arff(write(tmp_path, "bad.arff", text))


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".arff", ".xlsx", ".parquet"])
def test_round_trip_keeps_values_kinds_order_and_missing(tmp_path, suffix):
    frame = pd.DataFrame({"t": [1.5, np.nan, 3.0], "w": ["b", None, "a"], "y": ["no", "yes", "no"]})
    table = make_table(frame, categories={"w": ["b", "a"], "y": ["yes", "no"]})
    path = tmp_path / f"x{suffix}"
    write_table(table, path)
    back = read_table(path)
    assert dict(back.kinds) == dict(table.kinds)
    assert back.frame["t"].isna().tolist() == [False, True, False]
    assert back.frame["w"].isna().tolist() == [False, True, False]
    assert back.frame["t"].iloc[2] == 3.0 and back.frame["w"].iloc[2] == "a"
    if suffix in (".arff", ".parquet"):  # formats that store the declared value order
        assert list(back.frame["y"].cat.categories) == ["yes", "no"]


def test_failed_save_leaves_the_old_file(tmp_path, monkeypatch, weather):
    path = tmp_path / "keep.csv"
    path.write_text("old contents")

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_csv", boom)
    with pytest.raises(ArborError, match="disk full"):
        write_table(weather, path)
    assert path.read_text() == "old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.csv"]


def test_unknown_save_extension(tmp_path, weather):
    with pytest.raises(ArborError, match="cannot save as .doc"):
        write_table(weather, tmp_path / "x.doc")


@pytest.mark.parametrize(("name", "shape", "target"), [
    ("weather", (14, 5), "play"), ("weather-numeric", (14, 5), "play"),
    ("restaurant", (12, 11), "WillWait"), ("toys", (16, 3), "Fun"),
    ("contact-lenses", (24, 5), "contact-lenses"), ("iris", (150, 5), "class"),
])
def test_samples(name, shape, target):
    table = load_sample(name)
    assert table.frame.shape == shape and table.target == target
    assert sample_path(name).exists()
    assert name in sample_names()


def test_weather_sample_is_the_seed_table(weather):
    sample = load_sample("weather")
    pd.testing.assert_frame_equal(sample.frame.astype(str), weather.frame.astype(str))
    assert list(sample.frame["windy"].cat.categories) == ["TRUE", "FALSE"]
    numeric = load_sample("weather-numeric").frame
    assert numeric["temperature"].tolist()[:3] == [85, 80, 83]


def test_unknown_sample():
    with pytest.raises(ArborError, match="unknown sample 'x'; the samples are weather"):
        load_sample("x")
