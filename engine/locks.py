"""An advisory lock on an open file, which the operating system drops when its holder exits,
however it exits (the compile folder's lock, a window's recovery file)."""

from __future__ import annotations


def lock(handle, wait: bool) -> bool:
    """Lock the open file ``handle`` for this process; False if ``wait`` is False and
    another process holds it (or the file system cannot lock)."""
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        mode = msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK
        while True:
            try:
                msvcrt.locking(handle.fileno(), mode, 1)
                return True
            except OSError:
                if not wait:
                    return False
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        return True
    except OSError:
        return False
