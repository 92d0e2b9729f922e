"""Where the compiled kernels live: one per-user folder that every clone and venv shares.

numba's own cache sits beside the sources and is keyed by the source file's path and
modification time, so each clone, each venv and each fresh checkout compiled again (a
minute of two cores). Arbor keeps it instead in

    $ARBOR_CACHE_DIR, or $XDG_CACHE_HOME/arbor, or ~/.cache/arbor
      numba/<arbor version>-numba<numba version>-py<X.Y>-<digest of the kernel sources>/

The digest covers the *content* of every module that defines a cached kernel and of
every engine module those import (the tolerances they bake in as constants): two clones
of the same version share one folder whatever their paths and timestamps, and a clone
whose kernels differ gets its own folder instead of overwriting another's. numba's own
index still checks each function's bytecode, the numba version and the CPU.

Nothing here imports numba; :mod:`engine.fast.compile.jit` points numba at :func:`kernel_folder`.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from functools import cache
from importlib import metadata
from pathlib import Path

from engine.locks import lock

ENGINE = Path(__file__).resolve().parents[2]
#: Folders of other kernel versions not used for this long are removed after a compilation.
UNUSED_DAYS = 30
#: Written once a compilation has finished: the folder holds every kernel fits use.
COMPLETE = "complete.json"
#: Written when a compilation failed with an error (not when it was stopped).
FAILED = "failed.json"
#: Held by the process compiling into the folder.
LOCK = "compile.lock"
#: How long the last compilation on this machine took and how many kernels it compiled (any
#: version): the next one's estimate.
LAST_COMPILE = "last-compile.json"

_NJIT = re.compile(r"^\s*@njit\b", re.MULTILINE)


def cache_root() -> Path:
    """The per-user folder for Arbor's caches (XDG Base Directory rules on Linux)."""
    explicit = os.environ.get("ARBOR_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local"
        return Path(base) / "arbor" / "cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "arbor"
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "arbor"


def kernel_folder() -> Path:
    """This engine's kernel folder (created; a temporary one if the user cache is read-only)."""
    return _folder(str(cache_root()), sources_digest())


@cache
def _folder(root: str, digest: str) -> Path:
    name = f"{_version('arbor')}-numba{_version('numba')}-py{sys.version_info[0]}.{sys.version_info[1]}-{digest}"
    for base in (Path(root), Path(tempfile.gettempdir()) / f"arbor-{_user()}"):
        folder = base / "numba" / name
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=folder).close()
            return folder
        except OSError:
            continue
    raise OSError(f"no writable folder for the compiled kernels (tried {root})")


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "unknown"


def _user() -> str:
    try:
        return str(os.getuid())
    except AttributeError:  # Windows
        return os.environ.get("USERNAME", "user")


@cache
def sources_digest(engine: Path = ENGINE) -> str:
    """A digest of the kernel sources' content (16 hex digits) in the ``engine`` package."""
    h = hashlib.sha256()
    for path in kernel_sources(engine):
        h.update(path.relative_to(engine).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def kernel_sources(engine: Path = ENGINE) -> list[Path]:
    """Modules whose content the compiled kernels depend on: those defining ``@njit``
    functions in ``engine/fast``, and every engine module they import, transitively
    (but this one, which keeps the folder and compiles nothing)."""
    todo = [p for p in sorted((engine / "fast").glob("*.py")) if _NJIT.search(p.read_text("utf-8"))]
    seen: set[Path] = {engine / "fast" / "compile" / "cache.py"}
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo.extend(_engine_imports(engine, path))
    return sorted(seen - {engine / "fast" / "compile" / "cache.py"})


#: One ast.parse at a time: two at once on different threads can fail on CPython 3.11 ("AST
#: constructor recursion depth mismatch"), as when folds fitted side by side each asked for
#: the digest first.
_PARSING = threading.Lock()


def _engine_imports(engine: Path, path: Path) -> list[Path]:
    found = []
    with _PARSING:
        tree = ast.parse(path.read_text("utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            if name == "engine" or name.startswith("engine."):
                file = _module_file(engine, name)
                if file is not None:
                    found.append(file)
    return found


def _module_file(engine: Path, name: str) -> Path | None:
    parts = name.split(".")[1:]
    base = engine.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


# ---------------------------------------------------------------------- the folder's state


def is_complete(folder: Path) -> bool:
    return (folder / COMPLETE).is_file()


def is_empty(folder: Path) -> bool:
    """Whether no kernel has been compiled into ``folder`` yet."""
    return not any(folder.glob("*.nbi"))  # numba's index files, one per kernel


def mark_complete(
    folder: Path,
    seconds: float,
    cpu_seconds: float | None = None,
    kernels: int | None = None,
    whole: bool = True,
) -> None:
    """Record a finished compilation (written last, atomically: its presence means complete);
    ``whole``: it compiled every kernel, so its figures are the next one's estimate."""
    timing = {
        "seconds": round(seconds, 1),
        "cpu_seconds": cpu_seconds and round(cpu_seconds, 1),
        "kernels": kernels,
    }
    record = {
        **timing,
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "python": sys.version.split()[0],
        "numba": _version("numba"),
        "arbor": _version("arbor"),
        "sources": [str(p.relative_to(ENGINE)) for p in kernel_sources()],
    }
    _write_atomically(folder / COMPLETE, json.dumps(record, indent=1))
    if whole:
        with contextlib.suppress(OSError):
            _write_atomically(folder.parent / LAST_COMPILE, json.dumps(timing))
    with contextlib.suppress(OSError):
        (folder / FAILED).unlink(missing_ok=True)


def mark_incomplete(folder: Path) -> None:
    """The folder lacks a kernel after all: the next compilation fills it in."""
    with contextlib.suppress(OSError):
        (folder / COMPLETE).unlink(missing_ok=True)


def mark_used(folder: Path) -> None:
    """Remember that this folder was used now (old folders are removed by age of use)."""
    with contextlib.suppress(OSError):
        os.utime(folder / COMPLETE)


def failure(folder: Path) -> str | None:
    """Why the last compilation into ``folder`` failed, or None. A failure recorded by other
    code driving the compilation (the warm-up, the builder) is forgotten: it may work now."""
    try:
        record = json.loads((folder / FAILED).read_text("utf-8"))
        if record["driver"] == _driver_digest():
            return str(record["reason"]).strip() or "unknown error"
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def mark_failed(folder: Path, reason: str) -> None:
    with contextlib.suppress(OSError):
        _write_atomically(
            folder / FAILED, json.dumps({"driver": _driver_digest(), "reason": reason})
        )


@cache
def _driver_digest() -> str:
    """The content of what drives a compilation (not in the kernels' digest)."""
    h = hashlib.sha256()
    for name in (
        "compiling/warmup.py",
        "compiling/lifecycle.py",
        "fast/builder.py",
        "scale/warmup.py",
        "compile_child.py",
    ):
        with contextlib.suppress(OSError):
            h.update((ENGINE / name).read_bytes())
    return h.hexdigest()[:16]


def clear_failure(folder: Path) -> None:
    with contextlib.suppress(OSError):
        (folder / FAILED).unlink(missing_ok=True)


def expected_compile(seconds: float, kernels: int) -> tuple[float, int]:
    """How long a compilation should take here and how many kernels it compiles: the last
    one's figures, else the defaults given."""
    try:
        last = json.loads((cache_root() / "numba" / LAST_COMPILE).read_text("utf-8"))
    except (OSError, ValueError):
        return seconds, kernels
    if not isinstance(last, dict):
        return seconds, kernels
    took, count = last.get("seconds"), last.get("kernels")
    if isinstance(took, int | float) and 1.0 <= took <= 3600.0:
        seconds = float(took)
    if isinstance(count, int) and 0 < count < 10_000:
        kernels = count
    return seconds, kernels


def remove_unused(keep: Path, days: float = UNUSED_DAYS) -> list[Path]:
    """Remove the other kernel folders beside ``keep`` not used for ``days`` (and not being
    compiled into): a developer's edits to the kernels leave one folder each."""
    removed = []
    cutoff = time.time() - days * 86400
    for other in keep.parent.iterdir():
        if other == keep or not other.is_dir():
            continue
        marker = other / COMPLETE
        try:
            used = marker.stat().st_mtime if marker.exists() else other.stat().st_mtime
        except OSError:
            continue
        if used >= cutoff:
            continue
        with folder_lock(other, wait=False) as held:
            if held:
                shutil.rmtree(other, ignore_errors=True)
                removed.append(other)
    return removed


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, "utf-8")
    os.replace(tmp, path)


@contextlib.contextmanager
def folder_lock(folder: Path, wait: bool = True):
    """Hold ``folder``'s compile lock; yields False if ``wait`` is False and another process
    holds it. The operating system releases it when its holder exits, however it exits."""
    try:
        handle = open(folder / LOCK, "a+b")  # noqa: SIM115 - held for the block
    except OSError:
        yield False
        return
    try:
        held = lock(handle, wait)
        yield held
    finally:
        handle.close()  # closing releases the lock
