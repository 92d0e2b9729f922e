"""The table model: Qt's model tester, cell formatting, coercion and undo."""

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QAbstractItemModelTester

from engine.data.samples import load_sample
from gui.table.document import DataDocument
from gui.table.table_commands import rename_column, set_kind
from gui.table.table_model import TableModel


def make(name="weather-numeric"):
    doc = DataDocument()
    doc.load(load_sample(name), None)
    return doc, TableModel(doc)


def test_model_tester_passes(qtbot):
    doc, model = make()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.setData(model.index(0, 1), "99")
    doc.undo_stack.undo()


def test_cells_missing_and_header(qtbot):
    doc, model = make()
    assert model.data(model.index(0, 1)) == "85"
    doc.set_cell(0, 1, np.nan)
    assert model.data(model.index(0, 1)) == "?"
    assert model.data(model.index(0, 1), Qt.ItemDataRole.FontRole).italic()
    assert model.headerData(1, Qt.Orientation.Horizontal) == "temperature [#]"
    assert model.headerData(4, Qt.Orientation.Horizontal) == "play [N] ◎"


def test_numeric_edit_coerces_and_rejects(qtbot):
    doc, model = make()
    assert model.setData(model.index(0, 1), " 72.5 ")
    assert doc.value(0, 1) == 72.5
    with qtbot.waitSignal(model.edit_rejected) as blocker:
        assert not model.setData(model.index(0, 1), "hot")
    assert "not a number" in blocker.args[2]
    assert model.setData(model.index(0, 1), "?") and np.isnan(doc.value(0, 1))


def test_new_category_and_kind_change(qtbot):
    doc, model = make()
    assert model.setData(model.index(0, 0), "foggy")
    assert "foggy" in list(doc.frame["outlook"].cat.categories)
    doc.undo_stack.push(set_kind(doc, "temperature", "nominal"))
    assert doc.kinds["temperature"] == "nominal" and doc.value(0, 1) == "85"
    doc.undo_stack.push(rename_column(doc, "play", "go"))
    assert doc.target == "go"
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert doc.kinds["temperature"] == "numeric" and doc.target == "play"


def test_million_rows_open_quickly(qtbot):
    import pandas as pd

    from engine.data.table import make_table

    frame = pd.DataFrame({"x": np.arange(1_000_000, dtype=float), "y": ["a", "b"] * 500_000})
    doc = DataDocument()
    doc.load(make_table(frame), None)
    model = TableModel(doc)
    assert model.rowCount() == 1_000_000
    assert model.data(model.index(999_999, 0)) == "999999"
