"""The canvas: layout plus first paint of big trees, and the time of one pan frame; the
10,000-node tree again with plots inside its nodes (issue 32).

QT_QPA_PLATFORM=offscreen python benchmarks/bench_canvas.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from engine.estimator import DecisionTree  # noqa: E402
from gui.canvas.node_item import NodeItem  # noqa: E402
from gui.canvas.tree_canvas import TreeCanvas  # noqa: E402


def tree_with_about(nodes: int):
    return grown_with_about(nodes)[0]


def grown_with_about(nodes: int):
    """A tree of about ``nodes`` nodes on random data, and the encoded rows it was grown from.
    Unpruned: CART's cross-validated pruning cuts a tree of noise back to its root."""
    from engine.data.encoding import encode
    from engine.data.table import make_table

    rng = np.random.default_rng(0)
    n = nodes * 4
    frame = pd.DataFrame(rng.normal(size=(n, 5)), columns=list("abcde"))
    frame["y"] = np.where(rng.random(n) < 0.5, "p", "q")
    leaves = max(2, (nodes + 1) // 2)
    table = make_table(frame)
    model = DecisionTree(algorithm="cart", growth="best", max_leaves=leaves, prune="none")
    return model.fit(table).tree_, encode(table)


def _pan(canvas) -> float:
    """Median time of 30 horizontal pan steps of 40 pixels, each repainted."""
    frames = []
    bar = canvas.horizontalScrollBar()
    for _ in range(30):
        t = time.perf_counter()
        bar.setValue(bar.value() + 40)
        canvas.viewport().repaint()
        frames.append(time.perf_counter() - t)
    return statistics.median(frames)


def expand_in_background(app, tree) -> tuple[float, float]:
    """Expand all through a job, as the window does: (seconds until every node is on the
    canvas, the longest the GUI thread went without processing events)."""
    from PySide6.QtCore import QTimer

    from gui.session.jobs import Job, JobRunner

    runner = JobRunner()

    def start(name, call, done):
        job = Job(name, call)
        job.finished.connect(done)
        runner.start(job)
        return True

    canvas = TreeCanvas()
    canvas.resize(1200, 800)
    canvas.show()
    canvas.set_job_starter(start)
    canvas.set_tree(tree)
    app.processEvents()
    gaps, last = [0.0], [time.perf_counter()]

    def tick():
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(10)
    start_time = last[0] = time.perf_counter()
    canvas.expand_all()
    while len(canvas.tree_scene().items_by_id) < tree.n_nodes:
        app.processEvents()
        time.sleep(0.002)
    canvas.viewport().repaint()
    app.processEvents()
    took = time.perf_counter() - start_time
    timer.stop()
    canvas.close()
    return took, max(gaps)


def plots(app) -> None:
    """The 10,000-node tree with plots inside its nodes: opening it, Expand all, and the time
    until every node in view at 1:1 has its plot (worked out on a worker thread)."""
    from engine.export.node_labels import NodeLabels

    tree, data = grown_with_about(10_000)
    canvas = TreeCanvas()
    canvas.resize(1200, 800)
    canvas.show()
    canvas.set_style(canvas.style().with_labels(NodeLabels(plots=True)))
    canvas.set_rows(data)
    start = time.perf_counter()
    canvas.set_tree(tree)
    canvas.viewport().repaint()
    app.processEvents()
    first = time.perf_counter() - start
    start = time.perf_counter()
    canvas.expand_all()
    canvas.viewport().repaint()
    app.processEvents()
    everything = time.perf_counter() - start
    canvas.reset_zoom()
    store = canvas.tree_scene().plots
    deep = max(tree.nodes(), key=lambda n: n.depth).id  # where no plot was asked for yet
    canvas.centerOn(canvas.tree_scene().items_by_id[deep])
    in_view = {
        item.node.id
        for item in canvas.items(canvas.viewport().rect())
        if isinstance(item, NodeItem)
    }
    start = time.perf_counter()
    canvas.viewport().repaint()
    while not in_view <= set(store.kept()):
        app.processEvents()
        time.sleep(0.002)
    ready = time.perf_counter() - start
    canvas.viewport().repaint()
    print(
        f"{tree.n_nodes:>6} nodes with plots: layout + first paint {first:.2f} s, every node "
        f"{everything:.2f} s, the {len(in_view)} nodes in view at 1:1 plotted after "
        f"{ready:.2f} s, pan frame median {1000 * _pan(canvas):.1f} ms",
        flush=True,
    )
    canvas.close()


def main() -> None:
    app = QApplication.instance() or QApplication([])
    for nodes in (100, 1_000, 10_000):
        tree = tree_with_about(nodes)
        canvas = TreeCanvas()
        canvas.resize(1200, 800)
        canvas.show()
        start = time.perf_counter()
        canvas.set_tree(tree)
        canvas.viewport().repaint()
        app.processEvents()
        first = time.perf_counter() - start
        shown = len(canvas.tree_scene().items_by_id)
        canvas.reset_zoom()
        line = (
            f"{tree.n_nodes:>6} nodes: layout + first paint {first:.2f} s "
            f"({shown} shown), pan frame median {1000 * _pan(canvas):.1f} ms"
        )
        if shown < tree.n_nodes:  # a big tree opens with its top levels: every node too
            start = time.perf_counter()
            canvas.expand_all()
            canvas.viewport().repaint()
            app.processEvents()
            everything = time.perf_counter() - start
            whole = _pan(canvas)  # fitted to the window: every node in view
            canvas.reset_zoom()
            line += (
                f"; every node: layout + paint {everything:.2f} s, pan frame median "
                f"{1000 * whole:.1f} ms fitted, {1000 * _pan(canvas):.1f} ms at 1:1"
            )
        print(line, flush=True)
        canvas.close()
    plots(app)
    tree = tree_with_about(100_000)
    took, stall = expand_in_background(app, tree)
    canvas = TreeCanvas()
    canvas.resize(1200, 800)
    canvas.show()
    canvas.set_tree(tree)
    app.processEvents()
    start = time.perf_counter()
    canvas.expand_all()  # no job starter: all on the GUI thread, as before
    canvas.viewport().repaint()
    app.processEvents()
    frozen = time.perf_counter() - start
    canvas.close()
    print(
        f"{tree.n_nodes:>6} nodes, Expand all in the background: every node shown after {took:.1f} s, the "
        f"window's longest stall {stall:.2f} s; on the GUI thread: frozen {frozen:.1f} s",
        flush=True,
    )
    app.quit()


if __name__ == "__main__":
    main()
