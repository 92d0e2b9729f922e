"""Memory of a long session: the window's resident size after 1, 10 and 50 trainings.

    python benchmarks/bench_sessions.py                          # 20,000 and 1,000,000 rows
    python benchmarks/bench_sessions.py --rows 20000 --trainings 1,10,50
    python benchmarks/bench_sessions.py --open-close 10 --rows 1000000

A real window (offscreen) opens a generated table (5 numeric and 1 nominal attribute,
3 noisy classes: the table of issue 21) and trains it again and again with the same
options, as a person pressing F5 does; after each training the event loop runs until the
window is idle. The resident size (RSS) is read after the trainings asked for, and the rise
per training between the sixth training and the last is reported: the Runs list keeps the
trees of the newest five runs, so from the sixth training on a training that keeps only what
the window can still show adds nothing. With
``--open-close N`` the table is instead written to a CSV file, opened from it as File > Open
does and closed (a blank table) N times, and the resident size of the window with the table
open and closed is reported each time.

Each size runs in its own process, so one table's pages do not count against the other's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


#: From this training on the Runs list keeps as many trees as it ever will (engine.runs.KEEP_TREES).
FULL = 6


def make_frame(n: int, seed: int = 0):
    """5 numeric attributes, 1 nominal (4 values), 3 classes decided by a noisy rule."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    numeric = rng.normal(size=(n, 5)).round(3)
    nominal = rng.integers(0, 4, size=n)
    signal = numeric[:, 0] + numeric[:, 1] * numeric[:, 2] + 0.5 * (nominal == 1)
    y = np.digitize(signal + rng.normal(scale=0.8, size=n), [-0.6, 0.6])
    frame = pd.DataFrame(numeric, columns=[f"x{i}" for i in range(5)])
    frame["kind"] = pd.Categorical(np.array(["p", "q", "r", "s"])[nominal])
    frame["class"] = pd.Categorical(np.array(["a", "b", "c"])[y], categories=["a", "b", "c"])
    return frame


def resident_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _settle(app, seconds: float = 0.3) -> None:
    """Let the window go idle: queued slots, deferred deletes, the collector's timer."""
    import gc

    from PySide6.QtCore import QCoreApplication, QEvent

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        time.sleep(0.01)
    gc.collect()
    app.processEvents()


def _window():
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import tempfile

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from gui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    settings = QSettings(str(Path(tempfile.mkdtemp()) / "arbor.ini"), QSettings.Format.IniFormat)
    win = MainWindow(settings)
    win.resize(1280, 720)
    win.show()
    return app, win


def _train(app, win) -> None:
    job = win.train()
    if job is None:
        raise SystemExit("training did not start")
    while not job.done or win.controller.busy:
        app.processEvents()
        time.sleep(0.005)
    _settle(app)


def measure_trainings(rows: int, counts: list[int], folds: int) -> dict:
    from engine.compiling.lifecycle import compile_kernels
    from engine.data.table import make_table

    compile_kernels()
    app, win = _window()
    win.controller.load_table(
        make_table(make_frame(rows), target="class"), None, sample=f"{rows} rows"
    )
    win.config.cv_folds.setValue(folds)
    _settle(app)
    before = resident_mb()
    out, seconds = {"rows": rows, "table": before, "after": {}}, []
    for k in range(1, max(counts) + 1):
        start = time.perf_counter()
        _train(app, win)
        seconds.append(time.perf_counter() - start)
        if k in counts or k == FULL:
            out["after"][k] = resident_mb()
        print(
            f"training {k}: {resident_mb():.0f} MB, {seconds[-1]:.1f} s",
            file=sys.stderr,
            flush=True,
        )
    last = max(counts)
    out["per_training"] = (
        (out["after"][last] - out["after"][FULL]) / (last - FULL) if last > FULL else 0.0
    )
    out["seconds"] = sum(seconds) / len(seconds)
    return out


def measure_open_close(rows: int, times: int) -> dict:
    """Open the table from a CSV file as File > Open does (a big file is read on a worker
    thread), then close it (a blank table); the resident size each time it is closed."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="arbor-bench-sessions-"))
    try:
        path = folder / f"table-{rows}.csv"
        make_frame(rows).to_csv(path, index=False)
        app, win = _window()
        _settle(app)
        opened, closed = [], []
        for _ in range(times):
            if not win.files.open_path(str(path), confirmed=True):
                raise SystemExit(f"could not open {path}")
            while win.controller.busy or win.doc.path != str(path):
                app.processEvents()
                time.sleep(0.005)
            _settle(app)
            opened.append(resident_mb())
            win.controller.new_table()
            _settle(app)
            closed.append(resident_mb())
        return {"rows": rows, "opened": opened, "closed": closed}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _child(args) -> None:
    if args.open_close:
        result = measure_open_close(args.rows[0], args.open_close)
    else:
        result = measure_trainings(args.rows[0], args.trainings, args.folds)
    from PySide6.QtCore import QThreadPool

    QThreadPool.globalInstance().waitForDone()  # the views' background jobs, before the window goes
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows", default="20000,1000000", type=lambda s: [int(v) for v in s.split(",")]
    )
    parser.add_argument(
        "--trainings", default="1,10,50", type=lambda s: [int(v) for v in s.split(",")]
    )
    parser.add_argument(
        "--folds",
        type=int,
        default=0,
        help="cross-validation folds of each training (the window's default is 10; 0: off)",
    )
    parser.add_argument(
        "--open-close", type=int, default=0, help="open and close the table N times instead"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args)
        return
    for rows in args.rows:
        cmd = [
            sys.executable,
            __file__,
            "--child",
            "--rows",
            str(rows),
            "--trainings",
            ",".join(map(str, args.trainings)),
            "--folds",
            str(args.folds),
            "--open-close",
            str(args.open_close),
        ]
        done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)  # progress on stderr
        if done.returncode:
            raise SystemExit(done.returncode)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        if args.open_close:
            opened, closed = (
                ", ".join(f"{mb:.0f}" for mb in result[k]) for k in ("opened", "closed")
            )
            print(
                f"{rows:>9,} rows, File > Open of its CSV and close x{args.open_close}: "
                f"open {opened} MB; closed {closed} MB"
            )
            continue
        after = "  ".join(
            f"after {k}: {mb:6.0f} MB"
            for k, mb in sorted(result["after"].items(), key=lambda kv: int(kv[0]))
            if int(k) in args.trainings
        )
        print(
            f"{rows:>9,} rows: table open {result['table']:6.0f} MB  {after}  "
            f"rise per training after the 6th: {result['per_training']:+.2f} MB  "
            f"({result['seconds']:.2f} s a training)"
        )


if __name__ == "__main__":
    main()
