"""Compiling the numba kernels: once per machine, visibly, in a child that never outlives us.

The kernels' life in one process (:func:`state`):

``"cold"``
    Nothing is compiled for these kernel sources on this machine yet.
``"compiling"``
    A child process compiles them into the shared folder of :mod:`engine.fast.cache`
    (about a minute of one core, once per machine and version). Meanwhile a small fit
    runs the kernels' own Python source (:mod:`engine.fast.interpreted`: the same
    statements, so the same tree) and a bigger one waits for the compilation, its monitor
    told why, cancellable (:func:`engine.learn.growth.compiled_kernels_ready`).
``"cached"`` / ``"loading"``
    The folder is complete; this process loads the kernels from it (0.5 to 5 s). Fits
    wait for that, however long it takes (small ones do not).
``"ready"``, ``"failed"`` (the reason is kept in the folder; ``python main.py compile``
tries again), ``"unavailable"`` (numba is not installed): then every fit runs the
kernels' Python source, the same trees far more slowly. There is no other growth loop,
so the tree never depends on what has compiled (issue 22).

Who is told: listeners (:func:`subscribe`) get a :class:`Notice` when a compilation
starts (with the time it should take), ends or fails, from the thread that watches
it. The command line prints it once on stderr, the window shows it in its status
bar, and a fit's monitor reports the same words.

The child is started by a thread of this process that waits for it. On Linux the
kernel kills it when that thread ends (``PR_SET_PDEATHSIG``), which happens at the
latest when this process exits, however it exits; everywhere, it also exits when its
standard input, a pipe from this process, reaches its end. It takes the folder's lock
before compiling, so two processes never compile at once: a second child waits,
finds the folder complete, and exits, and its parent loads the kernels.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.fast import NUMBA_INSTALLED
from engine.monitor import Monitor

#: A compilation's expected time before this machine has timed one (two cores under load).
EXPECTED_SECONDS = 60.0
#: Niceness of a compilation running behind fits or the window (not of ``python main.py compile``).
BACKGROUND_NICENESS = 10

_PARENT = "ARBOR_COMPILE_PARENT"
_NICENESS = "ARBOR_COMPILE_NICENESS"


@dataclass(frozen=True)
class Notice:
    """News about the compilation, for a person.

    ``state`` is "compiling" (``expected``: seconds it should take), "ready" (``seconds``:
    how long it took) or "failed" (``message`` says why).
    """

    state: str
    message: str
    expected: float | None = None
    seconds: float | None = None


_lock = threading.Lock()
_state = "idle"  # "idle" until a fit wants the kernels; then as in the module docstring
_ready = threading.Event()
_settled = threading.Event()  # ready or failed
_child: subprocess.Popen | None = None
_closing = False
_compiling_notice: Notice | None = None
_started_at = 0.0  # when the compilation under way started (time.monotonic())
_failure: str | None = None
_listeners: list[Callable[[Notice], None]] = []
#: True while this thread runs the warm-up fits, which must not wait for themselves.
_warming = contextvars.ContextVar("arbor_warming", default=False)
#: Loading also runs the warm-up's fits over partitions (``python main.py compile`` does, so
#: that a folder lacking their kernels is compiled again rather than left to the workers).
_load_partitions = False


# ---------------------------------------------------------------------- asking

def state() -> str:
    """Where the kernels stand in this process (see the module docstring)."""
    with _lock:
        if _state != "idle":
            return _state
    if not NUMBA_INSTALLED:
        return "unavailable"
    from engine.fast import cache

    try:
        folder = cache.kernel_folder()
    except OSError:
        return "failed"
    if cache.failure(folder):
        return "failed"
    return "cached" if cache.is_complete(folder) else "cold"


def wait_until_compiled(monitor: Monitor, patience: float | None = None) -> bool:
    """True once the compiled kernels can run here; False if the fit should run their
    Python source (:mod:`engine.fast.interpreted`) instead.

    The first call starts what the kernels need (loading them, or compiling them in a
    child). A compilation under way is waited for at most ``patience`` seconds (None:
    until done); loading from a complete cache is always waited for. ``monitor.check()``
    is called meanwhile, so the wait can be cancelled.
    """
    if _ready.is_set() or _warming.get():
        return True
    current = _start(BACKGROUND_NICENESS)
    if current in ("failed", "unavailable"):
        return False
    if current == "compiling" and _compiling_notice is not None:
        monitor.report(0.0, _compiling_notice.message)
    elif current == "loading":
        monitor.report(0.0, "loading the compiled split search")
    deadline = None if patience is None else time.monotonic() + patience
    while not _settled.wait(0.05):
        monitor.check()
        if deadline is not None and _state == "compiling" and time.monotonic() >= deadline:
            return False
    return _ready.is_set()


def compile_kernels() -> bool:
    """Compile (or load) the kernels now, blocking: for tests and benchmarks."""
    return NUMBA_INSTALLED and wait_until_compiled(Monitor())


def compile_now(on_notice: Callable[[Notice], None] | None = None,
                monitor: Monitor | None = None) -> dict:
    """Compile the kernels for this machine now, in the foreground (``python main.py compile``).

    A failure recorded earlier is forgotten and the compilation tried again. Returns
    ``{"already": bool, "ok": bool, "seconds": float, "folder": str, "reason": str | None}``.
    """
    from engine.fast import cache

    try:
        folder = cache.kernel_folder()
    except OSError as err:
        return {"already": False, "ok": False, "seconds": 0.0, "folder": None, "reason": str(err)}
    already = cache.is_complete(folder)
    cache.clear_failure(folder)
    global _state
    with _lock:
        if _state == "failed":
            _state = "idle"
            _settled.clear()
    unsubscribe = subscribe(on_notice) if on_notice else (lambda: None)
    started = time.monotonic()
    global _load_partitions
    _load_partitions = True
    try:
        _start(niceness=0)
        ok = wait_until_compiled(monitor or Monitor())
    finally:
        unsubscribe()
    compiled = _compiling_notice is not None  # a kernel missing from a "complete" folder, say
    return {"already": already and not compiled, "ok": ok, "seconds": time.monotonic() - started,
            "folder": str(folder), "reason": None if ok else _failure}


def finish(on_wait: Callable[[float], None] | None = None) -> None:
    """Let a compilation under way finish before this process exits (the command line
    does, so that its compilation is not lost: the child must not outlive it).

    ``on_wait`` is told the seconds still expected, if there is something to wait for.
    Interrupted (Ctrl+C), the child is stopped and KeyboardInterrupt goes on.
    """
    with _lock:
        if _state != "compiling":
            return
        notice = _compiling_notice
    if on_wait is not None:
        left = (notice.expected if notice and notice.expected else EXPECTED_SECONDS)
        on_wait(max(left - (time.monotonic() - _started_at), 5.0))
    try:
        while not _settled.wait(0.2):
            pass
    except KeyboardInterrupt:
        stop()
        raise


def stop() -> None:
    """Stop a compilation under way now (its partial results stay cached)."""
    global _closing
    with _lock:
        _closing = True
        child = _child
    if child is not None:
        _stop(child)


def subscribe(listener: Callable[[Notice], None]) -> Callable[[], None]:
    """Call ``listener(notice)`` on news (from another thread); returns the unsubscriber.

    A compilation already under way is told at once.
    """
    with _lock:
        _listeners.append(listener)
        current = _compiling_notice if _state == "compiling" else None
    if current is not None:
        listener(current)

    def unsubscribe() -> None:
        with _lock, contextlib.suppress(ValueError):
            _listeners.remove(listener)
    return unsubscribe


def describe_seconds(seconds: float) -> str:
    """"40 s", "about a minute", "3 min": an expected time the way a person says it."""
    if seconds < 45:
        return f"{max(5, int(round(seconds / 5.0)) * 5)} s"
    if seconds < 90:
        return "about a minute"
    return f"{int(round(seconds / 60.0))} min"


# ---------------------------------------------------------------------- this process


def _start(niceness: int) -> str:
    """Start loading or compiling, if not yet; the state afterwards."""
    global _state, _failure
    news = None
    with _lock:
        if _state != "idle":
            return _state
        if not NUMBA_INSTALLED:
            _state = "unavailable"
            _settled.set()
            return _state
        from engine.fast import cache

        try:
            folder = cache.kernel_folder()
            reason = cache.failure(folder)
        except OSError as err:
            folder, reason = None, str(err)
        if reason:  # recorded by an earlier process: not tried again on every run
            _state, _failure = "failed", reason.strip().splitlines()[-1]
            _settled.set()
            news = Notice("failed", f"the fast split search could not be compiled here "
                                    f"({_failure}); fits run it uncompiled, far more slowly "
                                    "('python main.py compile' tries again)")
        else:
            if cache.is_complete(folder):
                _state, target = "loading", _load
            else:
                news, target = _compiling(), _compile_then_load
            threading.Thread(target=target, args=(folder, niceness), name="arbor-compile",
                             daemon=True).start()
        state_now = _state
    if news is not None:
        _tell(news)
    return state_now


def _compiling() -> Notice:
    """Enter the "compiling" state (the caller holds ``_lock``); the notice to tell."""
    global _state, _compiling_notice, _started_at
    from engine.fast import cache

    expected = cache.expected_seconds(EXPECTED_SECONDS)
    _state = "compiling"
    _started_at = time.monotonic()
    _compiling_notice = Notice(
        "compiling", f"compiling the fast split search for this machine, once "
        f"({describe_seconds(expected)}); until then bigger fits wait for it",
        expected=expected)
    return _compiling_notice


def _compile_then_load(folder: Path, niceness: int, attempt: int = 0) -> None:
    global _state
    from engine.fast import cache

    code = _run_child(niceness)
    if _closing:  # this process is ending: nothing to load, no one to tell
        with _lock:
            _state = "failed"
            _settled.set()
        return
    if not cache.is_complete(folder):
        reason = cache.failure(folder)
        _fail(reason.strip().splitlines()[-1] if reason else
              f"the compiling process stopped (exit status {code})")
        return
    _load(folder, niceness, compiled=time.monotonic() - _started_at, attempt=attempt)


def _load(folder: Path, niceness: int = 0, compiled: float | None = None, attempt: int = 0) -> None:
    """Load the kernels from the complete folder, by running the warm-up fits here.

    Nothing is compiled in this process: a kernel missing from the folder (filled by a
    process whose warm-up differed, say) sends the work to a compiling child instead.
    """
    global _state
    from engine.fast import cache
    from engine.fast.jit import NotCached, loading_only
    from engine.fast.warmup import warm_up

    token = _warming.set(True)
    try:
        with loading_only():
            warm_up(partitions=_load_partitions)
    except NotCached as missing:
        if attempt >= 2:  # compiled and still missing: do not go round for ever
            _fail(f"{missing} does not load from the cache")
            return
        cache.mark_incomplete(folder)
        with _lock:
            notice = _compiling() if _compiling_notice is None else _compiling_notice
            _state = "compiling"
        if compiled is None:
            _tell(notice)
        _compile_then_load(folder, niceness, attempt + 1)
        return
    except Exception as err:  # noqa: BLE001 - any failure means: run the kernels uncompiled
        _fail(f"loading the compiled kernels failed: {err}")
        return
    finally:
        _warming.reset(token)
    cache.mark_used(folder)
    if compiled is not None:  # told before fits go on, so that the news comes first
        _tell(Notice("ready", f"the fast split search is compiled ({compiled:.0f} s); "
                              "fits use it from now on", seconds=compiled))
    with _lock:
        _state = "ready"
        _ready.set()
        _settled.set()


def _fail(reason: str) -> None:
    global _state, _failure
    with _lock:
        _state, _failure = "failed", reason
        was_compiling = _compiling_notice is not None
    if was_compiling:
        _tell(Notice("failed", f"could not compile the fast split search ({reason}); "
                               "fits run it uncompiled, far more slowly"))
    _settled.set()


def _tell(notice: Notice) -> None:
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        with contextlib.suppress(Exception):  # a listener's bug must not stop the compilation
            listener(notice)


def _run_child(niceness: int) -> int | None:
    """Run the compiling child and wait for it; its exit status (None if it could not start)."""
    global _child
    root = str(Path(__file__).resolve().parents[2])  # the same sources as this process
    env = dict(os.environ, **{_PARENT: str(os.getpid()), _NICENESS: str(niceness)})
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    flags = getattr(subprocess, "CREATE_NO_WINDOW", 0)  # no console window on Windows
    try:
        child = subprocess.Popen(
            [sys.executable, "-c", "from engine.fast.compile import child_main; child_main()"],
            cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, creationflags=flags)
    except (OSError, subprocess.SubprocessError):
        return None
    with _lock:
        _child = child
        closing = _closing
    if closing:
        _stop(child)
    try:
        return child.wait()
    finally:
        with _lock:
            _child = None
        with contextlib.suppress(OSError):
            child.stdin.close()


def _stop(child: subprocess.Popen) -> None:
    with contextlib.suppress(OSError):
        child.kill()
    with contextlib.suppress(Exception):
        child.wait(timeout=10)


# ---------------------------------------------------------------------- the child

def child_main() -> None:
    """The compiling child: compile every kernel into the shared folder, unless another
    process did meanwhile (the lock makes it wait for that one)."""
    _follow_parent()
    with contextlib.suppress(OSError, AttributeError, ValueError):
        os.nice(int(os.environ.get(_NICENESS, "0")))
    from engine.fast import cache
    from engine.fast.warmup import warm_up

    folder = cache.kernel_folder()
    with cache.folder_lock(folder):
        if cache.is_complete(folder):
            return
        started = time.monotonic()
        _warming.set(True)
        try:
            warm_up(partitions=True)
        except Exception:
            cache.mark_failed(folder, traceback.format_exc(limit=-6))
            raise SystemExit(1) from None
        cache.mark_complete(folder, time.monotonic() - started)
    with contextlib.suppress(OSError):
        cache.remove_unused(folder)


def _follow_parent() -> None:
    """Make sure this process ends with the process that started it."""
    parent = int(os.environ.get(_PARENT, "0") or 0)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes
            import signal

            pr_set_pdeathsig = 1
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if parent and os.getppid() != parent:  # it ended before the line above took effect
        os._exit(0)
    threading.Thread(target=_exit_at_end_of_input, name="arbor-parent-watch", daemon=True).start()


def _exit_at_end_of_input() -> None:
    # os.read, not sys.stdin: a daemon thread blocked inside a buffered reader's lock
    # aborts the interpreter at exit ("could not acquire lock ... at interpreter shutdown").
    with contextlib.suppress(OSError):
        while os.read(0, 4096):
            pass
    os._exit(0)  # the parent is gone (or closed the pipe to stop us)
