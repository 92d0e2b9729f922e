"""The node plot in the inspector (issue 32): selecting a node draws its rows, and the bars
drawn are the engine's numbers."""

import numpy as np
import pytest

from engine.export.node_data import LeafData, NominalSplitData, NumericSplitData, node_data
from gui.panels.node_plot import NodePlot
from tests.gui.conftest import train_sample as _train


@pytest.fixture
def window(shared_window):
    """The module's one window, put back before each test (``reset_window``); each test trains
    its own tree. The one that shows the window (to check the plot's room) takes
    ``own_window``."""
    return shared_window


def test_selecting_a_numeric_split_draws_the_engines_bins(qtbot, own_window):
    own_window.resize(1024, 700)
    own_window.show()
    qtbot.waitExposed(own_window)
    controller = _train(qtbot, own_window, "iris", "c45")
    plot = own_window.inspector.node_plot
    controller.select_node(0)
    qtbot.waitUntil(lambda: plot.shown is not None)
    shown = plot.shown
    assert isinstance(shown, NumericSplitData) and shown.node_id == 0
    expected = node_data(controller.tree, controller.data, 0, controller.settings)
    np.testing.assert_allclose(plot.plotted_counts(), expected.counts)
    np.testing.assert_allclose(plot.plotted_counts().sum(axis=1), controller.tree.root.distribution)
    assert plot.cut is not None and plot.cut.value() == pytest.approx(expected.threshold)
    caption = plot.caption.text().replace("\u2060", "")
    assert "150 rows" in caption and "Iris-setosa" in caption
    assert f"{100 * expected.shares[0]:.0f}%" in caption
    assert plot.plot.isVisible() and plot.plot.height() >= 150
    assert plot.width() <= own_window.inspector.scroll.viewport().width()
    # A leaf: its class weights, one bar per class.
    leaf = next(n for n in controller.tree.nodes() if n.is_leaf)
    controller.select_node(leaf.id)
    qtbot.waitUntil(lambda: plot.shown is not None and plot.shown.node_id == leaf.id)
    assert isinstance(plot.shown, LeafData)
    np.testing.assert_allclose(plot.plotted_counts().sum(axis=1), leaf.distribution)
    controller.select_node(-1)
    assert plot.shown is None


def test_a_nominal_splits_bars_equal_the_nodes_counts(qtbot, window):
    controller = _train(qtbot, window, "weather", "id3")
    plot = window.inspector.node_plot
    controller.select_node(0)
    qtbot.waitUntil(lambda: plot.shown is not None)
    assert isinstance(plot.shown, NominalSplitData)
    drawn = plot.plotted_counts()  # yes and no, per outlook
    np.testing.assert_array_equal(drawn, [[2, 4, 3], [3, 0, 2]])
    for k, child in enumerate(controller.tree.root.children):
        np.testing.assert_array_equal(drawn[:, k], child.distribution)
    ticks = plot.plot.getAxis("bottom")._tickLevels[0]
    assert [t for _, t in ticks] == ["sunny", "overcast", "rainy"]


def test_many_rows_are_binned_on_a_worker(qtbot, monkeypatch, window):
    import gui.panels.node_plot as module

    monkeypatch.setattr(module, "BACKGROUND_WEIGHT", 1)
    controller = _train(qtbot, window, "iris", "cart")
    plot = window.inspector.node_plot
    controller.select_node(0)
    assert plot.shown is None and "Binning" in plot.caption.text()
    with qtbot.waitSignal(plot.plot_shown, timeout=10000, check_params_cb=lambda p: p is not None):
        pass
    expected = node_data(controller.tree, controller.data, 0, controller.settings)
    np.testing.assert_allclose(plot.plotted_counts(), expected.counts)


def test_a_name_that_looks_like_html_is_shown_as_text(qtbot):
    widget = NodePlot()
    qtbot.addWidget(widget)
    data = LeafData(
        3,
        ("<b>x</b>", "y"),
        np.array([2.0, 1.0]),
        np.zeros(0),
        np.array([2.0, 1.0]),
        float("nan"),
        3,
    )
    widget._show(data)
    assert "&lt;b&gt;x&lt;/b&gt;" in widget.caption.text().replace("\u2060", "")


def test_a_regression_split_draws_the_engines_points_and_means(qtbot):
    from pathlib import Path

    from engine.data.encoding import encode
    from engine.data.io import read_table
    from engine.estimator import DecisionTree

    path = Path(__file__).resolve().parents[3] / "resources" / "datasets" / "weather-numeric.arff"
    table = read_table(path, target="temperature")
    model = DecisionTree(task="regression", algorithm="cart", prune="none", min_samples_leaf=2).fit(
        table
    )
    data = encode(table, "regression")
    expected = node_data(model.tree_, data, 0, model.settings_, max_points=10)
    widget = NodePlot()
    qtbot.addWidget(widget)
    widget._show(expected)
    x, y = widget.points.getData()
    np.testing.assert_allclose(x, expected.x)
    np.testing.assert_allclose(y, expected.y)
    assert [line.getData()[1][0] for line in widget.means] == pytest.approx(
        [c.value for c in model.tree_.root.children]
    )
    assert widget.cut.value() == pytest.approx(expected.threshold)
    assert "a sample of 10 of the 14 points" in widget.caption.text()
    widget.show_node(model.tree_, 0, data, model.settings_)  # through the front door
    assert widget.plot.getAxis("left").labelText == "temperature"  # the target's name


def test_an_attribute_named_like_html_is_an_axis_title_as_text(qtbot):
    data = NumericSplitData(
        0,
        "<i>x</i>",
        ("a", "b"),
        np.array([3.0, 1.0]),
        np.array([1.0, 2.0, 3.0]),
        np.array([[2.0, 1.0], [0.0, 1.0]]),
        np.zeros(2),
        2.0,
        (0.5, 0.5),
        4,
    )
    widget = NodePlot()
    qtbot.addWidget(widget)
    widget._show(data)
    assert widget.plot.getAxis("bottom").labelText == "&lt;i&gt;x&lt;/i&gt;"
