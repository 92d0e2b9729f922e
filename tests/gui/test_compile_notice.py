"""The window's status bar says when the fast split search compiles, and when it is ready."""

import threading

from engine.compiling import lifecycle as kernels


def _tell_from_another_thread(notice):
    # The engine tells its listeners from the thread that watches the compilation.
    thread = threading.Thread(target=kernels._tell, args=(notice,))
    thread.start()
    thread.join()


def test_the_status_bar_shows_the_compilation_and_then_that_it_is_ready(qtbot, window):
    label = window.compile_notice
    assert label.isHidden()
    _tell_from_another_thread(
        kernels.Notice(
            "compiling",
            "compiling the fast split search for this machine, once (about a minute); "
            "until then bigger fits wait for it",
            expected=60.0,
        )
    )
    qtbot.waitUntil(lambda: not label.isHidden())
    assert label.text() == "Compiling the fast split search…"
    assert "python main.py compile" in label.toolTip()
    assert "until then bigger fits wait for it" in label.toolTip()  # the whole sentence
    _tell_from_another_thread(
        kernels.Notice(
            "compiling",
            "compiling the fast split search for this machine, once: 59 of about 103 "
            "kernels, 45 s left; until then bigger fits wait for it",
            expected=60.0,
            done=59,
            total=103,
        )
    )
    qtbot.waitUntil(lambda: "59 of" in label.text())
    assert label.text() == "Compiling the fast split search: 59 of about 103 kernels, 45 s left…"
    assert label.parent() is not None and window.statusBar().isAncestorOf(label)
    _tell_from_another_thread(
        kernels.Notice(
            "ready",
            "the fast split search is compiled (52 s); fits use it from now on",
            seconds=52.0,
        )
    )
    qtbot.waitUntil(lambda: label.text() == "The fast split search is compiled (52 s)")
    label._hide_later.timeout.emit()  # instead of waiting ten seconds
    assert label.isHidden()


def test_a_deleted_notice_stops_listening(qtbot, window):
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # earlier tests' windows
    listeners = len(kernels._listeners)
    window.compile_notice.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert len(kernels._listeners) == listeners - 1
    _tell_from_another_thread(kernels.Notice("ready", "done", seconds=1.0))  # nobody to tell: fine
