"""Presentation mode (issue 38): F11 shows the tree alone, full screen, in projector type and
colours; Page Down and Page Up (a remote clicker's keys) step growth, then pruning; F11 again
puts everything back."""

import pytest
from PySide6.QtCore import Qt

from gui.drawing import palette
from gui.presenting import MIN_LABEL_PX, PRUNE
from tests.gui.conftest import train_and_wait


@pytest.fixture
def presenting(qtbot, window):
    window.config.algorithm.set_value("c45")
    window.config.cv_folds.setValue(0)
    window.show()
    qtbot.waitExposed(window)
    train_and_wait(qtbot, window)  # the weather data: C4.5 keeps its pruning record
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    window.activateWindow()
    qtbot.waitActive(window)
    qtbot.keyClick(window.canvas, Qt.Key.Key_F11)
    yield window
    window.presenter.leave()
    palette.use(palette.LIGHT)


def key(qtbot, window, which) -> None:
    qtbot.keyClick(window.canvas, which)


def test_f11_presents_the_tree_alone_full_screen_and_f11_leaves(qtbot, presenting):
    w = presenting
    assert w.presenter.active and w.act["present"].isChecked()
    assert w.windowState() & Qt.WindowState.WindowFullScreen
    assert not w.menuBar().isVisible() and not w.statusBar().isVisible()
    assert all(d.isHidden() for d in w.docks.values())
    assert w.presenter.overlay.isVisible()
    assert palette.current() is palette.PROJECTOR
    assert w.canvas.backgroundBrush().color().name().upper() == palette.PROJECTOR.background
    qtbot.wait(20)  # full screen arrives, the view is fitted again
    assert w.canvas.scale_factor() * w.canvas.style().title_px >= MIN_LABEL_PX - 1e-6
    key(qtbot, w, Qt.Key.Key_Space)  # Space plays growth, and pauses it
    assert w.growth.play_button.isChecked() and w.presenter.overlay.play.text() == "Pause"
    key(qtbot, w, Qt.Key.Key_Space)
    assert not w.growth.play_button.isChecked() and w.presenter.overlay.play.text() == "Play"
    key(qtbot, w, Qt.Key.Key_F11)
    assert not w.presenter.active and not w.act["present"].isChecked()
    assert not w.windowState() & Qt.WindowState.WindowFullScreen
    assert w.menuBar().isVisible() and w.workspaces.current == "Learn"
    assert palette.current() is palette.LIGHT and w.canvas.style().title_px == 13


def test_page_down_and_up_step_growth_then_pruning(qtbot, presenting):
    w = presenting
    walk = len(w.pruning.walk)  # the trained tree's pruning record
    assert walk >= 1
    key(qtbot, w, Qt.Key.Key_PageDown)
    assert w.growth.count == 1 and w.canvas.tree().n_nodes == 4  # outlook's three branches
    key(qtbot, w, Qt.Key.Key_PageDown)
    assert w.growth.count == 2
    two = w.canvas.tree().n_nodes
    key(qtbot, w, Qt.Key.Key_PageUp)
    assert w.growth.count == 1 and w.canvas.tree().n_nodes == 4
    key(qtbot, w, Qt.Key.Key_Right)  # the arrows too
    assert w.growth.count == 2 and w.canvas.tree().n_nodes == two
    for _ in range(10):  # on to the end of growth: the walk through pruning starts
        key(qtbot, w, Qt.Key.Key_PageDown)
        if w.presenter.mode == PRUNE:
            break
    assert w.presenter.mode == PRUNE and w.pruning.position == 0
    key(qtbot, w, Qt.Key.Key_PageDown)
    assert w.pruning.position == min(1, walk)
    assert w.presenter.overlay.said.text().startswith("Prun")
    key(qtbot, w, Qt.Key.Key_PageUp)
    assert w.pruning.position == 0
    key(qtbot, w, Qt.Key.Key_PageUp)  # before the first decision: back to growing
    assert w.presenter.mode != PRUNE


def test_the_stepping_keys_do_nothing_outside_a_presentation(qtbot, window):
    window.show()
    assert not window.act["present_next"].isEnabled()
    assert not window.act["present_back"].isEnabled()
    assert "PgDown" in [s.toString() for s in window.act["present_next"].shortcuts()]
