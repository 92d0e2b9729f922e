"""The window fits small screens: panels scroll, the minimum size stays small, the toolbar stays put."""

from pathlib import Path

from tests.gui.conftest import train_and_wait

SOYBEAN = Path(__file__).parents[1] / "fixtures" / "weka" / "data" / "soybean.arff"


def _fits(window) -> bool:
    hint = window.minimumSizeHint()
    return hint.width() <= 1024 and hint.height() <= 640


def test_the_minimum_size_stays_small_after_training_soybean(qtbot, window):
    window.show()
    assert _fits(window)
    assert window.files.open_path(str(SOYBEAN), confirmed=True)
    assert window.doc.n_rows == 683
    train_and_wait(qtbot, window, timeout=120000)
    # The cross-validation's figures (a 19-class confusion matrix) too, not only the tree.
    c = window.controller
    qtbot.waitUntil(
        lambda: c.result is not None and not c.busy and not c.cv_pending, timeout=120000
    )
    assert c.result.evaluation is not None
    assert len(window.controller.result.model.tree_.classes) == 19
    for name in window.docks:
        window.docks[name].raise_()
        qtbot.wait(10)
        assert _fits(window), (name, window.minimumSizeHint())
    window.canvas.select_node(0)  # the root's 35 candidate splits in the inspector
    assert _fits(window), window.minimumSizeHint()
    window.config.algorithm.set_value("id3")  # its message about numeric attributes shows
    assert _fits(window), window.minimumSizeHint()


def test_at_1024x700_the_canvas_has_room_and_every_option_can_be_reached(qtbot, window):
    from PySide6.QtWidgets import QScrollArea

    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    window.workspaces.switch("Analyse")  # the options' workspace (issue 38)
    window._size_docks()
    qtbot.wait(20)
    assert window.canvas.width() >= 400 and window.canvas.height() >= 250
    window.docks["Algorithm"].raise_()
    area = window.docks["Algorithm"].widget()
    assert isinstance(area, QScrollArea)
    for widget in (window.config.seed, window.config.cv_folds, window.config.holdout):
        area.ensureWidgetVisible(widget)
        qtbot.wait(10)
        assert not widget.visibleRegion().isEmpty()
    assert not area.horizontalScrollBar().isVisible()  # the options fit the dock's width


def test_the_toolbar_does_not_move_as_undo_text_grows(qtbot, window):
    from PySide6.QtWidgets import QToolBar

    from gui.table.table_commands import set_kind

    window.show()
    toolbar = window.findChild(QToolBar, "toolbar-main")
    train_button = toolbar.widgetForAction(window.act["train"])
    before = train_button.geometry()
    window.table_edits.push(lambda: set_kind(window.doc, "temperature", "ignored"))
    qtbot.wait(10)
    assert window.act["undo"].text() == "&Undo"
    assert window.act["undo"].toolTip() == "Undo Make temperature ignored"
    assert train_button.geometry() == before
