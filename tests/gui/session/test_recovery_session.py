"""After a crash, Restore gives back the session, not only the table: the project's name and
path, the runs with their trees, and a Save that writes the project (issue 30, item 6)."""

from engine.project import load_project
from gui.session.recovery import offer_orphans, orphans, sidecar_of
from tests.gui.conftest import FakeDialogs, train_and_wait


def _crashed(qtbot, window, tmp_path):
    """A project with two runs and an edit after its save, autosaved, then "killed"."""
    window.config.algorithm.set_value("id3")
    train_and_wait(qtbot, window)
    window.config.algorithm.set_value("cart")
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: len(window.controller.runs) == 2)
    project = tmp_path / "work" / "play.arbor"
    project.parent.mkdir()
    window.dialogs.replies["save_path"].append(str(project))
    assert window.files.save_project_dialog()
    window.model.setData(window.model.index(2, 0), "rainy")
    assert window.recovery.autosave()  # what the timer does every minute
    window.recovery._file_lock.release()  # kill -9: the system lets go of the window's lock
    return project


def test_restore_brings_back_the_project_its_runs_and_trees_and_save_writes_it(
    qtbot, window, settings, tmp_path
):
    from gui.main_window import MainWindow

    project = _crashed(qtbot, window, tmp_path)
    folder = window.recovery.path.parent
    start = MainWindow(settings)  # the next start finds the file
    start.dialogs = FakeDialogs()
    qtbot.addWidget(start)
    start.recovery.path = folder / "recovery-2-new.arbor"
    asked = []
    assert offer_orphans(
        start, ask=lambda orphan, can_restore: asked.append(orphan.describe()) or "restore"
    )
    assert asked[0].startswith(
        "Project: play.arbor\nTable: kept in the project (14 rows × 5 columns, target "
        "play)\nLast autosaved: 20"
    )
    assert start.windowTitle() == "play.arbor * — Arbor"
    assert start.doc.value(2, 0) == "rainy" and start.doc.project_path == str(project)
    before = list(window.controller.runs)
    runs = list(start.controller.runs)
    assert [r.settings.algorithm for r in runs] == ["id3", "cart"]
    assert [r.tree.n_nodes for r in runs] == [r.tree.n_nodes for r in before]
    assert start.controller.tree.n_nodes == window.controller.tree.n_nodes
    status = start.status_label.text()
    assert "project play.arbor" in status and status.endswith(f"Save writes it to {project}")
    assert "recovery" not in status
    start.act["save"].trigger()  # Ctrl+S: the project, where it was, without a dialog
    assert start.dialogs.errors == [] and start.status_label.text() == f"Saved project {project}"
    assert load_project(project).table.frame.iloc[2, 0] == "rainy"
    assert start.windowTitle() == "play.arbor — Arbor" and not start.recovery.pending()


def test_a_hostile_sidecar_only_loses_its_description(qtbot, window, tmp_path):
    _crashed(qtbot, window, tmp_path)
    sidecar = sidecar_of(window.recovery.path)
    sidecar.write_text(
        '{"name": ["x"], "project": "' + "p" * 5000 + '", "table": "a\\nb", "saved": "soon"}'
    )
    (orphan,) = orphans(window.recovery.path.parent)
    assert orphan.name == "unsaved work" and len(orphan.project) == 200 and orphan.table == "a\\nb"
    assert "\n" not in orphan.table and orphan.describe().count("\n") == 2
    orphan.keep()
    sidecar.write_bytes(b"\x00" * 100_000)  # too big for a description: not read
    (orphan,) = orphans(window.recovery.path.parent)
    assert (orphan.name, orphan.project, orphan.table) == ("unsaved work", "", "")
    orphan.discard()
