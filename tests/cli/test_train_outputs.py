"""Issue 31, item 13: ``train`` writes every file it was asked for, or none of them."""

import json

import pytest

from cli.main import main
from engine.atomic import write_all_atomic
from engine.errors import ArborError

OUTPUTS = {"--save": "m.json", "--rules": "r.txt", "--dot": "t.dot", "--pmml": "p.pmml"}


def data_file(tmp_path, name="outlook"):
    path = tmp_path / "d.csv"
    rows = ["sunny,no", "rain,yes", "sunny,no", "rain,yes", "overcast,yes"]
    path.write_text(f"{name},play\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def train(tmp_path, capsys, data, *extra, outputs=OUTPUTS):
    argv = ["train", str(data), "--algorithm", "id3"]
    for option, name in outputs.items():
        argv += [option, str(tmp_path / name)]
    code = main(argv + list(extra))
    return code, capsys.readouterr()


def left(tmp_path):
    return sorted(p.name for p in tmp_path.iterdir() if p.name != "d.csv")


def test_a_refused_pmml_leaves_none_of_the_files(tmp_path, capsys):
    code, out = train(tmp_path, capsys, data_file(tmp_path, "out\x01look"))
    assert code == 2
    assert "PMML" in out.err and "control character" in out.err and out.err.count("\n") == 1
    assert left(tmp_path) == []  # no model, rules or DOT, and no temporary files


def test_a_missing_folder_for_the_last_file_leaves_none(tmp_path, capsys):
    outputs = {**OUTPUTS, "--python": "nowhere/predict.py"}
    code, out = train(tmp_path, capsys, data_file(tmp_path), outputs=outputs)
    assert code == 2 and "does not exist" in out.err
    assert left(tmp_path) == []


def test_an_image_that_cannot_be_drawn_leaves_none(tmp_path, capsys):
    outputs = {**OUTPUTS, "--image": "tree.gif"}
    code, out = train(tmp_path, capsys, data_file(tmp_path), outputs=outputs)
    assert code == 2 and ".gif" in out.err
    assert left(tmp_path) == []


def test_every_file_is_written_when_all_can_be(tmp_path, capsys):
    code, out = train(tmp_path, capsys, data_file(tmp_path))
    assert code == 0, out.err
    assert left(tmp_path) == sorted(OUTPUTS.values())
    for name in OUTPUTS.values():
        assert f"Wrote {tmp_path / name}\n" in out.out
    assert json.loads((tmp_path / "m.json").read_text())["format"] == "arbor-tree"
    assert "<PMML" in (tmp_path / "p.pmml").read_text()


def test_one_file_named_twice_is_refused(tmp_path, capsys):
    code, out = train(
        tmp_path, capsys, data_file(tmp_path), outputs={"--rules": "same.txt", "--dot": "same.txt"}
    )
    assert code == 2 and "--rules and --dot both name" in out.err
    assert left(tmp_path) == []


def test_write_all_atomic_keeps_old_files_when_one_write_fails(tmp_path):
    old = tmp_path / "a.txt"
    old.write_text("old")

    def refuse(path):
        raise ArborError("refused")

    with pytest.raises(ArborError, match="refused"):
        write_all_atomic([(old, lambda p: p.write_text("new")), (tmp_path / "b.txt", refuse)])
    assert old.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    write_all_atomic(
        [(old, lambda p: p.write_text("new")), (tmp_path / "b.txt", lambda p: p.write_text("b"))]
    )
    assert old.read_text() == "new" and (tmp_path / "b.txt").read_text() == "b"
