"""Atomic file writes: a temporary file beside the target, flushed, then renamed over it."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from engine.errors import ArborError


def write_atomic(path: str | Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp_path)`` and move the result onto ``path``; on failure the old file stays.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.txt"
    >>> write_text_atomic(p, "hello"); p.read_text()
    'hello'
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise ArborError(f"cannot save {path}: the folder {directory} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as err:
        raise ArborError(f"cannot save {path}: {(err.strerror or str(err)).lower()}") from None
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        write(tmp_path)
        with open(tmp_path, "rb+") as handle:
            os.fsync(handle.fileno())
        # mkstemp makes the file owner-only; keep the old file's mode, or the usual default.
        umask = os.umask(0)
        os.umask(umask)
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~umask
        os.chmod(tmp_path, mode)
        os.replace(tmp_path, path)
    except ArborError:
        tmp_path.unlink(missing_ok=True)
        raise
    except Exception as err:  # noqa: BLE001 - any failure must leave the old file intact
        tmp_path.unlink(missing_ok=True)
        raise ArborError(f"cannot save {path}: {err}") from None


def write_text_atomic(path: str | Path, text: str) -> None:
    write_atomic(path, lambda p: p.write_text(text, encoding="utf-8"))
