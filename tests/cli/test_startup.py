"""What the command line imports to start (issue 28): ``--help`` answers without numpy, pandas
or numba, a fit on a bundled sample without numba or Dask, and a mistyped sub-command is
refused instead of opening the window. What is imported is asserted, never how long it took.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import main
from cli import COMMANDS
from cli.main import build_parser, command_names
from tests.cli.conftest import run_fresh, run_script


def fresh(tmp_path: Path, *argv: str) -> tuple[int, set[str], subprocess.CompletedProcess]:
    """``main.main(argv)`` in a new interpreter: exit status, top-level packages imported, output."""
    code, modules, out = run_fresh(tmp_path, *argv)
    return code, {name.split(".")[0] for name in modules}, out


HEAVY = {
    "numpy",
    "pandas",
    "numba",
    "llvmlite",
    "dask",
    "distributed",
    "pyarrow",
    "networkx",
    "openpyxl",
    "scipy",
    "PySide6",
    "matplotlib",
}


HELPS = (("--help",), ("train", "--help"), ("evaluate", "--help"))

#: main.py run as a script with each argument list of argv[2] in turn, in one fresh
#: interpreter (one each cost 0.2 s of CPU more); writes each one's exit status and output,
#: and every module imported once they all ran.
EACH = """\
import contextlib, io, json, runpy, sys
report, runs = sys.argv[1], []
for argv in json.loads(sys.argv[2]):
    sys.argv, out = ["main.py", *argv], io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path("main.py", run_name="__main__")
    except SystemExit as done:
        runs.append([done.code, out.getvalue()])
with open(report, "w") as f:
    json.dump({"runs": runs, "modules": sorted(sys.modules)}, f)
"""


@pytest.fixture(scope="module")
def helps(tmp_path_factory) -> dict:
    """Every ``--help`` of :data:`HELPS` in one fresh interpreter: ``{argv: (exit status,
    stdout)}``, and ``None``: the top-level packages imported once all of them answered."""
    report = tmp_path_factory.mktemp("helps") / "helps.json"
    result, out = run_script(EACH, report, json.dumps(HELPS))
    assert len(result["runs"]) == len(HELPS), out.stderr
    return {
        **{argv: tuple(run) for argv, run in zip(HELPS, result["runs"], strict=True)},
        None: {name.split(".")[0] for name in result["modules"]},
    }


@pytest.mark.parametrize("argv", HELPS)
def test_help_imports_no_numpy_pandas_or_numba(helps, argv):
    """(What all three imported: none of them may import what the tests forbid.)"""
    code, stdout = helps[argv]
    assert code == 0 and "usage: arbor" in stdout
    loaded = helps[None]
    assert not loaded & HEAVY, sorted(loaded & HEAVY)


def test_a_fit_on_a_bundled_sample_imports_no_numba_or_dask(weather_fit):
    """A tiny fit runs the kernels' Python source: numba and the compiled kernels cost more
    to load than the fit takes (engine.growth.compiled_kernels_ready)."""
    code, modules, out = weather_fit
    loaded = {name.split(".")[0] for name in modules}
    assert code == 0, out.stderr
    assert "Number of Leaves  : \t5" in out.stdout
    unwanted = {"numba", "llvmlite", "dask", "distributed", "networkx", "PySide6", "matplotlib"}
    assert not loaded & unwanted, sorted(loaded & unwanted)


def _refused(capsys, *argv: str) -> str:
    """``main.main(argv)`` in this process, refused by the parser: what it said on stderr.
    (What a refusal imports, which only a fresh interpreter shows, is checked on "sumary".)"""
    with pytest.raises(SystemExit) as refusal:
        main.main(list(argv))
    assert refusal.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    return err


def test_a_mistyped_command_is_refused_not_opened_in_the_window(tmp_path, capsys):
    code, loaded, out = fresh(tmp_path, "sumary")
    assert code == 2 and out.stdout == ""
    assert "arbor: error: argument COMMAND: invalid choice: 'sumary'" in out.stderr
    assert "PySide6" not in loaded and "gui" not in loaded
    assert "did you mean 'train'?" in _refused(capsys, "trian", "--sample", "weather")


def test_a_commands_option_before_any_command_says_where_it_goes(capsys):
    """``main.py --sample iris`` had been refused as "invalid choice: 'iris'"."""
    err = _refused(capsys, "--sample", "iris")
    assert "--sample is an option of a command (" in err and "train" in err
    assert "put the command first, e.g. 'python main.py train --sample iris'" in err
    assert "invalid choice" not in err
    assert "--max-depth=3 is" not in _refused(capsys, "--max-depth=3", "x.csv")  # its name only
    assert "unrecognized arguments" in _refused(capsys, "--no-such-option")


def test_a_missing_file_is_refused_and_an_existing_one_opens_the_window(tmp_path, capsys):
    data = tmp_path / "weather.csv"
    assert not main.opens_window([str(data)])  # so main.main refuses it, not opens a window
    err = _refused(capsys, str(data))
    assert "nor is there such a file to open in the window" in err
    data.write_text("a,b\n1,x\n")
    assert main.opens_window([str(data)]) and main.opens_window([])
    assert not main.opens_window(["train", str(data)]) and not main.opens_window(["--help"])


def test_main_knows_every_sub_command_the_parser_has():
    assert set(COMMANDS) == set(command_names(build_parser())) == main.SUBCOMMANDS


def test_training_on_a_sample_imports_only_what_it_runs(weather_fit):
    """``train --sample weather`` (issue 39: at most 0.5 s warm) loads the learner and the
    text it prints, nothing else: no compiler, no optional library, and none of the engine's
    parts for evaluating, exporting to files or training over partitions. pyarrow is not
    listed: pandas imports it itself when it is installed."""
    code, modules, out = weather_fit
    assert code == 0, out.stderr
    packages = {name.split(".")[0] for name in modules}
    unwanted = {
        "numba",
        "llvmlite",
        "scipy",
        "sklearn",
        "openpyxl",
        "networkx",
        "dask",
        "distributed",
        "PySide6",
        "pyqtgraph",
        "matplotlib",
        "gui",
    }
    assert not packages & unwanted, sorted(packages & unwanted)
    parts = (
        "engine.evaluate",
        "engine.scale",
        "engine.export.dot",
        "engine.export.graph",
        "engine.export.pmml",
        "engine.export.python_code",
        "engine.export.tidy_tree",
        "engine.compiling.warmup",
        "engine.sklearn",
        "engine.project",
        "engine.runs",
    )
    loaded = sorted(m for m in modules if m.startswith(parts))
    assert not loaded, loaded
