"""The split curve in the inspector (issue 32, item 3): selecting a node plots its split
attribute's curve, the numbers drawn are the engine's, and a row of the splits table picks
the attribute."""

import numpy as np
import pytest

from engine.learn.explain import attribute_table, node_rows
from engine.learn.split_curves import split_curve
from gui.panels import split_curve as split_curve_module
from tests.gui.conftest import train_sample as _train


@pytest.fixture
def window(shared_window):
    """The module's one window, put back before each test (``reset_window``); each test trains
    its own tree. The one that shows the window (to check the plot's room) takes
    ``own_window``."""
    return shared_window


def _engine_curve(controller, node_id, attribute):
    tree, data, settings = controller.tree, controller.data, controller.settings
    rows, weights = node_rows(tree, data, node_id, settings)
    return split_curve(data, settings, attribute, rows, weights, tree.node(node_id).split)


def test_selected_node_shows_its_split_attributes_curve(qtbot, own_window):
    own_window.resize(1024, 700)
    own_window.show()
    qtbot.waitExposed(own_window)
    controller = _train(qtbot, own_window, "iris", "c45")
    view = own_window.inspector.curve
    controller.select_node(0)
    qtbot.waitUntil(lambda: view.shown is not None)
    root = controller.tree.root
    name = controller.data.schema.attributes[root.split.attribute].name
    assert view.attribute.currentText() == name and view.shown.attribute == name
    expected = _engine_curve(controller, 0, name)
    for key in ("info_gain", "gain_ratio", "gini_gain", "mdl_gain"):
        x, y = view.plotted(key)
        np.testing.assert_array_equal(x, expected.thresholds)
        np.testing.assert_array_equal(y, expected.values[key])
    # The chosen cut is the tree's threshold and the best one the scorer's; both are marked.
    assert view.marks["chosen"].value() == pytest.approx(root.split.threshold)
    assert view.marks["best"].value() == expected.thresholds[expected.best]
    assert "best" in view.caption.text() and "chosen" in view.caption.text()
    assert view.legend.items  # a legend names the measures
    # Hover: the values at the nearest cut.
    k = expected.best
    assert view.nearest(float(expected.thresholds[k]) + 1e-9) == k
    assert f"{expected.values['info_gain'][k]:.4f}" in view.values_text(k)
    # Usable in the narrow dock.
    assert view.plot.isVisible() and view.plot.height() >= 150
    assert view.width() <= own_window.inspector.scroll.viewport().width()


def test_a_row_of_the_splits_table_picks_the_attribute(qtbot, window):
    controller = _train(qtbot, window, "iris", "cart")
    view = window.inspector.curve
    controller.select_node(0)
    qtbot.waitUntil(lambda: view.shown is not None)
    table = window.inspector.splits.table
    qtbot.waitUntil(lambda: table.rowCount() == 4)
    table.cellClicked.emit(0, 0)  # sepallength
    qtbot.waitUntil(lambda: view.shown is not None and view.shown.attribute == "sepallength")
    expected = _engine_curve(controller, 0, "sepallength")
    x, y = view.plotted("gini_gain")
    np.testing.assert_array_equal(y, expected.values["gini_gain"])
    assert "chosen" not in view.marks  # the root splits on another attribute
    # The curve's maximum is the figure in the table's row (explain's arithmetic, to the bit).
    rows = attribute_table(controller.data, controller.settings)
    assert y.max() == next(r for r in rows if r.name == "sepallength").gini_gain
    assert table.item(0, 3).text() == f"{y.max():.3f}"  # the table's Gini gain column


def test_nominal_groupings_and_worker_thread(qtbot, window, monkeypatch):
    monkeypatch.setattr(split_curve_module, "BACKGROUND_WEIGHT", 0)  # every node on a worker
    controller = _train(qtbot, window, "weather", "cart")
    view = window.inspector.curve
    controller.select_node(0)
    qtbot.waitUntil(lambda: view.shown is not None, timeout=10000)
    view.attribute.setCurrentText("outlook")
    qtbot.waitUntil(
        lambda: view.shown is not None and view.shown.attribute == "outlook", timeout=10000
    )
    expected = _engine_curve(controller, 0, "outlook")
    x, y = view.plotted("gini_gain")
    np.testing.assert_array_equal(x, np.arange(len(expected)))
    np.testing.assert_array_equal(y, expected.values["gini_gain"])
    assert "groupings" in view.caption.text()


def test_a_leaf_keeps_the_attribute_and_the_section_folds(qtbot, window):
    controller = _train(qtbot, window, "iris", "c45")
    view = window.inspector.curve
    controller.select_node(0)
    qtbot.waitUntil(lambda: view.shown is not None)
    view.attribute.setCurrentText("sepalwidth")
    leaf = next(n for n in controller.tree.nodes() if n.is_leaf and n.weight > 5)
    controller.select_node(leaf.id)
    qtbot.waitUntil(lambda: view.shown is not None and view.shown.attribute == "sepalwidth")
    expected = _engine_curve(controller, leaf.id, "sepalwidth")
    assert len(view.shown) == len(expected)
    if len(expected):
        np.testing.assert_array_equal(view.plotted("info_gain")[1], expected.values["info_gain"])
    else:
        assert "offers no split" in view.caption.text()
    view.fold.setChecked(False)
    assert view.body.isHidden()
    view.fold.setChecked(True)
    assert not view.body.isHidden()
