"""The controller alone (no window): state changes only through its methods, and says so."""

from engine.data.samples import load_sample
from gui.canvas.modelling import TreeEditCommand
from gui.controller import EDITED, PRUNED, TRAINED, Controller


def _trained(qtbot, params=None, cv_folds=0):
    controller = Controller()
    controller.load_table(load_sample("weather"), None, sample="weather")
    controller.set_options(params or {"algorithm": "id3"}, cv_folds, 1)
    with qtbot.waitSignal(controller.result_changed, timeout=60000):
        job = controller.train()
    qtbot.waitUntil(lambda: job.done)
    return controller


def test_training_sets_the_state_and_signals_it(qtbot):
    controller = Controller()
    trees = []
    controller.tree_changed.connect(lambda tree, select: trees.append((tree, select)))
    controller.load_table(load_sample("weather"), None, sample="weather")
    assert trees == [(None, -1)] and controller.tree is None
    controller.set_options({"algorithm": "id3"}, 0, 1)
    with qtbot.waitSignal(controller.result_changed, timeout=60000):
        controller.train()
    tree = controller.result.model.tree_
    assert controller.tree is tree is controller.trained_tree and controller.origin == TRAINED
    assert (tree.n_leaves, tree.n_nodes) == (5, 8)
    assert controller.settings.algorithm == "id3" and controller.data.n_rows == 14
    assert trees[-1] == (tree, -1)


def test_an_edit_and_its_undo_keep_where_the_tree_came_from(qtbot):
    from engine.learn.editing import make_leaf

    controller = _trained(qtbot)
    trained = controller.tree
    pruned = make_leaf(trained, 1)
    controller.show_tree(pruned, origin=PRUNED)
    command = TreeEditCommand(controller, "Make node 3 a leaf", pruned, make_leaf(pruned, 3), 3)
    controller.doc.undo_stack.push(command)
    assert controller.origin == EDITED and controller.tree.n_leaves == 3
    controller.doc.undo_stack.undo()
    assert controller.origin == PRUNED and controller.tree is pruned


def test_rows_and_nodes_of_the_tree_on_screen(qtbot):
    controller = _trained(qtbot)
    assert controller.rows_reaching(1) == {0, 1, 7, 8, 10}  # outlook = sunny
    assert controller.nodes_reached([0]) == {0, 1, 2}  # sunny, high humidity: no
    assert controller.predict_row(0) == "Row 1: the tree predicts play = no"


def test_a_table_that_cannot_be_snapshot_fails_with_one_message(qtbot):
    controller = Controller()
    failures = []
    controller.failed.connect(lambda message, details: failures.append(message))
    assert controller.train() is None
    assert failures == ["the table has no columns"]


def test_loading_a_table_drops_the_tree_and_the_result(qtbot):
    controller = _trained(qtbot)
    results = []
    controller.result_changed.connect(results.append)
    controller.load_table(load_sample("iris"), None, sample="iris")
    assert controller.tree is None and controller.result is None and controller.data is None
    assert results == [None]
