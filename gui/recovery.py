"""Autosave of unsaved work to a recovery file, and the offer to restore it after a crash.

Every minute with unsaved changes the table, settings, tree and node positions
are written (atomically) as a project to ``recovery.arbor`` in the
application's data folder; a save, a deliberate discard or a clean exit
removes it. What is saved is gathered on the GUI thread (a copy of the table, the
tree, the layout); the writing, which takes seconds for a big edited table, runs on a
thread of its own so the window does not stop every minute.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, QTimer, Signal

from engine.errors import ArborError

INTERVAL_MS = 60_000


def recovery_path() -> Path:
    folder = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation))
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "recovery.arbor"


class Recovery(QObject):
    """Writes the session to the recovery file while there are unsaved changes.

    ``files`` is the window's :class:`gui.files.FileActions` (its document and project writer).

    Signals
    -------
    failed(str) : a background autosave failed, and why (delivered on the GUI thread).
    """

    failed = Signal(str)

    def __init__(self, files, path: Path | None = None, interval_ms: int = INTERVAL_MS):
        super().__init__(files)
        self.files = files
        self.path = path or recovery_path()
        # Held while the file is written or removed: a save that clears the recovery file
        # waits for a write under way rather than having it put a stale file back.
        self._lock = threading.Lock()
        self._generation = 0  # bumped by clear(): a write gathered before it is dropped
        self._writer: threading.Thread | None = None
        self.failed.connect(self._say_failed)
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(lambda: self.autosave(background=True))
        self.timer.start()

    def autosave(self, background: bool = False) -> bool:
        """Write the recovery file if anything is unsaved (True: written, or started with
        ``background``). A background write still under way skips this turn."""
        if not self.files.doc.modified or self.writing():
            return False
        try:
            write = self.files.project_writer(self.path)
        except Exception as err:  # noqa: BLE001 - autosave must never interrupt the user, but says so
            self._say_failed(_reason(err))
            return False
        generation = self._generation
        if background:
            self._writer = threading.Thread(target=self._write, args=(write, generation, True),
                                            name="arbor-autosave", daemon=True)
            self._writer.start()
            return True
        return self._write(write, generation, False)

    def _write(self, write, generation: int, background: bool) -> bool:
        with self._lock:
            if generation != self._generation:
                return False  # saved or discarded since this was gathered
            try:
                write()
            except Exception as err:  # noqa: BLE001 - said in the status bar
                if background:
                    self.failed.emit(_reason(err))
                else:
                    self._say_failed(_reason(err))
                return False
        return True

    def writing(self) -> bool:
        return self._writer is not None and self._writer.is_alive()

    def wait(self, timeout: float | None = None) -> None:
        """Until a background write has finished (closing the window, tests)."""
        if self._writer is not None:
            self._writer.join(timeout)

    def _say_failed(self, reason: str) -> None:
        self.files.controller.say(f"Autosave failed, your changes are not in the recovery file: {reason}")

    def clear(self) -> None:
        with self._lock:
            self._generation += 1
            self.path.unlink(missing_ok=True)

    def pending(self) -> bool:
        return self.path.exists()


def _reason(err: Exception) -> str:
    return str(err) if isinstance(err, ArborError) else f"{type(err).__name__}: {err}"
