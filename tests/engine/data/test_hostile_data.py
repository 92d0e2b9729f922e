"""Data files a hostile (or unlucky) person opens: each is read correctly or refused in one
line, within seconds, never a traceback, a hang or a silent misread. Large cases are
generated here, at test time."""

from __future__ import annotations

import errno
import os
import zipfile
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from cli.main import main
from engine.data.encoding import encode
from engine.data.io import MAX_COLUMNS, read_table
from engine.data.table import CHECK_BLOCK as CHECK_ROWS
from engine.data.table import make_table
from engine.errors import ArborError


def _refused(path, fragment, capsys=None):
    with pytest.raises(ArborError, match=fragment):
        read_table(path)
    if capsys is not None:
        assert main(["train", str(path)]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


# ----------------------------------------------------------------- what did not answer in 60 s
def test_a_long_line_of_commas_is_refused_by_its_width(tmp_path, capsys):
    path = tmp_path / "commas.csv"
    path.write_bytes(b"," * 10_000_000 + b"\n")  # the issue's was 50 MB: 25 million columns
    _refused(path, "10,000,001 columns; Arbor reads at most", capsys)


@pytest.mark.parametrize(("columns", "rows"), [(100_000, 20), (10_000, 0)])
def test_very_wide_tables_are_refused(tmp_path, columns, rows):
    path = tmp_path / "wide.csv"
    line = ",".join(f"c{i}" for i in range(columns))
    path.write_text(line + "\n" + "\n".join(",".join(["1"] * columns) for _ in range(rows)))
    _refused(path, f"{columns:,} columns")


def test_an_arff_with_very_many_attributes_is_refused(tmp_path):
    path = tmp_path / "many.arff"
    header = "".join(f"@attribute a{i} numeric\n" for i in range(MAX_COLUMNS + 10))
    path.write_text("@relation r\n" + header + "@data\n")
    _refused(path, "more than 5,000 attributes")


def test_an_xlsx_that_expands_a_hundredfold_is_refused(tmp_path, monkeypatch):
    import engine.data.io as io_module

    monkeypatch.setattr(io_module, "XLSX_BOMB_FLOOR", 1 << 20)  # the real floor is 64 MB
    small = tmp_path / "small.xlsx"
    pd.DataFrame({"a": ["x"], "y": ["p"]}).to_excel(small, index=False)
    row = b'<row><c t="inlineStr"><is><t>x</t></is></c><c t="inlineStr"><is><t>p</t></is></c></row>'
    sheet = (
        b'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.'
        b'org/spreadsheetml/2006/main"><sheetData>' + row * 100_000 + b"</sheetData></worksheet>"
    )
    path = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(small) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bomb:
        for member in source.infolist():
            data = sheet if member.filename == "xl/worksheets/sheet1.xml" else source.read(member)
            bomb.writestr(member.filename, data, compresslevel=9)
    assert (
        path.stat().st_size
        < 100_000
        < 8_000_000
        < sum(i.file_size for i in zipfile.ZipFile(path).infolist())
    )
    _refused(path, "expands to 8 MB from 0.0 MB")


@pytest.mark.parametrize("device", ["/dev/urandom", "/dev/zero"])
def test_a_device_named_like_a_data_file_is_refused(tmp_path, capsys, device):
    path = tmp_path / "x.arff"
    path.symlink_to(device)
    _refused(path, "is a device", capsys)


def test_a_fifo_named_csv_is_refused_without_blocking(tmp_path, capsys):
    path = tmp_path / "x.csv"
    os.mkfifo(path)
    _refused(path, "FIFO", capsys)


def test_nested_parquet_columns_are_left_out_by_name(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = pa.table(
        {
            "tags": pa.array([["a", "b"], ["c"], [], ["a"]]),
            "point": pa.array([{"x": 1, "y": 2}] * 4),
            "attrs": pa.array([[("k", 1)]] * 4, type=pa.map_(pa.string(), pa.int64())),
            "size": [1.0, 2.0, 3.0, 4.0],
            "y": ["p", "q", "p", "q"],
        }
    )
    path = tmp_path / "nested.parquet"
    pq.write_table(data, path)
    table = read_table(path)
    assert list(table.frame.columns) == ["size", "y"]
    assert any("'tags', 'point', 'attrs' hold lists, structs or maps" in n for n in table.notes)
    only = tmp_path / "only.parquet"
    pq.write_table(data.select(["tags"]), only)
    _refused(only, "every column holds lists")


def test_a_file_in_a_folder_without_permission(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "locked"
    folder.mkdir()
    path = folder / "d.csv"
    path.write_text("a,b\n1,2\n")
    real_open, real_access = os.open, os.access

    def refuse(name, *args, **kwargs):  # root reads anything: pretend the folder is closed
        if str(name) == str(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(name))
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    monkeypatch.setattr(
        os, "access", lambda p, mode: str(p) != str(folder) and real_access(p, mode)
    )
    _refused(path, "permission denied on its folder", capsys)


def test_a_regression_target_with_infinity_is_refused(tmp_path, capsys):
    path = tmp_path / "inf.csv"
    path.write_text("a,y\n1,2.5\n2,inf\n3,4\n")
    with pytest.raises(ArborError, match="'y' has an infinite value in row 2"):
        read_table(path)
    assert main(["train", str(path), "--algorithm", "cart", "--task", "regression"]) == 2
    assert "infinite value" in capsys.readouterr().err


# ----------------------------------------------------------------- delimiters
@pytest.mark.parametrize(("sep", "word"), [(";", "semicolons"), ("\t", "tabs"), ("|", "pipes")])
def test_the_delimiter_is_detected(tmp_path, sep, word):
    path = tmp_path / "d.csv"
    path.write_text(
        sep.join(["a", "b", "class"])
        + "\n"
        + sep.join(["1", "x", "yes"])
        + "\n"
        + sep.join(["2", "y", "no"])
        + "\n"
    )
    table = read_table(path)
    assert list(table.frame.columns) == ["a", "b", "class"] and table.frame["a"].tolist() == [1, 2]
    assert any(f"separated by {word}" in n for n in table.notes)


def test_decimal_commas_with_semicolons_are_numbers(tmp_path):
    path = tmp_path / "euro.csv"
    path.write_text("price;weight;code;class\n1,5;1.234,5;1,2,3;yes\n2;0,25;4,5,6;no\n?;3,0;7;no\n")
    table = read_table(path)
    assert table.kinds["price"] == table.kinds["weight"] == "numeric"
    assert table.frame["price"].tolist()[:2] == [1.5, 2.0] and np.isnan(table.frame["price"][2])
    assert table.frame["weight"].tolist() == [1234.5, 0.25, 3.0]
    assert table.kinds["code"] == "nominal"  # "1,2,3" is no number
    assert any("decimal commas read as numbers in 'price', 'weight'" in n for n in table.notes)


def test_the_semicolon_file_of_the_issue_trains(tmp_path, capsys):
    path = tmp_path / "semi.csv"
    path.write_text("a;b;class\n1;x;yes\n2;y;no\n")
    assert main(["train", str(path)]) == 0
    assert "separated by semicolons" in capsys.readouterr().out


# ----------------------------------------------------------------- silent misreads
def test_cr_only_line_endings_are_lines(tmp_path):
    for ending in ("\r", "\n", "\r\n"):
        path = tmp_path / "cr.csv"
        path.write_bytes(f"a,b,y{ending}1,2,p{ending}3,q{ending}4,5,p{ending}".encode())
        _refused(path, "line 3 has 2 values, expected 3")
        path.write_bytes(f"a,b,y{ending}1,2,p{ending}3,4,q{ending}".encode())
        assert read_table(path).frame.shape == (2, 3)


def test_nul_bytes_anywhere_are_refused(tmp_path):
    path = tmp_path / "nul.csv"
    rows = "".join(f"{i},sunny\n" for i in range(2000))
    path.write_bytes(b"n,y\n" + rows.encode() + b"7,sun\x00\x00ny\n")
    _refused(path, "NUL byte on line 2002")
    arff = tmp_path / "nul.arff"
    arff.write_bytes(b"@relation r\n@attribute a {x,y}\n@data\n" + b"x\n" * 5000 + b"y\x00\n")
    _refused(arff, "NUL byte on line 5004")


@pytest.mark.parametrize("cell", ["1e400", "Infinity", "-Infinity", "inf"])
def test_infinity_is_not_read_as_a_number(tmp_path, cell):
    path = tmp_path / "inf.csv"
    path.write_text(f"x,y\n1,p\n{cell},q\n3,p\n")
    _refused(path, f"infinite value in row 2 \\('{cell}'\\)")


def test_json_output_stays_valid_json(tmp_path, capsys):
    import json

    path = tmp_path / "d.csv"
    path.write_text("x,y\n1,p\n2,q\n3,p\n4,q\n")
    assert main(["evaluate", str(path), "--folds", "2", "--json"]) == 0
    json.loads(
        capsys.readouterr().out, parse_constant=lambda c: pytest.fail(f"{c} in --json output")
    )


def test_formula_cells_without_a_saved_value_are_noted(tmp_path):
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["a", "b", "y"])
    for i in range(4):
        sheet.append([i, f"=A{i + 2}*2", "p" if i % 2 else "q"])
    path = tmp_path / "formulas.xlsx"
    book.save(path)  # openpyxl computes nothing: the formulas have no cached value
    table = read_table(path)
    assert table.frame["b"].isna().all()
    assert any("4 formula cell(s) have no saved value" in n for n in table.notes)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le"])
def test_utf16_and_utf32_files_are_read(tmp_path, encoding):
    path = tmp_path / "wide.csv"
    path.write_bytes("größe,y\n1,ja\n2,nein\n".encode(encoding))
    table = read_table(path)
    assert list(table.frame.columns) == ["größe", "y"] and table.frame["y"].tolist() == [
        "ja",
        "nein",
    ]
    assert any(f"is UTF-{encoding[4:6]} text" in n for n in table.notes)


def test_blank_parquet_column_names_are_named(tmp_path):
    path = tmp_path / "blank.parquet"
    pd.DataFrame({"a": [1, 2], "": [3, 4], " ": [5, 6]}).to_parquet(path)
    _refused(path, "column 2 has no name")


def test_a_symlink_loop_is_called_a_loop(tmp_path, capsys):
    (tmp_path / "a.csv").symlink_to(tmp_path / "b.csv")
    (tmp_path / "b.csv").symlink_to(tmp_path / "a.csv")
    _refused(tmp_path / "a.csv", "leads back to itself", capsys)
    (tmp_path / "dangling.csv").symlink_to(tmp_path / "nowhere.csv")
    _refused(tmp_path / "dangling.csv", "to a file that does not exist")


def test_a_file_name_with_a_newline_stays_on_one_line(tmp_path, capsys):
    path = tmp_path / "two\nlines.csv"
    path.write_text("a,b\n1,2,3\n")
    assert main(["train", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "two\\nlines.csv" in err


def test_a_huge_value_is_refused_with_the_reason(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("a,y\n" + "x" * 200_000 + ",p\nb,q\n")
    _refused(path, "200,000 characters long")
    assert read_table(path, ignored=["a"]).frame.shape == (2, 2)  # free text may be ignored


# ----------------------------------------------------------------- saving
def test_a_killed_save_leaves_a_recognisable_file_the_next_save_removes(tmp_path):
    import subprocess
    import sys
    import time

    from engine.atomic import write_text_atomic

    target = tmp_path / "out.csv"
    script = (
        "import sys, time\n"
        "from engine.atomic import write_atomic\n"
        "def slow(p):\n"
        "    p.write_text('a,b\\n' * 1000)\n"
        "    time.sleep(60)\n"
        f"write_atomic({str(target)!r}, slow)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    child = subprocess.Popen([sys.executable, "-c", script], cwd=root)
    try:
        for _ in range(600):
            left = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
            if left and left[0].stat().st_size:
                break
            time.sleep(0.05)
        live = tmp_path / f".other.csv.arbor-{os.getpid()}-live0001.tmp"
        live.write_text("a save in progress")  # this process is alive: its file stays
        write_text_atomic(target, "x\n")  # the child still runs: its file stays
        assert len([p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]) == 2
    finally:
        child.kill()  # kill -9 during the save
        child.wait()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] != []
    assert left[0].name.startswith(".out.csv.arbor-") and left[0].exists()
    write_text_atomic(tmp_path / "next.txt", "y\n")
    assert not left[0].exists() and live.exists() and target.read_text() == "x\n"


def test_a_read_only_file_is_not_replaced_without_asking(tmp_path, capsys):
    from engine.atomic import ReadOnlyTarget
    from engine.data.io import write_table

    table = read_table(_write(tmp_path / "d.csv", "a,y\n1,p\n2,q\n"))
    path = _write(tmp_path / "locked.csv", "old\n")
    path.chmod(0o444)
    with pytest.raises(ReadOnlyTarget, match="read-only"):
        write_table(table, path)
    assert path.read_text() == "old\n"
    assert main(["train", str(tmp_path / "d.csv"), "--python", str(path)]) == 2
    assert "read-only" in capsys.readouterr().err and path.read_text() == "old\n"
    write_table(table, path, replace_read_only=True)
    assert path.read_text().startswith("a,y") and path.stat().st_mode & 0o777 == 0o444


def _write(path, text):
    path.write_text(text)
    return path


def test_a_huge_attribute_is_refused_for_a_fit_whatever_frame_the_table_holds():
    """make_table tells which numeric columns stay within ±1e300 in the pass that refuses
    infinity; encoding then skips them, and checks any other, also in a frame put into a
    table afterwards."""
    rows = 4 * CHECK_ROWS + 3  # several blocks of the check, the huge value in the last
    frame = pd.DataFrame(
        {"a": np.arange(rows, dtype=float), "b": np.where(np.arange(rows) % 3, 1.0, np.nan)}
    )
    frame["y"] = np.arange(rows) % 2 == 0
    frame["y"] = frame["y"].map({True: "p", False: "q"})
    table = make_table(frame)
    assert table.bounded == {"a", "b"}  # (a column with missing values too)
    encode(table)

    huge = frame.assign(a=frame["a"].where(frame.index < rows - 1, -2e300))
    loaded = make_table(huge)  # a table may hold it; a tree cannot split on it
    assert loaded.bounded == {"b"}
    with pytest.raises(ArborError, match=r"column 'a' has the value -2e\+300, too large"):
        encode(loaded)
    swapped = replace(table, frame=make_table(huge).frame)
    assert swapped.bounded == frozenset()
    with pytest.raises(ArborError, match="too large to split"):
        encode(swapped)


def test_the_columns_without_missing_values_are_known_to_the_fit():
    """The pass refusing infinity also tells which numeric columns have no missing value;
    encoding hands them on, and a fit looks over the others only."""
    rows = 2 * CHECK_ROWS + 5
    frame = pd.DataFrame(
        {
            "full": np.arange(rows, dtype=float),
            "gappy": np.where(np.arange(rows) == rows - 2, np.nan, 1.0),  # in the last block
            "kind": pd.Categorical(np.where(np.arange(rows) % 2, "u", "v")),
        }
    )
    frame["y"] = np.arange(rows) % 3
    table = make_table(frame, kinds={"y": "nominal"})
    assert table.complete == {"full"}  # numeric columns; a nominal one is looked at by the fit
    assert encode(table).complete == {"full"}
    assert replace(encode(table), notes=()).complete == frozenset()


@pytest.mark.parametrize("worst", [np.inf, -np.inf, 5e300, 2e154])
def test_a_column_missing_values_early_is_still_read_to_its_last_block(worst):
    """Once a block of a column misses a value, the next are read by their greatest and least
    values alone: an infinity there is still refused, a huge value still unbounded, and a
    value whose square overflows the sum tells no missing value."""
    rows = 3 * CHECK_ROWS + 7
    gappy = np.where(np.arange(rows) == 5, np.nan, 1.0)  # in the first block
    gappy[-2] = worst  # in the last
    full = np.ones(rows)
    full[-3] = worst
    for values, missing in ((gappy, True), (full, False)):
        frame = pd.DataFrame({"a": values, "y": np.arange(rows) % 2 == 0})
        if np.isinf(worst):
            with pytest.raises(ArborError, match=f"row {rows - 1 if missing else rows - 2}"):
                make_table(frame, kinds={"y": "nominal"})
            continue
        table = make_table(frame, kinds={"y": "nominal"})
        assert ("a" in table.bounded) == (worst < 1e300)
        assert ("a" in table.complete) == (not missing)
