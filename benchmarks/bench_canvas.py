"""The canvas: layout plus first paint of big trees, and the time of one pan frame; the
10,000-node tree again with plots inside its nodes (issue 32); and a 60,000-node tree from
the end of its growth to every node drawn, phase by phase (issue 34).

QT_QPA_PLATFORM=offscreen python benchmarks/bench_canvas.py
QT_QPA_PLATFORM=offscreen python benchmarks/bench_canvas.py --big            # issue 34 only
QT_QPA_PLATFORM=offscreen python benchmarks/bench_canvas.py --big --rows 200000 --image out.png
"""

from __future__ import annotations

import argparse
import gc
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


def _phases(app, tree, image: str | None) -> tuple[list, int]:
    """(phase, seconds) from a grown tree to every node painted, and the nodes shown first."""
    from engine.collection import collection_paused
    from engine.flat import flat_of
    from gui.canvas.layout import dense, fit_scale
    from gui.canvas.tree_scene import make_items, with_box_paths
    from gui.drawing.nodes import LOD_BOX, new_metrics
    from gui.drawing.plan import plan_scene

    phases = []

    def timed(name, call):
        start = time.perf_counter()
        out = call()
        phases.append((name, time.perf_counter() - start))
        return out

    canvas = TreeCanvas()
    canvas.resize(1200, 800)
    canvas.show()
    app.processEvents()
    timed("the tree's arrays (engine.flat, once per tree)", lambda: flat_of(tree))

    def opened():
        canvas.set_tree(tree)
        canvas.viewport().repaint()

    timed("opened with its top levels, painted", opened)
    shown = len(canvas.tree_scene().items_by_id)
    with collection_paused():
        plan = timed(
            "layout of every node (rows, words, tidy layout, edges)",
            lambda: plan_scene(tree, metrics=new_metrics(canvas.style())),
        )
        scale = fit_scale(plan, canvas.viewport().size())
        low = bool(scale < LOD_BOX)
        made = low and not dense(plan, scale)  # as the window does: no outlines for a density
        plan = timed("far-out boxes", lambda: with_box_paths(plan) if made else plan)
        items = timed("node items", lambda: make_items(plan, None, low))
        canvas._layout_token += 1
        token = canvas._layout_token
        timed(
            "into the scene, fitted (GUI thread)",
            lambda: canvas._show_plan(token, plan, items, low, "fit", -1, None),
        )
    timed("first paint (GUI thread)", lambda: canvas.viewport().repaint())
    picture = timed("grabbed to an image", canvas.grab)
    if image:
        picture.save(image)
    canvas.close()
    return phases, shown


def big(app, rows: int, image: str | None = None) -> None:
    """An unpruned CART tree of ``rows`` rows (200,000: about 70,000 nodes) from the end of its
    growth to every node drawn, phase by phase, as the window does it: the tree opens with its
    top levels, then View > Expand all lays out every node and makes its items on a worker
    (the garbage collector paused, as there) and the GUI thread puts them in the scene and
    paints. Then the same through a real job, timed from Expand all to the painted canvas,
    with the longest the GUI thread went without processing events."""
    from engine.data.table import make_table

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_cart import make_data

    table = make_table(make_data(rows)[2])
    start = time.perf_counter()
    model = DecisionTree(algorithm="cart", prune="none").fit(table)
    grow = time.perf_counter() - start
    tree = model.tree_
    phases, shown = _phases(app, tree, image)
    drawn = sum(t for _, t in phases[:-1])  # the grab is a second paint
    gc.collect()  # the items of the phases above, gone before the run through a job
    took, stall = expand_in_background(app, tree)
    print(
        f"{rows:,} rows, unpruned CART: {tree.n_nodes:,} nodes, {tree.n_leaves:,} leaves, depth "
        f"{tree.depth}; grown in {grow:.1f} s"
    )
    print("| phase | seconds |\n| --- | --- |")
    for name, seconds in phases:
        print(f"| {name} | {seconds:.2f} |")
    print(
        f"| from the grown tree to every node painted (the phases but the grab; {shown} nodes shown first) | {drawn:.2f} |"
    )
    print(
        f"| Expand all through a job, as the window runs it: every node painted | {took:.2f} |\n"
        f"| the GUI thread's longest stall meanwhile | {stall:.2f} |",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="only the 60,000-node tree (issue 34)")
    parser.add_argument("--rows", type=int, default=200_000, help="rows the big tree grows on")
    parser.add_argument("--image", help="save the big tree, every node drawn, as this PNG")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    if args.big:
        big(app, args.rows, args.image)
        app.quit()
        return
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
