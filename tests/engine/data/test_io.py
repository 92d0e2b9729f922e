"""Loading and saving tables by extension: every format, kind inference and overrides, text
encodings, round trips, atomic saves, and one clear message for every bad file."""

import os

import numpy as np
import openpyxl
import pandas as pd
import pytest

import engine.atomic
import engine.data.io
from engine.data.io import read_table, write_table
from engine.data.table import make_table
from engine.errors import ArborError


def write(tmp_path, name, content):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


# --- every format loads ---------------------------------------------------------------------


def test_csv_infers_kinds_order_and_missing(tmp_path):
    path = write(
        tmp_path, "d.csv", " temp , windy,play\n85, TRUE ,no\n?,FALSE,yes\n70.5,,yes\nNA,TRUE,no\n"
    )
    table = read_table(path)
    assert list(table.frame.columns) == ["temp", "windy", "play"]
    assert dict(table.kinds) == {"temp": "numeric", "windy": "nominal", "play": "nominal"}
    assert table.frame["temp"].dtype == np.float64
    assert table.frame["temp"].isna().tolist() == [False, True, False, True]
    assert table.frame["windy"].tolist()[:2] == ["TRUE", "FALSE"] and pd.isna(
        table.frame["windy"][2]
    )
    assert list(table.frame["play"].cat.categories) == ["no", "yes"]  # first appearance
    assert table.target == "play" and table.source == str(path) and table.notes == ()


def test_csv_quoted_fields(tmp_path):
    path = write(tmp_path, "q.csv", 'name,c\n"Smith, J",x\n"two\nlines",y\n"say ""hi""",x\n')
    assert read_table(path).frame["name"].tolist() == ["Smith, J", "two\nlines", 'say "hi"']
    spaced = write(tmp_path, "s.csv", 'a, b\n1, "x, y"\n2,z\n')
    assert read_table(spaced).frame["b"].tolist() == ["x, y", "z"]
    ragged = write(tmp_path, "r.csv", 'a,b\n"two\nlines",x\n3\n')
    with pytest.raises(ArborError, match="r.csv is malformed: line 4 has 1 values, expected 2"):
        read_table(ragged)


@pytest.mark.parametrize("suffix", [".tsv", ".tab", ".txt"])
def test_tab_separated(tmp_path, suffix):
    table = read_table(write(tmp_path, f"d{suffix}", "a b\tc\n1\tx, y\n2\tz\n"))
    assert list(table.frame.columns) == ["a b", "c"]
    assert table.frame["c"].tolist() == ["x, y", "z"] and table.kinds["a b"] == "numeric"


def test_arff_by_extension(tmp_path):
    path = write(
        tmp_path, "d.ARFF", "@relation r\n@attribute a {z, y}\n@attribute b numeric\n@data\ny,1\n"
    )
    table = read_table(path, target="a")
    assert table.target == "a" and list(table.frame["a"].cat.categories) == ["z", "y"]


def test_xlsx_typed_cells(tmp_path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "days"
    for row in [
        [" outlook", "temp", "windy", "play"],
        ["sunny", 85, True, "no"],
        ["rainy", None, False, "yes"],
        ["sunny", 70.5, True, "yes"],
    ]:
        sheet.append(row)
    book.create_sheet("other").append(["ignored"])
    path = tmp_path / "d.xlsx"
    book.save(path)
    table = read_table(path)
    assert list(table.frame.columns) == ["outlook", "temp", "windy", "play"]
    assert dict(table.kinds) == {
        "outlook": "nominal",
        "temp": "numeric",
        "windy": "nominal",
        "play": "nominal",
    }
    assert table.frame["temp"].isna().tolist() == [False, True, False]
    assert table.frame["windy"].tolist() == ["TRUE", "FALSE", "TRUE"]
    assert any("read the first of 2 sheets, 'days'" in n for n in table.notes)


def test_parquet_typed_columns(tmp_path):
    frame = pd.DataFrame(
        {
            "x": [1, 2, 3],
            "c": pd.Categorical(["b", "a", None], categories=["b", "a", "z"]),
            "y": ["p", "q", "p"],
        }
    )
    path = tmp_path / "d.parquet"
    frame.to_parquet(path)
    table = read_table(path)
    assert dict(table.kinds) == {"x": "numeric", "c": "nominal", "y": "nominal"}
    assert list(table.frame["c"].cat.categories) == ["b", "a", "z"] and pd.isna(table.frame["c"][2])


# --- kinds and target --------------------------------------------------------------------------


def test_overrides_and_target(tmp_path):
    path = write(tmp_path, "d.csv", "id,n,b,c\n1,1,x,p\n2,2,y,q\n")
    table = read_table(path, target="b", nominal=["n"], ignored=["id"], numeric=[])
    assert dict(table.kinds) == {"id": "ignored", "n": "nominal", "b": "nominal", "c": "nominal"}
    assert table.target == "b" and table.attributes == ["n", "c"]
    assert read_table(path, numeric=["id"]).kinds["id"] == "numeric"


def test_numeric_override_on_text_names_column_and_value(tmp_path):
    path = write(tmp_path, "d.csv", "a,b\n1,x\n2,oops\n")
    with pytest.raises(ArborError, match="column 'b' cannot be numeric: value 'x' is not a number"):
        read_table(path, numeric=["b"])


def test_unknown_target_and_override_columns(tmp_path):
    path = write(tmp_path, "d.csv", "a,b\n1,x\n")
    with pytest.raises(ArborError, match="unknown target column 'nope'; the table has: a, b"):
        read_table(path, target="nope")
    with pytest.raises(ArborError, match="unknown column.*'zz'"):
        read_table(path, nominal=["zz"])


def test_mostly_numbers_column_gets_a_note(tmp_path):
    rows = "".join(f"{i},x\n" for i in range(9)) + "ten,y\n"
    table = read_table(write(tmp_path, "d.csv", "n,c\n" + rows))
    assert table.kinds["n"] == "nominal" and any("'ten'" in n for n in table.notes)


# --- encodings ---------------------------------------------------------------------------------


def test_utf8_bom(tmp_path):
    table = read_table(write(tmp_path, "bom.csv", "\ufeffname,c\ncafé,p\n".encode()))
    assert list(table.frame.columns) == ["name", "c"] and table.frame["name"][0] == "café"
    assert table.notes == ()


def test_latin1_fallback_has_a_note(tmp_path):
    table = read_table(write(tmp_path, "l.tsv", "name\tc\ncaf\xe9\tp\n".encode("latin-1")))
    assert table.frame["name"][0] == "café"
    assert table.notes == ("l.tsv is not UTF-8; it was read as Latin-1",)


# --- bad files: one clear line each -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.csv", "", "empty.csv is empty"),
        ("blank.tsv", "\n \n\t\n", "blank.tsv is empty"),
        ("empty.xlsx", b"", "empty.xlsx is empty"),
        ("empty.parquet", b"", "empty.parquet is empty"),
        (
            "long.csv",
            "a,b\n1,2\n3,4,5,6\n",
            "long.csv is malformed: line 3 has 4 values, expected 2",
        ),
        (
            "short.csv",
            "a,b,c\n1,2,3\n\n4,5\n",
            "short.csv is malformed: line 4 has 2 values, expected 3",
        ),
        ("binary.csv", b"\x00\x01\x02\xff" * 100, "binary.csv is not a text table"),
        ("control.tsv", bytes(range(1, 32)) * 20, "not a text table"),
        (
            "csv.xlsx",
            "a,b\n1,2\n",
            r"csv.xlsx is not a readable .xlsx workbook \(it looks like text",
        ),
        ("old.xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100), "an old .xls workbook"),
        (
            "broken.xlsx",
            b"PK\x03\x04" + bytes(100),
            r"broken.xlsx is not a readable .xlsx workbook \(",
        ),
        ("csv.parquet", "a,b\n1,2\n", "csv.parquet is not a readable Parquet file"),
        (
            "broken.parquet",
            b"PAR1" + bytes(40),
            r"broken.parquet is not a readable Parquet file \(",
        ),
        ("dupes.csv", "a,b,a\n1,2,3\n", "dupes.csv: duplicate column names: 'a'"),
        ("spaced.csv", "a, a \n1,2\n", "duplicate column names: 'a'"),
        ("noname.csv", "a,,c\n1,2,3\n", "noname.csv: column 2 has no name in the header"),
        (
            "d.json",
            "{}",
            r"cannot read d.json: unknown extension '.json'; use one of .csv, .tsv, .tab, .txt, .arff, .xlsx, .parquet",
        ),
        ("noext", "a,b\n", "unknown extension '\\(none\\)'"),
    ],
)
def test_bad_files(tmp_path, name, content, message):
    with pytest.raises(ArborError, match=message) as caught:
        read_table(write(tmp_path, name, content))
    assert "\n" not in str(caught.value)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(ArborError, match=f"no such file: {tmp_path / 'nope.csv'}"):
        read_table(tmp_path / "nope.csv")
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(ArborError, match="dir.csv is a folder, not a data file"):
        read_table(tmp_path / "dir.csv")


@pytest.mark.parametrize("suffix", [".csv", ".arff", ".xlsx", ".parquet"])
def test_permission_denied(tmp_path, monkeypatch, suffix):
    path = write(tmp_path, f"locked{suffix}", "a,b\n1,2\n")

    real_open = os.open

    def refuse(name, *args, **kwargs):  # chmod does not stop root
        if str(name) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(ArborError, match=f"cannot read {path}: permission denied"):
        read_table(path)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any file")
def test_permission_denied_for_real(tmp_path):
    path = write(tmp_path, "locked.csv", "a,b\n1,2\n")
    path.chmod(0)
    with pytest.raises(ArborError, match="permission denied"):
        read_table(path)


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".xlsx", ".parquet"])
def test_header_only_loads_with_no_rows_and_a_note(tmp_path, suffix):
    path = tmp_path / f"h{suffix}"
    if suffix in (".csv", ".tsv"):
        path.write_text("a,b\n".replace(",", "," if suffix == ".csv" else "\t"))
    else:
        frame = pd.DataFrame({"a": pd.Series([], dtype=object), "b": pd.Series([], dtype=object)})
        (frame.to_excel(path, index=False) if suffix == ".xlsx" else frame.to_parquet(path))
    table = read_table(path)
    assert table.frame.shape == (0, 2) and table.target == "b"
    assert f"h{suffix} has a header but no rows" in table.notes


def test_the_delimiter_is_found_and_named(tmp_path):
    table = read_table(write(tmp_path, "semi.csv", "a;b;c\n1;2;x\n"))
    assert table.frame.shape == (1, 3) and table.frame["a"].tolist() == [1.0]
    assert any("separated by semicolons, not commas" in n for n in table.notes)
    tabbed = read_table(write(tmp_path, "tabs.csv", "a\tb\n1\t2\n"))
    assert tabbed.frame.shape == (1, 2) and any("separated by tabs" in n for n in tabbed.notes)
    plain = read_table(write(tmp_path, "plain.csv", "a,b\n1,x\n"))
    assert not plain.notes


# --- saving ----------------------------------------------------------------------------------------


@pytest.fixture
def mixed():
    """Declared orders unlike first appearance, an unused value, numbers as nominal, missing cells."""
    frame = pd.DataFrame(
        {
            "id": [1.0, 2.0, 3.0, 4.0],
            "t": [1.5, np.nan, -3.0, 1e-7],
            "size": ["3", "1", None, "2"],
            "w": ["b c", None, "a,b", "it's"],
            "y": ["no", "yes", "no", "yes"],
        }
    )
    categories = {
        "size": ["1", "2", "3", "4"],
        "w": ["it's", "a,b", "b c", "unused"],
        "y": ["yes", "no"],
    }
    return make_table(frame, kinds={"id": "ignored", "size": "nominal"}, categories=categories)


def cell(value):
    """A cell's value as text, numbers in one spelling (an ignored 1.0 may come back as '1')."""
    try:
        return repr(float(value))
    except ValueError:
        return str(value)


def assert_same_cells(back, table):
    assert list(back.frame.columns) == list(table.frame.columns)
    for name in table.frame.columns:
        mine, theirs = table.frame[name], back.frame[name]
        assert theirs.isna().tolist() == mine.isna().tolist(), name
        assert [cell(v) for v in theirs.dropna()] == [cell(v) for v in mine.dropna()], name


@pytest.mark.parametrize("suffix", [".arff", ".xlsx", ".parquet"])
def test_round_trip_keeps_everything(tmp_path, mixed, suffix):
    path = tmp_path / f"x{suffix}"
    write_table(mixed, path)
    back = read_table(path)
    assert_same_cells(back, mixed)
    kinds = dict(mixed.kinds)
    if suffix == ".arff":  # ARFF has no ignored columns
        kinds["id"] = "numeric"
    assert dict(back.kinds) == kinds and back.target == "y"
    for name in ("size", "w", "y"):
        assert list(back.frame[name].cat.categories) == list(mixed.frame[name].cat.categories)
    assert back.frame["t"].tolist()[::2] == [1.5, -3.0]


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_csv_round_trip_keeps_values_and_missing(tmp_path, mixed, suffix):
    path = tmp_path / f"x{suffix}"
    write_table(mixed, path)
    lines = path.read_text().splitlines()
    assert lines[1].split("," if suffix == ".csv" else "\t")[:3] == ["1", "1.5", "3"]  # not 1.0
    back = read_table(path, nominal=["size"], ignored=["id"])
    assert_same_cells(back, mixed)
    assert back.frame["t"].tolist()[3] == 1e-7
    assert dict(back.kinds) == dict(mixed.kinds)
    assert list(back.frame["y"].cat.categories) == ["no", "yes"]  # CSV keeps no order: first seen


def test_round_trip_of_a_sample_keeps_it(tmp_path):
    from engine.data.samples import load_sample

    restaurant = load_sample("restaurant")
    for suffix in (".csv", ".arff", ".xlsx", ".parquet"):
        write_table(restaurant, tmp_path / f"r{suffix}")
        back = read_table(tmp_path / f"r{suffix}")
        assert_same_cells(back, restaurant)
        assert back.frame["Pat"].tolist()[6] == "None"  # a value, not missing


def test_workbook_edited_after_saving(tmp_path, mixed):
    path = tmp_path / "x.xlsx"
    write_table(mixed, path)
    book = openpyxl.load_workbook(path)
    assert book["_arbor"].sheet_state == "hidden"
    book["data"].append([5, 2.5, "9", "new", "maybe"])
    book.save(path)
    back = read_table(path)
    assert list(back.frame["size"].cat.categories) == ["1", "2", "3", "4", "9"]
    assert list(back.frame["y"].cat.categories) == ["yes", "no", "maybe"]
    assert read_table(path, numeric=["size"]).kinds["size"] == "numeric"  # overrides win


def test_ignored_last_column_is_not_the_default_target(tmp_path):
    table = make_table(
        pd.DataFrame({"a": ["x", "y"], "c": ["p", "q"], "id": [1.0, 2.0]}),
        target="c",
        kinds={"id": "ignored"},
    )
    write_table(table, tmp_path / "x.parquet")
    back = read_table(tmp_path / "x.parquet")
    assert back.target == "c" and back.kinds["id"] == "ignored"


def test_failed_save_leaves_the_old_file(tmp_path, monkeypatch, weather):
    path = write(tmp_path, "keep.csv", "old contents")

    def half_then_fail(self, target, *args, **kwargs):
        with open(target, "w") as handle:
            handle.write("outlook,temp")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_fail)
    with pytest.raises(ArborError, match=f"cannot save {path}: .*No space left on device"):
        write_table(weather, path)
    assert path.read_text() == "old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.csv"]  # no temporary file left


@pytest.mark.parametrize("suffix", [".xlsx", ".parquet", ".arff"])
def test_failed_save_in_any_format_leaves_no_trace(tmp_path, monkeypatch, weather, suffix):
    path = write(tmp_path, f"keep{suffix}", "old contents")

    def fail(*args, **kwargs):
        raise ValueError("boom")

    monkeypatch.setattr(
        engine.data.io,
        {".xlsx": "_write_excel", ".parquet": "_write_parquet", ".arff": "to_arff"}[suffix],
        fail,
    )
    with pytest.raises(ArborError, match="boom"):
        write_table(weather, path)
    assert path.read_text() == "old contents" and len(list(tmp_path.iterdir())) == 1


def test_save_replaces_an_existing_file(tmp_path, weather):
    path = write(tmp_path, "w.tsv", "old")
    write_table(weather, path)
    assert path.read_text().splitlines()[0] == "outlook\ttemperature\thumidity\twindy\tplay"
    assert read_table(path).frame.shape == (14, 5)


def test_save_errors(tmp_path, monkeypatch, weather):
    with pytest.raises(
        ArborError,
        match=r"cannot save as \.doc; use one of \.csv, \.tsv, \.arff, \.xlsx, \.parquet",
    ):
        write_table(weather, tmp_path / "x.doc")
    with pytest.raises(ArborError, match="does not exist"):
        write_table(weather, tmp_path / "no" / "x.csv")
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(ArborError, match="d.csv: it is a folder"):
        write_table(weather, tmp_path / "d.csv")

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(engine.atomic.tempfile, "mkstemp", refuse)
    with pytest.raises(ArborError, match="x.csv: permission denied"):
        write_table(weather, tmp_path / "x.csv")


@pytest.mark.parametrize("suffix", [".parquet", ".xlsx", ".csv"])
def test_ignored_column_of_mixed_cells_saves(tmp_path, suffix):
    table = make_table(
        pd.DataFrame({"m": [1, "x", None], "y": ["a", "b", "a"]}), kinds={"m": "ignored"}
    )
    write_table(table, tmp_path / f"m{suffix}")
    back = read_table(tmp_path / f"m{suffix}", ignored=["m"])
    assert [cell(v) for v in back.frame["m"][:2]] == ["1.0", "x"]
    assert (
        back.frame["m"][2] == "" if suffix == ".csv" else pd.isna(back.frame["m"][2])
    )  # as loaded


def test_saved_files_keep_ordinary_permissions(tmp_path, weather):
    import os
    import stat

    from engine.data.io import write_table as save

    fresh = tmp_path / "new.csv"
    save(weather, fresh)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask
    old = tmp_path / "old.csv"
    old.write_text("x")
    os.chmod(old, 0o640)
    save(weather, old)
    assert stat.S_IMODE(old.stat().st_mode) == 0o640
