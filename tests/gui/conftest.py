"""GUI test fixtures: offscreen Qt, isolated settings, and dialogs that never block."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QCoreApplication, QEvent, QSettings  # noqa: E402


class FakeDialogs:
    """Records every message and answers questions from queued replies."""

    def __init__(self):
        self.errors: list[tuple[str, str]] = []
        self.infos: list[str] = []
        self.replies: dict[str, list] = {
            "ask_unsaved": [],
            "ask_yes_no": [],
            "open_path": [],
            "save_path": [],
            "ask_text": [],
            "ask_replace_or_queue": [],
            "ask_choice": [],
        }
        self.asked: list[
            tuple[str, tuple]
        ] = []  # questions that offer choices, with what they said

    def _reply(self, name, default=None):
        queue = self.replies[name]
        return queue.pop(0) if queue else default

    def error(self, message, details=""):
        self.errors.append((message, details))

    def info(self, message):
        self.infos.append(message)

    def ask_unsaved(self, what):
        return self._reply("ask_unsaved", "cancel")

    def ask_replace_or_queue(self, running, asked):
        self.asked.append(("ask_replace_or_queue", (running, asked)))
        return self._reply("ask_replace_or_queue")

    def ask_yes_no(self, question):
        return self._reply("ask_yes_no", False)

    def open_path(self, *args, **kwargs):
        return self._reply("open_path")

    def save_path(self, *args, **kwargs):
        return self._reply("save_path")

    def ask_text(self, *args, **kwargs):
        return self._reply("ask_text")

    def ask_choice(self, title, label, items, current=0):
        self.asked.append(("ask_choice", (title, label, tuple(items))))
        return self._reply("ask_choice", items[current])


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "arbor.ini"), QSettings.Format.IniFormat)


def settings_dir(settings):
    from pathlib import Path

    return Path(settings.fileName()).parent


def new_window(settings):
    """A window with ``settings``, docked panels and recording dialogs (no table yet)."""
    from gui.main_window import MainWindow

    # Docked panels, as on a big screen: the tests drive the docks. The side bar a small
    # window collapses them to has its own tests (tests/gui/test_workspaces.py).
    settings.setValue("panels/collapse", "off")
    win = MainWindow(settings)
    win.dialogs = FakeDialogs()
    win.recovery.path = settings_dir(settings) / "recovery.arbor"
    return win


@pytest.fixture
def own_window(qtbot, settings):
    """A new window of the test's own, with the weather sample open."""
    win = new_window(settings)
    qtbot.addWidget(win, before_close_func=quiet)
    win.files.open_sample("weather", confirmed=True)
    yield win
    free_closed_windows()


@pytest.fixture
def window(own_window):
    """A new window with the weather sample open (a module whose tests can share one window
    makes this ``shared_window``, and its tests that cannot take ``own_window``)."""
    return own_window


@pytest.fixture(scope="module")
def module_window(qapp, tmp_path_factory):
    """One window, as ``window`` makes it, for all the tests of a module: for tests that set up
    the same costly state (trainings) and then only read it, or put back what they change.
    (``module_bot`` waits for it as ``qtbot`` does.)"""
    path = tmp_path_factory.mktemp("window") / "arbor.ini"
    win = new_window(QSettings(str(path), QSettings.Format.IniFormat))
    win.files.open_sample("weather", confirmed=True)
    # For reset_window to put back: the Algorithm panel's boxes, and the checks that are only
    # read when used (the node labels', the image export's). The other checkable commands
    # (workspaces, theme, presenting, ghosts...) act when toggled: a test that toggles one
    # takes its own window.
    win.config_defaults = form_state(win.config)
    win.checks_defaults = {
        name: action.isChecked()
        for name, action in win.act.items()
        if name.startswith("label_") or name in ("transparent", "export_dark")
    }
    yield win
    quiet(win)
    win.close()
    win.deleteLater()
    free_closed_windows()


@pytest.fixture
def shared_window(module_window):
    """``module_window`` put back, before each test, to how ``window`` makes a window: for a
    module's tests that each set up what they use and need no window of their own (a fresh
    window costs a tenth of a second of CPU to build and delete). ``reset_window`` says what it
    puts back; a test that changes anything else (docks, window size, settings, the table view's
    sort or filter) puts it back itself or takes ``window``."""
    reset_window(module_window)
    yield module_window
    quiet(module_window)


def reset_window(win) -> None:
    """Jobs ended, recording dialogs with nothing queued or recorded, no runs, the weather
    sample open (no tree, no test rows, an empty undo stack, the table view's sort and filter
    forgotten), no node selected, nothing pinned; every box of the Algorithm panel, and the
    node labels' and image export's checks, as a new window has them."""
    from engine.runs import RunLog

    quiet(win)
    win.dialogs = FakeDialogs()
    win.controller.load_runs(RunLog())
    win.files.open_sample("weather", confirmed=True)
    put_form_back(win.config, win.config_defaults)
    for name, checked in win.checks_defaults.items():
        win.act[name].setChecked(checked)
    win.set_node_labels()  # the View menu's label checks, on the canvas
    win.inspector.clear_pins()
    QCoreApplication.processEvents()


def form_state(config) -> list:
    """What each of the Algorithm panel's boxes shows (not only the options it makes: a depth
    box hidden behind "No depth limit" keeps a value a test may set again)."""
    from PySide6.QtWidgets import QAbstractButton, QComboBox, QLineEdit

    def read(widget):
        if isinstance(widget, QComboBox):
            return widget.currentIndex()
        if isinstance(widget, QAbstractButton):
            return widget.isChecked()
        if isinstance(widget, QLineEdit):
            return widget.text()
        return widget.value()  # spin boxes, the costs field

    return [(widget, read(widget)) for widget in config._widgets()]


def put_form_back(config, state) -> None:
    """Set the panel's boxes as ``form_state`` read them, in the panel's order (the algorithm
    first, whose defaults the boxes after it then overwrite; a depth after the box that unticks
    "No depth limit" when it changes), reacting once."""
    from PySide6.QtWidgets import QAbstractButton, QComboBox, QLineEdit

    with config._changes_at_once():
        for widget, value in state:
            if isinstance(widget, QComboBox):
                widget.setCurrentIndex(value)
            elif isinstance(widget, QAbstractButton):
                widget.setChecked(value)
            elif isinstance(widget, QLineEdit):
                widget.setText(value)
            else:
                widget.setValue(value)
    assert form_state(config) == state


@pytest.fixture(scope="module")
def module_bot(qapp, request):
    """A ``qtbot`` for module fixtures, for its waits (it closes no widget it is given)."""
    from pytestqt.qtbot import QtBot

    return QtBot(request)


def quiet(win) -> None:
    """Before pytest-qt closes the window: its jobs cancelled and ended, their news delivered
    while the window is whole, and nothing unsaved, so the close is a real one. (A Tree
    stability still running once delivered its progress to the next test's deleted bar.)"""
    win.controller.runner.cancel()
    win.stability_marks.cancel()
    win.controller.runner.wait(10000)  # the thread pool's every job, stability's too
    QCoreApplication.processEvents()
    win.doc.undo_stack.setClean()


def free_closed_windows() -> None:
    """Delete what pytest-qt's close left to deleteLater now, not at a later test's turn of
    the event loop: the windows' widgets then stop piling up, and every later window's
    style, palette and collector passes stop walking them (less CPU for the suite)."""
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def train_and_wait(qtbot, win, timeout=60000):
    job = win.train()
    assert job is not None, win.dialogs.errors
    with qtbot.waitSignal(
        win.controller.runner.busy_changed, timeout=timeout, check_params_cb=lambda busy: not busy
    ):
        pass
    qtbot.waitUntil(lambda: job.done, timeout=timeout)
    return job


def train_sample(qtbot, win, sample: str, algorithm: str):
    """``win`` with the bundled ``sample`` open, trained with ``algorithm`` and no
    cross-validation; its controller."""
    win.files.open_sample(sample, confirmed=True)
    win.config.algorithm.set_value(algorithm)
    win.config.cv_folds.setValue(0)
    train_and_wait(qtbot, win)
    qtbot.waitUntil(lambda: win.controller.tree is not None)
    return win.controller
