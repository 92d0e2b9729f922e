"""Opening and scrolling a big table: Arbor's reader and table view against plain pandas.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_table.py              # 1,000,000 rows
    QT_QPA_PLATFORM=offscreen python benchmarks/bench_table.py --rows 100000
    QT_QPA_PLATFORM=offscreen python benchmarks/bench_table.py --wide         # 6 x 5,000

A CSV of 10 numeric and 5 nominal columns plus a nominal class is written once to a
temporary folder. Reading: ``engine.data.io.read_table`` (kind inference, checks, the Table)
against ``pandas.read_csv`` of the same file, medians of the runs and the ratio. Showing:
the window's table panel over the loaded table, the time to its first paint, and the
median time of one scroll step (a page down, then a jump to a random row) with repaint,
beside the same panel over the first 1,000 rows (the ratio shows what the size costs);
sorting by a column and filtering rows, against the same in pandas on the table's frame.

``--wide``: a table at the column limit instead, 6 rows of 5,000 columns (half numbers, half
text; issue 31, item 12, where training it took 57 s): reading it against
``pandas.read_csv``, training it with C4.5 and CART (medians, after one warm-up fit that
loads the compiled kernels), and the table panel's first paint.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


def write_csv(path: Path, n: int) -> None:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(n, 10)).round(4), columns=[f"n{i}" for i in range(10)])
    for i in range(5):
        frame[f"c{i}"] = np.array(["red", "green", "blue", "amber", "violet"])[
            rng.integers(0, 5, n)
        ]
    frame["class"] = np.array(["a", "b", "c"])[rng.integers(0, 3, n)]
    frame.to_csv(path, index=False)


def write_wide_csv(path: Path, width: int = 5_000) -> None:
    """6 rows; rows 2k and 2k+1 differ only in ``key`` and the class (one informative column)."""
    pair = np.arange(6) // 2
    columns = {
        f"a{j}": [f"{(p * 7 + j) % 11 / 4:g}" if j % 2 else "xyz"[(p + j) % 3] for p in pair]
        for j in range(width - 2)
    }
    frame = pd.DataFrame(columns)
    frame.insert(width // 2, "key", ["p", "q"] * 3)
    frame["class"] = ["yes", "no"] * 3
    frame.to_csv(path, index=False)


def wide(app, runs: int) -> None:
    from engine import DecisionTree
    from engine.data.io import read_table

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "wide.csv"
        write_wide_csv(path)
        ours, theirs = [], []
        for _ in range(runs):
            start = time.perf_counter()
            pd.read_csv(path)
            theirs.append(time.perf_counter() - start)
            start = time.perf_counter()
            table = read_table(path)
            ours.append(time.perf_counter() - start)
        DecisionTree(algorithm="cart").fit(table)  # loads the compiled kernels
        fits = {}
        for algorithm in ("c45", "cart"):
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                DecisionTree(algorithm=algorithm).fit(table)
                times.append(time.perf_counter() - start)
            fits[algorithm] = statistics.median(times)
        shown, steps = show_and_scroll(app, table, str(path), horizontal=True)
    read, ref = statistics.median(ours), statistics.median(theirs)
    print(f"{table.frame.shape[0]} rows x {table.frame.shape[1]:,} columns")
    print(f"read: Arbor {read:.2f} s, pandas.read_csv {ref:.2f} s, ratio {read / ref:.2f}")
    print("fit: " + ", ".join(f"{a} {t:.2f} s" for a, t in fits.items()))
    print(
        f"table panel: first paint {shown:.2f} s; scroll step (a page of columns) median "
        f"{1000 * statistics.median(steps):.1f} ms, max {1000 * max(steps):.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--wide", action="store_true", help="6 rows x 5,000 columns instead")
    args = parser.parse_args()

    from PySide6.QtWidgets import QApplication

    from engine.data.io import read_table
    from engine.data.table import make_table

    app = QApplication.instance() or QApplication([])
    if args.wide:
        wide(app, args.runs)
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.csv"
        write_csv(path, args.rows)
        size_mb = path.stat().st_size / 2**20
        ours, theirs = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            pd.read_csv(path)
            theirs.append(time.perf_counter() - start)
            start = time.perf_counter()
            table = read_table(path)
            ours.append(time.perf_counter() - start)
        shown, steps = show_and_scroll(app, table, str(path))
        ops = sort_and_filter(table)
        small = make_table(table.frame.iloc[:1000], target=table.target, kinds=dict(table.kinds))
        _, small_steps = show_and_scroll(app, small, str(path))
    read, ref = statistics.median(ours), statistics.median(theirs)
    print(f"{args.rows:,} rows, {size_mb:.0f} MB CSV")
    print(f"read: Arbor {read:.2f} s, pandas.read_csv {ref:.2f} s, ratio {read / ref:.2f}")
    print(
        f"table panel: first paint {shown:.2f} s; scroll step (a new page of cells) median "
        f"{1000 * statistics.median(steps):.1f} ms, max {1000 * max(steps):.1f} ms; the same panel over "
        f"1,000 rows: median {1000 * statistics.median(small_steps):.1f} ms, "
        f"ratio {statistics.median(steps) / statistics.median(small_steps):.2f}"
    )
    for name, (mine, reference) in ops.items():
        print(f"{name}: Arbor {mine:.2f} s, pandas {reference:.2f} s, ratio {mine / reference:.2f}")


def sort_and_filter(table) -> dict[str, tuple[float, float]]:
    """The table panel's sort and filter against the same operation in pandas on the frame."""
    from PySide6.QtCore import Qt

    from gui.table.document import DataDocument
    from gui.table.table_model import TableModel
    from gui.table.table_proxy import RowsProxy

    doc = DataDocument()
    doc.load(table, None)
    proxy = RowsProxy(TableModel(doc))
    frame = table.frame

    def timed(call) -> float:
        start = time.perf_counter()
        call()
        return time.perf_counter() - start

    return {
        "sort a numeric column": (
            timed(lambda: proxy.sort(0, Qt.SortOrder.AscendingOrder)),
            timed(lambda: frame.sort_values("n0", kind="stable")),
        ),
        "sort a nominal column": (
            timed(lambda: proxy.sort(10, Qt.SortOrder.AscendingOrder)),
            timed(lambda: frame.sort_values("c0", kind="stable")),
        ),
        "filter 'gre' (first time)": (
            timed(lambda: proxy.setFilterFixedString("gre")),
            timed(
                lambda: (
                    frame.astype(str).apply(lambda c: c.str.contains("gre", case=False)).any(axis=1)
                )
            ),
        ),
        "filter 'gree' (cached text)": (
            timed(lambda: proxy.setFilterFixedString("gree")),
            timed(
                lambda: (
                    frame.astype(str)
                    .apply(lambda c: c.str.contains("gree", case=False))
                    .any(axis=1)
                )
            ),
        ),
    }


def show_and_scroll(app, table, path: str, horizontal: bool = False) -> tuple[float, list[float]]:
    """Time to the first paint of the table panel over ``table``, and 40 scroll steps (down,
    or across its columns)."""
    from gui.panels.data import TablePanel
    from gui.table.document import DataDocument
    from gui.table.table_model import TableModel

    doc = DataDocument()
    panel = TablePanel(TableModel(doc))
    panel.resize(1200, 800)
    panel.show()
    app.processEvents()
    start = time.perf_counter()
    doc.load(table, path)
    panel.view.viewport().repaint()
    app.processEvents()
    shown = time.perf_counter() - start
    bar = panel.view.horizontalScrollBar() if horizontal else panel.view.verticalScrollBar()
    rng = np.random.default_rng(1)
    steps = []
    for k in range(40):
        start = time.perf_counter()
        bar.setValue(
            bar.value() + bar.pageStep() if k % 2 == 0 else int(rng.integers(0, bar.maximum()))
        )
        panel.view.viewport().repaint()
        steps.append(time.perf_counter() - start)
    panel.close()
    return shown, steps


if __name__ == "__main__":
    main()
