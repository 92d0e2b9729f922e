"""The main window, driven as a user would (offscreen)."""

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QPoint, Qt, QTimer

from engine.data.table import make_table
from tests.gui.conftest import train_and_wait


@pytest.fixture
def window(shared_window):
    """The module's one window, put back before each test to weather, a new window's options
    and no runs (``reset_window``). The tests that close it, show it or change its image
    options take ``own_window``."""
    return shared_window


def test_opens_with_weather_and_trains(qtbot, window):
    assert window.doc.n_rows == 14 and window.doc.target == "play"
    assert window.windowTitle().startswith("weather")
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.result is not None)
    tree = window.controller.result.model.tree_
    assert (tree.n_leaves, tree.n_nodes) == (5, 8)
    assert len(window.canvas.tree_scene().items_by_id) == 8
    text = window.results.text()
    assert "trained C4.5 tree — 5 leaves, 8 nodes, depth 2" in text
    assert "0-R: predict yes" in text and "5 of 14 wrong" in text


def test_selecting_the_root_shows_the_seed_numbers(qtbot, window):
    window.config.algorithm.set_value("id3")
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.result is not None)
    window.canvas.select_node(0)
    text = window.inspector.text()
    for value in ("0.247", "0.152", "0.048", "0.029", "1.577", "0.156", "0.940"):
        assert value in text


def test_edit_a_cell_and_undo_it(qtbot, window):
    index = window.model.index(0, 0)
    assert window.model.setData(index, "overcast")
    assert window.doc.value(0, 0) == "overcast" and window.doc.modified
    assert window.windowTitle().startswith("weather *")
    window.doc.undo_stack.undo()
    assert window.doc.value(0, 0) == "sunny" and not window.doc.modified
    window.doc.undo_stack.redo()
    assert window.doc.value(0, 0) == "overcast"


def test_numeric_column_refuses_text_and_offers_nominal(qtbot, window):
    window.files.open_sample("weather-numeric", confirmed=True)
    col = window.doc.columns.index("temperature")
    window.dialogs.replies["ask_yes_no"].append(True)
    with qtbot.waitSignal(window.model.edit_rejected):
        assert not window.model.setData(window.model.index(0, col), "warm")
    # The edit was refused; the user accepted the offer, so the column is now text.
    assert window.doc.kinds["temperature"] == "nominal" and window.doc.value(0, col) == "85"
    window.doc.undo_stack.undo()
    assert window.doc.kinds["temperature"] == "numeric" and window.doc.value(0, col) == 85


def test_change_kind_and_target_from_the_header_menu(qtbot, window):
    menu = window.table_edits.header_menu(window.doc.columns.index("windy"))
    [a for a in menu.actions() if a.text() == "Make ignored"][0].trigger()
    assert window.doc.kinds["windy"] == "ignored"
    menu = window.table_edits.header_menu(window.doc.columns.index("outlook"))
    [a for a in menu.actions() if a.text() == "Set as target"][0].trigger()
    assert window.doc.target == "outlook"
    window.doc.undo_stack.undo()
    window.doc.undo_stack.undo()
    assert window.doc.target == "play" and window.doc.kinds["windy"] == "nominal"


def test_rows_insert_delete_duplicate_with_undo(qtbot, window):
    window.table.view.selectRow(0)
    window.table_edits.duplicate_selected_rows()
    assert window.doc.n_rows == 15
    window.table_edits.insert_row()
    assert window.doc.n_rows == 16
    window.table.view.selectRow(0)
    window.table_edits.delete_selected_rows()
    assert window.doc.n_rows == 15
    for _ in range(3):
        window.doc.undo_stack.undo()
    assert window.doc.n_rows == 14


def test_bad_file_shows_one_error_and_keeps_the_table(qtbot, window, tmp_path):
    bad = tmp_path / "bad.arff"
    bad.write_text("@relation x\n@attribute a {p,q}\n@data\nz\n")
    assert not window.files.open_path(str(bad), confirmed=True)
    assert (
        len(window.dialogs.errors) == 1
        and "not among its declared values" in window.dialogs.errors[0][0]
    )
    assert window.doc.n_rows == 14


def test_unsaved_changes_are_guarded(qtbot, window, tmp_path):
    window.model.setData(window.model.index(0, 0), "rainy")
    window.dialogs.replies["ask_unsaved"].append("cancel")
    assert not window.files.open_sample("iris")
    assert window.doc.n_rows == 14
    window.dialogs.replies["ask_unsaved"].append("save")
    window.dialogs.replies["save_path"].append(str(tmp_path / "w.csv"))
    assert window.files.open_sample("iris")
    assert (tmp_path / "w.csv").exists() and window.doc.n_rows == 150


def test_close_is_guarded(qtbot, own_window):
    own_window.model.setData(own_window.model.index(0, 0), "rainy")
    own_window.dialogs.replies["ask_unsaved"].append("cancel")
    assert not own_window.close()
    own_window.dialogs.replies["ask_unsaved"].append("discard")
    assert own_window.close()


def test_save_and_reopen(qtbot, window, tmp_path):
    path = tmp_path / "weather.arff"
    window.dialogs.replies["save_path"].append(str(path))
    assert window.files.save_as()
    assert not window.doc.modified and window.windowTitle().startswith("weather.arff")
    assert window.files.open_path(str(path))
    assert window.doc.n_rows == 14 and str(path) in window.files.recent_files()


def _csv(tmp_path, rows=2000):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"x": rng.normal(size=rows).round(3), "y": np.where(rng.random(rows) < 0.5, "a", "b")}
    )
    path = tmp_path / "big.csv"
    frame.to_csv(path, index=False)
    return path


def test_a_big_file_opens_on_a_worker_thread(qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setattr("gui.session.files.BACKGROUND_OPEN_BYTES", 0)
    path = _csv(tmp_path)
    assert window.files.open_path(str(path))
    assert window.doc.n_rows == 14  # still the old table while reading
    assert not window.progress.isHidden() and not window.cancel_button.isHidden()
    qtbot.waitUntil(lambda: window.doc.n_rows == 2000)
    qtbot.waitUntil(lambda: window.progress.isHidden())
    assert window.doc.path == str(path)
    assert str(path) in window.files.recent_files()


def test_a_big_bad_file_reports_and_keeps_the_table(qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setattr("gui.session.files.BACKGROUND_OPEN_BYTES", 0)
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n3\n")
    assert window.files.open_path(str(bad))
    qtbot.waitUntil(lambda: bool(window.dialogs.errors))
    assert "line 3 has 1 values, expected 2" in window.dialogs.errors[0][0]
    assert window.doc.n_rows == 14


def test_edits_made_while_a_file_opens_are_not_dropped_silently(
    qtbot, window, tmp_path, monkeypatch
):
    import gui.session.files as files

    monkeypatch.setattr(files, "BACKGROUND_OPEN_BYTES", 0)
    real = window.files._on_open_finished
    handled = []

    def edit_first(job, table, path, edits):  # the user types while the file is being read
        window.model.setData(window.model.index(0, 0), "overcast")
        real(job, table, path, edits)
        handled.append(path)

    monkeypatch.setattr(window.files, "_on_open_finished", edit_first)
    assert window.files.open_path(str(_csv(tmp_path)))
    qtbot.waitUntil(lambda: handled != [])  # the finished file reached the window
    assert (
        window.doc.n_rows == 14 and window.doc.value(0, 0) == "overcast"
    )  # asked; answer was cancel


def _big_table(n=300_000):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 8))
    y = np.where(X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(0, 1, n) > 0, "a", "b")
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(8)]).assign(y=y)
    return make_table(frame)


def _hold_trainings(monkeypatch, until):
    """Trainings started from now on run on their worker thread only once ``until()`` is true,
    checking Cancel meanwhile (a long training, whatever the machine's speed). Returns the list
    of threads the trainings ran on."""
    import threading

    import gui.controller

    real, threads = gui.controller.train_call, []

    def held(*args, **kwargs):
        call = real(*args, **kwargs)

        def wait_then_call(monitor):
            threads.append(threading.current_thread())
            while not until():
                monitor.check()
                threading.Event().wait(0.005)
            return call(monitor)

        return wait_then_call

    monkeypatch.setattr(gui.controller, "train_call", held)
    return threads


def test_cancel_a_long_run_keeps_the_previous_tree(qtbot, window, monkeypatch):
    """Cancel while a training runs: the job says it was cancelled and the tree on screen
    stays. (That a cancel stops the growth itself: tests/engine/fast/test_builder.py.)"""
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.result is not None)
    before = window.controller.result
    window.doc.load(_big_table(2000), None)
    window.controller.result = before  # loading drops the tree; keep one to check it survives
    window.config.algorithm.set_value("cart")
    window.config.prune.set_value("none")  # the grown tree, unpruned
    threads = _hold_trainings(monkeypatch, lambda: False)  # runs until cancelled
    job = window.train()
    qtbot.waitUntil(lambda: threads != [])  # under way on its worker thread
    with qtbot.waitSignal(job.cancelled, timeout=20000):
        window.controller.runner.cancel()
    assert window.controller.result is before


def test_window_stays_responsive_while_training(qtbot, window, monkeypatch):
    """Training runs on a worker thread while the window's event loop goes on: the training
    waits, on its thread, until a timer on the GUI thread has fired five times, which it could
    not do if the training held the GUI thread. How often the loop turns during a big training
    is measured by benchmarks/bench_responsive.py, never asserted here."""
    import threading

    window.doc.load(_big_table(2000), None)
    window.config.algorithm.set_value("cart")
    window.config.prune.set_value("none")  # the grown tree, unpruned
    window.config.max_depth.setValue(8)
    window.config.cv_folds.setValue(0)
    ticks = []
    threads = _hold_trainings(monkeypatch, lambda: len(ticks) >= 5)
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    job = window.train()
    timer.start(20)  # fires only while the event loop turns, once train() has returned
    qtbot.waitUntil(lambda: job.done, timeout=120000)
    timer.stop()
    assert threads and threads[0] is not threading.main_thread()
    qtbot.waitUntil(lambda: window.controller.result is not None)
    assert window.controller.result.model.settings_.max_depth == 8


def test_two_quick_trains_never_mix(qtbot, window):
    """A second Train with other options replaces the first (when asked, if the first still
    runs); only the second's tree arrives. (The same options again: tests/gui/test_sessions.py.)"""
    first = window.train()
    window.config.max_depth.setValue(1)
    window.dialogs.replies["ask_replace_or_queue"] = ["replace"]
    second = window.train()
    qtbot.waitUntil(lambda: first.done and second.done, timeout=60000)
    qtbot.waitUntil(lambda: window.controller.result is not None)
    # The second's fit, or the cross-validation that follows it (its own job since issue 39).
    current = window.controller.runner.current
    assert current is second or current.name.endswith("cross-validation")
    assert window.controller.result.model.settings_.max_depth == 1
    assert [run.settings.max_depth for run in window.controller.runs][-1] == 1


def test_id3_with_numeric_attribute_names_it(qtbot, window):
    window.files.open_sample("weather-numeric", confirmed=True)
    window.config.algorithm.set_value("id3")
    assert "'temperature' is numeric" in window.config.message.text()
    assert window.train() is None and "temperature" in window.dialogs.errors[-1][0]
    window.config.switch_button.click()
    assert window.config.algorithm.value() == "c45"


def test_table_selection_highlights_paths(qtbot, window):
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.result is not None)
    window.table.view.selectRow(0)  # sunny, high -> no
    items = window.canvas.tree_scene().items_by_id
    lit = {i for i, it in items.items() if it.highlighted}
    assert 0 in lit and len(lit) == 3


def test_copy_and_paste_block(qtbot, window):
    view = window.table.view
    view.setCurrentIndex(window.table.proxy.index(0, 0))
    assert window.table.paste("rainy\tcool\nrainy\tcool")
    assert window.doc.value(1, 1) == "cool"
    window.doc.undo_stack.undo()
    assert window.doc.value(1, 1) == "hot"
    view.selectRow(0)
    assert window.table.copy_selection().startswith("sunny\thot\thigh")


def test_settings_are_remembered(qtbot, settings):
    from gui.main_window import MainWindow
    from tests.gui.conftest import FakeDialogs

    win = MainWindow(settings)
    win.dialogs = FakeDialogs()
    qtbot.addWidget(win)
    win.config.algorithm.set_value("cart")
    win.config.max_depth.setValue(3)
    assert win.close()
    again = MainWindow(settings)
    qtbot.addWidget(again)
    assert again.config.algorithm.value() == "cart" and again.config.max_depth.value() == 3


def test_exports_from_the_menu(qtbot, window, tmp_path):
    from PySide6.QtGui import QGuiApplication

    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    for kind, name in (("rules", "r.md"), ("python", "p.py"), ("pmml", "t.pmml"), ("dot", "t.dot")):
        window.dialogs.replies["save_path"].append(str(tmp_path / name))
        window.exports.export_file(kind)
        assert (tmp_path / name).stat().st_size > 100, window.dialogs.errors
    assert (
        "IF outlook = sunny AND humidity = high THEN play = no" in (tmp_path / "r.md").read_text()
    )
    window.dialogs.replies["save_path"].append(str(tmp_path / "t.png"))
    window.exports.export_image()
    assert (tmp_path / "t.png").exists()
    window.exports.copy_image()
    assert not QGuiApplication.clipboard().image().isNull()


def test_node_filters_the_table_and_drop_pins(qtbot, window):
    from PySide6.QtCore import QMimeData, QPointF, Qt
    from PySide6.QtGui import QDropEvent

    from gui.mime import NODE_MIME

    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    window.filter_rows_to_node(1)  # outlook = sunny
    assert window.table.proxy.rowCount() == 5
    window.table.show_all.click()
    assert window.table.proxy.rowCount() == 14
    mime = QMimeData()
    mime.setData(NODE_MIME, b"4")
    drop = QDropEvent(
        QPointF(5, 5),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.inspector.dropEvent(drop)
    assert window.inspector.pinned() == [4]


def test_overview_for_big_trees(qtbot, own_window):
    own_window.files.open_sample("iris", confirmed=True)
    own_window.config.algorithm.set_value("cart")
    own_window.config.prune.set_value("none")  # the grown tree, unpruned
    own_window.config.cv_folds.setValue(0)
    own_window.show()
    train_and_wait(qtbot, own_window)
    qtbot.waitUntil(lambda: own_window.controller.tree is not None)
    assert not own_window.canvas.overview.isVisible()  # 17 nodes fit on screen
    import numpy as np
    import pandas as pd

    from engine.data.table import make_table

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(400, 3)), columns=list("abc"))
    frame["y"] = np.where(rng.random(400) < 0.5, "p", "q")
    own_window.doc.load(make_table(frame), None)
    train_and_wait(qtbot, own_window)
    qtbot.waitUntil(
        lambda: own_window.controller.tree is not None and own_window.controller.tree.n_nodes > 40
    )
    own_window.canvas.fit_to_window()  # a new tree is fitted readably (issue 38); Ctrl+0: whole
    assert not own_window.canvas.overview.isVisible()  # fitted whole: the overview would hide nodes
    own_window.canvas.zoom_in()
    own_window.canvas.zoom_in()
    assert own_window.canvas.overview.isVisible()  # part of the tree is out of view now
    before = own_window.canvas.visible_scene_rect().center()
    qtbot.mouseClick(own_window.canvas.overview, Qt.MouseButton.LeftButton, pos=QPoint(20, 20))
    assert own_window.canvas.visible_scene_rect().center() != before
    own_window.canvas.fit_to_window()
    assert not own_window.canvas.overview.isVisible()


def test_row_dropped_on_the_canvas_lights_its_path(qtbot, window):
    from PySide6.QtCore import QMimeData, QPointF, Qt
    from PySide6.QtGui import QDropEvent

    from gui.mime import ROWS_MIME

    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    mime = QMimeData()
    mime.setData(ROWS_MIME, b"0")
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.canvas.dropEvent(event)
    lit = {i for i, it in window.canvas.tree_scene().items_by_id.items() if it.highlighted}
    assert lit == {0, 1, 2}
    assert "predicts play = no" in window.status_label.text()


def test_image_scale_and_transparency(qtbot, own_window, tmp_path):
    from PySide6.QtGui import QImage

    train_and_wait(qtbot, own_window)
    qtbot.waitUntil(lambda: own_window.controller.tree is not None)
    sizes = []
    for factor in (1.0, 3.0):
        own_window.image_scale = factor
        own_window.act["transparent"].setChecked(factor == 3.0)
        path = tmp_path / f"t{factor:g}.png"
        own_window.dialogs.replies["save_path"].append(str(path))
        own_window.exports.export_image()
        image = QImage(str(path))
        sizes.append(image.width())
    assert sizes[1] == pytest.approx(3 * sizes[0], rel=0.02)
    assert image.pixelColor(1, 1).alpha() == 0


def test_a_big_trained_tree_opens_with_its_top_levels(qtbot, window):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(8000, 3)), columns=list("abc"))
    frame["y"] = np.where(rng.random(8000) < 0.5, "p", "q")
    window.doc.load(make_table(frame), None)
    window.config.algorithm.set_value("cart")
    window.config.prune.set_value("none")  # the grown tree, unpruned
    window.config.cv_folds.setValue(0)
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.result is not None)
    qtbot.waitUntil(lambda: "big tree" in window.status_label.text())
    assert window.status_label.text().startswith("Trained:")
    shown = len(window.canvas.tree_scene().items_by_id)
    assert shown < window.controller.result.model.tree_.n_nodes
    window.act[
        "expand_all"
    ].trigger()  # laid out in the background (it is more than BACKGROUND_NODES)
    total = window.controller.result.model.tree_.n_nodes
    qtbot.waitUntil(lambda: len(window.canvas.tree_scene().items_by_id) == total, timeout=60000)
    assert (
        window.status_label.text()
        == f"Every node shown: {total:,} of {total:,} nodes on the canvas"
    )


def test_a_big_layout_runs_beside_a_running_job(qtbot, window):
    """Expand all while a job runs (the cross-validation after a training, a minute on a big
    table) is laid out beside it, not refused until the job ends (issue 34)."""
    import threading

    from gui.session.jobs import Job

    release = threading.Event()
    running = window.controller.start(Job("A long job", lambda monitor: release.wait(10)))
    assert window.controller.busy
    shown = []
    assert window._start_canvas_job("Laying out", lambda monitor: 42, shown.append)
    qtbot.waitUntil(lambda: shown == [42], timeout=5000)
    assert window.controller.busy and not running.done  # the running job went on
    release.set()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=5000)


def test_no_two_actions_share_a_shortcut(window):
    seen = {}
    for name, action in window.act.items():
        for key in action.shortcuts():
            text = key.toString()
            assert text not in seen, f"{text} is both {seen[text]} and {name}"
            seen[text] = name


def test_a_big_nodes_candidate_splits_are_scored_off_the_gui_thread(qtbot, window, monkeypatch):
    import gui.panels.inspector as inspector

    monkeypatch.setattr(inspector, "BACKGROUND_WEIGHT", 10)  # the weather root has 14 rows
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.result is not None)
    window.canvas.select_node(0)
    assert "Scoring the candidate splits over 14 rows" in window.inspector.text()
    assert "Entropy" in window.inspector.text()  # the quick part is there at once
    qtbot.waitUntil(lambda: "Candidate splits here" in window.inspector.text())
    assert "Scoring" not in window.inspector.text()
    window.canvas.select_node(1)  # 5 rows: worked out right away
    assert "Candidate splits here" in window.inspector.text()
    window.canvas.select_node(0)  # kept from the first time
    assert "Candidate splits here" in window.inspector.text()


def test_a_node_clicked_away_from_does_not_overwrite_the_next(qtbot, window, monkeypatch):
    import gui.panels.inspector as inspector

    monkeypatch.setattr(inspector, "BACKGROUND_WEIGHT", 4)
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.result is not None)
    window.canvas.select_node(0)
    window.canvas.select_node(1)
    qtbot.waitUntil(lambda: "Candidate splits here" in window.inspector.text())
    qtbot.waitUntil(lambda: not window.inspector._tasks)  # node 0's splits came in too
    assert "Node 1" in window.inspector.text() and "Node 0" not in window.inspector.text()


def test_rows_picked_in_a_sorted_filtered_view_are_the_ones_deleted_and_pasted_into(qtbot, window):
    from PySide6.QtCore import QItemSelectionModel

    view, proxy = window.table.view, window.table.proxy
    view.sortByColumn(1, Qt.SortOrder.DescendingOrder)  # temperature: mild, hot, cool by text
    window.table.filter.setText("rainy")
    window.table.filter.returnPressed.emit()
    shown = [proxy.mapToSource(proxy.index(r, 0)).row() for r in range(proxy.rowCount())]
    assert sorted(shown) == [3, 4, 5, 9, 13]  # the rainy days
    assert [window.doc.value(r, 1) for r in shown] == ["mild", "mild", "mild", "cool", "cool"]
    view.selectionModel().select(
        proxy.index(3, 0),
        QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
    )
    target = shown[3]
    expected = window.doc.frame.drop(index=target).reset_index(drop=True)
    window.table_edits.delete_selected_rows()
    assert window.doc.n_rows == 13
    assert window.doc.frame.astype(str).equals(expected.astype(str))
    window.doc.undo_stack.undo()
    assert window.doc.n_rows == 14
    window.table.filter.setText("")
    window.table.filter.returnPressed.emit()
    view.setCurrentIndex(proxy.index(0, 3))  # sorted: the first shown row, column windy
    row = proxy.mapToSource(proxy.index(0, 3)).row()
    assert window.table.paste("TRUE")
    assert window.doc.value(row, 3) == "TRUE"
