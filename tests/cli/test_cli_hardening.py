"""Issue 31 ("Hardening, round three"), items 4, 5, 8, 9 and 11: numbers that are finite but
overflow, a model or project holding a lone surrogate, no stdout (closed, or a full disk),
Ctrl-C while the imports run, and a full disk under an xlsx of predictions. Each ends in one
line on stderr and a non-zero exit status, never a traceback."""

from __future__ import annotations

import errno
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli.main import EXIT_NO_OUTPUT, main
from engine.data.encoding import encode
from engine.data.table import make_table
from engine.errors import ArborError

ROOT = Path(__file__).resolve().parents[2]


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert len(err.strip().splitlines()) == 1, err
    return err


def _csv(tmp_path: Path, name: str, frame: pd.DataFrame) -> str:
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


# ------------------------------------------------------------- 4. finite numbers that overflow
def _huge_target(tmp_path: Path) -> str:
    rng = np.random.default_rng(1)
    return _csv(
        tmp_path,
        "d06b_1e308_regress.csv",
        pd.DataFrame(
            {
                "a": np.arange(20.0),
                "b": rng.choice(["p", "q"], 20),
                "y": rng.choice([1.7e308, -1.7e308, 1.0], 20),
            }
        ),
    )


@pytest.mark.parametrize(
    "command",
    [
        ["train", "--task", "regression", "--algorithm", "cart"],
        ["evaluate", "--task", "regression", "--algorithm", "cart", "--folds", "3"],
        ["path", "--task", "regression"],
    ],
)
def test_a_regression_target_whose_squares_overflow_is_refused(tmp_path, capsys, command):
    data = _huge_target(tmp_path)
    with np.errstate(all="raise"):  # and no overflow warning on the way
        assert main([command[0], data, *command[1:]]) == 2
    assert "the target 'y' has the value" in _one_line(capsys)


def test_the_target_limit_shrinks_with_the_rows_and_large_targets_within_it_fit(tmp_path, capsys):
    frame = pd.DataFrame({"a": np.arange(40.0), "y": np.linspace(-1e74, 1e74, 40)})
    with np.errstate(over="raise"):
        for command in ("train", "evaluate", "path"):
            assert (
                main(
                    [
                        command,
                        _csv(tmp_path, "ok.csv", frame),
                        "--task",
                        "regression",
                        "--algorithm",
                        "cart",
                        "--json",
                    ]
                )
                == 0
            )
            assert "Warning" not in capsys.readouterr().err
        assert (
            main(
                [
                    "train",
                    _csv(tmp_path, "ok.csv", frame),
                    "--task",
                    "regression",
                    "--algorithm",
                    "cart",
                    "--json",
                ]
            )
            == 0
        )
    assert json.loads(capsys.readouterr().out)["n_leaves"] >= 1
    with pytest.raises(ArborError, match=r"over 40 rows must stay within"):
        encode(make_table(frame.assign(y=frame.y * 1e2), target="y"), "regression")


@pytest.mark.parametrize("algorithm", ["c45", "cart"])
@pytest.mark.parametrize("command", ["train", "evaluate", "path"])
def test_a_numeric_attribute_near_the_largest_float_is_refused(
    tmp_path, capsys, algorithm, command
):
    if command == "path" and algorithm != "cart":
        pytest.skip("the pruning path is CART's")
    rng = np.random.default_rng(2)
    data = _csv(
        tmp_path,
        "bigx.csv",
        pd.DataFrame(
            {
                "a": rng.choice([1.7e308, -1.7e308, 1.6e308, 1.0, -1.5e308], 30),
                "b": rng.choice(["p", "q"], 30),
                "c": rng.choice(["x", "y"], 30),
            }
        ),
    )
    extra = ["--folds", "3"] if command == "evaluate" else []
    assert main([command, data, "--algorithm", algorithm, *extra]) == 2
    assert "column 'a' has the value" in _one_line(capsys)


def test_large_attributes_within_the_limit_still_split(tmp_path, capsys):
    data = _csv(
        tmp_path,
        "large.csv",
        pd.DataFrame(
            {
                "a": [1e299, 2e299, 3e299, 4e299, -1e299, -2e299] * 3,
                "c": ["x", "x", "x", "y", "y", "y"] * 3,
            }
        ),
    )
    with np.errstate(over="raise"):
        assert main(["train", data, "--algorithm", "c45", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_leaves"] >= 2


# ------------------------------------------------------------ 5. a lone surrogate in a file
def test_a_model_with_a_lone_surrogate_is_refused_when_read(tmp_path, capsys):
    model = tmp_path / "m.json"
    assert main(["train", "--sample", "weather", "--save", str(model)]) == 0
    capsys.readouterr()
    doc = json.loads(model.read_text())
    doc["target"] = "\ud800"
    model.write_text(json.dumps(doc))  # json escapes it: "\ud800", valid JSON
    assert main(["predict", str(model), "--sample", "weather"]) == 2
    assert "not valid Unicode" in _one_line(capsys)


def test_a_project_with_a_lone_surrogate_is_refused_when_read(tmp_path):
    from engine.project import Project, load_project, save_project

    table = make_table(pd.DataFrame({"a": ["x", "y"], "c": ["p", "q"]}))
    path = tmp_path / "p.arbor"
    save_project(Project(table), path)
    path.write_text(path.read_text().replace('"a"', '"a\\udc80"'))
    with pytest.raises(ArborError, match="not valid Unicode"):
        load_project(path)


# ------------------------------------------------------------------------ 8. no stdout
def _shell(command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )


def _refused_in_one_line(out: subprocess.CompletedProcess, fragment: str) -> None:
    assert out.returncode not in (0, None), out
    assert "Traceback" not in out.stderr and "Exception ignored" not in out.stderr, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], out.stderr


def test_a_closed_stdout_is_one_line(tmp_path):
    out = _shell(f"{sys.executable} main.py train --sample iris >&-")
    _refused_in_one_line(out, "arbor train: error: there is no standard output")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_stdout_is_one_line():
    """Refused at the flush (and again, without the fix, by Python's flush at exit: only a
    whole process shows that)."""
    out = _shell(f"{sys.executable} main.py train --sample iris > /dev/full")
    _refused_in_one_line(out, "cannot write the result to standard output: No space left")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_stdout_is_one_line_as_json(capsys, monkeypatch):
    """The same for the JSON, in this process: closing the file stands in for Python's flush
    of stdout at exit (what the fresh process above shows), and must find nothing left to
    write there."""
    with open("/dev/full", "w") as full:  # (its descriptor is the one pointed at nothing)
        monkeypatch.setattr(sys, "stdout", full)
        assert main(["train", "--sample", "iris", "--json"]) == EXIT_NO_OUTPUT
        monkeypatch.undo()
    assert "cannot write the result to standard output: No space left" in _one_line(capsys)


# ------------------------------------------------------------- 9. Ctrl-C while importing
def test_ctrl_c_while_the_imports_run_is_one_line_and_130():
    """The signal lands after the interpreter's own start-up (its site module, which no code
    of ours can guard) and well inside the second or so the imports take."""
    for delay in (0.3, 0.6, 1.0):
        process = subprocess.Popen(
            [sys.executable, "main.py", "evaluate", "--sample", "iris", "--algorithm", "cart"],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(delay)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=300)
        if "init_import_site" in err:  # a loaded machine: still in Python's start-up; later
            continue
        if process.returncode == 0:  # finished before the signal: nothing to show, fine
            return
        assert process.returncode == 130, err
        assert "Traceback" not in err and err.strip() == "arbor evaluate: interrupted", err
        return
    pytest.skip("the interpreter's start-up outlasted every delay tried")


# --------------------------------------------------------- 11. a full disk under an xlsx
def test_an_xlsx_of_predictions_on_a_full_disk_is_one_line(tmp_path, capsys, monkeypatch):
    model = tmp_path / "m.json"
    assert main(["train", "--sample", "weather", "--save", str(model)]) == 0
    capsys.readouterr()

    def full(self, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", full)
    out = tmp_path / "p.xlsx"
    assert main(["predict", str(model), "--sample", "weather", "--output", str(out)]) == 2
    assert "No space left on device" in _one_line(capsys)
    assert not out.exists() and not list(tmp_path.glob(".p.xlsx*"))


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs RLIMIT_FSIZE (POSIX)")
def test_xlsx_files_on_a_full_disk_in_a_fresh_process(tmp_path):
    """The "Exception ignored" traceback came at exit, from a half-written zip file's
    clean-up: only a whole process shows it. A limit on file size stands in for the full
    disk: writes past 2,000 bytes fail (EFBIG) as they would with ENOSPC.

    One process for both xlsx writers (two cost a second of CPU more), each refusal on a
    line of its own: a table saved as .xlsx (the window's Save As), then an xlsx of
    predictions (the command line). The table is small: openpyxl stages each worksheet in a
    temporary file of its own, which the limit on file size would fail too (a full temporary
    folder is another case, not this one)."""
    model = tmp_path / "m.json"
    assert main(["train", "--sample", "weather", "--save", str(model)]) == 0
    table, predictions = tmp_path / "t.xlsx", tmp_path / "p.xlsx"
    script = (
        "import resource, signal, sys\n"
        "import numpy as np, pandas as pd\n"
        "import main\n"
        "from engine.data.io import write_table\n"
        "from engine.data.table import make_table\n"
        "from engine.errors import ArborError\n"
        "table = make_table(pd.DataFrame({'a': np.arange(6.0), 'c': ['p', 'q'] * 3}))\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))\n"
        "try:\n"
        f"    write_table(table, {str(table)!r})\n"
        "except ArborError as err:\n"
        "    print(err, file=sys.stderr, flush=True)\n"
        "else:\n"
        "    sys.exit('the table was written')\n"
        f"sys.exit(main.main(['predict', {str(model)!r}, '--sample', 'weather', "
        f"'--output', {str(predictions)!r}]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert out.returncode not in (0, None), out
    assert "Traceback" not in out.stderr and "Exception ignored" not in out.stderr, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 2, out.stderr
    assert "File too large" in lines[0] and not lines[0].startswith("arbor"), out.stderr
    assert lines[1].startswith("arbor predict: ") and "File too large" in lines[1], out.stderr
    assert not table.exists() and not predictions.exists()
