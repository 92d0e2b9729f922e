"""The canvas's plots inside the nodes (issue 32): View > Node labels > Node plots, worked out
on a worker for the nodes painted, the engine's numbers, and exports that carry them."""

import numpy as np
from PySide6.QtGui import QImage

from engine.export.node_data import nodes_data
from gui.drawing.node_plots import NO_ROWS, plot_size
from tests.gui.conftest import train_and_wait


def _heights(canvas) -> dict:
    return {i: item.boundingRect().height() for i, item in canvas.tree_scene().items_by_id.items()}


def test_the_option_draws_each_nodes_plot_from_the_engines_numbers(qtbot, window, tmp_path):
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    action = window.act["label_plots"]
    assert action.isCheckable() and not action.isChecked() and action.shortcut().toString()
    action.trigger()  # before any tree: the first tree is drawn with it
    assert window.canvas.style().labels.plots
    window.files.open_sample("iris", confirmed=True)
    window.config.cv_folds.setValue(0)
    train_and_wait(qtbot, window)
    controller, canvas = window.controller, window.canvas
    qtbot.waitUntil(lambda: canvas.tree() is controller.tree)
    store = canvas.tree_scene().plots
    ids = set(canvas.tree_scene().items_by_id)
    canvas.viewport().repaint()  # every node is in view: each asks for its plot
    qtbot.waitUntil(lambda: ids <= set(store.kept()), timeout=10000)
    expected = nodes_data(controller.tree, controller.data)
    for node_id, plot in store.kept().items():
        np.testing.assert_allclose(plot.counts, expected[node_id].counts)
        assert plot.by_class.sum() == controller.tree.node(node_id).weight
    with_plots = _heights(canvas)
    image_with = tmp_path / "with.png"
    window.dialogs.replies["save_path"].append(str(image_with))
    window.exports.export_image()
    action.trigger()  # off again: boxes shrink back by the plot's room
    assert not canvas.style().labels.plots
    without = _heights(canvas)
    _, plot_h = plot_size(canvas.style().body_px)
    assert all(with_plots[i] > without[i] + plot_h for i in ids)
    image_without = tmp_path / "without.png"
    window.dialogs.replies["save_path"].append(str(image_without))
    window.exports.export_image()
    assert QImage(str(image_with)).height() > QImage(str(image_without)).height()
    assert not window.dialogs.errors


def test_a_tree_without_its_rows_says_so_in_its_nodes(qtbot, window):
    window.config.cv_folds.setValue(0)
    train_and_wait(qtbot, window)
    scene = window.canvas.tree_scene()
    window.act["label_plots"].trigger()
    assert scene.plots.plot_for(0) is None  # asked for: worked out on a worker
    window.canvas.set_rows(None)
    assert scene.plots.plot_for(0) == NO_ROWS
