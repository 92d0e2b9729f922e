"""``train --sql F [--dialect D]`` and ``train --onnx F`` (issue 36)."""

import sqlite3

import pytest

from cli.main import main


def test_train_writes_sql_that_sqlite_runs(tmp_path, capsys):
    path = tmp_path / "tree.sql"
    code = main(["train", "--sample", "weather", "--algorithm", "id3", "--sql", str(path)])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert f"Wrote {path}\n" in out.out
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE data (outlook, temperature, humidity, windy)")
    db.execute("INSERT INTO data VALUES ('overcast', 'hot', 'high', 'FALSE')")
    assert db.execute(path.read_text(encoding="utf-8")).fetchall()[0][-1] == "yes"


def test_train_sql_dialect(tmp_path, capsys):
    path = tmp_path / "tree.sql"
    argv = ["train", "--sample", "iris", "--sql", str(path), "--dialect", "postgres"]
    assert main(argv) == 0
    assert "AS DOUBLE PRECISION)" in path.read_text(encoding="utf-8")
    with pytest.raises(SystemExit):
        main([*argv[:-1], "oracle"])
    assert "invalid choice: 'oracle'" in capsys.readouterr().err


def test_train_writes_onnx_with_a_note_on_stderr(tmp_path, capsys):
    pytest.importorskip("onnx")
    path = tmp_path / "tree.onnx"
    code = main(["train", "--sample", "iris", "--onnx", str(path)])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert path.read_bytes()[:2] == b"\x08\x08"  # a protobuf ModelProto: ir_version 8 first
    assert out.err.startswith("arbor train: note: ONNX cannot split a row across branches")
    assert f"Wrote {path} (complete rows only, see the note)" in out.out
