"""The kernels compile in a child process, so a window or a fit keeps the interpreter meanwhile."""

import os
import subprocess
from pathlib import Path

from engine.fast import compile as fastpath


def test_the_child_gets_the_sources_and_a_flag_and_does_not_recurse(monkeypatch):
    calls = []
    monkeypatch.setattr(fastpath.subprocess, "run", lambda args, **kw: calls.append((args, kw)))
    monkeypatch.delenv(fastpath._CHILD_FLAG, raising=False)
    fastpath._compile_in_child()
    (args, kw), = calls
    root = str(Path(fastpath.__file__).resolve().parents[2])
    assert "compile_kernels()" in args[-1] and kw["cwd"] == root
    assert kw["env"][fastpath._CHILD_FLAG] == "1" and kw["env"]["PYTHONPATH"].split(os.pathsep)[0] == root
    assert kw["stdin"] is subprocess.DEVNULL  # CI has no standard input
    monkeypatch.setenv(fastpath._CHILD_FLAG, "1")
    fastpath._compile_in_child()
    assert len(calls) == 1


def test_a_child_that_cannot_start_is_not_an_error(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("no such interpreter")

    monkeypatch.setattr(fastpath.subprocess, "run", refuse)
    monkeypatch.delenv(fastpath._CHILD_FLAG, raising=False)
    fastpath._compile_in_child()  # the kernels then compile in this process
