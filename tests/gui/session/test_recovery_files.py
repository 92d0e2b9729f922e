"""One recovery file per window: windows never touch each other's, and the next start offers
every file left by a window that did not close properly, by name and time (issue 31, item 2)."""

import subprocess
import sys
import time

import pytest

from gui.session.recovery import FileLock, lock_of, offer_orphans, orphans, sidecar_of


@pytest.fixture
def two(qtbot, window, settings, tmp_path):
    """Two windows with unsaved edits, their recovery files in one folder."""
    from gui.main_window import MainWindow
    from tests.gui.conftest import FakeDialogs

    folder = tmp_path / "data"
    folder.mkdir()
    other = MainWindow(settings)
    other.dialogs = FakeDialogs()
    qtbot.addWidget(other)
    other.files.open_sample("weather", confirmed=True)
    window.recovery.path = folder / "recovery-1-a.arbor"
    other.recovery.path = folder / "recovery-2-b.arbor"
    window.model.setData(window.model.index(0, 0), "rainy")
    other.model.setData(other.model.index(1, 0), "overcast")
    yield window, other, folder
    other.controller.runner.cancel()
    other.controller.runner.wait(10000)
    other.doc.undo_stack.setClean()


def test_two_windows_keep_their_own_files(two):
    a, b, folder = two
    assert a.recovery.autosave() and b.recovery.autosave()
    assert a.recovery.path != b.recovery.path
    first = a.recovery.path.read_bytes()
    assert b.recovery.autosave()  # B writing again leaves A's file as it was
    assert a.recovery.path.read_bytes() == first
    b.recovery.clear()  # as B's Save does
    assert a.recovery.pending() and not b.recovery.pending()
    assert sidecar_of(a.recovery.path).exists() and lock_of(a.recovery.path).exists()
    assert not sidecar_of(b.recovery.path).exists() and not lock_of(b.recovery.path).exists()
    assert orphans(folder) == []  # A is alive: its file is not offered, nor touched
    assert a.recovery.pending() and a.recovery.path.read_bytes() == first


def test_a_live_window_in_another_process_is_not_offered(two):
    if sys.platform == "win32":
        pytest.skip("the other process locks with fcntl")
    a, _, folder = two
    assert a.recovery.autosave()
    a.recovery._file_lock.release()  # A "crashed": its file is an orphan...
    holder = subprocess.Popen(  # ...but another process, alive, holds it now
        [
            sys.executable,
            "-c",
            "import fcntl, sys; f = open(sys.argv[1], 'a+b'); "
            "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
            str(lock_of(a.recovery.path)),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert orphans(folder) == []
        assert a.recovery.pending()
    finally:
        holder.stdin.close()
        holder.wait(10)
    assert [o.path for o in orphans(folder)] == [a.recovery.path]  # its holder has ended


def test_an_orphan_is_found_with_its_name_and_time(two):
    a, b, folder = two
    a.files.doc.sample_name = "weather <b>x</b>"
    assert a.recovery.autosave() and b.recovery.autosave()
    a.recovery._file_lock.release()  # A's process ended without cleaning up (the system lets go)
    found = orphans(folder)
    assert [o.path for o in found] == [a.recovery.path]  # B is alive
    orphan = found[0]
    assert orphan.name == "weather <b>x</b>" and abs(orphan.saved - time.time()) < 60
    assert orphan.name in orphan.describe() and orphan.when() in orphan.describe()
    assert orphans(folder) == []  # whoever found it holds it while asking
    orphan.keep()
    assert [o.path for o in orphans(folder)] == [a.recovery.path]


def test_the_start_restores_one_and_discards_or_keeps_the_others(two, qtbot, settings, tmp_path):
    from gui.main_window import MainWindow
    from tests.gui.conftest import FakeDialogs

    a, b, folder = two
    a.files.doc.sample_name = "first"
    b.files.doc.sample_name = "second"
    assert a.recovery.autosave() and b.recovery.autosave()
    legacy = folder / "recovery.arbor"  # the one shared file of earlier versions
    legacy.write_bytes(a.recovery.path.read_bytes())
    for window in (a, b):  # both "crash"
        window.recovery._file_lock.release()
    start = MainWindow(settings)
    start.dialogs = FakeDialogs()
    qtbot.addWidget(start)
    start.recovery.path = folder / "recovery-3-c.arbor"
    asked = []

    def ask(orphan, can_restore):
        asked.append((orphan.name, can_restore))
        return {"second": "restore", "first": "discard"}.get(orphan.name, "later")

    assert offer_orphans(start, ask=ask)
    names = [name for name, _ in asked]
    assert sorted(names) == ["first", "second", "unsaved work"]  # every orphan, by its name
    restored_at = names.index("second")
    assert [can for _, can in asked] == [k <= restored_at for k in range(3)]  # one restore at most
    assert start.doc.value(1, 0) == "overcast" and start.doc.modified
    # The restored file is now the new window's own (kept until its work is saved)...
    assert start.recovery.pending() and not b.recovery.path.exists()
    assert not sidecar_of(b.recovery.path).exists()
    # ...the discarded one is gone, the one kept for later stays, unlocked, for the next start.
    assert not a.recovery.path.exists() and not sidecar_of(a.recovery.path).exists()
    assert [o.path for o in orphans(folder)] == [legacy]
    start.recovery.clear()
    assert not start.recovery.pending() and legacy.exists()
    start.doc.undo_stack.setClean()


def test_a_lock_released_by_removing_its_file_is_not_held(tmp_path):
    """Locking a lock file another holder removed meanwhile would lock nothing: the lock is
    taken on the file now at that path."""
    path = tmp_path / "recovery-x.lock"
    first = FileLock(path)
    assert first.acquire(wait=False)
    assert not FileLock(path).acquire(wait=False)
    first.release(remove=True)
    assert not path.exists()
    second = FileLock(path)
    assert second.acquire(wait=False) and path.exists()
    second.release(remove=True)


def test_the_question_names_the_work_and_its_time_as_plain_text(two, monkeypatch):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    from gui.session.recovery import ask_recovery

    a, _, folder = two
    a.files.doc.sample_name = "<b>sales</b>.csv"
    assert a.recovery.autosave()
    a.recovery._file_lock.release()
    (orphan,) = orphans(folder)
    shown = []

    def exec_(box):
        shown.append((box.text(), box.textFormat(), [b.text() for b in box.buttons()]))
        return 0

    monkeypatch.setattr(QMessageBox, "exec", exec_)
    assert ask_recovery(a, orphan, True) == "later"  # closed without a choice: kept
    text, form, buttons = shown[0]
    assert "<b>sales</b>.csv" in text and orphan.when() in text and form == Qt.TextFormat.PlainText
    assert sorted(buttons) == ["&Discard", "&Later", "&Restore"]
    ask_recovery(a, orphan, False)
    assert sorted(shown[1][2]) == ["&Discard", "&Later"]  # one restore per window
    orphan.keep()
