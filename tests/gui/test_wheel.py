"""The mouse wheel never changes an input nobody picked: it scrolls the panel instead (issue 30).

Every spin box, combo box and slider of every dock, panel and window is wheeled up and down
while it does not have the focus; none of them, and none of the options the next training
would use, may change. One that has the focus (clicked or tabbed into) still takes the wheel.
"""

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDockWidget,
    QScrollBar,
)

from tests.gui.conftest import train_and_wait

INPUTS = (QAbstractSpinBox, QComboBox, QAbstractSlider)


def _wheel(widget, notches: int) -> None:
    """``notches`` clicks of a mouse wheel (positive: up, away from the user) over ``widget``'s middle."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(centre)),
        QPoint(0, 0),
        QPoint(0, 120 * notches),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def _inputs(window) -> list:
    """Every input of the window and of the windows it opened (the compare window)."""
    found = []
    for top in (window, window.compare_window):
        for kind in INPUTS:
            found += [w for w in top.findChildren(kind) if not isinstance(w, QScrollBar)]
    return found


def _value(widget):
    return widget.currentIndex() if isinstance(widget, QComboBox) else widget.value()


def _dock_of(widget):
    while widget is not None and not isinstance(widget, QDockWidget):
        widget = widget.parentWidget()
    return widget


def _scroll_area_of(widget):
    widget = widget.parentWidget()
    while widget is not None and not isinstance(widget, QAbstractScrollArea):
        widget = widget.parentWidget()
    return widget


def _ready(qtbot, window):
    """The window shown with two runs trained (What-if's inputs exist) and the compare window open."""
    window.resize(1024, 640)
    window.show()
    qtbot.waitExposed(window)
    train_and_wait(qtbot, window)
    window.config.algorithm.set_value("cart")
    train_and_wait(qtbot, window)
    window.compare_runs(1, 2)
    qtbot.waitExposed(window.compare_window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)


def test_the_wheel_over_an_input_nobody_picked_changes_nothing(qtbot, window):
    _ready(qtbot, window)
    inputs = _inputs(window)
    kinds = {type(w).__name__ for w in inputs}
    assert {"QSpinBox", "QDoubleSpinBox", "Choice", "QComboBox", "QSlider"} <= kinds, kinds
    assert len([w for w in inputs if window.what_if.isAncestorOf(w)]) == 4  # weather's attributes
    options, params = window.controller.options, window.config.params()
    before = [_value(w) for w in inputs]
    scrolled = 0
    for widget in inputs:
        # Hovering does not focus it (Qt's WheelFocus would, before any filter saw the wheel).
        assert widget.focusPolicy() != Qt.FocusPolicy.WheelFocus, widget
        dock = _dock_of(widget)
        if dock is not None:
            dock.raise_()
        window.canvas.setFocus()
        qtbot.waitUntil(lambda: QApplication.focusWidget() is window.canvas)
        area = _scroll_area_of(widget)
        bar = area.verticalScrollBar() if area is not None else None
        if bar is not None:
            bar.setValue(bar.minimum())
        _wheel(widget, -3)  # down, then up twice as far (past where it started)
        if bar is not None and bar.maximum() > bar.minimum():
            assert bar.value() > bar.minimum(), widget  # the panel scrolled instead
            scrolled += 1
        _wheel(widget, 3)
        _wheel(widget, 3)
        assert not widget.hasFocus()
        assert [_value(w) for w in inputs] == before, widget
    assert scrolled >= 5  # the short docks' panels (Algorithm's above all) scrolled
    qtbot.wait(20)
    assert window.config.params() == params
    assert window.controller.options == options  # what the next training would use


def test_an_input_that_has_the_focus_takes_the_wheel(qtbot, window):
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.docks["Algorithm"].raise_()
    box = window.config.min_samples_split
    assert box.value() == 2
    box.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(box.hasFocus)
    _wheel(box, 1)
    assert box.value() == 3
    assert window.controller.options.params["min_samples_split"] == 3
    criterion = window.config.criterion
    criterion.setFocus(Qt.FocusReason.MouseFocusReason)
    qtbot.waitUntil(criterion.hasFocus)
    index = criterion.currentIndex()
    _wheel(criterion, -1)
    assert criterion.currentIndex() == index + 1
    _wheel(box, 1)  # no longer the focused one
    assert box.value() == 3


def test_the_wheel_passing_over_the_node_plot_scrolls_the_inspector(qtbot, window):
    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.files.open_sample("iris", confirmed=True)
    window.config.algorithm.set_value("c45")
    window.config.cv_folds.setValue(0)
    train_and_wait(qtbot, window)
    window.docks["Inspector"].raise_()
    node_plot = window.inspector.node_plot
    window.controller.select_node(0)
    qtbot.waitUntil(lambda: node_plot.shown is not None)
    view, bar = node_plot.plot, window.inspector.scroll.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > bar.minimum())  # the card and plot overflow it
    window.canvas.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.canvas)
    bar.setValue(bar.minimum())
    shown = view.getViewBox().viewRange()
    _wheel(view.viewport(), -3)
    assert bar.value() > bar.minimum()  # the inspector scrolled
    assert view.getViewBox().viewRange() == shown  # and the plot kept its range
    assert not view.hasFocus()
    view.setFocus(Qt.FocusReason.MouseFocusReason)  # picked: now it zooms
    qtbot.waitUntil(view.hasFocus)
    _wheel(view.viewport(), 3)
    assert view.getViewBox().viewRange() != shown
