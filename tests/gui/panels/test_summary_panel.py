"""The Summary dock (issue 32): the columns' figures, the histogram by class, bars that filter."""

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QPointF, Qt

from engine.data.table import make_table
from gui.panels import summary as summary_panel


@pytest.fixture
def window(shared_window):
    """The module's one window, put back before each test (``reset_window``: weather, the
    table's filter forgotten); every test shows it with the Summary dock raised."""
    return shared_window


def _summary(qtbot, window):
    window.show()
    window.docks["Summary"].show()  # an Analyse panel; the window starts in Learn
    window.docks["Summary"].raise_()
    panel = window.summary
    qtbot.waitUntil(lambda: panel.summary is not None and panel.columns.rowCount() > 0)
    return panel


def _cells(panel, row):
    return [panel.columns.item(row, k).text() for k in range(panel.columns.columnCount())]


def test_the_dock_shows_every_column(qtbot, window):
    panel = _summary(qtbot, window)
    assert [panel.columns.item(r, 0).text() for r in range(panel.columns.rowCount())] == [
        "outlook",
        "temperature",
        "humidity",
        "windy",
        "play ★",
    ]
    assert _cells(panel, 0)[1:4] == ["nominal", "0 (0%)", "3"]
    assert _cells(panel, 0)[8] == "sunny 5, rainy 5, overcast 4"
    window.files.open_sample("iris", confirmed=True)
    qtbot.waitUntil(lambda: panel.columns.item(0, 0).text() == "sepallength")
    assert _cells(panel, 0)[1:8] == ["numeric", "0 (0%)", "35", "4.3", "7.9", "5.843", "0.8281"]


def test_clicking_a_bar_filters_the_table(qtbot, window):
    panel = _summary(qtbot, window)
    panel.select_column("outlook")
    assert panel.column.name == "outlook" and len(panel._bars) == 3
    # A real click on the sunny bar's lower part: the rows of class yes (2 of them).
    vb = panel.plot.getPlotItem().vb
    scene = vb.mapViewToScene(QPointF(0.0, 1.0))
    where = panel.plot.mapFromScene(scene)
    panel._on_plot_hovered(scene)  # the tooltip names the bar and its rows by class
    assert panel.plot.toolTip().startswith("outlook sunny: 5 rows\n  yes: 2\n  no: 3")
    qtbot.mouseClick(panel.plot.viewport(), Qt.MouseButton.LeftButton, pos=where)
    qtbot.waitUntil(lambda: window.table.proxy.rowCount() == 2)
    shown = [window.table.proxy.mapToSource(window.table.proxy.index(r, 0)).row() for r in range(2)]
    assert shown == [8, 10]
    assert window.table.show_all.isVisible() or not window.docks["Data"].isVisible()
    assert "where outlook = sunny and play = yes" in window.status_label.text()
    # The whole bar (no class): sunny's five rows.
    panel.click_bar(0)
    assert window.table.proxy.rowCount() == 5
    window.table.show_rows(None)
    assert window.table.proxy.rowCount() == 14


def test_a_numeric_bin_filters_its_rows(qtbot, window):
    window.files.open_sample("iris", confirmed=True)
    panel = _summary(qtbot, window)
    qtbot.waitUntil(lambda: panel.columns.item(0, 0).text() == "sepallength")
    panel.select_column("petallength")
    assert len(panel._bars) == 9
    panel.click_bar(0, class_index=0)  # petal length under 1.66: 44 setosa
    assert window.table.proxy.rowCount() == 44


def test_an_edit_updates_the_summary(qtbot, window):
    panel = _summary(qtbot, window)
    window.doc.undo_stack.push(_set_missing(window, 0, 0))
    qtbot.waitUntil(lambda: _cells(panel, 0)[2] == "1 (7%)", timeout=3000)
    window.doc.undo_stack.undo()
    qtbot.waitUntil(lambda: _cells(panel, 0)[2] == "0 (0%)", timeout=3000)


def _set_missing(window, row, col):
    from gui.table.table_commands import SetCellCommand

    return SetCellCommand(window.doc, row, col, np.nan)


def test_a_big_table_is_summarised_in_a_worker(qtbot, window, monkeypatch):
    monkeypatch.setattr(summary_panel, "WORKER_CELLS", 10)
    frame = pd.DataFrame({"x": np.arange(40, dtype=float), "y": ["a", "b"] * 20})
    window.controller.load_table(make_table(frame, target="y"), None)
    panel = _summary(qtbot, window)
    qtbot.waitUntil(
        lambda: panel.columns.rowCount() == 2 and panel.columns.item(0, 0).text() == "x"
    )
    assert _cells(panel, 0)[3] == "40"


def test_names_from_files_are_plain_text(qtbot, window):
    frame = pd.DataFrame({"<b>x</b>": [1.0, 2.0], "<i>y</i>": ["<img src=q>", "b"]})
    window.controller.load_table(make_table(frame, target="<i>y</i>"), None)
    panel = _summary(qtbot, window)
    qtbot.waitUntil(lambda: panel.columns.item(0, 0).text() == "<b>x</b>")
    assert "&lt;img src=q&gt;" in panel.legend.text()
