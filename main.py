"""Arbor: with no arguments (or just a file to open) the window; with a sub-command the CLI."""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading

from cli import COMMANDS

#: The command line's sub-commands (``cli.COMMANDS``, which a test keeps equal to the parser's).
SUBCOMMANDS = frozenset(COMMANDS)


def opens_window(argv: list[str]) -> bool:
    """No arguments, or an existing file (a table, model or project) to open: the window.

    Anything else is the command line's, a mistyped sub-command included: it is refused
    there with a suggestion ("did you mean"), not taken for a file the window cannot open.
    """
    if not argv:
        return True
    first = argv[0]
    return first not in SUBCOMMANDS and not first.startswith("-") and os.path.exists(first)


#: The exit status of a run stopped by Ctrl-C (128 + SIGINT), as the command line gives it.
EXIT_INTERRUPTED = 130


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        return _run(argv)
    except KeyboardInterrupt:
        # Ctrl-C while the imports run (the first second or so), before the command line's
        # own handler is in place: the same line and status as later, not a traceback.
        command = argv[0] if argv and argv[0] in SUBCOMMANDS else None
        print(f"arbor {command}: interrupted" if command else "arbor: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _run(argv: list[str]) -> int:
    if not opens_window(argv):
        from cli.main import main as cli_main

        return cli_main(argv)
    from gui.display_check import display_problem

    problem = display_problem()
    if problem:
        print(
            f"arbor: cannot open the window: {problem}. The command line works without one: "
            "python main.py --help",
            file=sys.stderr,
        )
        return 2
    try:
        from gui.app import run
    except ImportError as err:
        print(
            f"arbor: cannot open the window: {err}\n(the command line works without it: "
            "arbor --help)",
            file=sys.stderr,
        )
        return 2
    return run(argv)


def entry() -> None:
    """``python main.py`` and the ``arbor`` script: :func:`main`, then the exit (:func:`leave`
    after a command)."""
    argv = sys.argv[1:]
    status = main(argv)
    if opens_window(argv):
        sys.exit(status)
    leave(status)


def leave(status: int) -> None:
    """End the process as Python's own exit would, but without tearing the interpreter down.

    After a command, unloading every module (pandas and pyarrow above all) took 0.08-0.14 s
    of the 0.5 s that ``train --sample weather`` takes. What the exit does that a command's
    user can tell still happens: the exit functions run and the output is flushed. Where
    other work may still be going (a thread, a child process, a Dask cluster) the usual
    exit waits for it as always.
    """
    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    busy = any(not t.daemon for t in others)
    children = "multiprocessing" in sys.modules and sys.modules["multiprocessing"].active_children()
    if busy or children or "distributed" in sys.modules or not isinstance(status, int):
        sys.exit(status)
    atexit._run_exitfuncs()  # noqa: SLF001 - what the interpreter's exit runs first
    for stream in (sys.stdout, sys.stderr):
        # None: started without the stream; an error: a closed pipe. Nothing can reach it.
        with contextlib.suppress(OSError, ValueError):
            if stream is not None:
                stream.flush()
    os._exit(status & 0xFF)  # as sys.exit gives a status outside 0-255


if __name__ == "__main__":
    entry()
