"""Autosave of unsaved work to a recovery file, and the offer to restore it after a crash.

Every minute with unsaved changes the table, settings, tree and node positions, the runs
with the trees they keep, and where the work came from (its project's path, which Save
writes to after a restore, its data file or sample) are written (atomically) as a project
to a recovery file of the window's own in the
application's data folder, ``recovery-<session>.arbor``; a save, a deliberate discard or
a clean exit removes it. What is saved is gathered on the GUI thread (a copy of the
table, the tree, the layout); the writing, which takes seconds for a big edited table,
runs on a thread of its own so the window does not stop every minute.

Several windows (processes) run at once, so each has its own file, and beside it

- ``recovery-<session>.json``: what the work is called (its project's or table's name),
  its project and table, and when it was autosaved, for the offer to restore it (read
  back as untrusted: a field of the wrong type or too long is dropped or cut);
- ``recovery-<session>.lock``: locked by the window (``flock``, or ``msvcrt`` on Windows)
  from its first autosave while its file exists. The operating system releases the lock
  when the window's process ends, however it ends.

A recovery file whose lock nobody holds is an orphan, left by a window that did not
close properly: the next start offers each orphan by name and time (restore, discard,
or keep it for later). A file whose lock is held belongs to a live window and is never
offered or touched. Whoever looks at an orphan holds its lock meanwhile, so two windows
starting together do not both restore it.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, Qt, QTimer, Signal

from engine.atomic import write_text_atomic
from engine.errors import ArborError, printable
from engine.locks import lock
from engine.reading import read_json

INTERVAL_MS = 60_000
#: Recovery files in the data folder (``recovery.arbor``, the one shared file of earlier
#: versions, among them: it has no lock, so it is offered as an orphan too).
PATTERN = "recovery*.arbor"
#: A sidecar is a few hundred bytes; a bigger one is not Arbor's and is not read.
SIDECAR_LIMIT = 64 * 1024


def recovery_folder() -> Path:
    folder = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def recovery_path(session: str | None = None) -> Path:
    """A new window's own recovery file (``session`` names it: by default the process id and
    a random part, so that windows of one process differ too)."""
    session = session or f"{os.getpid()}-{secrets.token_hex(4)}"
    return recovery_folder() / f"recovery-{session}.arbor"


def sidecar_of(path: Path) -> Path:
    return path.with_suffix(".json")


def lock_of(path: Path) -> Path:
    return path.with_suffix(".lock")


class FileLock:
    """An exclusive lock on a file, held until :meth:`release` (or the process ends)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._handle = None

    @property
    def held(self) -> bool:
        return self._handle is not None

    def acquire(self, wait: bool) -> bool:
        """True once held; False if another holder has it and ``wait`` is False (or the file
        cannot be opened)."""
        if self._handle is not None:
            return True
        while True:
            try:
                handle = open(self.path, "a+b")  # noqa: SIM115 - held until release()
            except OSError:
                return False
            if not lock(handle, wait):
                handle.close()
                return False
            # A holder that releases removes the file: a lock won on a removed file locks
            # nothing anyone else sees, so lock the file now at that path instead.
            try:
                same = os.path.samestat(os.fstat(handle.fileno()), os.stat(self.path))
            except OSError:
                same = False
            if same:
                self._handle = handle
                return True
            handle.close()

    def release(self, remove: bool = False) -> None:
        """Give the lock up; ``remove`` also removes the lock file (while still held, where
        the system allows it, so nobody locks a file about to go)."""
        handle, self._handle = self._handle, None
        if handle is None:
            return
        if remove and os.name != "nt":
            _unlink(self.path)
        handle.close()  # closing releases the lock
        if remove and os.name == "nt":  # Windows removes no open file
            _unlink(self.path)


def _unlink(path: Path) -> None:
    # Not ours to remove after all, or the folder went: nothing is lost either way.
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)


#: The longest name a sidecar may give (a longer one is cut: the file may be hostile).
MAX_NAME_CHARS = 200


@dataclass
class Orphan:
    """A recovery file no live window holds, locked by whoever found it until kept or discarded.

    ``project`` and ``table`` are the names of the work's project (if any) and table, as its
    window had them; empty when its sidecar is missing or from an older version."""

    path: Path
    name: str
    saved: float  # when it was autosaved (seconds since the epoch)
    lock: FileLock
    project: str = ""
    table: str = ""

    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.saved))

    def describe(self) -> str:
        """Plain text naming the project, the table and the time of the last autosave."""
        lines = [f"Project: {self.project}"] if self.project else []
        lines.append(f"Table: {self.table or self.name}")
        lines.append(f"Last autosaved: {self.when()}")
        return "\n".join(lines)

    def keep(self) -> None:
        """Leave it for the next start."""
        self.lock.release()

    def discard(self) -> None:
        _unlink(self.path)
        _unlink(sidecar_of(self.path))
        self.lock.release(remove=True)


def orphans(folder: Path, exclude: tuple[Path, ...] = ()) -> list[Orphan]:
    """The recovery files in ``folder`` whose window is gone, newest first, each locked by
    the caller until it keeps or discards them (files of live windows are left alone)."""
    found = []
    excluded = {Path(p) for p in exclude}
    for path in sorted(Path(folder).glob(PATTERN)):
        if path in excluded:
            continue
        lock = FileLock(lock_of(path))
        if not lock.acquire(wait=False):
            continue  # a live window's
        if not path.is_file():  # saved and removed meanwhile
            lock.release(remove=True)
            continue
        name, saved, project, table = _description(path)
        found.append(Orphan(path, name, saved, lock, project, table))
    _remove_stale_locks(Path(folder), excluded)
    return sorted(found, key=lambda o: o.saved, reverse=True)


def _description(path: Path) -> tuple[str, float, str, str]:
    """The name, autosave time, project and table the sidecar gives, else what the file
    itself says. The sidecar is read as untrusted: bounded in size, each field checked."""
    try:
        saved = path.stat().st_mtime
    except OSError:
        saved = time.time()
    try:
        meta = read_json(sidecar_of(path), SIDECAR_LIMIT, "recovery description")
    except (ArborError, OSError, ValueError):
        meta = {}
    if not isinstance(meta, dict):
        meta = {}
    name = _text(meta.get("name")) or "unsaved work"
    when = meta.get("saved")
    if isinstance(when, int | float) and not isinstance(when, bool) and 0 < when < 1e11:
        saved = float(when)
    return name, saved, _text(meta.get("project")), _text(meta.get("table"))


def _text(value) -> str:
    """A sidecar's name as one printable line of bounded length ('' if not a string)."""
    if not isinstance(value, str):
        return ""
    text = printable(value)
    return text if len(text) <= MAX_NAME_CHARS else text[: MAX_NAME_CHARS - 1] + "…"


def _remove_stale_locks(folder: Path, excluded: set[Path]) -> None:
    """Lock files left by a window that ended with no recovery file (saved, then killed)."""
    for lock_path in folder.glob("recovery*.lock"):
        path = lock_path.with_suffix(".arbor")
        if path in excluded or path.exists():
            continue
        lock = FileLock(lock_path)
        if lock.acquire(wait=False):
            if path.exists():  # written meanwhile: a live window's after all
                lock.release()
            else:
                _unlink(sidecar_of(path))
                lock.release(remove=True)


class Recovery(QObject):
    """Writes the session to the window's own recovery file while there are unsaved changes.

    ``files`` is the window's :class:`gui.session.files.FileActions` (its document and project writer).

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
        self._file_lock: FileLock | None = None  # taken at the first write, not before
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
            write = self.files.project_writer(self.path, session=True)
        except Exception as err:  # noqa: BLE001 - autosave must never interrupt the user, but says so
            self._say_failed(_reason(err))
            return False
        name = self.description()
        generation = self._generation
        if background:
            self._writer = threading.Thread(
                target=self._write,
                args=(write, name, generation, True),
                name="arbor-autosave",
                daemon=True,
            )
            self._writer.start()
            return True
        return self._write(write, name, generation, False)

    def work_name(self) -> str:
        """What the work is called in the offer to restore it: its project's or table's name."""
        doc = self.files.doc
        source = doc.project_path or doc.path
        return Path(source).name if source else doc.sample_name or "an untitled table"

    def description(self) -> dict:
        """What the sidecar says of the work: its name, project and table."""
        doc = self.files.doc
        table = (
            Path(doc.path).name
            if doc.path
            else f"the {doc.sample_name} sample"
            if doc.sample_name
            else "kept in the project"
            if doc.project_path
            else "an untitled table"
        )
        with contextlib.suppress(AttributeError, TypeError):
            table += f" ({doc.n_rows:,} rows × {len(doc.columns)} columns, target {doc.target})"
        return {
            "name": self.work_name(),
            "project": Path(doc.project_path).name if doc.project_path else "",
            "table": table,
        }

    def _write(self, write, name: dict, generation: int, background: bool) -> bool:
        with self._lock:
            if generation != self._generation:
                return False  # saved or discarded since this was gathered
            try:
                self._hold()
                write()
                self._write_sidecar(name)
            except Exception as err:  # noqa: BLE001 - said in the status bar
                if background:
                    self.failed.emit(_reason(err))
                else:
                    self._say_failed(_reason(err))
                return False
        return True

    def _hold(self) -> None:
        """Lock this window's lock file before its recovery file exists (another start
        then never takes the file for an orphan)."""
        wanted = lock_of(self.path)
        if self._file_lock is not None and self._file_lock.path != wanted:
            self._file_lock.release(remove=True)  # the recovery file was moved (tests)
            self._file_lock = None
        if self._file_lock is None:
            lock = FileLock(wanted)
            # Another start may hold it for a moment (it found no file and lets go).
            if not lock.acquire(wait=True):
                raise ArborError(f"cannot lock {wanted}")
            self._file_lock = lock

    def _write_sidecar(self, description: dict, saved: float | None = None) -> None:
        meta = {**description, "saved": time.time() if saved is None else saved, "pid": os.getpid()}
        write_text_atomic(sidecar_of(self.path), json.dumps(meta))

    def writing(self) -> bool:
        return self._writer is not None and self._writer.is_alive()

    def wait(self, timeout: float | None = None) -> None:
        """Until a background write has finished (closing the window, tests)."""
        if self._writer is not None:
            self._writer.join(timeout)

    def _say_failed(self, reason: str) -> None:
        self.files.controller.say(
            f"Autosave failed, your changes are not in the recovery file: {reason}"
        )

    def clear(self) -> None:
        """Remove this window's recovery file (saved, discarded, closed); never another's."""
        with self._lock:
            self._generation += 1
            self.path.unlink(missing_ok=True)
            _unlink(sidecar_of(self.path))
            if self._file_lock is not None:
                self._file_lock.release(remove=True)
                self._file_lock = None

    def pending(self) -> bool:
        return self.path.exists()

    def adopt(self, orphan: Orphan) -> bool:
        """Make ``orphan`` (restored into this window) this window's recovery file, so that it
        is kept until the work is saved; False (and the orphan kept) if it cannot be moved."""
        with self._lock:
            try:
                self._hold()
                os.replace(orphan.path, self.path)
            except (OSError, ArborError):
                orphan.keep()
                return False
            # Failing, the next autosave writes it; a start meanwhile names the file's time.
            with contextlib.suppress(OSError, ArborError):
                self._write_sidecar(self.description(), orphan.saved)
            orphan.discard()
            return True


def offer_orphans(window, folder: Path | None = None, ask=None) -> bool:
    """At start: offer each recovery file left by a window that did not close properly, by
    name and time. One can be restored into ``window``; each is restored, discarded or kept
    for the next start as the user says. True when one was restored.

    ``ask(orphan, can_restore)`` returns ``"restore"``, ``"discard"`` or ``"later"``; by
    default the window's dialogs' ``ask_recovery`` if they have one, else a message box.
    """
    recovery = window.recovery
    found = orphans(folder or recovery.path.parent, exclude=(recovery.path,))
    if ask is None:
        ask = getattr(window.dialogs, "ask_recovery", None) or (
            lambda orphan, can_restore: ask_recovery(window, orphan, can_restore)
        )
    restored = False
    try:
        while found:
            orphan = found.pop(0)
            answer = ask(orphan, not restored)
            if answer == "restore" and not restored:
                if window.files.open_project(orphan.path, modified=True, autosaved=orphan.when()):
                    restored = True
                    if not recovery.adopt(orphan):
                        window.controller.say(
                            f"Restored {orphan.name}; its recovery file "
                            f"{orphan.path} is kept for the next start"
                        )
                else:
                    orphan.keep()  # open_project has said why; the file stays for another try
            elif answer == "discard":
                orphan.discard()
            else:
                orphan.keep()
    finally:
        for orphan in found:  # an error on the way: the rest stay for the next start
            orphan.keep()
    return restored


def ask_recovery(window, orphan: Orphan, can_restore: bool) -> str:
    """'restore', 'discard' or 'later', asked in a message box naming the work and its time."""
    from PySide6.QtWidgets import QMessageBox

    later_note = "Later keeps it for the next start."
    if not can_restore:
        later_note = "This window holds restored work already. " + later_note
    # All in the main text, which is plain: the name comes from a file and is never markup.
    box = QMessageBox(
        QMessageBox.Icon.Question,
        "Arbor",
        "Arbor did not close properly last time. Restore the unsaved work it kept?\n\n"
        f"{orphan.describe()}\n\n{later_note}",
        parent=window,
    )
    box.setTextFormat(Qt.TextFormat.PlainText)
    restore = box.addButton("&Restore", QMessageBox.ButtonRole.AcceptRole) if can_restore else None
    discard = box.addButton("&Discard", QMessageBox.ButtonRole.DestructiveRole)
    later = box.addButton("&Later", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(restore or later)
    box.exec()
    clicked = box.clickedButton()
    if restore is not None and clicked is restore:
        return "restore"
    return "discard" if clicked is discard else "later"


def _reason(err: Exception) -> str:
    return str(err) if isinstance(err, ArborError) else f"{type(err).__name__}: {err}"
