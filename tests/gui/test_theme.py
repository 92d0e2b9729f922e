"""Light and dark themes (issue 38): the canvas and the plots take the theme's colours,
exports stay light unless asked."""

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtWidgets import QApplication

from gui.drawing import palette
from tests.gui.conftest import train_and_wait


@pytest.fixture
def themed(qtbot, window):
    window.show()
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    yield window
    window.theme.choose("light")  # the GUI thread's palette and the app's, for the next tests
    app = QApplication.instance()
    app.setPalette(app.style().standardPalette())


def background(view) -> str:
    return view.backgroundBrush().color().name().upper()


def corner(image) -> QColor:
    return image.pixelColor(1, 1)


def test_the_theme_changes_the_canvas_and_plots_but_not_exports(qtbot, themed):
    w = themed
    assert w.theme.choice == "system" and w.act["theme_system"].isChecked()
    assert w.pruning.plot is not None  # made now (a plot is made the first time it is needed)
    plots = w.findChildren(pg.GraphicsView)
    assert plots
    w.act["theme_dark"].trigger()
    assert w.theme.dark and palette.current() is palette.DARK
    assert background(w.canvas) == palette.DARK.background
    assert {background(p) for p in plots} == {palette.DARK.background}
    assert QApplication.instance().palette().window().color().lightness() < 80
    w.act["theme_light"].trigger()
    assert background(w.canvas) == palette.LIGHT.background
    assert {background(p) for p in plots} == {"#FFFFFF"}
    assert w.settings.value("view/theme") == "light"
    # Exports stay light in the dark theme, unless asked.
    clipboard = QGuiApplication.clipboard()
    w.act["theme_dark"].trigger()
    w.act["copy_image"].trigger()
    assert corner(clipboard.image()) == QColor("#FFFFFF")  # a light picture, for a white page
    assert palette.current() is palette.DARK  # the canvas still dark after the export
    w.act["export_dark"].trigger()  # File > Export in the dark theme
    w.act["copy_image"].trigger()
    assert corner(clipboard.image()) == QColor(palette.DARK.paper)
    w.act["theme_light"].trigger()  # the option follows the theme: light again
    w.act["copy_image"].trigger()
    assert corner(clipboard.image()) == QColor("#FFFFFF")
