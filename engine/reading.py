"""Opening the files a person names, any of which may be hostile.

Only ordinary files are read: a FIFO would block for ever, ``/dev/zero`` and
``/dev/urandom`` never end. Sizes are bounded before anything is parsed, and a file's name
is shown with its control characters escaped, so that an error stays one line.
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
from pathlib import Path

from engine.errors import ArborError, printable

MB = 1 << 20


def shown_path(path: str | Path) -> str:
    """A path as messages show it: a newline or other control character in it is escaped.

    >>> shown_path("two\\nlines.csv")
    'two\\\\nlines.csv'
    """
    return printable(str(path))


def _refusal(path: Path, err: OSError) -> ArborError:
    name = shown_path(path)
    if err.errno == errno.ENOENT:
        if os.path.islink(path):
            return ArborError(f"{name} is a symbolic link to a file that does not exist")
        return ArborError(f"no such file: {name}")
    if err.errno == errno.ELOOP:
        return ArborError(f"{name} is a symbolic link that leads back to itself (a loop)")
    if err.errno in (errno.EACCES, errno.EPERM):
        folder = path.parent if str(path.parent) else Path(".")
        if not os.access(folder, os.X_OK):
            return ArborError(
                f"cannot read {name}: permission denied on its folder {shown_path(folder)}"
            )
        return ArborError(f"cannot read {name}: permission denied")
    if err.errno == errno.ENAMETOOLONG:
        return ArborError(f"cannot read {name}: the name is too long")
    return ArborError(f"cannot read {name}: {(err.strerror or str(err)).lower()}")


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not an ordinary file"


def open_regular(path: str | Path, what: str = "file") -> tuple[int, os.stat_result]:
    """An open descriptor of ``path`` and its status, when it is an ordinary file.

    The file is opened without blocking and checked through the open descriptor, so a
    FIFO or device swapped in after a check cannot slip through. The caller closes it.
    """
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as err:
        raise _refusal(path, err) from None
    try:
        status = os.fstat(fd)
        if stat.S_ISDIR(status.st_mode):
            raise ArborError(f"{shown_path(path)} is a folder, not a {what}")
        if not stat.S_ISREG(status.st_mode):
            raise ArborError(
                f"{shown_path(path)} is {_kind(status.st_mode)}, not a {what}; "
                "Arbor reads only ordinary files"
            )
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, status


def check_regular(path: str | Path, what: str = "file") -> os.stat_result:
    """The status of ``path`` if it is an ordinary, readable file; else one clear ArborError."""
    fd, status = open_regular(path, what)
    os.close(fd)
    return status


def read_bounded(path: str | Path, limit: int, what: str = "file") -> bytes:
    """The bytes of an ordinary file of at most ``limit`` bytes (a file growing while read
    is cut off at the limit and refused too)."""
    fd, status = open_regular(path, what)
    with os.fdopen(fd, "rb") as handle:
        if status.st_size > limit:
            raise too_large(path, status.st_size, limit, what)
        data = handle.read(status.st_size + 1)  # read(n) reserves n bytes: not the limit
        if len(data) > status.st_size:  # it grew meanwhile
            data += handle.read(limit + 1 - len(data)) if len(data) <= limit else b""
    if len(data) > limit:
        raise too_large(path, len(data), limit, what)
    return data


def too_large(path: str | Path, size: int, limit: int, what: str) -> ArborError:
    return ArborError(
        f"{shown_path(Path(path).name)} is {size / MB:,.1f} MB; a {what} Arbor "
        f"reads is at most {limit / MB:,.0f} MB"
    )


def available_memory() -> int | None:
    """Bytes of memory available now (free plus reclaimable cache), None where unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


#: Bytes a parsed JSON value takes at most, beyond its text (a number, or a key and its value,
#: as Python objects with the list or dict slot holding them).
JSON_VALUE_BYTES = 64


def _json_memory(raw: bytes) -> int:
    """A bound on the memory ``json.loads`` needs for ``raw``: its values are separated by
    commas and colons, and each costs at most ``JSON_VALUE_BYTES``."""
    import numpy as np

    data = np.frombuffer(raw, dtype=np.uint8)
    separators = int(np.count_nonzero(data == ord(","))) + int(np.count_nonzero(data == ord(":")))
    return 2 * len(raw) + JSON_VALUE_BYTES * separators


#: Arbor writes counts and ids; a longer integer is not from Arbor (and Python refuses to
#: convert one of more than 4,300 digits with an error of its own).
MAX_INT_DIGITS = 20
MAX_FLOAT_CHARS = 64


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"it holds a whole number of {len(text.lstrip('-')):,} digits")
    return int(text)


def _finite(text: str) -> float:
    value = float(text) if len(text) <= MAX_FLOAT_CHARS else float("inf")
    if not math.isfinite(value):
        raise ValueError(
            f"it holds the number {text[:24]}{'...' if len(text) > 24 else ''}, out of range"
        )
    return value


def _no_constant(text: str):
    raise ValueError(f"it holds {text}, which is not JSON")


def parse_json(raw: bytes, name: str, what: str):
    """The JSON document in ``raw``, parsed with numbers bounded: one clear line otherwise."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ArborError(
            f"{name} is not a readable {what}: it is not UTF-8 text (byte {err.start})"
        ) from None
    try:
        doc = json.loads(text, parse_int=_whole, parse_float=_finite, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise ArborError(f"{name} is not valid JSON (line {err.lineno}: {err.msg})") from None
    except RecursionError:
        raise ArborError(f"{name} is nested more deeply than any {what} Arbor writes") from None
    except ValueError as err:
        raise ArborError(f"{name} is not a readable {what}: {err}") from None
    _refuse_unencodable(doc, name, what)
    return doc


def _refuse_unencodable(doc, name: str, what: str) -> None:
    """Refuse a document holding a text that cannot be written out again as UTF-8: JSON's
    escapes can spell a lone surrogate (``"\\ud800"``), which Python reads as a string and
    only fails on when it is printed or saved, far from the file."""
    stack = [doc]
    while stack:  # a loop, not recursion: the parser already bounded the depth, not the width
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as err:
                raise ArborError(
                    f"{name} is not a readable {what}: it holds a text that is not valid Unicode "
                    f"(a lone surrogate at character {err.start + 1} of "
                    f'"{printable(value[:40])}")'
                ) from None


def read_json(path: str | Path, limit: int, what: str):
    """Parse the JSON file at ``path``: an ordinary file of at most ``limit`` bytes whose
    parsed values fit in the memory free now."""
    raw = read_bounded(path, limit, what)
    free, need = available_memory(), _json_memory(raw)
    if free is not None and need > free:
        raise ArborError(
            f"{shown_path(Path(path).name)} would take about {need / MB:,.0f} MB of "
            f"memory to read, more than is free now ({free / MB:,.0f} MB); it is "
            f"not a {what} Arbor wrote on this machine"
        )
    return parse_json(raw, shown_path(path), what)
