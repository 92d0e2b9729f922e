"""Compiling the numba kernels: once per installation, in a child process, never blocking.

A fit asks :func:`wait_until_compiled`; the first one on an installation starts the
compilation and grows with the numpy loop if it is not ready within its patience.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from engine.fast import NUMBA_INSTALLED
from engine.monitor import Monitor

#: A fit waits this long for the kernels' first compilation, then grows with the numpy loop.
COMPILE_PATIENCE = 5.0

_compiled = threading.Event()
_broken = threading.Event()
_warming_lock = threading.Lock()
_warming: list[threading.Thread] = []


def wait_until_compiled(monitor: Monitor, patience: float | None = None) -> bool:
    """Make sure the kernels are compiled (or loaded from numba's cache), staying cancellable.

    The first fit on an installation compiles them once (half a minute or so; numba
    caches the result beside the sources, and later processes load it in about half a
    second). That happens in a background thread while this one keeps calling
    ``monitor.check()``. Waits at most ``patience`` seconds (None: until done). False if
    the kernels are not ready by then or cannot be compiled here: the caller then grows
    with the numpy loop, and the compilation goes on for the fits that follow.
    """
    if _compiled.is_set():
        return True
    with _warming_lock:
        if not _warming and not _broken.is_set():
            thread = threading.Thread(target=_warm_up, name="arbor-compile", daemon=True)
            _warming.append(thread)
            thread.start()
    monitor.report(0.0, "preparing the compiled split search (once per installation)")
    deadline = None if patience is None else time.monotonic() + patience
    while not (_compiled.wait(0.05) or _broken.is_set()):
        monitor.check()
        if deadline is not None and time.monotonic() > deadline:
            return False
    return _compiled.is_set()


def compile_kernels() -> bool:
    """Compile (or load) the kernels now, blocking: for benchmarks and tests."""
    return NUMBA_INSTALLED and wait_until_compiled(Monitor())


def _warm_up() -> None:
    """Compile every kernel by growing two tiny trees (exact and histogram).

    The compiling itself happens first in a child process: numba holds the interpreter
    for much of its half minute, which would stall the window (and the numpy loop a fit
    runs meanwhile). The child writes numba's cache; here the kernels then load from it
    in about half a second. If the child cannot run, they compile here as before.
    """
    _compile_in_child()
    from engine.data.encoding import Attribute, Encoded, Schema
    from engine.fast import builder
    from engine.learn.problem import Problem
    from engine.settings import resolve

    try:
        rng = np.random.default_rng(0)
        X = np.column_stack([rng.normal(size=64), rng.integers(0, 3, 64)]).astype(np.float64)
        schema = Schema((Attribute("x", "numeric"), Attribute("c", "nominal", ("a", "b", "c"))),
                        "y", ("p", "q"))
        data = Encoded(schema, np.asfortranarray(X), (X[:, 0] > 0).astype(np.intp), np.ones(64))
        rows, weights = np.arange(64), np.full(64, 0.5)
        for splitter in ("exact", "histogram"):
            problem = Problem(data, resolve(algorithm="c45", prune="none", splitter=splitter))
            builder._grow(problem, splitter, rows, weights, 0, frozenset(), Monitor())
        _compiled.set()
    except Exception:  # noqa: BLE001 - any failure means: stay with the numpy loop
        _broken.set()


_CHILD_FLAG = "ARBOR_COMPILING_CHILD"


def _compile_in_child() -> None:
    if os.environ.get(_CHILD_FLAG):
        return  # this is the child: compile right here
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, **{_CHILD_FLAG: "1"})
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    with contextlib.suppress(OSError, subprocess.SubprocessError):  # then compile here
        subprocess.run([sys.executable, "-c", "from engine.fast.compile import compile_kernels; compile_kernels()"],
                       cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=900, check=False)
