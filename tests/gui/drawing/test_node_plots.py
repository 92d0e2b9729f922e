"""The plots drawn inside the nodes (issue 32): what is drawn is the engine's node data, boxes
grow to hold the plots without overlapping, and ``train --labels plots`` exports carry them."""

import re
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage

from cli.main import main
from engine.data.encoding import encode
from engine.estimator import DecisionTree
from engine.export.node_data import LeafData, NumericSplitData, node_data, nodes_data
from engine.export.node_labels import NodeLabels
from gui.drawing.figure_style import SCREEN, SLIDE
from gui.drawing.node_plots import THUMB_POINTS, plot_marks, plot_size
from gui.drawing.nodes import PLOT_GAP
from gui.drawing.picture import legend_entries, picture

PLOTS = SCREEN.with_labels(NodeLabels(plots=True))


def drawn_counts(marks, n_classes: int, x_cells: np.ndarray) -> np.ndarray:
    """Weight per (class, cell) as the bars are drawn: each bar's height, by its left edge."""
    counts = np.zeros((n_classes, len(x_cells)))
    for x0, _x1, y0, y1, k in marks.bars.tolist():
        counts[int(k), int(np.flatnonzero(np.isclose(x_cells, x0))[0])] += y1 - y0
    return counts


def _check_drawn(tree, plots) -> set:
    kinds = set()
    for node in tree.nodes():
        plot = plots[node.id]
        marks = plot_marks(plot)
        kinds.add(type(plot))
        if isinstance(plot, NumericSplitData):
            drawn = drawn_counts(marks, len(tree.classes), plot.edges[:-1])
            np.testing.assert_allclose(drawn, plot.counts)
            # with the rows whose value is missing (not drawn), the node's rows by class
            np.testing.assert_allclose(drawn.sum(axis=1) + plot.missing, node.distribution)
            assert marks.cut == plot.threshold
            assert marks.x_range[0] <= plot.threshold <= marks.x_range[1]
        elif isinstance(plot, LeafData):
            drawn = drawn_counts(marks, len(tree.classes), np.arange(len(tree.classes)) + 0.15)
            np.testing.assert_allclose(drawn.sum(axis=1), node.distribution)
        else:  # categories by class
            cells = np.arange(len(plot.categories)) + 0.15
            drawn = drawn_counts(marks, len(tree.classes), cells)
            np.testing.assert_allclose(drawn, plot.counts)
            np.testing.assert_allclose(drawn.sum(axis=1) + plot.missing, node.distribution)
        # the bars fit the plot's own scale: the tallest reaches its top
        if len(marks.bars):
            assert marks.bars[:, 3].max() == pytest.approx(marks.y_range[1])
    return kinds


def test_the_drawn_bins_are_node_datas_and_add_up_to_each_nodes_rows(qapp, weather):
    from engine.data.io import read_table

    iris = read_table(Path(__file__).resolve().parents[3] / "resources/datasets/iris.arff")
    for table, algorithm in ((iris, "c45"), (weather, "id3"), (weather, "cart")):
        model = DecisionTree(algorithm=algorithm, min_samples_leaf=1, prune="none").fit(table)
        tree, data = model.tree_, encode(table)
        pic = picture(tree, style=PLOTS, plots=nodes_data(tree, data, max_points=THUMB_POINTS))
        kinds = _check_drawn(tree, pic.plots)
        assert LeafData in kinds and len(kinds) == 2
        for node in tree.nodes():  # the picture's numbers are the inspector's
            one = node_data(tree, data, node.id, model.settings_)
            np.testing.assert_allclose(pic.plots[node.id].counts, one.counts)


def test_regression_plots_draw_the_points_and_each_branchs_mean(qapp):
    from engine.data.io import read_table

    table = read_table(
        Path(__file__).resolve().parents[3] / "resources/datasets/weather-numeric.arff",
        target="temperature",
    )
    model = DecisionTree(task="regression", algorithm="cart", min_samples_leaf=2, prune="none").fit(
        table
    )
    tree = model.tree_
    plots = nodes_data(tree, encode(table, "regression"), max_points=THUMB_POINTS)
    root = plot_marks(plots[0])
    assert len(root.points) == 14 and root.cut == tree.root.split.threshold
    assert sorted(root.means[:, 2]) == pytest.approx(sorted(c.value for c in tree.root.children))
    leaf = next(n for n in tree.nodes() if n.is_leaf)
    marks = plot_marks(plots[leaf.id])
    assert (marks.bars[:, 3] - marks.bars[:, 2]).sum() == pytest.approx(leaf.weight)
    assert marks.cut == pytest.approx(leaf.value)  # the mean, marked


def test_boxes_grow_to_hold_the_plot_and_do_not_overlap(qapp, weather):
    tree = DecisionTree(algorithm="id3").fit(weather).tree_
    for style in (SCREEN, SLIDE):
        plain = picture(tree, style=style)
        with_plots = picture(tree, style=style.with_labels(NodeLabels(plots=True)))
        plot_w, plot_h = plot_size(style.body_px)
        for node_id, (w, h) in plain.plan.sizes.items():
            w2, h2 = with_plots.plan.sizes[node_id]
            assert h2 == pytest.approx(h + plot_h + PLOT_GAP)
            assert w2 >= max(w, plot_w)
        box = np.hstack(
            [
                with_plots.plan.centres - with_plots.plan.half,
                with_plots.plan.centres + with_plots.plan.half,
            ]
        )
        for k in range(len(box)):
            others = np.delete(box, k, axis=0)
            apart = (
                (others[:, 0] >= box[k, 2])
                | (others[:, 2] <= box[k, 0])
                | (others[:, 1] >= box[k, 3])
                | (others[:, 3] <= box[k, 1])
            )
            assert apart.all()


def _train(tmp_path, capsys, name: str, labels: str) -> tuple[int, str]:
    target = tmp_path / name
    code = main(["train", "--sample", "iris", "--image", str(target), "--labels", labels])
    return code, capsys.readouterr().err


def _svg_height(path: Path) -> float:
    return float(re.search(rb'<svg[^>]* height="([0-9.]+)', path.read_bytes()).group(1))


def _pdf_height(path: Path) -> float:
    box = re.search(rb"/MediaBox \[0 0 ([0-9.]+) ([0-9.]+)\]", path.read_bytes())
    return float(box.group(2))


def test_train_labels_plots_exports_carry_them(tmp_path, capsys):
    for labels in ("n,bar", "n,bar,plots"):
        for suffix in ("png", "svg", "pdf"):
            code, err = _train(tmp_path, capsys, f"{labels}.{suffix}", labels)
            assert code == 0, err
    plain, plots = tmp_path / "n,bar.png", tmp_path / "n,bar,plots.png"
    assert plots.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert QImage(str(plots)).height() > QImage(str(plain)).height()
    svg = (tmp_path / "n,bar,plots.svg").read_bytes()
    assert svg.lstrip().startswith(b"<?xml") and svg.rstrip().endswith(b"</svg>")
    assert _svg_height(tmp_path / "n,bar,plots.svg") > _svg_height(tmp_path / "n,bar.svg")
    pdf = (tmp_path / "n,bar,plots.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    assert _pdf_height(tmp_path / "n,bar,plots.pdf") > _pdf_height(tmp_path / "n,bar.pdf")


def test_plots_alone_still_name_the_classes_in_the_legend(qapp, weather):
    tree = DecisionTree(algorithm="id3").fit(weather).tree_
    style = SCREEN.with_labels(NodeLabels.parse("plots"))
    entries = legend_entries(picture(tree, style=style))
    assert [name for name, _ in entries] == ["yes", "no"]


def test_an_unknown_label_is_one_clear_error(tmp_path, capsys):
    code, err = _train(tmp_path, capsys, "t.png", "n,plot")
    assert code == 2 and err.count("\n") == 1
    assert "unknown node label 'plot'" in err and "plots" in err
    assert not (tmp_path / "t.png").exists()
