"""Autosave of unsaved work to a recovery file, and the offer to restore it after a crash.

Every minute with unsaved changes the table, settings, tree and node positions
are written (atomically) as a project to ``recovery.arbor`` in the
application's data folder; a save, a deliberate discard or a clean exit
removes it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, QTimer

from engine.errors import ArborError

INTERVAL_MS = 60_000


def recovery_path() -> Path:
    folder = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation))
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "recovery.arbor"


class Recovery(QObject):
    """Writes the session to the recovery file while there are unsaved changes.

    ``files`` is the window's :class:`gui.files.FileActions` (its document and project writer).
    """

    def __init__(self, files, path: Path | None = None, interval_ms: int = INTERVAL_MS):
        super().__init__(files)
        self.files = files
        self.path = path or recovery_path()
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.autosave)
        self.timer.start()

    def autosave(self) -> bool:
        if not self.files.doc.modified:
            return False
        try:
            self.files.write_project(self.path)
        except Exception as err:  # noqa: BLE001 - autosave must never interrupt the user, but says so
            reason = str(err) if isinstance(err, ArborError) else f"{type(err).__name__}: {err}"
            self.files.controller.say(f"Autosave failed, your changes are not in the recovery file: {reason}")
            return False
        return True

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)

    def pending(self) -> bool:
        return self.path.exists()
