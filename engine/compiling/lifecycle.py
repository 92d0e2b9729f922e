"""Compiling the numba kernels: once per machine, visibly, in a child that never outlives us.

The kernels' life in one process (:func:`state`):

``"cold"``
    Nothing is compiled for these kernel sources on this machine yet.
``"compiling"``
    A child process compiles them into the shared folder of :mod:`engine.fast.compile.cache`
    (once per machine and version), at the priority of the process that asked: a fit
    may be waiting for it. The window starts it at launch (:func:`prepare`); a fit too big
    to run uncompiled starts it and waits, its monitor told how far it has got,
    cancellable (:func:`engine.growth.compiled_kernels_ready`). A small fit starts
    nothing: it runs the kernels' own Python source (:mod:`engine.fast.interpreted`: the
    same statements, so the same tree), so a small command never waits for a compile.
``"cached"`` / ``"loading"``
    The folder is complete; this process loads the kernels from it (0.5 to 5 s). Fits
    wait for that, however long it takes (small ones do not).
``"ready"``, ``"failed"`` (the reason is kept in the folder; ``python main.py compile``
tries again), ``"unavailable"`` (numba is not installed): then every fit runs the
kernels' Python source, the same trees far more slowly. There is no other growth loop,
so the tree never depends on what has compiled (issue 22).

Who is told: listeners (:func:`subscribe`) get a :class:`Notice` when a compilation
starts, as it goes (kernels compiled of those expected, and the time left at this
machine's own rate), and when it ends or fails, from the thread that watches it. The
command line prints it on stderr, the window shows it in its status bar, and a fit's
monitor reports the same words and fraction.

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

#: A compilation's expected time before this machine has timed one (an idle 2-core machine).
EXPECTED_SECONDS = 60.0
#: Kernel compilations (numba's, of Arbor's kernels) a complete compilation makes, before this
#: machine has counted them (engine.fast.compile.cache keeps the last count).
EXPECTED_KERNELS = 157
#: The child's word for "one more kernel compiled", a line on its standard output.
_PROGRESS = "kernel"

_PARENT = "ARBOR_COMPILE_PARENT"


@dataclass(frozen=True)
class Notice:
    """News about the compilation, for a person.

    ``state`` is "compiling" (``expected``: seconds it should take from its start;
    ``done`` of ``total`` kernels compiled so far), "ready" (``seconds``: how long it
    took) or "failed" (``message`` says why).
    """

    state: str
    message: str
    expected: float | None = None
    seconds: float | None = None
    done: int = 0
    total: int = 0

    @property
    def fraction(self) -> float:
        return min(self.done / self.total, 0.99) if self.total else 0.0


_lock = threading.Lock()
_state = "idle"  # "idle" until a fit wants the kernels; then as in the module docstring
_ready = threading.Event()
_settled = threading.Event()  # ready or failed
_child: subprocess.Popen | None = None
_closing = False
_compiling_notice: Notice | None = None  # the latest word on the compilation under way
_started_at = 0.0  # when the compilation under way started (time.monotonic())
_expected_kernels = EXPECTED_KERNELS
_failure: str | None = None
_listeners: list[Callable[[Notice], None]] = []
#: True while this thread runs the warm-up fits, which must not wait for themselves.
_warming = contextvars.ContextVar("arbor_warming", default=False)
#: Warm-ups that loading runs besides :func:`~engine.compiling.warmup.warm_up`:
#: ``python main.py compile`` passes the fits over partitions, so that a folder lacking their
#: kernels is compiled again rather than left to the workers.
_load_extra: tuple[Callable[[], None], ...] = ()


# ---------------------------------------------------------------------- asking


def state() -> str:
    """Where the kernels stand in this process (see the module docstring)."""
    with _lock:
        if _state != "idle":
            return _state
    if not NUMBA_INSTALLED:
        return "unavailable"
    from engine.fast.compile import cache

    try:
        folder = cache.kernel_folder()
    except OSError:
        return "failed"
    if cache.failure(folder):
        return "failed"
    return "cached" if cache.is_complete(folder) else "cold"


_LOADING = Notice("loading", "loading the compiled split search")


def is_ready() -> bool:
    """Whether this process has the compiled kernels loaded (costs nothing to ask)."""
    return _ready.is_set()


def prepare() -> str:
    """Start loading or compiling the kernels now, in the background, without waiting (the
    window does at launch, so that nobody who then opens a file and chooses options waits);
    the state afterwards."""
    return _start()


def wait_until_compiled(monitor: Monitor, patience: float | None = None) -> bool:
    """True once the compiled kernels can run here; False if the fit should run their
    Python source (:mod:`engine.fast.interpreted`) instead.

    ``patience`` None (a fit too big to run uncompiled): starts what the kernels need
    (loading them, or compiling them in a child) and waits until done. ``patience`` 0 (a
    small fit): loads them from a complete cache and waits for that, but starts no
    compilation and waits for none under way. Loading is always waited for.
    ``monitor.check()`` is called meanwhile, so the wait can be cancelled, and the
    compilation's progress is reported to ``monitor``.
    """
    if _ready.is_set() or _warming.get():
        return True
    if patience is not None and state() == "cold":
        return False
    current = _start()  # (a failure recorded earlier is told, once)
    if current in ("failed", "unavailable"):
        return False
    told = None
    deadline = None if patience is None else time.monotonic() + patience
    while not _settled.wait(0.05):
        monitor.check()
        compiling = _state == "compiling"
        if compiling and deadline is not None and time.monotonic() >= deadline:
            return False
        notice = _compiling_notice if compiling else _LOADING
        if notice is not None and notice is not told:
            monitor.report(notice.fraction, notice.message)
            told = notice
    return _ready.is_set()


def compile_kernels() -> bool:
    """Compile (or load) the kernels now, blocking: for tests and benchmarks."""
    return NUMBA_INSTALLED and wait_until_compiled(Monitor())


def compile_now(
    on_notice: Callable[[Notice], None] | None = None,
    monitor: Monitor | None = None,
    extra_warm_ups: tuple[Callable[[], None], ...] = (),
) -> dict:
    """Compile the kernels for this machine now, in the foreground (``python main.py compile``).

    A failure recorded earlier is forgotten and the compilation tried again; loading also
    runs ``extra_warm_ups`` (the command passes :func:`engine.scale.warmup.warm_up_partitions`,
    whose kernels the child compiles but a fit in this process never loads). Returns
    ``{"already": bool, "ok": bool, "seconds": float, "folder": str, "reason": str | None}``.
    """
    from engine.fast.compile import cache

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
    global _load_extra
    _load_extra = tuple(extra_warm_ups)
    try:
        _start()
        ok = wait_until_compiled(monitor or Monitor())
    finally:
        unsubscribe()
    compiled = _compiling_notice is not None  # a kernel missing from a "complete" folder, say
    return {
        "already": already and not compiled,
        "ok": ok,
        "seconds": time.monotonic() - started,
        "folder": str(folder),
        "reason": None if ok else _failure,
    }


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
    """ "40 s", "about a minute", "3 min": an expected time the way a person says it."""
    if seconds < 45:
        return f"{max(5, int(round(seconds / 5.0)) * 5)} s"
    if seconds < 90:
        return "about a minute"
    return f"{int(round(seconds / 60.0))} min"


# ---------------------------------------------------------------------- this process


def _start() -> str:
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
        from engine.fast.compile import cache

        try:
            folder = cache.kernel_folder()
            reason = cache.failure(folder)
        except OSError as err:
            folder, reason = None, str(err)
        if reason:  # recorded by an earlier process: not tried again on every run
            _state, _failure = "failed", reason.strip().splitlines()[-1]
            _settled.set()
            news = Notice(
                "failed",
                f"the fast split search could not be compiled here "
                f"({_failure}); fits run it uncompiled, far more slowly "
                "('python main.py compile' tries again)",
            )
        else:
            if cache.is_complete(folder):
                _state, target = "loading", _load
            else:
                news, target = _compiling(), _compile_then_load
            threading.Thread(
                target=target, args=(folder,), name="arbor-compile", daemon=True
            ).start()
        state_now = _state
    if news is not None:
        _tell(news)
    return state_now


def _compiling() -> Notice:
    """Enter the "compiling" state (the caller holds ``_lock``); the notice to tell."""
    global _state, _compiling_notice, _started_at, _expected_kernels
    from engine.fast.compile import cache

    expected, _expected_kernels = cache.expected_compile(EXPECTED_SECONDS, EXPECTED_KERNELS)
    _state = "compiling"
    _started_at = time.monotonic()
    _compiling_notice = Notice(
        "compiling",
        f"compiling the fast split search for this machine, once "
        f"({describe_seconds(expected)}); until then bigger fits wait for it",
        expected=expected,
        total=_expected_kernels,
    )
    return _compiling_notice


def _progress(done: int) -> None:
    """The child has compiled ``done`` kernels: tell how far it has got and the time left,
    the larger of what this machine's last compilation and its rate so far say."""
    global _compiling_notice
    with _lock:
        first = _compiling_notice
        if _state != "compiling" or first is None:
            return
        total = max(_expected_kernels, done + 1)
        elapsed = time.monotonic() - _started_at
        left = max(
            (first.expected or EXPECTED_SECONDS) - elapsed, elapsed * (total - done) / done, 5.0
        )
        _compiling_notice = Notice(
            "compiling",
            f"compiling the fast split search for this machine, once: {done} of "
            f"about {total} kernels, {describe_seconds(left)} left; until then bigger fits "
            "wait for it",
            expected=first.expected,
            done=done,
            total=total,
        )
        notice = _compiling_notice
    _tell(notice)


def _compile_then_load(folder: Path, attempt: int = 0) -> None:
    global _state
    from engine.fast.compile import cache

    code = _run_child()
    if _closing:  # this process is ending: nothing to load, no one to tell
        with _lock:
            _state = "failed"
            _settled.set()
        return
    if not cache.is_complete(folder):
        reason = cache.failure(folder)
        _fail(
            reason.strip().splitlines()[-1]
            if reason
            else f"the compiling process stopped (exit status {code})"
        )
        return
    _load(folder, compiled=time.monotonic() - _started_at, attempt=attempt)


def _load(folder: Path, compiled: float | None = None, attempt: int = 0) -> None:
    """Load the kernels from the complete folder, by running the warm-up fits here.

    Nothing is compiled in this process: a kernel missing from the folder (filled by a
    process whose warm-up differed, say) sends the work to a compiling child instead.
    """
    global _state
    from engine.compiling.warmup import warm_up
    from engine.fast.compile import cache
    from engine.fast.compile.jit import NotCached, loading_only

    token = _warming.set(True)
    try:
        with loading_only():
            warm_up()
            for extra in _load_extra:
                extra()
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
        _compile_then_load(folder, attempt + 1)
        return
    except Exception as err:  # noqa: BLE001 - any failure means: run the kernels uncompiled
        _fail(f"loading the compiled kernels failed: {err}")
        return
    finally:
        _warming.reset(token)
    cache.mark_used(folder)
    if compiled is not None:  # told before fits go on, so that the news comes first
        _tell(
            Notice(
                "ready",
                f"the fast split search is compiled ({compiled:.0f} s); fits use it from now on",
                seconds=compiled,
            )
        )
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
        _tell(
            Notice(
                "failed",
                f"could not compile the fast split search ({reason}); "
                "fits run it uncompiled, far more slowly",
            )
        )
    _settled.set()


def _tell(notice: Notice) -> None:
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        with contextlib.suppress(Exception):  # a listener's bug must not stop the compilation
            listener(notice)


def _run_child() -> int | None:
    """Run the compiling child and wait for it, passing on its progress; its exit status
    (None if it could not start)."""
    global _child
    root = str(Path(__file__).resolve().parents[2])  # the same sources as this process
    env = dict(os.environ, **{_PARENT: str(os.getpid())})
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    flags = getattr(subprocess, "CREATE_NO_WINDOW", 0)  # no console window on Windows
    try:
        child = subprocess.Popen(
            # By module name, not an import: the whole warm-up includes the fits over
            # partitions, which are engine.scale's, a stage far above this one.
            [sys.executable, "-m", "engine.compile_child"],
            cwd=root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            creationflags=flags,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    with _lock:
        _child = child
        closing = _closing
    if closing:
        _stop(child)
    try:
        for line in child.stdout:
            word, _, count = line.decode("ascii", "replace").partition(" ")
            if word == _PROGRESS and count.strip().isdigit():
                _progress(int(count))
        return child.wait()
    finally:
        with _lock:
            _child = None
        for pipe in (child.stdin, child.stdout):
            with contextlib.suppress(OSError):
                pipe.close()


def _stop(child: subprocess.Popen) -> None:
    with contextlib.suppress(OSError):
        child.kill()
    with contextlib.suppress(Exception):
        child.wait(timeout=10)


# ---------------------------------------------------------------------- the child


def child_main(warm_ups: tuple[Callable[[], None], ...]) -> None:
    """The compiling child (:mod:`engine.compile_child`): compile every kernel into the shared
    folder by running ``warm_ups``, unless another process did meanwhile (the lock makes it
    wait for that one)."""
    _follow_parent()
    from engine.fast.compile import cache

    folder = cache.kernel_folder()
    with cache.folder_lock(folder):
        if cache.is_complete(folder):
            return
        started, cpu = time.monotonic(), time.process_time()
        whole = cache.is_empty(folder)  # not finishing a compilation stopped halfway
        _warming.set(True)
        try:
            with _counting_kernels() as count:
                for warm_up in warm_ups:
                    warm_up()
        except Exception:
            cache.mark_failed(folder, traceback.format_exc(limit=-6))
            raise SystemExit(1) from None
        cache.mark_complete(
            folder, time.monotonic() - started, time.process_time() - cpu, count(), whole
        )
    with contextlib.suppress(OSError):
        cache.remove_unused(folder)


@contextlib.contextmanager
def _counting_kernels():
    """Print a line to standard output (the parent's pipe) each time numba has compiled one
    of Arbor's kernels; yields a function giving the count."""
    import numba.core.event

    done = [0]

    class Counter(numba.core.event.Listener):
        def on_start(self, event):
            pass

        def on_end(self, event):
            if (event.data["dispatcher"].py_func.__module__ or "").startswith("engine."):
                done[0] += 1
                with contextlib.suppress(OSError, ValueError):
                    print(_PROGRESS, done[0], flush=True)

    with numba.core.event.install_listener("numba:compile", Counter()):
        yield lambda: done[0]


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
