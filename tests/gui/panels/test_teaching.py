"""Following the algorithms on screen: the growth log and best-first queue, pruning's candidates
in the inspector (the toys' bounds), ghosts of what was cut, the walk through pruning, the
CART pruning plot, an inspector that fits, and node labels that exports share."""

import re

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt

from gui.panels.growth import DEFAULT_SPEED, SECONDS_PER_STEP
from tests.gui.conftest import train_and_wait


@pytest.fixture
def window(shared_window):
    """The module's one window, put back before each test (``reset_window``), with the CART
    pruning plot's scale back on rank. Each test trains its own tree; the two that show the
    window and size its docks, or change the node labels, take ``own_window``."""
    shared_window.pruning.scale.setCurrentText("rank")
    return shared_window


def _train(qtbot, window, sample, **params):
    if sample:
        window.files.open_sample(sample, confirmed=True)
    window.config.set_params(params)
    window.config.cv_folds.setValue(0)
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    return window.controller.tree


def _plain(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html).replace("&nbsp;", " ")


def test_toys_bounds_are_on_screen(qtbot, window):
    tree = _train(qtbot, window, "toys", algorithm="c45", error_estimate="exact")
    assert tree.root.is_leaf and tree.pruning is not None
    window.controller.select_node(0)
    text = _plain(window.inspector.text())
    for value in ("0.206", "0.143", "0.750", "3.273", "2.554"):
        assert value in text, value
    assert "pruned to a leaf" in text
    assert "2.512" in text and "0.157" in text  # why the notes print another total
    # Leaves carry their bounds too: the walk-through's first state is the colour split.
    window.pruning.walk_to(0)
    assert window.controller.tree.n_nodes == 4
    window.controller.select_node(1)
    text = _plain(window.inspector.text())
    assert "as a leaf" in text and "0.206" in text and "Candidate splits here" in text


def test_growth_log_and_best_first_queue_on_iris(qtbot, window):
    window.files.open_sample("iris", confirmed=True)
    window.config.set_params({"algorithm": "cart", "growth": "best"})
    growth = window.growth
    growth.start_over()
    assert window.controller.tree.n_nodes == 1  # the root alone on the canvas
    assert len(window.canvas.tree_scene().items_by_id) == 1
    for _ in range(3):
        assert growth.step()
    assert growth.log.rowCount() == 3
    assert [growth.log.item(k, 1).text() for k in range(3)] == [
        "petallength <= 2.45",
        "petalwidth <= 1.75",
        "petallength <= 4.95",
    ]
    assert [growth.log.item(k, 3).text() for k in range(3)] == ["0.3333", "0.2598", "0.0297"]
    assert growth.log.horizontalHeaderItem(2).text() == "gain"
    # The queue after three steps: the next is marked, priorities fall.
    cells = [
        [growth.queue.item(r, c).text() for c in range(5)] for r in range(growth.queue.rowCount())
    ]
    assert cells[0][0] == "▶" and all(row[0] == "" for row in cells[1:])
    priorities = [float(row[4]) for row in cells]
    assert priorities == sorted(priorities, reverse=True) and len(priorities) == 3
    assert growth.step()
    assert growth.log.item(3, 0).text() == cells[0][1]  # the marked leaf was split next
    growth.log.selectRow(0)
    assert window.controller.selected == 0
    assert SECONDS_PER_STEP[DEFAULT_SPEED] >= 1.5  # Play lets a person read each step
    growth.start_over()
    assert growth.log.rowCount() == 0 and window.controller.tree.n_nodes == 1


def test_walk_through_and_ghosts(qtbot, window):
    tree = _train(qtbot, window, "contact-lenses", algorithm="id3", prune="reduced-error")
    record = tree.pruning
    assert record is not None and record.method == "reduced-error"
    panel = window.pruning
    assert panel.pages.currentIndex() == 2
    assert "held out" in panel.intro.text()
    panel.walk_to(0)
    assert window.controller.tree.n_nodes == record.before.n_nodes
    assert "Decision 1 of" in panel.walk_label.text()
    assert "held-out" in _plain(panel.decision.text())
    assert "as the pruning walk-through has it" in window.results.header.text()
    panel.walk_to(len(panel.walk))
    assert window.controller.tree is tree
    assert "trained ID3 tree" in window.results.header.text()
    window.act["ghosts"].setChecked(True)
    window.toggle_ghosts()
    scene = window.canvas.tree_scene()
    assert scene.ghosts_item is not None and panel.ghosts.isChecked()
    cut = sum(
        sum(1 for _ in record.removed(tree, n.id).walk()) - 1
        for n in tree.nodes()
        if n.is_leaf and record.removed(tree, n.id) is not None
    )
    assert len(scene.ghosts_item._ghosts) == cut > 0
    legend = window.canvas._legend.text()
    assert "pruned here" in legend and "cut by pruning" in legend  # every mark drawn is explained
    panel.ghosts.setChecked(False)
    assert window.canvas.tree_scene().ghosts_item is None and not window.act["ghosts"].isChecked()
    assert "cut by pruning" not in window.canvas._legend.text()


def test_c45_without_pruning_says_what_the_tab_offers(qtbot, window):
    _train(qtbot, window, None, algorithm="c45", prune="none")
    assert window.pruning.pages.currentIndex() == 0
    assert "Choose pessimistic pruning" in window.pruning.message.text()


def test_cart_pruning_plot_reads_plainly(qtbot, window):
    _train(qtbot, window, "iris", algorithm="cart")
    panel = window.pruning
    assert panel.pages.currentIndex() == 1
    for side in ("bottom", "left", "right"):
        assert not panel.plot.getAxis(side).autoSIPrefix
    names = [label.text for _, label in panel.legend.items]
    assert names == ["leaf impurity (training)", "training error", "leaves (right axis)"]
    steps = [i for i in panel.leaves_axis.addedItems if isinstance(i, pg.PlotCurveItem)]
    assert steps and steps[0].opts["stepMode"] == "center"
    # Rank scale: the alphas sit evenly, so none crowd into a corner.
    assert np.array_equal(panel._x(), np.arange(len(panel.alphas)))
    panel.scale.setCurrentText("log")
    x = panel._x()
    assert np.all(np.diff(x) > 0)
    ticks = panel.plot.getAxis("bottom")._tickLevels[0]
    assert ticks[0][1] == "0"


def test_inspector_fits_stacks_pins_and_greys_used_attributes(qtbot, own_window):
    _train(qtbot, own_window, None, algorithm="id3")
    own_window.show()
    own_window.docks["Inspector"].raise_()
    own_window.resizeDocks([own_window.docks["Inspector"]], [300], Qt.Orientation.Horizontal)
    own_window.controller.select_node(1)  # outlook = sunny
    inspector = own_window.inspector
    text = _plain(inspector.text())
    assert "outlook: already split on above" in text
    assert "0.693" in text and "0.787" in text  # the notes' truncations explained
    # Every column reachable: the splits table scrolls sideways within the dock, its names stay.
    table = inspector.splits.table
    qtbot.waitUntil(lambda: table.isVisible())
    assert table.width() <= inspector.scroll.viewport().width()
    header = table.horizontalHeader()
    qtbot.waitUntil(
        lambda: (
            table.horizontalScrollBar().maximum()
            == max(0, header.length() - table.viewport().width())
        )
    )
    assert table.verticalHeaderItem(0).text() == "outlook –"
    inspector.pin_node(0)
    inspector.pin_node(3)
    qtbot.wait(50)
    cards = [inspector._pins.itemAt(k).widget() for k in range(inspector._pins.count())]
    assert len(cards) == 2 and cards[1].y() > cards[0].y() and cards[1].x() == cards[0].x()


def test_node_labels_are_drawn_and_exported_alike(qtbot, own_window, tmp_path):
    _train(qtbot, own_window, None, algorithm="id3")
    own_window.act["label_weka"].setChecked(True)
    own_window.act["label_counts"].setChecked(True)
    own_window.set_node_labels()
    item = own_window.canvas.tree_scene().items_by_id[0]
    assert item.lines == ("n = 14", "(14.0/5.0)", "yes 9 · no 5")
    path = tmp_path / "tree.svg"
    own_window.dialogs.replies["save_path"].append(str(path))
    own_window.exports.export_image()
    svg = path.read_text()
    assert ">(14.0/5.0)<" in svg and ">yes 9 · no 5<" in svg


def test_cart_with_reduced_error_pruning_walks_its_decisions(qtbot, window):
    tree = _train(qtbot, window, "iris", algorithm="cart", prune="reduced-error")
    assert tree.pruning is not None
    assert window.pruning.pages.currentIndex() == 2


def test_estimates_stay_after_growing_a_subtree_by_hand(qtbot, window):
    tree = _train(qtbot, window, "contact-lenses", algorithm="c45")
    collapsed = [d.path for d in tree.pruning.decisions if d.verdict == "collapsed"]
    leaf = tree.root
    for branch in collapsed[0]:
        leaf = leaf.children[branch]
    window.modelling.grow(leaf.id)
    edited = window.controller.tree
    assert edited.pruning is None and edited.n_nodes > tree.n_nodes  # a new tree: no record
    window.controller.select_node(0)
    text = _plain(window.inspector.text())
    assert "Pessimistic error estimates" in text and "as the subtree" in text
