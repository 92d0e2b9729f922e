"""The Regions dock (issue 32, item 4): the plane's boxes are the engine's, hovering a box
lights its leaf on the canvas and back, and a split drawn on the plane is the node menu's
hand split with the same threshold, undone the same way."""

from functools import partial

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from engine.export.model_json import model_text
from engine.export.regions import decision_regions, fit_on_two
from tests.gui.conftest import train_and_wait


@pytest.fixture
def window(shared_window):
    """The module's one window, put back before each test (``reset_window``), and the Regions
    panel's own choices with it: the tree on screen, not drawing, row 1 held. (Its pair of
    attributes is picked anew for a tree on other attributes, and the reset's weather has none.)
    Each test trains or loads its own tree."""
    panel = shared_window.regions
    panel.source.setCurrentIndex(0)
    shared_window.act["draw_split"].setChecked(False)
    panel.row.setValue(1)
    return shared_window


def _iris(qtbot, window, algorithm="c45"):
    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    window.files.open_sample("iris", confirmed=True)
    window.config.algorithm.set_value(algorithm)
    window.config.cv_folds.setValue(0)
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    window.docks["Regions"].raise_()
    panel = window.regions
    qtbot.waitUntil(lambda: panel.plane is not None and panel.plane.tree is window.controller.tree)
    return window.controller, panel


def _drag(qtbot, panel, start, end):
    """Press at view point ``start``, move to ``end`` in steps and release, as a mouse does."""
    plot = panel.plot
    box = plot.getViewBox()

    def at(x, y):
        return plot.mapFromScene(box.mapViewToScene(QPointF(x, y)))

    viewport, left = plot.viewport(), Qt.MouseButton.LeftButton

    def send(kind, point, button, buttons):
        event = QMouseEvent(
            kind,
            QPointF(point),
            QPointF(viewport.mapToGlobal(point)),
            button,
            buttons,
            Qt.KeyboardModifier.NoModifier,
        )
        QApplication.sendEvent(viewport, event)

    # Sent by hand: QTest's moves carry no buttons held, so pyqtgraph would see no drag.
    # pyqtgraph drops a move that comes sooner than its rate limit allows after the last one:
    # the first move waits that out (in a quick run of the suite, a drag right after another
    # had lost every move, so no drag began); the next ones come at once, as before.
    qtbot.wait(int(1000 / pg.getConfigOption("mouseRateLimit")) + 2)
    send(QEvent.Type.MouseButtonPress, at(*start), left, left)
    for t in (0.5, 0.75, 1.0):
        point = at(start[0] + t * (end[0] - start[0]), start[1] + t * (end[1] - start[1]))
        send(QEvent.Type.MouseMove, point, Qt.MouseButton.NoButton, left)
    send(QEvent.Type.MouseButtonRelease, at(*end), left, Qt.MouseButton.NoButton)


def test_the_plane_is_the_trees_leaves_at_1024(qtbot, window):
    controller, panel = _iris(qtbot, window)
    tree, data = controller.tree, controller.data
    # The two attributes the tree splits on first, the others as in row 1.
    assert (panel.x_box.currentText(), panel.y_box.currentText()) == ("petalwidth", "petallength")
    expected = decision_regions(tree, 3, 2, data.X[0])
    regions = panel.plane.regions
    np.testing.assert_array_equal(regions.x1, expected.x1)
    assert regions.leaves == expected.leaves
    assert panel.drawn_boxes() == tree.n_leaves == len(regions)
    assert panel.drawn_points() == 150
    caption = panel.caption.text()
    assert "150 rows drawn" in caption and "5 boxes" in caption and "Iris-setosa" in caption
    # Usable at 1024x700: the plane has room, within the window.
    assert panel.plot.isVisible() and panel.plot.height() >= 150 and panel.plot.width() >= 300
    assert panel.plot.mapTo(window, panel.plot.rect().bottomRight()).y() <= window.height()


def test_hovering_a_box_lights_its_leaf_and_the_canvas_lights_boxes(qtbot, window):
    controller, panel = _iris(qtbot, window)
    regions = panel.plane.regions
    setosa = int(regions.at(0.3, 1.5)[0])
    (leaf,) = regions.leaves[setosa]
    items = window.canvas.tree_scene().items_by_id
    panel.hover_region(setosa)
    assert items[leaf].highlighted
    assert not any(item.highlighted for node_id, item in items.items() if node_id != leaf)
    assert "Iris-setosa" in panel.hover.text() and "petalwidth ≤ 0.6" in panel.hover.text()
    panel.hover_region(-1)
    assert not items[leaf].highlighted
    # Back: the node selected on the canvas lights its boxes; one hovered there, its own.
    controller.select_node(leaf)
    assert panel.lit.tolist() == [setosa]
    right = controller.tree.root.children[1]
    window.node_hover.node_hovered.emit(right.id)
    assert sorted(panel.lit.tolist()) == sorted(
        regions.reaching([n.id for n in right.walk() if n.is_leaf]).tolist()
    )
    assert len(panel.lit) == 4
    window.node_hover.node_hovered.emit(-1)
    assert panel.lit.tolist() == [setosa]


def test_a_split_drawn_on_the_plane_is_the_menus_hand_split(qtbot, window):
    controller, panel = _iris(qtbot, window)
    before = controller.tree
    regions = panel.plane.regions
    box = int(regions.at(0.3, 1.5)[0])  # setosa's leaf: petalwidth <= 0.6
    (leaf,) = regions.leaves[box]
    window.act["draw_split"].trigger()
    assert panel.drawing() and window.act["draw_split"].isChecked()
    # A mostly vertical drag in the leaf's box: a vertical line, a cut of petalwidth (x).
    with qtbot.waitSignal(panel.split_drawn) as drawn:
        _drag(qtbot, panel, (0.3, 1.2), (0.31, 1.8))
    node, attribute, threshold = drawn.args
    assert (node, attribute) == (leaf, 3)
    assert threshold == pytest.approx(0.3, abs=0.01)
    assert float(f"{threshold:g}") == threshold  # a number a person would type
    drawn_tree = controller.tree
    assert drawn_tree is not before
    split = drawn_tree.node(leaf).split
    assert (split.attribute, split.threshold) == (3, threshold)
    assert window.doc.undo_stack.undoText() == f"Split node {leaf} on petalwidth"
    # The plane follows: the leaf's box is now two.
    qtbot.waitUntil(lambda: panel.plane.tree is drawn_tree)
    assert len(panel.plane.regions) == len(regions) + 1
    window.doc.undo_stack.undo()
    assert controller.tree is before
    # The same split from the node's menu, at the threshold typed.
    menu = window.modelling.menu(leaf)
    split_menu = next(a for a in menu.actions() if a.text() == "Split on…").menu()
    typed = next(a for a in split_menu.actions() if a.text() == "petalwidth at a threshold I type…")
    window.dialogs.replies["ask_text"].append(f"{threshold:g}")
    typed.trigger()
    assert model_text(controller.tree, None) == model_text(drawn_tree, None)
    assert window.doc.undo_stack.undoText() == f"Split node {leaf} on petalwidth"
    window.doc.undo_stack.undo()
    assert controller.tree is before
    # A mostly horizontal drag cuts petallength (y) instead.
    with qtbot.waitSignal(panel.split_drawn) as drawn:
        _drag(qtbot, panel, (0.2, 1.45), (0.5, 1.46))
    assert tuple(drawn.args[:2]) == (leaf, 2)
    assert controller.tree.node(leaf).split.attribute == 2


def test_a_drag_pans_unless_drawing_and_the_tree_on_two_takes_no_split(qtbot, window):
    controller, panel = _iris(qtbot, window)
    before = controller.tree
    spy = []
    panel.split_drawn.connect(lambda *args: spy.append(args))
    _drag(qtbot, panel, (0.3, 1.2), (0.31, 1.8))
    assert not spy and controller.tree is before
    # On the tree on these two only, nothing is drawn on the canvas's tree.
    panel.source.setCurrentIndex(1)
    qtbot.waitUntil(lambda: panel.plane is not None and not panel.plane.on_screen)
    panel.draw_button.setChecked(True)
    _drag(qtbot, panel, (0.3, 1.2), (0.31, 1.8))
    assert not spy and "on these two only" in panel.hover.text()


def test_the_tree_on_two_is_grown_with_the_trees_options(qtbot, window):
    controller, panel = _iris(qtbot, window, "cart")
    panel.x_box.setCurrentText("sepallength")
    panel.y_box.setCurrentText("sepalwidth")
    qtbot.waitUntil(lambda: panel.plane.x_name == "sepallength")
    assert len(panel.plane.regions) == 1  # the tree on screen asks only about the petals
    assert "petalwidth = 0.2" in panel.caption.text()  # row 1's, which decides the leaf
    panel.source.setCurrentIndex(1)
    qtbot.waitUntil(lambda: not panel.plane.on_screen)
    expected = fit_on_two(controller.data, controller.settings, 0, 1)
    assert model_text(panel.plane.tree, None) == model_text(expected, None)
    assert len(panel.plane.regions) == expected.n_leaves > 1
    assert not panel.row.isEnabled()
    assert "its own, not the canvas" in panel.caption.text()


def test_a_point_clicked_holds_the_others_at_its_row(qtbot, window):
    controller, panel = _iris(qtbot, window, "cart")
    panel.x_box.setCurrentText("sepallength")
    panel.y_box.setCurrentText("sepalwidth")
    qtbot.waitUntil(lambda: panel.plane.x_name == "sepallength")
    dots = panel.dots[-1]  # virginica's points
    point = dots.points()[0]
    panel._on_points_clicked(dots, [point])
    row = int(dots.rows[point.index()])
    assert controller.tree.classes[int(controller.data.y[row])] == "Iris-virginica"
    assert panel.row.value() == row + 1
    qtbot.waitUntil(lambda: panel.plane.row == row)
    (leaf,) = panel.plane.regions.leaves[0]
    assert controller.tree.classes[int(np.argmax(controller.tree.node(leaf).distribution))] == (
        "Iris-virginica"
    )


def test_a_big_table_is_worked_out_aside(qtbot, monkeypatch, window):
    import gui.panels.regions as module

    monkeypatch.setattr(module, "WORKER_ROWS", 10)
    controller, panel = _iris(qtbot, window)
    regions = decision_regions(controller.tree, 3, 2, controller.data.X[0])
    assert panel.plane.regions.leaves == regions.leaves
    panel.row.setValue(7)
    assert "Cutting the plane over 150 rows" in panel.caption.text()
    with qtbot.waitSignal(panel.plane_shown, timeout=10000):
        pass
    assert panel.plane.row == 6


def test_the_node_under_the_mouse_on_the_canvas_is_said(qtbot, window):
    controller, panel = _iris(qtbot, window)
    canvas, hover = window.canvas, window.node_hover
    leaf = next(n.id for n in controller.tree.nodes() if n.is_leaf)
    point = canvas.node_view_position(leaf)
    assert hover.node_at(point) == leaf
    with qtbot.waitSignal(hover.node_hovered) as said:
        qtbot.mouseMove(canvas.viewport(), point)
    assert said.args == [leaf]
    assert panel.lit.tolist() == panel.plane.regions.reaching([leaf]).tolist()


def test_a_regression_tree_shades_its_boxes_by_mean_and_says_the_sample(qtbot, monkeypatch, window):
    from pathlib import Path

    import gui.panels.regions as module
    from engine.data.encoding import encode
    from engine.data.io import read_table
    from engine.estimator import DecisionTree

    monkeypatch.setattr(module, "plane_points", partial(module.plane_points, max_points=40))
    path = Path(__file__).resolve().parents[3] / "resources" / "datasets" / "iris.arff"
    table = read_table(path, target="petalwidth")
    model = DecisionTree(task="regression", algorithm="cart", max_depth=3).fit(table)
    data = encode(table, "regression")
    window.show()
    qtbot.waitExposed(window)
    window.docks["Regions"].raise_()
    window.controller.load_tree(model.tree_, data, model.settings_)
    panel = window.regions
    qtbot.waitUntil(lambda: panel.plane is not None and panel.plane.tree is model.tree_)
    regions = panel.plane.regions
    assert regions.classes is None and panel.drawn_boxes() == len(regions)
    assert panel.drawn_points() == 40
    caption = panel.caption.text()
    assert "40 of 150 rows drawn (a fixed sample)" in caption
    lo = min(regions.outputs.min(), panel.plane.points.target.min())
    assert f"petalwidth from {lo:g}" in caption
    k = int(np.argmax(regions.outputs))
    panel.hover_region(k)
    assert f"mean {regions.outputs[k]:.6g}"[:9] in panel.hover.text()


def test_a_held_row_missing_a_value_shares_boxes_and_takes_no_drawn_split(qtbot, window):
    from dataclasses import replace

    controller, panel = _iris(qtbot, window)
    X = np.array(controller.data.X, order="F")
    X[0, 3] = np.nan  # row 1 lacks petalwidth, the root's attribute
    controller.load_tree(controller.tree, replace(controller.data, X=X), controller.settings)
    panel.x_box.setCurrentText("sepallength")
    panel.y_box.setCurrentText("petallength")
    qtbot.waitUntil(
        lambda: panel.plane.x_name == "sepallength" and panel.plane.y_name == "petallength"
    )
    regions = panel.plane.regions
    assert regions.shared.all() and "Hatched" in panel.caption.text()
    assert "petalwidth = ?" in panel.caption.text()
    before = controller.tree
    spy = []
    panel.split_drawn.connect(lambda *args: spy.append(args))
    panel.draw_button.setChecked(True)
    _drag(qtbot, panel, (5.0, 1.5), (5.01, 3.0))
    assert not spy and controller.tree is before
    assert "shared by several leaves" in panel.hover.text()


def test_a_drawn_threshold_is_the_roundest_number_within_a_pixel():
    from gui.panels.regions import snapped

    assert snapped(2.4537, 0.013) == 2.45
    assert snapped(71.26, 0.4) == 71.3
    assert snapped(1234.5, 3.0) == 1234.0
    assert snapped(-0.30000001, 0.002) == -0.3
    assert snapped(0.123456, 0.0) == 0.123456  # no pixel size known: as it was
