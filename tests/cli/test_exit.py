"""How a command's process ends (``main.leave``): without the interpreter's teardown, but with
its exit status, its exit functions and every line it printed; and as usual while other
work of the process still runs."""

from __future__ import annotations

import subprocess
import sys

from tests.cli.conftest import ROOT


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_status_the_exit_functions_and_the_output_are_kept():
    out = _python(
        "import atexit, sys, main\n"
        "atexit.register(lambda: print('exit functions ran', file=sys.stderr))\n"
        "print('a line', end='')\n"  # still in the buffer: no newline, not a terminal
        "main.leave(3)\n"
    )
    assert (out.returncode, out.stdout, out.stderr) == (3, "a line", "exit functions ran\n")


def test_a_status_outside_0_255_ends_as_sys_exit_would():
    assert _python("import main; main.leave(-1)").returncode == 255


def test_a_running_thread_is_waited_for_as_usual():
    out = _python(
        "import threading, time, main\n"
        "def late():\n"
        "    time.sleep(0.3)\n"
        "    print('the thread finished')\n"
        "threading.Thread(target=late).start()\n"
        "main.leave(0)\n"
    )
    assert (out.returncode, out.stdout) == (0, "the thread finished\n")


def test_a_command_run_as_a_script_prints_all_of_its_result():
    out = _python(
        "import sys, runpy\n"
        "sys.argv = ['main.py', 'train', '--sample', 'weather']\n"
        "runpy.run_path('main.py', run_name='__main__')\n"
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.rstrip().endswith("Training accuracy: 100.00%")
