"""Nothing a person typed is lost: recovery files, projects, failed jobs, unexpected errors."""

import sys

import pytest

from engine.errors import ArborError
from tests.gui.conftest import train_and_wait


@pytest.fixture
def window(shared_window):
    """The module's one window, put back before each test (``reset_window``), for the tests of
    projects, failed jobs, errors and edits. The tests of autosave and of a crash's recovery
    (the window's recovery file, its settings) take ``own_window``."""
    return shared_window


def test_autosave_only_with_unsaved_changes_and_cleared_on_save(qtbot, own_window, tmp_path):
    assert not own_window.recovery.autosave() and not own_window.recovery.pending()
    own_window.model.setData(own_window.model.index(0, 0), "rainy")
    assert own_window.recovery.autosave() and own_window.recovery.pending()
    own_window.dialogs.replies["save_path"].append(str(tmp_path / "w.arff"))
    assert own_window.files.save_as()
    assert not own_window.recovery.pending()


def test_restore_after_a_crash(qtbot, own_window, settings):
    from gui.main_window import MainWindow
    from tests.gui.conftest import FakeDialogs

    train_and_wait(qtbot, own_window)
    qtbot.waitUntil(lambda: own_window.controller.tree is not None)
    own_window.model.setData(own_window.model.index(2, 0), "sunny")
    own_window.canvas.tree_scene().move_node(4, 333.0, 111.0)
    assert own_window.recovery.autosave()
    # A new window after a "crash" (the old one never closed) restores the file.
    again = MainWindow(settings)
    again.dialogs = FakeDialogs()
    qtbot.addWidget(again)
    assert again.files.open_project(own_window.recovery.path, modified=True)
    assert again.doc.value(2, 0) == "sunny" and again.doc.modified
    assert again.controller.tree.n_nodes == own_window.controller.tree.n_nodes
    assert again.canvas.tree_scene().positions()[4] == (333.0, 111.0)
    again.doc.undo_stack.setClean()


def test_project_round_trip_with_hand_edits(qtbot, window, tmp_path):
    window.config.algorithm.set_value("id3")
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    window.modelling.make_leaf(1)
    path = tmp_path / "s.arbor"
    window.dialogs.replies["save_path"].append(str(path))
    assert window.files.save_project_dialog()
    window.doc.undo_stack.setClean()
    assert window.files.open_project(path)
    assert window.controller.tree.n_leaves == 4 and window.config.algorithm.value() == "id3"
    bad = tmp_path / "bad.arbor"
    bad.write_text('{"format": "arbor-project", "version": 7}')
    assert not window.files.open_project(bad) and "newer Arbor" in window.dialogs.errors[-1][0]


def test_failed_training_leaves_table_and_tree(qtbot, window, monkeypatch):
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    tree, rows = window.controller.tree, window.doc.n_rows

    def broken(*args, **kwargs):
        def call(monitor):
            raise ArborError("the engine refused")

        return call

    monkeypatch.setattr("gui.controller.train_call", broken)
    job = window.train()
    qtbot.waitUntil(lambda: job.done, timeout=10000)
    qtbot.waitUntil(lambda: bool(window.dialogs.errors), timeout=5000)
    assert window.dialogs.errors[-1][0] == "the engine refused"
    assert window.controller.tree is tree and window.doc.n_rows == rows


def test_unexpected_exception_shows_a_dialog(qtbot, window, tmp_path, monkeypatch):
    import gui.app as app_module

    monkeypatch.setattr(app_module, "log_path", lambda: tmp_path / "arbor.log")
    previous = sys.excepthook
    try:
        app_module.install_exception_hook(window)
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            sys.excepthook(*sys.exc_info())
    finally:
        sys.excepthook = previous
    message, details = window.dialogs.errors[-1]
    assert "boom" in message and "Traceback" in details


def test_memory_is_released_after_closing_a_large_table(qtbot, window):
    import gc
    import weakref

    import numpy as np
    import pandas as pd

    from engine.data.table import make_table

    # Big enough that the inspector would score the root's splits off the GUI thread (more
    # than gui.panels.inspector.BACKGROUND_WEIGHT rows); 300,000 checked no more, five times slower.
    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(60_000, 4)), columns=list("abcd"))
    frame["y"] = np.where(frame.a > 0, "p", "q")
    window.doc.load(make_table(frame), None)
    window.config.algorithm.set_value("cart")
    window.config.prune.set_value("none")  # the grown tree, unpruned
    window.config.max_depth.setValue(3)
    window.config.cv_folds.setValue(0)
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    big = weakref.ref(window.doc.frame)
    encoded = weakref.ref(window.controller.data.X)
    assert window.files.open_sample("weather", confirmed=True)
    gc.collect()
    assert big() is None and encoded() is None


def _big_csv(tmp_path, rows=2000):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {
            "a": rng.normal(size=rows).round(3),
            "b": rng.choice(["x", "y", "z"], rows),
            "c": rng.integers(0, 50, rows),
            "y": rng.choice(["p", "q"], rows),
        }
    )
    path = tmp_path / "big.csv"
    frame.to_csv(path, index=False)
    return path


def test_edits_to_a_big_table_survive_save_project_and_a_crash(
    qtbot, own_window, settings, tmp_path, monkeypatch
):
    """A table above the embedding limit was referenced by its unchanged file, edits lost."""
    import json

    import engine.project as project_module
    from gui.main_window import MainWindow
    from tests.gui.conftest import FakeDialogs

    monkeypatch.setattr(project_module, "EMBED_LIMIT", 1000)  # the 2,000 x 4 table counts as big
    data = _big_csv(tmp_path)
    assert own_window.files.open_path(str(data), confirmed=True)
    clean = tmp_path / "clean.arbor"
    own_window.files.write_project(clean)
    assert "sha256" in json.loads(clean.read_text())["table"]  # unchanged: the file is enough
    own_window.model.setData(
        own_window.model.index(7, 1), "z" if own_window.doc.value(7, 1) != "z" else "x"
    )
    own_window.model.setData(own_window.model.index(1500, 0), "123.25")
    edited = (own_window.doc.value(7, 1), own_window.doc.value(1500, 0))
    assert own_window.recovery.autosave()
    recovered = tmp_path / "recovered.arbor"  # what a crash now would leave
    recovered.write_bytes(own_window.recovery.path.read_bytes())
    path = tmp_path / "s.arbor"
    own_window.dialogs.replies["save_path"].append(str(path))
    assert own_window.files.save_project_dialog()
    assert "parquet" in json.loads(path.read_text())["table"]
    assert not own_window.recovery.pending()  # saved: nothing is left to recover
    for project, modified in ((path, False), (recovered, True)):
        again = MainWindow(settings)
        again.dialogs = FakeDialogs()
        qtbot.addWidget(again)
        assert again.files.open_project(project, modified=modified)
        assert (again.doc.value(7, 1), again.doc.value(1500, 0)) == edited
        assert again.doc.n_rows == 2000 and again.doc.modified == modified
        # After a crash the edits are unsaved changes to big.csv; a saved project stands alone.
        assert again.doc.path == (str(data) if modified else None)
        again.doc.undo_stack.setClean()


def test_a_failed_autosave_says_so(qtbot, own_window, monkeypatch):
    messages = []
    own_window.controller.message.connect(messages.append)
    own_window.model.setData(own_window.model.index(0, 0), "rainy")

    def full(*args, **kwargs):
        raise ArborError("cannot save recovery.arbor: no space left on device")

    import engine.project

    monkeypatch.setattr(engine.project, "save_project", full)
    assert not own_window.recovery.autosave()
    assert "Autosave failed" in messages[-1] and "no space left" in messages[-1]


def test_a_read_only_file_is_replaced_only_when_the_user_agrees(qtbot, window, tmp_path):
    path = tmp_path / "locked.csv"
    path.write_text("old\n")
    path.chmod(0o444)
    window.model.setData(window.model.index(0, 0), "rainy")
    window.dialogs.replies["save_path"].append(str(path))
    window.dialogs.replies["ask_yes_no"].append(False)
    assert not window.files.save_as() and path.read_text() == "old\n" and window.doc.modified
    window.dialogs.replies["save_path"].append(str(path))
    window.dialogs.replies["ask_yes_no"].append(True)
    assert window.files.save_as() and path.read_text().startswith("outlook")
    assert not window.doc.modified


def test_an_infinite_number_is_refused_in_a_numeric_cell(qtbot, window):
    window.files.open_sample("weather-numeric", confirmed=True)
    column = window.doc.columns.index("temperature")
    for text in ("1e400", "-inf", "Infinity"):
        assert not window.model.setData(window.model.index(0, column), text)
    assert window.doc.value(0, column) == 85 and not window.doc.modified


def test_autosave_writes_on_its_own_thread_and_a_save_meanwhile_wins(
    qtbot, own_window, monkeypatch
):
    """The timer's autosave gathers the work on the GUI thread and writes it on another; a
    save while it writes waits for it and leaves no recovery file behind."""
    import threading

    import engine.project

    own_window.model.setData(own_window.model.index(0, 0), "rainy")
    real_save = engine.project.save_project
    writing, release, threads = threading.Event(), threading.Event(), []

    def slow_save(*args, **kwargs):
        threads.append(threading.current_thread())
        writing.set()
        release.wait(10)
        real_save(*args, **kwargs)

    monkeypatch.setattr(engine.project, "save_project", slow_save)
    assert own_window.recovery.autosave(background=True)
    assert writing.wait(10) and own_window.recovery.writing()
    assert threads[0] is not threading.main_thread()
    assert not own_window.recovery.autosave(background=True)  # one write at a time
    threading.Timer(0.2, release.set).start()
    own_window.recovery.clear()  # as a save does: waits for the write, then removes its file
    own_window.recovery.wait(10)
    assert not own_window.recovery.pending()


def test_a_failed_background_autosave_says_so(qtbot, own_window, monkeypatch):
    import engine.project

    def full_disk(*args, **kwargs):
        raise ArborError("no space left on the device")

    monkeypatch.setattr(engine.project, "save_project", full_disk)
    own_window.model.setData(own_window.model.index(0, 0), "rainy")
    assert own_window.recovery.autosave(background=True)
    own_window.recovery.wait(10)
    qtbot.waitUntil(lambda: "Autosave failed" in own_window.status_label.text())
    assert "no space left" in own_window.status_label.text()
