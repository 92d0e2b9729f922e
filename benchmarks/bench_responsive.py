"""The window while it trains: how often its event loop turns, and the longest it is held.

    python benchmarks/bench_responsive.py                        # 100,000 rows, CART to depth 8
    python benchmarks/bench_responsive.py --rows 300000 --depth 0 --runs 3
    python benchmarks/bench_responsive.py --rows 1000000 --edit     # a cell changed first

A real window (offscreen) opens a generated table (8 numeric attributes, 2 noisy classes:
the table tests/gui/test_window.py used to time) and trains CART unpruned without
cross-validation, as Train does, while a timer on the GUI thread asks to fire every
``--tick`` ms. Printed per run: the training's wall time, how many times the timer fired,
and the median and longest gap between two firings (the longest the window could not
answer a click). Nothing is asserted: the tests check only that the training runs on a
worker thread while the event loop turns (tests/gui/test_window.py), never how often.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def make_table(rows: int):
    import numpy as np
    import pandas as pd

    from engine.data.table import make_table as table_of

    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, 8))
    y = np.where(X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(0, 1, rows) > 0, "a", "b")
    return table_of(pd.DataFrame(X, columns=[f"x{i}" for i in range(8)]).assign(y=y))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=8, help="max depth (0: fully grown)")
    parser.add_argument("--tick", type=int, default=20, help="the timer's interval in ms")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--edit", action="store_true", help="change a cell (through undo) before each Train"
    )
    args = parser.parse_args()

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from engine.compiling.lifecycle import compile_kernels
    from gui.main_window import MainWindow
    from gui.table.table_commands import SetCellCommand

    compile_kernels()
    app = QApplication.instance() or QApplication([])
    settings = QSettings(str(Path(tempfile.mkdtemp()) / "arbor.ini"), QSettings.Format.IniFormat)
    win = MainWindow(settings)
    win.resize(1280, 720)
    win.show()
    win.doc.load(make_table(args.rows), None)
    win.config.algorithm.set_value("cart")
    win.config.prune.set_value("none")
    win.config.max_depth.setValue(args.depth)
    win.config.cv_folds.setValue(0)
    print(
        f"{args.rows:,} rows, CART unpruned, max depth {args.depth or 'none'}, "
        f"a {args.tick} ms timer on the GUI thread"
        + (", a cell edited before each Train" if args.edit else "")
    )
    for run in range(1, args.runs + 1):
        edit = 0.0
        if args.edit:  # as typing into the Data panel does; pandas copies the column
            start = time.perf_counter()
            win.doc.undo_stack.push(SetCellCommand(win.doc, run, 2, 0.25 * run))
            edit = time.perf_counter() - start
            app.processEvents()
        fired: list[float] = []
        timer = QTimer()
        timer.timeout.connect(lambda fired=fired: fired.append(time.perf_counter()))
        start = time.perf_counter()
        job = win.train()
        if job is None:
            raise SystemExit("training did not start")
        timer.start(args.tick)
        while not job.done or win.controller.busy:
            app.processEvents()
            time.sleep(0.001)
        timer.stop()
        took = time.perf_counter() - start
        gaps = [b - a for a, b in zip([start, *fired], fired, strict=False)]
        median = statistics.median(gaps) * 1000 if gaps else float("nan")
        longest = max(gaps) * 1000 if gaps else took * 1000
        print(
            f"  run {run}: trained in {took:5.2f} s; timer fired {len(fired)} times, "
            f"gap median {median:5.1f} ms, longest {longest:6.1f} ms"
            + (f"; the edit took {edit * 1000:.0f} ms" if args.edit else ""),
            flush=True,
        )
        while win.controller.busy:
            app.processEvents()
    win.doc.undo_stack.setClean()
    win.close()


if __name__ == "__main__":
    main()
