"""A new user's first runs: a fresh clone in a fresh venv, the one-time compilation, the first
``train`` of a 200,000-row file against scikit-learn, and a second clone that reuses the kernels.

    python benchmarks/bench_first_run.py                 # fresh venvs (pip installs; ~10 min)
    python benchmarks/bench_first_run.py --this-python   # clones only, this interpreter (~3 min)

Steps, each a new process, timed from outside (so interpreter start and imports count):

1. ``git clone`` this repository's committed HEAD to ``<work>/first`` and make a venv with
   ``pip install -e '.[test]'`` (or, with ``--this-python``, run the clone with this interpreter);
2. with an empty cache folder (``ARBOR_CACHE_DIR=<work>/cache``: a machine that never ran Arbor),
   ``python main.py compile``;
3. ``python main.py train big.csv --algorithm cart --prune none --max-depth 12`` (unpruned, as
   scikit-learn's default) against a script that
   reads the same CSV with pandas and fits scikit-learn's ``DecisionTreeClassifier(max_depth=12)``,
   three times each, interleaved; the ratio of medians;
4. a second clone at another path (another venv) runs ``compile`` and ``train``: it must find the
   kernels compiled (stderr says nothing about compiling);
5. after every command, no process of ours is left (no compiling child, nothing whose
   parent died).

Data: bench_cart.py's generator (10 numeric + 5 ordinal-coded attributes, 3 noisy classes).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SKLEARN = """
import sys, time
import pandas as pd
from sklearn.tree import DecisionTreeClassifier
frame = pd.read_csv(sys.argv[1])
X, y = frame.drop(columns="y").to_numpy(), frame["y"].to_numpy()
tree = DecisionTreeClassifier(max_depth=12, random_state=0).fit(X, y)
print(tree.get_n_leaves())
"""


def run(cmd, cwd, env, label: str) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    out = subprocess.run(
        cmd,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    seconds = time.perf_counter() - started
    if out.returncode != 0:
        raise SystemExit(f"{label} failed ({out.returncode}):\n{out.stderr[-3000:]}")
    left = leftovers()
    if left:
        raise SystemExit(f"{label} left processes running: {left}")
    return seconds, out


def leftovers() -> list[str]:
    """Arbor processes still running: compiling children, and our children's orphans."""
    time.sleep(0.5)  # a dying child needs a moment to be reaped
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (proc / "stat").read_text().split(")")[-1].split()
        except OSError:
            continue
        if (
            state[0] != "Z"
            and ("child_main" in cmd or "main.py" in cmd)
            and WORK
            and str(WORK) in _cwd(proc)
        ):
            found.append(f"{proc.name}: {cmd.strip()}")
    return found


def _cwd(proc: Path) -> str:
    try:
        return os.readlink(proc / "cwd")
    except OSError:
        return ""


def clone(target: Path, fresh_venv: bool) -> tuple[Path, str]:
    """A clone of HEAD at ``target`` and the Python that runs it."""
    subprocess.run(["git", "clone", "-q", str(ROOT), str(target)], check=True)
    if not fresh_venv:
        return target, sys.executable
    venv = target.parent / f"{target.name}-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", "-e", ".[test]"], cwd=target, check=True)
    return target, python


WORK: Path | None = None


def main() -> None:
    global WORK
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--this-python", action="store_true", help="no venvs: this interpreter")
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    WORK = Path(tempfile.mkdtemp(prefix="arbor-first-run-"))
    try:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from bench_cart import make_data

        _, _, frame = make_data(args.rows)
        data = WORK / "big.csv"
        frame.to_csv(data, index=False)
        env = dict(os.environ, ARBOR_CACHE_DIR=str(WORK / "cache"), QT_QPA_PLATFORM="offscreen")
        env.pop("PYTHONPATH", None)
        fresh = not args.this_python

        started = time.perf_counter()
        first, python = clone(WORK / "first", fresh)
        print(
            f"clone{' + venv + pip install' if fresh else ''}: {time.perf_counter() - started:.0f} s"
        )
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        seconds, out = run([python, "main.py", "compile"], first, env, "compile")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the compiling child included
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        print(
            f"one-time compile: {seconds:.1f} s wall, {cpu:.1f} s CPU  "
            f"({out.stdout.splitlines()[0]})"
        )

        def train_with(py):
            return [
                py,
                "main.py",
                "train",
                str(data),
                "--algorithm",
                "cart",
                "--prune",
                "none",
                "--max-depth",
                "12",
            ]

        train = train_with(python)
        sk = [python, "-c", SKLEARN, str(data)]
        ours, theirs = [], []
        for i in range(args.runs):
            seconds, out = run(train, first, env, "train")
            ours.append(seconds)
            if i == 0 and "compil" in out.stderr:
                raise SystemExit(f"the first train compiled: {out.stderr}")
            theirs.append(run(sk, first, env, "scikit-learn")[0])
        print(
            f"train (process, CSV read, fit, print): {statistics.median(ours):.2f} s; first "
            f"{ours[0]:.2f} s; scikit-learn (process, pandas read, fit): "
            f"{statistics.median(theirs):.2f} s; ratio {statistics.median(ours) / statistics.median(theirs):.2f}x "
            f"(first: {ours[0] / statistics.median(theirs):.2f}x)"
        )

        second, python2 = clone(WORK / "second-clone", fresh)
        seconds, out = run([python2, "main.py", "compile"], second, env, "compile (second clone)")
        print(f"second clone, compile: {seconds:.1f} s  ({out.stdout.splitlines()[0]})")
        seconds, out = run(train_with(python2), second, env, "train (second clone)")
        assert "compil" not in out.stderr, out.stderr
        print(
            f"second clone, first train: {seconds:.2f} s, nothing compiled; no process left after "
            "any command"
        )
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
