"""The controller alone (no window): state changes only through its methods, and says so."""

import threading

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


def test_train_makes_its_table_on_the_job_thread_as_the_table_was(qtbot, monkeypatch):
    """Train keeps the table's contents by a shallow copy (pandas' copy-on-write) and makes
    the Table on the job's thread: an edit made after Train changes neither the training nor
    the open table's own next snapshot. Without copy-on-write the Table is made at once."""
    import gui.table.document as document
    from engine.data.table import copy_on_write

    controller = Controller()
    controller.load_table(load_sample("iris"), None, sample="iris")
    controller.set_options({"algorithm": "cart"}, 0, 1)  # no cross-validation job after it
    doc = controller.doc
    before = float(doc.frame.iat[0, 0])
    for cow in (True, False) if copy_on_write() else (False,):
        monkeypatch.setattr(document, "copy_on_write", lambda cow=cow: cow)
        make = doc.snapshot_later()
        doc.set_cell(0, 0, 42.0)
        assert float(make().frame.iat[0, 0]) == before
        assert float(doc.snapshot().frame.iat[0, 0]) == 42.0
        doc.set_cell(0, 0, before)
    monkeypatch.setattr(document, "copy_on_write", copy_on_write)
    if not copy_on_write():
        return  # pandas 2 without copy-on-write: the Table is made on the window's thread
    made_on = []
    monkeypatch.setattr(document, "make_table", _recording_make_table(made_on))
    with qtbot.waitSignal(controller.result_changed, timeout=60_000):
        job = controller.train()
    qtbot.waitUntil(lambda: job.done)
    assert made_on and made_on[0] is not threading.main_thread()


def _recording_make_table(threads: list):
    from engine.data.table import make_table

    def make(*args, **kwargs):
        threads.append(threading.current_thread())
        return make_table(*args, **kwargs)

    return make


def test_loading_a_table_drops_the_tree_and_the_result(qtbot):
    controller = _trained(qtbot)
    results = []
    controller.result_changed.connect(results.append)
    controller.load_table(load_sample("iris"), None, sample="iris")
    assert controller.tree is None and controller.result is None and controller.data is None
    assert results == [None]
