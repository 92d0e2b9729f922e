"""Fixtures for the command-line tests: ``main.py`` run as a script in a fresh interpreter,
with what it imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Runs main.py as the script it is (its ``__main__`` block: ``entry()``) with the arguments
#: in argv[2], in a fresh interpreter, and writes sys.modules as it exits: a command's exit
#: skips the interpreter's teardown (``main.leave``) but runs the exit functions.
PROBE = """\
import atexit, json, runpy, sys
report, sys.argv = sys.argv[1], ["main.py", *json.loads(sys.argv[2])]
def write():
    with open(report, "w") as f:
        json.dump({"modules": sorted(sys.modules)}, f)
atexit.register(write)
runpy.run_path("main.py", run_name="__main__")
print("main.py returned without exiting", file=sys.stderr)
"""


def run_script(script: str, report: Path, *args: str) -> tuple[dict, subprocess.CompletedProcess]:
    """``script`` in a new interpreter (from the repository's root, no input), given the
    path of the JSON ``report`` it writes and ``args``: the report, and the output."""
    out = subprocess.run(
        [sys.executable, "-c", script, str(report), *args],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert report.exists(), out.stderr
    return json.loads(report.read_text()), out


def run_fresh(folder: Path, *argv: str) -> tuple[int, set[str], subprocess.CompletedProcess]:
    """``python main.py ARGV`` in a new interpreter: exit status, every module imported,
    output."""
    result, out = run_script(PROBE, folder / "modules.json", json.dumps(argv))
    assert "main.py returned without exiting" not in out.stderr
    return out.returncode, set(result["modules"]), out


@pytest.fixture(scope="session")
def weather_fit(tmp_path_factory):
    """``python main.py train --sample weather`` in a fresh interpreter, once for the tests
    reading it (what a small fit imports, and that main.py runs the command line)."""
    return run_fresh(tmp_path_factory.mktemp("weather"), "train", "--sample", "weather")
