"""Workspaces and the canvas's room (issue 38): Learn, Analyse and Present each open their
docks and keep how the person left them; a dock added later finds a place; the canvas keeps
at least half of a 1024x700 window, and a new tree's headlines stay readable."""

from pathlib import Path

from PySide6.QtCore import QSize, Qt

from gui.drawing.nodes import LOD_TEXT, short_headline
from gui.main_window import DOCKS
from gui.presenting import MIN_LABEL_PX_WINDOW
from gui.side_bar import SETTING
from gui.workspaces import ANALYSE, LEARN, members, side_of, side_widths, workspace_of
from tests.gui.conftest import train_and_wait

SOYBEAN = Path(__file__).parents[1] / "fixtures" / "weka" / "data" / "soybean.arff"
RIGHT = Qt.DockWidgetArea.RightDockWidgetArea


def opened(window) -> set[str]:
    return {name for name, dock in window.docks.items() if not dock.isHidden()}


def following_the_size(window) -> None:
    """The side bar as it starts without a choice: on for a small window."""
    window.settings.remove(SETTING)
    window.side_bar.apply()


def test_after_training_soybean_at_1024x700_the_canvas_has_half_and_labels_read(qtbot, window):
    following_the_size(window)
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
    # Every dock is collapsed to the side bar, one click away: the canvas keeps the width.
    bar = window.side_bar
    assert bar.active and window.act["collapse_panels"].isChecked()
    assert opened(window) == set() and list(bar.buttons) == members(LEARN, DOCKS)
    assert canvas.width() >= window.width() - bar.bar.width() - 30
    full = canvas.size()
    qtbot.mouseClick(bar.buttons["Inspector"], Qt.MouseButton.LeftButton)
    assert bar.frame.isVisible() and window.inspector.isVisible()  # over the canvas
    assert canvas.size() == full and bar.buttons["Inspector"].isChecked()
    assert bar.frame.geometry().right() >= canvas.width() - 30
    assert bar.frame.geometry().width() <= 0.4 * window.width()
    qtbot.mouseClick(bar.buttons["Inspector"], Qt.MouseButton.LeftButton)
    assert not bar.frame.isVisible() and not bar.buttons["Inspector"].isChecked()
    assert window.docks["Inspector"].widget() is window.inspector  # back in its dock
    qtbot.mouseClick(bar.buttons["Data"], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton)  # a click on the tree
    assert not bar.frame.isVisible()
    # Fit tree: all 90-odd nodes in view, each box saying its headline (gui/drawing/nodes.py).
    window.act["fit"].trigger()
    lod = canvas.scale_factor()
    assert lod < LOD_TEXT
    for item in canvas.tree_scene().items_by_id.values():
        rect = item.boundingRect().adjusted(3, 3, -3, -3)
        assert short_headline(item.title, rect, lod, canvas.style()) is not None, item.title


def test_workspaces_switch_and_each_keeps_its_arrangement(qtbot, window):
    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    assert not window.side_bar.active  # docked, as the window fixture chose
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


def test_a_collapsed_panel_shows_by_keyboard_pins_and_follows_the_workspace(qtbot, window):
    following_the_size(window)
    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    bar = window.side_bar
    qtbot.waitUntil(lambda: bar.active)
    growth = bar.buttons["Growth"]
    assert "Alt+1" in growth.toolTip() and growth.shortcut().toString() == "Alt+1"
    growth.setFocus()  # the bar's buttons take the keyboard: Tab to one, Space opens it
    qtbot.keyClick(growth, Qt.Key.Key_Space)
    assert bar.shown == "Growth"
    qtbot.keyClick(window.growth.step_button, Qt.Key.Key_Escape)  # Esc in the panel hides it
    assert bar.shown is None and window.docks["Growth"].isAncestorOf(window.growth)
    width = window.canvas.width()
    growth.click()
    bar.frame.pin_button.click()  # docked beside the canvas, as without the bar
    assert not window.docks["Growth"].isHidden() and bar.pinned_docks() == {"Growth"}
    qtbot.waitUntil(lambda: window.canvas.width() < width)
    window.docks["Growth"].close()  # a pinned dock closed goes back to the bar
    assert bar.pinned_docks() == set() and not growth.isChecked()
    window.act["workspace_analyse"].trigger()  # the bar holds the new workspace's panels
    assert list(bar.buttons) == members(ANALYSE, DOCKS) and opened(window) == set()
    bar.bring("Evaluation")  # a command that works in a panel shows it over the tree
    assert bar.shown == "Evaluation" and opened(window) == set()


def test_the_choice_to_collapse_is_kept_and_a_big_window_docks(qtbot, window, settings):
    from gui.main_window import MainWindow

    following_the_size(window)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: not window.side_bar.active and not window.side_bar.bar.isVisible())
    assert opened(window) == set(members(LEARN, DOCKS))  # roomy: docked on both sides
    window.act["collapse_panels"].trigger()  # forced on, on a big window too
    assert window.side_bar.active and opened(window) == set()
    assert settings.value(SETTING) == "on"
    assert window.close()
    again = MainWindow(settings)
    qtbot.addWidget(again)
    assert again.side_bar.active and again.act["collapse_panels"].isChecked()


def test_the_side_bar_toggle_is_an_action_listed_with_its_panel_keys_and_exam_uses_it(
    qtbot, window
):
    from gui.actions import ACTIONS
    from gui.help import shortcut_rows

    spec = next(s for s in ACTIONS if s.name == "collapse_panels")
    assert spec.shortcuts == ("Ctrl+Shift+B",) and spec.checkable
    rows = {name: keys for name, keys, _ in shortcut_rows()}
    assert rows["Collapse panels to a side bar"] == "Ctrl+Shift+B"
    assert rows["Side-bar panel 1 to 9"] == "Alt+1 … Alt+9"
    view = next(a for a in window.menuBar().actions() if a.text() == "&View").menu()
    assert window.act["collapse_panels"] in view.actions()
    window.act["collapse_panels"].trigger()
    assert window.side_bar.active and window.act["collapse_panels"].isChecked()
    window.act["exam_mode"].trigger()  # the Growth panel over the tree, not a floating dock
    assert window.side_bar.shown == "Growth" and not window.docks["Growth"].isFloating()


def test_a_window_deleted_before_its_queued_layout_calls_run_raises_nothing(qtbot, settings):
    """The side bar, the workspaces and the compare view queue layout calls for the next turn
    of the event loop; a window closed and deleted first left them to run on its deleted docks
    (an error per call). They are queued on the window's objects now, and go with them."""
    from PySide6.QtCore import QCoreApplication, QEvent

    from gui.main_window import MainWindow

    settings.setValue(SETTING, "on")  # collapsed: its refresh queues the tab-bar clean-up
    window = MainWindow(settings)
    assert window.side_bar.active
    window.side_bar.refresh()
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    qtbot.wait(20)  # the queued calls' turn: pytest-qt fails the test on any error raised


def test_a_tree_fitted_while_a_panel_is_over_the_canvas_keeps_beside_it(qtbot, window):
    """Fit tree with a collapsed panel shown: the tree in the part of the view the panel
    leaves; once it is hidden, the next fit uses the whole view again."""
    following_the_size(window)
    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    bar, canvas = window.side_bar, window.canvas
    qtbot.waitUntil(lambda: bar.active)
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)

    def tree_on_screen():
        return canvas.mapFromScene(canvas.tree_scene().content_rect()).boundingRect()

    bar.buttons["Inspector"].click()
    assert bar.frame.isVisible()
    frame_left = canvas.viewport().mapFromGlobal(bar.frame.mapToGlobal(bar.frame.rect().topLeft()))
    assert 0 < canvas.covered_right == canvas.viewport().width() - frame_left.x()
    window.act["fit"].trigger()
    beside = tree_on_screen()
    assert beside.left() >= 0 and beside.right() <= frame_left.x()
    # The legend out from under the panel too.
    assert canvas.overlay_rects()["legend"].right() < frame_left.x()
    # Centred in the open part, as wide as it allows (or at the 1.5x cap).
    open_port = canvas.open_port()
    assert abs(beside.center().x() - open_port.center().x()) <= 2
    bar.hide_panel()
    assert canvas.covered_right == 0
    window.act["fit"].trigger()
    whole = tree_on_screen()
    assert abs(whole.center().x() - canvas.viewport().rect().center().x()) <= 2
    assert whole.width() >= beside.width()
