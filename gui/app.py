"""Starting the window: the application object, crash-proofing, and the first table."""

from __future__ import annotations

import logging
import sys
import traceback
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths, QTimer
from PySide6.QtWidgets import QApplication


def log_path() -> Path:
    folder = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation))
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "arbor.log"


def install_exception_hook(window) -> None:
    """An unexpected exception shows a dialog (and is logged) instead of closing the app."""
    logging.basicConfig(filename=str(log_path()), level=logging.INFO)

    def hook(kind, value, tb):
        details = "".join(traceback.format_exception(kind, value, tb))
        logging.error("unexpected error\n%s", details)
        window.dialogs.error(
            f"Something went wrong: {value}. Your table is unchanged. Details are in {log_path()}.",
            details,
        )

    sys.excepthook = hook


def run(argv: list[str]) -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Arbor")
    app.setOrganizationName("Arbor")
    from gui.main_window import MainWindow

    window = MainWindow(QSettings())
    install_exception_hook(window)
    # Work kept by windows that did not close properly (this window's own file is new;
    # files of windows still open are locked and left alone).
    from gui.session.recovery import offer_orphans

    if offer_orphans(window):
        window.show_first()
        return _exec(app)
    open_first(window, argv)
    window.show_first()
    return _exec(app)


def open_first(window, argv: list[str]) -> bool:
    """Open the command line's file (or the weather sample); True if a training started.

    The sample (14 rows) trains at once, so the window opens on a tree. A file of the
    person's own only loads: training 200,000 rows is minutes of CPU nobody asked for,
    unless Model > Train a file opened at start is on (issue 30)."""
    from gui.main_window import trains_at_start

    opened = bool(argv) and window.files.open_path(argv[0], confirmed=True)
    if not opened:
        window.files.open_sample("weather", confirmed=True)
    if (
        window.controller.tree is not None
    ):  # a model or project opened with its tree is shown as it is
        return False
    if opened and not trains_at_start(window.settings):
        if not window.controller.busy:  # a big file still opening says so itself
            window.controller.say(
                f"{window.status_label.text()} — not trained yet: press Train (F5)"
            )
        return False
    return window.train() is not None


def _exec(app) -> int:
    from engine.compiling import lifecycle as kernels

    # The one-time compile (or the load of its result) starts as the window opens, so that
    # whoever opens a file and chooses options meanwhile never waits for it.
    QTimer.singleShot(0, kernels.prepare)
    try:
        return app.exec()
    finally:
        kernels.stop()  # a compilation under way ends with the window (its partial work is kept)
