"""Atomic file writes: a temporary file beside the target, flushed, then renamed over it.

The temporary file is named ``.TARGET.arbor-PID-XXXX.tmp``, so that one left behind by a
killed save is recognisably Arbor's: the next save into that folder removes those whose
process is gone (or that are a week old). A read-only target is not replaced unless the
caller says so (the window asks first; the command line refuses).
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from engine.errors import ArborError, printable

_TEMPORARY = re.compile(r"\..+\.arbor-(\d+)-[A-Za-z0-9_]+\.tmp")
_STALE_AFTER = 7 * 24 * 3600


class ReadOnlyTarget(ArborError):
    """The file to be replaced is read-only; the caller may ask and retry with ``replace_read_only``."""


def _process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False  # someone else's process, alive
    return False


def remove_stale_temporaries(directory: Path) -> list[Path]:
    """Remove Arbor's temporary files in ``directory`` that no running save owns."""
    removed = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        match = _TEMPORARY.fullmatch(entry.name)
        if match is None or not entry.is_file(follow_symlinks=False):
            continue
        pid = int(match[1])
        try:
            old = now - entry.stat(follow_symlinks=False).st_mtime > _STALE_AFTER
            if pid != os.getpid() and (old or _process_gone(pid)):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue  # gone already, or not ours to remove
    return removed


def _read_only(path: Path, status: os.stat_result) -> bool:
    """A file we may not write: renaming over it would still replace it, so that must be
    asked first. For root, whom permissions do not stop, a file nobody may write (444)."""
    if os.geteuid() == 0:
        return not status.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    return not os.access(path, os.W_OK)


def write_atomic(
    path: str | Path, write: Callable[[Path], None], replace_read_only: bool = False
) -> None:
    """Call ``write(tmp_path)`` and move the result onto ``path``; on failure the old file stays.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.txt"
    >>> write_text_atomic(p, "hello"); p.read_text()
    'hello'
    """
    write_all_atomic([(path, write)], replace_read_only)


def write_all_atomic(
    files: Iterable[tuple[str | Path, Callable[[Path], None]]], replace_read_only: bool = False
) -> None:
    """Write several files, all of them or none: every target is checked first (its folder
    exists, it is not a folder, it is not read-only), then every ``write(tmp_path)`` runs
    into a temporary file beside its target, and only when all have succeeded do they
    replace their targets. On any failure the temporaries go and no target is touched.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> def refuse(p): raise ArborError("no")
    >>> try:
    ...     write_all_atomic([(d / "a.txt", lambda p: p.write_text("a")), (d / "b.txt", refuse)])
    ... except ArborError:
    ...     pass
    >>> sorted(p.name for p in d.iterdir())
    []
    """
    targets = [(_checked(Path(path), replace_read_only), write) for path, write in files]
    staged: list[tuple[Path, Path]] = []
    try:
        for (path, status), write in targets:
            staged.append((_staged(path, status, write), path))
    except BaseException:
        for tmp_path, _ in staged:
            tmp_path.unlink(missing_ok=True)
        raise
    for number, (tmp_path, path) in enumerate(staged):
        try:
            os.replace(tmp_path, path)
        except OSError as err:
            for later, _ in staged[number:]:
                later.unlink(missing_ok=True)
            done = [printable(str(p)) for _, p in staged[:number]]
            written = f" ({', '.join(done)} written)" if done else ""
            raise ArborError(
                f"cannot save {printable(str(path))}: {(err.strerror or str(err)).lower()}{written}"
            ) from None


def _checked(path: Path, replace_read_only: bool) -> tuple[Path, os.stat_result | None]:
    """``path`` and its status (None when it does not exist yet) if it may be written."""
    shown = printable(str(path))
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise ArborError(
            f"cannot save {shown}: the folder {printable(str(directory))} does not exist"
        )
    try:
        status = os.stat(path)
    except FileNotFoundError:
        status = None
    except OSError as err:
        raise ArborError(f"cannot save {shown}: {(err.strerror or str(err)).lower()}") from None
    if status is not None and not stat.S_ISREG(status.st_mode):
        kind = "a folder" if stat.S_ISDIR(status.st_mode) else "not an ordinary file"
        raise ArborError(f"cannot save {shown}: it is {kind}")
    if status is not None and _read_only(path, status) and not replace_read_only:
        raise ReadOnlyTarget(
            f"cannot save {shown}: the file is read-only (make it writable, or "
            "save under another name)"
        )
    return path, status


def _staged(path: Path, status: os.stat_result | None, write: Callable[[Path], None]) -> Path:
    """A temporary file beside ``path`` holding what ``write`` wrote, flushed, with the mode
    ``path`` will have."""
    shown = printable(str(path))
    directory = path.parent if str(path.parent) else Path(".")
    remove_stale_temporaries(directory)
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name}.arbor-{os.getpid()}-", suffix=".tmp", dir=directory
        )
    except OSError as err:
        raise ArborError(f"cannot save {shown}: {(err.strerror or str(err)).lower()}") from None
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        write(tmp_path)
        with open(tmp_path, "rb+") as handle:
            os.fsync(handle.fileno())
        # mkstemp makes the file owner-only; keep the old file's mode, or the usual default.
        umask = os.umask(0)
        os.umask(umask)
        mode = status.st_mode & 0o777 if status is not None else 0o666 & ~umask
        os.chmod(tmp_path, mode)
    except ArborError:
        tmp_path.unlink(missing_ok=True)
        raise
    except Exception as err:  # noqa: BLE001 - any failure must leave the old file intact
        tmp_path.unlink(missing_ok=True)
        raise ArborError(f"cannot save {shown}: {printable(str(err))}") from None
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise
    return tmp_path


def write_text_atomic(path: str | Path, text: str, replace_read_only: bool = False) -> None:
    write_atomic(path, lambda p: p.write_text(text, encoding="utf-8"), replace_read_only)
