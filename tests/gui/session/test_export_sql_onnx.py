"""File > Export SQL query and Export ONNX model (issue 36): the window writes the tree on the
canvas through the same exporters as ``train --sql`` and ``train --onnx``."""

from __future__ import annotations

import sqlite3

import pytest

from tests.gui.conftest import train_and_wait


def test_the_menu_writes_sql_in_the_dialect_chosen_and_onnx(qtbot, window, tmp_path):
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    action = window.act["export_sql"]
    assert action.isEnabled() and "SQL" in action.toolTip()
    window.dialogs.replies["ask_choice"].append(None)  # cancelled: nothing asked or written
    window.exports.export_sql()
    written = [p.name for p in tmp_path.iterdir() if p.name != "arbor.ini"]  # the settings
    assert written == [] and window.dialogs.errors == []

    path = tmp_path / "tree.sql"
    window.dialogs.replies["ask_choice"].append("PostgreSQL")
    window.dialogs.replies["save_path"].append(str(path))
    action.trigger()
    assert window.dialogs.errors == []
    assert window.dialogs.asked[-1][1][2] == ("SQLite", "PostgreSQL", "DuckDB")
    assert "as a postgres query" in path.read_text(encoding="utf-8")
    window.dialogs.replies["save_path"].append(str(path))
    action.trigger()  # the last dialect is offered first; the fake dialog takes it
    assert "as a postgres query" in path.read_text(encoding="utf-8")
    window.dialogs.replies["ask_choice"].append("SQLite")
    window.dialogs.replies["save_path"].append(str(path))
    action.trigger()
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE data (outlook, temperature, humidity, windy)")
    db.execute("INSERT INTO data VALUES ('overcast', 'hot', 'high', 'FALSE')")
    assert db.execute(path.read_text(encoding="utf-8")).fetchall()[0][-1] == "yes"

    pytest.importorskip("onnx")
    path = tmp_path / "tree.onnx"
    window.dialogs.replies["save_path"].append(str(path))
    window.act["export_onnx"].trigger()
    assert window.dialogs.errors == []
    assert path.stat().st_size > 100
    assert "ONNX cannot split a row across branches" in window.dialogs.infos[-1]
