"""A corpus of bad inputs, and a bounded fuzzer: every one loads sensibly or fails with one
clear line (exit status 2 on the command line), never a traceback or a hang."""

import contextlib
import os
import string

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli.main import main
from engine.data.encoding import encode
from engine.data.io import read_table
from engine.data.table import make_table
from engine.errors import ArborError
from engine.estimator import DecisionTree

CORPUS = {  # name: (content, loads?, message or note fragment)
    "empty.csv": (b"", False, "is empty"),
    "header_only.csv": (b"a,b,c\n", True, None),
    "one_row.csv": (b"a,b\n1,x\n", True, None),
    "ragged.csv": (b"a,b\n1,2\n1,2,3,4\n", False, "malformed"),
    "wrong_delimiter.csv": (b"a;b;c\n1;2;x\n3;4;y\n", True, "separated by semicolons"),
    "bom.csv": ("\ufeffa,b\n1,x\n".encode(), True, None),
    "latin1.csv": ("a,b\ncaf\xe9,x\n".encode("latin-1"), True, "Latin-1"),
    "quoted_newline.csv": (b'a,b\n"line one\nline two",x\n"z",y\n', True, None),
    "dupes.csv": (b"a,a\n1,2\n", False, "duplicate column names"),
    "empty_name.csv": (b"a,,c\n1,2,3\n", False, "no name"),
    "all_missing.csv": (b"a,b\n?,x\n,y\n", True, None),
    "stray_text.csv": (
        b"a,b\n1,x\n2,y\n3,x\n4,y\n5,x\n6,y\n7,x\n8,y\n9,x\nten,y\n",
        True,
        "mostly numbers",
    ),
    "random.bin": (bytes(range(256)) * 20, False, "unknown extension"),
    "binary.csv": (b"\x00\xff\x10" * 500, False, "binary"),
    "bad_header.arff": (
        b"@relation r\n@attribute a wrongtype\n@data\n1\n",
        False,
        "unknown attribute type",
    ),
    "csv_as.xlsx": (b"a,b\n1,2\n", False, "not a readable .xlsx"),
    "csv_as.parquet": (b"a,b\n1,2\n", False, "not a readable Parquet"),
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus(tmp_path, name):
    content, loads, fragment = CORPUS[name]
    path = tmp_path / name
    path.write_bytes(content)
    if loads:
        table = read_table(path)
        if fragment:
            assert any(fragment in n for n in table.notes)
    else:
        with pytest.raises(ArborError, match=fragment):
            read_table(path)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_through_the_cli(tmp_path, capsys, name):
    content, _, _ = CORPUS[name]
    path = tmp_path / name
    path.write_bytes(content)
    code = main(["train", str(path)])
    out, err = capsys.readouterr()
    assert code in (0, 2)
    if code == 2:
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_directory_and_vanishing_file(tmp_path, monkeypatch):
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(ArborError, match="folder"):
        read_table(tmp_path / "d.csv")
    path = tmp_path / "gone.csv"
    path.write_text("a,b\n1,2\n")
    import engine.data.delimited as delimited

    def vanish(*args):
        os.unlink(path)
        raise FileNotFoundError(path)

    monkeypatch.setattr(delimited, "read_bounded", vanish)
    with pytest.raises(ArborError, match="disappeared"):
        read_table(path)


def test_learners_validate_their_inputs():
    one_class = make_table(pd.DataFrame({"a": ["x", "y", "x"], "c": ["p", "p", "p"]}))
    model = DecisionTree().fit(one_class)
    assert model.tree_.root.is_leaf and "single leaf" in model.notes_[0]
    with pytest.raises(ArborError, match="no values: every row is missing it"):
        DecisionTree().fit(
            make_table(pd.DataFrame({"a": ["x", "y"], "c": [None, None]}), kinds={"c": "nominal"})
        )
    with pytest.raises(ArborError, match="regression needs a numeric target"):
        DecisionTree(algorithm="cart", task="regression").fit(one_class)
    with pytest.raises(ArborError, match="there are no rows"):
        DecisionTree().fit(
            make_table(
                pd.DataFrame({"a": pd.Series([], dtype=object), "c": pd.Series([], dtype=object)})
            )
        )
    many = make_table(pd.DataFrame({"a": ["x"] * 2000, "c": [f"id{i}" for i in range(2000)]}))
    with pytest.raises(ArborError, match="2000 different values"):
        encode(many)
    with pytest.raises(ArborError, match="classification needs a nominal target"):
        DecisionTree().fit(pd.DataFrame({"a": ["x", "y"], "c": [1.0, 2.0]}))


def test_missing_values_are_kept_not_dropped():
    frame = pd.DataFrame(
        {"a": [1.0, np.nan, 3.0, 4.0], "b": ["x", None, "y", "x"], "c": list("ppqq")}
    )
    model = DecisionTree(algorithm="c45", min_samples_leaf=1).fit(frame)
    assert model.tree_.root.weight == 4


cell = st.one_of(
    st.text(alphabet=string.printable, max_size=6), st.sampled_from(["", "?", "NaN", "1", "2.5"])
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(st.lists(cell, min_size=1, max_size=4), min_size=0, max_size=8),
    algorithm=st.sampled_from(["id3", "c45", "cart"]),
)
def test_fuzzed_csv_never_crashes(tmp_path, capsys, rows, algorithm):
    text = "\n".join(",".join(r) for r in rows)
    path = tmp_path / "fuzz.csv"
    path.write_text(text, encoding="utf-8", errors="replace")
    code = main(["train", str(path), "--algorithm", algorithm])
    _, err = capsys.readouterr()
    assert code in (0, 2), err
    if code == 2:
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@settings(max_examples=30, deadline=None)
@given(st.binary(max_size=300))
def test_fuzzed_bytes_never_crash_the_arff_reader(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fz") / "x.arff"
    path.write_bytes(data)
    with contextlib.suppress(ArborError):
        read_table(path)


def test_file_larger_than_free_memory_is_refused(tmp_path, monkeypatch):
    import engine.data.io as io_module

    path = tmp_path / "big.csv"
    path.write_text("a,b\n" + "1,x\n" * 1000)
    monkeypatch.setattr(io_module, "available_memory", lambda: 1000)
    with pytest.raises(ArborError, match="more than this machine can load"):
        read_table(path)
