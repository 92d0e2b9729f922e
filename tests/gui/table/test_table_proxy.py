"""The table view's rows: sorting and filtering done with numpy, edits and selection mapped back."""

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QItemSelectionModel, Qt

from engine.data.table import make_table
from gui.table.document import DataDocument
from gui.table.table_model import TableModel
from gui.table.table_proxy import RowsProxy


@pytest.fixture
def proxy(qtbot):
    doc = DataDocument()
    frame = pd.DataFrame(
        {
            "x": [3.5, np.nan, -1.0, 12.25, 3.5, 0.0],
            "colour": ["red", "Blue", None, "green", "red", "blue"],
            "y": ["a", "b", "a", "b", "a", "b"],
        }
    )
    doc.load(make_table(frame), None)
    return RowsProxy(TableModel(doc))


def shown(proxy, col):
    return [proxy.data(proxy.index(r, col)) for r in range(proxy.rowCount())]


def source_rows(proxy):
    return [proxy.mapToSource(proxy.index(r, 0)).row() for r in range(proxy.rowCount())]


def test_sorts_numbers_by_value_and_keeps_missing_last(proxy):
    proxy.sort(0, Qt.SortOrder.AscendingOrder)
    assert shown(proxy, 0) == ["-1", "0", "3.5", "3.5", "12.25", "?"]
    assert source_rows(proxy) == [2, 5, 0, 4, 3, 1]  # stable: the two 3.5s keep their order
    proxy.sort(0, Qt.SortOrder.DescendingOrder)
    assert shown(proxy, 0) == ["12.25", "3.5", "3.5", "0", "-1", "?"]
    proxy.sort(-1)
    assert source_rows(proxy) == [0, 1, 2, 3, 4, 5]


def test_sorts_text_by_its_characters(proxy):
    proxy.sort(1, Qt.SortOrder.AscendingOrder)
    assert shown(proxy, 1) == ["Blue", "blue", "green", "red", "red", "?"]


def test_filter_matches_displayed_text_case_insensitively(proxy):
    proxy.setFilterFixedString("BLUE")
    assert source_rows(proxy) == [1, 5]
    proxy.setFilterFixedString("3.5")
    assert source_rows(proxy) == [0, 4]
    proxy.setFilterFixedString("12.2")  # numbers match as shown ("12.25"), not as stored
    assert source_rows(proxy) == [3]
    proxy.setFilterFixedString("?")
    assert source_rows(proxy) == [1, 2]
    proxy.setFilterFixedString("")
    assert proxy.rowCount() == 6


def test_node_rows_filter_and_sort_combine(proxy):
    proxy.set_rows([0, 3, 4, 5])
    proxy.setFilterFixedString("re")  # red, green
    proxy.sort(0, Qt.SortOrder.DescendingOrder)
    assert source_rows(proxy) == [3, 0, 4]
    proxy.set_rows(None)
    assert source_rows(proxy) == [3, 0, 4]  # filter and order stay
    proxy.setFilterFixedString("")
    assert proxy.rowCount() == 6


def test_edits_go_to_the_source_row_and_the_order_stays(proxy):
    proxy.sort(0, Qt.SortOrder.AscendingOrder)
    assert proxy.setData(proxy.index(0, 0), "100")  # the -1 of source row 2
    doc = proxy.sourceModel().doc
    assert doc.value(2, 0) == 100.0
    assert shown(proxy, 0)[0] == "100" and source_rows(proxy)[0] == 2
    proxy.setFilterFixedString("100")
    assert source_rows(proxy) == [2]  # the filter sees the new value


def test_selection_follows_its_rows_through_a_sort(qtbot, proxy):
    from PySide6.QtWidgets import QTableView

    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(proxy)
    view.selectionModel().select(
        proxy.index(3, 0), QItemSelectionModel.SelectionFlag.Select
    )  # source row 3
    proxy.sort(0, Qt.SortOrder.AscendingOrder)
    selected = [proxy.mapToSource(i).row() for i in view.selectionModel().selectedIndexes()]
    assert selected == [3]
    assert proxy.mapFromSource(proxy.sourceModel().index(3, 0)).row() == 4


def test_a_new_table_drops_the_node_rows(proxy):
    proxy.set_rows([1])
    doc = proxy.sourceModel().doc
    doc.load(make_table(pd.DataFrame({"a": ["p", "q", "r"], "b": ["u", "v", "u"]})), None)
    assert proxy.rowCount() == 3 and proxy.columnCount() == 2


def test_a_big_table_sorts_and_filters(proxy):
    rng = np.random.default_rng(0)
    n = 200_000
    frame = pd.DataFrame(
        {
            "x": rng.normal(size=n).round(3),
            "c": np.array(["red", "green", "blue"])[rng.integers(0, 3, n)],
        }
    )
    doc = proxy.sourceModel().doc
    doc.load(make_table(frame), None)
    proxy.sort(0, Qt.SortOrder.AscendingOrder)
    values = [float(proxy.data(proxy.index(r, 0))) for r in (0, 1, n // 2, n - 1)]
    assert values == sorted(values) and values[0] == frame["x"].min()
    proxy.setFilterFixedString("gre")
    assert proxy.rowCount() == int((frame["c"] == "green").sum())


def test_the_filter_box_applies_when_typing_pauses(qtbot):
    from gui.panels.data import TablePanel

    doc = DataDocument()
    doc.load(make_table(pd.DataFrame({"c": ["red", "green", "blue"], "y": ["a", "b", "a"]})), None)
    panel = TablePanel(TableModel(doc))
    qtbot.addWidget(panel)
    panel.filter.setText("re")
    assert panel.proxy.rowCount() == 3  # not yet
    qtbot.waitUntil(lambda: panel.proxy.rowCount() == 2)
    panel.filter.setText("blue")
    panel.filter.returnPressed.emit()  # Enter applies at once
    assert panel.proxy.rowCount() == 1
