"""The pruning path's alpha ticks are readable at 1024x700 (issue 30): at the dock's width
the labels of adjacent ticks used to run into each other."""

import pytest
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QFontMetricsF

from tests.gui.conftest import train_and_wait


def _label_rects(panel):
    axis = panel.plot.getAxis("bottom")
    box = panel.plot.getViewBox()
    metrics = QFontMetricsF(axis.style.get("tickFont") or axis.font())
    major = axis._tickLevels[0] if axis._tickLevels else []
    left, right = box.viewRange()[0]
    rects = []
    for value, text in major:
        if not left <= value <= right:
            continue  # pyqtgraph draws no tick outside the view
        x = box.mapViewToScene(QPointF(value, 0)).x()
        width = metrics.horizontalAdvance(text)
        rects.append(QRectF(x - width / 2, 0, width, metrics.height()))
    return rects


@pytest.fixture(scope="module")
def pruning_shown(module_bot, module_window):
    """CART on iris in a 1024x700 window (less a frame), its Pruning dock in front: one for the
    module, whose tests read it (the scale they change is put back by ``pruned``)."""
    qtbot, window = module_bot, module_window
    window.resize(1008, 652)  # 1024x700 less a window manager's frame
    window.show()
    qtbot.waitExposed(window)
    window.files.open_sample("iris", confirmed=True)
    window.config.algorithm.set_value("cart")
    train_and_wait(qtbot, window)
    window.docks["Pruning"].show()
    window.docks["Pruning"].raise_()
    panel = window.pruning
    qtbot.waitUntil(lambda: panel.figure.built and panel.plot.getViewBox().width() > 50)
    qtbot.wait(50)
    return panel, panel.scale.currentText()


@pytest.fixture
def pruned(qtbot, pruning_shown):
    panel, scale = pruning_shown
    if panel.scale.currentText() != scale:
        panel.scale.setCurrentText(scale)
        qtbot.wait(50)
    return panel


def test_adjacent_alpha_labels_do_not_overlap_at_1024(qtbot, pruned):
    panel = pruned
    for scale in ("rank", "log"):
        panel.scale.setCurrentText(scale)
        qtbot.wait(50)
        rects = _label_rects(panel)
        assert len(rects) >= 2, scale  # still some alphas named
        rects.sort(key=lambda r: r.left())
        for a, b in zip(rects, rects[1:], strict=False):
            assert not a.intersects(b), (scale, a, b, panel.plot.getViewBox().width())


def test_every_curve_name_shows_whole_at_1024(qtbot, pruned):
    """The legend's two columns ran past the dock's edge at 1024 ("training error" read
    "training"); where two do not fit it takes one."""
    panel = pruned
    names = [label.text for _, label in panel.legend.items]
    assert "training error" in names
    width = panel.figure.plot.width()
    for _, label in panel.legend.items:
        assert label.sceneBoundingRect().right() <= width, (label.text, width)
