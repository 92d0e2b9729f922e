"""The inspector's candidate-split table fits a 1024x700 window: attribute names in the row
header stay while columns scroll, and the four seed figures come first, visible at once."""

from PySide6.QtCore import Qt

from tests.gui.conftest import train_and_wait


def _seed_columns_visible(table) -> bool:
    header = table.horizontalHeader()
    width = table.viewport().width()
    return all(
        header.sectionViewportPosition(k) >= 0
        and header.sectionViewportPosition(k) + header.sectionSize(k) <= width
        for k in range(4)
    )


def test_at_1024x700_the_names_and_seed_figures_show_without_scrolling(qtbot, window):
    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    window._size_docks()
    window.config.algorithm.set_value("id3")
    window.config.cv_folds.setValue(0)
    train_and_wait(qtbot, window)  # the weather data
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    window.docks["Inspector"].raise_()
    window.controller.select_node(0)
    qtbot.wait(50)
    table = window.inspector.splits.table
    assert table.isVisible() and table.rowCount() == 4
    header = table.horizontalHeader()
    assert [table.horizontalHeaderItem(k).text().replace("\n", " ") for k in range(4)] == [
        "info gain",
        "split info",
        "gain ratio",
        "Gini gain",
    ]
    assert "information gain" in table.horizontalHeaderItem(0).toolTip()
    names = [table.verticalHeaderItem(i).text() for i in range(4)]
    assert names == ["outlook", "temperature", "humidity", "windy"]
    assert table.item(0, 0).text() == "0.247" and table.item(0, 2).text() == "0.156"
    assert table.item(0, 0).textAlignment() & Qt.AlignmentFlag.AlignRight
    # The names are the row header: they never scroll; the table is within the dock.
    assert table.verticalHeader().isVisible() and table.verticalHeader().width() > 0
    area = window.inspector.scroll
    assert table.width() <= area.viewport().width()
    assert _seed_columns_visible(table), [
        (header.sectionViewportPosition(k), header.sectionSize(k)) for k in range(4)
    ] + [table.viewport().width()]
    # Scrolled sideways, then a growth step (a new tree): back to the start.
    bar = table.horizontalScrollBar()
    bar.setValue(bar.maximum())
    window.growth.start_over()
    window.growth.step()
    window.controller.select_node(0)
    qtbot.wait(20)
    assert bar.value() == 0 and area.horizontalScrollBar().value() == 0
    assert _seed_columns_visible(table)
    # The inspector's text keeps every figure (copying, the tests of the seed numbers).
    assert "Candidate splits here" in window.inspector.text() and "0.247" in window.inspector.text()
