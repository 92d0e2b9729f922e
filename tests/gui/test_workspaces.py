"""Workspaces and the canvas's room (issue 38): Learn, Analyse and Present each open their
docks and keep how the person left them; a dock added later finds a place; the canvas keeps
at least half of a 1024x700 window, and a new tree's headlines stay readable."""

from pathlib import Path

from PySide6.QtCore import QSize, Qt

from gui.main_window import DOCKS
from gui.presenting import MIN_LABEL_PX_WINDOW
from gui.workspaces import ANALYSE, LEARN, members, side_of, side_widths, workspace_of
from tests.gui.conftest import train_and_wait

SOYBEAN = Path(__file__).parents[1] / "fixtures" / "weka" / "data" / "soybean.arff"
RIGHT = Qt.DockWidgetArea.RightDockWidgetArea


def opened(window) -> set[str]:
    return {name for name, dock in window.docks.items() if not dock.isHidden()}


def test_after_training_soybean_at_1024x700_the_canvas_has_half_and_labels_read(qtbot, window):
    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    assert window.files.open_path(str(SOYBEAN), confirmed=True)
    window.config.cv_folds.setValue(0)  # the tree only
    train_and_wait(qtbot, window, timeout=120000)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    qtbot.wait(50)  # the docks and the fit settle
    canvas, tree = window.canvas, window.controller.tree
    assert tree.n_leaves > 40  # 19 classes: a tree far too wide to fit whole readably
    assert canvas.width() * canvas.height() >= 0.5 * window.width() * window.height(), (
        canvas.size(),
        window.size(),
    )
    # Headlines are drawn no smaller than the minimum, and the root is on screen.
    assert canvas.scale_factor() * canvas.style().title_px >= MIN_LABEL_PX_WINDOW - 1e-6
    root = canvas.tree_scene().items_by_id[tree.root.id]
    assert canvas.visible_scene_rect().contains(root.sceneBoundingRect())
    assert canvas.overview.isVisible()  # the rest of the tree is one glance away
    # Every dock of the workspace is a tab on one side, one click away.
    assert opened(window) >= {"Growth", "Inspector", "Data"}
    assert {window.dockWidgetArea(window.docks[n]) for n in opened(window)} == {RIGHT}


def test_workspaces_switch_and_each_keeps_its_arrangement(qtbot, window):
    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    assert window.workspaces.current == LEARN and window.act["workspace_learn"].isChecked()
    learn = opened(window)
    assert learn == set(members(LEARN, DOCKS))
    assert window.act["workspace_analyse"].shortcut().toString() == "Ctrl+2"
    window.docks["Regions"].hide()  # the person closes one
    window.act["workspace_analyse"].trigger()
    assert opened(window) == {"Algorithm", "Evaluation", "Results", "Runs", "Summary", "Text"}
    qtbot.wait(20)  # laid out: the canvas keeps half here too (Evaluation's panel scrolls)
    assert window.canvas.width() * window.canvas.height() >= 0.5 * 1024 * 700
    assert window.act["workspace_analyse"].isChecked()
    window.act["workspace_present"].trigger()
    assert opened(window) == set()  # the canvas alone
    window.act["workspace_learn"].trigger()
    assert opened(window) == learn - {"Regions"}  # as it was left
    window.act["reset_workspace"].trigger()
    assert opened(window) == learn  # as it starts


def test_workspaces_are_kept_with_the_settings(qtbot, window, settings):
    from gui.main_window import MainWindow

    window.show()
    window.act["workspace_analyse"].trigger()
    window.docks["Text"].hide()
    assert window.close()
    again = MainWindow(settings)
    qtbot.addWidget(again)
    assert again.workspaces.current == ANALYSE and again.act["workspace_analyse"].isChecked()
    assert opened(again) == {"Algorithm", "Evaluation", "Results", "Runs", "Summary"}


def test_a_dock_added_later_has_a_place_in_every_workspace(qtbot, window, settings):
    later = (
        *DOCKS,
        ("Curves", RIGHT, "Evaluation"),  # tabbed with an Analyse dock: in Analyse, on the right
        ("Notes", Qt.DockWidgetArea.BottomDockWidgetArea, None),  # named nowhere: Analyse
    )
    assert workspace_of("Curves", later) == ANALYSE and side_of("Curves", later) == RIGHT
    assert workspace_of("Notes", later) == ANALYSE
    assert members(ANALYSE, later)[-2:] == ["Curves", "Notes"]
    assert set(members(LEARN, later)) == set(members(LEARN, DOCKS))
    # A saved arrangement that never saw a dock opens it where its workspace would.
    window.show()
    window.act["workspace_analyse"].trigger()
    window.act["workspace_learn"].trigger()
    settings.setValue("workspaces/Analyse/docks", "Algorithm,Results,Runs,Evaluation,Summary")
    window.docks["Text"].hide()
    window.act["workspace_analyse"].trigger()
    assert "Text" in opened(window)


def test_a_roomy_window_gives_docks_two_sides_and_the_canvas_half():
    for size in (QSize(1920, 1080), QSize(1400, 900), QSize(1366, 860)):
        left, right = side_widths(size)
        assert left and right
        # Menus, toolbar and status bar take about 80 px of height, the docks' tab bars and
        # splitters about 60 px of width.
        assert (size.width() - left - right - 60) * (size.height() - 80) >= 0.5 * (
            size.width() * size.height()
        )
    assert side_widths(QSize(1280, 720))[0] == 0  # compact: one side only
