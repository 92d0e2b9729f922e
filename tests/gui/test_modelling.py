"""Point-and-click modelling: hand splits, growth, pruning by hand, steps, the alpha slider, what-if."""

import pytest

from engine.export.labels import attribute_name
from tests.gui.conftest import train_and_wait


@pytest.fixture
def window(shared_window):
    """The module's one window, put back before each test (``reset_window``); each test trains
    or steps its own tree. The one that shows the window takes ``own_window``."""
    return shared_window


def _stump(qtbot, window):
    window.config.algorithm.set_value("id3")
    window.config.max_depth.setValue(0)
    window.config.cv_folds.setValue(0)
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    assert window.controller.tree.root.is_leaf


def test_split_on_a_chosen_attribute_then_undo(qtbot, window):
    _stump(qtbot, window)
    menu = window.modelling.menu(0)
    split_menu = [a for a in menu.actions() if a.text() == "Split on…"][0].menu()
    labels = [a.text() for a in split_menu.actions()]
    assert labels[0].startswith("outlook   (information gain 0.247)")
    assert labels[1].startswith("humidity   (information gain 0.152)")
    split_menu.actions()[1].trigger()  # humidity, not the best
    assert attribute_name(window.controller.tree, window.controller.tree.root) == "humidity"
    assert len(window.canvas.tree_scene().items_by_id) == 3
    assert "a tree edited by hand — 2 leaves, 3 nodes" in window.results.text()
    window.doc.undo_stack.undo()
    assert window.controller.tree.root.is_leaf
    window.doc.undo_stack.redo()
    assert window.controller.tree.n_leaves == 2


def test_grow_make_leaf_and_grow_one_level(qtbot, window):
    _stump(qtbot, window)
    window.controller.settings = window.controller.settings.__class__(
        **{**window.controller.settings.__dict__, "max_depth": None}
    )
    window.modelling.grow(0, levels=1)
    assert window.controller.tree.depth == 1 and window.controller.tree.n_leaves == 3
    window.modelling.grow(0)
    assert window.controller.tree.n_leaves == 5
    window.modelling.make_leaf(1)
    assert window.controller.tree.n_leaves == 4
    window.doc.undo_stack.undo()
    assert window.controller.tree.n_leaves == 5


def test_typed_threshold_split(qtbot, window):
    window.files.open_sample("weather-numeric", confirmed=True)
    window.config.max_depth.setValue(0)
    window.config.cv_folds.setValue(0)
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    window.dialogs.replies["ask_text"].append("70.5")
    window.modelling.split_at_typed_threshold(0, 1)  # temperature
    assert window.controller.tree.root.split.threshold == 70.5
    window.dialogs.replies["ask_text"].append("warm")
    window.modelling.split_at_typed_threshold(1, 1)
    assert "not a number" in window.dialogs.errors[-1][0]


def test_step_through_id3_on_weather(qtbot, window):
    window.config.algorithm.set_value("id3")
    order = []
    window.growth.step_taken.connect(
        lambda tree, node: order.append(attribute_name(tree, tree.node(node)))
    )
    while window.growth.step():
        pass
    assert order == ["outlook", "humidity", "windy"]
    assert window.controller.tree.n_leaves == 5
    assert "fully grown after 3 splits" in window.growth.status.text()
    assert window.canvas.selected_node() >= 0


def test_alpha_slider_prunes_the_canvas(qtbot, window):
    window.files.open_sample("iris", confirmed=True)
    window.config.algorithm.set_value("cart")
    window.config.prune.set_value("none")  # the grown tree, unpruned
    window.config.cv_folds.setValue(0)
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    full = window.controller.tree.n_leaves
    assert window.pruning.isEnabled() and window.pruning.slider.maximum() > 2
    window.pruning.slider.setValue(window.pruning.slider.maximum() - 1)
    assert window.controller.tree.n_leaves < full
    assert len(window.canvas.tree_scene().items_by_id) == window.controller.tree.n_nodes
    from engine.prune.cost_complexity import prune_cost_complexity

    for k in range(window.pruning.slider.maximum() + 1):  # the path's steps, no new search
        window.pruning.slider.setValue(k)
        searched = prune_cost_complexity(window.pruning.full, float(window.pruning.alphas[k]))
        assert [n.id for n in window.controller.tree.nodes()] == [n.id for n in searched.nodes()]
        assert window.controller.tree.n_leaves == searched.n_leaves
    window.pruning.slider.setValue(0)
    assert window.controller.tree.n_leaves == full
    job = window.controller.cross_validate_alpha()
    qtbot.waitUntil(lambda: job.done, timeout=60000)
    qtbot.waitUntil(lambda: "one-standard-error" in window.pruning.info.text(), timeout=5000)


def test_what_if_shows_path_and_prediction(qtbot, own_window):
    train_and_wait(qtbot, own_window)
    qtbot.waitUntil(lambda: own_window.controller.tree is not None)
    panel = own_window.what_if
    own_window.show()
    own_window.docks["What-if"].raise_()
    qtbot.waitUntil(panel.isVisible)
    panel.set_value("outlook", "sunny")
    panel.set_value("humidity", "normal")
    assert "<b>yes</b>" in panel.result.text()
    lit = {i for i, it in own_window.canvas.tree_scene().items_by_id.items() if it.highlighted}
    assert lit == {0, 1, 3}
    panel.set_value("outlook", "?")  # missing: every branch, weighted
    assert "yes" in panel.result.text()


def test_cart_split_with_chosen_groups(qtbot, window):
    window.config.algorithm.set_value("cart")
    window.config.max_depth.setValue(0)
    window.config.cv_folds.setValue(0)
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.tree is not None)
    window.dialogs.replies["ask_text"].append("sunny, rainy")
    window.modelling.split_with_typed_groups(0, 0)
    assert [c.weight for c in window.controller.tree.root.children] == [10, 4]
    window.dialogs.replies["ask_text"].append("foggy")
    window.modelling.split_with_typed_groups(1, 0)
    assert "no value 'foggy'" in window.dialogs.errors[-1][0]


def test_a_compiled_tree_is_inspected_edited_and_undone_like_any_other(qtbot, window):
    # A big enough table grows on the compiled builder, whose nodes read their numbers from
    # shared arrays (ArrayNode); the window must not notice the difference.
    pytest.importorskip("numba")
    from engine.compiling.lifecycle import compile_kernels
    from engine.export.labels import condition
    from engine.tree import ArrayNode, Node
    from gui.canvas.node_item import tooltip
    from tests.gui.test_window import _big_table

    assert compile_kernels()
    window.doc.load(_big_table(4000), None)
    window.config.algorithm.set_value("cart")
    window.config.prune.set_value("none")  # the grown tree, unpruned
    window.config.max_depth.setValue(4)
    train_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.result is not None)
    tree = window.controller.result.model.tree_
    node = tree.node(1)
    assert type(node) is ArrayNode and not node.is_leaf
    window.canvas.select_node(1)
    text = window.inspector.text()
    assert f"Rule: {condition(tree, tree.root, 0)}" in _shown(
        text
    )  # "x0 <= ..." is text, not a tag
    assert _shown(tooltip(tree, 1)).startswith(condition(tree, tree.root, 0))
    counts = [int(round(c)) for c in node.distribution]
    assert all(f"<td align=right>{c}</td>" in text for c in counts)
    assert f"n = {int(node.weight)}" in text and f"{node.impurity:.3f}" in text
    window.modelling.make_leaf(1)
    leaf = window.controller.tree.node(1)
    assert type(leaf) is Node and leaf.is_leaf and leaf.weight == node.weight
    assert list(leaf.distribution) == list(node.distribution)
    window.doc.undo_stack.undo()
    assert (
        not window.controller.tree.node(1).is_leaf
        and window.controller.tree.n_nodes == tree.n_nodes
    )


def _shown(html: str) -> str:
    """What a rich-text label shows of ``html``."""
    from PySide6.QtGui import QTextDocument

    doc = QTextDocument()
    doc.setHtml(html)
    return doc.toPlainText()
